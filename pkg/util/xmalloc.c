#include "util/xmalloc.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die_oom(size_t n)
{
    /* No allocation here: we are out of memory. */
    char msg[96];
    int len = snprintf(msg, sizeof msg, "fatal: out of memory (allocating %zu bytes)\n", n);
    if (len > 0)
        (void)!write(2, msg, (size_t)len);
    _exit(70);
}

void *nd_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_oom(n);
    return p;
}

void *nd_xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        die_oom(nmemb * size);
    return p;
}

void *nd_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die_oom(n);
    return q;
}

char *nd_xstrdup(const char *s)
{
    return nd_xstrndup(s, strlen(s));
}

char *nd_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = nd_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *nd_xasprintf(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return nd_xstrdup("");
    }
    char *p = nd_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void nd_xmalloc_install(void)
{
    json_set_alloc_funcs(nd_xmalloc, free);
}
