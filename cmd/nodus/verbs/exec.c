/* exec: run a command in a Running Sandbox (or Job) over the exec subresource's
 * WebSocket (pkg/client/ws.h), as kubectl exec does for pods: -i passes stdin, -t asks
 * for a terminal (raw mode here, window size forwarded on SIGWINCH), and the remote
 * command's exit code becomes ours. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "client/ws.h"
#include "commands.h"
#include "exec.h"
#include "resolve.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct exec_opts {
    bool quiet;
    bool pass_stdin;
    bool tty;
};

#define TO(f) ND_TO(struct exec_opts, f)
const struct nd_flag cmd_exec_flags[] = {
    {"quiet", 'q', ND_BOOL, NULL, "Only print the output of the remote command", NULL, TO(quiet)},
    {"stdin", 'i', ND_BOOL, NULL, "Pass stdin to the command", NULL, TO(pass_stdin)},
    {"tty", 't', ND_BOOL, NULL, "Stdin is a terminal: raw mode, window size forwarded", NULL,
     TO(tty)},
    ND_FLAGS_END(struct exec_opts),
};

#define BACKLOG_MAX (1u << 20)

/* ---- signals: a self-pipe the loop polls ---- */

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (write(sig_pipe[1], &b, 1) < 0) {
        /* a full pipe already holds a wake-up */
    }
    errno = saved;
}

static void catch_signals(bool on)
{
    static const int sigs[] = {SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* ---- the terminal ---- */

static struct termios saved_tio;
static bool raw_on;

static void raw_mode(bool on)
{
    if (on && !raw_on && tcgetattr(0, &saved_tio) == 0) {
        struct termios t = saved_tio;
        t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
        t.c_oflag &= ~(tcflag_t)OPOST;
        t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
        t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
        t.c_cflag |= CS8;
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        raw_on = tcsetattr(0, TCSAFLUSH, &t) == 0;
    } else if (!on && raw_on) {
        tcsetattr(0, TCSAFLUSH, &saved_tio);
        raw_on = false;
    }
}

static void send_size(struct nd_ws *ws)
{
    struct winsize w;
    if (ioctl(1, TIOCGWINSZ, &w) < 0 && ioctl(0, TIOCGWINSZ, &w) < 0)
        return;
    if (!w.ws_col || !w.ws_row)
        return;
    char msg[64];
    int n = snprintf(msg, sizeof msg, "{\"Width\":%u,\"Height\":%u}", w.ws_col, w.ws_row);
    nd_ws_send(ws, 4, msg, (size_t)n);
}

/* ---- the session ---- */

struct session {
    json_t *status; /* the Status of channel 3, once it came */
    bool write_failed;
};

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {fd, POLLOUT, 0};
            poll(&pf, 1, -1);
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The Status the server sends on channel 3 when the command ends. NEW. */
static json_t *channel_status(const unsigned char *data, size_t n)
{
    json_error_t e;
    json_t *status = json_loadb((const char *)data, n, 0, &e);
    if (!status)
        status = json_pack("{ss ss ss}", "status", "Failure", "reason", "InternalError",
                           "message", "the command's status is not JSON");
    return status;
}

static int on_message(void *cls, bool binary, const unsigned char *data, size_t n)
{
    struct session *s = cls;
    if (!binary || n == 0)
        return 0;
    unsigned char ch = data[0];
    if (ch == 1 || ch == 2) {
        if (write_all(ch, data + 1, n - 1) < 0) {
            s->write_failed = true;
            return 1;
        }
    } else if (ch == 3 && !s->status) {
        s->status = channel_status(data + 1, n - 1);
    }
    return 0;
}

/* The exit code a Status gives: 0 Success, the ExitCode cause, else -1. */
static int exit_code_of(const json_t *status)
{
    const char *s = json_string_value(json_object_get(status, "status"));
    if (s && strcmp(s, "Success") == 0)
        return 0;
    const char *reason = json_string_value(json_object_get(status, "reason"));
    if (!reason || strcmp(reason, "NonZeroExitCode") != 0)
        return -1;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(status, "details"), "causes"), i, c)
    {
        const char *r = json_string_value(json_object_get(c, "reason"));
        const char *m = json_string_value(json_object_get(c, "message"));
        if (r && m && strcmp(r, "ExitCode") == 0) {
            char *end;
            long v = strtol(m, &end, 10);
            if (!*end && v >= 0 && v <= 255)
                return (int)v;
        }
    }
    return 1;
}

/* The offered subprotocols: v5 then v4, or NODUS_EXEC_PROTOCOLS (comma-separated). */
static char **protocols(void)
{
    const char *env = getenv("NODUS_EXEC_PROTOCOLS");
    if (!env || !*env)
        env = "v5.channel.k8s.io,v4.channel.k8s.io";
    char **v = nd_xcalloc(strlen(env) + 2, sizeof *v);
    size_t n = 0;
    for (const char *p = env; *p;) {
        size_t len = strcspn(p, ",");
        while (len && *p == ' ')
            p++, len--;
        if (len)
            v[n++] = nd_xstrndup(p, len);
        p += len;
        if (*p == ',')
            p++;
    }
    return v;
}

static void protocols_free(char **protos)
{
    for (char **p = protos; p && *p; p++)
        free(*p);
    free(protos);
}

/* Pumps the session until it ends: 0 with s->status (or without, when the server went
 * away first), -1 with st, or 128 + a signal that ended it. */
static int run_session(struct nd_ws *ws, bool in, bool tty, struct session *s, struct nd_status *st)
{
    bool v5 = strcmp(nd_ws_protocol(ws), "v5.channel.k8s.io") == 0;
    bool in_open = in;
    unsigned char buf[32768];
    if (tty)
        send_size(ws);
    for (;;) {
        if (s->status && !nd_ws_want_write(ws))
            nd_ws_close(ws);
        struct pollfd pf[3];
        int n = 0, iin = -1;
        pf[n++] = (struct pollfd){nd_ws_fd(ws),
                                  (short)(POLLIN | (nd_ws_want_write(ws) ? POLLOUT : 0)), 0};
        int isig = n;
        pf[n++] = (struct pollfd){sig_pipe[0], POLLIN, 0};
        if (in_open && !s->status && nd_ws_queued(ws) < BACKLOG_MAX) {
            iin = n;
            pf[n++] = (struct pollfd){0, POLLIN, 0};
        }
        if (poll(pf, (nfds_t)n, -1) < 0 && errno != EINTR)
            return nd_status_set(st, "InternalError", NULL, "poll: %s", strerror(errno));
        if (pf[isig].revents) {
            unsigned char sig;
            while (read(sig_pipe[0], &sig, 1) == 1) {
                if (sig == SIGWINCH && tty)
                    send_size(ws);
                else if (sig != SIGWINCH)
                    return 128 + sig;
            }
        }
        if (iin >= 0 && pf[iin].revents) {
            ssize_t r = read(0, buf, sizeof buf);
            if (r > 0) {
                nd_ws_send(ws, 0, buf, (size_t)r);
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                in_open = false;
                if (v5) {
                    unsigned char close_in[1] = {0};
                    nd_ws_send(ws, 255, close_in, 1);
                }
            }
        }
        int r = nd_ws_pump(ws, on_message, s, st);
        if (r < 0 && s->write_failed)
            return nd_status_set(st, "InternalError", NULL, "cannot write the output: %s",
                                 strerror(errno));
        if (r != 0)
            return r < 0 ? -1 : 0;
    }
}

/* `NAME` (a Sandbox) or `KIND/NAME`; NULL with *rc set (the error printed). */
static const struct nd_kind *target(struct nd_ctx *ctx, const char *arg, const char **name, int *rc)
{
    const char *slash = strchr(arg, '/');
    const struct nd_kind *k = nd_kind_by_plural(NULL, "sandboxes");
    *name = arg;
    if (slash) {
        struct nd_status st = ND_STATUS_INIT;
        char *kn = nd_xstrndup(arg, (size_t)(slash - arg));
        k = nd_resolve_kind(kn, &st);
        free(kn);
        *name = slash + 1;
        if (!k) {
            *rc = nd_cli_error(ctx, &st);
            nd_status_release(&st);
            return NULL;
        }
    }
    if (!**name) {
        *rc = nd_cli_usage(ctx, "name the object: nodus exec %s/NAME -- COMMAND", k->singular);
        return NULL;
    }
    if (!nd_kind_has_subresource(k, "exec")) {
        *rc = nd_cli_usage(ctx, "exec runs in sandboxes and jobs, not in %s", k->plural);
        return NULL;
    }
    return k;
}

/* One object, then a command after "--"; 0 or the exit code of the usage error. */
static int check_args(struct nd_ctx *ctx, const struct nd_opts *o)
{
    if (o->npos != 1)
        return nd_cli_usage(ctx, o->npos ? "exec takes one object (SANDBOX or KIND/NAME), then "
                                           "-- COMMAND"
                                         : "name the sandbox: nodus exec SANDBOX -- COMMAND "
                                           "[ARGS...]");
    if (o->ndash < 1)
        return nd_cli_usage(ctx,
                            "you must specify at least one command: nodus exec %s -- COMMAND "
                            "[ARGS...]",
                            o->pos[0]);
    return 0;
}

/* The exec subresource's path: the command's words, then which streams to attach. */
static void exec_path(struct nd_ctx *ctx, const struct nd_kind *k, const char *name,
                      const char *const *command, bool in, bool tty, struct nd_buf *path)
{
    nd_kind_path(k, nd_ctx_project(ctx), name, "exec", path);
    for (int i = 0; command[i]; i++) {
        nd_buf_adds(path, i ? "&command=" : "?command=");
        nd_buf_add_urlencoded(path, command[i]);
    }
    nd_buf_addf(path, "%s&stdout=true%s%s", in ? "&stdin=true" : "", tty ? "" : "&stderr=true",
                tty ? "&tty=true" : "");
}

/* run_session with the signals caught (through sig_pipe) and the terminal raw for a tty. */
static int attach(struct nd_ws *ws, bool in, bool tty, struct session *s, struct nd_status *st)
{
    if (pipe(sig_pipe) < 0)
        return nd_status_set(st, "InternalError", NULL, "pipe: %s", strerror(errno));
    fcntl(sig_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
    catch_signals(true);
    if (tty)
        raw_mode(true);
    int r = run_session(ws, in, tty, s, st);
    raw_mode(false);
    catch_signals(false);
    return r;
}

/* The exit code of a session run_session ended with r: a signal's, the command's, or the
 * error's (printed). */
static int session_exit(struct nd_ctx *ctx, int r, const struct session *s, struct nd_status *st)
{
    if (r > 0)
        return r; /* a signal ended it: the remote side goes with the connection */
    if (r < 0)
        return nd_cli_error(ctx, st);
    if (!s->status) {
        nd_status_set(st, "Unreachable", "Retry; if it persists, look at the server's logs.",
                      "the server closed the session before the command's exit status came");
        return nd_cli_error(ctx, st);
    }
    int code = exit_code_of(s->status);
    if (code > 0) {
        fprintf(stderr, "command terminated with exit code %d\n", code);
        return code;
    }
    if (code == 0)
        return 0;
    nd_status_from_json(st, s->status, 500);
    return nd_cli_error(ctx, st);
}

int cmd_exec(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct exec_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf path = ND_BUF_INIT;
    struct nd_ws *ws = NULL;
    struct session s = {0};
    char **protos = NULL;
    int rc = 1;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if ((rc = check_args(ctx, &o)))
        goto out;
    rc = 1;
    const char *name = NULL;
    const struct nd_kind *k = target(ctx, o.pos[0], &name, &rc);
    if (!k)
        goto out;
    bool in = opt.pass_stdin, quiet = opt.quiet;
    bool tty = opt.tty && in;
    if (tty && !isatty(0)) {
        tty = false;
        if (!quiet)
            fprintf(stderr,
                    "Unable to use a TTY - input is not a terminal or the right kind of file\n");
    }
    struct nd_client *c = nd_ctx_client(ctx, &st);
    if (!c) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    exec_path(ctx, k, name, (const char *const *)o.dash, in, tty, &path);
    protos = protocols();
    struct nd_ws_opts wo = {path.data, (const char *const *)protos};
    if (nd_ws_connect(c, &wo, &ws, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    rc = session_exit(ctx, attach(ws, in, tty, &s, &st), &s, &st);
out:
    nd_opts_release(&o);
    if (sig_pipe[0] >= 0) {
        close(sig_pipe[0]);
        close(sig_pipe[1]);
        sig_pipe[0] = sig_pipe[1] = -1;
    }
    json_decref(s.status);
    nd_ws_free(ws);
    protocols_free(protos);
    nd_buf_release(&path);
    nd_status_release(&st);
    return rc;
}

/* ---- without a terminal or stdin, the output kept (nodus mcp's exec tool) ---- */

struct capture {
    struct nd_exec_result *res;
    size_t max;
    json_t *status;
};

static int on_capture(void *cls, bool binary, const unsigned char *data, size_t n)
{
    struct capture *s = cls;
    if (!binary || n == 0)
        return 0;
    unsigned char ch = data[0];
    if (ch == 1 || ch == 2) {
        struct nd_buf *b = ch == 1 ? &s->res->out : &s->res->err;
        size_t *total = ch == 1 ? &s->res->out_total : &s->res->err_total;
        size_t keep = b->len < s->max ? s->max - b->len : 0;
        nd_buf_add(b, (const char *)data + 1, n - 1 < keep ? n - 1 : keep);
        *total += n - 1;
    } else if (ch == 3 && !s->status) {
        s->status = channel_status(data + 1, n - 1);
    }
    return 0;
}

/* Pumps the session until it ends or the deadline passes (res->timed_out). */
static int pump_until(struct nd_ws *ws, struct capture *s, int64_t deadline, struct nd_status *st)
{
    for (;;) {
        if (s->status && !nd_ws_want_write(ws))
            nd_ws_close(ws);
        int64_t left = deadline - nd_time_now_ms();
        if (left <= 0) {
            s->res->timed_out = true;
            return 0;
        }
        struct pollfd pf = {nd_ws_fd(ws), (short)(POLLIN | (nd_ws_want_write(ws) ? POLLOUT : 0)),
                            0};
        if (poll(&pf, 1, (int)(left < 1000 ? left : 1000)) < 0 && errno != EINTR)
            return nd_status_set(st, "InternalError", NULL, "poll: %s", strerror(errno));
        int r = nd_ws_pump(ws, on_capture, s, st);
        if (r != 0)
            return r < 0 ? -1 : 0;
    }
}

int nd_exec_capture(struct nd_ctx *ctx, const struct nd_exec_req *r, struct nd_exec_result *res,
                    struct nd_status *st)
{
    struct nd_buf path = ND_BUF_INIT;
    struct nd_ws *ws = NULL;
    struct capture s = {res, r->max_bytes ? r->max_bytes : 65536, NULL};
    char **protos = NULL;
    int rc = -1;
    res->exit_code = -1;
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        goto out;
    exec_path(ctx, r->k, r->name, r->command, false, false, &path);
    protos = protocols();
    struct nd_ws_opts wo = {path.data, (const char *const *)protos};
    if (nd_ws_connect(c, &wo, &ws, st) < 0 ||
        pump_until(ws, &s, nd_time_now_ms() + r->timeout_ms, st) < 0)
        goto out;
    rc = 0;
    if (res->timed_out)
        goto out;
    if (!s.status) {
        rc = nd_status_set(st, "Unreachable", "Retry; if it persists, look at the server's logs.",
                           "the server closed the session before the command's exit status came");
        goto out;
    }
    res->exit_code = exit_code_of(s.status);
    if (res->exit_code < 0) {
        nd_status_from_json(st, s.status, 500);
        rc = -1;
    }
out:
    json_decref(s.status);
    nd_ws_free(ws);
    protocols_free(protos);
    nd_buf_release(&path);
    return rc;
}
