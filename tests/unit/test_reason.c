/* Unit tests of the reasons of pkg/util/status.h: the one table of reasons, enum <->
 * wire string, with each reason's HTTP code and exit code in the same row. A broken
 * table (a reason without a string, a string twice, two rows swapped, a wrong code)
 * fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/status.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* api.md's error table (HTTP code) and cli.md's exit codes; the last two are the
 * client's own reasons (no HTTP code). */
static const struct {
    enum nd_reason r;
    const char *wire;
    int http;
    int exit_code;
} spelled[] = {
    {ND_REASON_BAD_REQUEST, "BadRequest", 400, 1},
    {ND_REASON_UNAUTHORIZED, "Unauthorized", 401, 5},
    {ND_REASON_FORBIDDEN, "Forbidden", 403, 5},
    {ND_REASON_NOT_FOUND, "NotFound", 404, 3},
    {ND_REASON_METHOD_NOT_ALLOWED, "MethodNotAllowed", 405, 1},
    {ND_REASON_NOT_ACCEPTABLE, "NotAcceptable", 406, 1},
    {ND_REASON_ALREADY_EXISTS, "AlreadyExists", 409, 4},
    {ND_REASON_CONFLICT, "Conflict", 409, 4},
    {ND_REASON_EXPIRED, "Expired", 410, 1},
    {ND_REASON_GONE, "Gone", 410, 1},
    {ND_REASON_IDEMPOTENCY_KEY_REUSED, "IdempotencyKeyReused", 422, 4},
    {ND_REASON_IDEMPOTENCY_KEY_REQUIRED, "IdempotencyKeyRequired", 428, 1},
    {ND_REASON_PRECONDITION_FAILED, "PreconditionFailed", 412, 4},
    {ND_REASON_REQUEST_ENTITY_TOO_LARGE, "RequestEntityTooLarge", 413, 1},
    {ND_REASON_REQUEST_URI_TOO_LONG, "RequestURITooLong", 414, 1},
    {ND_REASON_REQUEST_TIMEOUT, "RequestTimeout", 408, 1},
    {ND_REASON_UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType", 415, 1},
    {ND_REASON_REQUEST_HEADER_FIELDS_TOO_LARGE, "RequestHeaderFieldsTooLarge", 431, 1},
    {ND_REASON_INVALID, "Invalid", 422, 1},
    {ND_REASON_FIELD_IMMUTABLE, "FieldImmutable", 422, 4},
    {ND_REASON_BUDGET_EXCEEDED, "BudgetExceeded", 403, 8},
    {ND_REASON_CONSENT_REQUIRED, "ConsentRequired", 428, 8},
    {ND_REASON_TOO_MANY_REQUESTS, "TooManyRequests", 429, 1},
    {ND_REASON_INTERNAL_ERROR, "InternalError", 500, 1},
    {ND_REASON_STORAGE_FULL, "StorageFull", 507, 1},
    {ND_REASON_STORAGE_ERROR, "StorageError", 500, 1},
    {ND_REASON_SERVICE_UNAVAILABLE, "ServiceUnavailable", 503, 1},
    {ND_REASON_TIMEOUT, "Timeout", 504, 6},
    {ND_REASON_USAGE, "Usage", 0, 2},
    {ND_REASON_UNREACHABLE, "Unreachable", 0, 7},
};

/* Every reason has a string, which parses back to it; no string is there twice. */
static void test_table_complete(void **state)
{
    (void)state;
    for (int r = ND_REASON_NONE + 1; r < ND_REASON_UNKNOWN; r++) {
        const char *name = nd_reason_name((enum nd_reason)r);
        if (!name || !*name)
            fail_msg("reason %d has no string", r);
        if (nd_reason_parse(name) != (enum nd_reason)r)
            fail_msg("\"%s\" parses to %d, not %d", name, nd_reason_parse(name), r);
        if (!nd_reason_known(name))
            fail_msg("\"%s\" is not known", name);
        for (int q = ND_REASON_NONE + 1; q < r; q++)
            if (!strcmp(nd_reason_name((enum nd_reason)q), name))
                fail_msg("\"%s\" is the string of reasons %d and %d", name, q, r);
    }
    assert_int_equal(N(spelled), ND_REASON_UNKNOWN - 1);
}

/* Each row: the wire string, the HTTP code and the exit code the contract gives. */
static void test_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(spelled); i++) {
        assert_string_equal(nd_reason_name(spelled[i].r), spelled[i].wire);
        assert_int_equal(nd_reason_parse(spelled[i].wire), spelled[i].r);
        assert_int_equal(nd_reason_http_code(spelled[i].wire),
                         spelled[i].http ? spelled[i].http : 500);
        struct nd_status st = ND_STATUS_INIT;
        nd_status_setc(&st, 418, spelled[i].wire, NULL, "x");
        assert_int_equal(nd_status_reason(&st), spelled[i].r);
        assert_true(nd_status_is(&st, spelled[i].r));
        if (nd_status_exit_code(&st) != spelled[i].exit_code)
            fail_msg("%s: exit code %d, not %d", spelled[i].wire, nd_status_exit_code(&st),
                     spelled[i].exit_code);
        nd_status_release(&st);
    }
}

/* The error reference lists the server's reasons in the enum's order. */
static void test_reference_order(void **state)
{
    (void)state;
    size_t i = 0;
    int http;
    for (const char *name; (name = nd_reason_at(i, &http, NULL, NULL)); i++) {
        assert_string_equal(name, nd_reason_name((enum nd_reason)(i + 1)));
        assert_int_equal(http, nd_reason_http_code(name));
    }
    assert_int_equal(i + 1, ND_REASON_USAGE); /* the client's own reasons are not listed */
}

/* No error, an unknown reason, and values outside the enum. */
static void test_edges(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_status_reason(&st), ND_REASON_NONE);
    assert_false(nd_status_is(&st, ND_REASON_NOT_FOUND));
    nd_status_setc(&st, 499, "SomethingElse", NULL, "x");
    assert_int_equal(nd_status_reason(&st), ND_REASON_UNKNOWN);
    assert_int_equal(nd_status_exit_code(&st), 1);
    nd_status_release(&st);
    assert_int_equal(nd_reason_parse(NULL), ND_REASON_NONE);
    assert_int_equal(nd_reason_parse(""), ND_REASON_NONE);
    assert_int_equal(nd_reason_parse("notfound"), ND_REASON_UNKNOWN); /* the wire is exact */
    assert_false(nd_reason_known("notfound"));
    assert_null(nd_reason_name(ND_REASON_NONE));
    assert_null(nd_reason_name(ND_REASON_UNKNOWN));
    assert_null(nd_reason_name(ND_REASON_COUNT));
    assert_null(nd_reason_name((enum nd_reason) - 1));
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_reference_order),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests_name("reason", tests, NULL, NULL);
}
