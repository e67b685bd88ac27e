/* The body of approve and reject (one file each in verbs/): decide PoolActions that wait
 * for a decision (spec.decision Pending -> Approved or Rejected). A bare NAME is a
 * PoolAction; KIND/NAME must name one. */
#include <string.h>

#include "kinds/registry.h"
#include "commands.h"
#include "decision.h"
#include "resolve.h"
#include "util/xmalloc.h"
#include "write.h"

struct decide_opts {
    const char *dry_run;
};

#define TO(f) ND_TO(struct decide_opts, f)
const struct nd_flag nd_decide_flags[] = {
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server", TO(dry_run)},
    ND_FLAGS_END(struct decide_opts),
};

/* Kinds that wait for a decision: their spec.decision may change while it is Pending. */
static bool awaits_decision(const struct nd_kind *k)
{
    const struct nd_mutable *m = nd_kind_mutable(k, "spec.decision");
    return m && m->rule == ND_MUT_WHILE && m->while_value && !strcmp(m->while_value, "Pending");
}

int nd_decide(int argc, char **argv, struct nd_ctx *ctx, const char *decision, const char *done)
{
    struct nd_opts o;
    struct decide_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    enum nd_dry_run dry;
    int worst = 0;
    char **args = NULL;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &dry, &st) < 0) {
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
        if (!awaits_decision(res.v[i].k)) {
            worst = nd_cli_usage(ctx, "%s cannot be %s: only PoolActions wait for a decision",
                                 res.v[i].k->plural, done);
            goto out;
        }
    }
    json_t *patch = json_pack("{s{ss}}", "spec", "decision", decision);
    worst = nd_patch_each(ctx, &res, patch, dry, done);
    json_decref(patch);
out:
    free(args);
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
