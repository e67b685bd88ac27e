/* http_sse.c: the sessions of the Streamable HTTP transport and the event streams their
 * messages go out on (text/event-stream: "event: message", "data: JSON", a blank line).
 *
 * Where a message goes (http_send, a session's send function):
 *   - while a POST is being handled, what it answers is kept for that POST's answer;
 *   - a response, and a call's notification (progress, log lines), go on the stream of
 *     the POST that made the call; when its client has gone, nowhere;
 *   - anything else (a subscription's update) goes on the session's GET stream, or waits
 *     in a bounded backlog until one opens.
 * A stream with nothing to send suspends its connection; a message resumes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "util/id.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct mcp_sse {
    struct mcp_http *h;
    struct mcp_http_session *hs; /* NULL: a whole answer, or its session ended */
    struct MHD_Connection *conn;
    json_t *id;                  /* a POST's request; NULL: the GET stream */
    struct nd_buf out;           /* bytes not yet taken by MHD, from off */
    size_t off;
    bool done;                   /* nothing more comes: end once out is sent */
    bool suspended;
    struct mcp_sse *next;        /* in hs->posts */
};

/* ---- one stream ---- */

static void sse_wake(struct mcp_sse *st)
{
    if (!st->suspended)
        return;
    st->suspended = false;
    MHD_resume_connection(st->conn);
    st->h->kick = true;
}

static void sse_end(struct mcp_sse *st)
{
    st->done = true;
    sse_wake(st);
}

/* Appends one event (or a comment when msg is NULL). A client that reads nothing while
 * MCP_HTTP_MAX_PENDING piles up loses its stream. */
static void sse_add(struct mcp_sse *st, const json_t *msg, const char *comment)
{
    if (st->done)
        return;
    if (st->out.len - st->off > MCP_HTTP_MAX_PENDING) {
        sse_end(st);
        return;
    }
    if (msg) {
        char *text = json_dumps(msg, JSON_COMPACT);
        if (text)
            nd_buf_addf(&st->out, "event: message\ndata: %s\n\n", text);
        free(text);
    } else {
        nd_buf_addf(&st->out, ": %s\n\n", comment);
    }
    sse_wake(st);
}

/* MHD asks for bytes: what is queued, the end, or nothing yet (suspended until more). */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct mcp_sse *st = cls;
    if (st->off < st->out.len) {
        size_t n = st->out.len - st->off < max ? st->out.len - st->off : max;
        memcpy(buf, st->out.data + st->off, n);
        st->off += n;
        if (st->off == st->out.len) {
            nd_buf_reset(&st->out);
            st->off = 0;
        }
        return (ssize_t)n;
    }
    if (st->done)
        return MHD_CONTENT_READER_END_OF_STREAM;
    st->suspended = true;
    MHD_suspend_connection(st->conn);
    return 0;
}

static void sse_unlink(struct mcp_sse *st)
{
    struct mcp_http_session *hs = st->hs;
    if (!hs)
        return;
    if (hs->get == st)
        hs->get = NULL;
    for (struct mcp_sse **p = &hs->posts; *p; p = &(*p)->next)
        if (*p == st) {
            *p = st->next;
            break;
        }
    st->hs = NULL;
}

/* The connection is done with the stream (it ended, or its client went away). */
static void sse_free(void *cls)
{
    struct mcp_sse *st = cls;
    sse_unlink(st);
    json_decref(st->id);
    nd_buf_release(&st->out);
    free(st);
}

static enum MHD_Result sse_queue(struct mcp_sse *st, struct MHD_Connection *conn)
{
    st->conn = conn;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, st, sse_free);
    if (!r) {
        sse_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache, no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (st->hs)
        MHD_add_response_header(r, "Mcp-Session-Id", st->hs->sess.id);
    /* a stream waits on calls, not on its client: it is not idle */
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static struct mcp_sse *sse_new(struct mcp_http *h, json_t *before)
{
    struct mcp_sse *st = nd_xcalloc(1, sizeof *st);
    st->h = h;
    nd_buf_init(&st->out, 0);
    size_t i;
    json_t *m;
    json_array_foreach(before, i, m) sse_add(st, m, NULL);
    return st;
}

enum MHD_Result http_sse_open(struct mcp_http_session *hs, struct MHD_Connection *conn,
                              const json_t *id, json_t *before)
{
    struct mcp_sse *st = sse_new(hs->h, before);
    st->hs = hs;
    if (id) {
        st->id = json_deep_copy(id);
        st->next = hs->posts;
        hs->posts = st;
    } else {
        if (hs->get) { /* a client opens it again: the newer one is the one served */
            struct mcp_sse *old = hs->get;
            sse_unlink(old);
            sse_end(old);
        }
        hs->get = st;
        nd_buf_add(&st->out, hs->backlog.data, hs->backlog.len);
        nd_buf_reset(&hs->backlog);
    }
    return sse_queue(st, conn);
}

enum MHD_Result http_sse_answer(struct MHD_Connection *conn, json_t *before, json_t *answer)
{
    struct mcp_sse *st = sse_new(NULL, before);
    sse_add(st, answer, NULL);
    st->done = true;
    return sse_queue(st, conn);
}

/* ---- where a message goes ---- */

static struct mcp_sse *post_stream(struct mcp_http_session *hs, const json_t *id)
{
    for (struct mcp_sse *st = hs->posts; st; st = st->next)
        if (json_equal(st->id, id))
            return st;
    return NULL;
}

static void to_backlog(struct mcp_http_session *hs, const json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (text && hs->backlog.len + strlen(text) < MCP_HTTP_MAX_BACKLOG)
        nd_buf_addf(&hs->backlog, "event: message\ndata: %s\n\n", text);
    free(text); /* past the bound: dropped (a client that never opens its GET stream) */
}

static void http_send(struct mcp_session *s, json_t *msg)
{
    struct mcp_http_session *hs = s->transport;
    struct mcp_http_capture *c = hs->h->capture;
    const json_t *id = json_object_get(msg, "method") ? NULL : json_object_get(msg, "id");
    const json_t *related = id ? id : s->related;
    if (c && c->hs == hs && (!related || json_equal(related, c->id))) {
        if (id && !c->answer) {
            c->answer = msg;
            return;
        }
        json_array_append_new(c->before, msg);
        return;
    }
    if (related) {
        struct mcp_sse *st = post_stream(hs, related);
        if (st) {
            sse_add(st, msg, NULL);
            if (id)
                sse_end(st);
        }
    } else if (hs->get) {
        sse_add(hs->get, msg, NULL);
    } else {
        to_backlog(hs, msg);
    }
    json_decref(msg);
}

/* ---- sessions ---- */

struct mcp_http_session *http_session_new(struct mcp_http *h)
{
    struct mcp_http_session *hs = nd_xcalloc(1, sizeof *hs);
    hs->h = h;
    mcp_session_init(&hs->sess, h->srv, http_send, hs);
    unsigned char raw[16];
    nd_random_bytes(raw, sizeof raw);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(hs->sess.id + 2 * i, 3, "%02x", raw[i]);
    nd_buf_init(&hs->backlog, 0);
    hs->used = nd_time_mono_ms();
    return hs;
}

void http_session_add(struct mcp_http *h, struct mcp_http_session *hs)
{
    hs->next = h->sessions;
    h->sessions = hs;
    h->nsessions++;
}

struct mcp_http_session *http_session_find(struct mcp_http *h, const char *id)
{
    for (struct mcp_http_session *hs = h->sessions; hs; hs = hs->next)
        if (!strcmp(hs->sess.id, id))
            return hs;
    return NULL;
}

void http_session_end(struct mcp_http_session *hs)
{
    struct mcp_http *h = hs->h;
    for (struct mcp_http_session **p = &h->sessions; *p; p = &(*p)->next)
        if (*p == hs) {
            *p = hs->next;
            h->nsessions--;
            break;
        }
    mcp_session_release(&hs->sess); /* its calls are killed: they answer nothing */
    while (hs->posts) {
        struct mcp_sse *st = hs->posts;
        sse_unlink(st);
        sse_end(st);
    }
    if (hs->get) {
        struct mcp_sse *st = hs->get;
        sse_unlink(st);
        sse_end(st);
    }
    nd_buf_release(&hs->backlog);
    free(hs);
}

static bool session_busy(const struct mcp_http_session *hs)
{
    return hs->get || hs->posts || hs->sess.jobs;
}

void http_sessions_reap(struct mcp_http *h, bool all)
{
    int64_t now = nd_time_mono_ms();
    for (struct mcp_http_session *hs = h->sessions, *next; hs; hs = next) {
        next = hs->next;
        bool idle = !session_busy(hs) && now - hs->used > (int64_t)MCP_HTTP_SESSION_IDLE_S * 1000;
        if (all || idle)
            http_session_end(hs);
    }
}

bool http_sessions_make_room(struct mcp_http *h)
{
    struct mcp_http_session *oldest = NULL;
    for (struct mcp_http_session *hs = h->sessions; hs; hs = hs->next)
        if (!session_busy(hs) && (!oldest || hs->used < oldest->used))
            oldest = hs;
    if (!oldest)
        return false;
    http_session_end(oldest);
    return true;
}

void http_sse_settle(struct mcp_http_session *hs)
{
    for (struct mcp_sse *st = hs->posts, *next; st; st = next) {
        next = st->next;
        if (!mcp_job_find(hs->h->srv, &hs->sess, st->id)) { /* cancelled: no answer comes */
            sse_unlink(st);
            sse_end(st);
        }
    }
}

static void keepalive(struct mcp_http *h)
{
    for (struct mcp_http_session *hs = h->sessions; hs; hs = hs->next) {
        if (hs->get)
            sse_add(hs->get, NULL, "keepalive");
        for (struct mcp_sse *st = hs->posts; st; st = st->next)
            sse_add(st, NULL, "keepalive");
    }
    http_sessions_reap(h, false);
}

/* ---- the loop's timer: MHD's timeouts, resumed connections, the keepalive ---- */

int http_timeout(void *cls)
{
    struct mcp_http *h = cls;
    if (h->kick)
        return 0;
    int64_t left = h->next_keepalive - nd_time_mono_ms();
    MHD_UNSIGNED_LONG_LONG t;
    if (MHD_get_timeout(h->d, &t) == MHD_YES && (int64_t)t < left)
        left = (int64_t)t;
    return left < 0 ? 0 : (int)left;
}

void http_tick(void *cls)
{
    struct mcp_http *h = cls;
    h->kick = false;
    MHD_run(h->d); /* resumed connections, MHD's timeouts */
    if (nd_time_mono_ms() >= h->next_keepalive) {
        keepalive(h);
        h->next_keepalive = nd_time_mono_ms() + MCP_HTTP_KEEPALIVE_MS;
    }
}
