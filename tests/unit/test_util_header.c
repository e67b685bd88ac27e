/* Unit tests of pkg/util/header.h: tokens in HTTP header lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
