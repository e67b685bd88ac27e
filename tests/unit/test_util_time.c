/* Unit tests of pkg/util/time.h: RFC 3339 times, Go durations, kubectl ages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/status.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_time_format(void **state)
{
    (void)state;
    static const struct {
        int64_t secs;
        const char *out;
    } rows[] = {
        {1795971559, "2026-11-29T16:59:19Z"},     {0, "1970-01-01T00:00:00Z"},
        {951825600, "2000-02-29T12:00:00Z"},      {1709251199, "2024-02-29T23:59:59Z"},
        {253402300799LL, "9999-12-31T23:59:59Z"}, {-1, "1969-12-31T23:59:59Z"},
        {-62135596800LL, "0001-01-01T00:00:00Z"}, {ND_TIME_MIN, "0000-01-01T00:00:00Z"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_time_format(rows[i].secs, &b), 0);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
    /* out of range: nothing appended */
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_time_format(ND_TIME_MAX + 1, &b), -1);
    assert_int_equal(nd_time_format(ND_TIME_MIN - 1, &b), -1);
    assert_int_equal(nd_time_format(INT64_MAX, &b), -1);
    assert_int_equal(nd_time_format(INT64_MIN, &b), -1);
    assert_string_equal(b.data, "");
    /* appends to what is there */
    nd_buf_adds(&b, "at ");
    nd_time_format(0, &b);
    assert_string_equal(b.data, "at 1970-01-01T00:00:00Z");
    nd_buf_release(&b);
}

static void test_time_format_micro(void **state)
{
    (void)state;
    static const struct {
        int64_t micros;
        const char *out;
    } rows[] = {
        {1795971559123456LL, "2026-11-29T16:59:19.123456Z"},
        {1795971559000001LL, "2026-11-29T16:59:19.000001Z"},
        {0, "1970-01-01T00:00:00.000000Z"},
        {-1, "1969-12-31T23:59:59.999999Z"},
        {-1000000, "1969-12-31T23:59:59.000000Z"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_time_format_micro(rows[i].micros, &b), 0);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_time_format_micro(INT64_MAX, &b), -1);
    assert_int_equal(nd_time_format_micro(INT64_MIN, &b), -1);
    assert_string_equal(b.data, "");
    nd_buf_release(&b);
}

static void test_time_parse_valid(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t secs, micros;
    } rows[] = {
        {"2026-11-29T16:59:19Z", 1795971559, 1795971559000000LL},
        {"2026-11-29T18:59:19+02:00", 1795971559, 1795971559000000LL},
        {"2026-11-29T11:29:19-05:30", 1795971559, 1795971559000000LL},
        {"2026-11-29T16:59:19.123456Z", 1795971559, 1795971559123456LL},
        {"2026-11-29T16:59:19.1234567891Z", 1795971559, 1795971559123456LL},
        {"2026-11-29T16:59:19.9Z", 1795971559, 1795971559900000LL},
        {"2026-11-29T16:59:19.5+00:00", 1795971559, 1795971559500000LL},
        {"1970-01-01T00:00:00Z", 0, 0},
        {"1969-12-31T23:59:59.5Z", -1, -500000},
        {"2000-02-29T12:00:00Z", 951825600, 951825600000000LL},
        {"9999-12-31T23:59:59Z", 253402300799LL, 253402300799000000LL},
        {"0000-01-01T00:00:00Z", ND_TIME_MIN, ND_TIME_MIN * 1000000},
        {"2026-01-01T00:30:00+23:59", 1767141060, 1767141060000000LL},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t secs = 42, micros = 42;
        assert_int_equal(nd_time_parse(rows[i].in, &secs, &st), 0);
        assert_int_equal(secs, rows[i].secs);
        assert_int_equal(nd_time_parse_micro(rows[i].in, &micros, &st), 0);
        assert_int_equal(micros, rows[i].micros);
        assert_false(nd_status_failed(&st));
    }
}

static void test_time_parse_invalid(void **state)
{
    (void)state;
#define WANT " (want RFC 3339, e.g. \"2026-11-29T16:59:19Z\")"
    static const struct {
        const char *in, *msg;
    } rows[] = {
        {"", "invalid time \"\": empty value at character 1" WANT},
        {NULL, "invalid time \"\": empty value at character 1" WANT},
        {"garbage", "invalid time \"garbage\": expected a digit at character 1" WANT},
        {"2026", "invalid time \"2026\": expected '-' at character 5" WANT},
        {"2026-13-01T00:00:00Z",
         "invalid time \"2026-13-01T00:00:00Z\": month out of range at character 6" WANT},
        {"2026-00-01T00:00:00Z",
         "invalid time \"2026-00-01T00:00:00Z\": month out of range at character 6" WANT},
        {"2026-02-29T00:00:00Z",
         "invalid time \"2026-02-29T00:00:00Z\": day out of range at character 9" WANT},
        {"2100-02-29T00:00:00Z",
         "invalid time \"2100-02-29T00:00:00Z\": day out of range at character 9" WANT},
        {"2026-04-31T00:00:00Z",
         "invalid time \"2026-04-31T00:00:00Z\": day out of range at character 9" WANT},
        {"2026-11-29 16:59:19Z",
         "invalid time \"2026-11-29 16:59:19Z\": expected 'T' at character 11" WANT},
        {"2026-11-29t16:59:19Z",
         "invalid time \"2026-11-29t16:59:19Z\": expected 'T' at character 11" WANT},
        {"2026-11-29T24:00:00Z",
         "invalid time \"2026-11-29T24:00:00Z\": hour out of range at character 12" WANT},
        {"2026-11-29T16:60:00Z",
         "invalid time \"2026-11-29T16:60:00Z\": minute out of range at character 15" WANT},
        {"2026-11-29T16:59:60Z",
         "invalid time \"2026-11-29T16:59:60Z\": second out of range at character 18" WANT},
        {"2026-11-29T16:59:19",
         "invalid time \"2026-11-29T16:59:19\": expected 'Z' or a numeric offset such as +02:00 "
         "at character 20" WANT},
        {"2026-11-29T16:59:19z",
         "invalid time \"2026-11-29T16:59:19z\": expected 'Z' or a numeric offset such as +02:00 "
         "at character 20" WANT},
        {"2026-11-29T16:59:19.Z",
         "invalid time \"2026-11-29T16:59:19.Z\": expected a digit at character 21" WANT},
        {"2026-11-29T16:59:19+0200", "invalid time \"2026-11-29T16:59:19+0200\": expected ':' in "
                                     "the offset at character 23" WANT},
        {"2026-11-29T16:59:19+24:00", "invalid time \"2026-11-29T16:59:19+24:00\": offset hour out "
                                      "of range at character 21" WANT},
        {"2026-11-29T16:59:19+02:60", "invalid time \"2026-11-29T16:59:19+02:60\": offset minute "
                                      "out of range at character 24" WANT},
        {"2026-11-29T16:59:19Zjunk", "invalid time \"2026-11-29T16:59:19Zjunk\": unexpected text "
                                     "after the time at character 21" WANT},
        {"2026-11-29T16:59:19Z\n", "invalid time \"2026-11-29T16:59:19Z\\n\": unexpected text "
                                   "after the time at character 21" WANT},
        {"12026-11-29T16:59:19Z",
         "invalid time \"12026-11-29T16:59:19Z\": expected '-' at character 5" WANT},
        {"-2026-11-29T16:59:19Z",
         "invalid time \"-2026-11-29T16:59:19Z\": expected a digit at character 1" WANT},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t secs = 42;
        assert_int_equal(nd_time_parse(rows[i].in, &secs, &st), -1);
        assert_int_equal(secs, 42);
        assert_string_equal(st.reason, "Invalid");
        assert_int_equal(st.code, 422);
        assert_string_equal(st.message, rows[i].msg);
        nd_status_release(&st);
        int64_t micros = 42;
        assert_int_equal(nd_time_parse_micro(rows[i].in, &micros, &st), -1);
        assert_int_equal(micros, 42);
        assert_string_equal(st.message, rows[i].msg);
        nd_status_release(&st);
    }
}

static void test_time_parse_huge_input(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *s = nd_xmalloc(n + 1);
    memset(s, '9', n);
    s[n] = '\0';
    struct nd_status st = ND_STATUS_INIT;
    int64_t secs;
    assert_int_equal(nd_time_parse(s, &secs, &st), -1);
    /* the echo is cut: the message stays short */
    assert_true(strlen(st.message) < 400);
    assert_non_null(strstr(st.message, "\"...: expected '-' at character 5"));
    nd_status_release(&st);
    free(s);
}

/* Every day from 0000-01-01 to 9999-12-31, counted by hand, against the arithmetic. */
static void test_civil_every_day(void **state)
{
    (void)state;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t days = nd_days_from_civil(0, 1, 1);
    assert_int_equal(days, -719528);
    for (int64_t y = 0; y <= 9999; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int len = mdays[m - 1] + (m == 2 && leap);
            for (int d = 1; d <= len; d++, days++) {
                if (nd_days_from_civil(y, m, d) != days)
                    fail_msg("days_from_civil(%lld-%d-%d)", (long long)y, m, d);
                int64_t yy;
                int mm, dd;
                nd_civil_from_days(days, &yy, &mm, &dd);
                if (yy != y || mm != m || dd != d)
                    fail_msg("civil_from_days(%lld)", (long long)days);
            }
        }
    }
    assert_int_equal(days - 1, ND_TIME_MAX / 86400);
}

static void test_time_round_trip(void **state)
{
    (void)state;
    /* format then parse gives the same second, across the whole range */
    for (int64_t t = ND_TIME_MIN; t <= ND_TIME_MAX; t += 86400LL * 97 + 3607) {
        struct nd_buf b = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        int64_t back = 0;
        assert_int_equal(nd_time_format(t, &b), 0);
        assert_int_equal(nd_time_parse(b.data, &back, &st), 0);
        assert_int_equal(back, t);
        nd_buf_release(&b);
    }
    int64_t now = nd_time_now();
    assert_true(now > 1700000000);
    assert_true(nd_time_now_ms() / 1000 >= now);
    assert_true(nd_time_now_micros() / 1000000 >= now);
}

static void test_duration_parse_valid(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t ns, ms;
    } rows[] = {
        {"0", 0, 0},
        {"-0", 0, 0},
        {"+0", 0, 0},
        {"0s", 0, 0},
        {"90s", 90000000000LL, 90000},
        {"1h30m", 5400000000000LL, 5400000},
        {"1.5h", 5400000000000LL, 5400000},
        /* 130 fraction digits: past the 38th they are ignored (10^128 and up made the
         * 128-bit divisor 0: a division by zero found by fuzz_scalars) */
        {"1." "0000000000000000000000000000000000000000000000000000000000000000" "0000000000000000000000000000000000000000000000000000000000000000" "01h", 3600000000000LL, 3600000},
        {"0.5" "0000000000000000000000000000000000000000000000000000000000000000" "0000000000000000000000000000000000000000000000000000000000000000" "9h", 1800000000000LL, 1800000},
        {"300ms", 300000000, 300},
        {"2h45m30.5s", 9930500000000LL, 9930500},
        {"-1m", -60000000000LL, -60000},
        {"+5m", 300000000000LL, 300000},
        {"30m", 1800000000000LL, 1800000},
        {"168h", 604800000000000LL, 604800000},
        {"1ns", 1, 0},
        {"1us", 1000, 0},
        {"1\xc2\xb5s", 1000, 0}, /* µ micro sign */
        {"1\xce\xbcs", 1000, 0}, /* μ Greek mu */
        {"1500us", 1500000, 1},
        {"1999999ns", 1999999, 1},
        {"-1999999ns", -1999999, -1},
        {"999us", 999000, 0},
        {"-999us", -999000, 0},
        {"1.s", 1000000000, 1000},
        {".5s", 500000000, 500},
        {"1h1h", 7200000000000LL, 7200000},
        {"1s1m1h", 3661000000000LL, 3661000},
        {"0.000000001s", 1, 0},
        {"0.0000000009s", 0, 0},
        {"1.000000000000000000000000001s", 1000000000, 1000},
        {"2562047h", 9223369200000000000LL, 9223369200000LL},
        {"9223372036854775807ns", INT64_MAX, INT64_MAX / 1000000},
        {"-9223372036854775808ns", INT64_MIN, INT64_MIN / 1000000},
        {"2562047h47m16.854775807s", INT64_MAX, INT64_MAX / 1000000},
        {"0.1h", 360000000000LL, 360000},
        {"000001m", 60000000000LL, 60000},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t ns = 42, ms = 42;
        if (nd_duration_parse_ns(rows[i].in, &ns, &st) != 0)
            fail_msg("%s: %s", rows[i].in, st.message);
        assert_int_equal(ns, rows[i].ns);
        assert_int_equal(nd_duration_parse(rows[i].in, &ms, &st), 0);
        assert_int_equal(ms, rows[i].ms);
        assert_false(nd_status_failed(&st));
    }
}

static void test_duration_parse_invalid(void **state)
{
    (void)state;
    /* The messages are Go's, as kubectl prints them for a bad --timeout. */
    static const struct {
        const char *in, *msg;
    } rows[] = {
        {"1d", "time: unknown unit \"d\" in duration \"1d\""},
        {"", "time: invalid duration \"\""},
        {NULL, "time: invalid duration \"\""},
        {"1", "time: missing unit in duration \"1\""},
        {"h", "time: invalid duration \"h\""},
        {"-", "time: invalid duration \"-\""},
        {"+-1s", "time: invalid duration \"+-1s\""},
        {".s", "time: invalid duration \".s\""},
        {"-.s", "time: invalid duration \"-.s\""},
        {"00", "time: missing unit in duration \"00\""},
        {"1h1", "time: missing unit in duration \"1h1\""},
        {"1 s", "time: unknown unit \" s\" in duration \"1 s\""},
        {" 1s", "time: invalid duration \" 1s\""},
        {"1x1", "time: unknown unit \"x\" in duration \"1x1\""},
        {"1e3s", "time: unknown unit \"e\" in duration \"1e3s\""},
        {"1h-1m", "time: unknown unit \"h-\" in duration \"1h-1m\""},
        {"1S", "time: unknown unit \"S\" in duration \"1S\""},
        {"1xé", "time: unknown unit \"x\\xc3\\xa9\" in duration \"1x\\xc3\\xa9\""},
        {"1\"s", "time: unknown unit \"\\\"s\" in duration \"1\\\"s\""},
        {"1\\s", "time: unknown unit \"\\\\s\" in duration \"1\\\\s\""},
        {"1\ts", "time: unknown unit \"\\x09s\" in duration \"1\\x09s\""},
        {"2562048h", "time: invalid duration \"2562048h\""},
        {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
        {"-9223372036854775809ns", "time: invalid duration \"-9223372036854775809ns\""},
        {"99999999999999999999s", "time: invalid duration \"99999999999999999999s\""},
        {"2562047h47m16.854775808s", "time: invalid duration \"2562047h47m16.854775808s\""},
        {"5124095576030431s5124095576030431s",
         "time: invalid duration \"5124095576030431s5124095576030431s\""},
        {"1..5s", "time: missing unit in duration \"1..5s\""},
        {"1.5.s", "time: missing unit in duration \"1.5.s\""},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        int64_t ms = 42;
        assert_int_equal(nd_duration_parse(rows[i].in, &ms, &st), -1);
        assert_int_equal(ms, 42);
        assert_string_equal(st.reason, "Invalid");
        assert_string_equal(st.message, rows[i].msg);
        nd_status_release(&st);
    }
}

static void test_duration_parse_huge_input(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *s = nd_xmalloc(n + 2);
    memset(s, '1', n);
    s[n] = 's';
    s[n + 1] = '\0';
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms;
    assert_int_equal(nd_duration_parse(s, &ms, &st), -1);
    assert_true(strlen(st.message) < 300);
    assert_memory_equal(st.message, "time: invalid duration \"1111", 28);
    assert_non_null(strstr(st.message, "111\"..."));
    nd_status_release(&st);
    free(s);
}

static void test_duration_format(void **state)
{
    (void)state;
    static const struct {
        int64_t ms;
        const char *go, *shortest;
    } rows[] = {
        {0, "0s", "0s"},
        {1, "1ms", "1ms"},
        {500, "500ms", "500ms"},
        {999, "999ms", "999ms"},
        {1000, "1s", "1s"},
        {1500, "1.5s", "1.5s"},
        {1050, "1.05s", "1.05s"},
        {1001, "1.001s", "1.001s"},
        {59999, "59.999s", "59.999s"},
        {60000, "1m0s", "1m"},
        {90000, "1m30s", "1m30s"},
        {90500, "1m30.5s", "1m30.5s"},
        {60500, "1m0.5s", "1m0.5s"},
        {1800000, "30m0s", "30m"},
        {3600000, "1h0m0s", "1h"},
        {3600500, "1h0m0.5s", "1h0.5s"},
        {3601000, "1h0m1s", "1h1s"},
        {5400000, "1h30m0s", "1h30m"},
        {9930500, "2h45m30.5s", "2h45m30.5s"},
        {604800000, "168h0m0s", "168h"},
        {-1, "-1ms", "-1ms"},
        {-60000, "-1m0s", "-1m"},
        {-5400000, "-1h30m0s", "-1h30m"},
        {INT64_MAX, "2562047788015h12m55.807s", "2562047788015h12m55.807s"},
        {INT64_MIN, "-2562047788015h12m55.808s", "-2562047788015h12m55.808s"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_duration_format(rows[i].ms, &b), 0);
        assert_string_equal(b.data, rows[i].go);
        nd_buf_reset(&b);
        assert_int_equal(nd_duration_format_short(rows[i].ms, &b), 0);
        assert_string_equal(b.data, rows[i].shortest);
        /* both forms parse back to the same value (where Go's nanoseconds reach) */
        if (rows[i].ms > -9000000000000LL && rows[i].ms < 9000000000000LL) {
            struct nd_status st = ND_STATUS_INIT;
            int64_t back = 0;
            assert_int_equal(nd_duration_parse(rows[i].shortest, &back, &st), 0);
            assert_int_equal(back, rows[i].ms);
            assert_int_equal(nd_duration_parse(rows[i].go, &back, &st), 0);
            assert_int_equal(back, rows[i].ms);
        }
        nd_buf_release(&b);
    }
    /* a capped buffer reports the overflow */
    struct nd_buf b;
    nd_buf_init(&b, 4);
    assert_int_equal(nd_duration_format(5400000, &b), -1);
    assert_true(b.overflow);
    nd_buf_release(&b);
}

static void test_human_age(void **state)
{
    (void)state;
    /* k8s.io/apimachinery/pkg/util/duration.HumanDuration, every boundary */
    static const struct {
        int64_t secs;
        const char *out;
    } rows[] = {
        {INT64_MIN, "<invalid>"},
        {-2, "<invalid>"},
        {-1, "0s"},
        {0, "0s"},
        {1, "1s"},
        {59, "59s"},
        {60, "60s"},
        {119, "119s"},
        {120, "2m"},
        {121, "2m1s"},
        {330, "5m30s"},
        {540, "9m"},
        {599, "9m59s"},
        {600, "10m"},
        {659, "10m"},
        {3599, "59m"},
        {3600, "60m"},
        {10799, "179m"},
        {10800, "3h"},
        {10859, "3h"},
        {10860, "3h1m"},
        {28799, "7h59m"},
        {28800, "8h"},
        {86400, "24h"},
        {172799, "47h"},
        {172800, "2d"},
        {183600, "2d3h"},
        {691199, "7d23h"},
        {691200, "8d"},
        {3888000, "45d"},
        {63071999, "729d"},
        {63072000, "2y"},
        {94780800, "3y2d"},
        {252287999, "7y364d"},
        {252288000, "8y"},
        {3153600000LL, "100y"},
        {INT64_MAX, "292471208677y"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_human_age(rows[i].secs, &b), 0);
        if (strcmp(b.data, rows[i].out) != 0)
            fail_msg("human_age(%lld) = %s, want %s", (long long)rows[i].secs, b.data, rows[i].out);
        nd_buf_release(&b);
    }
}

/* nd_timespec_add_ms: carries into and borrows from the seconds, either sign. */
/* HTTP dates (the Date header the CLI measures the server's clock by): known values both
 * ways, every day of four years round trip, and what is not IMF-fixdate is refused. */
static void test_http_date(void **state)
{
    (void)state;
    static const struct {
        int64_t secs;
        const char *text;
    } rows[] = {
        {784111777, "Sun, 06 Nov 1994 08:49:37 GMT"}, /* RFC 9110's own example */
        {0, "Thu, 01 Jan 1970 00:00:00 GMT"},
        {951825600, "Tue, 29 Feb 2000 12:00:00 GMT"},
        {1796477386, "Sat, 05 Dec 2026 13:29:46 GMT"},
        {253402300799LL, "Fri, 31 Dec 9999 23:59:59 GMT"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_http_date_format(rows[i].secs, &b), 0);
        assert_string_equal(b.data, rows[i].text);
        nd_buf_release(&b);
        int64_t back = -1;
        assert_int_equal(nd_http_date_parse(rows[i].text, &back), 0);
        assert_int_equal(back, rows[i].secs);
    }
    for (int64_t t = 1700000000; t < 1700000000 + 4 * 366 * 86400LL; t += 86400 + 7) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_http_date_format(t, &b), 0);
        int64_t back = -1;
        assert_int_equal(nd_http_date_parse(b.data, &back), 0);
        assert_int_equal(back, t);
        nd_buf_release(&b);
    }
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_http_date_format(-1, &b), -1);
    assert_int_equal(b.len, 0);
    static const char *const bad[] = {
        "",
        "Sunday, 06-Nov-94 08:49:37 GMT", /* RFC 850 */
        "Sun Nov  6 08:49:37 1994",       /* asctime */
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nox 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:3x GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ",
    };
    for (size_t i = 0; i < N(bad); i++) {
        int64_t v = 42;
        assert_int_equal(nd_http_date_parse(bad[i], &v), -1);
        assert_int_equal(v, 42);
    }
    int64_t v;
    assert_int_equal(nd_http_date_parse(NULL, &v), -1);
}

static void test_timespec_add_ms(void **state)
{
    (void)state;
    static const struct {
        long long sec;
        long nsec;
        int64_t ms;
        long long want_sec;
        long want_nsec;
    } rows[] = {
        {10, 0, 0, 10, 0},
        {10, 0, 100, 10, 100000000},
        {10, 950000000, 100, 11, 50000000},   /* carry */
        {10, 900000000, 100, 11, 0},          /* exactly a second */
        {10, 999999999, 1, 11, 999999},       /* carry from the last nanosecond */
        {10, 500000000, 15000, 25, 500000000}, /* whole seconds */
        {10, 500000000, 2750, 13, 250000000},
        {10, 50000000, -100, 9, 950000000},   /* borrow */
        {10, 0, -1, 9, 999000000},
        {10, 500000000, -2500, 8, 0},
        {0, 0, 86400000LL * 365 * 100, 3153600000LL, 0}, /* a century */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct timespec ts = {(time_t)rows[i].sec, rows[i].nsec};
        nd_timespec_add_ms(&ts, rows[i].ms);
        if ((long long)ts.tv_sec != rows[i].want_sec || ts.tv_nsec != rows[i].want_nsec)
            fail_msg("row %zu: %lld.%09ld, want %lld.%09ld", i, (long long)ts.tv_sec,
                     ts.tv_nsec, rows[i].want_sec, rows[i].want_nsec);
    }
}

/* nd_time_deadline: the wall clock plus ms; nd_time_mono_ms never goes back. */
static void test_deadline(void **state)
{
    (void)state;
    struct timespec before, at, after;
    clock_gettime(CLOCK_REALTIME, &before);
    nd_time_deadline(&at, 1500);
    clock_gettime(CLOCK_REALTIME, &after);
    nd_timespec_add_ms(&before, 1500);
    nd_timespec_add_ms(&after, 1500);
    int64_t b = (int64_t)before.tv_sec * 1000000000 + before.tv_nsec;
    int64_t a = (int64_t)at.tv_sec * 1000000000 + at.tv_nsec;
    int64_t e = (int64_t)after.tv_sec * 1000000000 + after.tv_nsec;
    assert_true(b <= a && a <= e);
    assert_true(at.tv_nsec >= 0 && at.tv_nsec < 1000000000L);
    int64_t m0 = nd_time_mono_ms(), m1 = nd_time_mono_ms();
    assert_true(m0 > 0 && m1 >= m0);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_time_format_micro),
        cmocka_unit_test(test_time_parse_valid),
        cmocka_unit_test(test_time_parse_invalid),
        cmocka_unit_test(test_time_parse_huge_input),
        cmocka_unit_test(test_civil_every_day),
        cmocka_unit_test(test_time_round_trip),
        cmocka_unit_test(test_duration_parse_valid),
        cmocka_unit_test(test_duration_parse_invalid),
        cmocka_unit_test(test_duration_parse_huge_input),
        cmocka_unit_test(test_duration_format),
        cmocka_unit_test(test_human_age),
        cmocka_unit_test(test_http_date),
        cmocka_unit_test(test_timespec_add_ms),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests_name("util_time", tests, NULL, NULL);
}
