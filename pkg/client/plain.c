/* plain.c: HTTP/1.1 over a TCP socket, for http:// servers.
 *
 * One kept-alive connection per client. The socket is non-blocking and every wait is a
 * poll() bounded by the request's deadline (none: a stream may last for hours), except
 * connect, which gives up after 30 s as Go's dialer does. The request goes out in one
 * sendmsg() (head and body as two pieces); the answer is read through a 16 KiB buffer
 * and handed to the sink piece by piece, so a stream is never held whole.
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client/internal.h"
#include "util/header.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define CONNECT_MAX_MS 30000

struct nd_plain {
    int fd;                       /* -1: no connection */
    struct sockaddr_storage addr; /* the address that answered last (skips DNS next time) */
    socklen_t addrlen;            /* 0: resolve */
    size_t pos, len;              /* unread bytes are buf[pos, len) */
    char buf[16384];
};

enum { IO_OK, IO_EOF, IO_TIMEOUT, IO_ERROR, IO_IDLE };

void nd_plain_free(struct nd_plain *p)
{
    if (!p)
        return;
    if (p->fd >= 0)
        close(p->fd);
    free(p);
}

static void drop(struct nd_plain *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->pos = p->len = 0;
}

/* Waits for ev on fd until deadline (0: forever). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int ms = -1;
        if (deadline) {
            int64_t left = deadline - nd_client_now_ms();
            ms = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
        }
        /* even past the deadline, an event that is already there counts */
        struct pollfd pf = {fd, ev, 0};
        int n = poll(&pf, 1, ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return IO_ERROR;
        if (n > 0)
            return IO_OK;
        if (deadline && nd_client_now_ms() >= deadline)
            return IO_TIMEOUT;
    }
}

/* Go's wording of an errno: the C text with a lower-case first letter. */
static void err_text(int err, char *out, size_t n)
{
    snprintf(out, n, "%s", strerror(err));
    if (out[0] >= 'A' && out[0] <= 'Z')
        out[0] = (char)(out[0] - 'A' + 'a');
}

static int io_fail(struct nd_client *c, struct nd_exchange *x, int r, int err, const char *op,
                   struct nd_status *st)
{
    char why[128];
    if (r == IO_TIMEOUT)
        return nd_client_fail_timeout(c, st);
    if (r == IO_IDLE)
        return nd_client_fail_idle(x, st);
    if (r == IO_EOF)
        return nd_client_fail_closed(c, x, "EOF", st);
    err_text(err, why, sizeof why);
    if (err == ECONNRESET || err == EPIPE)
        return nd_client_fail_closed(c, x, why, st);
    char msg[192];
    snprintf(msg, sizeof msg, "%s: %s", op, why);
    return nd_client_fail_connect(c, msg, st);
}

/* ---- connecting ---- */

static int try_connect(const struct sockaddr *sa, socklen_t salen, int64_t deadline, int *fd_out,
                       int *err)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *err = errno;
        return IO_ERROR;
    }
    int r = IO_OK;
    if (connect(fd, sa, salen) < 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            *err = errno;
            close(fd);
            return IO_ERROR;
        }
        r = wait_fd(fd, POLLOUT, deadline);
        if (r == IO_OK) {
            int e = 0;
            socklen_t elen = sizeof e;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
                e = errno;
            if (e) {
                *err = e;
                r = IO_ERROR;
            }
        } else if (r == IO_ERROR) {
            *err = errno;
        }
    }
    if (r != IO_OK) {
        close(fd);
        return r;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *fd_out = fd;
    return IO_OK;
}

static int plain_connect(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                         struct nd_status *st)
{
    int64_t deadline = nd_client_now_ms() + CONNECT_MAX_MS;
    if (x->deadline && x->deadline < deadline)
        deadline = x->deadline;
    int err = 0, r = IO_ERROR, fd = -1;

    if (p->addrlen) {
        r = try_connect((struct sockaddr *)&p->addr, p->addrlen, deadline, &fd, &err);
        if (r != IO_OK)
            p->addrlen = 0; /* resolve again next time */
    } else {
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        char port[8];
        snprintf(port, sizeof port, "%d", c->url.port);
        int g = getaddrinfo(c->url.host, port, &hints, &res);
        if (g != 0) {
            char why[128];
            if (g == EAI_NONAME)
                snprintf(why, sizeof why, "no such host");
            else if (g == EAI_SYSTEM)
                err_text(errno, why, sizeof why);
            else
                snprintf(why, sizeof why, "%s", gai_strerror(g));
            return nd_client_fail_dns(c, why, st);
        }
        /* every address in turn ("localhost" is ::1 then 127.0.0.1) */
        for (struct addrinfo *a = res; a; a = a->ai_next) {
            r = try_connect(a->ai_addr, a->ai_addrlen, deadline, &fd, &err);
            if (r == IO_OK && a->ai_addrlen <= sizeof p->addr) {
                memcpy(&p->addr, a->ai_addr, a->ai_addrlen);
                p->addrlen = a->ai_addrlen;
            }
            if (r == IO_OK || r == IO_TIMEOUT)
                break;
        }
        freeaddrinfo(res);
    }
    if (r == IO_OK) {
        p->fd = fd;
        p->pos = p->len = 0;
        return 0;
    }
    if (r == IO_TIMEOUT) {
        if (x->deadline && nd_client_now_ms() >= x->deadline)
            return nd_client_fail_timeout(c, st);
        return nd_client_fail_connect(c, "i/o timeout", st);
    }
    if (err == ECONNREFUSED)
        return nd_client_fail_refused(c, x, st);
    char why[128], msg[160];
    err_text(err, why, sizeof why);
    snprintf(msg, sizeof msg, "connect: %s", why);
    return nd_client_fail_connect(c, msg, st);
}

/* ---- writing ---- */

static int send_request(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                        const struct nd_buf *head, struct nd_status *st)
{
    struct iovec iov[2] = {{head->data, head->len}, {(void *)x->body, x->body ? x->body_len : 0}};
    int niov = iov[1].iov_len ? 2 : 1;
    struct iovec *v = iov;
    while (niov) {
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = v;
        m.msg_iovlen = (size_t)niov;
        ssize_t n = sendmsg(p->fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                int r = wait_fd(p->fd, POLLOUT, x->deadline);
                if (r != IO_OK)
                    return io_fail(c, x, r, errno, "write", st);
                continue;
            }
            return io_fail(c, x, IO_ERROR, errno, "write", st);
        }
        size_t done = (size_t)n;
        while (niov && done >= v->iov_len) {
            done -= v->iov_len;
            v++;
            niov--;
        }
        if (niov) {
            v->iov_base = (char *)v->iov_base + done;
            v->iov_len -= done;
        }
    }
    return 0;
}

/* ---- reading ---- */

/* Reads more bytes into the buffer (after moving the unread ones to its start). */
static int fill(struct nd_plain *p, struct nd_exchange *x, int *err)
{
    if (p->pos) {
        memmove(p->buf, p->buf + p->pos, p->len - p->pos);
        p->len -= p->pos;
        p->pos = 0;
    }
    for (;;) {
        ssize_t n = recv(p->fd, p->buf + p->len, sizeof p->buf - p->len, 0);
        if (n > 0) {
            p->len += (size_t)n;
            x->got_answer = true;
            return IO_OK;
        }
        if (n == 0)
            return IO_EOF;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            *err = errno;
            return IO_ERROR;
        }
        /* no byte for idle_ms (when that comes before the deadline) is an error too */
        int64_t until = x->deadline, idle_at = 0;
        if (x->idle_ms) {
            idle_at = nd_client_now_ms() + x->idle_ms;
            if (!until || idle_at < until)
                until = idle_at;
            else
                idle_at = 0;
        }
        int r = wait_fd(p->fd, POLLIN, until);
        if (r == IO_TIMEOUT && idle_at)
            r = IO_IDLE;
        if (r != IO_OK) {
            *err = errno;
            return r;
        }
    }
}

/* The next line without its CRLF (or LF); valid until the next read. */
static int read_line(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                     const char *what, const char **line, size_t *n, struct nd_status *st)
{
    for (;;) {
        char *start = p->buf + p->pos;
        char *nl = memchr(start, '\n', p->len - p->pos);
        if (nl) {
            *line = start;
            *n = (size_t)(nl - start);
            if (*n && start[*n - 1] == '\r')
                (*n)--;
            p->pos = (size_t)(nl + 1 - p->buf);
            return 0;
        }
        if (p->pos == 0 && p->len == sizeof p->buf)
            return nd_client_fail_malformed(st, "%s longer than %zu bytes", what, sizeof p->buf);
        int err = 0, r = fill(p, x, &err);
        if (r != IO_OK)
            return io_fail(c, x, r, err, "read", st);
    }
}

/* Text of a bad line for a message: printable ASCII, cut at 60 bytes. */
static void quote(char *out, size_t outn, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 60 && o + 5 < outn; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= ' ' && ch < 0x7f && ch != '"' && ch != '\\')
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, outn - o, "\\x%02x", ch);
    }
    if (n > 60 && o + 4 < outn)
        o += (size_t)snprintf(out + o, outn - o, "...");
    out[o] = '\0';
}

/* "HTTP/1.1 200 OK": the code, minor version and reason phrase. */
static int parse_status(const char *s, size_t n, int *code, int *minor, struct nd_buf *phrase)
{
    if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1') || s[8] != ' ')
        return -1;
    for (int i = 9; i < 12; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    if (n > 12 && s[12] != ' ')
        return -1;
    *minor = s[7] - '0';
    *code = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
    if (*code < 100)
        return -1;
    nd_buf_reset(phrase);
    if (n > 13)
        nd_buf_add(phrase, s + 13, n - 13);
    return 0;
}

/* Content-Length: digits; a repeated header must repeat the same value. */
static int parse_length(const char *v, uint64_t *out)
{
    bool any = false;
    uint64_t first = 0;
    for (const char *p = v;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        uint64_t n = 0;
        const char *d = p;
        while (*p >= '0' && *p <= '9') {
            if (n > (UINT64_MAX - 9) / 10)
                return -1;
            n = n * 10 + (uint64_t)(*p++ - '0');
        }
        if (p == d)
            return -1;
        while (*p == ' ' || *p == '\t')
            p++;
        if (any && n != first)
            return -1;
        first = n;
        any = true;
        if (!*p)
            break;
        if (*p++ != ',')
            return -1;
    }
    *out = first;
    return 0;
}

static int deliver(struct nd_exchange *x, const char *d, size_t n)
{
    if (n && x->on_data(x, d, n)) {
        x->stopped = true;
        return 1;
    }
    return 0;
}

/* Passes n body bytes to the sink: 0 done, 1 stopped, -1 error. */
static int read_exact(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x, uint64_t n,
                      struct nd_status *st)
{
    while (n) {
        if (p->pos == p->len) {
            p->pos = p->len = 0;
            int err = 0, r = fill(p, x, &err);
            if (r != IO_OK)
                return io_fail(c, x, r, err, "read", st);
        }
        size_t avail = p->len - p->pos;
        if (avail > n)
            avail = (size_t)n;
        const char *d = p->buf + p->pos;
        p->pos += avail;
        n -= avail;
        if (deliver(x, d, avail))
            return 1;
    }
    return 0;
}

static int read_chunked(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                        struct nd_status *st)
{
    for (;;) {
        const char *l;
        size_t n;
        char q[320];
        if (read_line(c, p, x, "a chunk size line", &l, &n, st) < 0)
            return -1;
        uint64_t size = 0;
        size_t i = 0;
        for (; i < n; i++) {
            int d;
            char ch = l[i];
            if (ch >= '0' && ch <= '9')
                d = ch - '0';
            else if (ch >= 'a' && ch <= 'f')
                d = ch - 'a' + 10;
            else if (ch >= 'A' && ch <= 'F')
                d = ch - 'A' + 10;
            else
                break;
            if (size >> 56)
                break; /* too large: reported below */
            size = size * 16 + (uint64_t)d;
        }
        if (i == 0 || (i < n && l[i] != ';' && l[i] != ' ' && l[i] != '\t') || (size >> 56)) {
            quote(q, sizeof q, l, n);
            return nd_client_fail_malformed(st, "bad chunk size \"%s\"", q);
        }
        if (size == 0)
            break;
        int r = read_exact(c, p, x, size, st);
        if (r)
            return r;
        if (read_line(c, p, x, "a chunk end", &l, &n, st) < 0)
            return -1;
        if (n) {
            quote(q, sizeof q, l, n);
            return nd_client_fail_malformed(st, "a chunk is longer than its size (\"%s\")", q);
        }
    }
    for (;;) { /* trailers, up to the empty line */
        const char *l;
        size_t n;
        if (read_line(c, p, x, "a trailer line", &l, &n, st) < 0)
            return -1;
        if (n == 0)
            return 0;
    }
}

static int read_until_close(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                            struct nd_status *st)
{
    for (;;) {
        if (deliver(x, p->buf + p->pos, p->len - p->pos))
            return 1;
        p->pos = p->len = 0;
        int err = 0, r = fill(p, x, &err);
        if (r == IO_EOF)
            return 0;
        if (r != IO_OK)
            return io_fail(c, x, r, err, "read", st);
    }
}

/* Reads the status line and headers, skipping 1xx answers (with interim set, a 100
 * Continue is returned: *interim = 100). */
static int read_head(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x, int *minor,
                     int *interim, struct nd_status *st)
{
    struct nd_response *resp = x->resp;
    for (;;) {
        const char *l;
        size_t n, total = 0;
        char q[320];
        if (read_line(c, p, x, "the status line", &l, &n, st) < 0)
            return -1;
        if (parse_status(l, n, &resp->code, minor, &x->phrase) < 0) {
            quote(q, sizeof q, l, n);
            return nd_client_fail_malformed(st, "bad status line \"%s\"", q);
        }
        json_decref(resp->headers);
        resp->headers = NULL;
        for (;;) {
            if (read_line(c, p, x, "a header line", &l, &n, st) < 0)
                return -1;
            if (n == 0)
                break;
            total += n + 2;
            if (total > x->max_head)
                return nd_client_fail_too_large("the header block", x->max_head, st);
            const char *colon = memchr(l, ':', n);
            if (!colon || nd_response_add_header(resp, l, (size_t)(colon - l), colon + 1,
                                                 n - (size_t)(colon + 1 - l)) < 0) {
                quote(q, sizeof q, l, n);
                return nd_client_fail_malformed(st, "bad header line \"%s\"", q);
            }
        }
        if (resp->code >= 200 || resp->code == 101)
            return 0;
        if (interim && resp->code == 100) {
            *interim = 100;
            return 0;
        }
    }
}

static int read_answer(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                       bool head_read, int minor, struct nd_status *st)
{
    struct nd_response *resp = x->resp;
    if (!head_read && read_head(c, p, x, &minor, NULL, st) < 0)
        return -1;

    const char *conn = nd_response_header(resp, "connection");
    bool keep =
        minor == 1 ? !nd_http_has_token(conn, "close") : nd_http_has_token(conn, "keep-alive");
    enum { NONE, LENGTH, CHUNKED, TO_CLOSE } framing = TO_CLOSE;
    uint64_t length = 0;
    const char *te = nd_response_header(resp, "transfer-encoding");
    const char *cl = nd_response_header(resp, "content-length");
    if (strcmp(x->method, "HEAD") == 0 || resp->code == 204 || resp->code == 304) {
        framing = NONE;
    } else if (te) {
        /* chunked must be the last coding; anything else runs to the close */
        const char *last = strrchr(te, ',');
        framing = nd_http_has_token(last ? last + 1 : te, "chunked") ? CHUNKED : TO_CLOSE;
    } else if (cl) {
        if (parse_length(cl, &length) < 0) {
            char q[320];
            quote(q, sizeof q, cl, strlen(cl));
            return nd_client_fail_malformed(st, "bad Content-Length \"%s\"", q);
        }
        framing = LENGTH;
    }
    if (framing == TO_CLOSE)
        keep = false;

    int r = 0;
    x->head_done = true;
    x->head_wall_ms = nd_time_now_ms();
    if (x->on_head && x->on_head(x)) {
        x->stopped = true;
        r = framing == NONE ? 0 : 1;
    } else if (framing == LENGTH) {
        r = read_exact(c, p, x, length, st);
    } else if (framing == CHUNKED) {
        r = read_chunked(c, p, x, st);
    } else if (framing == TO_CLOSE) {
        r = read_until_close(c, p, x, st);
    }
    /* an unfinished answer, extra bytes, or "close": the connection cannot carry another */
    if (r != 0 || !keep || p->pos != p->len)
        drop(p);
    else
        p->pos = p->len = 0;
    return r < 0 ? -1 : 0;
}

/* ---- a streamed body ---- */

#define PIECE (64 * 1024)
#define CONTINUE_WAIT_MS 1000 /* a server that never says 100 Continue gets the body */

enum { SENT, SPOKE, SEND_FAILED };

/* Sends n bytes; stops early (SPOKE) when the server starts answering meanwhile. */
static int send_piece(struct nd_plain *p, struct nd_exchange *x, const char *d, size_t n,
                      int *err)
{
    while (n) {
        struct pollfd pf = {p->fd, POLLIN, 0};
        if (poll(&pf, 1, 0) > 0)
            return SPOKE; /* an early answer (or the server closing): read it */
        ssize_t k = send(p->fd, d, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd w = {p->fd, POLLOUT | POLLIN, 0};
            int ms = -1;
            if (x->deadline) {
                int64_t left = x->deadline - nd_client_now_ms();
                ms = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
            }
            int r = poll(&w, 1, ms);
            if (r == 0) {
                *err = ETIMEDOUT;
                return SEND_FAILED;
            }
            if (r > 0 && (w.revents & POLLIN))
                return SPOKE;
            continue;
        }
        if (k < 0) {
            *err = errno;
            return SEND_FAILED;
        }
        d += k;
        n -= (size_t)k;
    }
    return SENT;
}

/* Sends the body in chunks as body_read makes it. *complete: all of it went. */
static int send_stream(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                       bool *complete, struct nd_status *st)
{
    char *buf = nd_xmalloc(PIECE + 32);
    int rc = 0;
    *complete = false;
    for (;;) {
        x->body_started = true;
        ssize_t n = x->body_read(x->body_cls, buf + 16, PIECE, &x->body_st);
        if (n < 0) {
            x->body_failed = true;
            rc = -1;
            break;
        }
        /* "SIZE\r\n" before the piece, "\r\n" after; the last chunk is "0\r\n\r\n" */
        char head[16];
        int hl = snprintf(head, sizeof head, "%zx\r\n", (size_t)n);
        char *start = buf + 16 - hl;
        memcpy(start, head, (size_t)hl);
        size_t len = (size_t)hl + (size_t)n;
        memcpy(start + len, "\r\n", 2);
        len += 2;
        int err = 0;
        int r = send_piece(p, x, start, len, &err);
        if (r == SPOKE)
            break; /* the answer is read next */
        if (r == SEND_FAILED) {
            if (err == EPIPE || err == ECONNRESET) {
                break; /* the server may have answered before closing: read it */
            }
            if (err == ETIMEDOUT)
                rc = nd_client_fail_timeout(c, st);
            else
                rc = io_fail(c, x, IO_ERROR, err, "write", st);
            break;
        }
        if (n == 0) {
            *complete = true;
            break;
        }
    }
    free(buf);
    return rc;
}

/* After the head of a request with a streamed body: waits for 100 Continue (or a final
 * answer: the server refused at once), sends the body, reads the answer. */
static int exchange_stream(struct nd_client *c, struct nd_plain *p, struct nd_exchange *x,
                           struct nd_status *st)
{
    int64_t until = nd_client_now_ms() + CONTINUE_WAIT_MS;
    if (x->deadline && x->deadline < until)
        until = x->deadline;
    int minor = 1, interim = 0;
    bool head_read = false;
    if (wait_fd(p->fd, POLLIN, until) == IO_OK) {
        if (read_head(c, p, x, &minor, &interim, st) < 0)
            return -1;
        head_read = interim != 100;
    }
    bool complete = false; /* refused at once: the body never went */
    if (!head_read && send_stream(c, p, x, &complete, st) < 0)
        return -1;
    int rc = read_answer(c, p, x, head_read, minor, st);
    if (rc == 0 && !complete)
        drop(p); /* the body was cut short: the connection cannot carry another request */
    if (rc < 0 && x->body_started && !x->got_answer) {
        /* the server dropped the connection during the upload without a word */
        x->retryable = false;
    }
    return rc;
}

/* A kept-alive connection that became readable while idle was closed by the server (or
 * holds bytes nobody asked for): either way it cannot carry a request. */
static bool idle_closed(int fd)
{
    struct pollfd pf = {fd, POLLIN, 0};
    return poll(&pf, 1, 0) != 0;
}

int nd_plain_exchange(struct nd_client *c, struct nd_exchange *x, struct nd_status *st)
{
    if (!c->plain) {
        c->plain = nd_xcalloc(1, sizeof *c->plain);
        c->plain->fd = -1;
    }
    struct nd_plain *p = c->plain;
    struct nd_buf head = ND_BUF_INIT;
    nd_buf_addf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n%s", x->method, x->target, c->url.authority,
                x->headers);
    if (x->body_read)
        nd_buf_adds(&head, "Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n");
    else if (x->body)
        nd_buf_addf(&head, "Content-Length: %zu\r\n", x->body_len);
    nd_buf_adds(&head, "\r\n");

    int rc = -1;
    /* A request on a kept-alive connection that the server closed meanwhile is sent
     * again on a new one, once, without counting as an attempt. */
    for (int pass = 0; pass < 2; pass++) {
        bool reused = p->fd >= 0;
        if (reused && idle_closed(p->fd)) {
            drop(p);
            reused = false;
        }
        if (p->fd < 0 && plain_connect(c, p, x, st) < 0)
            break;
        x->got_answer = x->retryable = false;
        rc = send_request(c, p, x, &head, st);
        if (rc == 0)
            rc = x->body_read ? exchange_stream(c, p, x, st) : read_answer(c, p, x, false, 1, st);
        if (rc < 0)
            drop(p);
        if (rc == 0 || !reused || !x->retryable || x->got_answer || x->body_started)
            break;
    }
    nd_buf_release(&head);
    return rc;
}

int nd_plain_dial(struct nd_client *c, int64_t deadline, int *fd, struct nd_status *st)
{
    struct nd_plain *p = nd_xcalloc(1, sizeof *p);
    p->fd = -1;
    struct nd_exchange x = {0};
    x.deadline = deadline;
    int rc = plain_connect(c, p, &x, st);
    *fd = p->fd;
    free(p);
    return rc;
}
