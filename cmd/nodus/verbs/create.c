/* nodus create -f: create the objects of manifests (safe to retry: the same object
 * again answers "unchanged"); nodus create namespace|project NAME: a project, as
 * kubectl create namespace (one that exists is AlreadyExists). */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "manifest.h"
#include "write.h"

struct create_opts {
    struct nd_strings filename;
    bool recursive;
    const char *dry_run;
    const char *output;
    const char *field_manager;
    const char *validate;
};

#define TO(f) ND_TO(struct create_opts, f)
const struct nd_flag cmd_create_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "manifest file, directory, or - for standard input",
     "files", TO(filename)},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL,
     TO(recursive)},
    {"dry-run", 0, ND_STRING, "MODE", "none, client or server (server: everything but storing)",
     "=none client server", TO(dry_run)},
    {"output", 'o', ND_STRING, "FORMAT", "print the created objects: name, json, yaml ...",
     "=name json yaml", TO(output)},
    {"field-manager", 0, ND_STRING, "NAME",
     "manager name for field ownership (default kubectl-create, as kubectl)", NULL,
     TO(field_manager)},
    ND_VALIDATE_FLAG(struct create_opts),
    ND_FLAGS_END(struct create_opts),
};

/* nodus create namespace|ns|project NAME */
static int create_project(struct nd_ctx *ctx, const struct nd_opts *o,
                          const struct create_opts *opt, enum nd_dry_run dry,
                          const struct nd_print_opts *popts)
{
    if (o->npos != 2)
        return nd_cli_usage(ctx, "%s: nodus create %s NAME",
                            o->npos < 2 ? "name the project to create"
                                        : "nodus create takes one project name",
                            o->pos[0]);
    if (opt->filename.n)
        return nd_cli_usage(ctx, "nodus create %s NAME takes no -f", o->pos[0]);
    const char *name = o->pos[1];
    struct nd_status st = ND_STATUS_INIT;
    json_t *body = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
                             "metadata", "name", name);
    json_t *result = NULL;
    int code = 0, rc = 0;
    if (dry == ND_DRY_CLIENT) {
        result = json_incref(body);
    } else {
        struct nd_buf path = ND_BUF_INIT;
        nd_kind_path(nd_kind_lookup("namespaces"), NULL, NULL, NULL, &path);
        nd_buf_adds(&path, "?fieldManager=");
        const char *mgr = opt->field_manager;
        nd_buf_add_urlencoded(&path, mgr ? mgr : "kubectl-create");
        if (dry == ND_DRY_SERVER)
            nd_buf_adds(&path, "&dryRun=All");
        rc = nd_call(
            ctx,
            &(struct nd_call_req){
                .method = "POST", .path = path.data, .body = body, .out = &result, .code = &code},
            &st);
        nd_buf_release(&path);
        /* the API answers 200 with the project when it exists (a create by name is safe
         * to retry); as kubectl create namespace, this verb says so */
        if (rc == 0 && code == 200)
            rc = nd_status_set(&st, "AlreadyExists", NULL, "namespaces \"%s\" already exists",
                               name);
        if (rc < 0 && nd_status_is(&st, ND_REASON_ALREADY_EXISTS))
            nd_status_set_fix(&st, "use it: nodus get jobs -n %s", name);
    }
    if (rc == 0)
        rc = nd_print_result(popts, opt->output != NULL, result, "created", dry, 0,
                             &st);
    int exit = rc < 0 ? nd_cli_error(ctx, &st) : 0;
    json_decref(result);
    json_decref(body);
    nd_status_release(&st);
    return exit;
}

struct create {
    const char *mgr;
    enum nd_dry_run dry;
    enum nd_validate validate;
};

/* One manifest's object, POSTed (answered 200 when it exists as it is: "unchanged"). */
static int create_one(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns, void *cls,
                      struct nd_write_done *d, struct nd_status *st)
{
    const struct create *c = cls;
    json_t *body = json_deep_copy(m->obj);
    if (*ns)
        json_object_set_new(json_object_get(body, "metadata"), "namespace", json_string(ns));
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(m->kind, ns, NULL, NULL, &path);
    nd_buf_adds(&path, "?fieldManager=");
    nd_buf_add_urlencoded(&path, c->mgr);
    if (c->dry == ND_DRY_SERVER)
        nd_buf_adds(&path, "&dryRun=All");
    nd_validate_query(c->validate, &path);
    int rc = 0, code = 201;
    if (c->dry == ND_DRY_CLIENT) {
        d->obj = json_incref(body);
    } else {
        rc = nd_call(
            ctx,
            &(struct nd_call_req){
                .method = "POST", .path = path.data, .body = body, .out = &d->obj, .code = &code},
            st);
        if (rc < 0)
            nd_write_error_source(st, "creating", m->source);
    }
    d->op = code == 200 ? "unchanged" : "created";
    nd_buf_release(&path);
    json_decref(body);
    return rc;
}

int cmd_create(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct create_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    enum nd_dry_run dry;
    enum nd_validate validate;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &dry, &st) < 0 ||
        nd_validate_parse(opt.validate, &validate, &st) < 0 ||
        nd_write_output_parse(opt.output, &popts, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    const struct nd_kind *pk = o.npos > 0 ? nd_kind_lookup(o.pos[0]) : NULL;
    if (pk && nd_kind_is(pk, ND_KIND_PROJECT)) { /* namespace, ns, project ... */
        worst = create_project(ctx, &o, &opt, dry, &popts);
        goto out;
    }
    if (o.npos > 0) {
        worst = nd_cli_usage(ctx, "nodus create takes its objects from -f (got \"%s\"), or "
                                  "creates a project: nodus create project NAME",
                             o.pos[0]);
        goto out;
    }
    if (nd_manifests_read(&opt.filename, opt.recursive, &ms, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    /* kubectl's name, not "nodus": when a later apply (manager nodus) meets a field the
     * create set and the file changed, the conflict names who set it */
    struct create c = {
        .mgr = opt.field_manager ? opt.field_manager : "kubectl-create",
        .dry = dry,
        .validate = validate,
    };
    worst =
        nd_write_manifests(ctx, &ms,
                           &(struct nd_write_each){.fn = create_one,
                                                   .cls = &c,
                                                   .popts = &popts,
                                                   .has_output = opt.output != NULL,
                                                   .dry = dry,
                                                   .estimate = true});
out:
    nd_manifests_release(&ms);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
