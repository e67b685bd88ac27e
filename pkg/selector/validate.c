/* validate.c: label key and value checks with Kubernetes' exact messages, and the small
 * text helpers (Go quoting, Go integers, character positions) the selector files share. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "selector/internal.h"

/* The regular expressions below are quoted in the messages; the checks are written out
 * by hand (no regex engine) and accept exactly what they describe. */
#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '" QNAME_FMT "')"
#define DNS1123_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
#define DNS1123_MSG                                                                                \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "       \
    "used for validation is '" DNS1123_FMT "')"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is '(" QNAME_FMT ")?')"

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n) */
static bool qname_ok(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One or more dot-separated DNS-1123 labels over s[0..n). */
static bool dns1123_subdomain_ok(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t start = i;
        while (i < n && s[i] != '.')
            i++;
        if (i == start || !lower_alnum(s[start]) || !lower_alnum(s[i - 1]))
            return false;
        for (size_t j = start; j < i; j++)
            if (!lower_alnum(s[j]) && s[j] != '-')
                return false;
        if (i == n)
            return true;
        i++; /* the dot; a trailing dot leaves an empty label, rejected above */
    }
}

size_t sel_check_qualified_name(const char *s, const char *msgs[4])
{
    size_t n = 0;
    const char *slash = strchr(s, '/');
    const char *name = s;
    if (slash) {
        if (strchr(slash + 1, '/')) {
            msgs[0] = "a qualified name " QNAME_MSG
                      " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
            return 1;
        }
        size_t plen = (size_t)(slash - s);
        if (plen == 0) {
            msgs[n++] = "prefix part must be non-empty";
        } else {
            if (plen > 253)
                msgs[n++] = "prefix part must be no more than 253 characters";
            if (!dns1123_subdomain_ok(s, plen))
                msgs[n++] = "prefix part " DNS1123_MSG;
        }
        name = slash + 1;
    }
    size_t len = strlen(name);
    if (len == 0)
        msgs[n++] = "name part must be non-empty";
    else if (len > 63)
        msgs[n++] = "name part must be no more than 63 characters";
    if (!qname_ok(name, len))
        msgs[n++] = "name part " QNAME_MSG;
    return n;
}

size_t sel_check_label_value(const char *s, const char *msgs[4])
{
    size_t n = 0, len = strlen(s);
    if (len > 63)
        msgs[n++] = "must be no more than 63 characters";
    if (len > 0 && !qname_ok(s, len))
        msgs[n++] = LABEL_VALUE_MSG;
    return n;
}

/* Decodes one UTF-8 sequence at s; returns its length, or 0 when the bytes are not one
 * (then *r is the byte itself). */
static size_t utf8_rune(const unsigned char *s, unsigned *r)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    *r = c;
    if (len <= 1)
        return len;
    unsigned v = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *r = v;
    return len;
}

/* An approximation of Go's strconv.IsPrint good for what a selector carries: ASCII
 * graphics and space, and everything above Latin-1's control block except format
 * characters and separators that Go escapes. */
static bool go_printable(unsigned r)
{
    if (r < 0x80)
        return r >= 0x20 && r < 0x7f;
    if (r < 0xa0 || r == 0xad || r == 0x2028 || r == 0x2029 || r == 0xfeff)
        return false;
    if ((r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e))
        return false;
    return true;
}

void sel_go_quote(struct nd_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    nd_buf_addch(b, '"');
    while (*p) {
        unsigned r;
        size_t len = utf8_rune(p, &r);
        if (len == 0) {
            nd_buf_addf(b, "\\x%c%c", hex[*p >> 4], hex[*p & 15]);
            p++;
            continue;
        }
        if (r == '"' || r == '\\') {
            nd_buf_addch(b, '\\');
            nd_buf_addch(b, (char)r);
        } else if (go_printable(r)) {
            nd_buf_add(b, p, len);
        } else {
            const char *esc = NULL;
            switch (r) {
            case '\a':
                esc = "\\a";
                break;
            case '\b':
                esc = "\\b";
                break;
            case '\f':
                esc = "\\f";
                break;
            case '\n':
                esc = "\\n";
                break;
            case '\r':
                esc = "\\r";
                break;
            case '\t':
                esc = "\\t";
                break;
            case '\v':
                esc = "\\v";
                break;
            default:
                break;
            }
            if (esc)
                nd_buf_adds(b, esc);
            else if (r < 0x80)
                nd_buf_addf(b, "\\x%c%c", hex[r >> 4], hex[r & 15]);
            else if (r < 0x10000)
                nd_buf_addf(b, "\\u%04x", r);
            else
                nd_buf_addf(b, "\\U%08x", r);
        }
        p += len;
    }
    nd_buf_addch(b, '"');
}

bool sel_parse_int(const char *s, long long *out)
{
    bool neg = false;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (!*s)
        return false;
    unsigned long long v = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

int sel_char_pos(const char *s, size_t off)
{
    int n = 1;
    for (size_t i = 0; i < off && s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            n++;
    return n;
}
