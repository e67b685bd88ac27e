/* call.c: calls and subscriptions run in forked children.
 *
 * The parent forks after reading a request, so the child holds the parsed request and
 * the resolved context. The child writes JSON lines on a pipe: {"notify": MESSAGE} for
 * progress and log notifications (and a subscription's updates), then one
 * {"result": RESULT} or {"error": {code, message, data?}} answering the request. Killing the
 * child cancels the call: its HTTP connections close with it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp.h"
#include "resolve.h"
#include "util/xmalloc.h"

/* The most a child may send on for one call (its notifications and answer): a child
 * past it is killed and its call answered with an error. */
#define MCP_JOB_MAX_BYTES (32u << 20)

/* ---- the child's side ---- */

void mcp_child_write(int fd, json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    if (!s)
        return;
    size_t n = strlen(s);
    s[n] = '\n'; /* the NUL becomes the line's end: json_dumps allocated n + 1 */
    for (size_t off = 0; off < n + 1;) {
        ssize_t w = write(fd, s + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(s);
}

void mcp_call_progress(struct mcp_call *c, double progress, double total, const char *message)
{
    if (!c->progress_token)
        return;
    json_t *p = json_pack("{s:O, s:f}", "progressToken", c->progress_token, "progress", progress);
    if (total > 0)
        json_object_set_new(p, "total", json_real(total));
    if (message)
        json_object_set_new(p, "message", json_string(message));
    mcp_child_write(c->fd, json_pack("{s:o}", "notify", mcp_notification("notifications/progress", p)));
}

void mcp_call_log(struct mcp_call *c, int level, const char *fmt, ...)
{
    if (level < c->log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    json_t *p = json_pack("{s:s, s:s, s:s}", "level", mcp_level_name(level), "logger",
                          c->tool ? c->tool->name : "nodus", "data", b.data);
    nd_buf_release(&b);
    mcp_child_write(c->fd, json_pack("{s:o}", "notify", mcp_notification("notifications/message", p)));
}

const char *mcp_arg_str(const struct mcp_call *c, const char *key, const char *def)
{
    const char *v = json_string_value(json_object_get(c->args, key));
    return v ? v : def;
}

long long mcp_arg_int(const struct mcp_call *c, const char *key, long long def)
{
    json_t *v = json_object_get(c->args, key);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

bool mcp_arg_bool(const struct mcp_call *c, const char *key, bool def)
{
    json_t *v = json_object_get(c->args, key);
    return json_is_boolean(v) ? json_is_true(v) : def;
}

const struct nd_kind *mcp_arg_kind(struct mcp_call *c, const char *key)
{
    const char *name = mcp_arg_str(c, key, NULL);
    if (!name) {
        nd_status_set(&c->st, "BadRequest", "name a kind (job, jobs, ...): the api_resources tool lists them",
                      "the argument \"%s\" is required", key);
        return NULL;
    }
    const struct nd_kind *k = nd_resolve_kind(name, &c->st);
    if (!k) /* as a server answers an unknown resource: 404 */
        mcp_call_usage_as(c, "NotFound");
    return k;
}

void mcp_call_usage_as(struct mcp_call *c, const char *reason)
{
    if (!nd_status_is(&c->st, ND_REASON_USAGE))
        return;
    struct nd_status to = ND_STATUS_INIT;
    nd_status_set(&to, reason, c->st.fix, "%s", c->st.message ? c->st.message : "");
    nd_status_release(&c->st);
    nd_status_move(&c->st, &to);
}

/* nd_cli_error's hook while a verb runs: the first error is the call's. */
static void capture_error(void *cls, const struct nd_status *st)
{
    struct mcp_call *c = cls;
    if (nd_status_failed(&c->st))
        return;
    nd_status_init(&c->st);
    c->st.code = st->code;
    c->st.reason = st->reason ? nd_xstrdup(st->reason) : NULL;
    c->st.message = st->message ? nd_xstrdup(st->message) : NULL;
    c->st.fix = st->fix ? nd_xstrdup(st->fix) : NULL;
    c->st.docs = st->docs ? nd_xstrdup(st->docs) : NULL;
    c->st.request_id = st->request_id ? nd_xstrdup(st->request_id) : NULL;
    c->st.details = st->details ? json_deep_copy(st->details) : NULL;
}

/* A scratch file for a verb's stdout or stderr (a file, not a pipe: the verb may write
 * more than a pipe holds before anyone reads). -1 when none could be made. */
static int scratch(FILE **f)
{
    *f = tmpfile();
    return *f ? fileno(*f) : -1;
}

static void read_back(FILE *f, struct nd_buf *into)
{
    if (!f)
        return;
    lseek(fileno(f), 0, SEEK_SET);
    nd_buf_read_fd(into, fileno(f));
    fclose(f);
}

/* The verb's argv as it takes it (its own copies: a verb may reorder them). */
static char **verb_argv(const char *const *argv, int *argc)
{
    *argc = 0;
    while (argv[*argc])
        (*argc)++;
    char **av = nd_xcalloc((size_t)*argc + 1, sizeof *av);
    for (int i = 0; i < *argc; i++)
        av[i] = nd_xstrdup(argv[i]);
    return av;
}

int mcp_call_verb_fd(struct mcp_call *c, const char *const *argv, int out, struct nd_buf *said)
{
    const struct nd_command *cmd = nd_command_find(argv[0]);
    FILE *ferr = NULL;
    int err = cmd ? scratch(&ferr) : -1;
    if (!cmd || err < 0) {
        nd_status_set(&c->st, "InternalError", cmd ? "free some space in TMPDIR" : NULL,
                      "%s", cmd ? "no scratch file for the verb's errors" : "no such verb");
        return 1;
    }
    int argc;
    char **av = verb_argv(argv, &argc);
    fflush(stdout);
    fflush(stderr);
    int save_out = dup(STDOUT_FILENO), save_err = dup(STDERR_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    c->ctx->cmd = cmd;
    c->ctx->on_error = capture_error;
    c->ctx->on_error_cls = c;
    int rc = cmd->run(argc, av, c->ctx);
    c->ctx->on_error = NULL;
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, STDOUT_FILENO);
    dup2(save_err, STDERR_FILENO);
    close(save_out);
    close(save_err);
    read_back(ferr, said);
    for (int i = 0; i < argc; i++)
        free(av[i]);
    free(av);
    return rc;
}

int mcp_call_verb(struct mcp_call *c, const char *const *argv)
{
    FILE *fout;
    int out = scratch(&fout);
    if (out < 0) {
        nd_status_set(&c->st, "InternalError", "free some space in TMPDIR",
                      "no scratch file for the verb's output: %s", strerror(errno));
        return 1;
    }
    struct nd_buf said = ND_BUF_INIT;
    int rc = mcp_call_verb_fd(c, argv, out, &said);
    read_back(fout, &c->text);
    if (rc && !nd_status_failed(&c->st))
        nd_status_set(&c->st, "BadRequest", NULL, "%s", said.len ? said.data : "the verb failed");
    else if (!nd_status_failed(&c->st))
        nd_buf_add(&c->notes, said.data, said.len);
    nd_buf_release(&said);
    return rc;
}

/* Cuts text past the --max-output bound at a line's end, saying what was left out. */
static void bound_text(struct mcp_call *c)
{
    size_t max = c->cfg->max_output > 0 ? (size_t)c->cfg->max_output : MCP_DEFAULT_MAX_OUTPUT;
    if (c->text.len <= max)
        return;
    size_t cut = max;
    while (cut > 0 && c->text.data[cut - 1] != '\n')
        cut--;
    if (!cut)
        cut = max;
    size_t total = c->text.len;
    nd_buf_truncate(&c->text, cut);
    nd_buf_addf(&c->text,
                "[cut: %zu of %zu bytes shown; ask for less (a limit and its continue token, a "
                "labelSelector, a tail) to see the rest]\n",
                cut, total);
}

/* The tools that do what a CLI command in a fix does: an agent calls the tool. */
static const struct {
    const char *cli, *tool;
} fix_tools[] = {
    {"nodus api-resources", "api_resources"}, {"nodus get ", "list"},
    {"nodus describe ", "describe"},          {"nodus logs ", "logs"},
    {"nodus events", "events"},               {"nodus explain ", "explain"},
    {"nodus top ", "top"},                    {"nodus auth can-i", "can_i"},
};

/* A Status as an agent acts on it: the client's own errors get the API's reasons (an
 * unknown kind is NotFound, a bad argument BadRequest, instead of the CLI's "Usage"),
 * and a fix that names a CLI command also names the tool that does the same. */
static void agent_status(struct nd_status *st)
{
    if (nd_status_is(st, ND_REASON_USAGE)) {
        bool kind = st->message && strstr(st->message, "doesn't have a resource type");
        free(st->reason);
        st->reason = nd_xstrdup(kind ? "NotFound" : "BadRequest");
        st->code = nd_reason_http_code(st->reason);
    }
    for (size_t i = 0; st->fix && i < sizeof fix_tools / sizeof *fix_tools; i++)
        if (strstr(st->fix, fix_tools[i].cli)) {
            char *was = nd_xstrdup(st->fix);
            nd_status_set_fix(st, "%s (as a tool: call %s)", was, fix_tools[i].tool);
            free(was);
            break;
        }
}

json_t *mcp_error_result(struct nd_ctx *ctx, struct nd_status *st)
{
    struct nd_buf b = ND_BUF_INIT;
    agent_status(st);
    if (st->request_id && *st->request_id) {
        nd_cli_render(ctx, st, &b); /* the server's error, as kubectl shows it */
    } else { /* nodus's own: not "Error from server" */
        struct nd_status safe;
        nd_cli_safe_status(st, &safe);
        nd_buf_addf(&b, "error: %s\n", safe.message ? safe.message : "unknown error");
        nd_cli_render_tail(ctx, &safe, &b);
        nd_status_release(&safe);
    }
    nd_buf_addf(&b, "reason: %s (%d)\n", st->reason ? st->reason : "Unknown", st->code);
    if (st->request_id && *st->request_id)
        nd_buf_addf(&b, "requestId: %s\n", st->request_id);
    /* structuredContent {status}: every tool's outputSchema takes it (tools.c,
     * output_or_status; the official client checks it on errors too) */
    json_t *r = json_pack("{s:[{s:s, s:s}], s:b, s:{s:o}}", "content", "type", "text", "text",
                          b.data, "isError", 1, "structuredContent", "status",
                          nd_status_to_json(st));
    nd_buf_release(&b);
    return r;
}

/* The answer of a call: its text, structuredContent, or its Status as an isError. */
static json_t *call_result(struct mcp_call *c)
{
    if (nd_status_failed(&c->st))
        return mcp_error_result(c->ctx, &c->st);
    json_t *r = json_object();
    if (c->notes.len) {
        if (c->text.len && c->text.data[c->text.len - 1] != '\n')
            nd_buf_addch(&c->text, '\n');
        nd_buf_add(&c->text, c->notes.data, c->notes.len);
    }
    bound_text(c);
    json_object_set_new(r, "content", json_pack("[{s:s, s:s%}]", "type", "text", "text",
                                                c->text.data, c->text.len));
    if (c->structured)
        json_object_set(r, "structuredContent", c->structured);
    return r;
}

void mcp_call_answer(struct mcp_call *c)
{
    mcp_child_write(c->fd, json_pack("{s:o}", "result", call_result(c)));
}

void mcp_call_run(struct mcp_server *srv, const struct mcp_tool *t, const json_t *args,
                  json_t *progress_token, int log_level, int fd)
{
    struct mcp_call c;
    memset(&c, 0, sizeof c);
    c.ctx = srv->ctx;
    c.cfg = srv->cfg;
    c.tool = t;
    c.args = args;
    c.progress_token = progress_token;
    c.log_level = log_level;
    c.fd = fd;
    nd_buf_init(&c.text, 0);
    nd_buf_init(&c.notes, 0);
    nd_status_init(&c.st);
    const char *project = json_string_value(json_object_get(args, "project"));
    if (project)
        c.ctx->project_flag = project;
    c.ctx->all_projects = json_is_true(json_object_get(args, "allProjects"));
    t->run(&c);
    mcp_call_answer(&c);
    json_decref(c.structured);
    nd_buf_release(&c.text);
    nd_buf_release(&c.notes);
    nd_status_release(&c.st);
}

/* The body of a tools/call child of its own. */
struct call_body {
    struct mcp_server *srv;
    const struct mcp_tool *tool;
    const json_t *args;
    json_t *progress_token;
    int log_level;
};

static void run_call(int fd, void *cls)
{
    struct call_body *b = cls;
    mcp_call_run(b->srv, b->tool, b->args, b->progress_token, b->log_level, fd);
}

struct mcp_job *mcp_tool_start(struct mcp_session *s, const json_t *id, const struct mcp_tool *t,
                               const json_t *args, json_t *progress_token)
{
    /* a followed log ends its child when its bound comes (tool_logs.c): a child of its own */
    bool own = t == &mcp_tool_logs && json_is_true(json_object_get(args, "follow"));
    struct mcp_job *j = own ? NULL : mcp_worker_call(s, id, t, args, progress_token);
    if (!j) {
        struct call_body b = {s->srv, t, args, progress_token, s->log_level};
        j = mcp_job_start(s, id, NULL, run_call, &b);
    }
    if (j) {
        j->tool = t;
        j->args = json_deep_copy(args);
    }
    return j;
}

/* ---- the parent's side ---- */

static void job_finish(struct mcp_job *j);
static void job_free(struct mcp_job *j);

static void job_send(struct mcp_job *j, json_t *msg)
{
    if (j->sess->closing) {
        json_decref(msg);
        return;
    }
    j->sess->related = j->id;
    j->sess->send(j->sess, msg);
    j->sess->related = NULL;
}

static void job_audit(struct mcp_job *j, const json_t *result)
{
    if (!j->tool || (j->tool->flags & MCP_T_READ))
        return;
    const char *outcome = "ok";
    if (json_is_true(json_object_get(result, "isError"))) {
        const char *reason = json_string_value(
            json_object_get(json_object_get(json_object_get(result, "structuredContent"), "status"),
                            "reason"));
        outcome = reason ? reason : "error";
    } else if (json_is_true(json_object_get(json_object_get(result, "structuredContent"),
                                            "reviewOnly"))) {
        outcome = "reviewed";
    }
    mcp_audit(j->sess->srv, j->sess, j->tool->name, j->args, result, outcome);
}

static int job_line(void *cls, const char *line, size_t len)
{
    struct mcp_job *j = cls;
    if (!line) { /* an answer past the message bound: the client could not take it */
        if (j->id && !j->answered) {
            j->answered = true;
            char why[160];
            snprintf(why, sizeof why,
                     "the call's answer passed %u bytes: ask for less (a limit, a selector, "
                     "a tail)",
                     MCP_MAX_MESSAGE);
            job_send(j, mcp_error(j->id, MCP_INTERNAL_ERROR, why));
        }
        if (j->id) {
            kill(j->pid, SIGKILL); /* (a subscription's update too large is dropped) */
            j->worker_free = false;
        }
        return 0;
    }
    json_t *v = json_loadb(line, len, 0, NULL);
    if (!v)
        return 0;
    json_t *x;
    if ((x = json_object_get(v, "notify"))) {
        job_send(j, json_incref(x));
    } else if ((x = json_object_get(v, "result")) && j->id && !j->answered) {
        j->answered = true;
        j->worker_free = j->worker != NULL;
        job_audit(j, x);
        job_send(j, mcp_response(j->id, json_incref(x)));
    } else if ((x = json_object_get(v, "error")) && j->id && !j->answered) {
        j->answered = true;
        j->worker_free = j->worker != NULL;
        json_t *e = mcp_error(j->id, (int)json_integer_value(json_object_get(x, "code")),
                              json_string_value(json_object_get(x, "message")));
        if (json_object_get(x, "data")) /* e.g. the Status of resources/read's -32002 */
            json_object_set(json_object_get(e, "error"), "data", json_object_get(x, "data"));
        job_send(j, e);
    }
    json_decref(v);
    return 0;
}

static void job_readable(void *cls, int fd, short revents)
{
    struct mcp_job *j = cls;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n > 0) {
        j->forwarded += (size_t)n;
        if (j->forwarded > MCP_JOB_MAX_BYTES) {
            kill(j->pid, SIGKILL);
            job_finish(j);
            return;
        }
        mcp_reader_feed(&j->in, buf, (size_t)n, job_line, j); /* bounded as messages */
        if (j->worker_free)
            job_free(j); /* the worker waits for its next call */
        return;
    }
    (void)revents;
    job_finish(j); /* EOF: the child is done */
}

static void unlink_job(struct mcp_job *j)
{
    struct mcp_job **p = &j->sess->srv->jobs;
    while (*p && *p != j)
        p = &(*p)->next;
    if (*p)
        *p = j->next;
}

static void job_free(struct mcp_job *j)
{
    struct mcp_server *srv = j->sess->srv;
    mcp_loop_unwatch(srv, j->fd);
    if (!j->worker_free)
        close(j->fd);
    if (j->worker)
        mcp_worker_done(srv, j->worker, j->worker_free);
    unlink_job(j);
    j->sess->jobs--;
    json_decref(j->id);
    json_decref(j->args);
    free(j->uri);
    mcp_reader_release(&j->in);
    free(j);
}

static void job_finish(struct mcp_job *j)
{
    int status = 0;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (j->id && !j->answered) {
        char why[160];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "the call ended without an answer (signal %d)",
                     WTERMSIG(status));
        else if (j->forwarded > MCP_JOB_MAX_BYTES)
            snprintf(why, sizeof why, "the call's answer passed %u bytes: ask for less",
                     MCP_JOB_MAX_BYTES);
        else
            snprintf(why, sizeof why, "the call ended without an answer (exit %d)",
                     WEXITSTATUS(status));
        job_send(j, mcp_error(j->id, MCP_INTERNAL_ERROR, why));
    }
    job_free(j);
}

void mcp_job_cancel(struct mcp_job *j)
{
    kill(j->pid, SIGKILL);
    while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    job_free(j);
}

struct mcp_job *mcp_job_find(struct mcp_server *srv, const struct mcp_session *s,
                             const json_t *id)
{
    for (struct mcp_job *j = srv->jobs; j; j = j->next)
        if (j->sess == s && j->id && json_equal(j->id, id))
            return j;
    return NULL;
}

/* In the child: nothing of the parent's but the pipe and stderr stays open. */
void mcp_child_setup(struct mcp_server *srv, int keep)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN);
    if (srv->at_fork)
        srv->at_fork(srv->tick_cls);
    if (srv->audit && srv->audit != stderr) { /* the parent writes the audit lines */
        fclose(srv->audit);
        srv->audit = NULL;
    }
    for (size_t i = 0; i < srv->nwatches; i++)
        if (srv->watches[i].fd != keep && srv->watches[i].fd > STDERR_FILENO)
            close(srv->watches[i].fd);
    mcp_workers_close_fds(srv);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO); /* the protocol's stream is the parent's alone */
        close(null);
    }
}

struct mcp_job *mcp_job_start(struct mcp_session *s, const json_t *id, const char *uri,
                              void (*body)(int fd, void *cls), void *cls)
{
    int p[2];
    if (pipe(p) < 0)
        return NULL;
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return NULL;
    }
    if (pid == 0) {
        close(p[0]);
        mcp_child_setup(s->srv, p[1]);
        body(p[1], cls);
        fflush(NULL);
        _exit(0);
    }
    close(p[1]);
    return mcp_job_new(s, id, uri, pid, p[0]);
}

struct mcp_job *mcp_job_new(struct mcp_session *s, const json_t *id, const char *uri,
                            pid_t pid, int fd)
{
    struct mcp_job *j = nd_xcalloc(1, sizeof *j);
    j->sess = s;
    j->id = id ? json_deep_copy(id) : NULL;
    j->uri = uri ? nd_xstrdup(uri) : NULL;
    j->pid = pid;
    j->fd = fd;
    mcp_reader_init(&j->in);
    j->next = s->srv->jobs;
    s->srv->jobs = j;
    s->jobs++;
    mcp_loop_watch(s->srv, j->fd, POLLIN, job_readable, j);
    return j;
}
