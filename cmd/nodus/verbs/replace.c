/* nodus replace -f: replace objects with their manifests (PUT), conditional on the
 * resourceVersion (read first when the manifest has none, as kubectl). */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "manifest.h"
#include "write.h"

struct replace_opts {
    struct nd_strings filename;
    bool recursive;
    const char *dry_run;
    const char *output;
    const char *validate;
};

#define TO(f) ND_TO(struct replace_opts, f)
const struct nd_flag cmd_replace_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "manifest file, directory, or - for standard input",
     "files", TO(filename)},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL,
     TO(recursive)},
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server", TO(dry_run)},
    {"output", 'o', ND_STRING, "FORMAT", "print the replaced objects: name, json, yaml ...",
     "=name json yaml", TO(output)},
    ND_VALIDATE_FLAG(struct replace_opts),
    ND_FLAGS_END(struct replace_opts),
};

static int replace_one(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns,
                       enum nd_dry_run dry, enum nd_validate v, json_t **out,
                       struct nd_status *st)
{
    json_t *body = json_deep_copy(m->obj);
    json_t *meta = json_object_get(body, "metadata");
    const char *name = nd_manifest_name(m, "replacing", st);
    if (!name) {
        json_decref(body);
        return -1;
    }
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(m->kind, ns, name, NULL, &path);
    int rc = 0;
    if (*ns)
        json_object_set_new(meta, "namespace", json_string(ns));
    if (!json_object_get(meta, "resourceVersion")) {
        json_t *live = NULL;
        rc = nd_call_get(ctx, path.data, &live, st);
        if (rc == 0)
            json_object_set(meta, "resourceVersion",
                            json_object_get(json_object_get(live, "metadata"), "resourceVersion"));
        json_decref(live);
    }
    if (rc == 0) {
        nd_buf_adds(&path, "?fieldManager=kubectl-replace");
        if (dry == ND_DRY_SERVER)
            nd_buf_adds(&path, "&dryRun=All");
        nd_validate_query(v, &path);
        rc = nd_call(
            ctx,
            &(struct nd_call_req){.method = "PUT", .path = path.data, .body = body, .out = out},
            st);
    }
    nd_buf_release(&path);
    json_decref(body);
    return rc;
}

struct replace {
    enum nd_dry_run dry;
    enum nd_validate validate;
};

static int replace_doc(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns, void *cls,
                       struct nd_write_done *d, struct nd_status *st)
{
    const struct replace *r = cls;
    d->op = "replaced";
    if (r->dry == ND_DRY_CLIENT) {
        d->obj = json_incref(m->obj);
        return 0;
    }
    if (replace_one(ctx, m, ns, r->dry, r->validate, &d->obj, st) < 0) {
        nd_write_error_source(st, "replacing", m->source);
        return -1;
    }
    return 0;
}

int cmd_replace(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct replace_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    struct replace r;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &r.dry, &st) < 0 ||
        nd_validate_parse(opt.validate, &r.validate, &st) < 0 ||
        nd_write_output_parse(opt.output, &popts, &st) < 0 ||
        nd_manifests_read(&opt.filename, opt.recursive, &ms, &st) <
            0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    worst =
        nd_write_manifests(ctx, &ms,
                           &(struct nd_write_each){.fn = replace_doc,
                                                   .cls = &r,
                                                   .popts = &popts,
                                                   .has_output = opt.output != NULL,
                                                   .dry = r.dry});
out:
    nd_manifests_release(&ms);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
