#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xmalloc.h"

char nd_buf_empty[1];

void nd_buf_init(struct nd_buf *b, size_t max)
{
    b->data = nd_buf_empty;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    b->overflow = false;
}

void nd_buf_release(struct nd_buf *b)
{
    if (b->cap)
        free(b->data);
    nd_buf_init(b, b->max);
}

void nd_buf_reset(struct nd_buf *b)
{
    b->len = 0;
    b->overflow = false;
    if (b->cap)
        b->data[0] = '\0';
}

int nd_buf_grow(struct nd_buf *b, size_t n)
{
    if (n > (size_t)-1 / 2 - b->len || (b->max && b->len + n > b->max)) {
        b->overflow = true;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    if (b->cap) {
        b->data = nd_xrealloc(b->data, cap);
    } else {
        b->data = nd_xmalloc(cap);
        b->data[0] = '\0';
    }
    b->cap = cap;
    return 0;
}

int nd_buf_add(struct nd_buf *b, const void *p, size_t n)
{
    if (nd_buf_grow(b, n) < 0)
        return -1;
    if (n == 0)
        return 0;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int nd_buf_adds(struct nd_buf *b, const char *s)
{
    return nd_buf_add(b, s, strlen(s));
}

int nd_buf_addch(struct nd_buf *b, char c)
{
    return nd_buf_add(b, &c, 1);
}

int nd_buf_vaddf(struct nd_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || nd_buf_grow(b, (size_t)n) < 0)
        return -1;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int nd_buf_addf(struct nd_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = nd_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int nd_buf_add_urlencoded(struct nd_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int rc;
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            rc = nd_buf_addch(b, (char)*p);
        } else {
            char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            rc = nd_buf_add(b, enc, 3);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

void nd_buf_truncate(struct nd_buf *b, size_t len)
{
    if (len >= b->len)
        return;
    b->len = len;
    b->data[len] = '\0';
}

char *nd_buf_detach(struct nd_buf *b)
{
    char *s = b->cap ? b->data : nd_xstrdup("");
    size_t max = b->max;
    nd_buf_init(b, max);
    return s;
}

size_t nd_buf_take(struct nd_buf *b, size_t *taken, void *out, size_t max)
{
    if (*taken >= b->len)
        return 0;
    size_t left = b->len - *taken;
    size_t n = left < max ? left : max;
    memcpy(out, b->data + *taken, n);
    *taken += n;
    if (*taken == b->len) {
        nd_buf_reset(b);
        *taken = 0;
    }
    return n;
}

int nd_buf_read_fd(struct nd_buf *b, int fd)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (nd_buf_add(b, chunk, (size_t)n) < 0) {
            errno = EFBIG;
            return -1;
        }
    }
}

int nd_buf_read_file(struct nd_buf *b, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = nd_buf_read_fd(b, fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}
