#include "util/quote.h"

#include <string.h>

/* Length of the valid UTF-8 sequence starting at p (at most n bytes available), or 0
 * when the bytes there are not one (overlong forms, surrogates and values above
 * U+10FFFF are invalid, as for Go's utf8.DecodeRuneInString). */
size_t nd_utf8_seq_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

int nd_quote_n(struct nd_buf *b, const char *s, size_t n, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (!s)
        n = 0;
    int rc = nd_buf_addch(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t step = 1;
        if (c >= 0x80)
            step = nd_utf8_seq_len(p + i, n - i);
        if (max && i + (step ? step : 1) > max)
            break;
        if (c == 0xc2 && step == 2 && p[i + 1] < 0xa0) {
            /* a C1 control (U+0080..U+009F; U+009B is CSI to some terminals), as Go */
            char esc[6] = {'\\', 'u', '0', '0', hex[p[i + 1] >> 4], hex[p[i + 1] & 15]};
            rc |= nd_buf_add(b, esc, sizeof esc);
            i += step;
            continue;
        }
        if (c >= 0x80 && step) {
            rc |= nd_buf_add(b, p + i, step);
            i += step;
            continue;
        }
        i++;
        switch (c) {
        case '"':
            rc |= nd_buf_adds(b, "\\\"");
            continue;
        case '\\':
            rc |= nd_buf_adds(b, "\\\\");
            continue;
        case '\a':
            rc |= nd_buf_adds(b, "\\a");
            continue;
        case '\b':
            rc |= nd_buf_adds(b, "\\b");
            continue;
        case '\f':
            rc |= nd_buf_adds(b, "\\f");
            continue;
        case '\n':
            rc |= nd_buf_adds(b, "\\n");
            continue;
        case '\r':
            rc |= nd_buf_adds(b, "\\r");
            continue;
        case '\t':
            rc |= nd_buf_adds(b, "\\t");
            continue;
        case '\v':
            rc |= nd_buf_adds(b, "\\v");
            continue;
        default:
            break;
        }
        if (c < 0x20 || c >= 0x7f) {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            rc |= nd_buf_add(b, esc, sizeof esc);
        } else {
            rc |= nd_buf_addch(b, (char)c);
        }
    }
    rc |= nd_buf_addch(b, '"');
    if (i < n)
        rc |= nd_buf_adds(b, "...");
    return rc ? -1 : 0;
}

int nd_quote(struct nd_buf *b, const char *s, size_t max)
{
    return nd_quote_n(b, s, s ? strlen(s) : 0, max);
}

void nd_quote_shell_n(struct nd_buf *b, const char *s, size_t n)
{
    nd_buf_addch(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            nd_buf_adds(b, "'\\''");
        else
            nd_buf_addch(b, s[i]);
    }
    nd_buf_addch(b, '\'');
}

void nd_quote_shell(struct nd_buf *b, const char *s)
{
    nd_quote_shell_n(b, s, strlen(s));
}

int nd_shell_word(struct nd_buf *b, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "-_./:=@%+") == strlen(s))
        return nd_buf_adds(b, s);
    nd_quote_shell(b, s);
    return b->overflow ? -1 : 0;
}
