/* field_errors.c: Kubernetes' field.ErrorList, and its Status. */
#include "kinds/field_errors.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/quote.h"

void nd_field_errors_init(struct nd_field_errors *e)
{
    e->causes = json_array();
    e->texts = json_array();
    e->fixes = json_array();
}

void nd_field_errors_release(struct nd_field_errors *e)
{
    json_decref(e->causes);
    json_decref(e->texts);
    json_decref(e->fixes);
    e->causes = NULL;
    e->texts = NULL;
    e->fixes = NULL;
}

size_t nd_field_errors_count(const struct nd_field_errors *e)
{
    return json_array_size(e->causes);
}

/* Go's %v of a float64: the shortest text that reads back to the same value. */
static void format_real(struct nd_buf *out, double d)
{
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    nd_buf_adds(out, tmp);
}

void nd_field_errors_format_value(struct nd_buf *out, const json_t *v)
{
    if (!v || json_is_null(v)) {
        nd_buf_adds(out, "null");
    } else if (json_is_string(v)) {
        nd_quote_n(out, json_string_value(v), json_string_length(v), ND_QUOTE_MAX);
    } else if (json_is_integer(v)) {
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_real(v)) {
        format_real(out, json_real_value(v));
    } else if (json_is_boolean(v)) {
        nd_buf_adds(out, json_is_true(v) ? "true" : "false");
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        nd_buf_adds(out, s ? s : "?");
        free(s);
    }
}

/* Records one problem: body is the ErrorBody, text what the aggregate shows. */
static void add(struct nd_field_errors *e, const char *type, const char *field, const char *body,
                const char *text)
{
    json_t *c = json_object();
    json_object_set_new(c, "reason", json_string(type));
    json_object_set_new(c, "message", json_string(body));
    if (field && *field)
        json_object_set_new(c, "field", json_string(field));
    json_array_append_new(e->causes, c);
    json_array_append_new(e->fixes, json_null());
    if (text) {
        json_array_append_new(e->texts, json_string(text));
    } else {
        struct nd_buf t = ND_BUF_INIT;
        if (field && *field)
            nd_buf_addf(&t, "%s: ", field);
        nd_buf_adds(&t, body);
        json_array_append_new(e->texts, json_string(t.data));
        nd_buf_release(&t);
    }
}

static void vadd_value(struct nd_field_errors *e, const char *type, const char *label,
                       const char *field, const json_t *value, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

static void vadd_value(struct nd_field_errors *e, const char *type, const char *label,
                       const char *field, const json_t *value, const char *fmt, va_list ap)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, label);
    if (value) {
        nd_buf_adds(&b, ": ");
        nd_field_errors_format_value(&b, value);
    }
    if (fmt) {
        struct nd_buf detail = ND_BUF_INIT;
        nd_buf_vaddf(&detail, fmt, ap);
        if (detail.len)
            nd_buf_addf(&b, ": %s", detail.data);
        nd_buf_release(&detail);
    }
    add(e, type, field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_required(struct nd_field_errors *e, const char *field, const char *detail)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Required value");
    if (detail && *detail)
        nd_buf_addf(&b, ": %s", detail);
    add(e, "FieldValueRequired", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_invalid(struct nd_field_errors *e, const char *field, const json_t *value,
                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd_value(e, "FieldValueInvalid", "Invalid value", field, value, fmt, ap);
    va_end(ap);
}

void nd_field_errors_type_invalid(struct nd_field_errors *e, const char *field, const json_t *value,
                                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd_value(e, "FieldValueTypeInvalid", "Invalid value", field, value, fmt, ap);
    va_end(ap);
}

void nd_field_errors_not_supported(struct nd_field_errors *e, const char *field,
                                   const json_t *value, const char *const *supported)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Unsupported value: ");
    nd_field_errors_format_value(&b, value);
    if (supported && *supported) {
        nd_buf_adds(&b, ": supported values: ");
        for (size_t i = 0; supported[i]; i++) {
            if (i)
                nd_buf_adds(&b, ", ");
            nd_quote(&b, supported[i], 0);
        }
    }
    add(e, "FieldValueNotSupported", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_forbidden(struct nd_field_errors *e, const char *field, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    nd_buf_adds(&b, "Forbidden: ");
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    add(e, "FieldValueForbidden", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_duplicate(struct nd_field_errors *e, const char *field, const json_t *value)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Duplicate value: ");
    nd_field_errors_format_value(&b, value);
    add(e, "FieldValueDuplicate", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_too_many(struct nd_field_errors *e, const char *field, size_t actual,
                              size_t max)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "Too many: %zu: must have at most %zu items", actual, max);
    add(e, "FieldValueTooMany", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_too_long(struct nd_field_errors *e, const char *field, size_t max)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "Too long: may not be longer than %zu", max);
    add(e, "FieldValueTooLong", field, b.data, NULL);
    nd_buf_release(&b);
}

void nd_field_errors_unknown(struct nd_field_errors *e, const char *field)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "unknown field ");
    nd_quote(&b, field, 0);
    add(e, "FieldValueInvalid", field, b.data, b.data);
    nd_buf_release(&b);
}

void nd_field_errors_add_status(struct nd_field_errors *e, const struct nd_status *st)
{
    json_t *causes = st->details ? json_object_get(st->details, "causes") : NULL;
    size_t i;
    json_t *c;
    json_array_foreach(causes, i, c)
    {
        const char *reason = json_string_value(json_object_get(c, "reason"));
        const char *field = json_string_value(json_object_get(c, "field"));
        const char *msg = json_string_value(json_object_get(c, "message"));
        add(e, reason ? reason : "FieldValueInvalid", field, msg ? msg : "", NULL);
    }
}

void nd_field_errors_fix(struct nd_field_errors *e, size_t first, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    for (size_t i = first; i < json_array_size(e->fixes); i++)
        json_array_set_new(e->fixes, i, json_string(b.data));
    nd_buf_release(&b);
}

/* The problems' own fixes, each once, joined with "; " into out; false when one has none. */
static bool own_fixes(const struct nd_field_errors *e, struct nd_buf *out)
{
    size_t i;
    json_t *f;
    json_array_foreach(e->fixes, i, f)
    {
        if (!json_is_string(f))
            return false;
    }
    json_array_foreach(e->fixes, i, f)
    {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = json_equal(json_array_get(e->fixes, j), f);
        if (!seen)
            nd_buf_addf(out, "%s%s", out->len ? "; " : "", json_string_value(f));
    }
    return true;
}

int nd_field_errors_to_status(const struct nd_field_errors *e, const char *reason,
                              const struct nd_kind *k, const char *name, struct nd_status *st)
{
    size_t n = json_array_size(e->causes);
    if (n == 0)
        return 0;
    /* Identical texts show once in the message (field.ErrorList.ToAggregate). */
    json_t *uniq = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(e->texts, i, t)
    {
        bool seen = false;
        for (size_t j = 0; j < json_array_size(uniq) && !seen; j++)
            seen = json_equal(json_array_get(uniq, j), t);
        if (!seen)
            json_array_append(uniq, t);
    }
    struct nd_buf m = ND_BUF_INIT;
    nd_buf_adds(&m, k->kind);
    if (*k->group)
        nd_buf_addf(&m, ".%s", k->group);
    nd_buf_adds(&m, " ");
    nd_quote(&m, name ? name : "", 0);
    nd_buf_adds(&m, " is invalid: ");
    if (json_array_size(uniq) > 1)
        nd_buf_addch(&m, '[');
    json_array_foreach(uniq, i, t)
    {
        if (i)
            nd_buf_adds(&m, ", ");
        nd_buf_adds(&m, json_string_value(t));
    }
    if (json_array_size(uniq) > 1)
        nd_buf_addch(&m, ']');
    json_decref(uniq);

    nd_status_set(st, reason, NULL, "%s", m.data);
    nd_buf_release(&m);
    /* what to do: the problems' own fix, else the reason's with the kind (and object) */
    struct nd_buf own = ND_BUF_INIT;
    if (own_fixes(e, &own))
        nd_status_set_fix(st, "%s", own.data);
    else if (nd_reason_parse(reason) == ND_REASON_INVALID)
        nd_status_set_fix(st, "correct the fields named in the causes; see what a %s takes: "
                              "nodus explain %s --recursive",
                          k->kind, k->singular);
    else if (nd_reason_parse(reason) == ND_REASON_FIELD_IMMUTABLE && name && *name)
        nd_status_set_fix(st, "delete and recreate the object to change those fields: "
                              "nodus delete %s %s --wait && nodus create -f FILE",
                          k->singular, name);
    nd_buf_release(&own);
    nd_status_set_target(st, name ? name : "", *k->group ? k->group : NULL, k->kind);
    json_object_set_new(st->details, "causes", json_deep_copy(e->causes));
    return -1;
}
