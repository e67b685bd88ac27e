/* The body of suspend, resume, cancel, stop and start (one file each in verbs/): desired
 * state is spec.state (the resource model: a later apply of the same manifest keeps it).
 * Each sets it with a merge patch on the kinds that have that state. */
#include <string.h>

#include "commands.h"
#include "resolve.h"
#include "state_verbs.h"
#include "write.h"

struct state_opts {
    const char *dry_run;
};

#define TO(f) ND_TO(struct state_opts, f)
const struct nd_flag nd_state_flags[] = {
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server", TO(dry_run)},
    ND_FLAGS_END(struct state_opts),
};

int nd_set_state(int argc, char **argv, struct nd_ctx *ctx, const char *state, const char *done)
{
    struct nd_opts o;
    struct state_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    enum nd_dry_run dry;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &dry, &st) < 0 ||
        nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (!res.by_name) {
        worst = nd_cli_usage(ctx, "name the objects: nodus %s KIND/NAME...", ctx->cmd->name);
        goto out;
    }
    for (size_t i = 0; i < res.n; i++) {
        const struct nd_kind *k = res.v[i].k;
        if (!nd_kind_state_valid(k, state)) {
            worst = nd_cli_usage(ctx, "%s cannot be %s (spec.state of a %s is not %s)", k->plural,
                                 done, k->kind, state);
            goto out;
        }
    }
    json_t *patch = json_pack("{s{ss}}", "spec", "state", state);
    worst = nd_patch_each(ctx, &res, patch, dry, done);
    json_decref(patch);
out:
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
