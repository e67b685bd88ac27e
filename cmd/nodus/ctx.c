/* The verb's context: configuration, connection, project, colours, error printing. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client/client.h"
#include "config/config.h"
#include "emulator_ctx.h"
#include "util/term.h"
#include "util/xmalloc.h"

struct nd_config *nd_ctx_config(struct nd_ctx *ctx, struct nd_status *st)
{
    if (ctx->config)
        return ctx->config;
    struct nd_config *cfg = nd_xcalloc(1, sizeof *cfg);
    if (nd_config_load(cfg, ctx->kubeconfig, st) < 0) {
        nd_config_release(cfg);
        free(cfg);
        return NULL;
    }
    ctx->config = cfg;
    return cfg;
}

static struct nd_target *target(struct nd_ctx *ctx, struct nd_status *st)
{
    if (ctx->target)
        return ctx->target;
    struct nd_config *cfg = nd_ctx_config(ctx, st);
    if (!cfg)
        return NULL;
    struct nd_overrides ov = {
        .context = ctx->context,
        .server = ctx->server,
        .token = ctx->token,
        .namespace = ctx->project_flag,
        .ca_file = ctx->ca_file,
        .insecure = ctx->insecure,
    };
    struct nd_target *t = nd_xcalloc(1, sizeof *t);
    if (nd_config_resolve(cfg, &ov, t, st) < 0) {
        nd_target_release(t);
        free(t);
        return NULL;
    }
    ctx->target = t;
    return t;
}

struct nd_client *nd_ctx_client(struct nd_ctx *ctx, struct nd_status *st)
{
    if (ctx->client)
        return ctx->client;
    struct nd_target *t = target(ctx, st);
    if (!t)
        return NULL;
    struct nd_client_opts o = {
        .server = t->server,
        .token = t->token,
        .ca_file = t->ca_file,
        .ca_data = t->ca_data,
        .insecure = t->insecure,
        .cert_file = t->cert_file,
        .key_file = t->key_file,
        .cert_data = t->cert_data,
        .key_data = t->key_data,
        .timeout_ms = ctx->request_timeout_ms,
        .max_response_bytes = ctx->max_response_bytes,
        .idle_timeout_ms = ctx->read_idle_ms,
        .user_agent = ctx->user_agent,
    };
    ctx->client = nd_client_new(&o, st);
    return ctx->client;
}

int64_t nd_ctx_now(struct nd_ctx *ctx)
{
    int64_t ms = nd_client_server_now_ms(ctx->client);
    return ms >= 0 ? ms / 1000 : -((999 - ms) / 1000);
}

const char *nd_ctx_project(struct nd_ctx *ctx)
{
    if (ctx->project_flag && *ctx->project_flag)
        return ctx->project_flag;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_target *t = target(ctx, &st);
    nd_status_release(&st);
    return t && t->namespace ? t->namespace : "default";
}

bool nd_ctx_color(struct nd_ctx *ctx)
{
    if (ctx->color < 0) {
        const char *nc = getenv("NO_COLOR");
        ctx->color = !ctx->no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
    }
    return ctx->color;
}

void nd_ctx_release(struct nd_ctx *ctx)
{
    if (ctx->client)
        nd_client_free(ctx->client);
    if (ctx->target) {
        nd_target_release(ctx->target);
        free(ctx->target);
    }
    if (ctx->config) {
        nd_config_release(ctx->config);
        free(ctx->config);
    }
    ctx->client = NULL;
    ctx->target = NULL;
    ctx->config = NULL;
}

static bool client_side(const struct nd_status *st)
{
    return nd_status_is(st, ND_REASON_USAGE) || nd_status_is(st, ND_REASON_UNREACHABLE) ||
           (nd_status_is(st, ND_REASON_TIMEOUT) && !st->request_id);
}

/* The headline of an error: kubectl's forms (`Error from server (R): ...`, `The Job "x" is
 * invalid: ...`, `error: ...` for the client's own). */
static void render_headline(const struct nd_status *st, struct nd_buf *b)
{
    const char *msg = st->message ? st->message : "unknown error";
    const json_t *causes = json_object_get(st->details, "causes");
    const char *kind = json_string_value(json_object_get(st->details, "kind"));
    const char *name = json_string_value(json_object_get(st->details, "name"));
    if (nd_status_is(st, ND_REASON_UNREACHABLE)) {
        nd_buf_addf(b, "%s\n", msg);
    } else if (client_side(st)) {
        nd_buf_addf(b, "error: %s\n", msg);
    } else if (nd_status_is(st, ND_REASON_INVALID) && json_array_size(causes) && name &&
               kind) {
        /* as kubectl: The Job "x" is invalid: field: problem, or [a, b] for several */
        size_t n = json_array_size(causes);
        nd_buf_addf(b, "The %s \"%s\" is invalid: %s", kind, name, n > 1 ? "[" : "");
        size_t i;
        const json_t *c;
        json_array_foreach(causes, i, c) {
            const char *f = json_string_value(json_object_get(c, "field"));
            const char *m = json_string_value(json_object_get(c, "message"));
            nd_buf_addf(b, "%s%s%s%s", i ? ", " : "", f ? f : "", f ? ": " : "", m ? m : "");
        }
        nd_buf_addf(b, "%s\n", n > 1 ? "]" : "");
    } else {
        nd_buf_addf(b, "Error from server (%s): %s\n", st->reason ? st->reason : "Unknown", msg);
    }
}

void nd_cli_render_tail(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b)
{
    /* A server nobody answers at (the connection refused; not one whose certificate or
     * name is wrong), named by NODUS_SERVER: the variable is the likely culprit (left
     * over from an emulator since stopped), not the configuration. A context whose
     * emulator (recorded by nodus emulator start) is stopped: say so (emulator_ctx.h). */
    const char *env = getenv("NODUS_SERVER");
    const struct nd_target *t = ctx ? ctx->target : NULL;
    if (nd_status_is(st, ND_REASON_UNREACHABLE) && st->message &&
        strstr(st->message, " was refused") && env && *env && t && t->server &&
        !strcmp(t->server, env) && !(ctx->server && *ctx->server))
        nd_buf_addf(b,
                    "fix: NODUS_SERVER=%s chose this server: unset NODUS_SERVER to use the "
                    "current context (nodus config current-context), or start a server there\n",
                    env);
    else if (!nd_emu_refused_fix(ctx, st, b) && st->fix && *st->fix)
        nd_buf_addf(b, "fix: %s\n", st->fix);
    if (st->docs && *st->docs)
        nd_buf_addf(b, "docs: %s\n", st->docs);
}

void nd_cli_safe_status(const struct nd_status *st, struct nd_status *out)
{
    const unsigned lines = ND_TERM_KEEP_NL | ND_TERM_KEEP_TAB;
    nd_status_init(out);
    out->code = st->code;
    out->reason = nd_term_safe(st->reason, 0);
    out->message = nd_term_safe(st->message, lines);
    out->fix = nd_term_safe(st->fix, lines);
    out->docs = nd_term_safe(st->docs, 0);
    out->request_id = nd_term_safe(st->request_id, 0);
    out->details = st->details ? nd_term_safe_json(st->details, lines) : NULL;
}

void nd_cli_render(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b)
{
    struct nd_status safe;
    nd_cli_safe_status(st, &safe);
    render_headline(&safe, b);
    nd_cli_render_tail(ctx, &safe, b);
    nd_status_release(&safe);
}

int nd_cli_error(struct nd_ctx *ctx, const struct nd_status *st)
{
    if (ctx && ctx->on_error)
        ctx->on_error(ctx->on_error_cls, st);
    fflush(stdout);
    struct nd_buf b = ND_BUF_INIT;
    nd_cli_render(ctx, st, &b);
    if (st->request_id && *st->request_id) {
        char *rid = nd_term_safe(st->request_id, 0);
        nd_buf_addf(&b, "requestId: %s\n", rid);
        free(rid);
    }
    fputs(b.data ? b.data : "", stderr);
    nd_buf_release(&b);
    int rc = nd_status_exit_code(st);
    return rc ? rc : 1;
}

int nd_cli_usage(struct nd_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct nd_buf msg = ND_BUF_INIT;
    nd_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    if (ctx->on_error) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "Usage", NULL, "%s", msg.data);
        ctx->on_error(ctx->on_error_cls, &st);
        nd_status_release(&st);
    }
    fflush(stdout);
    fprintf(stderr, "error: %s", msg.data);
    nd_buf_release(&msg);
    fprintf(stderr, "\nSee 'nodus %s --help' for usage.\n", ctx->cmd ? ctx->cmd->name : "");
    return 2;
}

int nd_cli_unexpected_args(struct nd_ctx *ctx, int npos, char *const *pos)
{
    struct nd_buf b = ND_BUF_INIT;
    for (int i = 0; i < npos; i++)
        nd_buf_addf(&b, "%s%s", i ? " " : "", pos[i]);
    int rc = nd_cli_usage(ctx, "unexpected arguments: [%s]", b.data);
    nd_buf_release(&b);
    return rc;
}

void nd_cli_warnings(const json_t *headers)
{
    /* Warning: 299 - "text" (several joined by ", ") */
    const char *w = json_string_value(json_object_get(headers, "warning"));
    while (w && *w) {
        const char *q = strchr(w, '"');
        if (!q)
            break;
        struct nd_buf b = ND_BUF_INIT;
        const char *p = q + 1;
        for (; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1])
                p++;
            nd_buf_addch(&b, *p);
        }
        char *safe = nd_term_safe(b.data, 0); /* the server's text */
        fprintf(stderr, "Warning: %s\n", safe);
        free(safe);
        nd_buf_release(&b);
        w = *p ? strchr(p + 1, '2') : NULL; /* the next "299 - ..." */
    }
}

void nd_out(const struct nd_buf *b)
{
    fwrite(b->data, 1, b->len, stdout);
}
