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
};

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

/* Appends v, or the items of a list (recursively), to out. path names v in messages. */
static int add(json_t *out, json_t *v, const struct doc *d, const char *path)
{
    if (!json_is_object(v))
        return fail(d, path, type_name(v), "an object");
    if (!is_list(v)) {
        json_array_append(out, v);
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
        struct nd_buf p = ND_BUF_INIT;
        nd_buf_addf(&p, "%s%sitems[%zu]", path, *path ? "." : "", i);
        rc = add(out, item, d, p.data);
        nd_buf_release(&p);
        if (rc < 0)
            break;
    }
    return rc;
}

json_t *nd_manifest_load_all(const char *data, size_t len, const char *source, struct nd_status *st)
{
    if (!data) {
        data = "";
        len = 0;
    }
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    json_t *lines = NULL, *docs;
    /* as kubectl: a text starting with '{' is JSON (a stream of objects), else YAML */
    if (i < len && data[i] == '{')
        docs = nd_json_load_stream(data, len, source, &lines, st);
    else
        docs = nd_yaml_load_all_lines(data, len, source, &lines, st);
    if (!docs)
        return NULL;
    json_t *out = json_array();
    size_t n;
    json_t *v;
    json_array_foreach(docs, n, v)
    {
        if (json_is_null(v))
            continue;
        struct doc d = {source, (size_t)json_integer_value(json_array_get(lines, n)), n + 1, st};
        if (add(out, v, &d, "") < 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    }
    json_decref(docs);
    json_decref(lines);
    return out;
}
