/* Unit tests of pkg/kinds/openapi: the OpenAPI v3 documents kubectl reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/openapi.h"
#include "kinds/schema.h"
#include "util/buf.h"

static json_t *group_doc, *core_doc;

static int setup(void **state)
{
    (void)state;
    group_doc = nd_openapi_v3_group();
    core_doc = nd_openapi_v3_core();
    return group_doc && core_doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(group_doc);
    json_decref(core_doc);
    return 0;
}

static const json_t *path_op(const json_t *doc, const char *path, const char *verb)
{
    return json_object_get(json_object_get(json_object_get(doc, "paths"), path), verb);
}

static bool has_param(const json_t *op, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(op, "parameters"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
            return true;
    }
    return false;
}

static void assert_gvk(const json_t *op, const struct nd_kind *k)
{
    assert_non_null(op);
    json_t *want =
        json_pack("{s:s, s:s, s:s}", "group", k->group, "version", k->version, "kind", k->kind);
    assert_true(json_equal(json_object_get(op, "x-kubernetes-group-version-kind"), want));
    json_decref(want);
}

static void test_schema_names(void **state)
{
    (void)state;
    char *n = nd_openapi_schema_name(nd_kind_lookup("jobs"));
    assert_string_equal(n, "dev.nodus.v1.Job");
    free(n);
    n = nd_openapi_schema_name(nd_kind_lookup("pact"));
    assert_string_equal(n, "dev.nodus.v1.PoolAction");
    free(n);
    n = nd_openapi_schema_name(nd_kind_lookup("ev"));
    assert_string_equal(n, "io.k8s.api.core.v1.Event");
    free(n);
}

/* Every nodus kind: paths with actions and GVKs, a patch that takes fieldValidation,
 * and a described schema tagged with its GVK. */
static void test_group_kinds(void **state)
{
    (void)state;
    assert_string_equal(json_string_value(json_object_get(group_doc, "openapi")), "3.0.0");
    const json_t *schemas = json_object_get(json_object_get(group_doc, "components"), "schemas");
    size_t kinds = 0;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        char coll[128], item[192], status[192], all[128], name[128], list[128];
        if (!*k->group) {
            snprintf(name, sizeof name, "io.k8s.api.core.v1.%s", k->kind);
            assert_null(json_object_get(schemas, name));
            continue;
        }
        kinds++;
        print_message("%s\n", k->kind);
        snprintf(coll, sizeof coll, "/apis/nodus.dev/v1/namespaces/{namespace}/%s", k->plural);
        snprintf(item, sizeof item, "%s/{name}", coll);
        snprintf(status, sizeof status, "%s/{name}/status", coll);
        snprintf(all, sizeof all, "/apis/nodus.dev/v1/%s", k->plural);
        snprintf(name, sizeof name, "dev.nodus.v1.%s", k->kind);
        snprintf(list, sizeof list, "dev.nodus.v1.%sList", k->kind);

        const json_t *op = path_op(group_doc, coll, "get");
        assert_gvk(op, k);
        assert_string_equal(json_string_value(json_object_get(op, "x-kubernetes-action")), "list");
        assert_true(has_param(op, "watch"));
        assert_true(has_param(op, "labelSelector"));
        char id[128];
        snprintf(id, sizeof id, "listNodusDevV1Namespaced%s", k->kind);
        assert_string_equal(json_string_value(json_object_get(op, "operationId")), id);
        assert_gvk(path_op(group_doc, item, "get"), k);
        assert_gvk(path_op(group_doc, status, "get"), k);
        assert_gvk(path_op(group_doc, all, "get"), k);

        op = path_op(group_doc, item, "patch");
        if (k->read_only) {
            assert_null(op);
            assert_null(path_op(group_doc, coll, "post"));
            assert_null(path_op(group_doc, item, "put"));
            assert_null(path_op(group_doc, item, "delete"));
        } else {
            /* kubectl refuses every create without these */
            assert_gvk(op, k);
            assert_true(has_param(op, "fieldValidation"));
            assert_string_equal(json_string_value(json_object_get(op, "x-kubernetes-action")),
                                "patch");
            const json_t *body = json_object_get(json_object_get(op, "requestBody"), "content");
            assert_non_null(json_object_get(body, "application/merge-patch+json"));
            assert_non_null(json_object_get(body, "application/apply-patch+yaml"));
            assert_non_null(json_object_get(body, "application/json-patch+json"));
            assert_null(json_object_get(body, "application/strategic-merge-patch+json"));
            op = path_op(group_doc, coll, "post");
            assert_gvk(op, k);
            assert_true(has_param(op, "fieldValidation"));
            assert_true(has_param(op, "dryRun"));
            assert_string_equal(json_string_value(json_object_get(op, "x-kubernetes-action")),
                                "post");
            assert_gvk(path_op(group_doc, item, "put"), k);
            assert_gvk(path_op(group_doc, item, "delete"), k);
            assert_gvk(path_op(group_doc, status, "patch"), k);
            op = path_op(group_doc, coll, "delete");
            assert_string_equal(json_string_value(json_object_get(op, "x-kubernetes-action")),
                                "deletecollection");
        }
        /* path parameters */
        const json_t *params = json_object_get(
            json_object_get(json_object_get(group_doc, "paths"), item), "parameters");
        assert_string_equal(json_string_value(json_object_get(json_array_get(params, 0), "name")),
                            "name");
        assert_string_equal(json_string_value(json_object_get(json_array_get(params, 1), "name")),
                            "namespace");
        assert_true(json_is_true(json_object_get(json_array_get(params, 1), "required")));

        const json_t *s = json_object_get(schemas, name);
        assert_non_null(s);
        assert_true(json_equal(s, nd_kind_schema(k)));
        json_t *want =
            json_pack("[{s:s, s:s, s:s}]", "group", "nodus.dev", "version", "v1", "kind", k->kind);
        assert_true(json_equal(json_object_get(s, "x-kubernetes-group-version-kind"), want));
        json_decref(want);
        assert_true(json_string_length(json_object_get(s, "description")) > 20);
        const json_t *l = json_object_get(schemas, list);
        assert_non_null(l);
        assert_string_equal(
            json_string_value(json_object_get(
                json_array_get(json_object_get(l, "x-kubernetes-group-version-kind"), 0), "kind")),
            k->list_kind);
        /* the answer of a get is the kind's schema */
        const json_t *ok = json_object_get(
            json_object_get(
                json_object_get(json_object_get(path_op(group_doc, item, "get"), "responses"),
                                "200"),
                "content"),
            "application/json");
        char ref[160];
        snprintf(ref, sizeof ref, "#/components/schemas/%s", name);
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(ok, "schema"), "$ref")), ref);
    }
    /* and the document has a schema for those kinds only (their count is the registry's,
     * not this test's) */
    size_t kind_schemas = 0;
    const char *cname;
    const json_t *cv;
    json_object_foreach((json_t *)schemas, cname, cv)
    {
        size_t len = strlen(cname);
        if (strncmp(cname, "dev.nodus.v1.", 13) == 0 &&
            (len < 4 || strcmp(cname + len - 4, "List") != 0))
            kind_schemas++;
    }
    assert_true(kinds > 0);
    assert_int_equal(kind_schemas, kinds);
    /* no core paths in the group document */
    assert_null(json_object_get(json_object_get(group_doc, "paths"), "/api/v1/namespaces"));
}

/* Every $ref of a document names one of its components. */
static void check_refs(const json_t *doc, const json_t *v, size_t *count)
{
    if (json_is_object(v)) {
        const char *ref = json_string_value(json_object_get(v, "$ref"));
        if (ref) {
            static const char prefix[] = "#/components/schemas/";
            assert_int_equal(strncmp(ref, prefix, sizeof prefix - 1), 0);
            const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
            if (!json_object_get(schemas, ref + sizeof prefix - 1))
                fail_msg("dangling $ref %s", ref);
            (*count)++;
        }
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m) check_refs(doc, m, count);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) check_refs(doc, e, count);
    }
}

static void test_refs_and_meta(void **state)
{
    (void)state;
    size_t n = 0;
    check_refs(group_doc, group_doc, &n);
    assert_true(n > 100);
    n = 0;
    check_refs(core_doc, core_doc, &n);
    assert_true(n > 10);
    const json_t *schemas = json_object_get(json_object_get(group_doc, "components"), "schemas");
    const json_t *status = json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Status");
    const json_t *props = json_object_get(status, "properties");
    static const char *const fields[] = {"apiVersion", "code",      "details", "docs",
                                         "fix",        "kind",      "message", "metadata",
                                         "reason",     "requestId", "status"};
    assert_int_equal(json_object_size(props), sizeof fields / sizeof fields[0]);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        assert_non_null(json_object_get(props, fields[i]));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(props, "code"), "format")), "int32");
    const json_t *meta =
        json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    const json_t *mp = json_object_get(meta, "properties");
    assert_int_equal(json_object_size(mp), 15); /* the fields of the Pool reference */
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(mp, "managedFields"), "items"), "$ref")),
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1."
        "ManagedFieldsEntry");
    assert_non_null(
        json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"));
}

static void test_core(void **state)
{
    (void)state;
    const struct nd_kind *ns = nd_kind_lookup("namespaces"), *ev = nd_kind_lookup("events");
    /* namespaces are cluster-scoped */
    assert_gvk(path_op(core_doc, "/api/v1/namespaces", "get"), ns);
    assert_gvk(path_op(core_doc, "/api/v1/namespaces", "post"), ns);
    const json_t *op = path_op(core_doc, "/api/v1/namespaces/{name}", "patch");
    assert_gvk(op, ns);
    assert_true(has_param(op, "fieldValidation"));
    assert_string_equal(json_string_value(json_object_get(op, "operationId")),
                        "patchCoreV1Namespace");
    /* a built-in kind: strategic merge patch too, in kube-apiserver's order */
    json_t *types = json_array();
    const char *type;
    json_t *v;
    json_object_foreach(json_object_get(json_object_get(op, "requestBody"), "content"), type, v)
    {
        json_array_append_new(types, json_string(type));
    }
    json_t *want_types = json_pack("[s, s, s, s]", "application/json-patch+json",
                                   "application/merge-patch+json",
                                   "application/strategic-merge-patch+json",
                                   "application/apply-patch+yaml");
    assert_true(json_equal(types, want_types));
    json_decref(types);
    json_decref(want_types);
    assert_gvk(path_op(core_doc, "/api/v1/namespaces/{name}/status", "get"), ns);
    /* events are read-only and namespaced */
    assert_gvk(path_op(core_doc, "/api/v1/namespaces/{namespace}/events", "get"), ev);
    assert_gvk(path_op(core_doc, "/api/v1/namespaces/{namespace}/events/{name}", "get"), ev);
    assert_gvk(path_op(core_doc, "/api/v1/events", "get"), ev);
    assert_null(path_op(core_doc, "/api/v1/namespaces/{namespace}/events", "post"));
    assert_null(path_op(core_doc, "/api/v1/namespaces/{namespace}/events/{name}", "patch"));
    const json_t *schemas = json_object_get(json_object_get(core_doc, "components"), "schemas");
    const json_t *s = json_object_get(schemas, "io.k8s.api.core.v1.Namespace");
    json_t *want =
        json_pack("[{s:s, s:s, s:s}]", "group", "", "version", "v1", "kind", "Namespace");
    assert_true(json_equal(json_object_get(s, "x-kubernetes-group-version-kind"), want));
    json_decref(want);
    assert_non_null(json_object_get(schemas, "io.k8s.api.core.v1.EventList"));
    assert_null(json_object_get(schemas, "dev.nodus.v1.Job"));
}

static void test_hash_and_root(void **state)
{
    (void)state;
    json_t *empty = json_object();
    char *h = nd_openapi_hash(empty);
    assert_string_equal(h, "08F44B07B5901A25"); /* FNV-1a 64 of "{}" */
    free(h);
    json_t *v = json_pack("{s:[i,b]}", "a", 1, 1);
    h = nd_openapi_hash(v);
    assert_string_equal(h, "316A98068E66515F");
    free(h);
    json_decref(v);
    json_decref(empty);

    char *g1 = nd_openapi_hash(group_doc);
    json_t *again = nd_openapi_v3_group();
    char *g2 = nd_openapi_hash(again);
    char *c = nd_openapi_hash(core_doc);
    assert_string_equal(g1, g2); /* stable */
    assert_int_equal(strlen(g1), 16);
    assert_string_not_equal(g1, c);
    const char *hashes[] = {c, "A1", "E1", g1};
    assert_int_equal(nd_openapi_v3_doc_count(), 4);
    json_t *root = nd_openapi_v3_root(hashes);
    char *text = json_dumps(root, JSON_COMPACT);
    char want[512];
    snprintf(want, sizeof want,
             "{\"paths\":{\"api/v1\":{\"serverRelativeURL\":\"/openapi/v3/api/v1?hash=%s\"},"
             "\"apis/authorization.k8s.io/v1\":{\"serverRelativeURL\":"
             "\"/openapi/v3/apis/authorization.k8s.io/v1?hash=A1\"},"
             "\"apis/events.k8s.io/v1\":{\"serverRelativeURL\":"
             "\"/openapi/v3/apis/events.k8s.io/v1?hash=E1\"},"
             "\"apis/nodus.dev/v1\":{\"serverRelativeURL\":\"/openapi/v3/apis/nodus.dev/v1?hash=%s"
             "\"}}}",
             c, g1);
    assert_string_equal(text, want);
    free(text);
    json_decref(root);
    json_decref(again);
    free(g1);
    free(g2);
    free(c);
}

/* v2: the kinds' definitions and paths come from v3, in v2's shape. */
static void test_v2(void **state)
{
    (void)state;
    json_t *v2 = nd_openapi_v2();
    assert_non_null(v2);
    assert_string_equal(json_string_value(json_object_get(v2, "swagger")), "2.0");
    json_t *defs = json_object_get(v2, "definitions");
    for (size_t i = 0; i < nd_kind_count(); i++) {
        char *name = nd_openapi_schema_name(&nd_kinds[i]);
        json_t *gvk = json_object_get(json_object_get(defs, name),
                                      "x-kubernetes-group-version-kind");
        assert_string_equal(json_string_value(json_object_get(json_array_get(gvk, 0), "kind")),
                            nd_kinds[i].kind);
        free(name);
    }
    json_t *meta = json_object_get(defs, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    json_t *fin = json_object_get(json_object_get(meta, "properties"), "finalizers");
    assert_null(json_object_get(fin, "nullable"));
    assert_string_equal(json_string_value(json_object_get(fin, "type")), "array");
    json_t *patch = json_object_get(
        json_object_get(json_object_get(v2, "paths"),
                        "/apis/nodus.dev/v1/namespaces/{namespace}/jobs/{name}"),
        "patch");
    json_t *body = json_array_get(json_object_get(patch, "parameters"), 0);
    assert_string_equal(json_string_value(json_object_get(body, "in")), "body");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(body, "schema"), "$ref")),
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
    assert_true(has_param(patch, "fieldValidation"));
    /* consumes: a nodus.dev kind takes no strategic merge patch, a Namespace does */
    json_t *want = json_pack("[s, s, s]", "application/json-patch+json",
                             "application/merge-patch+json", "application/apply-patch+yaml");
    assert_true(json_equal(json_object_get(patch, "consumes"), want));
    json_decref(want);
    patch = json_object_get(
        json_object_get(json_object_get(v2, "paths"), "/api/v1/namespaces/{name}"), "patch");
    assert_non_null(json_array_get(json_object_get(patch, "consumes"), 2));
    assert_string_equal(json_string_value(json_array_get(json_object_get(patch, "consumes"), 2)),
                        "application/strategic-merge-patch+json");
    json_decref(v2);
}

static void assert_bytes(const struct nd_buf *b, const unsigned char *want, size_t n)
{
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, want, n);
}

/* The protobuf encoding, byte for byte (gnostic's field numbers). */
static void test_v2_protobuf(void **state)
{
    (void)state;
    struct nd_buf b = ND_BUF_INIT;
    json_t *doc = json_pack("{s:s, s:{s:s, s:s}}", "swagger", "2.0", "info", "title", "T",
                            "version", "v");
    nd_openapi_v2_protobuf(doc, &b);
    static const unsigned char info[] = {0x0a, 3,    '2', '.', '0', 0x12, 6,   0x0a,
                                         1,    'T',  0x12, 1,  'v'};
    assert_bytes(&b, info, sizeof info);
    json_decref(doc);

    /* definitions (9) > NamedSchema (1: name 1, value 2) > Schema, in field order:
     * additionalProperties 21 (boolean 2, written though false: a oneof), type 22
     * (TypeItem: value 1), vendor_extension 31 (NamedAny: name 1, value 2 Any: yaml 2) */
    nd_buf_reset(&b);
    doc = json_pack("{s:{s:{s:s, s:b, s:i}}}", "definitions", "A", "type", "object",
                    "additionalProperties", 0, "x-k", 1);
    nd_openapi_v2_protobuf(doc, &b);
    static const unsigned char defs[] = {
        0x4a, 36,  0x0a, 34,  0x0a, 1,   'A', 0x12, 29,  0xaa, 0x01, 2,   0x10,
        0,    0xb2, 0x01, 8,   0x0a, 6,   'o', 'b',  'j', 'e',  'c',  't', 0xfa,
        0x01, 10,  0x0a, 3,   'x',  '-', 'k', 0x12, 3,   0x12, 1,    '1'};
    assert_bytes(&b, defs, sizeof defs);
    json_decref(doc);

    /* a length past 127 takes two bytes of varint */
    nd_buf_reset(&b);
    char text[301];
    memset(text, 'd', 300);
    text[300] = '\0';
    doc = json_pack("{s:{s:{s:s}}}", "definitions", "A", "description", text);
    nd_openapi_v2_protobuf(doc, &b);
    /* 300 = 0xac 0x02; the Schema 303, the NamedSchema 309, the Definitions 312 */
    static const unsigned char head[] = {0x4a, 0xb8, 0x02, 0x0a, 0xb5, 0x02, 0x0a, 1,
                                         'A',  0x12, 0xaf, 0x02, 0x22, 0xac, 0x02};
    assert_int_equal(b.len, sizeof head + 300);
    assert_memory_equal(b.data, head, sizeof head);
    json_decref(doc);
    nd_buf_release(&b);
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_names),
        cmocka_unit_test(test_group_kinds),
        cmocka_unit_test(test_refs_and_meta),
        cmocka_unit_test(test_core),
        cmocka_unit_test(test_hash_and_root),
        cmocka_unit_test(test_v2),
        cmocka_unit_test(test_v2_protobuf),
    };
    /* clang-format on */
    return cmocka_run_group_tests_name("openapi", tests, setup, teardown);
}
