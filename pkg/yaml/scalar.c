#include "yaml/scalar.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
static const char *const trues[] = {"true", "True", "TRUE", NULL};
static const char *const falses[] = {"false", "False", "FALSE", NULL};
static const char *const infs[] = {".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf",
                                   "+.INF", "-.inf", "-.Inf", "-.INF", NULL};
static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
/* YAML 1.1 booleans: strings here, but go-yaml v2 (kubectl's reader) takes them as
 * bools, so the dumper quotes them. */
static const char *const bools11[] = {"y",  "Y",  "yes", "Yes", "YES", "n",   "N",   "no", "No",
                                      "NO", "on", "On",  "ON",  "off", "Off", "OFF", NULL};

static bool in_list(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, s, n) == 0)
            return true;
    return false;
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

enum num { NUM_NO, NUM_INT, NUM_INT_RANGE, NUM_FLOAT };

/* The integer syntax of Go's strconv.ParseInt(s, 0, 64), which go-yaml uses: a sign,
 * then 0x / 0o / 0b and digits, a leading 0 for octal, or decimal digits. */
static enum num parse_int(const char *t, long long *out)
{
    const char *p = t;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
        base = 8;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;
        p++;
    }
    if (!*p)
        return NUM_NO;
    unsigned long long m = 0;
    bool over = false;
    for (; *p; p++) {
        int d = digit_value(*p);
        if (d < 0 || d >= base)
            return NUM_NO;
        if (m > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
            over = true;
        else
            m = m * (unsigned)base + (unsigned)d;
    }
    if (over)
        return NUM_INT_RANGE;
    if (neg) {
        if (m > (unsigned long long)LLONG_MAX + 1)
            return NUM_INT_RANGE;
        *out = m == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)m;
    } else {
        if (m > (unsigned long long)LLONG_MAX)
            return NUM_INT_RANGE;
        *out = (long long)m;
    }
    return NUM_INT;
}

/* go-yaml's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool float_syntax(const char *p)
{
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.') {
        p++;
        if (!digit(*p))
            return false;
        while (digit(*p))
            p++;
    } else {
        if (!digit(*p))
            return false;
        while (digit(*p))
            p++;
        if (*p == '.')
            for (p++; digit(*p); p++)
                ;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!digit(*p))
            return false;
        while (digit(*p))
            p++;
    }
    return *p == '\0';
}

/* The text as go-yaml reads a number: every '_' dropped, except after a leading '.'
 * (go-yaml hands those to ParseFloat unchanged). New string. */
static char *number_text(const char *s, size_t n)
{
    char *t = nd_xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_' || s[0] == '.')
            t[k++] = s[i];
    t[k] = '\0';
    return t;
}

/* Classifies s as a number; *iv or *dv receive the value. */
static enum num classify(const char *s, size_t n, long long *iv, double *dv)
{
    if (n == 0 || !(digit(s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '.'))
        return NUM_NO;
    char *t = number_text(s, n);
    enum num kind = parse_int(t, iv);
    if (kind == NUM_NO && float_syntax(t)) {
        *dv = strtod(t, NULL);
        kind = NUM_FLOAT;
    }
    free(t);
    return kind;
}

static json_t *number_value(const char *s, size_t n, enum num kind, long long iv, double dv,
                            struct nd_buf *why)
{
    if (kind == NUM_INT)
        return json_integer(iv);
    if (kind == NUM_INT_RANGE) {
        nd_buf_adds(why, "integer ");
        nd_yaml_quote_for_message(why, s, n);
        nd_buf_adds(why, " does not fit in 64 bits (quote it to keep it as a string)");
        return NULL;
    }
    if (isinf(dv) || isnan(dv)) {
        nd_buf_adds(why, "number ");
        nd_yaml_quote_for_message(why, s, n);
        nd_buf_adds(why, " is out of range");
        return NULL;
    }
    return json_real(dv);
}

static json_t *inf_nan(const char *s, size_t n, struct nd_buf *why)
{
    nd_yaml_quote_for_message(why, s, n);
    nd_buf_adds(why, " (infinity or NaN) cannot be represented in JSON "
                     "(quote it to keep it as a string)");
    return NULL;
}

json_t *nd_yaml_plain_value(const char *s, size_t n, struct nd_buf *why)
{
    if (n == 0 || in_list(s, n, nulls))
        return json_null();
    if (in_list(s, n, trues))
        return json_true();
    if (in_list(s, n, falses))
        return json_false();
    if (in_list(s, n, infs) || in_list(s, n, nans))
        return inf_nan(s, n, why);
    long long iv = 0;
    double dv = 0;
    enum num kind = classify(s, n, &iv, &dv);
    if (kind != NUM_NO)
        return number_value(s, n, kind, iv, dv, why);
    return json_stringn(s, n);
}

static json_t *not_valid(const char *tag, const char *s, size_t n, struct nd_buf *why)
{
    nd_yaml_quote_for_message(why, s, n);
    nd_buf_adds(why, " is not a valid ");
    nd_yaml_tag_for_message(why, tag);
    return NULL;
}

json_t *nd_yaml_tagged_value(const char *tag, const char *s, size_t n, struct nd_buf *why)
{
    const char *name = NULL;
    size_t plen = strlen(ND_YAML_TAG_PREFIX);
    if (strncmp(tag, ND_YAML_TAG_PREFIX, plen) == 0)
        name = tag + plen;
    if (strcmp(tag, "!") == 0 ||
        (name && (strcmp(name, "str") == 0 || strcmp(name, "timestamp") == 0)))
        return json_stringn(s, n);
    if (name && strcmp(name, "null") == 0) {
        if (n == 0 || in_list(s, n, nulls))
            return json_null();
        return not_valid(tag, s, n, why);
    }
    if (name && strcmp(name, "bool") == 0) {
        if (in_list(s, n, trues))
            return json_true();
        if (in_list(s, n, falses))
            return json_false();
        return not_valid(tag, s, n, why);
    }
    if (name && (strcmp(name, "int") == 0 || strcmp(name, "float") == 0)) {
        bool is_float = name[0] == 'f';
        if (is_float && (in_list(s, n, infs) || in_list(s, n, nans)))
            return inf_nan(s, n, why);
        long long iv = 0;
        double dv = 0;
        enum num kind = classify(s, n, &iv, &dv);
        if (kind == NUM_NO || (kind == NUM_FLOAT && !is_float))
            return not_valid(tag, s, n, why);
        if (kind == NUM_INT && is_float)
            return json_real((double)iv);
        return number_value(s, n, kind, iv, dv, why);
    }
    if (name && strcmp(name, "binary") == 0) {
        nd_buf_adds(why, "!!binary values are not supported (JSON has no bytes; "
                         "use a base64 string)");
        return NULL;
    }
    nd_buf_adds(why, "unsupported tag ");
    nd_yaml_tag_for_message(why, tag);
    nd_buf_adds(why, " on a scalar");
    return NULL;
}

/* go-yaml v2's isBase60Float: [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)? */
static bool base60(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i >= n || !digit(s[i]))
        return false;
    for (i++; i < n && (digit(s[i]) || s[i] == '_'); i++)
        ;
    int groups = 0;
    while (i < n && s[i] == ':') {
        i++;
        if (i >= n || !digit(s[i]))
            return false;
        if (i + 1 < n && digit(s[i + 1]) && s[i] <= '5')
            i += 2;
        else
            i++;
        groups++;
    }
    if (groups == 0)
        return false;
    if (i < n && s[i] == '.')
        for (i++; i < n && (digit(s[i]) || s[i] == '_'); i++)
            ;
    return i == n;
}

static bool read_digits(const char *s, size_t n, size_t *i, int min, int max, int *v)
{
    int k = 0;
    *v = 0;
    while (*i < n && k < max && digit(s[*i])) {
        *v = *v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    return k >= min;
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return days[m - 1];
}

/* A date YYYY-M-D (one or two digits for the month and day) that exists, from *i. */
static bool read_date(const char *s, size_t n, size_t *i)
{
    int y, mo, d;
    if (!read_digits(s, n, i, 4, 4, &y) || *i >= n || s[*i] != '-')
        return false;
    (*i)++;
    if (!read_digits(s, n, i, 1, 2, &mo) || *i >= n || s[*i] != '-')
        return false;
    (*i)++;
    return read_digits(s, n, i, 1, 2, &d) && mo >= 1 && mo <= 12 && d >= 1 &&
           d <= days_in_month(y, mo);
}

/* A time of day H:M:S (one or two digits each) with optional fractional seconds, from *i. */
static bool read_clock(const char *s, size_t n, size_t *i)
{
    int h, mi, se;
    if (!read_digits(s, n, i, 1, 2, &h) || *i >= n || s[(*i)++] != ':' ||
        !read_digits(s, n, i, 1, 2, &mi) || *i >= n || s[(*i)++] != ':' ||
        !read_digits(s, n, i, 1, 2, &se) || h > 23 || mi > 59 || se > 59)
        return false;
    if (*i + 1 < n && (s[*i] == '.' || s[*i] == ',') && digit(s[*i + 1]))
        for ((*i)++; *i < n && digit(s[*i]); (*i)++)
            ;
    return true;
}

/* Z or +hh:mm / -hh:mm, the whole rest of s (from i). */
static bool zone(const char *s, size_t n, size_t i)
{
    if (i + 1 == n && s[i] == 'Z')
        return true;
    return n - i == 6 && (s[i] == '+' || s[i] == '-') && digit(s[i + 1]) && digit(s[i + 2]) &&
           s[i + 3] == ':' && digit(s[i + 4]) && digit(s[i + 5]);
}

/* The timestamps go-yaml v2 recognises (Go layouts "2006-1-2", "2006-1-2 15:4:5.9",
 * "2006-1-2T15:4:5.9Z07:00" and the same with a lower-case t). */
static bool timestamp(const char *s, size_t n)
{
    size_t i = 0;
    if (!read_date(s, n, &i))
        return false;
    if (i == n)
        return true;
    char sep = s[i++];
    if (sep != 'T' && sep != 't' && sep != ' ')
        return false;
    if (!read_clock(s, n, &i))
        return false;
    if (sep == ' ')
        return i == n;
    return zone(s, n, i);
}

bool nd_yaml_plain_is_string(const char *s, size_t n)
{
    if (n == 0 || in_list(s, n, nulls) || in_list(s, n, trues) || in_list(s, n, falses) ||
        in_list(s, n, infs) || in_list(s, n, nans) || in_list(s, n, bools11))
        return false;
    long long iv;
    double dv;
    if (classify(s, n, &iv, &dv) != NUM_NO)
        return false;
    if (digit(s[0]) && timestamp(s, n))
        return false;
    return !base60(s, n);
}

void nd_yaml_quote_for_message(struct nd_buf *b, const char *s, size_t n)
{
    size_t max = 40;
    bool cut = n > max;
    if (cut) {
        n = max;
        /* do not split a UTF-8 character */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    nd_buf_addch(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            nd_buf_addf(b, "\\%c", c);
        else if (c == '\n')
            nd_buf_adds(b, "\\n");
        else if (c == '\t')
            nd_buf_adds(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            nd_buf_addf(b, "\\x%02x", c);
        else
            nd_buf_addch(b, (char)c);
    }
    if (cut)
        nd_buf_adds(b, "...");
    nd_buf_addch(b, '"');
}

void nd_yaml_tag_for_message(struct nd_buf *b, const char *tag)
{
    size_t plen = strlen(ND_YAML_TAG_PREFIX);
    if (strncmp(tag, ND_YAML_TAG_PREFIX, plen) == 0) {
        nd_buf_addf(b, "!!%s", tag + plen);
        return;
    }
    nd_buf_adds(b, tag);
}
