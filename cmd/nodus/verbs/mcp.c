/* mcp: serve the API as tools for coding agents (the Model Context Protocol), on stdio or
 * (--listen) over Streamable HTTP.
 * The server itself is cmd/nodus/mcp/ (mcp.h says which file holds what). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "mcp/mcp.h"
#include "util/money.h"

#define TO(f) ND_TO(struct mcp_config, f)
const struct nd_flag cmd_mcp_flags[] = {
    {"read-only", 0, ND_BOOL, NULL, "serve only the tools that read (no apply, delete, exec ...)",
     NULL, TO(read_only)},
    {"disable-destructive", 0, ND_BOOL, NULL, "leave out the tools that delete", NULL,
     TO(disable_destructive)},
    {"allow-exec", 0, ND_BOOL, NULL, "serve exec (it runs commands in your workloads)", NULL,
     TO(allow_exec)},
    {"projects", 0, ND_STRINGS, "P,...", "serve only these projects (others are refused)",
     "projects", TO(projects)},
    {"max-cost", 0, ND_STRING, "USD", "refuse to launch work whose expected cost is above USD",
     NULL, TO(max_cost)},
    {"audit-file", 0, ND_STRING, "FILE", "append one audit line per mutating call to FILE "
     "(default: stderr)", "files", TO(audit_file)},
    {"max-output", 0, ND_INT, "BYTES", "cut a tool's text answer past BYTES (default 65536)",
     NULL, TO(max_output)},
    {"listen", 0, ND_STRING, "HOST:PORT", "serve Streamable HTTP at http://HOST:PORT/mcp "
     "instead of stdio (port 0: a free one)", NULL, TO(listen)},
    {"listen-token", 0, ND_STRING, "TOKEN", "the bearer token every HTTP request must carry "
     "(default: NODUS_MCP_TOKEN; required off loopback)", NULL, TO(listen_token)},
    ND_FLAGS_END(struct mcp_config),
};

static int open_audit(struct nd_ctx *ctx, struct mcp_server *srv, const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return nd_cli_usage(ctx, "--audit-file %s: %s", path, strerror(errno));
    }
    srv->audit = f;
    return 0;
}

/* --listen and its token (--listen-token, else NODUS_MCP_TOKEN). */
static int check_listen(struct nd_ctx *ctx, struct mcp_config *cfg)
{
    if (!cfg->listen) {
        if (cfg->listen_token)
            return nd_cli_usage(ctx, "--listen-token is for --listen HOST:PORT (stdio needs "
                                     "no token)");
        return 0;
    }
    if (!cfg->listen_token) {
        const char *env = getenv("NODUS_MCP_TOKEN");
        cfg->listen_token = env && *env ? env : NULL;
    }
    char why[512];
    const char *bad = mcp_http_config_check(cfg, why, sizeof why);
    return bad ? nd_cli_usage(ctx, "%s", bad) : 0;
}

int cmd_mcp(int argc, char **argv, struct nd_ctx *ctx)
{
    struct mcp_config cfg = {.max_cost_micros = -1, .max_output = MCP_DEFAULT_MAX_OUTPUT};
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_cli_parse(ctx, argc, argv, &o, &cfg, sizeof cfg, &st) < 0)
        return nd_cli_error(ctx, &st);
    int rc = 0;
    if (o.npos) {
        rc = nd_cli_unexpected_args(ctx, o.npos, o.pos);
        goto out;
    }
    if (cfg.max_cost && nd_money_parse(cfg.max_cost, &cfg.max_cost_micros, &st) < 0) {
        rc = nd_cli_usage(ctx, "--max-cost %s: %s", cfg.max_cost, st.message);
        goto out;
    }
    if (cfg.max_output < 1024) {
        rc = nd_cli_usage(ctx, "--max-output must be at least 1024 bytes");
        goto out;
    }
    if ((rc = check_listen(ctx, &cfg)) != 0)
        goto out;
    /* an agent's requests say so: a server (the emulator's launched-by label) tells its
     * writes from a person's */
    ctx->user_agent = "nodus-mcp/" ND_VERSION;
    struct mcp_server srv;
    mcp_server_init(&srv, ctx, &cfg);
    if (cfg.audit_file && (rc = open_audit(ctx, &srv, cfg.audit_file)) != 0) {
        mcp_server_release(&srv);
        goto out;
    }
    /* the configuration is read once, here: a broken one is said now, on stderr, and
     * again in each call's answer */
    if (!nd_ctx_config(ctx, &st)) {
        struct nd_buf b = ND_BUF_INIT;
        nd_cli_render(ctx, &st, &b);
        fprintf(stderr, "nodus mcp: %s", b.data);
        nd_buf_release(&b);
        nd_status_release(&st);
    }
    rc = (cfg.listen ? mcp_serve_http(&srv) : mcp_serve_stdio(&srv)) < 0 ? 1 : 0;
    mcp_server_release(&srv);
out:
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
