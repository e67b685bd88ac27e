/* Unit tests of the string formats of pkg/kinds: cron schedules, image references and
 * the comparison of formatted values (quantities, durations, money). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/formats.h"

static void test_cron(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
    } rows[] = {
        {"0 2 * * 6", true},
        {"*/15 * * * *", true},
        {"0 0 1 JAN *", true},
        {"0 9-17 * * MON-FRI", true},
        {"5,10,15 0 1-31/2 * sun", true},
        {"@daily", true},
        {"0 0 * * 7", true},
        {"  0 2 * * 6  ", true},
        {"59 23 31 12 0", true},
        {"0 2 * *", false},
        {"0 2 * * 6 1", false},
        {"60 * * * *", false},
        {"* 24 * * *", false},
        {"* * 0 * *", false},
        {"* * * 13 *", false},
        {"* * * * 8", false},
        {"*/0 * * * *", false},
        {"5-1 * * * *", false},
        {"a * * * *", false},
        {"1, * * * *", false},
        {"", false},
        {"@sometimes", false},
        {"* * * JANUARY *", false},
        {"1-/2 * * * *", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("cron \"%s\"\n", rows[i].s);
        assert_int_equal(nd_cron_valid(rows[i].s), rows[i].ok);
    }
    assert_false(nd_cron_valid(NULL));
}

static void test_image_ref(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
    } rows[] = {
        {"nodus/pytorch:2.8-cuda12.8", true},
        {"nodus/base:1", true},
        {"nodus/a:latest_1.x", true},
        {"nodus/pytorch", false},
        {"nodus/pytorch:", false},
        {"nodus/:1", false},
        {"nodus/PyTorch:1", false},
        {"docker.io/pytorch:1", false},
        {"nodus/a:-x", false},
        {"nodus/a:.x", false},
        {"nodus/a:b:c", false},
        {"nodus/a/b:1", false},
        {"", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("image \"%s\"\n", rows[i].s);
        assert_int_equal(nd_image_ref_valid(rows[i].s), rows[i].ok);
    }
    assert_false(nd_image_ref_valid(NULL));
}

static void test_format_compare(void **state)
{
    (void)state;
    static const struct {
        const char *format, *a, *b;
        int rc, cmp;
    } rows[] = {
        {"money", "40.00", "40", 0, 0},  {"money", "39.999999", "40", 0, -1},
        {"duration", "90m", "1h", 0, 1}, {"duration", "1h30m", "90m", 0, 0},
        {"quantity", "1Gi", "1G", 0, 1}, {"quantity", "500m", "1", 0, -1},
        {"money", "x", "1", -1, 0},      {"date-time", "1", "2", -1, 0},
        {NULL, "1", "2", -1, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *a = json_string(rows[i].a), *b = json_string(rows[i].b);
        int cmp = 42;
        assert_int_equal(nd_format_compare(rows[i].format, a, b, &cmp), rows[i].rc);
        if (rows[i].rc == 0)
            assert_int_equal(cmp < 0 ? -1 : cmp > 0, rows[i].cmp);
        json_decref(a);
        json_decref(b);
    }
    json_t *n = json_integer(2000000000), *q = json_string("1Gi");
    int cmp;
    assert_int_equal(nd_format_compare("quantity", n, q, &cmp), 0);
    assert_true(cmp > 0);
    json_decref(n);
    json_decref(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cron),
        cmocka_unit_test(test_image_ref),
        cmocka_unit_test(test_format_compare),
    };
    return cmocka_run_group_tests_name("formats", tests, NULL, NULL);
}
