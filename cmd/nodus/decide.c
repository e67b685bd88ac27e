/* approve, reject: decide PoolActions that wait for a decision (spec.decision Pending
 * -> Approved or Rejected). A bare NAME is a PoolAction; KIND/NAME must name one. */
#include <string.h>

#include "commands.h"
#include "api/registry.h"
#include "resolve.h"
#include "util/xmalloc.h"
#include "write.h"

const struct nd_flag cmd_approve_flags[] = {
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server"},
    {NULL},
};

static int decide(int argc, char **argv, struct nd_ctx *ctx, const char *decision,
                  const char *done)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    enum nd_dry_run dry;
    int worst = 0;
    char **args = NULL;
    if (nd_cli_parse(ctx, argc, argv, &o, &st) < 0 ||
        nd_dry_run_parse(nd_opt_str(&o, "dry-run"), &dry, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos == 0) {
        worst = nd_cli_usage(ctx, "name the PoolActions: nodus %s poolaction/NAME... "
                                  "(list them: nodus get poolactions)",
                             ctx->cmd->name);
        goto out;
    }
    /* bare names are PoolActions */
    bool bare = !strchr(o.pos[0], '/') && o.npos >= 1 &&
                (o.npos == 1 || !nd_kind_lookup(o.pos[0]));
    int n = o.npos + (bare ? 1 : 0);
    args = nd_xcalloc((size_t)n, sizeof *args);
    if (bare)
        args[0] = "poolactions";
    memcpy(args + (bare ? 1 : 0), o.pos, (size_t)o.npos * sizeof *args);
    if (nd_resolve_args(n, args, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    for (size_t i = 0; i < res.n; i++) {
        const struct nd_kind *k = res.v[i].k;
        if (strcmp(k->plural, "poolactions") != 0) {
            worst = nd_cli_usage(ctx, "%s cannot be %s: only PoolActions wait for a decision",
                                 k->plural, done);
            goto out;
        }
        for (size_t j = 0; j < json_array_size(res.v[i].names); j++) {
            const char *name = json_string_value(json_array_get(res.v[i].names, j));
            struct nd_buf p = ND_BUF_INIT;
            nd_kind_path(k, nd_ctx_namespace(ctx), name, NULL, &p);
            nd_buf_addf(&p, "?fieldManager=nodus-%s%s", ctx->cmd->name,
                        dry == ND_DRY_SERVER ? "&dryRun=All" : "");
            json_t *patch = json_pack("{s{ss}}", "spec", "decision", decision);
            json_t *obj = NULL;
            int code;
            if (nd_write(ctx, "PATCH", p.data, "application/merge-patch+json", patch, &obj, &code,
                         &st) < 0 ||
                nd_print_result(&(struct nd_print_opts){0}, false, obj, done, dry, 0, &st) < 0) {
                int c = nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
                nd_status_release(&st);
            }
            fflush(stdout);
            json_decref(patch);
            json_decref(obj);
            nd_buf_release(&p);
        }
    }
out:
    free(args);
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}

int cmd_approve(int argc, char **argv, struct nd_ctx *ctx)
{
    return decide(argc, argv, ctx, "Approved", "approved");
}

int cmd_reject(int argc, char **argv, struct nd_ctx *ctx)
{
    return decide(argc, argv, ctx, "Rejected", "rejected");
}
