/* stdio.c: the stdio transport: messages are lines on stdin and stdout; stdout carries
 * nothing else (diagnostics and audit lines go to stderr). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"

struct stdio_transport {
    struct mcp_session sess;
    struct mcp_reader reader;
    bool out_closed; /* the client stopped reading */
};

static void stdio_send(struct mcp_session *s, json_t *msg)
{
    struct stdio_transport *t = s->transport;
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text || t->out_closed) {
        free(text);
        return;
    }
    size_t n = strlen(text);
    text[n] = '\n'; /* a whole line in one buffer: never a partial message between two */
    for (size_t off = 0; off < n + 1;) {
        ssize_t w = write(STDOUT_FILENO, text + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            t->out_closed = true; /* EPIPE: nobody reads; the calls end unanswered */
            s->srv->stopping = true;
            break;
        }
        off += (size_t)w;
    }
    free(text);
}

static int on_line(void *cls, const char *line, size_t len)
{
    struct stdio_transport *t = cls;
    mcp_session_line(&t->sess, line, len);
    return 0;
}

/* End of input: no new calls; the running ones answer, subscriptions end. */
static void input_ended(struct stdio_transport *t)
{
    struct mcp_server *srv = t->sess.srv;
    mcp_loop_unwatch(srv, STDIN_FILENO);
    srv->stopping = true;
    for (struct mcp_job *j = srv->jobs, *next; j; j = next) {
        next = j->next;
        if (!j->id)
            mcp_job_cancel(j);
    }
}

static void stdin_readable(void *cls, int fd, short revents)
{
    struct stdio_transport *t = cls;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        (void)revents;
        input_ended(t);
        return;
    }
    mcp_reader_feed(&t->reader, buf, (size_t)n, on_line, t);
}

int mcp_serve_stdio(struct mcp_server *srv)
{
    struct stdio_transport t;
    memset(&t, 0, sizeof t);
    mcp_session_init(&t.sess, srv, stdio_send, &t);
    mcp_reader_init(&t.reader);
    mcp_loop_watch(srv, STDIN_FILENO, POLLIN, stdin_readable, &t);
    int rc = mcp_loop_run(srv);
    mcp_session_release(&t.sess);
    mcp_reader_release(&t.reader);
    return rc;
}
