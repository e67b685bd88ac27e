/* print.c: values printed the way kubectl's Go code prints them: fmt's %v for scalars,
 * encoding/json's Marshal for maps and lists, fmt's %v for whole values (custom-columns).
 * Floats get Go's shortest round-trip digits in Go's layouts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath/internal.h"
#include "jsonpath/jsonpath.h"
#include "util/xmalloc.h"

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **jp_sorted_keys(const json_t *obj, size_t *n)
{
    size_t count = json_object_size(obj), i = 0;
    const char **keys = nd_xcalloc(count ? count : 1, sizeof *keys);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        (void)v;
        keys[i++] = k;
    }
    qsort(keys, i, sizeof *keys, cmp_key);
    *n = i;
    return keys;
}

/* ---- floats ---- */

/* The shortest decimal digits that read back as f (f > 0, finite): digits without a
 * point in d (NUL-terminated), and dp, the position of the decimal point (Go's
 * decimalSlice: f = 0.d × 10^dp). */
static void shortest(double f, char d[32], int *dp)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, f);
        if (strtod(buf, NULL) == f)
            break;
    }
    /* buf is "d.ddde[+-]xx" */
    size_t n = 0;
    char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            d[n++] = *p;
    while (n > 1 && d[n - 1] == '0')
        n--;
    d[n] = '\0';
    *dp = atoi(p + 1) + 1;
}

/* strconv's %e with nd-1 digits after the point; exponent of at least two digits. */
static void fmt_e(struct nd_buf *b, const char *d, int dp)
{
    nd_buf_addch(b, d[0]);
    if (d[1]) {
        nd_buf_addch(b, '.');
        nd_buf_adds(b, d + 1);
    }
    int exp = dp - 1;
    nd_buf_addf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

/* strconv's %f with max(nd-dp, 0) digits after the point. */
static void fmt_f(struct nd_buf *b, const char *d, int dp)
{
    int nd = (int)strlen(d);
    if (dp > 0) {
        for (int i = 0; i < dp; i++)
            nd_buf_addch(b, i < nd ? d[i] : '0');
    } else {
        nd_buf_addch(b, '0');
    }
    int prec = nd - dp > 0 ? nd - dp : 0;
    if (prec > 0) {
        nd_buf_addch(b, '.');
        for (int i = 1; i <= prec; i++) {
            int j = dp + i - 1;
            nd_buf_addch(b, j >= 0 && j < nd ? d[j] : '0');
        }
    }
}

/* mode 'v': fmt's %v, which is strconv's shortest %g: %e when the exponent is < -4 or
 * >= 6 ("1.2345675e+06"), %f otherwise.
 * mode 'j': encoding/json: %e below 1e-6 and from 1e21 (with "e-07" shortened to "e-7"),
 * %f otherwise. */
static void go_float(struct nd_buf *b, double f, char mode)
{
    if (signbit(f)) {
        nd_buf_addch(b, '-');
        f = -f;
    }
    if (f == 0) {
        nd_buf_addch(b, '0');
        return;
    }
    char d[32];
    int dp;
    shortest(f, d, &dp);
    if (mode == 'v') {
        if (dp - 1 < -4 || dp - 1 >= 6)
            fmt_e(b, d, dp);
        else
            fmt_f(b, d, dp);
        return;
    }
    if (f < 1e-6 || f >= 1e21) {
        size_t start = b->len;
        fmt_e(b, d, dp);
        /* "e-07" -> "e-7" */
        size_t n = b->len - start;
        char *s = b->data + start;
        if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') {
            s[n - 2] = s[n - 1];
            nd_buf_truncate(b, b->len - 1);
        }
        return;
    }
    fmt_f(b, d, dp);
}

/* ---- encoding/json ---- */

static void json_string_go(struct nd_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    nd_buf_addch(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
                nd_buf_addch(b, (char)c);
            } else {
                nd_buf_addch(b, '\\');
                switch (c) {
                case '"':
                case '\\':
                    nd_buf_addch(b, (char)c);
                    break;
                case '\b':
                    nd_buf_addch(b, 'b');
                    break;
                case '\f':
                    nd_buf_addch(b, 'f');
                    break;
                case '\n':
                    nd_buf_addch(b, 'n');
                    break;
                case '\r':
                    nd_buf_addch(b, 'r');
                    break;
                case '\t':
                    nd_buf_addch(b, 't');
                    break;
                default:
                    nd_buf_addf(b, "u00%c%c", hex[c >> 4], hex[c & 15]);
                    break;
                }
            }
            i++;
            continue;
        }
        size_t w;
        long r = jp_decode(s + i, n - i, &w);
        if (r == 0xfffd && w == 1)
            nd_buf_adds(b, "\\ufffd"); /* invalid UTF-8 */
        else if (r == 0x2028 || r == 0x2029)
            nd_buf_addf(b, "\\u%04lx", (unsigned long)r);
        else
            nd_buf_add(b, s + i, w);
        i += w;
    }
    nd_buf_addch(b, '"');
}

static void json_go(struct nd_buf *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n;
        const char **keys = jp_sorted_keys(v, &n);
        nd_buf_addch(b, '{');
        for (size_t i = 0; i < n; i++) {
            if (i)
                nd_buf_addch(b, ',');
            json_string_go(b, keys[i], strlen(keys[i]));
            nd_buf_addch(b, ':');
            json_go(b, json_object_get(v, keys[i]));
        }
        nd_buf_addch(b, '}');
        free(keys);
        break;
    }
    case JSON_ARRAY:
        nd_buf_addch(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                nd_buf_addch(b, ',');
            json_go(b, json_array_get(v, i));
        }
        nd_buf_addch(b, ']');
        break;
    case JSON_STRING:
        json_string_go(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        nd_buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        go_float(b, json_real_value(v), 'j');
        break;
    case JSON_TRUE:
        nd_buf_adds(b, "true");
        break;
    case JSON_FALSE:
        nd_buf_adds(b, "false");
        break;
    case JSON_NULL:
        nd_buf_adds(b, "null");
        break;
    }
}

/* ---- fmt's %v ---- */

void jp_print_go(struct nd_buf *b, const json_t *v)
{
    if (!v) {
        nd_buf_adds(b, "<invalid reflect.Value>");
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n;
        const char **keys = jp_sorted_keys(v, &n);
        nd_buf_adds(b, "map[");
        for (size_t i = 0; i < n; i++) {
            nd_buf_addf(b, "%s%s:", i ? " " : "", keys[i]);
            jp_print_go(b, json_object_get(v, keys[i]));
        }
        nd_buf_addch(b, ']');
        free(keys);
        break;
    }
    case JSON_ARRAY:
        nd_buf_addch(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                nd_buf_addch(b, ' ');
            jp_print_go(b, json_array_get(v, i));
        }
        nd_buf_addch(b, ']');
        break;
    case JSON_STRING:
        nd_buf_add(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        nd_buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        go_float(b, json_real_value(v), 'v');
        break;
    case JSON_TRUE:
        nd_buf_adds(b, "true");
        break;
    case JSON_FALSE:
        nd_buf_adds(b, "false");
        break;
    case JSON_NULL:
        nd_buf_adds(b, "<nil>");
        break;
    }
}

/* ---- kubectl's PrintResults ---- */

void jp_print_val(struct nd_buf *b, const struct jp_val *v)
{
    if (!v->j)
        nd_buf_adds(b, "<no value>");
    else if (json_is_object(v->j) || json_is_array(v->j))
        json_go(b, v->j);
    else if (json_is_null(v->j))
        nd_buf_adds(b, "null");
    else
        jp_print_go(b, v->j);
}

const char *jp_go_type(const struct jp_val *v)
{
    if (v->go == GO_INT)
        return "int";
    if (v->go == GO_UINT8)
        return "uint8";
    switch (v->j ? json_typeof(v->j) : JSON_NULL) {
    case JSON_OBJECT:
        return "map[string]interface {}";
    case JSON_ARRAY:
        return "[]interface {}";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "int64";
    case JSON_REAL:
        return "float64";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "interface {}";
    }
}

void nd_jsonpath_format_value(const json_t *v, struct nd_buf *out)
{
    struct jp_val val = {(json_t *)v, GO_JSON};
    jp_print_val(out, &val);
}

void nd_jsonpath_format_json(const json_t *v, struct nd_buf *out)
{
    if (v)
        json_go(out, v);
    else
        nd_buf_adds(out, "null");
}

void nd_jsonpath_format_go(const json_t *v, struct nd_buf *out)
{
    jp_print_go(out, v ? v : json_null());
}
