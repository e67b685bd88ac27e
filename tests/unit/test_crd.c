/* Unit tests of pkg/kinds/crd: schemas made structural, and the CRD of a kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/crd.h"
#include "kinds/registry.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &err);
    if (!v)
        fail_msg("bad JSON in the test: %s: %s", err.text, text);
    return v;
}

/* Each input schema and the structural schema it becomes (compact JSON, keys in order),
 * or the message of the error it gives. */
static const struct {
    const char *in, *out, *error;
} rows[] = {
    /* metadata at the root is the API server's; x-kubernetes-group-version-kind goes */
    {"{\"type\":\"object\",\"x-kubernetes-group-version-kind\":[{}],\"properties\":{"
     "\"metadata\":{\"$ref\":\"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1."
     "ObjectMeta\",\"description\":\"d\"}}}",
     "{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\"}}}", NULL},
    /* nodus's formats: patterns, or nothing; Kubernetes' formats stay; x-nodus-* go */
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"format\":\"money\"},"
     "\"b\":{\"type\":\"string\",\"format\":\"cron\"},\"c\":{\"type\":\"string\",\"format\":"
     "\"duration\",\"x-nodus-min\":\"1m\",\"x-nodus-max\":\"720h\"},\"d\":{\"type\":\"string\","
     "\"format\":\"dns-label\",\"pattern\":\"^x\"}}}",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":"
     "\"^[0-9]+(\\\\.[0-9]{1,6})?$\"},\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"string\","
     "\"format\":\"duration\"},\"d\":{\"type\":\"string\",\"pattern\":\"^x\"}}}",
     NULL},
    /* an int-or-string has anyOf [integer, string] and no type */
    {"{\"type\":\"object\",\"properties\":{\"q\":{\"description\":\"Q\",\"type\":\"string\","
     "\"format\":\"quantity\",\"x-kubernetes-int-or-string\":true}}}",
     NULL, NULL},
    /* additionalProperties: a schema stays, true becomes preserve-unknown-fields, false goes;
     * defaults, enums, bounds, nullable and required stay, in a fixed order */
    {"{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\",\"additionalProperties\":"
     "{\"type\":\"integer\",\"maximum\":64,\"minimum\":0}},\"o\":{\"type\":\"object\","
     "\"additionalProperties\":true},\"f\":{\"type\":\"object\",\"additionalProperties\":false,"
     "\"properties\":{\"s\":{\"enum\":[\"A\",\"B\"],\"default\":\"A\",\"type\":\"string\"}},"
     "\"required\":[\"s\"]},\"l\":{\"type\":\"array\",\"nullable\":true,\"maxItems\":2,"
     "\"items\":{\"type\":\"string\"}}}}",
     "{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\",\"additionalProperties\":"
     "{\"type\":\"integer\",\"minimum\":0,\"maximum\":64}},\"o\":{\"type\":\"object\","
     "\"x-kubernetes-preserve-unknown-fields\":true},\"f\":{\"type\":\"object\",\"required\":"
     "[\"s\"],\"properties\":{\"s\":{\"type\":\"string\",\"enum\":[\"A\",\"B\"],\"default\":"
     "\"A\"}}},\"l\":{\"type\":\"array\",\"nullable\":true,\"maxItems\":2,\"items\":{\"type\":"
     "\"string\"}}}}",
     NULL},
    /* what cannot be structural is refused, naming the field */
    {"{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
     "\"env\":{\"type\":\"array\"}}}}}",
     NULL, "the schema of T cannot be made structural: spec.env: an array without items"},
    {"{\"type\":\"object\",\"properties\":{\"spec\":{\"properties\":{}}}}", NULL,
     "the schema of T cannot be made structural: spec: no type"},
    {"{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\",\"properties\":{\"a\":"
     "{\"type\":\"string\"}},\"additionalProperties\":{\"type\":\"string\"}}}}",
     NULL,
     "the schema of T cannot be made structural: m: properties and additionalProperties "
     "together"},
    {"{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"object\",\"additionalProperties\":{}}}}}",
     NULL, "the schema of T cannot be made structural: l[*][*]: no type"},
    {"{\"type\":\"object\",\"properties\":{\"r\":{\"$ref\":\"#/components/schemas/nothing\"}}}",
     NULL, "the schema of T cannot be made structural: r: a $ref to nothing, or not a schema"},
};

static void test_structural(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *in = parse(rows[i].in);
        struct nd_status st = ND_STATUS_INIT;
        json_t *out = nd_crd_structural_new(in, "T", &st);
        if (rows[i].error) {
            assert_null(out);
            assert_string_equal(st.message, rows[i].error);
        } else if (rows[i].out) {
            assert_non_null(out);
            char *text = json_dumps(out, JSON_COMPACT);
            assert_string_equal(text, rows[i].out);
            free(text);
        } else {
            /* the int-or-string row */
            assert_non_null(out);
            json_t *q = json_object_get(json_object_get(out, "properties"), "q");
            assert_null(json_object_get(q, "type"));
            assert_null(json_object_get(q, "format"));
            assert_true(json_is_true(json_object_get(q, "x-kubernetes-int-or-string")));
            char *any = json_dumps(json_object_get(q, "anyOf"), JSON_COMPACT);
            assert_string_equal(any, "[{\"type\":\"integer\"},{\"type\":\"string\"}]");
            free(any);
            assert_non_null(json_string_value(json_object_get(q, "pattern")));
            assert_string_equal(json_string_value(json_object_get(q, "description")), "Q");
        }
        json_decref(out);
        json_decref(in);
        nd_status_release(&st);
    }
}

/* Every kind has a CRD; the nodus.dev ones carry the registry's names and columns. */
static void test_kinds(void **state)
{
    (void)state;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        struct nd_status st = ND_STATUS_INIT;
        json_t *crd = nd_crd_new(k, &st);
        assert_non_null(crd);
        json_t *spec = json_object_get(crd, "spec");
        json_t *names = json_object_get(spec, "names");
        assert_string_equal(json_string_value(json_object_get(names, "plural")), k->plural);
        assert_string_equal(json_string_value(json_object_get(names, "listKind")), k->list_kind);
        assert_string_equal(json_string_value(json_object_get(spec, "scope")),
                            k->namespaced ? "Namespaced" : "Cluster");
        json_t *v = json_array_get(json_object_get(spec, "versions"), 0);
        size_t cols = json_array_size(json_object_get(v, "additionalPrinterColumns"));
        size_t name_cols = strcmp(k->columns[0].format, "name") == 0 ? 1 : 0;
        assert_int_equal(cols, nd_kind_column_count(k, true) - name_cols);
        json_decref(crd);
        nd_status_release(&st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structural),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
