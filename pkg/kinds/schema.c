/* schema.c: loading the embedded kind schemas once, resolving their includes, and
 * assembling each kind's whole object schema. */
#include "kinds/schema.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/embed.h"
#include "util/quote.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

extern const struct nd_embed nd_kind_schema_files[];

#define OBJECT_META       "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
#define INCLUDE_KEY       "x-nodus-include"
#define MAX_INCLUDE_DEPTH 8

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static json_t *files;        /* "job" -> the parsed job.yaml, includes resolved */
static json_t *kind_schemas; /* kind -> whole object schema */
static char *load_error;     /* why loading failed; NULL when it did not */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    if (load_error)
        return; /* the first problem is the one to fix */
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    load_error = nd_buf_detach(&b);
}

/* The node at "file#a.b.c" among the raw files. BORROWED. */
static const json_t *include_target(const char *ref)
{
    const char *hash = strchr(ref, '#');
    if (!hash)
        return NULL;
    char *file = nd_xstrndup(ref, (size_t)(hash - ref));
    const json_t *node = json_object_get(files, file);
    free(file);
    const char *p = hash + 1;
    while (node && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char *key = nd_xstrndup(p, n);
        node = json_object_get(node, key);
        free(key);
        p += n;
        if (*p == '.')
            p++;
    }
    return node;
}

/* Returns node with every include below it resolved: a NEW reference (node itself,
 * changed in place, or its replacement). */
static json_t *resolve(json_t *node, int depth, const char *where)
{
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            json_array_set_new(node, i, resolve(json_array_get(node, i), depth, where));
        return json_incref(node);
    }
    if (!json_is_object(node))
        return json_incref(node);

    const char *ref = json_string_value(json_object_get(node, INCLUDE_KEY));
    if (ref) {
        const json_t *target = include_target(ref);
        if (!target || depth >= MAX_INCLUDE_DEPTH) {
            fail("%s: cannot include \"%s\"", where, ref);
            return json_incref(node);
        }
        json_t *copy = json_deep_copy(target);
        json_t *resolved = resolve(copy, depth + 1, where);
        json_decref(copy);
        /* keys beside the include override the included ones */
        const char *key;
        json_t *v;
        json_object_foreach(node, key, v)
        {
            if (strcmp(key, INCLUDE_KEY) != 0)
                json_object_set(resolved, key, v);
        }
        json_t *out = resolve(resolved, depth + 1, where);
        json_decref(resolved);
        return out;
    }
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(node, tmp, key, v)
    {
        json_object_set_new(node, key, resolve(v, depth, where));
    }
    return json_incref(node);
}

static json_t *string_prop(const char *description)
{
    return json_pack("{s:s, s:s}", "description", description, "type", "string");
}

static json_t *assemble(const struct nd_kind *k, const json_t *file)
{
    json_t *props = json_object();
    struct nd_buf d = ND_BUF_INIT;
    nd_buf_addf(&d,
                "APIVersion is the group and version of the object's schema: %s. Servers "
                "reject other versions of this kind.",
                k->api_version);
    json_object_set_new(props, "apiVersion", string_prop(d.data));
    nd_buf_reset(&d);
    nd_buf_addf(&d, "Kind is the kind of the object: %s.", k->kind);
    json_object_set_new(props, "kind", string_prop(d.data));
    nd_buf_release(&d);
    /* kubectl explain shows a description beside a $ref (the reference wins for
     * everything else, as OpenAPI 3.0 says) */
    json_object_set_new(props, "metadata",
                        json_pack("{s:s, s:s}", "$ref", "#/components/schemas/" OBJECT_META,
                                  "description",
                                  "Metadata is the object's name, project, labels and "
                                  "annotations, and what Nodus maintains about it."));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(file, "properties"), key, v)
    {
        json_object_set(props, key, v);
    }

    json_t *s = json_object();
    json_object_set(s, "description", json_object_get(file, "description"));
    json_object_set_new(s, "type", json_string("object"));
    if (json_object_get(file, "required"))
        json_object_set(s, "required", json_object_get(file, "required"));
    json_object_set_new(s, "properties", props);
    json_object_set_new(
        s, "x-kubernetes-group-version-kind",
        json_pack("[{s:s, s:s, s:s}]", "group", k->group, "version", k->version, "kind", k->kind));
    return s;
}

static char *base_name(const char *file)
{
    const char *dot = strrchr(file, '.');
    return nd_xstrndup(file, dot ? (size_t)(dot - file) : strlen(file));
}

static void load(void)
{
    files = json_object();
    kind_schemas = json_object();
    for (const struct nd_embed *e = nd_kind_schema_files; e->name; e++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *doc = nd_yaml_load(e->data, e->len, e->name, &st);
        if (!doc) {
            fail("%s", st.message ? st.message : e->name);
            nd_status_release(&st);
            continue;
        }
        char *name = base_name(e->name);
        json_object_set_new(files, name, doc);
        free(name);
    }
    /* Resolve every file's includes. They read the raw files, so order does not matter. */
    json_t *resolved = json_object();
    const char *name;
    json_t *doc;
    json_object_foreach(files, name, doc)
    {
        json_t *copy = json_deep_copy(doc);
        json_object_set_new(resolved, name, resolve(copy, 0, name));
        json_decref(copy);
    }
    json_decref(files);
    files = resolved;

    if (!json_is_object(json_object_get(json_object_get(files, "meta"), "components")))
        fail("meta.yaml: no components");
    for (size_t i = 0; i < nd_kind_served_count(); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        char *base = base_name(k->schema_file);
        const json_t *file = json_object_get(files, base);
        free(base);
        if (!json_is_object(file) || !json_is_object(json_object_get(file, "properties"))) {
            fail("%s: missing, or without properties (kind %s)", k->schema_file, k->kind);
            continue;
        }
        char *key = nd_xasprintf("%s/%s", k->api_version, k->kind);
        json_object_set_new(kind_schemas, key, assemble(k, file));
        free(key);
    }
}

static void ensure_loaded(void)
{
    pthread_once(&load_once, load);
}

const json_t *nd_kind_schema(const struct nd_kind *k)
{
    ensure_loaded();
    /* the core and events.k8s.io groups both have an Event: apiVersion/Kind is the key */
    char *key = nd_xasprintf("%s/%s", k->api_version, k->kind);
    const json_t *s = json_object_get(kind_schemas, key);
    free(key);
    return s;
}

const json_t *nd_schema_components(void)
{
    ensure_loaded();
    return json_object_get(json_object_get(files, "meta"), "components");
}

int nd_schemas_check(struct nd_status *st)
{
    ensure_loaded();
    if (load_error)
        return nd_status_set(st, "InternalError", NULL, "kind schemas: %s", load_error);
    for (size_t i = 0; i < nd_kind_served_count(); i++)
        if (!nd_kind_schema(nd_kind_served(i)))
            return nd_status_set(st, "InternalError", NULL, "kind schemas: no schema for %s",
                                 nd_kind_served(i)->kind);
    return 0;
}

/* Follows a "#/components/schemas/NAME" reference. BORROWED. */
const json_t *nd_schema_deref(const json_t *schema)
{
    for (int i = 0; i < 4 && schema; i++) {
        const char *ref = json_string_value(json_object_get(schema, "$ref"));
        if (!ref)
            return schema;
        static const char prefix[] = "#/components/schemas/";
        if (strncmp(ref, prefix, sizeof prefix - 1) != 0)
            return NULL;
        schema = json_object_get(nd_schema_components(), ref + sizeof prefix - 1);
    }
    return schema;
}

/* The schema one step below s: a member name, or a bracket ([3] or [key]). */
static const json_t *step(const json_t *s, const char *seg, size_t n, bool bracket)
{
    s = nd_schema_deref(s);
    if (!s)
        return NULL;
    if (bracket) {
        const char *type = json_string_value(json_object_get(s, "type"));
        if (type && strcmp(type, "array") == 0)
            return json_object_get(s, "items");
        const json_t *ap = json_object_get(s, "additionalProperties");
        return json_is_object(ap) ? ap : NULL;
    }
    char *key = nd_xstrndup(seg, n);
    const json_t *p = json_object_get(json_object_get(s, "properties"), key);
    free(key);
    if (p)
        return p;
    const json_t *ap = json_object_get(s, "additionalProperties");
    return json_is_object(ap) ? ap : NULL;
}

const json_t *nd_schema_at(const json_t *schema, const char *path)
{
    const char *p = path ? path : "";
    const json_t *s = schema;
    while (s && *p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            const char *end = strchr(p, ']');
            if (!end)
                return NULL;
            s = step(s, p + 1, (size_t)(end - p - 1), true);
            p = end + 1;
            continue;
        }
        size_t n = strcspn(p, ".[");
        s = step(s, p, n, false);
        p += n;
    }
    return s ? nd_schema_deref(s) : NULL;
}

int nd_field_validation_parse(const char *s, enum nd_field_validation *out, struct nd_status *st)
{
    if (!s || !*s || strcmp(s, "Warn") == 0) {
        *out = ND_FIELD_VALIDATION_WARN;
    } else if (strcmp(s, "Ignore") == 0) {
        *out = ND_FIELD_VALIDATION_IGNORE;
    } else if (strcmp(s, "Strict") == 0) {
        *out = ND_FIELD_VALIDATION_STRICT;
    } else {
        struct nd_buf b = ND_BUF_INIT;
        nd_quote(&b, s, ND_QUOTE_MAX);
        nd_status_set(st, "BadRequest", "use Ignore, Warn or Strict",
                      "invalid fieldValidation %s: must be Ignore, Warn or Strict", b.data);
        nd_buf_release(&b);
        return -1;
    }
    return 0;
}
