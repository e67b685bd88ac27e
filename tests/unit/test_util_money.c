/* Unit tests of pkg/util/money.h: micro-dollar amounts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/money.h"
#include "util/status.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FORM "must be a decimal number of US dollars such as \"40.00\""

static void test_money_parse_valid(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t micros;
    } rows[] = {
        {"40", 40000000},
        {"40.0", 40000000},
        {"40.00", 40000000},
        {"0.000001", 1},
        {"0", 0},
        {"-0", 0},
        {"-0.00", 0},
        {"-1.5", -1500000},
        {"1.2345", 1234500},
        {"007.5", 7500000},
        {"12.40", 12400000},
        {"9223372036854.775807", INT64_MAX},
        {"-9223372036854.775808", INT64_MIN},
        {"0000000000000000000000000000001", 1000000},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t m = 42;
        if (nd_money_parse(rows[i].in, &m, &st) != 0)
            fail_msg("%s: %s", rows[i].in, st.message);
        assert_int_equal(m, rows[i].micros);
    }
}

static void test_money_parse_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *in, *msg;
    } rows[] = {
        {"", "invalid amount \"\": " FORM},
        {NULL, "invalid amount \"\": " FORM},
        {"+1", "invalid amount \"+1\": " FORM},
        {"-", "invalid amount \"-\": " FORM},
        {"--1", "invalid amount \"--1\": " FORM},
        {" 1", "invalid amount \" 1\": " FORM},
        {"1 ", "invalid amount \"1 \": " FORM},
        {"1.2.3", "invalid amount \"1.2.3\": " FORM},
        {"$1", "invalid amount \"$1\": " FORM},
        {"1$", "invalid amount \"1$\": " FORM},
        {"1e3", "invalid amount \"1e3\": " FORM},
        {"1E3", "invalid amount \"1E3\": " FORM},
        {"1.", "invalid amount \"1.\": " FORM},
        {".5", "invalid amount \".5\": " FORM},
        {"1,000.00", "invalid amount \"1,000.00\": " FORM},
        {"0x10", "invalid amount \"0x10\": " FORM},
        {"NaN", "invalid amount \"NaN\": " FORM},
        {"1\n", "invalid amount \"1\\n\": " FORM},
        {"0.0000001", "invalid amount \"0.0000001\": more than 6 decimal places"},
        {"1.0000000", "invalid amount \"1.0000000\": more than 6 decimal places"},
        {"9223372036854.775808", "invalid amount \"9223372036854.775808\": out of range"},
        {"-9223372036854.775809", "invalid amount \"-9223372036854.775809\": out of range"},
        {"10000000000000", "invalid amount \"10000000000000\": out of range"},
        {"99999999999999999999999999999999", "invalid amount \"99999999999999999999999999999999\": "
                                             "out of range"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t m = 42;
        assert_int_equal(nd_money_parse(rows[i].in, &m, &st), -1);
        assert_int_equal(m, 42);
        assert_string_equal(st.reason, "Invalid");
        assert_string_equal(st.message, rows[i].msg);
        nd_status_release(&st);
    }
    /* a huge amount: rejected, the message stays short */
    size_t n = 1 << 20;
    char *s = nd_xmalloc(n + 1);
    memset(s, '7', n);
    s[n] = '\0';
    struct nd_status st = ND_STATUS_INIT;
    int64_t m;
    assert_int_equal(nd_money_parse(s, &m, &st), -1);
    assert_true(strlen(st.message) < 300);
    assert_non_null(strstr(st.message, "777\"...: out of range"));
    nd_status_release(&st);
    free(s);
}

static void test_money_format(void **state)
{
    (void)state;
    static const struct {
        int64_t micros;
        const char *wire, *human;
    } rows[] = {
        {40000000, "40.00", "$40.00"},
        {1234500, "1.2345", "$1.23"},
        {1, "0.000001", "$0.00"},
        {0, "0.00", "$0.00"},
        {12400000, "12.40", "$12.40"},
        {12345678, "12.345678", "$12.35"},
        {4999, "0.004999", "$0.00"},
        {5000, "0.005", "$0.01"},
        {-5000, "-0.005", "-$0.01"},
        {-4999, "-0.004999", "$0.00"},
        {-1000000, "-1.00", "-$1.00"},
        {-1500000, "-1.50", "-$1.50"},
        {10000, "0.01", "$0.01"},
        {995000, "0.995", "$1.00"},
        {1000000000000, "1000000.00", "$1000000.00"},
        {INT64_MAX, "9223372036854.775807", "$9223372036854.78"},
        {INT64_MIN, "-9223372036854.775808", "-$9223372036854.78"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_money_format(rows[i].micros, &b), 0);
        assert_string_equal(b.data, rows[i].wire);
        nd_buf_reset(&b);
        assert_int_equal(nd_money_human(rows[i].micros, &b), 0);
        assert_string_equal(b.data, rows[i].human);
        /* the wire form parses back */
        struct nd_status st = ND_STATUS_INIT;
        int64_t back = 0;
        assert_int_equal(nd_money_parse(rows[i].wire, &back, &st), 0);
        assert_int_equal(back, rows[i].micros);
        nd_buf_release(&b);
    }
}

static void test_money_arithmetic(void **state)
{
    (void)state;
    int64_t out = 42;
    assert_int_equal(nd_money_add(40000000, 2500000, &out), 0);
    assert_int_equal(out, 42500000);
    assert_int_equal(nd_money_add(-1, 1, &out), 0);
    assert_int_equal(out, 0);
    out = 42;
    assert_int_equal(nd_money_add(INT64_MAX, 1, &out), -1);
    assert_int_equal(nd_money_add(INT64_MIN, -1, &out), -1);
    assert_int_equal(nd_money_add(1, INT64_MAX, &out), -1);
    assert_int_equal(out, 42);
    assert_int_equal(nd_money_add(INT64_MAX, INT64_MIN, &out), 0);
    assert_int_equal(out, -1);
    assert_int_equal(nd_money_sub(10, 20, &out), 0);
    assert_int_equal(out, -10);
    out = 42;
    assert_int_equal(nd_money_sub(INT64_MIN, 1, &out), -1);
    assert_int_equal(nd_money_sub(0, INT64_MIN, &out), -1);
    assert_int_equal(nd_money_sub(INT64_MAX, -1, &out), -1);
    assert_int_equal(out, 42);
    assert_int_equal(nd_money_sub(-1, INT64_MIN, &out), 0);
    assert_int_equal(out, INT64_MAX);

    assert_int_equal(nd_money_cmp(1, 2), -1);
    assert_int_equal(nd_money_cmp(2, 2), 0);
    assert_int_equal(nd_money_cmp(3, 2), 1);
    assert_int_equal(nd_money_cmp(INT64_MIN, INT64_MAX), -1);
    assert_int_equal(nd_money_cmp(INT64_MAX, INT64_MIN), 1);
}

static void test_money_mul_rate(void **state)
{
    (void)state;
    static const struct {
        int64_t rate, millis;
        int rc;
        int64_t out;
    } rows[] = {
        {2490000, 3600000, 0, 2490000}, /* $2.49/h for one hour */
        {2490000, 7200000, 0, 4980000}, /* two hours: $4.98 */
        {2490000, 1000, 0, 692},        /* one second: 691.67 micros -> 692 */
        {2490000, 0, 0, 0},
        {3600000, 1, 0, 1},   /* exactly 1 micro per ms */
        {1800000, 1, 0, 1},   /* 0.5 rounds away from zero */
        {1799999, 1, 0, 0},   /* 0.4999... rounds down */
        {-1800000, 1, 0, -1}, /* credits round away from zero too */
        {-1799999, 1, 0, 0},
        {1000000, -3600000, 0, -1000000},
        {INT64_MAX, 3600000, 0, INT64_MAX}, /* 128-bit product, no overflow */
        {INT64_MAX, INT64_MAX, -1, 42},     /* result does not fit */
        {INT64_MIN, 3600000, 0, INT64_MIN},
        {INT64_MIN, 3600001, -1, 42},
        {40000000, 86400000LL * 365, 0, 350400000000LL}, /* $40/h for a year */
    };
    for (size_t i = 0; i < N(rows); i++) {
        int64_t out = 42;
        assert_int_equal(nd_money_mul_rate(rows[i].rate, rows[i].millis, &out), rows[i].rc);
        if (out != rows[i].out)
            fail_msg("row %zu: %lld, want %lld", i, (long long)out, (long long)rows[i].out);
    }
}

static void test_money_percent(void **state)
{
    (void)state;
    static const struct {
        int64_t amount, pct;
        int rc;
        int64_t out;
    } rows[] = {
        {100000000, 80, 0, 80000000}, /* 80 % of $100 */
        {2490000, 110, 0, 2739000},   /* 110 % of $2.49 */
        {1, 50, 0, 1},                /* 0.5 micro rounds up */
        {1, 49, 0, 0},
        {-1, 50, 0, -1},
        {3, 33, 0, 1}, /* 0.99 */
        {0, 1000, 0, 0},
        {INT64_MAX, 100, 0, INT64_MAX},
        {INT64_MAX, 101, -1, 42},
        {INT64_MAX, INT64_MAX, -1, 42},
        {INT64_MIN, 100, 0, INT64_MIN},
        {INT64_MIN, -100, -1, 42},
    };
    for (size_t i = 0; i < N(rows); i++) {
        int64_t out = 42;
        assert_int_equal(nd_money_percent(rows[i].amount, rows[i].pct, &out), rows[i].rc);
        if (out != rows[i].out)
            fail_msg("row %zu: %lld, want %lld", i, (long long)out, (long long)rows[i].out);
    }
}

/* nd_money_or: the amount, or the default for NULL and for whatever parse refuses */
static void test_money_or(void **state)
{
    (void)state;
    assert_int_equal(nd_money_or("40.00", -1), 40000000);
    assert_int_equal(nd_money_or("0.000001", -1), 1);
    assert_int_equal(nd_money_or("-1.50", 0), -1500000);
    assert_int_equal(nd_money_or(NULL, -1), -1);
    assert_int_equal(nd_money_or("", 7), 7);
    assert_int_equal(nd_money_or("1.2.3", 0), 0);
    assert_int_equal(nd_money_or("0.0000001", 5), 5);
    assert_int_equal(nd_money_or("99999999999999", -2), -2);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_money_parse_valid), cmocka_unit_test(test_money_parse_invalid),
        cmocka_unit_test(test_money_format),      cmocka_unit_test(test_money_arithmetic),
        cmocka_unit_test(test_money_mul_rate),    cmocka_unit_test(test_money_percent),
        cmocka_unit_test(test_money_or),
    };
    return cmocka_run_group_tests_name("util_money", tests, NULL, NULL);
}
