/* tool_logs.c: the logs tool: the log of a Job, Sandbox, Function or PoolAction, read by
 * `nodus logs` (its tail, since and follow; the log API is the verb's).
 *
 * A follow is bounded: it ends after followSeconds (10 by default, at most 300), when the
 * text passes --max-output, or when the object ends (the verb's own end). The verb writes
 * to a pipe that a reader thread of the call's child drains: each batch of lines is a
 * notifications/progress (when the client sent a progressToken), and when a bound comes
 * first the reader answers with what it has and ends the child (the verb's connection
 * closes with it). Cancelling the call kills the child, as for every call. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kinds/registry.h"
#include "mcp.h"

#define FOLLOW_DEFAULT_SECONDS 10
#define FOLLOW_MAX_SECONDS 300

static json_t *logs_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, NULL, false);
    json_object_set_new(json_object_get(json_object_get(s, "properties"), "kind"), "description",
                        json_string("job (the default), sandbox, function or poolaction"));
    mcp_schema_prop(s, "name", "string", "The object's name", true);
    mcp_schema_project(s, false);
    mcp_schema_prop(s, "tail", "integer", "Only the last N lines", false);
    mcp_schema_prop(s, "since", "string", "Only lines newer than this duration, e.g. 5m or 1h",
                    false);
    mcp_schema_prop(s, "follow", "boolean",
                    "Wait for new lines (bounded by followSeconds; sends progress per batch of "
                    "lines when the request has a progressToken)",
                    false);
    mcp_schema_prop(s, "followSeconds", "integer",
                    "How long a follow waits for new lines: 10 by default, at most 300", false);
    return s;
}

static json_t *logs_output(void)
{
    return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s}}, "
                     "s:[s, s, s]}",
                     "type", "object", "properties", "kind", "type", "string", "name", "type",
                     "string", "project", "type", "string", "lines", "type", "integer",
                     "description", "Lines of log in the text", "ended", "type", "string",
                     "description",
                     "Why a follow stopped: the object ended, followSeconds, or the text bound",
                     "required", "kind", "name", "lines");
}

static size_t count_lines(const struct nd_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\n';
    if (b->len && b->data[b->len - 1] != '\n')
        n++;
    return n;
}

static void set_structured(struct mcp_call *c, const struct nd_kind *k, const char *ended)
{
    c->structured = json_pack("{s:s, s:s, s:s, s:I}", "kind", k->kind, "name",
                              mcp_arg_str(c, "name", ""), "project",
                              k->namespaced ? nd_ctx_project(c->ctx) : "", "lines",
                              (json_int_t)count_lines(&c->text));
    if (ended)
        json_object_set_new(c->structured, "ended", json_string(ended));
}

/* The reader thread of a follow: it drains the verb's pipe into c->text. */
struct follow_reader {
    struct mcp_call *c;
    const struct nd_kind *k;
    int fd;           /* the pipe's read end */
    long long seconds; /* followSeconds */
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A bound came before the object ended: the answer is what was read, and the child ends
 * here (the verb, blocked in its follow, ends with it). */
static void answer_now(struct follow_reader *r, const char *why)
{
    struct mcp_call *c = r->c;
    nd_buf_addf(&c->notes, "[%s: call logs again with since to read on]\n", why);
    set_structured(c, r->k, why);
    mcp_call_answer(c);
    _exit(0);
}

static void *follow_read(void *cls)
{
    struct follow_reader *r = cls;
    struct mcp_call *c = r->c;
    size_t max = c->cfg->max_output > 0 ? (size_t)c->cfg->max_output : MCP_DEFAULT_MAX_OUTPUT;
    long long end = now_ms() + r->seconds * 1000;
    char buf[16384];
    for (;;) {
        long long left = end - now_ms();
        if (left <= 0)
            answer_now(r, "followed for followSeconds");
        struct pollfd p = {r->fd, POLLIN, 0};
        int rc = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0)
            continue;
        ssize_t n = read(r->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the verb ended (the object did) */
        nd_buf_add(&c->text, buf, (size_t)n);
        size_t lines = count_lines(&c->text);
        char msg[64];
        snprintf(msg, sizeof msg, "log lines so far: %zu", lines);
        mcp_call_progress(c, (double)lines, 0, msg);
        if (c->text.len > max)
            answer_now(r, "the text reached --max-output");
    }
    return NULL;
}

static void follow(struct mcp_call *c, const struct nd_kind *k, const char *const *argv)
{
    long long seconds = mcp_arg_int(c, "followSeconds", FOLLOW_DEFAULT_SECONDS);
    if (seconds < 1 || seconds > FOLLOW_MAX_SECONDS) {
        nd_status_set(&c->st, "BadRequest", "give followSeconds from 1 to 300",
                      "followSeconds is %lld: a follow waits 1 to %d seconds", seconds,
                      FOLLOW_MAX_SECONDS);
        return;
    }
    int p[2];
    if (pipe(p) < 0) {
        nd_status_set(&c->st, "InternalError", NULL, "no pipe for the log: %s", strerror(errno));
        return;
    }
    mcp_call_log(c, MCP_DEBUG, "following %s/%s for at most %lld s", k->singular,
                 mcp_arg_str(c, "name", ""), seconds);
    struct follow_reader r = {c, k, p[0], seconds};
    pthread_t th;
    if (pthread_create(&th, NULL, follow_read, &r) != 0) {
        nd_status_set(&c->st, "InternalError", NULL, "no thread to read the log");
        close(p[0]);
        close(p[1]);
        return;
    }
    struct nd_buf said = ND_BUF_INIT;
    int rc = mcp_call_verb_fd(c, argv, p[1], &said);
    close(p[1]); /* the reader sees the end */
    pthread_join(th, NULL);
    close(p[0]);
    /* a log that ended with its object (Failed, deleted ...) is a log still: the verb's
     * last word is a note, unless it failed before any log came */
    (void)rc;
    if (!nd_status_failed(&c->st)) {
        nd_buf_add(&c->notes, said.data, said.len);
        set_structured(c, k, "the object ended");
    }
    nd_buf_release(&said);
}

static void run_logs(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_str(c, "kind", NULL) ? mcp_arg_kind(c, "kind")
                                                            : nd_kind_by_plural(NULL, "jobs");
    if (!k)
        return;
    char target[512], tail[32], limit[32];
    snprintf(target, sizeof target, "%s/%s", k->plural, mcp_arg_str(c, "name", ""));
    snprintf(tail, sizeof tail, "%lld", mcp_arg_int(c, "tail", -1));
    const char *argv[12] = {"logs", target, "--tail", tail};
    int n = 4;
    const char *since = mcp_arg_str(c, "since", NULL);
    if (since) {
        argv[n++] = "--since";
        argv[n++] = since;
    }
    if (mcp_arg_bool(c, "follow", false)) {
        argv[n++] = "--follow";
        follow(c, k, argv);
        return;
    }
    /* at most a byte past the bound: the text is cut there, with its note */
    size_t max = c->cfg->max_output > 0 ? (size_t)c->cfg->max_output : MCP_DEFAULT_MAX_OUTPUT;
    snprintf(limit, sizeof limit, "%zu", max + 1);
    argv[n++] = "--limit-bytes";
    argv[n++] = limit;
    if (mcp_call_verb(c, argv) == 0)
        set_structured(c, k, NULL);
}

const struct mcp_tool mcp_tool_logs = {
    "logs",
    "Read a log",
    "The log of a Job (the default kind), Sandbox, Function or PoolAction, like `nodus logs`: "
    "tail, since, and a bounded follow (followSeconds) that reports progress per batch of "
    "lines.",
    MCP_T_READ | MCP_T_PROJECT,
    logs_input,
    logs_output,
    run_logs,
};
