/* write.h: what the verbs that change objects share (create, apply, replace, patch,
 * label, annotate, delete, edit, the state verbs). */
#ifndef ND_CMD_WRITE_H
#define ND_CMD_WRITE_H

#include <jansson.h>
#include <stdbool.h>

#include "cli.h"
#include "print/print.h"

enum nd_dry_run { ND_DRY_NONE, ND_DRY_CLIENT, ND_DRY_SERVER };

/* --dry-run=none|client|server (a bare --dry-run is client, as kubectl warns). */
int nd_dry_run_parse(const char *v, enum nd_dry_run *out, struct nd_status *st);

/* --validate: what the server does with fields the kind does not know (the
 * fieldValidation query parameter). Strict, as kubectl, unless the flag says otherwise. */
enum nd_validate { ND_VALIDATE_STRICT, ND_VALIDATE_WARN, ND_VALIDATE_IGNORE };

/* The flag's row in a verb's table, bound to the field validate of S (a bare --validate
 * is strict: flags.c). */
#define ND_VALIDATE_FLAG(S)                                                                    \
    {"validate", 0, ND_STRING, "MODE",                                                         \
     "strict (the default: unknown fields are an error), warn or ignore; true is strict, "     \
     "false ignore",                                                                           \
     "=strict warn ignore", ND_TO(S, validate)}

/* strict|true (and NULL), warn, ignore|false. -1 with st (Usage) for anything else. */
int nd_validate_parse(const char *v, enum nd_validate *out, struct nd_status *st);
/* Appends the query parameter (?fieldValidation=Strict, or &... after a query). */
void nd_validate_query(enum nd_validate v, struct nd_buf *path);

struct nd_manifest;

/* The errors of a verb that writes the objects of files, so that one that many objects
 * meet alike (a missing project) is printed once. */
struct nd_error_group {
    char *text;       /* as printed, without requestId */
    size_t count;     /* objects that met it */
    char **names;     /* kind/name of the 2nd, 3rd ... objects (the first NAMED) */
    size_t first_len; /* of its first line */
};
struct nd_errors {
    struct nd_error_group *v;
    size_t n;
    int worst; /* the exit code of the first error */
};

/* For an unknown field ("spec.resourcse"): the field of the same object in the kind's
 * schema whose name is closest, when it is close ("resources"); NULL otherwise.
 * BORROWED from the schema. */
const char *nd_field_did_you_mean(const struct nd_kind *k, const char *field);

/* Reports an error about manifest m (NULL: not about one object; printed as it is).
 * The first time an error is met it is printed (an Invalid answer naming each cause at
 * its line of m's file); the same error again is only counted. Returns its exit code. */
int nd_errors_add(struct nd_ctx *ctx, struct nd_errors *e, const struct nd_status *st,
                  const struct nd_manifest *m);
/* After the last object: one line per error met more than once, with how many more
 * objects met it and the first of their names. */
void nd_errors_finish(struct nd_errors *e);
void nd_errors_release(struct nd_errors *e);

/* One request of nd_call: method and path; everything else may be left out (zero). */
struct nd_call_req {
    const char *method;
    const char *path;
    const char *content_type;   /* of body; NULL: application/json */
    const json_t *body;         /* NULL: none */
    const char *const *headers; /* extra "Name: value" headers, NULL-terminated; NULL: none */
    json_t **out;               /* the answer (NEW; NULL when it has no body) */
    int *code;                  /* the HTTP status, when an answer came */
    char **etag;                /* the answer's ETag (NEW, or NULL when none) */
};

/* Sends one write: nd_call(ctx, &(struct nd_call_req){.method = "POST", .path = p,
 * .body = obj, .out = &res}, st). An idempotency key (fresh for each call) is sent with
 * POST. Warning headers are printed. A non-2xx answer is st and -1 (*code still set). */
int nd_call(struct nd_ctx *ctx, const struct nd_call_req *r, struct nd_status *st);

/* GET path: nd_call without a body, for reads. *out (NEW, may be NULL) the answer. */
int nd_call_get(struct nd_ctx *ctx, const char *path, json_t **out, struct nd_status *st);

/* ---- the result loop of the verbs that write the objects of files (write_each.c) ---- */

struct nd_manifests;

/* What a verb's action did with one object. */
struct nd_write_done {
    json_t *obj;    /* the object as written (NEW), printed as -o asks */
    const char *op; /* how: "created", "configured", "unchanged" ... */
    bool skipped;   /* the action printed its own line (apply --review's "not applied") */
};

/* A verb's action on one manifest m, whose project is ns ("" for cluster-scoped kinds):
 * 0 with *d filled, or -1 with st. */
typedef int (*nd_write_fn)(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns,
                           void *cls, struct nd_write_done *d, struct nd_status *st);

struct nd_write_each {
    nd_write_fn fn;
    void *cls;
    const struct nd_print_opts *popts; /* -o, parsed by nd_write_output_parse */
    bool has_output;                   /* -o given */
    enum nd_dry_run dry;
    bool estimate; /* a server dry run without -o: each object's estimate under its line */
    /* after an object is printed (NULL: nothing) */
    void (*printed)(void *cls, const struct nd_manifest *m, const char *ns);
};

/* create, replace and apply: for each manifest in order, its project (the command's -n,
 * as nd_manifest_project), the action, then what it did (nd_print_result: `kind.group/name
 * op`, or the object as -o asks) or its error (nd_errors: grouped, printed once); stdout
 * flushed after each. Goes on after an error. Returns the first error's exit code, or 0. */
int nd_write_manifests(struct nd_ctx *ctx, const struct nd_manifests *ms,
                       const struct nd_write_each *e);

struct nd_res_list;
/* Sends one merge patch (borrowed) to every object of res, each with the field manager
 * nodus-<verb> (and dryRun=All when dry is server), printing `kind.group/name done` for
 * each, or its error; it goes on after an error. Returns the first error's exit code, or
 * 0. */
int nd_patch_each(struct nd_ctx *ctx, const struct nd_res_list *res, const json_t *patch,
                  enum nd_dry_run dry, const char *done);

/* Asks a yes/no question on the terminal (readline, loaded only when a prompt is
 * needed). Without a terminal it never blocks: -1 with st (Usage) naming the flag that
 * answers it. 0 with *yes: the answer was y or yes, in any case. The question (with
 * " [y/N] " after it) goes to standard error. */
int nd_prompt_yes(const char *question, const char *flag, bool *yes, struct nd_status *st);

/* Adds kubectl's context to a server's error about an object of a file:
 * `error when creating "job.yaml": jobs.nodus.dev "a" already exists` (verb "creating",
 * "replacing", "deleting"). Client-side errors (Usage, Unreachable, Timeout) are left
 * as they are. */
void nd_write_error_source(struct nd_status *st, const char *verb, const char *source);

/* Parses -o for a verb that writes: json, yaml, name, jsonpath=, jsonpath-file= (whose
 * file is read here). Table formats (wide, custom-columns) are refused as kubectl does,
 * before anything is sent. NULL or "" leaves the default. -1 with st (Usage). */
int nd_write_output_parse(const char *output, struct nd_print_opts *popts, struct nd_status *st);

/* Prints what a write did: with -o (name, json, yaml, jsonpath ...) the object as asked
 * (without metadata.managedFields, as kubectl), else `kind.group/name operation` (with
 * " (server dry run)" or " (dry run)" appended when dry). nth counts the objects this
 * command printed before: YAML documents after the first start with `---`, so several
 * objects read back as a stream. Returns 0 or -1 with st. */
int nd_print_result(const struct nd_print_opts *popts, bool has_output, const json_t *obj,
                    const char *operation, enum nd_dry_run dry, size_t nth, struct nd_status *st);

/* For a server dry run of a kind that uses compute: the server's estimate, as
 * `  estimate: rate $2.49/h, expected $4.98, first hold $2.49, starts in ~2m`. The start
 * is counted from the answer's creationTimestamp (the server's clock, which an emulator
 * may have moved), else from this machine's clock. */
void nd_print_estimate(const json_t *obj);
/* The same line's text (`rate $2.49/h, ..., starts in ~2m`), appended to out; nothing
 * when obj has no estimate. */
void nd_estimate_line(const json_t *obj, struct nd_buf *out);

/* One server-side apply of manifest m to project ns ("" for cluster-scoped kinds), as
 * `nodus apply` sends it (field manager nodus, strict validation; fields that only
 * nodus's imperative verbs set are taken over): apply.c. */
struct nd_apply_call {
    bool dry;             /* a server dry run (dryRun=All) */
    const char *if_match; /* sent as If-Match; NULL: none */
    json_t **out;         /* the answer (NEW) */
    char **etag;          /* its ETag (NEW or NULL); NULL: not wanted */
    const char **op;      /* "created" or "serverside-applied"; NULL: not wanted */
};
int nd_apply_server_side(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns,
                         const struct nd_apply_call *c, struct nd_status *st);

/* A mkdtemp template "$TMPDIR/<prefix>-XXXXXX" ($TMPDIR, else /tmp). NEW string. */
char *nd_tmpdir_template(const char *prefix);

#endif
