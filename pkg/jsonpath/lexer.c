/* lexer.c: the character-level rules of client-go's JSONPath parser: runes, character
 * classes, Go's %#U, quoted strings (UnquoteExtend) and numbers (Atoi, ParseFloat). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath/internal.h"
#include "util/xmalloc.h"

#define RUNE_ERROR 0xfffdL

long jp_decode(const char *s, size_t n, size_t *width)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    *width = 1;
    if (len == 1)
        return c;
    if (len == 0 || len > n)
        return RUNE_ERROR;
    unsigned long v = c & (0x7fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return RUNE_ERROR;
        v = (v << 6) | (p[i] & 0x3f);
    }
    static const unsigned long min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return RUNE_ERROR;
    *width = len;
    return (long)v;
}

struct range {
    long lo, hi;
};

static bool in_ranges(long r, const struct range *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (r >= t[i].lo && r <= t[i].hi)
            return true;
    return false;
}

/* The letters of the scripts a template may plausibly use; Go consults the full Unicode
 * tables, which only matters for exotic identifiers (they are unknown words anyway). */
static const struct range letters[] = {
    {0xaa, 0xaa},     {0xb5, 0xb5},     {0xba, 0xba},     {0xc0, 0xd6},       {0xd8, 0xf6},
    {0xf8, 0x2c1},    {0x370, 0x373},   {0x376, 0x377},   {0x37b, 0x37d},     {0x386, 0x386},
    {0x388, 0x3ff},   {0x400, 0x481},   {0x48a, 0x52f},   {0x531, 0x556},     {0x561, 0x587},
    {0x5d0, 0x5ea},   {0x620, 0x64a},   {0x904, 0x939},   {0xe01, 0xe30},     {0x1e00, 0x1fbc},
    {0x3041, 0x3096}, {0x30a1, 0x30fa}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},   {0xac00, 0xd7a3},
    {0xf900, 0xfaff}, {0xff21, 0xff3a}, {0xff41, 0xff5a}, {0x20000, 0x2fa1d},
};

static const struct range digit_ranges[] = {
    {'0', '9'}, {0x660, 0x669}, {0x6f0, 0x6f9}, {0x966, 0x96f}, {0xff10, 0xff19},
};

bool jp_is_digit(long r)
{
    return in_ranges(r, digit_ranges, sizeof digit_ranges / sizeof digit_ranges[0]);
}

bool jp_is_alnum(long r)
{
    if (r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || jp_is_digit(r))
        return true;
    return r >= 0x80 && in_ranges(r, letters, sizeof letters / sizeof letters[0]);
}

bool jp_is_terminator(long r)
{
    switch (r) {
    case JP_EOF:
    case ' ':
    case '\t':
    case '\r':
    case '\n':
    case '.':
    case ',':
    case '[':
    case ']':
    case '$':
    case '@':
    case '{':
    case '}':
        return true;
    default:
        return false;
    }
}

/* strconv.IsPrint, approximated outside ASCII: every assigned-looking rune except
 * spaces, controls and format characters. */
static bool go_printable(long r)
{
    static const struct range unprintable[] = {
        {0x7f, 0xa0},     {0xad, 0xad},     {0x1680, 0x1680}, {0x2000, 0x200f}, {0x2028, 0x202f},
        {0x205f, 0x206f}, {0x3000, 0x3000}, {0xd800, 0xdfff}, {0xfeff, 0xfeff}, {0xfff9, 0xfffb},
    };
    if (r < 0x20 || r > 0x10ffff)
        return false;
    return !in_ranges(r, unprintable, sizeof unprintable / sizeof unprintable[0]);
}

static void add_rune(struct nd_buf *b, unsigned long r)
{
    char u[4];
    size_t n;
    if (r < 0x80) {
        u[0] = (char)r;
        n = 1;
    } else if (r < 0x800) {
        u[0] = (char)(0xc0 | (r >> 6));
        u[1] = (char)(0x80 | (r & 0x3f));
        n = 2;
    } else if (r < 0x10000) {
        u[0] = (char)(0xe0 | (r >> 12));
        u[1] = (char)(0x80 | ((r >> 6) & 0x3f));
        u[2] = (char)(0x80 | (r & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (r >> 18));
        u[1] = (char)(0x80 | ((r >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((r >> 6) & 0x3f));
        u[3] = (char)(0x80 | (r & 0x3f));
        n = 4;
    }
    nd_buf_add(b, u, n);
}

void jp_add_rune_desc(struct nd_buf *b, long r)
{
    nd_buf_addf(b, "U+%04lX", (unsigned long)r);
    if (go_printable(r)) {
        nd_buf_adds(b, " '");
        add_rune(b, (unsigned long)r);
        nd_buf_addch(b, '\'');
    }
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* \xHH, \uHHHH or \UHHHHHHHH at s (the backslash): the bytes it takes, 0 when it is not
 * one; a \u or \U must be a Unicode scalar value (and is then multibyte). */
static size_t unquote_hex(const char *s, size_t n, unsigned long *value, bool *multibyte)
{
    char e = s[1];
    size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
    unsigned long v = 0;
    if (n - 2 < digits)
        return 0;
    for (size_t i = 0; i < digits; i++) {
        int h = unhex(s[2 + i]);
        if (h < 0)
            return 0;
        v = (v << 4) | (unsigned long)h;
    }
    if (e != 'x') {
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
            return 0;
        *multibyte = true;
    }
    *value = v;
    return 2 + digits;
}

/* \OOO (three octal digits, at most \377) at s (the backslash): 4, or 0 when it is not. */
static size_t unquote_octal(const char *s, size_t n, unsigned long *value)
{
    unsigned long v = (unsigned long)(s[1] - '0');
    if (n - 2 < 2)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        if (s[2 + i] < '0' || s[2 + i] > '7')
            return 0;
        v = (v << 3) | (unsigned long)(s[2 + i] - '0');
    }
    if (v > 255)
        return 0;
    *value = v;
    return 4;
}

/* strconv.UnquoteChar: one (possibly escaped) character of s[0..n); returns the bytes
 * consumed, 0 on a syntax error. */
static size_t unquote_char(const char *s, size_t n, char quote, unsigned long *value,
                           bool *multibyte)
{
    static const char simple[] = "abfnrtv\\", meaning[] = "\a\b\f\n\r\t\v\\";
    unsigned char c = (unsigned char)s[0];
    *multibyte = false;
    if (c == (unsigned char)quote)
        return 0;
    if (c >= 0x80) {
        size_t w;
        *value = (unsigned long)jp_decode(s, n, &w);
        *multibyte = true;
        return w;
    }
    if (c != '\\') {
        *value = c;
        return 1;
    }
    if (n <= 1)
        return 0;
    char e = s[1];
    const char *at = e ? strchr(simple, e) : NULL;
    if (at) {
        *value = (unsigned char)meaning[at - simple];
        return 2;
    }
    if (e == '\'' || e == '"') {
        if (e != quote)
            return 0;
        *value = (unsigned char)e;
        return 2;
    }
    if (e == 'x' || e == 'u' || e == 'U')
        return unquote_hex(s, n, value, multibyte);
    if (e >= '0' && e <= '7')
        return unquote_octal(s, n, value);
    return 0;
}

char *jp_unquote(const char *s, size_t n, size_t *out_len)
{
    if (n < 2 || s[0] != s[n - 1] || (s[0] != '"' && s[0] != '\''))
        return NULL;
    char quote = s[0];
    const char *in = s + 1;
    size_t m = n - 2;
    struct nd_buf b = ND_BUF_INIT;
    if (!memchr(in, '\\', m) && !memchr(in, quote, m)) {
        nd_buf_add(&b, in, m);
        *out_len = b.len;
        return nd_buf_detach(&b);
    }
    while (m > 0) {
        unsigned long v;
        bool multi;
        size_t used = unquote_char(in, m, quote, &v, &multi);
        if (!used) {
            nd_buf_release(&b);
            return NULL;
        }
        if (v < 0x80 || !multi)
            nd_buf_addch(&b, (char)(unsigned char)v);
        else
            add_rune(&b, v);
        in += used;
        m -= used;
    }
    *out_len = b.len;
    return nd_buf_detach(&b);
}

bool jp_atoi(const char *s, size_t n, long long *out)
{
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return false;
    unsigned long long v = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

bool jp_parse_float(const char *s, size_t n, double *out)
{
    size_t i = 0, dots = 0, digs = 0;
    if (n > 0 && (s[0] == '+' || s[0] == '-'))
        i++;
    for (; i < n; i++) {
        if (s[i] == '.')
            dots++;
        else if (s[i] >= '0' && s[i] <= '9')
            digs++;
        else
            return false;
    }
    if (dots > 1 || digs == 0)
        return false;
    char *tmp = nd_xstrndup(s, n);
    errno = 0;
    double d = strtod(tmp, NULL);
    free(tmp);
    if (isinf(d))
        return false;
    *out = d;
    return true;
}
