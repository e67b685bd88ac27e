/* worker.c: warm workers, so that a tool call pays no fork.
 *
 * A worker is forked once and runs call after call: the parent writes a call as one JSON
 * line {"tool", "args", "progressToken"?, "logLevel"} on the worker's pipe; the worker
 * answers on its other pipe exactly as a call's child does (call.c: notifications, then
 * its result), then waits for the next call. It keeps its HTTP connection to the server
 * (ctx->client) from call to call; everything else a call may change in the worker (the
 * context's project and flags, the verb, the error hook, stdout and stderr) is put back
 * before the next. A cancelled call, an answer past a bound or a worker that dies ends the
 * worker (the job kills and reaps it); the next call forks a new one. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp.h"
#include "util/xmalloc.h"

/* ---- the worker's side ---- */

static int take_line(void *cls, const char *line, size_t len)
{
    json_t **call = cls;
    if (!*call) /* a line past the bound (or not JSON) is no call: json null */
        *call = line ? json_loadb(line, len, 0, NULL) : NULL;
    if (!*call)
        *call = json_null();
    return 0;
}

/* The next call from the parent; NULL when the parent closed the pipe (or broke it). */
static json_t *next_call(int in, struct mcp_reader *r)
{
    json_t *call = NULL;
    char buf[65536];
    while (!call) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL;
        mcp_reader_feed(r, buf, (size_t)n, take_line, &call);
    }
    return call;
}

/* What a call may change in the context, put back: the context as the worker was forked
 * with, but the connection it made since. The target (server, token, project) was
 * resolved before the first call, with no call's project: resolved during a call (the
 * configuration is broken), it holds that call's project, and goes with its connection. */
static void restore_ctx(struct nd_ctx *ctx, const struct nd_ctx *forked)
{
    struct nd_ctx now = *ctx;
    *ctx = *forked;
    ctx->config = now.config;
    if (forked->target) {
        ctx->client = now.client;
        ctx->color = now.color;
    }
}

static void restore_fd(int saved, int fd)
{
    if (saved >= 0)
        dup2(saved, fd);
}

static _Noreturn void worker_main(struct mcp_server *srv, int in, int out)
{
    (void)nd_ctx_project(srv->ctx); /* resolves the target before any call's project */
    const struct nd_ctx forked = *srv->ctx;
    int save_out = dup(STDOUT_FILENO), save_err = dup(STDERR_FILENO);
    struct mcp_reader r;
    mcp_reader_init(&r);
    json_t *call;
    while ((call = next_call(in, &r))) {
        const struct mcp_tool *t = mcp_tool_find(json_string_value(json_object_get(call, "tool")));
        json_t *args = json_object_get(call, "args");
        if (t && json_is_object(args))
            mcp_call_run(srv, t, args, json_object_get(call, "progressToken"),
                         (int)json_integer_value(json_object_get(call, "logLevel")), out);
        json_decref(call);
        fflush(NULL);
        restore_ctx(srv->ctx, &forked);
        restore_fd(save_out, STDOUT_FILENO);
        restore_fd(save_err, STDERR_FILENO);
        if (!t) /* the parent waits for an answer: none comes, so end (it says so) */
            _exit(3);
    }
    _exit(0);
}

/* ---- the parent's side ---- */

static void worker_unlink(struct mcp_server *srv, struct mcp_worker *w)
{
    struct mcp_worker **p = &srv->workers;
    while (*p && *p != w)
        p = &(*p)->next;
    if (*p)
        *p = w->next;
}

void mcp_worker_done(struct mcp_server *srv, struct mcp_worker *w, bool keep)
{
    if (keep) {
        w->busy = false;
        return;
    }
    worker_unlink(srv, w);
    close(w->in); /* (out was the job's: it closed it) */
    free(w);
}

/* Ends an idle worker: kills and reaps it, closes its pipes. */
static void worker_end(struct mcp_server *srv, struct mcp_worker *w)
{
    kill(w->pid, SIGKILL);
    while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    close(w->out);
    mcp_worker_done(srv, w, false);
}

void mcp_workers_release(struct mcp_server *srv)
{
    while (srv->workers)
        worker_end(srv, srv->workers);
}

void mcp_workers_close_fds(struct mcp_server *srv)
{
    for (struct mcp_worker *w = srv->workers; w; w = w->next) {
        close(w->in);
        close(w->out);
    }
}

static struct mcp_worker *worker_fork(struct mcp_server *srv)
{
    int in[2], out[2];
    if (pipe(in) < 0)
        return NULL;
    if (pipe(out) < 0) {
        close(in[0]);
        close(in[1]);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(in[i], F_SETFD, FD_CLOEXEC);
        fcntl(out[i], F_SETFD, FD_CLOEXEC);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return NULL;
    }
    if (pid == 0) {
        close(in[1]);
        close(out[0]);
        mcp_child_setup(srv, out[1]);
        worker_main(srv, in[0], out[1]);
    }
    close(in[0]);
    close(out[1]);
    struct mcp_worker *w = nd_xcalloc(1, sizeof *w);
    w->pid = pid;
    w->in = in[1];
    w->out = out[0];
    w->next = srv->workers;
    srv->workers = w;
    return w;
}

/* Whether an idle worker is still there to take a call (it could have died idle). */
static bool worker_alive(const struct mcp_worker *w)
{
    struct pollfd p = {.fd = w->out, .events = POLLIN};
    return poll(&p, 1, 0) == 0; /* an idle worker writes nothing: anything is its end */
}

static bool worker_send(struct mcp_worker *w, const char *line, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = write(w->in, line + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false; /* EPIPE: it is gone */
        off += (size_t)n;
    }
    return true;
}

/* An idle worker that took line, forking one when there is room; NULL: none. */
static struct mcp_worker *worker_take(struct mcp_server *srv, const char *line, size_t len)
{
    int warm = 0;
    for (struct mcp_worker *w = srv->workers, *next; w; w = next) {
        next = w->next;
        if (w->busy) {
            warm++;
            continue;
        }
        if (worker_alive(w) && worker_send(w, line, len))
            return w;
        worker_end(srv, w);
    }
    if (warm >= MCP_WARM_WORKERS)
        return NULL;
    struct mcp_worker *w = worker_fork(srv);
    if (w && !worker_send(w, line, len)) {
        worker_end(srv, w);
        return NULL;
    }
    return w;
}

struct mcp_job *mcp_worker_call(struct mcp_session *s, const json_t *id,
                                const struct mcp_tool *t, const json_t *args,
                                json_t *progress_token)
{
    json_t *call = json_pack("{s:s, s:O, s:i}", "tool", t->name, "args", args, "logLevel",
                             s->log_level);
    if (progress_token)
        json_object_set(call, "progressToken", progress_token);
    char *line = json_dumps(call, JSON_COMPACT);
    json_decref(call);
    if (!line)
        return NULL;
    size_t len = strlen(line);
    line[len] = '\n'; /* json_dumps allocated len + 1 */
    struct mcp_worker *w = worker_take(s->srv, line, len + 1);
    free(line);
    if (!w)
        return NULL;
    w->busy = true;
    struct mcp_job *j = mcp_job_new(s, id, NULL, w->pid, w->out);
    j->worker = w;
    return j;
}
