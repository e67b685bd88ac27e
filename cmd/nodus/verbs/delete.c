/* nodus delete: delete objects by name, by manifest (-f), by selector (-l,
 * --field-selector) or all of a kind (--all), with the propagation policy of --cascade, and wait until they are gone
 * (by watching) unless --wait=false. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "manifest.h"
#include "resolve.h"
#include "watchobj.h"
#include "write.h"
#include "selector/selector.h"
#include "util/term.h"
#include "util/xmalloc.h"

struct delete_opts {
    struct nd_strings filename;
    bool recursive;
    const char *selector;
    const char *field_selector;
    bool all;
    const char *cascade;
    bool wait;
    bool wait_given;
    int64_t timeout;
    bool ignore_not_found;
    const char *dry_run;
    const char *output;
    bool yes;
};

#define TO(f) ND_TO(struct delete_opts, f)
const struct nd_flag cmd_delete_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "delete the objects of these manifests", "files",
     TO(filename)},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL,
     TO(recursive)},
    {"selector", 'l', ND_STRING, "SELECTOR", "delete the objects matching a label selector", NULL,
     TO(selector)},
    {"field-selector", 0, ND_STRING, "SELECTOR",
     "delete the objects matching a field selector (status.phase=Failed)", NULL,
     TO(field_selector)},
    {"all", 0, ND_BOOL, NULL, "delete every object of the kinds given", NULL, TO(all)},
    {"cascade", 0, ND_STRING, "POLICY",
     "background (default), foreground or orphan: what happens to owned objects",
     "=background foreground orphan", TO(cascade)},
    {"wait", 0, ND_BOOL, NULL, "wait until the objects are gone (default true)", NULL, TO(wait),
     TO(wait_given)},
    {"timeout", 0, ND_DURATION, "DURATION", "how long to wait (default: forever)", NULL,
     TO(timeout)},
    {"ignore-not-found", 0, ND_BOOL, NULL, "a missing object is not an error", NULL,
     TO(ignore_not_found)},
    {"dry-run", 0, ND_STRING, "MODE", "none, client or server", "=none client server", TO(dry_run)},
    {"output", 'o', ND_STRING, "FORMAT", "name: print kind.group/name of each deleted object",
     "=name", TO(output)},
    {"yes", 'y', ND_BOOL, NULL, "do not ask before deleting several objects", NULL, TO(yes)},
    ND_FLAGS_END(struct delete_opts),
};

struct target {
    const struct nd_kind *k;
    char *ns;
    char *name;
    char *uid;
    const char *source; /* the -f file it came from (BORROWED), or NULL */
};

struct targets {
    struct target *v;
    size_t n;
};

static void add(struct targets *t, const struct nd_kind *k, const char *ns, const char *name)
{
    t->v = nd_xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    t->v[t->n].k = k;
    t->v[t->n].ns = nd_xstrdup(ns ? ns : "");
    t->v[t->n].name = nd_xstrdup(name);
    t->v[t->n].uid = NULL;
    t->v[t->n].source = NULL;
    t->n++;
}

static void targets_release(struct targets *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].ns);
        free(t->v[i].name);
        free(t->v[i].uid);
    }
    free(t->v);
}

/* The selectors of a delete, checked as the server checks a collection write before
 * anything is listed: an empty value selects nothing here (selector.h). */
struct sels {
    const char *labels, *fields; /* -l, --field-selector; NULL: not given */
};

/* Every object of a kind (matching -l and --field-selector when given) becomes a target. */
static int add_listed(struct nd_ctx *ctx, struct targets *t, const struct nd_kind *k,
                      const char *ns, const struct sels *sel, struct nd_status *st)
{
    struct nd_select check;
    struct nd_status bad = ND_STATUS_INIT;
    if (nd_select_parse(&check, sel->labels, sel->fields, k->field_selectors, ND_SELECT_WRITE,
                        &bad) < 0) {
        /* the client's own refusal (exit 2), in the server's words */
        nd_status_set(st, "Usage", bad.fix, "%s", bad.message);
        nd_status_release(&bad);
        return -1;
    }
    nd_select_release(&check);
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(k, ns, NULL, NULL, &p);
    char sep = '?';
    if (sel->labels) {
        nd_buf_addf(&p, "%clabelSelector=", sep);
        nd_buf_add_urlencoded(&p, sel->labels);
        sep = '&';
    }
    if (sel->fields) {
        nd_buf_addf(&p, "%cfieldSelector=", sep);
        nd_buf_add_urlencoded(&p, sel->fields);
    }
    json_t *list = NULL;
    int rc = nd_call_get(ctx, p.data, &list, st);
    nd_buf_release(&p);
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(list, "items"), i, obj) {
        const json_t *m = json_object_get(obj, "metadata");
        add(t, k, json_string_value(json_object_get(m, "namespace")),
            json_string_value(json_object_get(m, "name")));
    }
    json_decref(list);
    return rc;
}

static const char *policy(const char *cascade, struct nd_status *st)
{
    if (!cascade || !strcmp(cascade, "background") || !strcmp(cascade, "true"))
        return "Background";
    if (!strcmp(cascade, "foreground"))
        return "Foreground";
    if (!strcmp(cascade, "orphan") || !strcmp(cascade, "false"))
        return "Orphan";
    nd_status_set(st, "Usage", NULL,
                  "invalid cascade value (%s). Must be \"background\", \"foreground\", or "
                  "\"orphan\"",
                  cascade);
    return NULL;
}

/* Gone: absent, DELETED, or replaced by another object of the same name. */
static int gone(void *cls, const char *type, const json_t *obj, struct nd_status *st)
{
    (void)st;
    const struct target *t = cls;
    if (!obj || (type && !strcmp(type, "DELETED")))
        return 1;
    const char *uid = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    return t->uid && uid && strcmp(uid, t->uid) != 0;
}

static int wait_gone(struct nd_ctx *ctx, const struct target *t, int64_t deadline_ms,
                     struct nd_status *st)
{
    char what[160], rn[ND_KIND_NAME_MAX];
    snprintf(what, sizeof what, "the deletion of %s/%s", nd_kind_resource_name(t->k, rn, sizeof rn),
             t->name);
    return nd_watch_object(ctx, t->k, t->ns, t->name,
                           &(struct nd_watch_opts){.fn = gone,
                                                   .cls = (void *)t,
                                                   .deadline_ms = deadline_ms,
                                                   .what = what,
                                                   .note = "its deletion"},
                           st) < 0
               ? -1
               : 0;
}

/* The objects of the -f manifests become targets. */
static int add_manifests(struct nd_ctx *ctx, const struct nd_strings *files, bool recursive,
                         struct nd_manifests *ms, struct targets *t, struct nd_status *st)
{
    if (nd_manifests_read(files, recursive, ms, st) < 0)
        return -1;
    for (size_t i = 0; i < ms->n; i++) {
        const char *mns, *mname;
        if (nd_manifest_project(&ms->v[i], nd_ctx_project(ctx), ctx->project_flag != NULL,
                                  &mns, st) < 0 ||
            !(mname = nd_manifest_name(&ms->v[i], "deleting", st)))
            return -1;
        add(t, ms->v[i].kind, mns, mname);
        t->v[t->n - 1].source = ms->v[i].source;
    }
    return 0;
}

/* Refuses a KIND without names, selector or --all, and an empty selector; 0 or the exit
 * code. */
static int check_selection(struct nd_ctx *ctx, const struct nd_res_list *res,
                           const struct sels *sel, bool all)
{
    if (res->by_name)
        return 0;
    if ((sel->labels && !*sel->labels) || (sel->fields && !*sel->fields))
        /* "-l $EMPTY" would list, and delete, every object */
        return nd_cli_usage(ctx, "an empty selector selects every object (use --all to "
                                 "delete every one)");
    if (!sel->labels && !sel->fields && !all)
        return nd_cli_usage(ctx, "resource(s) were provided, but no name was specified "
                                 "(use --all to delete every one, or -l or "
                                 "--field-selector to select)");
    return 0;
}

/* The objects named on the command line, or listed by kind and selector, become targets.
 * ns: the project to list in (NULL: all of them). */
static int add_resolved(struct nd_ctx *ctx, const struct nd_res_list *res, const char *ns,
                        const struct sels *sel, struct targets *t, struct nd_status *st)
{
    for (size_t i = 0; i < res->n; i++) {
        const struct nd_kind *k = res->v[i].k;
        const char *kns = k->namespaced ? (ns ? ns : NULL) : "";
        if (res->by_name) {
            for (size_t j = 0; j < json_array_size(res->v[i].names); j++)
                add(t, k, k->namespaced ? nd_ctx_project(ctx) : "",
                    json_string_value(json_array_get(res->v[i].names, j)));
        } else if (add_listed(ctx, t, k, kns, sel, st) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Asks before deleting n objects; 0 to go on, or the exit code. */
static int confirm(struct nd_ctx *ctx, size_t n)
{
    struct nd_status st = ND_STATUS_INIT;
    char question[64];
    snprintf(question, sizeof question, "Delete %zu objects?", n);
    bool yes = false;
    if (nd_prompt_yes(question, "--yes", &yes, &st) < 0)
        return nd_cli_error(ctx, &st);
    if (!yes) {
        fprintf(stderr, "Nothing deleted.\n");
        return 1;
    }
    return 0;
}

/* How each target is deleted and reported. */
struct how {
    const char *policy; /* propagationPolicy */
    enum nd_dry_run dry;
    bool ignore_not_found;
    bool names; /* -o name */
};

static void print_deleted(const struct how *h, const struct target *t)
{
    char what[ND_KIND_NAME_MAX];
    nd_kind_display_name(t->k, what, sizeof what);
    char *shown = nd_term_safe(t->name, 0); /* a name a server's list may have given */
    if (h->names)
        printf("%s/%s\n", what, shown);
    else
        printf("%s \"%s\" deleted%s\n", what, shown,
               h->dry == ND_DRY_SERVER   ? " (server dry run)"
               : h->dry == ND_DRY_CLIENT ? " (dry run)"
                                         : "");
    free(shown);
    fflush(stdout);
}

/* Sends the DELETE of one target (unless a client dry run), keeps the uid it had and
 * prints it; 0 when sent, else the exit code (0 too for an ignored NotFound) with *sent
 * false. */
static int delete_one(struct nd_ctx *ctx, const struct how *h, struct target *t, bool *sent)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(t->k, t->ns, t->name, NULL, &p);
    json_t *body = json_pack("{ssss}", "kind", "DeleteOptions", "propagationPolicy", h->policy);
    if (h->dry == ND_DRY_SERVER)
        json_object_set_new(body, "dryRun", json_pack("[s]", "All"));
    json_t *res_obj = NULL;
    int rc = 0;
    if (h->dry != ND_DRY_CLIENT)
        rc = nd_call(ctx,
                      &(struct nd_call_req){
                          .method = "DELETE", .path = p.data, .body = body, .out = &res_obj},
                      &st);
    json_decref(body);
    nd_buf_release(&p);
    *sent = rc == 0;
    int code = 0;
    if (rc < 0) {
        if (!(h->ignore_not_found && nd_status_is(&st, ND_REASON_NOT_FOUND))) {
            if (t->source)
                nd_write_error_source(&st, "deleting", t->source);
            code = nd_cli_error(ctx, &st);
        }
    } else {
        const char *uid =
            json_string_value(json_object_get(json_object_get(res_obj, "metadata"), "uid"));
        if (uid)
            t->uid = nd_xstrdup(uid);
        print_deleted(h, t);
    }
    nd_status_release(&st);
    json_decref(res_obj);
    return code;
}

/* Waits until every sent target is gone; the exit code of the first that is not. */
static int wait_all(struct nd_ctx *ctx, const struct targets *t, const bool *sent, int64_t deadline)
{
    struct nd_status st = ND_STATUS_INIT;
    int worst = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (sent[i] && wait_gone(ctx, &t->v[i], deadline, &st) < 0) {
            int c = nd_cli_error(ctx, &st);
            if (!worst)
                worst = c;
            nd_status_release(&st);
        }
    }
    return worst;
}

int cmd_delete(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct delete_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct targets t = {0};
    struct nd_manifests ms = {0};
    struct nd_res_list res = {0};
    struct how h = {0};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &h.dry, &st) < 0 ||
        !(h.policy = policy(opt.cascade, &st))) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *ns = ctx->all_projects ? NULL : nd_ctx_project(ctx);
    const struct sels sel = {opt.selector, opt.field_selector};
    bool selected = sel.labels || sel.fields;
    bool all = opt.all;
    if (opt.filename.v) { /* -f given */
        if (add_manifests(ctx, &opt.filename, opt.recursive, &ms, &t, &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
    } else {
        if (nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
        if ((worst = check_selection(ctx, &res, &sel, all)))
            goto out;
        if (add_resolved(ctx, &res, ns, &sel, &t, &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
        if (!res.by_name && t.n == 0) {
            fprintf(stderr, "No resources found\n");
            goto out;
        }
    }
    /* a prompt before deleting several objects, only on a terminal */
    if (t.n > 1 && !opt.yes && !all && !selected && isatty(STDIN_FILENO) &&
        isatty(STDERR_FILENO) && h.dry == ND_DRY_NONE && (worst = confirm(ctx, t.n)))
        goto out;
    bool wait = !opt.wait_given || opt.wait;
    int64_t timeout = opt.timeout;
    int64_t deadline = timeout ? nd_now_ms() + timeout : 0;
    h.ignore_not_found = opt.ignore_not_found;
    h.names = opt.output && !strcmp(opt.output, "name");
    bool *sent = nd_xcalloc(t.n ? t.n : 1, sizeof *sent);
    for (size_t i = 0; i < t.n; i++) {
        int c = delete_one(ctx, &h, &t.v[i], &sent[i]);
        if (!worst)
            worst = c;
    }
    if (wait && h.dry == ND_DRY_NONE) {
        int c = wait_all(ctx, &t, sent, deadline);
        if (!worst)
            worst = c;
    }
    free(sent);
out:
    nd_res_list_release(&res);
    nd_manifests_release(&ms);
    targets_release(&t);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
