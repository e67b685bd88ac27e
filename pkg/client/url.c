/* url.c: the server URL: scheme, host, port and path prefix. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define URL_FIX                                                                                    \
    "Give a URL such as https://api.example.com or http://127.0.0.1:8443 (--server, or the "       \
    "cluster's server in the kubeconfig)."

static int bad(struct nd_status *st, const char *url, const char *why)
{
    return nd_status_set(st, "Usage", URL_FIX, "invalid server URL \"%s\": %s", url, why);
}

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '.' || ch == '_';
}

void nd_url_release(struct nd_url *u)
{
    free(u->host);
    free(u->hostport);
    free(u->authority);
    free(u->origin);
    free(u->prefix);
    memset(u, 0, sizeof *u);
}

int nd_url_parse(const char *s, struct nd_url *u, struct nd_status *st)
{
    memset(u, 0, sizeof *u);
    if (!s || !*s)
        return nd_status_set(st, "Usage", URL_FIX, "no server URL given");
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return bad(st, s, "it contains a space or a control character");

    const char *p;
    if (strncmp(s, "http://", 7) == 0) {
        p = s + 7;
    } else if (strncmp(s, "https://", 8) == 0) {
        u->tls = true;
        p = s + 8;
    } else {
        return bad(st, s, "the scheme must be http:// or https://");
    }

    const char *end = p + strcspn(p, "/?#");
    if (strpbrk(p, "?#"))
        return bad(st, s, "a query or fragment is not allowed");
    if (memchr(p, '@', (size_t)(end - p)))
        return bad(st, s, "credentials in the URL are not supported (use a token)");

    /* host */
    const char *h = p, *hend;
    const char *rest;
    bool v6 = false;
    if (*p == '[') {
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (!close)
            return bad(st, s, "missing ']' after the IPv6 address");
        h = p + 1;
        hend = close;
        rest = close + 1;
        v6 = true;
        char tmp[INET6_ADDRSTRLEN + 1];
        struct in6_addr a6;
        size_t n = (size_t)(hend - h);
        if (n == 0 || n >= sizeof tmp)
            return bad(st, s, "invalid IPv6 address");
        memcpy(tmp, h, n);
        tmp[n] = '\0';
        if (inet_pton(AF_INET6, tmp, &a6) != 1)
            return bad(st, s, "invalid IPv6 address");
    } else {
        hend = p;
        while (hend < end && *hend != ':')
            hend++;
        rest = hend;
        if (hend == h)
            return bad(st, s, "the host is empty");
        for (const char *q = h; q < hend; q++)
            if (!name_char(*q))
                return bad(st, s, "the host may hold only letters, digits, '-', '.' and '_'");
    }

    /* port */
    int port = u->tls ? 443 : 80;
    bool explicit_port = false;
    if (rest < end) {
        if (*rest != ':')
            return bad(st, s, "unexpected text after the host");
        const char *q = rest + 1;
        if (q == end)
            return bad(st, s, "the port is empty");
        long v = 0;
        for (; q < end; q++) {
            if (*q < '0' || *q > '9')
                return bad(st, s, "the port must be a number");
            v = v * 10 + (*q - '0');
            if (v > 65535)
                break;
        }
        if (v < 1 || v > 65535)
            return bad(st, s, "the port must be between 1 and 65535");
        port = (int)v;
        explicit_port = true;
    }

    /* path prefix, without trailing slashes */
    size_t plen = strlen(end);
    while (plen && end[plen - 1] == '/')
        plen--;

    u->host = nd_xstrndup(h, (size_t)(hend - h));
    u->port = port;
    u->hostport = nd_xasprintf(v6 ? "[%s]:%d" : "%s:%d", u->host, port);
    if (explicit_port && port != (u->tls ? 443 : 80))
        u->authority = nd_xstrdup(u->hostport);
    else
        u->authority = nd_xasprintf(v6 ? "[%s]" : "%s", u->host);
    u->origin = nd_xasprintf("%s://%s", u->tls ? "https" : "http", u->authority);
    u->prefix = nd_xstrndup(end, plen);
    return 0;
}
