/* formats.c: duration, money, quantity, date-time, cron, image and dns-label values. */
#include "kinds/formats.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/money.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/validate.h"
#include "util/xmalloc.h"

/* ---- cron ---- */

static const char *const month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
static const char *const day_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

struct cron_field {
    int min, max;
    const char *const *names; /* names[i] is min + i */
    int n_names;
};

static const struct cron_field cron_fields[5] = {
    {0, 59, NULL, 0},         {0, 23, NULL, 0},     {1, 31, NULL, 0},
    {1, 12, month_names, 12}, {0, 7, day_names, 7},
};

/* One number or name at *p, within the field's bounds. */
static bool cron_value(const char **p, const struct cron_field *f, int *out)
{
    const char *s = *p;
    if (isdigit((unsigned char)*s)) {
        long v = 0;
        while (isdigit((unsigned char)*s)) {
            v = v * 10 + (*s - '0');
            if (v > 1000)
                return false;
            s++;
        }
        if (v < f->min || v > f->max)
            return false;
        *out = (int)v;
        *p = s;
        return true;
    }
    for (int i = 0; i < f->n_names; i++) {
        if (strncasecmp(s, f->names[i], 3) == 0 && !isalpha((unsigned char)s[3])) {
            *out = f->min + i;
            *p = s + 3;
            return true;
        }
    }
    return false;
}

/* "*", "a", "a-b", each optionally "/step"; items separated by ','. */
static bool cron_field_valid(const char *s, size_t n, const struct cron_field *f)
{
    char *text = nd_xstrndup(s, n);
    bool ok = true;
    const char *p = text;
    while (ok) {
        int a, b;
        if (*p == '*') {
            p++;
        } else if (cron_value(&p, f, &a)) {
            if (*p == '-') {
                p++;
                ok = cron_value(&p, f, &b) && b >= a;
            }
        } else {
            ok = false;
        }
        if (ok && *p == '/') {
            p++;
            long step = 0;
            if (!isdigit((unsigned char)*p))
                ok = false;
            while (ok && isdigit((unsigned char)*p)) {
                step = step * 10 + (*p++ - '0');
                if (step > f->max)
                    ok = false;
            }
            ok = ok && step >= 1;
        }
        if (!ok || *p != ',')
            break;
        p++;
    }
    ok = ok && *p == '\0';
    free(text);
    return ok;
}

bool nd_cron_valid(const char *s)
{
    static const char *const macros[] = {"@yearly", "@annually", "@monthly", "@weekly",
                                         "@daily",  "@midnight", "@hourly",  NULL};
    if (!s)
        return false;
    for (int i = 0; macros[i]; i++)
        if (strcmp(s, macros[i]) == 0)
            return true;
    const char *p = s;
    for (int i = 0; i < 5; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, " \t");
        if (n == 0 || !cron_field_valid(p, n, &cron_fields[i]))
            return false;
        p += n;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\0';
}

/* ---- image ---- */

bool nd_image_ref_valid(const char *s)
{
    static const char prefix[] = "nodus/";
    if (!s || strncmp(s, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *name = s + sizeof prefix - 1;
    const char *colon = strchr(name, ':');
    if (!colon)
        return false;
    char *n = nd_xstrndup(name, (size_t)(colon - name));
    bool ok = nd_is_dns_label(n);
    free(n);
    const char *tag = colon + 1;
    size_t len = strlen(tag);
    if (!ok || len == 0 || len > 128 || tag[0] == '.' || tag[0] == '-')
        return false;
    for (const char *c = tag; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
            return false;
    return true;
}

/* ---- values with bounds ---- */

enum kind { K_NONE, K_DURATION, K_MONEY, K_QUANTITY };

static enum kind kind_of(const char *format)
{
    if (!format)
        return K_NONE;
    if (strcmp(format, "duration") == 0)
        return K_DURATION;
    if (strcmp(format, "money") == 0)
        return K_MONEY;
    if (strcmp(format, "quantity") == 0)
        return K_QUANTITY;
    return K_NONE;
}

/* A value of one of the comparable formats, as a (units, nanos) pair. */
struct num {
    int64_t units;
    int32_t nanos;
};

static int num_cmp(struct num a, struct num b)
{
    if (a.units != b.units)
        return a.units < b.units ? -1 : 1;
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos;
}

/* The text of a string or integer value (quantities may be integers). NEW or NULL. */
static char *text_of(const json_t *v)
{
    if (json_is_string(v))
        return nd_xstrdup(json_string_value(v));
    if (json_is_integer(v)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return nd_xstrdup(buf);
    }
    return NULL;
}

static int parse_num(enum kind k, const char *s, struct num *out)
{
    struct nd_status st = ND_STATUS_INIT;
    int rc = -1;
    if (!s)
        return -1;
    if (k == K_DURATION) {
        int64_t ms;
        rc = nd_duration_parse(s, &ms, &st);
        *out = (struct num){ms, 0};
    } else if (k == K_MONEY) {
        int64_t micros;
        rc = nd_money_parse(s, &micros, &st);
        *out = (struct num){micros, 0};
    } else if (k == K_QUANTITY) {
        struct nd_quantity q;
        rc = nd_quantity_parse(s, &q, &st);
        *out = (struct num){q.units, q.nanos};
    }
    nd_status_release(&st);
    return rc;
}

int nd_format_compare(const char *format, const json_t *a, const json_t *b, int *cmp)
{
    enum kind k = kind_of(format);
    char *ta = text_of(a), *tb = text_of(b);
    struct num na, nb;
    int rc = -1;
    if (k != K_NONE && parse_num(k, ta, &na) == 0 && parse_num(k, tb, &nb) == 0) {
        *cmp = num_cmp(na, nb);
        rc = 0;
    }
    free(ta);
    free(tb);
    return rc;
}

static const char *const kind_help[] = {
    [K_DURATION] = "must be a duration such as \"30m\", \"1h30m\" or \"90s\"",
    [K_MONEY] = "must be a decimal amount of US dollars with at most 6 decimal places, "
                "such as \"40.00\"",
    [K_QUANTITY] = "must be a quantity such as \"100Gi\", \"500m\" or \"8\"",
};

/* What to write instead of a value that does not parse (the fix of kind_help's problem). */
static const char *const kind_fix[] = {
    [K_DURATION] = "as a number and a unit (ms, s, m, h), such as \"90s\", \"30m\" or \"1h30m\"",
    [K_MONEY] = "as a decimal string of US dollars, such as \"40.00\"",
    [K_QUANTITY] = "as a number with an optional suffix (m, k, M, G, Ki, Mi, Gi, Ti), such as "
                   "\"8\", \"500m\" or \"100Gi\"",
};

static void check_bounded(const json_t *schema, enum kind k, const json_t *v, const char *path,
                          struct nd_field_errors *errs)
{
    char *text = text_of(v);
    struct num n, bound;
    size_t first = nd_field_errors_count(errs);
    const char *min = json_string_value(json_object_get(schema, "x-nodus-min"));
    const char *max = json_string_value(json_object_get(schema, "x-nodus-max"));
    if (parse_num(k, text, &n) != 0) {
        nd_field_errors_invalid(errs, path, v, "%s", kind_help[k]);
        nd_field_errors_fix(errs, first, "write %s %s", path, kind_fix[k]);
    } else if (n.units < 0 || n.nanos < 0) {
        nd_field_errors_invalid(errs, path, v, "must not be negative");
        nd_field_errors_fix(errs, first, "set %s to zero or more", path);
    } else if (min && parse_num(k, min, &bound) == 0 && num_cmp(n, bound) < 0) {
        nd_field_errors_invalid(errs, path, v, "must be at least %s", min);
        nd_field_errors_fix(errs, first, "set %s to %s or more", path, min);
    } else if (max && parse_num(k, max, &bound) == 0 && num_cmp(n, bound) > 0) {
        nd_field_errors_invalid(errs, path, v, "must be at most %s", max);
        nd_field_errors_fix(errs, first, "set %s to %s or less", path, max);
    }
    free(text);
}

void nd_format_check(const json_t *schema, const char *format, const json_t *v, const char *path,
                     struct nd_field_errors *errs)
{
    if (!format)
        return;
    enum kind k = kind_of(format);
    if (k != K_NONE) {
        check_bounded(schema, k, v, path, errs);
        return;
    }
    if (strcmp(format, "int32") == 0) {
        double d = json_is_integer(v) ? (double)json_integer_value(v) : json_number_value(v);
        if (d < -2147483648.0 || d > 2147483647.0)
            nd_field_errors_invalid(errs, path, v, "must fit in a 32-bit integer");
        return;
    }
    const char *s = json_string_value(v);
    if (!s)
        return;
    if (strcmp(format, "date-time") == 0) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t t;
        if (nd_time_parse(s, &t, &st) != 0)
            nd_field_errors_invalid(errs, path, v,
                                    "must be an RFC 3339 time such as \"2026-11-29T16:59:19Z\"");
        nd_status_release(&st);
    } else if (strcmp(format, "cron") == 0) {
        if (!nd_cron_valid(s))
            nd_field_errors_invalid(errs, path, v,
                                    "must be a cron expression of 5 fields (minute hour "
                                    "day-of-month month day-of-week) such as \"0 2 * * 6\"");
    } else if (strcmp(format, "image") == 0) {
        if (!nd_image_ref_valid(s))
            nd_field_errors_invalid(errs, path, v,
                                    "must name a published image as nodus/<name>:<tag>, such "
                                    "as \"nodus/pytorch:2.8-cuda12.8\"");
    } else if (strcmp(format, "dns-label") == 0) {
        if (!nd_is_dns_label(s)) {
            struct nd_status st = ND_STATUS_INIT;
            nd_validate_dns_label(s, path, &st);
            nd_field_errors_add_status(errs, &st);
            nd_status_release(&st);
        }
    }
}
