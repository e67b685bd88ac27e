/* A minimal HTTP/1.1 client for the bench tools (see httpc.h). */
#include "httpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double hc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int hc_connect(struct hc_conn *c, int port)
{
    c->port = port;
    c->len = 0;
    if (!c->buf) {
        c->cap = 1 << 16;
        c->buf = malloc(c->cap);
        if (!c->buf)
            return -1;
    }
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0)
        return -1;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    return 0;
}

void hc_close(struct hc_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->len = 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int hc_send(struct hc_conn *c, const char *method, const char *path, const char *body,
            size_t body_len)
{
    char head[2048];
    int n;
    if (body)
        n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: application/json\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                     method, path, c->port, body_len);
    else
        n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: application/json\r\n\r\n",
                     method, path, c->port);
    if (n < 0 || (size_t)n >= sizeof head)
        return -1;
    if (write_all(c->fd, head, (size_t)n) != 0)
        return -1;
    if (body && body_len && write_all(c->fd, body, body_len) != 0)
        return -1;
    return 0;
}

/* Reads more bytes into the buffer; 0 on EOF or error. */
static int fill(struct hc_conn *c)
{
    if (c->len + 4096 > c->cap) {
        size_t cap = c->cap * 2;
        char *b = realloc(c->buf, cap);
        if (!b)
            return 0;
        c->buf = b;
        c->cap = cap;
    }
    for (;;) {
        ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        c->len += (size_t)r;
        return 1;
    }
}

char *hc_find(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return (char *)hay + i;
    return NULL;
}

/* The value of header NAME in the header block [h, end), or NULL. */
static const char *header(const char *h, const char *end, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    const char *p = h;
    while (p < end) {
        const char *eol = hc_find(p, (size_t)(end - p), "\r\n");
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            *vlen = (size_t)(eol - v);
            return v;
        }
        p = eol + 2;
    }
    return NULL;
}

int hc_request(struct hc_conn *c, const char *method, const char *path, const char *body,
               size_t body_len, struct hc_resp *out)
{
    /* bytes past the previous response were consumed by it (no pipelining) */
    c->len = 0;
    if (hc_send(c, method, path, body, body_len) != 0)
        goto fail;
    char *eoh;
    while (!(eoh = hc_find(c->buf, c->len, "\r\n\r\n")))
        if (!fill(c))
            goto fail;
    if (c->len < 12 || strncmp(c->buf, "HTTP/1.", 7) != 0)
        goto fail;
    out->status = atoi(c->buf + 9);
    size_t hlen = (size_t)(eoh - c->buf) + 4;
    size_t vlen;
    const char *v = header(c->buf, eoh + 2, "Connection", &vlen);
    out->close = v && vlen >= 5 && strncasecmp(v, "close", 5) == 0;
    v = header(c->buf, eoh + 2, "Transfer-Encoding", &vlen);
    if (v && vlen >= 7 && strncasecmp(v, "chunked", 7) == 0) {
        /* de-chunk in place: body bytes are moved down to hlen */
        size_t rd = hlen, wr = hlen;
        for (;;) {
            char *eol;
            while (!(eol = hc_find(c->buf + rd, c->len - rd, "\r\n")))
                if (!fill(c))
                    goto fail;
            size_t sz = strtoul(c->buf + rd, NULL, 16);
            size_t at = (size_t)(eol - c->buf) + 2;
            while (c->len < at + sz + 2)
                if (!fill(c))
                    goto fail;
            memmove(c->buf + wr, c->buf + at, sz);
            wr += sz;
            rd = at + sz + 2;
            if (sz == 0)
                break;
        }
        out->body = c->buf + hlen;
        out->body_len = wr - hlen;
    } else {
        v = header(c->buf, eoh + 2, "Content-Length", &vlen);
        size_t cl = v ? strtoul(v, NULL, 10) : 0;
        while (c->len < hlen + cl)
            if (!fill(c))
                goto fail;
        out->body = c->buf + hlen;
        out->body_len = cl;
    }
    if (out->close)
        hc_close(c);
    return 0;
fail:
    hc_close(c);
    return -1;
}

void hc_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

char *hc_slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            char *nb = realloc(b, ncap);
            if (!nb) {
                err = ENOMEM;
                break;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                err = EIO;
            break;
        }
    }
    fclose(f);
    if (err) {
        free(b);
        errno = err;
        return NULL;
    }
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}
