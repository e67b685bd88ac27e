/* Unit tests of pkg/util/header.h: tokens in HTTP header lists, Accept, Host and Origin
 * checks, the constant-time secret compare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/header.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_has_token(void **state)
{
    (void)state;
    static const struct {
        const char *list, *tok;
        bool has;
    } rows[] = {
        {"upgrade", "upgrade", true},
        {"Upgrade", "upgrade", true}, /* case does not count */
        {"keep-alive, Upgrade", "upgrade", true},
        {" \tkeep-alive ,\tUPGRADE \t", "upgrade", true},
        {",,upgrade,,", "upgrade", true},
        {"v4.channel.k8s.io, v5.channel.k8s.io", "v5.channel.k8s.io", true},
        {"gzip, chunked", "chunked", true},
        {"upgrades", "upgrade", false}, /* whole elements only */
        {"upgrade2, xupgrade", "upgrade", false},
        {"up grade", "upgrade", false},
        {"keep-alive", "close", false},
        {"", "close", false},
        {NULL, "close", false},
        {" , ,", "close", false},
    };
    for (size_t i = 0; i < N(rows); i++) {
        if (nd_http_has_token(rows[i].list, rows[i].tok) != rows[i].has)
            fail_msg("row %zu: \"%s\" has \"%s\": want %d", i,
                     rows[i].list ? rows[i].list : "(null)", rows[i].tok, rows[i].has);
    }
}

static void test_list_next(void **state)
{
    (void)state;
    static const struct {
        const char *list, *want; /* the elements, joined by "|" */
    } rows[] = {
        {"v5.channel.k8s.io, base64url.bearer.x", "v5.channel.k8s.io|base64url.bearer.x"},
        {" \ta ,\tb c \t,,", "a|b c"},
        {",,", ""},
        {"", ""},
        {NULL, ""},
    };
    for (size_t i = 0; i < N(rows); i++) {
        char got[128] = "";
        const char *cur = rows[i].list, *e;
        size_t n, used = 0;
        while ((e = nd_http_list_next(&cur, &n)))
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%.*s", used ? "|" : "",
                                     (int)n, e);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("row %zu: got \"%s\", want \"%s\"", i, got, rows[i].want);
    }
}

static void test_accepts(void **state)
{
    (void)state;
    static const struct {
        const char *accept, *type;
        bool yes;
    } rows[] = {
        {"application/json, text/event-stream", "text/event-stream", true},
        {"application/json, text/event-stream", "application/json", true},
        {"Text/Event-Stream", "text/event-stream", true},
        {"text/*", "text/event-stream", true},
        {"*/*", "application/json", true},
        {"application/json;q=0.9, text/event-stream;q=1", "application/json", true},
        {"application/json;q=0", "application/json", false}, /* refused outright */
        {"application/json; q=0.0", "application/json", false},
        {"application/json;q=0.5", "application/json", true},
        {"application/jsonx", "application/json", false},
        {"application/*", "text/event-stream", false},
        {"text/html", "text/event-stream", false},
        {"", "application/json", false},
        {NULL, "application/json", false},
    };
    for (size_t i = 0; i < N(rows); i++)
        if (nd_http_accepts(rows[i].accept, rows[i].type) != rows[i].yes)
            fail_msg("row %zu: \"%s\" accepts %s: want %d", i,
                     rows[i].accept ? rows[i].accept : "(null)", rows[i].type, rows[i].yes);
}

static void test_host_and_origin(void **state)
{
    (void)state;
    char *n = nd_http_host_name("[::1]:8080");
    assert_string_equal(n, "[::1]");
    free(n);
    n = nd_http_host_name("example.com:80");
    assert_string_equal(n, "example.com");
    free(n);
    assert_true(nd_http_addr_is_loopback("127.0.0.1"));
    assert_false(nd_http_addr_is_loopback("0.0.0.0"));
    assert_true(nd_http_host_is_local(NULL, "127.0.0.1"));
    assert_true(nd_http_host_is_local("localhost:9", "127.0.0.1"));
    assert_true(nd_http_host_is_local("10.0.0.5:9", "10.0.0.5"));
    assert_false(nd_http_host_is_local("evil.example:9", "127.0.0.1"));
    static const struct {
        const char *origin, *host, *listen;
        unsigned port;
        bool own;
    } rows[] = {
        {"http://127.0.0.1:8080", NULL, "127.0.0.1", 8080, true},
        {"http://localhost:8080", NULL, "127.0.0.1", 8080, true},
        {"https://[::1]:8080", NULL, "127.0.0.1", 8080, true},
        {"http://localhost:8081", NULL, "127.0.0.1", 8080, false}, /* another port */
        {"http://evil.example", "127.0.0.1:8080", "127.0.0.1", 8080, false},
        {"http://evil.example:8080", "evil.example:8080", "127.0.0.1", 8080, true},
        {"http://localhost:8080", NULL, "10.0.0.5", 8080, false}, /* off loopback */
        {"http://10.0.0.5:8080", NULL, "10.0.0.5", 8080, true},
        {"null", NULL, "127.0.0.1", 8080, false},
        {"file://", NULL, "127.0.0.1", 8080, false},
    };
    for (size_t i = 0; i < N(rows); i++)
        if (nd_http_origin_is_own(rows[i].origin, rows[i].host, rows[i].listen, rows[i].port) !=
            rows[i].own)
            fail_msg("row %zu: %s: want %d", i, rows[i].origin, rows[i].own);
}

static void test_secret_equal(void **state)
{
    (void)state;
    const char *want = "s3cret-token-0123456789";
    assert_true(nd_http_secret_equal(want, strlen(want), want, strlen(want)));
    assert_false(nd_http_secret_equal("s3cret-token-012345678", 22, want, strlen(want)));
    assert_false(nd_http_secret_equal("s3cret-token-01234567890", 24, want, strlen(want)));
    assert_false(nd_http_secret_equal("S3cret-token-0123456789", 23, want, strlen(want)));
    assert_false(nd_http_secret_equal("", 0, "", 0)); /* an empty secret matches nothing */
    assert_false(nd_http_secret_equal("x", 1, "", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_token),
        cmocka_unit_test(test_list_next),
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_host_and_origin),
        cmocka_unit_test(test_secret_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
