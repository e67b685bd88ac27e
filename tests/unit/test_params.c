/* Unit tests of the query parameter table and its parsers (emulator/api/query.c): Go's
 * strconv.ParseBool and ParseInt as kube-apiserver reads its query, and the check of a
 * whole query per verb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "query.h"

static void test_bool_spellings(void **state)
{
    (void)state;
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False", ""};
    static const char *const bad[] = {"yes", "no", "on", "off", "tRUE", "fAlse", "2", "-1",
                                      " true", "true ", "y", "n", "truee", "00"};
    bool b;
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        b = false;
        assert_int_equal(em_query_parse_bool(yes[i], &b), 0);
        assert_true(b);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        b = true;
        assert_int_equal(em_query_parse_bool(no[i], &b), 0);
        assert_false(b);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        b = true;
        assert_int_equal(em_query_parse_bool(bad[i], &b), -1);
        assert_false(b);
    }
    b = true;
    assert_int_equal(em_query_parse_bool(NULL, &b), 0); /* absent */
    assert_false(b);
}

static void test_int64(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int rc;
        int64_t out;
        const char *why;
    } cases[] = {
        {"0", 0, 0, NULL},
        {"42", 0, 42, NULL},
        {"+7", 0, 7, NULL},
        {"-1", 0, -1, NULL},
        {"007", 0, 7, NULL},
        {"9223372036854775807", 0, INT64_MAX, NULL},
        {"-9223372036854775808", 0, INT64_MIN, NULL},
        {"9223372036854775808", -1, 0, "value out of range"},
        {"-9223372036854775809", -1, 0, "value out of range"},
        {"99999999999999999999", -1, 0, "value out of range"},
        {"", -1, 0, "invalid syntax"},
        {"-", -1, 0, "invalid syntax"},
        {"abc", -1, 0, "invalid syntax"},
        {"1.5", -1, 0, "invalid syntax"},
        {"1e3", -1, 0, "invalid syntax"},
        {" 1", -1, 0, "invalid syntax"},
        {"0x10", -1, 0, "invalid syntax"},
        {"99999999999999999999x", -1, 0, "invalid syntax"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t v = 12345;
        const char *why = "unset";
        assert_int_equal(em_query_parse_int64(cases[i].in, &v, &why), cases[i].rc);
        if (cases[i].rc == 0) {
            assert_true(v == cases[i].out);
            assert_null(why);
        } else {
            assert_string_equal(why, cases[i].why);
        }
    }
}

static void test_verbs(void **state)
{
    (void)state;
    assert_int_equal(em_query_verb_bit("list"), EM_QV_LIST);
    assert_int_equal(em_query_verb_bit("deletecollection"), EM_QV_DELETECOLLECTION);
    assert_int_equal(em_query_verb_bit("log"), EM_QV_LOG);
    assert_int_equal(em_query_verb_bit("invoke"), EM_QV_INVOKE);
    assert_int_equal(em_query_verb_bit("nope"), 0);
    assert_int_equal(em_query_verb_bit(NULL), 0);
    /* every row has a name, verbs and a line for the docs */
    for (const struct em_qparam *p = em_query_params; p->name; p++) {
        assert_true(p->verbs != 0);
        assert_non_null(p->what);
        assert_true(p->type != EM_QT_ENUM || p->values);
    }
}

/* The check of a query ("a=1&b=2", no escapes) for verb: 0, or the status's code, reason
 * and message. */
static int check(const char *query, const char *verb, struct nd_status *st)
{
    json_t *q = json_object();
    char *copy = strdup(query), *save = NULL;
    for (char *kv = strtok_r(copy, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = '\0';
        json_t *arr = json_object_get(q, kv);
        if (!arr)
            json_object_set_new(q, kv, arr = json_array());
        json_array_append_new(arr, json_string(eq ? eq + 1 : ""));
    }
    free(copy);
    nd_status_release(st);
    nd_status_init(st);
    int rc = em_query_check(q, verb, st);
    json_decref(q);
    return rc;
}

static void test_check(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    static const struct {
        const char *query, *verb;
        int code;
        const char *reason, *message;
    } cases[] = {
        {"watch=True", "watch", 0, NULL, NULL},
        {"watch=yes", "list", 400, "BadRequest",
         "invalid value for query parameter watch: \"yes\" (want true or false)"},
        {"watch=yes", "create", 0, NULL, NULL}, /* not read by create: ignored */
        {"limit=10&continue=x", "list", 0, NULL, NULL},
        {"limit=ten", "list", 400, "BadRequest",
         "invalid value for query parameter limit: \"ten\" (want a whole number: "
         "strconv.ParseInt: invalid syntax)"},
        {"limit=-1", "list", 400, "BadRequest",
         "invalid value for query parameter limit: \"-1\" (want a whole number, 0 or more)"},
        {"timeoutSeconds=99999999999999999999", "watch", 400, "BadRequest",
         "invalid value for query parameter timeoutSeconds: \"99999999999999999999\" (want a "
         "whole number: strconv.ParseInt: value out of range)"},
        {"tailLines=-1", "log", 0, NULL, NULL}, /* the handler says 422, as kube */
        {"dryRun=All&fieldValidation=Strict&fieldManager=me", "create", 0, NULL, NULL},
        {"dryRun=all", "update", 400, "BadRequest",
         "invalid value for query parameter dryRun: \"all\" (want All)"},
        {"fieldValidation=strict", "patch", 400, "BadRequest",
         "invalid value for query parameter fieldValidation: \"strict\" (want Ignore, Warn or "
         "Strict)"},
        {"propagationPolicy=Orphan&orphanDependents=1&gracePeriodSeconds=0", "delete", 0, NULL,
         NULL},
        {"gracePeriodSeconds=soon", "deletecollection", 400, "BadRequest",
         "invalid value for query parameter gracePeriodSeconds: \"soon\" (want a whole number: "
         "strconv.ParseInt: invalid syntax)"},
        {"pretty=1", "get", 0, NULL, NULL},
        {"pretty=yes", "exec", 400, "BadRequest",
         "invalid value for query parameter pretty: \"yes\" (want true or false)"},
        {"resourceVersion=-3", "get", 400, "BadRequest",
         "resourceVersion: Invalid value: \"-3\": strconv.ParseUint: parsing \"-3\": invalid "
         "syntax"},
        {"resourceVersionMatch=Exact", "list", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "resourceVersionMatch is forbidden unless resourceVersion is provided"},
        {"resourceVersionMatch=Exact&resourceVersion=5", "list", 0, NULL, NULL},
        {"resourceVersionMatch=Exact&resourceVersion=0", "list", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""},
        {"resourceVersionMatch=NotOlderThan&resourceVersion=5&continue=x", "list", 422,
         "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "resourceVersionMatch is forbidden when continue is provided"},
        {"sendInitialEvents=true", "list", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
         "sendInitialEvents is forbidden for list"},
        {"sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
         "watch", 0, NULL, NULL},
        {"sendInitialEvents=true", "watch", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
        {"resourceVersionMatch=NotOlderThan", "watch", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
        {"sendInitialEvents=1&resourceVersionMatch=Exact", "watch", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
         "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
        {"resourceVersionMatch=Newest&resourceVersion=1", "list", 422, "Invalid",
         "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: "
         "\"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\""},
        {"stdin=t&stdout=T&stderr=TRUE&tty=False&command=ls", "exec", 0, NULL, NULL},
        {"stat=maybe", "files", 400, "BadRequest",
         "invalid value for query parameter stat: \"maybe\" (want true or false)"},
        {"follow=\x01", "log", 400, "BadRequest",
         "invalid value for query parameter follow: \"\\x01\" (want true or false)"},
        {"unknown=whatever&watch=1", "watch", 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = check(cases[i].query, cases[i].verb, &st);
        if (!cases[i].code) {
            if (rc != 0)
                fail_msg("%s (%s): %s", cases[i].query, cases[i].verb, st.message);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_int_equal(st.code, cases[i].code);
        assert_string_equal(st.reason, cases[i].reason);
        assert_string_equal(st.message, cases[i].message);
        assert_non_null(st.fix);
    }
    nd_status_release(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bool_spellings),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_verbs),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
