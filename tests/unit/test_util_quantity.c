/* Unit tests of pkg/util/quantity.h. The canonical forms were checked against
 * kubectl 1.32 (`kubectl set resources --local --limits=cpu=<q> -o jsonpath=...`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/quantity.h"
#include "util/status.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FORMAT                                                                                     \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define SUFFIX  "unable to parse quantity's suffix"
#define NUMERIC "unable to parse numeric part of quantity"
#define RANGE   "out of range (the largest quantity is 9223372036854775807)"

static void test_quantity_parse_valid(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t units;
        int32_t nanos;
        enum nd_quantity_format fmt;
        const char *canonical;
    } rows[] = {
        {"100Gi", 107374182400LL, 0, ND_QUANTITY_BINARY_SI, "100Gi"},
        {"1.5Gi", 1610612736, 0, ND_QUANTITY_BINARY_SI, "1536Mi"},
        {"0.5Gi", 536870912, 0, ND_QUANTITY_BINARY_SI, "512Mi"},
        {"1536Mi", 1610612736, 0, ND_QUANTITY_BINARY_SI, "1536Mi"},
        {"1Ki", 1024, 0, ND_QUANTITY_BINARY_SI, "1Ki"},
        {"1Ti", 1099511627776LL, 0, ND_QUANTITY_BINARY_SI, "1Ti"},
        {"1Pi", 1125899906842624LL, 0, ND_QUANTITY_BINARY_SI, "1Pi"},
        {"1Ei", 1152921504606846976LL, 0, ND_QUANTITY_BINARY_SI, "1Ei"},
        {"7Ei", 8070450532247928832LL, 0, ND_QUANTITY_BINARY_SI, "7Ei"},
        {"0.9765625Ki", 1000, 0, ND_QUANTITY_BINARY_SI, "1k"},
        {"1.953125Ki", 2000, 0, ND_QUANTITY_BINARY_SI, "2000"},
        {"0.5Ki", 512, 0, ND_QUANTITY_BINARY_SI, "512"},
        {"1.5Ki", 1536, 0, ND_QUANTITY_BINARY_SI, "1536"},
        {"0.1Ki", 102, 400000000, ND_QUANTITY_BINARY_SI, "102400m"},
        {"0.001Ki", 1, 24000000, ND_QUANTITY_BINARY_SI, "1024m"},
        {"1.0001Ki", 1024, 102400000, ND_QUANTITY_BINARY_SI, "1024102400u"},
        {"-1.5Gi", -1610612736, 0, ND_QUANTITY_BINARY_SI, "-1536Mi"},
        {"-0.5Ki", -512, 0, ND_QUANTITY_BINARY_SI, "-512"},
        {"0Gi", 0, 0, ND_QUANTITY_BINARY_SI, "0"},
        {"1000", 1000, 0, ND_QUANTITY_DECIMAL_SI, "1k"},
        {"1024", 1024, 0, ND_QUANTITY_DECIMAL_SI, "1024"},
        {"1023", 1023, 0, ND_QUANTITY_DECIMAL_SI, "1023"},
        {"2000", 2000, 0, ND_QUANTITY_DECIMAL_SI, "2k"},
        {"1048576000", 1048576000, 0, ND_QUANTITY_DECIMAL_SI, "1048576k"},
        {"-2048", -2048, 0, ND_QUANTITY_DECIMAL_SI, "-2048"},
        {"1.5", 1, 500000000, ND_QUANTITY_DECIMAL_SI, "1500m"},
        {"0.5", 0, 500000000, ND_QUANTITY_DECIMAL_SI, "500m"},
        {".5", 0, 500000000, ND_QUANTITY_DECIMAL_SI, "500m"},
        {"1.", 1, 0, ND_QUANTITY_DECIMAL_SI, "1"},
        {"+1", 1, 0, ND_QUANTITY_DECIMAL_SI, "1"},
        {"0.1", 0, 100000000, ND_QUANTITY_DECIMAL_SI, "100m"},
        {"-0.1", 0, -100000000, ND_QUANTITY_DECIMAL_SI, "-100m"},
        {"500m", 0, 500000000, ND_QUANTITY_DECIMAL_SI, "500m"},
        {"1m", 0, 1000000, ND_QUANTITY_DECIMAL_SI, "1m"},
        {"1u", 0, 1000, ND_QUANTITY_DECIMAL_SI, "1u"},
        {"1.5u", 0, 1500, ND_QUANTITY_DECIMAL_SI, "1500n"},
        {"1n", 0, 1, ND_QUANTITY_DECIMAL_SI, "1n"},
        {"0.1n", 0, 1, ND_QUANTITY_DECIMAL_SI, "1n"},
        {"-0.1n", 0, -1, ND_QUANTITY_DECIMAL_SI, "-1n"},
        {"123456789n", 0, 123456789, ND_QUANTITY_DECIMAL_SI, "123456789n"},
        {"1.23456789123", 1, 234567892, ND_QUANTITY_DECIMAL_SI, "1234567892n"},
        {"1k", 1000, 0, ND_QUANTITY_DECIMAL_SI, "1k"},
        {"1.5k", 1500, 0, ND_QUANTITY_DECIMAL_SI, "1500"},
        {"2M", 2000000, 0, ND_QUANTITY_DECIMAL_SI, "2M"},
        {"3G", 3000000000LL, 0, ND_QUANTITY_DECIMAL_SI, "3G"},
        {"4T", 4000000000000LL, 0, ND_QUANTITY_DECIMAL_SI, "4T"},
        {"5P", 5000000000000000LL, 0, ND_QUANTITY_DECIMAL_SI, "5P"},
        {"1E", 1000000000000000000LL, 0, ND_QUANTITY_DECIMAL_SI, "1E"},
        {"9223372036854775807", INT64_MAX, 0, ND_QUANTITY_DECIMAL_SI, "9223372036854775807"},
        {"-9223372036854775807", -INT64_MAX, 0, ND_QUANTITY_DECIMAL_SI, "-9223372036854775807"},
        {"9223372036854775807.999999999", INT64_MAX, 999999999, ND_QUANTITY_DECIMAL_SI,
         "9223372036854775807999999999n"},
        {"0", 0, 0, ND_QUANTITY_DECIMAL_SI, "0"},
        {"-0", 0, 0, ND_QUANTITY_DECIMAL_SI, "0"},
        {"0.0", 0, 0, ND_QUANTITY_DECIMAL_SI, "0"},
        {"000000000000000000000000000000000000000000000001", 1, 0, ND_QUANTITY_DECIMAL_SI, "1"},
        {"1e3", 1000, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1e3"},
        {"1E3", 1000, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1e3"},
        {"1e+3", 1000, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1e3"},
        {"1e0", 1, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1"},
        {"1e1", 10, 0, ND_QUANTITY_DECIMAL_EXPONENT, "10"},
        {"1e2", 100, 0, ND_QUANTITY_DECIMAL_EXPONENT, "100"},
        {"15e5", 1500000, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1500e3"},
        {"12e-4", 0, 1200000, ND_QUANTITY_DECIMAL_EXPONENT, "1200e-6"},
        {"100e-3", 0, 100000000, ND_QUANTITY_DECIMAL_EXPONENT, "100e-3"},
        {"1e-20", 0, 1, ND_QUANTITY_DECIMAL_EXPONENT, "1e-9"},
        {"1e-2147483648", 0, 1, ND_QUANTITY_DECIMAL_EXPONENT, "1e-9"},
        {"1e18", 1000000000000000000LL, 0, ND_QUANTITY_DECIMAL_EXPONENT, "1e18"},
        {"0e400", 0, 0, ND_QUANTITY_DECIMAL_EXPONENT, "0"},
        {"0.0000000000000000000000000000000000000000000000000001e43", 0, 1,
         ND_QUANTITY_DECIMAL_EXPONENT, "1e-9"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_quantity q = {42, 42, ND_QUANTITY_DECIMAL_SI};
        if (nd_quantity_parse(rows[i].in, &q, &st) != 0)
            fail_msg("%s: %s", rows[i].in, st.message);
        if (q.units != rows[i].units || q.nanos != rows[i].nanos || q.format != rows[i].fmt)
            fail_msg("%s: {%lld, %d, %d}", rows[i].in, (long long)q.units, (int)q.nanos,
                     (int)q.format);
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_quantity_format(&q, &b), 0);
        if (strcmp(b.data, rows[i].canonical) != 0)
            fail_msg("%s: canonical %s, want %s", rows[i].in, b.data, rows[i].canonical);
        /* the canonical form parses back to the same value */
        struct nd_quantity back;
        assert_int_equal(nd_quantity_parse(b.data, &back, &st), 0);
        assert_int_equal(nd_quantity_cmp(&q, &back), 0);
        nd_buf_release(&b);
    }
}

static void test_quantity_parse_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *in, *why;
    } rows[] = {
        {"", FORMAT},
        {NULL, FORMAT},
        {"1.5.1", FORMAT},
        {"1 Gi", FORMAT},
        {" 1", FORMAT},
        {"1 ", FORMAT},
        {"1Gb", FORMAT},
        {"1e3k", FORMAT},
        {"12e-4k", FORMAT},
        {"1.1.M", FORMAT},
        {"1+1.0M", FORMAT},
        {"aoeu", FORMAT},
        {"1/2", FORMAT},
        {"1\n", FORMAT},
        {"--1", SUFFIX},
        {"1K", SUFFIX},
        {"1e", SUFFIX},
        {"1E+", SUFFIX},
        {"0.1mi", SUFFIX},
        {"0.1am", FORMAT},
        {"1i", SUFFIX},
        {"-3.01i", SUFFIX},
        {"-3.01e-", SUFFIX},
        {"1Ki5", SUFFIX},
        {"1e2147483648", SUFFIX},
        {"1e-2147483649", SUFFIX},
        {"1e99999999999999999999", SUFFIX},
        {"Gi", NUMERIC},
        {"-", NUMERIC},
        {"+", NUMERIC},
        {".", NUMERIC},
        {"-.Mi", NUMERIC},
        {"8Ei", RANGE},
        {"9223372036854775808", RANGE},
        {"-9223372036854775808", RANGE},
        {"9223372036854775807.9999999991", RANGE},
        {"99999999999999999999", RANGE},
        {"1e19", RANGE},
        {"1e400", RANGE},
        {"1e2147483647", RANGE},
        {"10E", RANGE},
        {"8192Pi", RANGE},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_quantity q = {42, 42, ND_QUANTITY_DECIMAL_SI};
        if (nd_quantity_parse(rows[i].in, &q, &st) != -1)
            fail_msg("%s accepted", rows[i].in);
        assert_int_equal(q.units, 42);
        assert_string_equal(st.reason, "Invalid");
        struct nd_buf want = ND_BUF_INIT;
        nd_buf_addf(&want, "invalid quantity \"%s\": %s", rows[i].in ? rows[i].in : "",
                    rows[i].why);
        if (strchr(rows[i].in ? rows[i].in : "", '\n')) {
            nd_buf_reset(&want);
            nd_buf_addf(&want, "invalid quantity \"1\\n\": %s", rows[i].why);
        }
        assert_string_equal(st.message, want.data);
        nd_buf_release(&want);
        nd_status_release(&st);
    }
    /* too long: refused before any arithmetic */
    char *s = nd_xmalloc(300);
    memset(s, '1', 299);
    s[299] = '\0';
    struct nd_status st = ND_STATUS_INIT;
    struct nd_quantity q;
    assert_int_equal(nd_quantity_parse(s, &q, &st), -1);
    assert_non_null(strstr(st.message, "111\"...: longer than 256 characters"));
    nd_status_release(&st);
    /* exactly 256 bytes of zeros and a 1 after the point: accepted, rounded up to 1n */
    memset(s, '0', 256);
    s[1] = '.';
    s[255] = '1';
    s[256] = '\0';
    assert_int_equal(nd_quantity_parse(s, &q, &st), 0);
    assert_int_equal(q.units, 0);
    assert_int_equal(q.nanos, 1);
    free(s);
}

static void test_quantity_values(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int rc_bytes;
        int64_t bytes;
        int rc_milli;
        int64_t milli;
    } rows[] = {
        {"1.5Gi", 0, 1610612736, 0, 1610612736000LL},
        {"500m", 0, 1, 0, 500},
        {"2", 0, 2, 0, 2000},
        {"0.1", 0, 1, 0, 100},
        {"-0.1", 0, -1, 0, -100},
        {"0.1m", 0, 1, 0, 1},
        {"1n", 0, 1, 0, 1},
        {"-1n", 0, -1, 0, -1},
        {"0", 0, 0, 0, 0},
        {"1.0001Ki", 0, 1025, 0, 1024103},
        {"9223372036854775807", 0, INT64_MAX, -1, 42},
        {"9223372036854775807.5", -1, 42, -1, 42},
        {"-9223372036854775807", 0, -INT64_MAX, -1, 42},
        {"9223372036854775m", 0, 9223372036855LL, 0, 9223372036854775LL},
        {"9223372036854775807m", 0, 9223372036854776LL, 0, INT64_MAX},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_quantity q;
        assert_int_equal(nd_quantity_parse(rows[i].in, &q, &st), 0);
        int64_t v = 42;
        assert_int_equal(nd_quantity_bytes(&q, &v), rows[i].rc_bytes);
        if (v != rows[i].bytes)
            fail_msg("%s: bytes %lld", rows[i].in, (long long)v);
        v = 42;
        assert_int_equal(nd_quantity_milli(&q, &v), rows[i].rc_milli);
        if (v != rows[i].milli)
            fail_msg("%s: milli %lld", rows[i].in, (long long)v);
    }
}

static void test_quantity_cmp(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int cmp;
    } rows[] = {
        {"1Gi", "1024Mi", 0}, {"1G", "1Gi", -1},
        {"1.5", "1500m", 0},  {"-1", "1", -1},
        {"-0.5", "-0.4", -1}, {"1n", "0", 1},
        {"1e3", "1k", 0},     {"7Ei", "7Ei", 0},
        {"-1.5", "-1", -1},   {"9223372036854775807", "9223372036854775807.000000001", -1},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_quantity a, b;
        assert_int_equal(nd_quantity_parse(rows[i].a, &a, &st), 0);
        assert_int_equal(nd_quantity_parse(rows[i].b, &b, &st), 0);
        assert_int_equal(nd_quantity_cmp(&a, &b), rows[i].cmp);
        assert_int_equal(nd_quantity_cmp(&b, &a), -rows[i].cmp);
    }
}

static void test_quantity_format_bytes(void **state)
{
    (void)state;
    static const struct {
        int64_t bytes;
        const char *out;
    } rows[] = {
        {107374182400LL, "100Gi"},
        {1610612736, "1536Mi"},
        {1073741824, "1Gi"},
        {1024, "1Ki"},
        {1025, "1025"},
        {2000, "2000"},
        {1000000, "1000000"},
        {1048576, "1Mi"},
        {1000, "1k"},
        {1023, "1023"},
        {512, "512"},
        {100, "100"},
        {1, "1"},
        {0, "0"},
        {-1024, "-1Ki"},
        {-1000, "-1k"},
        {-2048, "-2Ki"},
        {1152921504606846976LL, "1Ei"},
        {INT64_MAX, "9223372036854775807"},
        {INT64_MIN, "-8Ei"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_quantity_format_bytes(rows[i].bytes, &b), 0);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantity_parse_valid),  cmocka_unit_test(test_quantity_parse_invalid),
        cmocka_unit_test(test_quantity_values),       cmocka_unit_test(test_quantity_cmp),
        cmocka_unit_test(test_quantity_format_bytes),
    };
    return cmocka_run_group_tests_name("util_quantity", tests, NULL, NULL);
}
