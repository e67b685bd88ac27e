/* manifest.c: the shared reader of -f input (JSON or YAML, lists expanded). */
#include "json/json.h"

#include <stdbool.h>
#include <string.h>

#include "util/buf.h"
#include "yaml/yaml.h"

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

struct doc {
    const char *source;
    size_t line, index; /* where the document starts; its 1-based number */
    struct nd_status *st;
    json_t *fields;     /* the document's field lines (yaml.h), or NULL */
    json_t *where;      /* when not NULL: receives one {line, fields} per object */
};

/* The entries of fields under prefix (segments joined with ND_YAML_PATH_SEP; "" is the
 * whole), re-rooted there. NEW. */
static json_t *fields_under(const json_t *fields, const char *prefix)
{
    size_t n = strlen(prefix);
    if (!n)
        return json_deep_copy(fields);
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)fields, k, v) {
        if (strncmp(k, prefix, n) == 0 && k[n] == ND_YAML_PATH_SEP)
            json_object_set(out, k + n + 1, v);
    }
    return out;
}

/* "<file>:<line>:1: document N[: path] is <what>, not <want>" */
static int fail(const struct doc *d, const char *path, const char *what, const char *want)
{
    struct nd_buf b = ND_BUF_INIT;
    if (d->source)
        nd_buf_addf(&b, "%s:%zu:1: ", strcmp(d->source, "-") == 0 ? "<stdin>" : d->source, d->line);
    else
        nd_buf_addf(&b, "line %zu, column 1: ", d->line);
    nd_buf_addf(&b, "document %zu", d->index);
    if (*path)
        nd_buf_addf(&b, ": %s", path);
    nd_status_set(d->st, "BadRequest", NULL, "%s is %s, not %s", b.data, what, want);
    nd_buf_release(&b);
    return -1;
}

static bool is_list(const json_t *v)
{
    const char *kind = json_string_value(json_object_get(v, "kind"));
    if (!kind)
        return false;
    size_t n = strlen(kind);
    if (strcmp(kind, "List") == 0)
        return true;
    return n > 4 && strcmp(kind + n - 4, "List") == 0 && json_is_array(json_object_get(v, "items"));
}

/* Appends v, or the items of a list (recursively), to out. path names v in messages;
 * seg is the same path as segments of the document's fields. */
static int add(json_t *out, json_t *v, const struct doc *d, const char *path, const char *seg)
{
    if (!json_is_object(v))
        return fail(d, path, type_name(v), "an object");
    if (!is_list(v)) {
        json_array_append(out, v);
        if (d->where) {
            json_t *f = d->fields ? fields_under(d->fields, seg) : json_object();
            json_t *line = *seg && d->fields ? json_object_get(d->fields, seg) : NULL;
            json_array_append_new(d->where,
                                  json_pack("{s:I,s:o}", "line",
                                            line ? json_integer_value(line)
                                                 : (json_int_t)d->line,
                                            "fields", f));
        }
        return 0;
    }
    json_t *items = json_object_get(v, "items");
    if (items && !json_is_array(items) && !json_is_null(items)) {
        struct nd_buf p = ND_BUF_INIT;
        nd_buf_addf(&p, "%s%sitems", path, *path ? "." : "");
        fail(d, p.data, type_name(items), "a list");
        nd_buf_release(&p);
        return -1;
    }
    size_t i;
    json_t *item;
    int rc = 0;
    json_array_foreach(items, i, item)
    {
        struct nd_buf p = ND_BUF_INIT, s = ND_BUF_INIT;
        nd_buf_addf(&p, "%s%sitems[%zu]", path, *path ? "." : "", i);
        if (*seg)
            nd_buf_addf(&s, "%s%c", seg, ND_YAML_PATH_SEP);
        nd_buf_addf(&s, "items%c%zu", ND_YAML_PATH_SEP, i);
        rc = add(out, item, d, p.data, s.data);
        nd_buf_release(&s);
        nd_buf_release(&p);
        if (rc < 0)
            break;
    }
    return rc;
}

json_t *nd_manifest_load_all(const char *data, size_t len, const char *source, struct nd_status *st)
{
    return nd_manifest_load_all_where(data, len, source, NULL, st);
}

json_t *nd_manifest_load_all_where(const char *data, size_t len, const char *source,
                                   json_t **where, struct nd_status *st)
{
    if (where)
        *where = NULL;
    if (!data) {
        data = "";
        len = 0;
    }
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    json_t *lines = NULL, *fields = NULL, *docs;
    /* as kubectl: a text starting with '{' is JSON (a stream of objects), else YAML */
    if (i < len && data[i] == '{')
        docs = nd_json_load_stream(data, len, source, &lines, st);
    else
        docs = nd_yaml_load_all_fields(data, len, source, &lines, where ? &fields : NULL, st);
    if (!docs)
        return NULL;
    json_t *out = json_array();
    json_t *w = where ? json_array() : NULL;
    size_t n;
    json_t *v;
    json_array_foreach(docs, n, v)
    {
        if (json_is_null(v))
            continue;
        struct doc d = {source, (size_t)json_integer_value(json_array_get(lines, n)), n + 1, st,
                        json_array_get(fields, n), w};
        if (add(out, v, &d, "", "") < 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    }
    json_decref(docs);
    json_decref(lines);
    json_decref(fields);
    if (where && out)
        *where = w;
    else
        json_decref(w);
    return out;
}

/* The next segment of a field path as the API writes it ("spec.env[0].name",
 * "metadata.labels[a.b/c]"): a name up to '.' or '[', or what is inside brackets. */
static const char *next_segment(const char *p, struct nd_buf *seg)
{
    nd_buf_reset(seg);
    if (*p == '.')
        p++;
    if (*p == '[') {
        const char *end = strchr(p, ']');
        if (!end)
            end = p + strlen(p);
        nd_buf_add(seg, p + 1, (size_t)(end - p - 1));
        return *end ? end + 1 : end;
    }
    size_t n = strcspn(p, ".[");
    nd_buf_add(seg, p, n);
    return p + n;
}

size_t nd_manifest_field_line(const json_t *where, const char *field)
{
    const json_t *fields = json_object_get(where, "fields");
    size_t line = (size_t)json_integer_value(json_object_get(where, "line"));
    struct nd_buf path = ND_BUF_INIT, seg = ND_BUF_INIT;
    const char *p = field ? field : "";
    while (*p) {
        p = next_segment(p, &seg);
        if (!seg.len)
            continue;
        if (path.len)
            nd_buf_addch(&path, ND_YAML_PATH_SEP);
        nd_buf_add(&path, seg.data, seg.len);
        /* the deepest part of the path the file writes (the rest came from an alias, a
         * merge key, or is missing, as for a required field: its parent's line) */
        const json_t *l = json_object_get(fields, path.data);
        if (l)
            line = (size_t)json_integer_value(l);
    }
    nd_buf_release(&seg);
    nd_buf_release(&path);
    return line;
}
