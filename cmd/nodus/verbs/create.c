/* nodus create -f: create the objects of manifests (safe to retry: the same object
 * again answers "unchanged"); nodus create namespace|project NAME: a project, as
 * kubectl create namespace (one that exists is AlreadyExists). */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "manifest.h"
#include "write.h"

const struct nd_flag cmd_create_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "manifest file, directory, or - for standard input",
     "files"},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL},
    {"dry-run", 0, ND_STRING, "MODE", "none, client or server (server: everything but storing)",
     "=none client server"},
    {"output", 'o', ND_STRING, "FORMAT", "print the created objects: name, json, yaml ...",
     "=name json yaml"},
    {"field-manager", 0, ND_STRING, "NAME",
     "manager name for field ownership (default kubectl-create, as kubectl)", NULL},
    ND_VALIDATE_FLAG,
    {NULL},
};

/* nodus create namespace|ns|project NAME */
static int create_project(struct nd_ctx *ctx, const struct nd_opts *o, enum nd_dry_run dry,
                          const struct nd_print_opts *popts)
{
    if (o->npos != 2)
        return nd_cli_usage(ctx, "%s: nodus create %s NAME",
                            o->npos < 2 ? "name the project to create"
                                        : "nodus create takes one project name",
                            o->pos[0]);
    if (json_array_size(nd_opt_list(o, "filename")))
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
        const char *mgr = nd_opt_str(o, "field-manager");
        nd_buf_add_urlencoded(&path, mgr ? mgr : "kubectl-create");
        if (dry == ND_DRY_SERVER)
            nd_buf_adds(&path, "&dryRun=All");
        rc = nd_write(ctx, "POST", path.data, NULL, body, &result, &code, &st);
        nd_buf_release(&path);
        /* the API answers 200 with the project when it exists (a create by name is safe
         * to retry); as kubectl create namespace, this verb says so */
        if (rc == 0 && code == 200)
            rc = nd_status_set(&st, "AlreadyExists", NULL, "namespaces \"%s\" already exists",
                               name);
        if (rc < 0 && st.reason && !strcmp(st.reason, "AlreadyExists"))
            nd_status_set_fix(&st, "use it: nodus get jobs -n %s", name);
    }
    if (rc == 0)
        rc = nd_print_result(popts, nd_opt_str(o, "output") != NULL, result, "created", dry, 0,
                             &st);
    int exit = rc < 0 ? nd_cli_error(ctx, &st) : 0;
    json_decref(result);
    json_decref(body);
    nd_status_release(&st);
    return exit;
}

int cmd_create(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    enum nd_dry_run dry;
    enum nd_validate validate;
    struct nd_errors errs = {0};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &st) < 0 ||
        nd_dry_run_parse(nd_opt_str(&o, "dry-run"), &dry, &st) < 0 ||
        nd_validate_parse(nd_opt_str(&o, "validate"), &validate, &st) < 0 ||
        nd_write_output_parse(nd_opt_str(&o, "output"), &popts, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos > 0 && (!strcmp(o.pos[0], "namespace") || !strcmp(o.pos[0], "ns") ||
                       !strcmp(o.pos[0], "project"))) {
        worst = create_project(ctx, &o, dry, &popts);
        goto out;
    }
    if (o.npos > 0) {
        worst = nd_cli_usage(ctx, "nodus create takes its objects from -f (got \"%s\"), or "
                                  "creates a project: nodus create project NAME",
                             o.pos[0]);
        goto out;
    }
    if (nd_manifests_read(nd_opt_list(&o, "filename"), nd_opt_bool(&o, "recursive"), &ms, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    bool has_output = nd_opt_str(&o, "output") != NULL;
    const char *cmd_ns = nd_ctx_namespace(ctx);
    /* kubectl's name, not "nodus": when a later apply (manager nodus) meets a field the
     * create set and the file changed, the conflict names who set it */
    const char *mgr =
        nd_opt_str(&o, "field-manager") ? nd_opt_str(&o, "field-manager") : "kubectl-create";
    size_t printed = 0;
    for (size_t i = 0; i < ms.n; i++) {
        const char *ns;
        json_t *result = NULL;
        int code = 0, rc = nd_manifest_namespace(&ms.v[i], cmd_ns, ctx->namespace_flag != NULL,
                                                 &ns, &st);
        if (rc == 0) {
            json_t *body = json_deep_copy(ms.v[i].obj);
            if (*ns)
                json_object_set_new(json_object_get(body, "metadata"), "namespace",
                                    json_string(ns));
            struct nd_buf path = ND_BUF_INIT;
            nd_kind_path(ms.v[i].kind, ns, NULL, NULL, &path);
            nd_buf_adds(&path, "?fieldManager=");
            nd_buf_add_urlencoded(&path, mgr);
            if (dry == ND_DRY_SERVER)
                nd_buf_adds(&path, "&dryRun=All");
            nd_validate_query(validate, &path);
            if (dry == ND_DRY_CLIENT) {
                result = json_incref(body);
                code = 201;
            } else {
                rc = nd_write(ctx, "POST", path.data, NULL, body, &result, &code, &st);
                if (rc < 0)
                    nd_write_error_source(&st, "creating", ms.v[i].source);
            }
            nd_buf_release(&path);
            json_decref(body);
        }
        if (rc == 0 && nd_print_result(&popts, has_output, result,
                                       code == 200 ? "unchanged" : "created", dry, printed,
                                       &st) == 0) {
            printed++;
            if (dry == ND_DRY_SERVER && !has_output)
                nd_print_estimate(result);
        } else {
            nd_errors_add(ctx, &errs, &st, &ms.v[i]);
        }
        fflush(stdout);
        nd_status_release(&st);
        json_decref(result);
    }
    nd_errors_finish(&errs);
    worst = errs.worst;
out:
    nd_errors_release(&errs);
    nd_manifests_release(&ms);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
