/* nodus create -f: create the objects of manifests (safe to retry: the same object
 * again answers "unchanged"). */
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
    {NULL},
};

int cmd_create(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    enum nd_dry_run dry;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &st) < 0 ||
        nd_dry_run_parse(nd_opt_str(&o, "dry-run"), &dry, &st) < 0 ||
        nd_write_output_parse(nd_opt_str(&o, "output"), &popts, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos > 0) {
        worst = nd_cli_usage(ctx, "nodus create takes its objects from -f (got \"%s\"); for a "
                                  "project: nodus create -f project.yaml",
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
            int c = nd_cli_error(ctx, &st);
            if (!worst)
                worst = c;
        }
        fflush(stdout);
        nd_status_release(&st);
        json_decref(result);
    }
out:
    nd_manifests_release(&ms);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
