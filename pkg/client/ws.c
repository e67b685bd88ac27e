/* ws.c: the client side of a WebSocket; see ws.h. The handshake is ours (it needs the
 * raw connection either transport hands over); framing, masking, pings and the closing
 * handshake are wslay's. */
#include "client/ws.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "client/internal.h"
#include "util/base64.h"
#include "util/header.h"
#include "util/id.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define HEAD_MAX  (64 * 1024)
#define ERROR_MAX (4 << 20)

struct nd_ws {
    int fd;
    void *tls;           /* libcurl handle for https, NULL for http */
    struct nd_buf early; /* bytes that came with the handshake's answer, for wslay */
    size_t early_pos;
    wslay_event_context_ptr ctx;
    char *protocol;
    bool eof; /* the server closed the socket */
    int err;  /* errno of a failed read or write */
    nd_ws_msg_fn fn;
    void *cls;
    bool stopped; /* fn asked to stop */
    unsigned char mask[256];
    size_t mask_pos;
};

/* ---- raw bytes over either transport ---- */

static ssize_t raw_send(struct nd_ws *ws, const void *p, size_t n, bool more)
{
    if (ws->tls)
        return nd_curl_raw_send(ws->tls, p, n);
        /* a frame's header and payload come in two calls: one packet when the OS can */
#ifdef MSG_MORE
    return send(ws->fd, p, n, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
#else
    (void)more;
    return send(ws->fd, p, n, MSG_NOSIGNAL);
#endif
}

static ssize_t raw_recv(struct nd_ws *ws, void *p, size_t n)
{
    if (ws->tls)
        return nd_curl_raw_recv(ws->tls, p, n);
    return recv(ws->fd, p, n, 0);
}

/* Waits for ev until deadline (0: none): 0 ready, -1 timed out or failed. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int ms = -1;
        if (deadline) {
            int64_t left = deadline - nd_client_now_ms();
            if (left <= 0)
                return -1;
            ms = left > INT_MAX ? INT_MAX : (int)left;
        }
        struct pollfd pf = {fd, ev, 0};
        int n = poll(&pf, 1, ms);
        if (n < 0 && errno == EINTR)
            continue;
        return n > 0 ? 0 : -1;
    }
}

static int send_all(struct nd_client *c, struct nd_ws *ws, const char *p, size_t n,
                    int64_t deadline, struct nd_status *st)
{
    while (n) {
        ssize_t w = raw_send(ws, p, n, false);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(ws->fd, POLLOUT, deadline) < 0)
                return nd_client_fail_timeout(c, st);
            continue;
        }
        if (w <= 0)
            return nd_status_set(st, "Unreachable",
                                 "Retry; if it persists, look at the server's "
                                 "logs.",
                                 "the server %s closed the connection before answering (%s)",
                                 c->url.hostport, strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads more of the answer into ws->early: 1 got bytes, 0 the server closed, -1 error. */
static int recv_more(struct nd_client *c, struct nd_ws *ws, int64_t deadline, struct nd_status *st)
{
    char buf[16384];
    for (;;) {
        ssize_t n = raw_recv(ws, buf, sizeof buf);
        if (n > 0) {
            nd_buf_add(&ws->early, buf, (size_t)n);
            return 1;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return nd_status_set(st, "Unreachable",
                                 "Retry; if it persists, look at the server's "
                                 "logs.",
                                 "the server %s closed the connection (%s)", c->url.hostport,
                                 strerror(errno));
        if (wait_fd(ws->fd, POLLIN, deadline) < 0)
            return nd_client_fail_timeout(c, st);
    }
}

/* ---- the handshake ---- */

/* Parses the status line and headers of ws->early[0, head). -1 when malformed. */
static int parse_head(const char *p, size_t head, struct nd_response *resp, struct nd_buf *phrase)
{
    const char *end = p + head;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        return -1;
    size_t n = (size_t)(eol - p);
    if (n && p[n - 1] == '\r')
        n--;
    if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ')
        return -1;
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        code = code * 10 + (p[i] - '0');
    }
    resp->code = code;
    if (n > 13)
        nd_buf_add(phrase, p + 13, n - 13);
    for (p = eol + 1; p < end;) {
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            break;
        n = (size_t)(eol - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n == 0)
            break;
        const char *colon = memchr(p, ':', n);
        if (!colon || nd_response_add_header(resp, p, (size_t)(colon - p), colon + 1,
                                             n - (size_t)(colon + 1 - p)) < 0)
            return -1;
        p = eol + 1;
    }
    return 0;
}

/* A chunked body in p[0, n): 1 complete (decoded into out), 0 more needed, -1 bad. */
static int dechunk(const char *p, size_t n, struct nd_buf *out)
{
    size_t i = 0;
    nd_buf_reset(out);
    for (;;) {
        const char *eol = memchr(p + i, '\n', n - i);
        if (!eol)
            return 0;
        size_t size = 0;
        size_t j = i;
        for (; p[j] != '\n' && p[j] != '\r' && p[j] != ';'; j++) {
            int d = p[j] >= '0' && p[j] <= '9'   ? p[j] - '0'
                    : p[j] >= 'a' && p[j] <= 'f' ? p[j] - 'a' + 10
                    : p[j] >= 'A' && p[j] <= 'F' ? p[j] - 'A' + 10
                                                 : -1;
            if (d < 0 || size > ERROR_MAX)
                return -1;
            size = size * 16 + (size_t)d;
        }
        if (j == i)
            return -1;
        i = (size_t)(eol - p) + 1;
        if (size == 0)
            return 1; /* trailers are not needed */
        if (n - i < size + 2)
            return 0;
        nd_buf_add(out, p + i, size);
        i += size + 2;
    }
}

/* Reads a refusal's body (Content-Length, chunked or up to the close) into resp. */
static int read_body(struct nd_client *c, struct nd_ws *ws, size_t head, int64_t deadline,
                     struct nd_response *resp, struct nd_status *st)
{
    const char *te = nd_response_header(resp, "transfer-encoding");
    const char *cl = nd_response_header(resp, "content-length");
    bool chunked = te && nd_http_has_token(te, "chunked");
    size_t want = cl && !chunked ? (size_t)strtoull(cl, NULL, 10) : SIZE_MAX;
    if (want > ERROR_MAX)
        want = ERROR_MAX;
    for (;;) {
        size_t have = ws->early.len - head;
        if (chunked) {
            int r = dechunk(ws->early.data + head, have, &resp->body);
            if (r < 0)
                return nd_client_fail_malformed(st, "a bad chunk in the answer");
            if (r > 0)
                return 0;
        } else if (have >= want) {
            nd_buf_add(&resp->body, ws->early.data + head, want);
            return 0;
        }
        if (have > ERROR_MAX)
            return nd_client_fail_malformed(st, "an answer longer than %d bytes", ERROR_MAX);
        int r = recv_more(c, ws, deadline, st);
        if (r < 0)
            return -1;
        if (r == 0) {
            if (!chunked && want != SIZE_MAX && have < want)
                return nd_client_fail_malformed(st, "the answer ended early");
            nd_buf_add(&resp->body, ws->early.data + head, have);
            return 0;
        }
    }
}

static void log_lines(const char *title, const char *lines)
{
    if (!nd_log_enabled(7))
        return;
    nd_log(7, "%s", title);
    for (const char *p = lines; *p;) {
        const char *eol = strstr(p, "\r\n");
        if (!eol || eol == p)
            break;
        char *line = nd_xstrndup(p, (size_t)(eol - p));
        char *safe = nd_log_redact_header(line);
        nd_log(7, "    %s", safe);
        free(safe);
        free(line);
        p = eol + 2;
    }
}

static int check_upgrade(struct nd_ws *ws, const struct nd_response *resp, const char *key,
                         const struct nd_ws_opts *o, struct nd_status *st)
{
    const char *up = nd_response_header(resp, "upgrade");
    const char *conn = nd_response_header(resp, "connection");
    const char *accept = nd_response_header(resp, "sec-websocket-accept");
    const char *proto = nd_response_header(resp, "sec-websocket-protocol");
    char want[29];
    nd_ws_accept(key, want);
    if (!up || strcasecmp(up, "websocket") != 0 || !conn || !nd_http_has_token(conn, "upgrade"))
        return nd_client_fail_malformed(st, "a 101 answer without Upgrade: websocket");
    if (!accept || strcmp(accept, want) != 0)
        return nd_client_fail_malformed(st, "Sec-WebSocket-Accept is \"%s\", not \"%s\"",
                                        accept ? accept : "", want);
    if (proto && *proto) {
        bool offered = false;
        for (const char *const *p = o->protocols; p && *p && !offered; p++)
            offered = strcmp(*p, proto) == 0;
        if (!offered)
            return nd_client_fail_malformed(st,
                                            "the server chose the subprotocol \"%s\", which "
                                            "was not offered",
                                            proto);
    }
    ws->protocol = nd_xstrdup(proto ? proto : "");
    return 0;
}

static int handshake(struct nd_client *c, struct nd_ws *ws, const struct nd_ws_opts *o,
                     const char *url, int64_t deadline, struct nd_status *st)
{
    unsigned char nonce[16];
    nd_random_bytes(nonce, sizeof nonce);
    struct nd_buf key = ND_BUF_INIT, req = ND_BUF_INIT, hdrs = ND_BUF_INIT, phrase = ND_BUF_INIT;
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = -1;
    nd_base64_encode(nonce, sizeof nonce, false, &key);
    nd_buf_addf(&hdrs, "User-Agent: %s\r\n", c->user_agent);
    if (c->token)
        nd_buf_addf(&hdrs, "Authorization: Bearer %s\r\n", c->token);
    nd_buf_addf(&hdrs,
                "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Key: %s\r\n",
                key.data);
    if (o->protocols && o->protocols[0]) {
        nd_buf_adds(&hdrs, "Sec-WebSocket-Protocol: ");
        for (const char *const *p = o->protocols; *p; p++)
            nd_buf_addf(&hdrs, "%s%s", p == o->protocols ? "" : ", ", *p);
        nd_buf_adds(&hdrs, "\r\n");
    }
    nd_buf_addf(&req, "GET %s%s HTTP/1.1\r\nHost: %s\r\n%s\r\n", c->url.prefix, o->path,
                c->url.authority, hdrs.data);
    log_lines("Request Headers:", hdrs.data);
    nd_log(9,
           "curl -v -X GET -H 'Connection: Upgrade' -H 'Upgrade: websocket' "
           "-H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: %s' '%s'",
           key.data, url);
    int64_t t0 = nd_client_now_ms();
    if (send_all(c, ws, req.data, req.len, deadline, st) < 0)
        goto out;
    size_t head = 0;
    for (;;) {
        char *end = ws->early.len ? strstr(ws->early.data, "\r\n\r\n") : NULL;
        if (end) {
            head = (size_t)(end - ws->early.data) + 4;
            break;
        }
        if (ws->early.len > HEAD_MAX) {
            nd_client_fail_malformed(st, "headers longer than %d bytes", HEAD_MAX);
            goto out;
        }
        int r = recv_more(c, ws, deadline, st);
        if (r < 0)
            goto out;
        if (r == 0) {
            nd_status_set(st, "Unreachable", "Retry; if it persists, look at the server's logs.",
                          "the server %s closed the connection before answering (EOF)",
                          c->url.hostport);
            goto out;
        }
    }
    if (parse_head(ws->early.data, head, &resp, &phrase) < 0) {
        nd_client_fail_malformed(st, "a bad status line or header in the upgrade answer");
        goto out;
    }
    nd_log(6, "GET %s %d %s in %lld milliseconds", url, resp.code, phrase.data,
           (long long)(nd_client_now_ms() - t0));
    if (nd_log_enabled(7)) {
        nd_log(7, "Response Headers:");
        const char *k;
        json_t *v;
        json_object_foreach(resp.headers, k, v) nd_log(7, "    %s: %s", k, json_string_value(v));
    }
    if (resp.code != 101) {
        if (read_body(c, ws, head, deadline, &resp, st) < 0)
            goto out;
        if (resp.body.len)
            nd_log(8, "Response Body: %.*s", (int)(resp.body.len > 10240 ? 10240 : resp.body.len),
                   resp.body.data);
        nd_response_status(&resp, st);
        goto out;
    }
    if (check_upgrade(ws, &resp, key.data, o, st) < 0)
        goto out;
    ws->early_pos = head; /* frames that came along with the answer */
    rc = 0;
out:
    nd_response_release(&resp);
    nd_buf_release(&key);
    nd_buf_release(&req);
    nd_buf_release(&hdrs);
    nd_buf_release(&phrase);
    return rc;
}

/* ---- wslay callbacks ---- */

bool nd_ws_io_failed(struct wslay_event_context *ctx, ssize_t n)
{
    int saved = errno;
    bool over = !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    wslay_event_set_error(ctx, over ? WSLAY_ERR_CALLBACK_FAILURE : WSLAY_ERR_WOULDBLOCK);
    errno = saved;
    return over;
}

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *user)
{
    (void)flags;
    struct nd_ws *ws = user;
    if (ws->early_pos < ws->early.len) {
        size_t n = ws->early.len - ws->early_pos;
        if (n > len)
            n = len;
        memcpy(buf, ws->early.data + ws->early_pos, n);
        ws->early_pos += n;
        return (ssize_t)n;
    }
    for (;;) {
        ssize_t n = raw_recv(ws, buf, len);
        if (n > 0)
            return n;
        if (n < 0 && errno == EINTR)
            continue;
        if (nd_ws_io_failed(ctx, n)) {
            if (n == 0)
                ws->eof = true;
            else
                ws->err = errno;
        }
        return -1;
    }
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    struct nd_ws *ws = user;
    for (;;) {
        ssize_t n = raw_send(ws, data, len, (flags & WSLAY_MSG_MORE) != 0);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (nd_ws_io_failed(ctx, n))
            ws->err = errno;
        return -1;
    }
}

static int on_genmask(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *user)
{
    (void)ctx;
    struct nd_ws *ws = user;
    for (size_t i = 0; i < len; i++) {
        if (ws->mask_pos == 0 || ws->mask_pos >= sizeof ws->mask) {
            nd_random_bytes(ws->mask, sizeof ws->mask);
            ws->mask_pos = 0;
        }
        buf[i] = ws->mask[ws->mask_pos++];
    }
    return 0;
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *user)
{
    (void)ctx;
    struct nd_ws *ws = user;
    if (arg->opcode != WSLAY_BINARY_FRAME && arg->opcode != WSLAY_TEXT_FRAME)
        return;
    if (ws->stopped || !ws->fn)
        return;
    if (ws->fn(ws->cls, arg->opcode == WSLAY_BINARY_FRAME, arg->msg, arg->msg_length))
        ws->stopped = true;
}

/* ---- the API ---- */

int nd_ws_connect(struct nd_client *c, const struct nd_ws_opts *o, struct nd_ws **out,
                  struct nd_status *st)
{
    *out = NULL;
    struct nd_ws *ws = nd_xcalloc(1, sizeof *ws);
    ws->fd = -1;
    nd_buf_init(&ws->early, 0);
    char *url = nd_xasprintf("%s%s%s", c->url.origin, c->url.prefix, o->path);
    int64_t deadline = c->timeout_ms ? nd_client_now_ms() + c->timeout_ms : 0;
    int rc = c->url.tls ? nd_curl_raw_open(c, url, deadline, &ws->tls, &ws->fd, st)
                        : nd_plain_dial(c, deadline, &ws->fd, st);
    if (rc == 0)
        rc = handshake(c, ws, o, url, deadline, st);
    if (rc == 0) {
        struct wslay_event_callbacks cb = {on_recv, on_send, on_genmask, NULL, NULL, NULL, on_msg};
        if (wslay_event_context_client_init(&ws->ctx, &cb, ws) != 0) {
            ws->ctx = NULL;
            rc = nd_status_set(st, "InternalError", NULL, "out of memory (wslay)");
        } else {
            /* wslay holds a message whole: one past a stream's line limit (16 MiB) is
             * refused with close code 1009 instead of growing to 2 GiB */
            wslay_event_config_set_max_recv_msg_length(ws->ctx, c->max_line);
        }
    }
    if (rc < 0) {
        if (!nd_status_failed(st))
            nd_status_set(st, "Unreachable", NULL, "cannot open a WebSocket to %s", url);
        nd_ws_free(ws);
        ws = NULL;
    }
    free(url);
    *out = ws;
    return rc;
}

void nd_ws_free(struct nd_ws *ws)
{
    if (!ws)
        return;
    if (ws->ctx)
        wslay_event_context_free(ws->ctx);
    if (ws->tls)
        nd_curl_raw_close(ws->tls);
    else if (ws->fd >= 0)
        close(ws->fd);
    nd_buf_release(&ws->early);
    free(ws->protocol);
    free(ws);
}

const char *nd_ws_protocol(const struct nd_ws *ws)
{
    return ws->protocol ? ws->protocol : "";
}

int nd_ws_fd(const struct nd_ws *ws)
{
    return ws->fd;
}

bool nd_ws_want_write(const struct nd_ws *ws)
{
    return wslay_event_want_write(ws->ctx) != 0;
}

size_t nd_ws_queued(const struct nd_ws *ws)
{
    return wslay_event_get_queued_msg_length(ws->ctx);
}

int nd_ws_send(struct nd_ws *ws, unsigned char channel, const void *data, size_t n)
{
    unsigned char *msg = nd_xmalloc(n + 1);
    msg[0] = channel;
    if (n)
        memcpy(msg + 1, data, n);
    struct wslay_event_msg m = {WSLAY_BINARY_FRAME, msg, n + 1};
    int r = wslay_event_queue_msg(ws->ctx, &m); /* copies */
    free(msg);
    return r == 0 ? 0 : -1;
}

void nd_ws_close(struct nd_ws *ws)
{
    if (!wslay_event_get_close_sent(ws->ctx))
        wslay_event_queue_close(ws->ctx, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
}

bool nd_ws_closed_cleanly(const struct nd_ws *ws, int *code)
{
    bool got = wslay_event_get_close_received(ws->ctx) != 0;
    if (code)
        *code = got ? wslay_event_get_status_code_received(ws->ctx) : 0;
    return got;
}

static int io_failed(struct nd_ws *ws, int r, struct nd_status *st)
{
    if (ws->eof)
        return 1; /* the server went away: over */
    if (r == WSLAY_ERR_PROTO)
        return nd_client_fail_malformed(st, "a WebSocket frame broke the protocol");
    if (r == WSLAY_ERR_NOMEM)
        return nd_status_set(st, "InternalError", NULL, "out of memory (wslay)");
    return nd_status_set(st, "Unreachable", "Retry; if it persists, look at the server's logs.",
                         "the WebSocket connection failed: %s",
                         strerror(ws->err ? ws->err : EPIPE));
}

int nd_ws_pump(struct nd_ws *ws, nd_ws_msg_fn fn, void *cls, struct nd_status *st)
{
    ws->fn = fn;
    ws->cls = cls;
    /* what the caller queued goes first: a close received next would discard it */
    if (wslay_event_want_write(ws->ctx)) {
        int r = wslay_event_send(ws->ctx);
        if (r != 0)
            return io_failed(ws, r, st);
    }
    if (wslay_event_want_read(ws->ctx)) {
        int r = wslay_event_recv(ws->ctx);
        if (ws->stopped)
            return -1;
        if (r != 0)
            return io_failed(ws, r, st);
    }
    if (wslay_event_want_write(ws->ctx)) {
        int r = wslay_event_send(ws->ctx);
        if (r != 0)
            return io_failed(ws, r, st);
    }
    if (!wslay_event_want_read(ws->ctx) && !wslay_event_want_write(ws->ctx))
        return 1;
    return 0;
}
