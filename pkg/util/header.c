#include "util/header.h"

#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "util/xmalloc.h"

const char *nd_http_list_next(const char **cursor, size_t *len)
{
    const char *p = *cursor;
    if (!p)
        return NULL;
    p += strspn(p, " \t,");
    size_t n = strcspn(p, ",");
    *cursor = p + n;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    *len = n;
    return n ? p : NULL;
}

bool nd_http_has_token(const char *list, const char *tok)
{
    size_t tl = strlen(tok), n;
    for (const char *p; (p = nd_http_list_next(&list, &n));)
        if (n == tl && strncasecmp(p, tok, tl) == 0)
            return true;
    return false;
}

/* One media range of an Accept value matches type: "a/b", "a/ *" or "* / *". */
static bool range_matches(const char *r, size_t n, const char *type)
{
    const char *slash = strchr(type, '/');
    size_t major = slash ? (size_t)(slash - type) : strlen(type);
    if (n == 3 && strncmp(r, "*/*", 3) == 0)
        return true;
    if (n == major + 2 && strncasecmp(r, type, major + 1) == 0 && r[major + 1] == '*')
        return true;
    return n == strlen(type) && strncasecmp(r, type, n) == 0;
}

/* Whether an Accept element's parameters say q=0 (refused). */
static bool q_zero(const char *params, size_t n)
{
    for (const char *p = params; p < params + n; p++) {
        if (*p != ';')
            continue;
        const char *q = p + 1;
        while (*q == ' ' || *q == '\t')
            q++;
        if ((*q == 'q' || *q == 'Q') && q[1] == '=') {
            q += 2;
            while (*q == '0' || *q == '.')
                q++;
            return q >= params + n || *q == ';' || *q == ' ' || *q == ',' || *q == '\t';
        }
    }
    return false;
}

bool nd_http_accepts(const char *accept, const char *type)
{
    for (const char *p = accept; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t r = strcspn(p, ";,");
        size_t m = r;
        while (m && (p[m - 1] == ' ' || p[m - 1] == '\t'))
            m--;
        if (m && range_matches(p, m, type) && !q_zero(p + r, n - r))
            return true;
        p += n;
    }
    return false;
}

bool nd_http_addr_is_loopback(const char *addr)
{
    return addr && strncmp(addr, "127.", 4) == 0;
}

char *nd_http_host_name(const char *host)
{
    if (host[0] == '[') {
        const char *end = strchr(host, ']');
        return end ? nd_xstrndup(host, (size_t)(end - host) + 1) : nd_xstrdup(host);
    }
    const char *colon = strchr(host, ':');
    return colon ? nd_xstrndup(host, (size_t)(colon - host)) : nd_xstrdup(host);
}

bool nd_http_host_is_local(const char *host, const char *listen_addr)
{
    if (!host || !*host) /* HTTP/1.0 sends none */
        return true;
    char *name = nd_http_host_name(host);
    bool ok = strcasecmp(name, "127.0.0.1") == 0 || strcasecmp(name, "localhost") == 0 ||
              strcmp(name, "[::1]") == 0 || strcmp(name, listen_addr) == 0;
    free(name);
    return ok;
}

bool nd_http_origin_is_own(const char *origin, const char *host, const char *listen_addr,
                           unsigned port)
{
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
    if (!rest)
        return false;
    if (host && *host && strcasecmp(rest, host) == 0)
        return true;
    const char *names[] = {listen_addr, "127.0.0.1", "localhost", "[::1]"};
    size_t n = nd_http_addr_is_loopback(listen_addr) ? 4 : 1;
    bool ok = false;
    for (size_t i = 0; i < n && !ok; i++) {
        char *want = nd_xasprintf("%s:%u", names[i], port);
        ok = strcasecmp(rest, want) == 0;
        free(want);
    }
    return ok;
}

bool nd_http_secret_equal(const char *given, size_t given_len, const char *want,
                          size_t want_len)
{
    unsigned char diff = given_len != want_len;
    for (size_t i = 0; i < given_len; i++)
        diff |= (unsigned char)given[i] ^ (unsigned char)want[i < want_len ? i : 0];
    return want_len && !diff;
}
