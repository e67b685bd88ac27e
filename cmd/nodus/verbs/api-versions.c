/* nodus api-versions: the group versions the server serves, from discovery (cached as
 * kubectl caches it, see discovery.h), one a line. */
#include "commands.h"
#include "discovery.h"

struct api_versions_opts {
    bool cached;
};

#define TO(f) ND_TO(struct api_versions_opts, f)
const struct nd_flag cmd_api_versions_flags[] = {
    {"cached", 0, ND_BOOL, NULL, "use the cached discovery documents whatever their age", NULL,
     TO(cached)},
    ND_FLAGS_END(struct api_versions_opts),
};

int cmd_api_versions(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct api_versions_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    json_t *versions = NULL;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos > 0) {
        rc = nd_cli_unexpected_args(ctx, o.npos, o.pos);
        goto out;
    }
    versions = nd_discovery_group_versions(
        ctx, opt.cached ? ND_DISCOVERY_STALE_OK : 0, &st);
    if (!versions) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    size_t i;
    json_t *v;
    json_array_foreach(versions, i, v)
    {
        nd_buf_addf(&out, "%s\n", json_string_value(v));
    }
    nd_out(&out);
out:
    json_decref(versions);
    nd_buf_release(&out);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
