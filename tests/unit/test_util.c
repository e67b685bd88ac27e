/* Unit tests of pkg/util's core: nd_buf, nd_status, nd_xmalloc, logging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/status.h"
#include "util/xmalloc.h"

static void test_buf_appends(void **state)
{
    (void)state;
    struct nd_buf b = ND_BUF_INIT;
    assert_non_null(b.data);
    assert_string_equal(b.data, "");
    assert_int_equal(nd_buf_adds(&b, "abc"), 0);
    assert_int_equal(nd_buf_addch(&b, '-'), 0);
    assert_int_equal(nd_buf_addf(&b, "%d/%s", 42, "x"), 0);
    assert_string_equal(b.data, "abc-42/x");
    assert_int_equal(b.len, 8);
    nd_buf_truncate(&b, 3);
    assert_string_equal(b.data, "abc");
    nd_buf_reset(&b);
    assert_string_equal(b.data, "");
    /* growth well past the first allocation */
    for (int i = 0; i < 1000; i++)
        nd_buf_adds(&b, "0123456789");
    assert_int_equal(b.len, 10000);
    char *s = nd_buf_detach(&b);
    assert_int_equal(strlen(s), 10000);
    assert_string_equal(b.data, "");
    free(s);
    nd_buf_release(&b);
}

static void test_buf_cap(void **state)
{
    (void)state;
    struct nd_buf b;
    nd_buf_init(&b, 8);
    assert_int_equal(nd_buf_adds(&b, "12345678"), 0);
    assert_false(b.overflow);
    assert_int_equal(nd_buf_addch(&b, '9'), -1);
    assert_true(b.overflow);
    assert_string_equal(b.data, "12345678");
    assert_int_equal(nd_buf_addf(&b, "%s", "more"), -1);
    assert_string_equal(b.data, "12345678");
    nd_buf_release(&b);
    char *empty = nd_buf_detach(&b);
    assert_string_equal(empty, "");
    free(empty);
}

static void test_buf_urlencode(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"abc-._~", "abc-._~"},
        {"a b", "a%20b"},
        {"app in (x,page)", "app%20in%20%28x%2Cpage%29"},
        {"k=v&x", "k%3Dv%26x"},
        {"\xc3\xa9", "%C3%A9"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf b = ND_BUF_INIT;
        nd_buf_add_urlencoded(&b, rows[i].in);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
}

static void test_status_reason_table(void **state)
{
    (void)state;
    static const struct {
        const char *reason;
        int http, exit_code;
    } rows[] = {
        {"BadRequest", 400, 1},          {"Unauthorized", 401, 5},
        {"Forbidden", 403, 5},           {"NotFound", 404, 3},
        {"MethodNotAllowed", 405, 1},    {"NotAcceptable", 406, 1},
        {"AlreadyExists", 409, 4},       {"Conflict", 409, 4},
        {"Expired", 410, 1},             {"IdempotencyKeyReused", 422, 4},
        {"IdempotencyKeyRequired", 428, 1}, {"PreconditionFailed", 412, 4},
        {"RequestEntityTooLarge", 413, 1}, {"UnsupportedMediaType", 415, 1},
        {"Invalid", 422, 1},             {"FieldImmutable", 422, 4},
        {"BudgetExceeded", 403, 8},      {"ConsentRequired", 428, 8},
        {"TooManyRequests", 429, 1},     {"InternalError", 500, 1},
        {"ServiceUnavailable", 503, 1},  {"Timeout", 504, 6},
        {"RequestURITooLong", 414, 1},   {"RequestHeaderFieldsTooLarge", 431, 1},
        {"RequestTimeout", 408, 1},
        {"StorageFull", 507, 1},         {"StorageError", 500, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_status_set(&st, rows[i].reason, NULL, "x"), -1);
        assert_int_equal(st.code, rows[i].http);
        assert_int_equal(nd_status_exit_code(&st), rows[i].exit_code);
        assert_true(nd_reason_known(rows[i].reason));
        nd_status_release(&st);
    }
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_status_exit_code(&st), 0);
    nd_status_set(&st, "Usage", NULL, "bad flag");
    assert_int_equal(nd_status_exit_code(&st), 2);
    nd_status_set(&st, "Unreachable", NULL, "no route");
    assert_int_equal(nd_status_exit_code(&st), 7);
    nd_status_release(&st);
    assert_false(nd_reason_known("NoSuchReason"));
    assert_int_equal(nd_reason_http_code("NoSuchReason"), 500);
}

static void test_status_round_trip(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    nd_status_set(&st, "FieldImmutable", "nodus get job/a -o yaml", "Job %s is invalid", "a");
    nd_status_set_target(&st, "a", "nodus.dev", "jobs");
    nd_status_add_cause(&st, "FieldValueForbidden", "spec.image", "field is immutable");
    nd_status_add_cause(&st, "FieldValueForbidden", "spec.command", "field is immutable");
    st.docs = nd_status_docs_url("http://127.0.0.1:1/docs/", "FieldImmutable");
    st.request_id = nd_xstrdup("req_1");
    assert_string_equal(st.docs, "http://127.0.0.1:1/docs/reference/errors/#fieldimmutable");
    assert_int_equal(nd_status_cause_count(&st), 2);

    json_t *j = nd_status_to_json(&st);
    char *text = json_dumps(j, 0);
    json_decref(j);

    struct nd_status back = ND_STATUS_INIT;
    nd_status_parse(&back, text, strlen(text), 500);
    free(text);
    assert_int_equal(back.code, 422);
    assert_string_equal(back.reason, "FieldImmutable");
    assert_string_equal(back.message, "Job a is invalid");
    assert_string_equal(back.fix, "nodus get job/a -o yaml");
    assert_string_equal(back.request_id, "req_1");
    assert_int_equal(nd_status_cause_count(&back), 2);
    json_t *c1 = json_array_get(json_object_get(back.details, "causes"), 1);
    assert_string_equal(json_string_value(json_object_get(c1, "field")), "spec.command");
    assert_string_equal(json_string_value(json_object_get(back.details, "kind")), "jobs");
    nd_status_release(&back);
    nd_status_release(&st);
}

static void test_status_non_status_bodies(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        int http;
        const char *reason, *message;
    } rows[] = {
        {"404 page not found\n", 404, "NotFound", "404 page not found"},
        {"", 503, "ServiceUnavailable", "the server answered 503"},
        {"{\"kind\":\"Other\"}", 409, "Conflict", "the server answered 409 (Conflict)"},
        {"{\"kind\":\"Status\",\"code\":410,\"message\":\"too old\"}", 200, "Expired", "too old"},
        {"[1,2", 400, "BadRequest", "[1,2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_parse(&st, rows[i].body, strlen(rows[i].body), rows[i].http);
        assert_string_equal(st.reason, rows[i].reason);
        assert_string_equal(st.message, rows[i].message);
        assert_true(nd_status_failed(&st));
        nd_status_release(&st);
    }
}

static void test_status_prefix_and_move(void **state)
{
    (void)state;
    struct nd_status a = ND_STATUS_INIT, b = ND_STATUS_INIT;
    nd_status_set(&a, "Invalid", NULL, "bad value");
    nd_status_prefix(&a, "job.yaml:%d", 3);
    assert_string_equal(a.message, "job.yaml:3: bad value");
    nd_status_move(&b, &a);
    assert_false(nd_status_failed(&a));
    assert_string_equal(b.reason, "Invalid");
    nd_status_release(&b);
}

static void test_log_redact(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"Authorization: Bearer abc", "Authorization: <masked>"},
        {"X-Auth-Token: s3cret", "X-Auth-Token: <masked>"},
        {"Accept: application/json", "Accept: application/json"},
        {"no colon here", "no colon here"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *s = nd_log_redact_header(rows[i].in);
        assert_string_equal(s, rows[i].out);
        free(s);
    }
}

static void test_log_levels(void **state)
{
    (void)state;
    int evaluated = 0;
    nd_log_level = 2;
    nd_log(6, "%d", ++evaluated); /* above the level: arguments not evaluated */
    assert_int_equal(evaluated, 0);
    assert_true(nd_log_enabled(2));
    assert_false(nd_log_enabled(3));
    nd_log_level = 0;
}

static void test_xasprintf(void **state)
{
    (void)state;
    char *s = nd_xasprintf("%s-%03d", "job", 7);
    assert_string_equal(s, "job-007");
    free(s);
    char *t = nd_xstrndup("abcdef", 3);
    assert_string_equal(t, "abc");
    free(t);
}

static void test_reason_reference(void **state)
{
    (void)state;
    /* Every reason of the API's error table has a page entry with its code and a fix;
     * the client-side reasons do not. */
    size_t n = 0;
    int http;
    const char *summary, *fix, *reason;
    while ((reason = nd_reason_at(n, &http, &summary, &fix))) {
        assert_int_equal(http, nd_reason_http_code(reason));
        assert_true(strlen(summary) > 10);
        assert_true(strlen(fix) > 5);
        assert_string_equal(nd_reason_fix(reason), fix);
        assert_string_not_equal(reason, "Usage");
        n++;
    }
    assert_int_equal(n, 28);
    assert_null(nd_reason_fix("Usage"));
}

static void test_base64(void **state)
{
    (void)state;
    /* RFC 4648 section 10 vectors, both alphabets. */
    static const struct {
        const char *in, *std, *url;
    } rows[] = {
        {"", "", ""},
        {"f", "Zg==", "Zg"},
        {"fo", "Zm8=", "Zm8"},
        {"foo", "Zm9v", "Zm9v"},
        {"foob", "Zm9vYg==", "Zm9vYg"},
        {"fooba", "Zm9vYmE=", "Zm9vYmE"},
        {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
        {"\xfb\xff", "+/8=", "-_8"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf b = ND_BUF_INIT, d = ND_BUF_INIT, e = ND_BUF_INIT;
        nd_base64_encode(rows[i].in, strlen(rows[i].in), false, &b);
        assert_string_equal(b.data, rows[i].std);
        nd_base64_encode(rows[i].in, strlen(rows[i].in), true, &e);
        assert_string_equal(e.data, rows[i].url);
        assert_int_equal(nd_base64_decode(b.data, b.len, &d), 0);
        assert_string_equal(d.data, rows[i].in);
        nd_buf_reset(&d);
        assert_int_equal(nd_base64_decode(e.data, e.len, &d), 0);
        assert_string_equal(d.data, rows[i].in);
        nd_buf_release(&b);
        nd_buf_release(&d);
        nd_buf_release(&e);
    }
    static const char *const bad[] = {"Z", "Zm9v!", "Zg==Zg", "Zm9vY"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nd_buf d = ND_BUF_INIT;
        assert_int_equal(nd_base64_decode(bad[i], strlen(bad[i]), &d), -1);
        nd_buf_release(&d);
    }
    struct nd_buf d = ND_BUF_INIT;
    assert_int_equal(nd_base64_decode("Zm9v\nYmFy\n", 10, &d), 0);
    assert_string_equal(d.data, "foobar");
    nd_buf_release(&d);
}

static void test_fnv64(void **state)
{
    (void)state;
    /* Reference vectors of FNV-1a 64. */
    static const struct {
        const char *in, *hex;
    } rows[] = {
        {"", "cbf29ce484222325"},
        {"a", "af63dc4c8601ec8c"},
        {"foobar", "85944171f73967e8"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char hex[17];
        nd_hash_hex(nd_fnv64(ND_FNV64_INIT, rows[i].in, strlen(rows[i].in)), hex);
        assert_string_equal(hex, rows[i].hex);
    }
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buf_appends),
        cmocka_unit_test(test_buf_cap),
        cmocka_unit_test(test_buf_urlencode),
        cmocka_unit_test(test_status_reason_table),
        cmocka_unit_test(test_status_round_trip),
        cmocka_unit_test(test_status_non_status_bodies),
        cmocka_unit_test(test_status_prefix_and_move),
        cmocka_unit_test(test_log_redact),
        cmocka_unit_test(test_log_levels),
        cmocka_unit_test(test_xasprintf),
        cmocka_unit_test(test_fnv64),
        cmocka_unit_test(test_reason_reference),
        cmocka_unit_test(test_base64),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
