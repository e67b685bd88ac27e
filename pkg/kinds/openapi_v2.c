/* openapi_v2.c: the Swagger 2.0 document of /openapi/v2, made from the two OpenAPI v3
 * documents (see openapi.h): the same paths, operations and schemas, in v2's shape. */
#include "kinds/openapi.h"

#include <string.h>

#include "util/buf.h"

#define V3_REF "#/components/schemas/"
#define V2_REF "#/definitions/"

static json_t *schema_v2(const json_t *s);

/* A map of schemas (properties). */
static json_t *schema_map(const json_t *m)
{
    json_t *out = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)m, name, v)
    {
        json_object_set_new(out, name, schema_v2(v));
    }
    return out;
}

/* A v3 schema in v2: references into #/definitions/, no `nullable` (v2 has none; the
 * type stays, so explain still shows what the field holds). */
static json_t *schema_v2(const json_t *s)
{
    if (!json_is_object(s))
        return json_deep_copy(s);
    json_t *out = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)s, key, v)
    {
        if (strcmp(key, "nullable") == 0)
            continue;
        if (strcmp(key, "$ref") == 0 && json_is_string(v) &&
            strncmp(json_string_value(v), V3_REF, strlen(V3_REF)) == 0) {
            struct nd_buf b = ND_BUF_INIT;
            nd_buf_addf(&b, V2_REF "%s", json_string_value(v) + strlen(V3_REF));
            json_object_set_new(out, key, json_string(b.data));
            nd_buf_release(&b);
        } else if (strcmp(key, "properties") == 0) {
            json_object_set_new(out, key, schema_map(v));
        } else if (strcmp(key, "items") == 0 || strcmp(key, "additionalProperties") == 0) {
            json_object_set_new(out, key, schema_v2(v));
        } else if (strcmp(key, "allOf") == 0 && json_is_array(v)) {
            json_t *a = json_array();
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                json_array_append_new(a, schema_v2(e));
            }
            json_object_set_new(out, key, a);
        } else {
            json_object_set_new(out, key, json_deep_copy(v));
        }
    }
    return out;
}

/* A query or path parameter: v3's schema.type becomes the parameter's own type. */
static json_t *param_v2(const json_t *p)
{
    json_t *out = json_pack("{s:O, s:O}", "name", json_object_get(p, "name"), "in",
                            json_object_get(p, "in"));
    json_t *d = json_object_get(p, "description");
    if (d && *json_string_value(d))
        json_object_set(out, "description", d);
    if (json_is_true(json_object_get(p, "required")))
        json_object_set_new(out, "required", json_true());
    json_t *type = json_object_get(json_object_get(p, "schema"), "type");
    json_object_set_new(out, "type", type ? json_incref(type) : json_string("string"));
    if (strcmp(json_string_value(json_object_get(p, "in")), "query") == 0)
        json_object_set_new(out, "uniqueItems", json_true());
    return out;
}

static json_t *params_v2(const json_t *list)
{
    json_t *a = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(list, i, p)
    {
        json_array_append_new(a, param_v2(p));
    }
    return a;
}

/* The schema of a v3 content map (its first media type's). */
static const json_t *content_schema(const json_t *content)
{
    void *it = json_object_iter((json_t *)content);
    return it ? json_object_get(json_object_iter_value(it), "schema") : NULL;
}

static json_t *operation_v2(const json_t *op)
{
    json_t *out = json_object();
    json_t *v;
    if ((v = json_object_get(op, "description")))
        json_object_set(out, "description", v);
    /* what kube-apiserver says an operation takes and gives */
    json_t *body = json_object_get(op, "requestBody");
    json_t *consumes = json_array();
    const char *type;
    json_object_foreach(json_object_get(body, "content"), type, v)
    {
        json_array_append_new(consumes, json_string(type));
    }
    if (!json_array_size(consumes))
        json_array_append_new(consumes, json_string("*/*"));
    json_object_set_new(out, "consumes", consumes);
    json_t *produces = json_pack("[s, s]", "application/json", "application/yaml");
    const json_t *ok = json_object_get(json_object_get(json_object_get(op, "responses"), "200"),
                                       "content");
    if (json_object_get(ok, "application/json;stream=watch")) /* a watch */
        json_array_append_new(produces, json_string("application/json;stream=watch"));
    json_object_set_new(out, "produces", produces);
    json_object_set_new(out, "schemes", json_pack("[s]", "https"));
    if ((v = json_object_get(op, "tags")))
        json_object_set(out, "tags", v);
    if ((v = json_object_get(op, "operationId")))
        json_object_set(out, "operationId", v);
    json_t *params = json_array();
    if (body)
        json_array_append_new(
            params, json_pack("{s:s, s:s, s:b, s:o}", "name", "body", "in", "body", "required",
                              json_is_true(json_object_get(body, "required")), "schema",
                              schema_v2(content_schema(json_object_get(body, "content")))));
    json_t *query = params_v2(json_object_get(op, "parameters"));
    json_array_extend(params, query);
    json_decref(query);
    json_object_set_new(out, "parameters", params);
    json_t *responses = json_object();
    const char *code;
    json_object_foreach(json_object_get(op, "responses"), code, v)
    {
        json_t *r = json_pack("{s:O}", "description", json_object_get(v, "description"));
        const json_t *s = content_schema(json_object_get(v, "content"));
        if (s)
            json_object_set_new(r, "schema", schema_v2(s));
        json_object_set_new(responses, code, r);
    }
    json_object_set_new(out, "responses", responses);
    if ((v = json_object_get(op, "deprecated")))
        json_object_set(out, "deprecated", v);
    const char *key;
    json_object_foreach((json_t *)op, key, v)
    {
        if (strncmp(key, "x-", 2) == 0)
            json_object_set(out, key, v);
    }
    return out;
}

static void add_paths(json_t *paths, const json_t *v3)
{
    static const char *const verbs[] = {"get", "put", "post", "delete", "patch", NULL};
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(v3, "paths"), path, item)
    {
        json_t *out = json_object();
        for (const char *const *verb = verbs; *verb; verb++) {
            json_t *op = json_object_get(item, *verb);
            if (op)
                json_object_set_new(out, *verb, operation_v2(op));
        }
        json_t *params = json_object_get(item, "parameters");
        if (params)
            json_object_set_new(out, "parameters", params_v2(params));
        json_object_set_new(paths, path, out);
    }
}

static void add_definitions(json_t *defs, const json_t *v3)
{
    const char *name;
    json_t *s;
    json_object_foreach(json_object_get(json_object_get(v3, "components"), "schemas"), name, s)
    {
        if (!json_object_get(defs, name))
            json_object_set_new(defs, name, schema_v2(s));
    }
}

json_t *nd_openapi_v2(void)
{
    json_t *v3[8] = {NULL};
    size_t n = nd_openapi_v3_doc_count();
    bool ok = n <= sizeof v3 / sizeof v3[0];
    n = ok ? n : 0;
    for (size_t i = 0; i < n; i++) {
        v3[i] = nd_openapi_v3_docs[i].make();
        ok = ok && v3[i];
    }
    json_t *paths = ok ? json_object() : NULL, *defs = ok ? json_object() : NULL;
    for (size_t i = 0; i < n; i++) {
        if (ok) {
            add_paths(paths, v3[i]);
            add_definitions(defs, v3[i]);
        }
        json_decref(v3[i]);
    }
    if (!ok)
        return NULL;
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:o}", "swagger", "2.0", "info", "title", "Nodus",
                     "version", "v1", "paths", paths, "definitions", defs);
}
