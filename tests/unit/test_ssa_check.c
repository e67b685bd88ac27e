/* Unit tests of pkg/patch/ssa's checks of what clients send: metadata.managedFields,
 * reset requests, field manager names. JSON is written with ' for " (see J). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "patch/ssa.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "test_json.h"

/* clang-format off */
#define T0  "2026-01-01T00:00:00Z"
#define NOW "2026-02-02T10:00:00Z"
#define APPLY(mgr, time, fields) \
    "{'manager':'" mgr "','operation':'Apply','apiVersion':'nodus.dev/v1','time':'" time "'," \
    "'fieldsType':'FieldsV1','fieldsV1':" fields "}"
#define UPDATE(mgr, time, fields) \
    "{'manager':'" mgr "','operation':'Update','apiVersion':'nodus.dev/v1','time':'" time "'," \
    "'fieldsType':'FieldsV1','fieldsV1':" fields "}"
#define F_K "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{},'f:maxCostUSD':{}}}"
/* clang-format on */

static void assert_json(const json_t *actual, const char *expected, const char *what)
{
    json_t *e = J(expected);
    char *a = actual ? canon(actual) : NULL, *x = canon(e);
    if (!a || strcmp(a, x) != 0)
        fail_msg("%s:\n got  %s\n want %s", what, a ? a : "(nothing)", x);
    free(a);
    free(x);
    json_decref(e);
}

/* ---- checks ---- */

/* clang-format off */
#define LONG_A \
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* 129 */
#define LONG_S \
    "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss" \
    "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss" \
    "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss" /* 257 */

static const struct {
    const char *mf, *message; /* message NULL: valid */
} managed_fields[] = {
    {"null", NULL},
    {"[]", NULL},
    {"[{}]", NULL},
    {"[{'manager':'','operation':null}]", NULL},
    {"[" APPLY("kubectl", T0, F_K) "," UPDATE("kubectl", T0, "{}") "]", NULL},
    {"[{'manager':'kubectl','operation':'Update','apiVersion':'nodus.dev/v1'},"
     "{'manager':'kubectl','operation':'Update','apiVersion':'nodus.dev/v2'},"
     "{'manager':'kubectl','operation':'Update','apiVersion':'nodus.dev/v1',"
     "'subresource':'status'}]", NULL},
    {"'x'", "metadata.managedFields: Invalid value: \"x\": must be a list"},
    {"{}", "metadata.managedFields: Invalid value: {}: must be a list"},
    {"[1]", "metadata.managedFields[0]: Invalid value: 1: must be an object"},
    {"[{'manager':'a','operation':'Patch'}]",
     "metadata.managedFields[0].operation: Invalid value: \"Patch\": must be `Apply` or `Update`"},
    {"[{},{}]",
     "[metadata.managedFields[0].operation: Invalid value: \"\": must be `Apply` or `Update`, "
     "metadata.managedFields[1].operation: Invalid value: \"\": must be `Apply` or `Update`]"},
    {"[{'manager':7,'operation':'Apply'}]",
     "metadata.managedFields[0].manager: Invalid value: 7: must be a string"},
    {"[{'manager':'a\\tb','operation':'Apply'}]",
     "metadata.managedFields[0].manager: Invalid value: \"a\\tb\": invalid characters"},
    {"[{'manager':'" LONG_A "','operation':'Apply'}]",
     "metadata.managedFields[0].manager: Too long: may not be more than 128 bytes"},
    {"[{'operation':'Apply','fieldsType':'FieldsV2'}]",
     "metadata.managedFields[0].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`"},
    {"[{'operation':'Apply','time':'yesterday'}]",
     "metadata.managedFields[0].time: Invalid value: \"yesterday\": must be an RFC 3339 time, "
     "e.g. \"2026-11-29T16:59:19Z\""},
    {"[{'operation':'Apply','fieldsV1':{'f:a':1}}]",
     "metadata.managedFields[0].fieldsV1: Invalid value: \"f:a\": must map to an object "
     "({} for a leaf)"},
    {"[{'operation':'Apply','fieldsV1':[]}]",
     "metadata.managedFields[0].fieldsV1: Invalid value: []: must be an object"},
    {"[" APPLY("kubectl", T0, "{}") "," APPLY("kubectl", NOW, F_K) "]",
     "metadata.managedFields[1]: Invalid value: \"kubectl\": another entry has the same "
     "manager, operation and subresource"},
    {"[" UPDATE("kubectl", T0, "{}") "," UPDATE("kubectl", NOW, F_K) "]",
     "metadata.managedFields[1]: Invalid value: \"kubectl\": another entry has the same "
     "manager, operation, apiVersion and subresource"},
    {"[{'operation':'Apply','apiVersion':1,'subresource':'" LONG_S "'}]",
     "[metadata.managedFields[0].apiVersion: Invalid value: 1: must be a string, "
     "metadata.managedFields[0].subresource: Too long: may not be more than 256 bytes]"},
};
/* clang-format on */

static void test_validate_managed_fields(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof managed_fields / sizeof managed_fields[0]; i++) {
        json_t *mf = J(managed_fields[i].mf);
        const char *want = managed_fields[i].message;
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_ssa_validate_managed_fields(mf, &st);
        if (!want) {
            if (rc != 0)
                fail_msg("%s: %s", managed_fields[i].mf, st.message);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "Invalid");
            assert_int_equal(st.code, 422);
            if (strcmp(st.message, want) != 0)
                fail_msg("%s:\n got  %s\n want %s", managed_fields[i].mf, st.message, want);
            assert_true(nd_status_cause_count(&st) >= 1);
        }
        nd_status_release(&st);
        json_decref(mf);
    }
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_ssa_validate_managed_fields(NULL, &st), 0);
    assert_false(nd_status_failed(&st));
    /* a cause names the field */
    json_t *mf = J("[{'operation':'Patch'}]");
    assert_int_equal(nd_ssa_validate_managed_fields(mf, &st), -1);
    assert_json(json_object_get(st.details, "causes"),
                "[{'reason':'FieldValueInvalid','field':'metadata.managedFields[0].operation',"
                "'message':'Invalid value: \\\"Patch\\\": must be `Apply` or `Update`'}]",
                "causes");
    nd_status_release(&st);
    json_decref(mf);
}

static void test_reset_requested(void **state)
{
    (void)state;
    static const struct {
        const char *obj;
        bool reset;
    } rows[] = {
        {"{'metadata':{'managedFields':[]}}", true},
        {"{'metadata':{'managedFields':[{}]}}", true},
        {"{'metadata':{'managedFields':[{'manager':'','time':null}]}}", true},
        {"{'metadata':{'managedFields':[{'manager':'x'}]}}", false},
        {"{'metadata':{'managedFields':[{},{}]}}", false},
        {"{'metadata':{'managedFields':[{'fieldsV1':{}}]}}", false},
        {"{'metadata':{'managedFields':null}}", false},
        {"{'metadata':{}}", false},
        {"{}", false},
        {"[1]", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = J(rows[i].obj);
        if (nd_ssa_reset_requested(o) != rows[i].reset)
            fail_msg("%s: want %d", rows[i].obj, rows[i].reset);
        json_decref(o);
    }
}

static void test_manager_names(void **state)
{
    (void)state;
    static const struct {
        const char *fm, *ua, *want;
    } rows[] = {
        {"kubectl", "curl/8", "kubectl"},
        {NULL, "kubectl/v1.31.0 (linux/amd64) kubernetes/abc", "kubectl"},
        {"", "nodus/0.1.0", "nodus"},
        {NULL, "Mozilla", "Mozilla"},
        {NULL,
         "a\tb\x01"
         "c/1",
         "abc"},
        {NULL, "caf\xc3\xa9/1", "caf\xc3\xa9"},
        {NULL, NULL, ""},
        {NULL, "/x", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *got = nd_ssa_manager_name(rows[i].fm, rows[i].ua);
        assert_string_equal(got, rows[i].want);
        free(got);
    }
    /* cut at 128 bytes, never inside a character */
    char ua[200];
    memset(ua, 'a', 127);
    memcpy(ua + 127, "\xc3\xa9xyz", 6);
    char *got = nd_ssa_manager_name(NULL, ua);
    assert_int_equal(strlen(got), 127);
    free(got);

    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_ssa_validate_manager("kubectl", "fieldManager", &st), 0);
    assert_int_equal(nd_ssa_validate_manager(NULL, "fieldManager", &st), -1);
    assert_string_equal(st.message, "fieldManager: Required value: is required for apply patch");
    nd_status_release(&st);
    assert_int_equal(nd_ssa_validate_manager("a\nb", "fieldManager", &st), -1);
    assert_string_equal(st.message, "fieldManager: Invalid value: \"a\\nb\": invalid characters");
    nd_status_release(&st);
    assert_int_equal(nd_ssa_validate_manager(LONG_A, "fieldManager", &st), -1);
    assert_string_equal(st.message, "fieldManager: Too long: may not be more than 128 bytes");
    nd_status_release(&st);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_managed_fields),
        cmocka_unit_test(test_reset_requested),
        cmocka_unit_test(test_manager_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
