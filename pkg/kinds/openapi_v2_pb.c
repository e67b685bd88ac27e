/* openapi_v2_pb.c: a Swagger 2.0 document as gnostic's protobuf openapi.v2.Document
 * (see openapi.h). Field numbers are those of gnostic's openapiv2/OpenAPIv2.proto.
 * A sub-message is written to a buffer of its own, then added with its length. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/openapi.h"
#include "util/buf.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };

static void varint(struct nd_buf *b, uint64_t v)
{
    unsigned char c[10];
    size_t n = 0;
    do {
        c[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            c[n] |= 0x80;
        n++;
    } while (v);
    nd_buf_add(b, c, n);
}

static void tag(struct nd_buf *b, unsigned field, unsigned wire)
{
    varint(b, (uint64_t)field << 3 | wire);
}

static void bytes(struct nd_buf *b, unsigned field, const void *p, size_t n)
{
    tag(b, field, WIRE_LEN);
    varint(b, n);
    nd_buf_add(b, p, n);
}

/* A sub-message: sub's bytes, then sub is emptied for reuse. */
static void msg(struct nd_buf *b, unsigned field, struct nd_buf *sub)
{
    bytes(b, field, sub->data, sub->len);
    nd_buf_reset(sub);
}

/* A string member of obj (proto3: nothing when absent or empty). */
static void str(struct nd_buf *b, unsigned field, const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    if (s && *s)
        bytes(b, field, s, strlen(s));
}

/* A repeated string member (a string counts as one). */
static void strs(struct nd_buf *b, unsigned field, const json_t *v)
{
    if (json_is_string(v)) {
        bytes(b, field, json_string_value(v), json_string_length(v));
        return;
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        if (json_is_string(e))
            bytes(b, field, json_string_value(e), json_string_length(e));
    }
}

static void boolean(struct nd_buf *b, unsigned field, const json_t *obj, const char *key)
{
    if (json_is_true(json_object_get(obj, key))) {
        tag(b, field, WIRE_VARINT);
        varint(b, 1);
    }
}

static void int64(struct nd_buf *b, unsigned field, const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_integer(v) && json_integer_value(v) != 0) {
        tag(b, field, WIRE_VARINT);
        varint(b, (uint64_t)json_integer_value(v));
    }
}

static void dbl(struct nd_buf *b, unsigned field, const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v) || json_number_value(v) == 0)
        return;
    double d = json_number_value(v);
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    unsigned char c[8];
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(u >> (8 * i));
    tag(b, field, WIRE_I64);
    nd_buf_add(b, c, sizeof c);
}

/* One element of a map, a Named... message {name = 1, value = 2} at field: value's
 * bytes (a message, then emptied for reuse). */
static void named(struct nd_buf *b, unsigned field, const char *name, struct nd_buf *value)
{
    struct nd_buf n = ND_BUF_INIT;
    bytes(&n, 1, name, strlen(name));
    msg(&n, 2, value);
    msg(b, field, &n);
    nd_buf_release(&n);
}

/* The fields of an Any {yaml = 2}: the value in JSON, which is YAML. */
static void any_body(struct nd_buf *a, const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text)
        bytes(a, 2, text, strlen(text));
    free(text);
}

static void schema(struct nd_buf *b, const json_t *s);

/* Writes the fields of a message from a JSON value: any_body, schema. */
typedef void (*body_fn)(struct nd_buf *b, const json_t *v);

/* A sub-message at field, its fields written by body from v. */
static void sub_msg(struct nd_buf *b, unsigned field, body_fn body, const json_t *v)
{
    struct nd_buf sub = ND_BUF_INIT;
    body(&sub, v);
    msg(b, field, &sub);
    nd_buf_release(&sub);
}

/* The members of map (only its x- ones when x_only) as repeated Named... at field, each
 * value written by body. */
static void named_map(struct nd_buf *b, unsigned field, const json_t *map, bool x_only,
                      body_fn body)
{
    struct nd_buf value = ND_BUF_INIT;
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)map, name, v)
    {
        if (x_only && strncmp(name, "x-", 2) != 0)
            continue;
        body(&value, v);
        named(b, field, name, &value);
    }
    nd_buf_release(&value);
}

/* An Any. */
static void any(struct nd_buf *b, unsigned field, const json_t *v)
{
    sub_msg(b, field, any_body, v);
}

/* Every x- member of obj as a repeated NamedAny. */
static void extensions(struct nd_buf *b, unsigned field, const json_t *obj)
{
    named_map(b, field, obj, true, any_body);
}

/* A sub-message Schema at field. */
static void schema_field(struct nd_buf *b, unsigned field, const json_t *s)
{
    sub_msg(b, field, schema, s);
}

/* A map of schemas as repeated NamedSchema at field. */
static void named_schemas(struct nd_buf *b, unsigned field, const json_t *map)
{
    named_map(b, field, map, false, schema);
}

/* Schema: _ref 1, format 2, title 3, description 4, default 5, multiple_of 6, maximum 7,
 * exclusive_maximum 8, minimum 9, exclusive_minimum 10, max_length 11, min_length 12,
 * pattern 13, max_items 14, min_items 15, unique_items 16, max_properties 17,
 * min_properties 18, required 19, enum 20, additional_properties 21, type 22, items 23,
 * all_of 24, properties 25, discriminator 26, read_only 27, example 30,
 * vendor_extension 31. */
static void schema(struct nd_buf *b, const json_t *s)
{
    struct nd_buf sub = ND_BUF_INIT;
    json_t *v;
    str(b, 1, s, "$ref");
    str(b, 2, s, "format");
    str(b, 3, s, "title");
    str(b, 4, s, "description");
    if ((v = json_object_get(s, "default")))
        any(b, 5, v);
    dbl(b, 6, s, "multipleOf");
    dbl(b, 7, s, "maximum");
    boolean(b, 8, s, "exclusiveMaximum");
    dbl(b, 9, s, "minimum");
    boolean(b, 10, s, "exclusiveMinimum");
    int64(b, 11, s, "maxLength");
    int64(b, 12, s, "minLength");
    str(b, 13, s, "pattern");
    int64(b, 14, s, "maxItems");
    int64(b, 15, s, "minItems");
    boolean(b, 16, s, "uniqueItems");
    int64(b, 17, s, "maxProperties");
    int64(b, 18, s, "minProperties");
    strs(b, 19, json_object_get(s, "required"));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(s, "enum"), i, e)
    {
        any(b, 20, e);
    }
    if ((v = json_object_get(s, "additionalProperties"))) {
        /* AdditionalPropertiesItem: oneof schema = 1, boolean = 2 */
        if (json_is_object(v)) {
            schema_field(&sub, 1, v);
        } else if (json_is_boolean(v)) {
            tag(&sub, 2, WIRE_VARINT);
            varint(&sub, json_is_true(v));
        }
        msg(b, 21, &sub);
    }
    if ((v = json_object_get(s, "type"))) { /* TypeItem: repeated value = 1 */
        strs(&sub, 1, v);
        msg(b, 22, &sub);
    }
    if ((v = json_object_get(s, "items"))) { /* ItemsItem: repeated schema = 1 */
        if (json_is_object(v))
            schema_field(&sub, 1, v);
        json_array_foreach(v, i, e)
        {
            schema_field(&sub, 1, e);
        }
        msg(b, 23, &sub);
    }
    json_array_foreach(json_object_get(s, "allOf"), i, e)
    {
        schema_field(b, 24, e);
    }
    if ((v = json_object_get(s, "properties"))) { /* Properties: repeated NamedSchema 1 */
        named_schemas(&sub, 1, v);
        msg(b, 25, &sub);
    }
    str(b, 26, s, "discriminator");
    boolean(b, 27, s, "readOnly");
    if ((v = json_object_get(s, "example")))
        any(b, 30, v);
    extensions(b, 31, s);
    nd_buf_release(&sub);
}

/* ParametersItem {parameter = 1 Parameter}: Parameter is oneof body_parameter = 1
 * (BodyParameter: description 1, name 2, in 3, required 4, schema 5) or
 * non_body_parameter = 2 (NonBodyParameter: oneof header 1, form_data 2, query 3,
 * path 4). The sub-schemas: required 1, in 2, description 3, name 4, then query and
 * formData: allow_empty_value 5, type 6, format 7, unique_items 20; header and path:
 * type 5, format 6, unique_items 19. */
static void parameter(struct nd_buf *b, unsigned field, const json_t *p)
{
    struct nd_buf sub = ND_BUF_INIT, param = ND_BUF_INIT, item = ND_BUF_INIT;
    const char *in = json_string_value(json_object_get(p, "in"));
    in = in ? in : "";
    if (json_object_get(p, "$ref")) { /* JsonReference: _ref 1, description 2 */
        str(&sub, 1, p, "$ref");
        str(&sub, 2, p, "description");
        msg(&item, 2, &sub);
    } else if (strcmp(in, "body") == 0) {
        str(&sub, 1, p, "description");
        str(&sub, 2, p, "name");
        str(&sub, 3, p, "in");
        boolean(&sub, 4, p, "required");
        if (json_object_get(p, "schema"))
            schema_field(&sub, 5, json_object_get(p, "schema"));
        extensions(&sub, 6, p);
        msg(&param, 1, &sub);
        msg(&item, 1, &param);
    } else {
        bool wide = strcmp(in, "query") == 0 || strcmp(in, "formData") == 0;
        unsigned which = strcmp(in, "header") == 0 ? 1 : strcmp(in, "formData") == 0 ? 2
                         : strcmp(in, "query") == 0    ? 3
                                                       : 4;
        boolean(&sub, 1, p, "required");
        str(&sub, 2, p, "in");
        str(&sub, 3, p, "description");
        str(&sub, 4, p, "name");
        if (wide)
            boolean(&sub, 5, p, "allowEmptyValue");
        str(&sub, wide ? 6 : 5, p, "type");
        str(&sub, wide ? 7 : 6, p, "format");
        boolean(&sub, wide ? 20 : 19, p, "uniqueItems");
        extensions(&sub, wide ? 23 : 22, p);
        struct nd_buf nb = ND_BUF_INIT;
        msg(&nb, which, &sub);
        msg(&param, 2, &nb);
        nd_buf_release(&nb);
        msg(&item, 1, &param);
    }
    msg(b, field, &item);
    nd_buf_release(&sub);
    nd_buf_release(&param);
    nd_buf_release(&item);
}

static void parameters(struct nd_buf *b, unsigned field, const json_t *list)
{
    size_t i;
    json_t *p;
    json_array_foreach(list, i, p)
    {
        parameter(b, field, p);
    }
}

/* Responses {response_code = 1 repeated NamedResponseValue {name 1, value 2
 * ResponseValue {response = 1 Response {description 1, schema 2 SchemaItem {schema 1}}}}}. */
static void responses(struct nd_buf *b, unsigned field, const json_t *rs)
{
    struct nd_buf all = ND_BUF_INIT, value = ND_BUF_INIT, resp = ND_BUF_INIT,
                  item = ND_BUF_INIT;
    const char *code;
    json_t *r;
    json_object_foreach((json_t *)rs, code, r)
    {
        str(&resp, 1, r, "description");
        if (json_object_get(r, "schema")) {
            schema_field(&item, 1, json_object_get(r, "schema"));
            msg(&resp, 2, &item);
        }
        extensions(&resp, 5, r);
        msg(&value, 1, &resp);
        named(&all, 1, code, &value);
    }
    msg(b, field, &all);
    nd_buf_release(&all);
    nd_buf_release(&value);
    nd_buf_release(&resp);
    nd_buf_release(&item);
}

/* Operation: tags 1, summary 2, description 3, operation_id 5, produces 6, consumes 7,
 * parameters 8, responses 9, schemes 10, deprecated 11, vendor_extension 13. */
static void operation(struct nd_buf *b, unsigned field, const json_t *op)
{
    struct nd_buf o = ND_BUF_INIT;
    strs(&o, 1, json_object_get(op, "tags"));
    str(&o, 2, op, "summary");
    str(&o, 3, op, "description");
    str(&o, 5, op, "operationId");
    strs(&o, 6, json_object_get(op, "produces"));
    strs(&o, 7, json_object_get(op, "consumes"));
    parameters(&o, 8, json_object_get(op, "parameters"));
    if (json_object_get(op, "responses"))
        responses(&o, 9, json_object_get(op, "responses"));
    strs(&o, 10, json_object_get(op, "schemes"));
    boolean(&o, 11, op, "deprecated");
    extensions(&o, 13, op);
    msg(b, field, &o);
    nd_buf_release(&o);
}

/* Paths {path = 2 repeated NamedPathItem {name 1, value 2 PathItem}}; PathItem: _ref 1,
 * get 2, put 3, post 4, delete 5, options 6, head 7, patch 8, parameters 9,
 * vendor_extension 10. */
static void paths(struct nd_buf *b, unsigned field, const json_t *ps)
{
    static const struct {
        const char *verb;
        unsigned field;
    } ops[] = {{"get", 2},     {"put", 3},  {"post", 4}, {"delete", 5},
               {"options", 6}, {"head", 7}, {"patch", 8}};
    struct nd_buf all = ND_BUF_INIT, item = ND_BUF_INIT;
    extensions(&all, 1, ps);
    const char *path;
    json_t *pi;
    json_object_foreach((json_t *)ps, path, pi)
    {
        if (strncmp(path, "x-", 2) == 0)
            continue;
        str(&item, 1, pi, "$ref");
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            json_t *op = json_object_get(pi, ops[i].verb);
            if (op)
                operation(&item, ops[i].field, op);
        }
        parameters(&item, 9, json_object_get(pi, "parameters"));
        extensions(&item, 10, pi);
        named(&all, 2, path, &item);
    }
    msg(b, field, &all);
    nd_buf_release(&all);
    nd_buf_release(&item);
}

/* Document: swagger 1, info 2 (Info: title 1, version 2, description 3), host 3,
 * base_path 4, schemes 5, consumes 6, produces 7, paths 8, definitions 9 (Definitions:
 * repeated NamedSchema additional_properties = 1), vendor_extension 16. */
void nd_openapi_v2_protobuf(const json_t *doc, struct nd_buf *out)
{
    struct nd_buf sub = ND_BUF_INIT;
    str(out, 1, doc, "swagger");
    json_t *info = json_object_get(doc, "info");
    if (info) {
        str(&sub, 1, info, "title");
        str(&sub, 2, info, "version");
        str(&sub, 3, info, "description");
        extensions(&sub, 7, info);
        msg(out, 2, &sub);
    }
    str(out, 3, doc, "host");
    str(out, 4, doc, "basePath");
    strs(out, 5, json_object_get(doc, "schemes"));
    strs(out, 6, json_object_get(doc, "consumes"));
    strs(out, 7, json_object_get(doc, "produces"));
    if (json_object_get(doc, "paths"))
        paths(out, 8, json_object_get(doc, "paths"));
    if (json_object_get(doc, "definitions")) {
        named_schemas(&sub, 1, json_object_get(doc, "definitions"));
        msg(out, 9, &sub);
    }
    extensions(out, 16, doc);
    nd_buf_release(&sub);
}
