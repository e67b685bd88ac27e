/* request ACTION KIND/NAME...: asks Nodus for a one-off action by setting the
 * annotation nodus.dev/ACTION-requested-at to now (RFC 3339). The server acts once per
 * new value and records the value handled in status.requests.ACTION. */
#include <string.h>
#include <time.h>

#include "commands.h"
#include "resolve.h"
#include "util/suggest.h"
#include "util/time.h"
#include "util/validate.h"
#include "write.h"

struct request_opts {
    const char *dry_run;
};

#define TO(f) ND_TO(struct request_opts, f)
const struct nd_flag cmd_request_flags[] = {
    {"dry-run", 0, ND_STRING, "MODE", "none or server", "=none server", TO(dry_run)},
    ND_FLAGS_END(struct request_opts),
};

/* -1 with st (Usage) when a kind of res does not take the action: the actions it takes
 * (and the closest, did you mean), or the kinds that take requests. Checked here, before
 * any write, as the server checks it (update.c). */
static int check_action(const struct nd_res_list *res, const char *action, struct nd_status *st)
{
    for (size_t i = 0; i < res->n; i++) {
        const struct nd_kind *k = res->v[i].k;
        if (nd_kind_takes_request(k, action))
            continue;
        char kn[ND_KIND_NAME_MAX];
        nd_kind_display_name(k, kn, sizeof kn);
        struct nd_buf b = ND_BUF_INIT;
        if (k->requests) {
            struct nd_suggest sg;
            nd_suggest_init(&sg, action);
            for (size_t j = 0; k->requests[j]; j++) {
                nd_suggest_add(&sg, k->requests[j], NULL);
                nd_buf_addf(&b, "%s%s", j ? ", " : "", k->requests[j]);
            }
            struct nd_buf dym = ND_BUF_INIT;
            if (nd_suggest_join(&sg, NULL, NULL, &dym))
                nd_status_set(st, "Usage", NULL,
                              "unknown action \"%s\" for %s: did you mean %s? (it takes: %s)",
                              action, kn, dym.data, b.data);
            else
                nd_status_set(st, "Usage", NULL, "unknown action \"%s\" for %s: it takes: %s",
                              action, kn, b.data);
            nd_buf_release(&dym);
            nd_suggest_release(&sg);
        } else {
            for (size_t j = 0; j < nd_kind_count(); j++) {
                const struct nd_kind *o = &nd_kinds[j];
                for (size_t a = 0; o->requests && o->requests[a]; a++)
                    nd_buf_addf(&b, "%s%s on %s", b.len ? ", " : "", o->requests[a], o->plural);
            }
            nd_status_set(st, "Usage", NULL, "%s takes no requests; the requests there are: %s", kn,
                          b.data);
        }
        nd_buf_release(&b);
        return -1;
    }
    return 0;
}

int cmd_request(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct request_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    enum nd_dry_run dry;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &dry, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos < 2) {
        worst = nd_cli_usage(ctx, "name the action and the objects: nodus request ACTION "
                                  "KIND/NAME... (e.g. nodus request restart sandbox/dev)");
        goto out;
    }
    const char *action = o.pos[0];
    if (!nd_is_dns_label(action)) {
        worst = nd_cli_usage(ctx, "action \"%s\": must be lower-case letters, digits and '-' "
                                  "(e.g. restart)",
                             action);
        goto out;
    }
    if (nd_resolve_args(o.npos - 1, o.pos + 1, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (!res.by_name) {
        worst = nd_cli_usage(ctx, "name the objects: nodus request %s KIND/NAME...", action);
        goto out;
    }
    if (check_action(&res, action, &st) < 0) {
        worst = nd_cli_usage(ctx, "%s", st.message);
        goto out;
    }
    struct nd_buf when = ND_BUF_INIT, key = ND_BUF_INIT, done = ND_BUF_INIT;
    nd_time_format((int64_t)time(NULL), &when);
    nd_buf_addf(&key, "nodus.dev/%s-requested-at", action);
    nd_buf_addf(&done, "%s requested", action);
    json_t *patch = json_pack("{s{s{ss}}}", "metadata", "annotations", key.data, when.data);
    worst = nd_patch_each(ctx, &res, patch, dry, done.data);
    json_decref(patch);
    nd_buf_release(&when);
    nd_buf_release(&key);
    nd_buf_release(&done);
out:
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
