/* validate.c: an object checked against its kind's schema, as a Kubernetes API server
 * checks a custom resource (structural schema, then the kind's own rules). */
#include "kinds/schema.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/formats.h"
#include "util/buf.h"
#include "util/quote.h"
#include "util/validate.h"
#include "util/xmalloc.h"

struct walk {
    enum nd_field_validation fv;
    json_t *warnings;
    struct nd_field_errors *errs;
    struct nd_buf path; /* the field being looked at */
};

static bool is_whole(const json_t *v)
{
    if (json_is_integer(v))
        return true;
    double d = json_real_value(v);
    return json_is_real(v) && d == (double)(long long)d;
}

static bool type_ok(const json_t *schema, const json_t *v)
{
    if (json_is_true(json_object_get(schema, "x-kubernetes-int-or-string")))
        return json_is_string(v) || json_is_integer(v);
    const char *t = json_string_value(json_object_get(schema, "type"));
    if (!t)
        return true;
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "integer") == 0)
        return is_whole(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    return true;
}

static bool nullable(const json_t *schema)
{
    return json_is_true(json_object_get(schema, "nullable"));
}

/* Present in the Kubernetes sense: a null in a field that is not nullable is pruned. */
static bool present(const json_t *schema, const json_t *v)
{
    return v && (!json_is_null(v) || nullable(schema));
}

static size_t push(struct nd_buf *p, const char *name, bool key)
{
    size_t len = p->len;
    if (key)
        nd_buf_addf(p, "[%s]", name);
    else if (len)
        nd_buf_addf(p, ".%s", name);
    else
        nd_buf_adds(p, name);
    return len;
}

static size_t push_index(struct nd_buf *p, size_t i)
{
    size_t len = p->len;
    nd_buf_addf(p, "[%zu]", i);
    return len;
}

static void unknown(struct walk *w)
{
    if (w->fv == ND_FIELD_VALIDATION_STRICT) {
        nd_field_errors_unknown(w->errs, w->path.data);
    } else if (w->fv == ND_FIELD_VALIDATION_WARN && w->warnings) {
        struct nd_buf b = ND_BUF_INIT;
        nd_buf_adds(&b, "unknown field ");
        nd_quote(&b, w->path.data, 0);
        json_array_append_new(w->warnings, json_string(b.data));
        nd_buf_release(&b);
    }
}

static void walk(struct walk *w, const json_t *schema, const json_t *v);

static void check_enum(struct walk *w, const json_t *en, const json_t *v)
{
    size_t i;
    json_t *e;
    json_array_foreach(en, i, e)
    {
        if (json_equal(e, v))
            return;
    }
    const char **names = nd_xcalloc(json_array_size(en) + 1, sizeof *names);
    char **owned = nd_xcalloc(json_array_size(en) + 1, sizeof *owned);
    json_array_foreach(en, i, e)
    {
        if (json_is_string(e))
            names[i] = json_string_value(e);
        else
            names[i] = owned[i] = json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
    }
    nd_field_errors_not_supported(w->errs, w->path.data, v, names);
    for (i = 0; i < json_array_size(en); i++)
        free(owned[i]);
    free(owned);
    free(names);
}

static size_t utf8_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

static void check_string(struct walk *w, const json_t *schema, const json_t *v)
{
    const char *s = json_string_value(v);
    json_t *min = json_object_get(schema, "minLength");
    json_t *max = json_object_get(schema, "maxLength");
    size_t n = utf8_len(s);
    if (json_is_integer(max) && n > (size_t)json_integer_value(max)) {
        nd_field_errors_too_long(w->errs, w->path.data, (size_t)json_integer_value(max));
        return;
    }
    if (json_is_integer(min) && n < (size_t)json_integer_value(min)) {
        nd_field_errors_invalid(w->errs, w->path.data, v, "must be at least %lld characters long",
                                (long long)json_integer_value(min));
        return;
    }
    const char *pattern = json_string_value(json_object_get(schema, "pattern"));
    if (pattern) {
        regex_t re;
        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0) {
            if (regexec(&re, s, 0, NULL, 0) != 0)
                nd_field_errors_invalid(w->errs, w->path.data, v, "must match '%s'", pattern);
            regfree(&re);
        }
    }
}

static void format_number(struct nd_buf *b, const json_t *n)
{
    nd_field_errors_format_value(b, n);
}

static void check_number(struct walk *w, const json_t *schema, const json_t *v)
{
    json_t *min = json_object_get(schema, "minimum");
    json_t *max = json_object_get(schema, "maximum");
    double d = json_number_value(v);
    struct nd_buf b = ND_BUF_INIT;
    if (json_is_number(min) && d < json_number_value(min)) {
        format_number(&b, min);
        nd_field_errors_invalid(w->errs, w->path.data, v, "must be greater than or equal to %s",
                                b.data);
    } else if (json_is_number(max) && d > json_number_value(max)) {
        format_number(&b, max);
        nd_field_errors_invalid(w->errs, w->path.data, v, "must be less than or equal to %s",
                                b.data);
    }
    nd_buf_release(&b);
}

static void check_array(struct walk *w, const json_t *schema, const json_t *v)
{
    json_t *min = json_object_get(schema, "minItems");
    json_t *max = json_object_get(schema, "maxItems");
    size_t n = json_array_size(v);
    if (json_is_integer(max) && n > (size_t)json_integer_value(max))
        nd_field_errors_too_many(w->errs, w->path.data, n, (size_t)json_integer_value(max));
    if (json_is_integer(min) && n < (size_t)json_integer_value(min)) {
        json_t *count = json_integer((json_int_t)n);
        nd_field_errors_invalid(w->errs, w->path.data, count, "must have at least %lld items",
                                (long long)json_integer_value(min));
        json_decref(count);
    }
    const json_t *items = json_object_get(schema, "items");
    if (!items)
        return;
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        size_t mark = push_index(&w->path, i);
        if (present(nd_schema_deref(items), e))
            walk(w, items, e);
        nd_buf_truncate(&w->path, mark);
    }
}

/* Members of an object; `skip` names a member left alone (status on spec writes). */
static void check_object(struct walk *w, const json_t *schema, const json_t *v, const char *skip)
{
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    bool preserve = json_is_true(json_object_get(schema, "x-kubernetes-preserve-unknown-fields"));
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(schema, "required"), i, r)
    {
        const char *name = json_string_value(r);
        if (!name || (skip && strcmp(name, skip) == 0))
            continue;
        const json_t *ps = nd_schema_deref(json_object_get(props, name));
        if (!present(ps, json_object_get(v, name))) {
            size_t mark = push(&w->path, name, false);
            nd_field_errors_required(w->errs, w->path.data, NULL);
            nd_buf_truncate(&w->path, mark);
        }
    }
    const char *key;
    json_t *member;
    json_object_foreach((json_t *)v, key, member)
    {
        if (skip && strcmp(key, skip) == 0)
            continue;
        const json_t *ps = json_object_get(props, key);
        size_t mark;
        if (ps) {
            mark = push(&w->path, key, false);
            if (present(nd_schema_deref(ps), member))
                walk(w, ps, member);
        } else if (json_is_object(extra)) {
            mark = push(&w->path, key, true);
            if (present(nd_schema_deref(extra), member))
                walk(w, extra, member);
        } else {
            mark = push(&w->path, key, false);
            if (!json_is_true(extra) && !preserve)
                unknown(w);
        }
        nd_buf_truncate(&w->path, mark);
    }
}

static void walk(struct walk *w, const json_t *schema, const json_t *v)
{
    schema = nd_schema_deref(schema);
    if (!schema || json_is_null(v))
        return;
    if (!type_ok(schema, v)) {
        const char *t = json_string_value(json_object_get(schema, "type"));
        nd_field_errors_type_invalid(w->errs, w->path.data, v, "must be of type %s",
                                     t ? t : "integer or string");
        return;
    }
    const json_t *en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        check_enum(w, en, v);
        return;
    }
    const char *format = json_string_value(json_object_get(schema, "format"));
    size_t before = nd_field_errors_count(w->errs);
    if (json_is_string(v))
        check_string(w, schema, v);
    else if (json_is_number(v))
        check_number(w, schema, v);
    else if (json_is_array(v))
        check_array(w, schema, v);
    else if (json_is_object(v))
        check_object(w, schema, v, NULL);
    if (format && nd_field_errors_count(w->errs) == before && !json_is_object(v) &&
        !json_is_array(v))
        nd_format_check(schema, format, v, w->path.data, w->errs);
}

void nd_schema_validate(const json_t *schema, const json_t *value, const char *path,
                        enum nd_field_validation fv, json_t *warnings, struct nd_field_errors *errs)
{
    struct walk w = {fv, warnings, errs, ND_BUF_INIT};
    nd_buf_adds(&w.path, path ? path : "");
    walk(&w, schema, value);
    nd_buf_release(&w.path);
}

/* ---- metadata, apiVersion and kind ---- */

static void import(struct nd_field_errors *errs, struct nd_status *st)
{
    nd_field_errors_add_status(errs, st);
    nd_status_release(st);
}

#define ANNOTATIONS_MAX (256 * 1024)

static void check_metadata(const json_t *meta, struct nd_field_errors *errs)
{
    struct nd_status st = ND_STATUS_INIT;
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    size_t first = nd_field_errors_count(errs);
    if (name && *name) {
        if (!nd_is_dns_label(name))
            nd_validate_dns_label(name, "metadata.name", &st);
    } else if (!gen || !*gen) {
        nd_field_errors_required(errs, "metadata.name", "name or generateName is required");
    }
    if (gen && *gen) {
        /* a prefix: Nodus appends 5 characters, so a trailing '-' is fine */
        size_t n = strlen(gen);
        char *stem = nd_xstrndup(gen, gen[n - 1] == '-' ? n - 1 : n);
        if (*stem && !nd_is_dns_label(stem))
            nd_validate_dns_label(gen, "metadata.generateName", &st);
        free(stem);
    }
    import(errs, &st);
    nd_field_errors_fix(errs, first,
                        "name the object with at most 63 lowercase letters, digits and '-', "
                        "starting and ending with a letter or digit, such as \"train-a\"");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (ns && *ns && !nd_is_dns_label(ns))
        nd_validate_dns_label(ns, "metadata.namespace", &st);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(meta, "labels"), key, v)
    {
        if (!nd_is_label_key(key))
            nd_validate_label_key(key, "metadata.labels", &st);
        if (json_is_string(v) && !nd_is_label_value(json_string_value(v)))
            nd_validate_label_value(json_string_value(v), "metadata.labels", &st);
    }
    size_t total = 0;
    json_object_foreach(json_object_get(meta, "annotations"), key, v)
    {
        if (!nd_is_annotation_key(key))
            nd_validate_annotation_key(key, "metadata.annotations", &st);
        total += strlen(key) + (json_is_string(v) ? json_string_length(v) : 0);
    }
    import(errs, &st);
    if (total > ANNOTATIONS_MAX)
        nd_field_errors_too_long(errs, "metadata.annotations", ANNOTATIONS_MAX);
}

static void check_header(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    const json_t *av = json_object_get(obj, "apiVersion");
    const json_t *kind = json_object_get(obj, "kind");
    if (json_is_string(av) && strcmp(json_string_value(av), k->api_version) != 0)
        nd_field_errors_invalid(errs, "apiVersion", av, "must be %s", k->api_version);
    if (json_is_string(kind) && strcmp(json_string_value(kind), k->kind) != 0)
        nd_field_errors_invalid(errs, "kind", kind, "must be %s", k->kind);
}

static int finish(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs,
                  struct nd_status *st)
{
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    int rc = nd_field_errors_to_status(errs, "Invalid", k, name, st);
    nd_field_errors_release(errs);
    return rc;
}

static int no_schema(const struct nd_kind *k, struct nd_status *st)
{
    struct nd_status why = ND_STATUS_INIT;
    nd_schemas_check(&why);
    nd_status_set(st, "InternalError", NULL, "no schema for %s: %s", k->kind,
                  why.message ? why.message : "unknown");
    nd_status_release(&why);
    return -1;
}

int nd_kind_validate(const struct nd_kind *k, const json_t *obj, enum nd_field_validation fv,
                     json_t *warnings, struct nd_status *st)
{
    const json_t *schema = nd_kind_schema(k);
    if (!schema)
        return no_schema(k, st);
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    if (!json_is_object(obj)) {
        nd_field_errors_type_invalid(&errs, "", obj, "must be of type object");
        return finish(k, obj, &errs, st);
    }
    struct walk w = {fv, warnings, &errs, ND_BUF_INIT};
    check_header(k, obj, &errs);
    const json_t *meta = json_object_get(obj, "metadata");
    if (!meta || json_is_object(meta)) /* else the schema walk reports its type */
        check_metadata(meta, &errs);
    check_object(&w, schema, obj, "status");
    nd_buf_release(&w.path);
    if (k->validate_extra)
        k->validate_extra(k, obj, &errs);
    return finish(k, obj, &errs, st);
}

int nd_kind_validate_status(const struct nd_kind *k, const json_t *obj, enum nd_field_validation fv,
                            json_t *warnings, struct nd_status *st)
{
    const json_t *schema = nd_kind_schema(k);
    if (!schema)
        return no_schema(k, st);
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    const json_t *status = json_object_get(obj, "status");
    const json_t *ss = json_object_get(json_object_get(schema, "properties"), "status");
    if (ss && present(ss, status))
        nd_schema_validate(ss, status, "status", fv, warnings, &errs);
    return finish(k, obj, &errs, st);
}
