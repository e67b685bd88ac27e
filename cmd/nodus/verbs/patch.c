/* nodus patch: change an object with a JSON merge patch (the default) or a JSON patch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json/json.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"
#include "resolve.h"
#include "write.h"

struct patch_opts {
    const char *patch;
    const char *patch_file;
    const char *type;
    const char *dry_run;
    const char *output;
    const char *validate;
};

#define TO(f) ND_TO(struct patch_opts, f)
const struct nd_flag cmd_patch_flags[] = {
    {"patch", 'p', ND_STRING, "PATCH", "the patch, as JSON or YAML", NULL, TO(patch)},
    {"patch-file", 0, ND_STRING, "FILE", "read the patch from a file", "files", TO(patch_file)},
    {"type", 0, ND_STRING, "TYPE", "merge (default), json, or strategic (projects only)",
     "=merge json strategic", TO(type)},
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server", TO(dry_run)},
    {"output", 'o', ND_STRING, "FORMAT", "print the patched object: name, json, yaml ...",
     "=name json yaml", TO(output)},
    ND_VALIDATE_FLAG(struct patch_opts),
    ND_FLAGS_END(struct patch_opts),
};

/* What a patch of each --type is, and one that works, for the fixes. */
static const char *patch_example(bool json_patch)
{
    return json_patch ? "a JSON patch is a JSON array of operations, for example: -p "
                        "'[{\"op\":\"replace\",\"path\":\"/spec/state\",\"value\":\"Suspended\"}]'"
                      : "a merge patch is a JSON object, for example: -p "
                        "'{\"spec\":{\"state\":\"Suspended\"}}'";
}

/* The patch of -p or --patch-file: JSON, or YAML (a superset: `{spec: {state: x}}`),
 * holding an object (merge) or an array (json). Text that is neither is reported as the
 * JSON it is not, at its line and column, with an example of the right shape. */
static int read_patch(const struct patch_opts *opt, bool json_patch, json_t **out,
                      struct nd_status *st)
{
    const char *text = opt->patch;
    const char *file = opt->patch_file;
    const char *what = file ? file : "--patch";
    struct nd_buf b = ND_BUF_INIT;
    if (file) {
        if (nd_buf_read_file(&b, file) < 0) {
            int err = errno;
            nd_buf_release(&b);
            return nd_status_set(st, "Usage", NULL, "unable to read patch file: open %s: %s",
                                 file, strerror(err));
        }
        text = b.data;
    }
    if (!text || !*text) {
        nd_buf_release(&b);
        return nd_status_set(st, "Usage", "for example: -p '{\"spec\":{\"state\":\"Suspended\"}}'",
                             "must specify --patch or --patch-file containing the contents of "
                             "the patch");
    }
    struct nd_status jst = ND_STATUS_INIT, yst = ND_STATUS_INIT;
    json_t *doc = nd_json_load(text, strlen(text), NULL, &jst);
    if (!doc)
        doc = nd_yaml_load(text, strlen(text), NULL, &yst);
    int rc = 0;
    if (!doc || !(json_patch ? json_is_array(doc) : json_is_object(doc))) {
        /* neither JSON nor YAML of the right shape: say what JSON wanted */
        if (jst.message)
            nd_status_set(st, "Usage", patch_example(json_patch), "%s is not valid JSON: %s", what,
                          jst.message);
        else
            nd_status_set(st, "Usage", patch_example(json_patch),
                          "%s is not a %s: it holds a JSON %s", what,
                          json_patch ? "JSON patch" : "merge patch",
                          json_is_array(doc)    ? "array"
                          : json_is_object(doc) ? "object"
                          : json_is_string(doc) ? "string"
                                                : "scalar");
        json_decref(doc);
        rc = -1;
    } else {
        *out = doc;
    }
    nd_status_release(&jst);
    nd_status_release(&yst);
    nd_buf_release(&b);
    return rc;
}

/* The content type of --type; a strategic merge patch needs the Go types of built-in
 * Kubernetes kinds (projects), which nodus.dev kinds (custom resources) do not have.
 * 0, or the exit code of the usage error. */
static int content_type(struct nd_ctx *ctx, const char *type, const struct nd_res_list *res,
                        const char **ct)
{
    if (!strcmp(type, "merge")) {
        *ct = "application/merge-patch+json";
        return 0;
    }
    if (!strcmp(type, "json")) {
        *ct = "application/json-patch+json";
        return 0;
    }
    if (strcmp(type, "strategic"))
        return nd_cli_usage(ctx, "--type must be merge, json or strategic, not \"%s\"", type);
    *ct = "application/strategic-merge-patch+json";
    for (size_t i = 0; i < res->n; i++) {
        if (res->v[i].k->strategic)
            continue;
        char rn[ND_KIND_NAME_MAX];
        return nd_cli_usage(ctx,
                            "--type strategic: %s take no strategic merge patch (as "
                            "custom resources; only projects do); use --type merge, the "
                            "default",
                            nd_kind_resource_name(res->v[i].k, rn, sizeof rn));
    }
    return 0;
}

/* The same patch sent to every object named. */
struct patch_run {
    struct nd_ctx *ctx;
    const char *ct; /* its content type */
    json_t *patch;
    enum nd_dry_run dry;
    enum nd_validate validate;
    struct nd_print_opts *popts;
    bool has_output; /* -o given */
};

/* Patches one object and prints the result ("patched (no change)" when its version
 * stayed); -1 with st. printed: results printed before this one. */
static int patch_one(const struct patch_run *pr, const struct nd_kind *k, const char *name,
                     size_t printed, struct nd_status *st)
{
    struct nd_ctx *ctx = pr->ctx;
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? nd_ctx_project(ctx) : NULL, name, NULL, &p);
    nd_buf_adds(&p, "?fieldManager=kubectl-patch");
    if (pr->dry == ND_DRY_SERVER)
        nd_buf_adds(&p, "&dryRun=All");
    nd_validate_query(pr->validate, &p);
    json_t *before = NULL, *after = NULL;
    int rc;
    struct nd_buf g = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? nd_ctx_project(ctx) : NULL, name, NULL, &g);
    rc = nd_call_get(ctx, g.data, &before, st);
    nd_buf_release(&g);
    if (rc == 0)
        rc = nd_call(ctx,
                      &(struct nd_call_req){.method = "PATCH",
                                             .path = p.data,
                                             .content_type = pr->ct,
                                             .body = pr->patch,
                                             .out = &after},
                      st);
    nd_buf_release(&p);
    if (rc == 0) {
        const char *rv0 = json_string_value(
            json_object_get(json_object_get(before, "metadata"), "resourceVersion"));
        const char *rv1 = json_string_value(
            json_object_get(json_object_get(after, "metadata"), "resourceVersion"));
        bool same = rv0 && rv1 && !strcmp(rv0, rv1) && pr->dry == ND_DRY_NONE;
        rc = nd_print_result(pr->popts, pr->has_output, after,
                             same ? "patched (no change)" : "patched", pr->dry, printed, st);
    }
    json_decref(before);
    json_decref(after);
    return rc;
}

int cmd_patch(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct patch_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    struct patch_run pr = {.ctx = ctx, .popts = &popts};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &pr.dry, &st) < 0 ||
        nd_validate_parse(opt.validate, &pr.validate, &st) < 0 ||
        nd_write_output_parse(opt.output, &popts, &st) < 0 ||
        nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    /* the types the API takes */
    const char *type = opt.type ? opt.type : "merge";
    if ((worst = content_type(ctx, type, &res, &pr.ct)))
        goto out;
    if (read_patch(&opt, !strcmp(type, "json"), &pr.patch, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (!res.by_name) {
        worst = nd_cli_usage(ctx, "name the object to patch: nodus patch KIND NAME -p PATCH");
        goto out;
    }
    pr.has_output = opt.output != NULL;
    size_t printed = 0;
    for (size_t i = 0; i < res.n; i++) {
        for (size_t j = 0; j < json_array_size(res.v[i].names); j++) {
            const char *name = json_string_value(json_array_get(res.v[i].names, j));
            int rc = patch_one(&pr, res.v[i].k, name, printed, &st);
            printed += rc == 0;
            if (rc < 0) {
                int c = nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
            }
            nd_status_release(&st);
        }
    }
out:
    json_decref(pr.patch);
    nd_res_list_release(&res);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
