/* json_dump.c: jansson values -> JSON text as Go's encoding/json writes it. */
#include "json/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

int nd_json_real_digits(double v, char *digits, int *point)
{
    /* The fewest significant digits whose correctly rounded value reads back as v:
     * the same digits as Go's shortest formatting (17 always suffice for a double). */
    double a = fabs(v);
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, a);
        if (strtod(buf, NULL) == a || prec == 17)
            break;
    }
    /* buf is "d.ddde[+-]xx" */
    int n = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *point = (*p == 'e' ? atoi(p + 1) : 0) + 1;
    return n;
}

/* Go's strconv 'f' format with the shortest digits. */
static void add_fixed(struct nd_buf *b, const char *d, int n, int point)
{
    if (point <= 0) {
        nd_buf_adds(b, "0.");
        for (int i = 0; i < -point; i++)
            nd_buf_addch(b, '0');
        nd_buf_add(b, d, (size_t)n);
    } else if (point >= n) {
        nd_buf_add(b, d, (size_t)n);
        for (int i = n; i < point; i++)
            nd_buf_addch(b, '0');
    } else {
        nd_buf_add(b, d, (size_t)point);
        nd_buf_addch(b, '.');
        nd_buf_add(b, d + point, (size_t)(n - point));
    }
}

/* Go's 'e' format: d.ddde+XX, the exponent with at least two digits. */
static void add_exp(struct nd_buf *b, const char *d, int n, int point)
{
    nd_buf_addch(b, d[0]);
    if (n > 1) {
        nd_buf_addch(b, '.');
        nd_buf_add(b, d + 1, (size_t)(n - 1));
    }
    int e = point - 1;
    nd_buf_addf(b, "e%c%02d", e < 0 ? '-' : '+', abs(e));
}

int nd_json_add_real(struct nd_buf *out, double v)
{
    if (!isfinite(v))
        return -1;
    if (signbit(v))
        nd_buf_addch(out, '-');
    if (v == 0) {
        nd_buf_addch(out, '0');
        return 0;
    }
    char d[24];
    int point;
    int n = nd_json_real_digits(v, d, &point);
    double a = fabs(v);
    if (a < 1e-6 || a >= 1e21) {
        size_t at = out->len;
        add_exp(out, d, n, point);
        /* encoding/json shortens e-07 to e-7 */
        char *e = strchr(out->data + at, 'e');
        if (e && e[1] == '-' && e[2] == '0' && e[3]) {
            memmove(e + 2, e + 3, strlen(e + 3) + 1);
            out->len--;
        }
    } else {
        add_fixed(out, d, n, point);
    }
    return 0;
}

int nd_json_add_real_g(struct nd_buf *out, double v)
{
    if (!isfinite(v))
        return -1;
    if (signbit(v))
        nd_buf_addch(out, '-');
    if (v == 0) {
        nd_buf_addch(out, '0');
        return 0;
    }
    char d[24];
    int point;
    int n = nd_json_real_digits(v, d, &point);
    if (point - 1 < -4 || point - 1 >= 6)
        add_exp(out, d, n, point);
    else
        add_fixed(out, d, n, point);
    return 0;
}

void nd_json_add_string(struct nd_buf *b, const char *s, size_t n, int flags)
{
    static const char hex[] = "0123456789abcdef";
    nd_buf_addch(b, '"');
    size_t run = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        size_t skip = 1;
        switch (c) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
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
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        default:
            if (c < 0x20 || ((flags & ND_JSON_ESCAPE_HTML) && (c == '<' || c == '>' || c == '&'))) {
                snprintf(u, sizeof u, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
                esc = u;
            } else if ((flags & ND_JSON_ESCAPE_HTML) && c == 0xE2 && i + 2 < n &&
                       (unsigned char)s[i + 1] == 0x80 &&
                       ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
                esc = (unsigned char)s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
                skip = 3;
            }
        }
        if (!esc)
            continue;
        nd_buf_add(b, s + run, i - run);
        nd_buf_adds(b, esc);
        i += skip - 1;
        run = i + 1;
    }
    nd_buf_add(b, s + run, n - run);
    nd_buf_addch(b, '"');
}

static void newline(struct nd_buf *b, int flags, int level)
{
    if (!(flags & ND_JSON_PRETTY))
        return;
    nd_buf_addch(b, '\n');
    for (int i = 0; i < level; i++)
        nd_buf_adds(b, "    ");
}

struct member {
    const char *key;
    const json_t *val;
};

static int cmp_members(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

static int dump(const json_t *v, struct nd_buf *b, int flags, int level);

static int dump_object(const json_t *v, struct nd_buf *b, int flags, int level)
{
    size_t n = json_object_size(v);
    if (n == 0) {
        nd_buf_adds(b, "{}");
        return 0;
    }
    /* each key with its value: sorting them together spares a lookup per key */
    struct member local[16];
    struct member *m = n <= 16 ? local : nd_xmalloc(n * sizeof *m);
    size_t i = 0;
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)v, k, val) {
        m[i].key = k;
        m[i++].val = val;
    }
    if (flags & ND_JSON_SORT_KEYS)
        qsort(m, n, sizeof *m, cmp_members);
    int rc = 0;
    nd_buf_addch(b, '{');
    for (i = 0; i < n && rc == 0; i++) {
        if (i)
            nd_buf_addch(b, ',');
        newline(b, flags, level + 1);
        nd_json_add_string(b, m[i].key, strlen(m[i].key), flags);
        nd_buf_adds(b, (flags & ND_JSON_PRETTY) ? ": " : ":");
        rc = dump(m[i].val, b, flags, level + 1);
    }
    newline(b, flags, level);
    nd_buf_addch(b, '}');
    if (n > 16)
        free(m);
    return rc;
}

static int dump(const json_t *v, struct nd_buf *b, int flags, int level)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return dump_object(v, b, flags, level);
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        if (n == 0) {
            nd_buf_adds(b, "[]");
            return 0;
        }
        nd_buf_addch(b, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                nd_buf_addch(b, ',');
            newline(b, flags, level + 1);
            if (dump(json_array_get(v, i), b, flags, level + 1) < 0)
                return -1;
        }
        newline(b, flags, level);
        nd_buf_addch(b, ']');
        return 0;
    }
    case JSON_STRING:
        nd_json_add_string(b, json_string_value(v), json_string_length(v), flags);
        return 0;
    case JSON_INTEGER:
        nd_buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return 0;
    case JSON_REAL:
        return nd_json_add_real(b, json_real_value(v));
    case JSON_TRUE:
        nd_buf_adds(b, "true");
        return 0;
    case JSON_FALSE:
        nd_buf_adds(b, "false");
        return 0;
    case JSON_NULL:
        nd_buf_adds(b, "null");
        return 0;
    }
    return -1;
}

int nd_json_dump(const json_t *v, struct nd_buf *out, int flags)
{
    if (!v)
        return -1;
    size_t len = out->len;
    if (dump(v, out, flags, 0) < 0 || out->overflow) {
        nd_buf_truncate(out, len);
        return -1;
    }
    return 0;
}

size_t nd_json_depth(const json_t *v)
{
    size_t max = 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *val;
        json_object_foreach((json_t *)v, k, val)
        {
            size_t d = nd_json_depth(val);
            if (d > max)
                max = d;
        }
        return max + 1;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *val;
        json_array_foreach(v, i, val)
        {
            size_t d = nd_json_depth(val);
            if (d > max)
                max = d;
        }
        return max + 1;
    }
    return 0;
}
