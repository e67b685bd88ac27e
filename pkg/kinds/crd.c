/* crd.c: the CustomResourceDefinition of a kind, from the registry and the kind schemas. */
#include "kinds/crd.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/schema.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define MAX_DEPTH 32

/* nodus's string formats, which Kubernetes does not know: each becomes a pattern that
 * accepts what nodus accepts (as near as a regular expression can say it), or nothing. */
static const struct {
    const char *format;
    const char *pattern; /* NULL: the format is dropped, the field stays a plain string */
} nodus_formats[] = {
    /* decimal US dollars, at most 6 decimal places, not negative (util/money.h) */
    {"money", "^[0-9]+(\\.[0-9]{1,6})?$"},
    /* Kubernetes' quantity, not negative */
    {"quantity", "^\\+?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                 "([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"},
    {"dns-label", "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"},
    /* nodus/<dns-label>:<tag> (formats.h) */
    {"image", "^nodus/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"},
    /* five cron fields: more than a pattern should try to say */
    {"cron", NULL},
};

/* Formats kube-apiserver checks (or knows, for numbers), kept as they are. */
static const char *const kube_formats[] = {
    "int32", "int64", "float", "double", "byte", "date", "date-time", "duration", NULL,
};

/* Keys copied as they are, in this order, after description, type and format. */
static const char *const plain_keys[] = {
    "enum",     "default",          "nullable",      "minimum",       "exclusiveMinimum",
    "maximum",  "exclusiveMaximum", "multipleOf",    "minLength",     "maxLength",
    "minItems", "maxItems",         "minProperties", "maxProperties", "required",
    NULL,
};

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

static int fail(struct nd_status *st, const char *kind, const char *path, const char *what)
{
    return nd_status_set(st, "InternalError", NULL,
                         "the schema of %s cannot be made structural: %s: %s", kind,
                         *path ? path : "(root)", what);
}

/* A child's path: "spec" + "image" -> "spec.image", "spec.env" + "[*]". */
static char *child_path(const char *path, const char *key, bool index)
{
    if (index)
        return nd_xasprintf("%s[*]", path);
    return *path ? nd_xasprintf("%s.%s", path, key) : nd_xstrdup(key);
}

static void add_format(json_t *out, const json_t *s)
{
    const char *format = json_string_value(json_object_get(s, "format"));
    const char *pattern = json_string_value(json_object_get(s, "pattern"));
    if (format && in_list(kube_formats, format))
        json_object_set_new(out, "format", json_string(format));
    for (size_t i = 0; format && !pattern && i < sizeof nodus_formats / sizeof nodus_formats[0];
         i++)
        if (strcmp(format, nodus_formats[i].format) == 0 && nodus_formats[i].pattern)
            pattern = nodus_formats[i].pattern;
    if (pattern)
        json_object_set_new(out, "pattern", json_string(pattern));
}

static json_t *convert(const char *kind, const json_t *in, const char *path, int depth,
                       struct nd_status *st);

/* Converts the members of s that hold schemas (items, properties, additionalProperties)
 * into out. 0, or -1 with st. */
static int add_children(const char *kind, const json_t *s, const char *path, int depth, json_t *out,
                        struct nd_status *st)
{
    const char *type = json_string_value(json_object_get(s, "type"));
    const json_t *items = json_object_get(s, "items");
    const json_t *props = json_object_get(s, "properties");
    const json_t *addl = json_object_get(s, "additionalProperties");
    if (type && strcmp(type, "array") == 0 && !json_is_object(items))
        return fail(st, kind, path, "an array without items");
    if (json_object_size(props) > 0 && addl && !json_is_false(addl))
        return fail(st, kind, path, "properties and additionalProperties together");
    if (json_is_object(items)) {
        char *p = child_path(path, NULL, true);
        json_t *c = convert(kind, items, p, depth + 1, st);
        free(p);
        if (!c)
            return -1;
        json_object_set_new(out, "items", c);
    }
    if (json_is_object(props)) {
        json_t *outp = json_object();
        json_object_set_new(out, "properties", outp);
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)props, key, v)
        {
            char *p = child_path(path, key, false);
            /* metadata at the root is the API server's: `type: object` and nothing more */
            json_t *c = depth == 0 && strcmp(key, "metadata") == 0
                            ? json_pack("{s:s}", "type", "object")
                            : convert(kind, v, p, depth + 1, st);
            free(p);
            if (!c)
                return -1;
            json_object_set_new(outp, key, c);
        }
    }
    if (json_is_object(addl)) {
        char *p = child_path(path, NULL, true);
        json_t *c = convert(kind, addl, p, depth + 1, st);
        free(p);
        if (!c)
            return -1;
        json_object_set_new(out, "additionalProperties", c);
    } else if (json_is_true(addl)) {
        /* any members at all: the structural way to say it */
        json_object_set_new(out, "x-kubernetes-preserve-unknown-fields", json_true());
    }
    return 0;
}

/* The structural form of one schema node. NEW, or NULL with st. */
static json_t *convert(const char *kind, const json_t *in, const char *path, int depth,
                       struct nd_status *st)
{
    if (depth > MAX_DEPTH) {
        fail(st, kind, path, "nested too deep (a $ref cycle?)");
        return NULL;
    }
    const json_t *s = json_object_get(in, "$ref") ? nd_schema_deref(in) : in;
    if (!json_is_object(s)) {
        fail(st, kind, path, "a $ref to nothing, or not a schema");
        return NULL;
    }
    json_t *out = json_object();
    const json_t *desc = json_object_get(in, "description");
    if (!desc)
        desc = json_object_get(s, "description");
    if (json_is_string(desc))
        json_object_set(out, "description", (json_t *)desc);

    bool int_or_string = json_is_true(json_object_get(s, "x-kubernetes-int-or-string"));
    bool preserve = json_is_true(json_object_get(s, "x-kubernetes-preserve-unknown-fields"));
    const char *type = json_string_value(json_object_get(s, "type"));
    if (int_or_string) {
        /* the type is given by anyOf; a `type` would refuse one of the two */
    } else if (type && strcmp(type, "null") != 0) {
        json_object_set_new(out, "type", json_string(type));
    } else if (!preserve) {
        json_decref(out);
        fail(st, kind, path, "no type");
        return NULL;
    }
    add_format(out, s);
    for (const char *const *k = plain_keys; *k; k++) {
        const json_t *v = json_object_get(s, *k);
        if (v && !(strcmp(*k, "nullable") == 0 && !json_is_true(v)))
            json_object_set(out, *k, (json_t *)v);
    }
    if (add_children(kind, s, path, depth, out, st) < 0) {
        json_decref(out);
        return NULL;
    }
    if (int_or_string) {
        json_object_set_new(out, "anyOf",
                            json_pack("[{s:s}, {s:s}]", "type", "integer", "type", "string"));
        json_object_set_new(out, "x-kubernetes-int-or-string", json_true());
    }
    if (preserve)
        json_object_set_new(out, "x-kubernetes-preserve-unknown-fields", json_true());
    return out;
}

json_t *nd_crd_structural_new(const json_t *schema, const char *what, struct nd_status *st)
{
    return convert(what, schema, "", 0, st);
}

json_t *nd_crd_schema_new(const struct nd_kind *k, struct nd_status *st)
{
    if (nd_schemas_check(st) < 0)
        return NULL;
    const json_t *schema = nd_kind_schema(k);
    if (!schema) {
        nd_status_set(st, "InternalError", NULL, "kind %s has no schema", k->kind);
        return NULL;
    }
    return nd_crd_structural_new(schema, k->kind, st);
}

/* The kind's printer columns as additionalPrinterColumns: all but NAME, which the API
 * server puts first itself. */
static json_t *columns(const struct nd_kind *k)
{
    json_t *a = json_array();
    for (const struct nd_column *c = k->columns; c->name; c++) {
        if (strcmp(c->format, "name") == 0)
            continue;
        json_t *col =
            json_pack("{s:s, s:s, s:s}", "name", c->name, "type", c->type, "jsonPath", c->jsonpath);
        if (*c->format)
            json_object_set_new(col, "format", json_string(c->format));
        if (c->priority)
            json_object_set_new(col, "priority", json_integer(c->priority));
        json_object_set_new(col, "description", json_string(c->description));
        json_array_append_new(a, col);
    }
    return a;
}

static json_t *string_list(const char *const *list)
{
    json_t *a = json_array();
    for (; list && *list; list++)
        json_array_append_new(a, json_string(*list));
    return a;
}

json_t *nd_crd_new(const struct nd_kind *k, struct nd_status *st)
{
    json_t *schema = nd_crd_schema_new(k, st);
    if (!schema)
        return NULL;
    char name[ND_KIND_NAME_MAX];
    nd_kind_resource_name(k, name, sizeof name);
    json_t *names = json_pack("{s:s, s:s, s:s, s:s}", "plural", k->plural, "singular", k->singular,
                              "kind", k->kind, "listKind", k->list_kind);
    if (k->short_names && k->short_names[0])
        json_object_set_new(names, "shortNames", string_list(k->short_names));
    if (k->categories && k->categories[0])
        json_object_set_new(names, "categories", string_list(k->categories));

    json_t *version = json_pack("{s:s, s:b, s:b}", "name", k->version, "served", 1, "storage", 1);
    if (nd_kind_has_subresource(k, "status"))
        json_object_set_new(version, "subresources", json_pack("{s:{}}", "status"));
    json_t *cols = columns(k);
    if (json_array_size(cols) > 0)
        json_object_set_new(version, "additionalPrinterColumns", cols);
    else
        json_decref(cols);
    json_object_set_new(version, "schema", json_pack("{s:o}", "openAPIV3Schema", schema));

    json_t *crd = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s, s:o, s:s, s:[o]}}", "apiVersion",
                            "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
                            "metadata", "name", name, "labels", "app.kubernetes.io/part-of",
                            "nodus", "spec", "group", k->group, "names", names, "scope",
                            k->namespaced ? "Namespaced" : "Cluster", "versions", version);
    return crd;
}
