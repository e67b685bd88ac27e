/* Unit tests of pkg/util/id.h: ULIDs, uids, idempotency keys, name suffixes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/id.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_ulid_from(void **state)
{
    (void)state;
    static const unsigned char zero[10] = {0};
    static const unsigned char ones[10] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0xff};
    static const unsigned char seq[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static const unsigned char last[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const struct {
        int64_t ms;
        const unsigned char *rand;
        const char *out;
    } rows[] = {
        {0, zero, "00000000000000000000000000"},
        {1, last, "00000000010000000000000001"},
        {1469918176385LL, zero, "01aryz6s410000000000000000"}, /* the ULID spec's example */
        {1795971559123LL, seq, "01m8m3ybpk041061050r3gg28a"},
        {1795971559123LL, ones, "01m8m3ybpkzzzzzzzzzzzzzzzz"},
        {ND_ULID_MAX_MS, ones, "7zzzzzzzzzzzzzzzzzzzzzzzzz"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        char out[ND_ULID_LEN + 1];
        assert_int_equal(nd_ulid_from(rows[i].ms, rows[i].rand, out), 0);
        assert_string_equal(out, rows[i].out);
        assert_true(nd_ulid_valid(out));
        int64_t ms = -5;
        assert_int_equal(nd_ulid_time(out, &ms), 0);
        assert_int_equal(ms, rows[i].ms);
    }
    char out[ND_ULID_LEN + 1] = "x";
    assert_int_equal(nd_ulid_from(-1, zero, out), -1);
    assert_string_equal(out, "");
    assert_int_equal(nd_ulid_from(ND_ULID_MAX_MS + 1, zero, out), -1);
    assert_int_equal(nd_ulid_from(INT64_MIN, zero, out), -1);
}

static void test_ulid_valid(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
    } rows[] = {
        {"01aryz6s410000000000000000", true},
        {"7zzzzzzzzzzzzzzzzzzzzzzzzz", true},
        {"8zzzzzzzzzzzzzzzzzzzzzzzzz", false},  /* more than 128 bits */
        {"01ARYZ6S410000000000000000", false},  /* upper case */
        {"01aryz6s41000000000000000", false},   /* 25 */
        {"01aryz6s4100000000000000000", false}, /* 27 */
        {"01aryz6s41000000000000000i", false},  /* i, l, o, u are not Crockford digits */
        {"01aryz6s41000000000000000l", false},
        {"01aryz6s41000000000000000o", false},
        {"01aryz6s41000000000000000u", false},
        {"01aryz6s41000000000000000-", false},
        {"", false},
        {NULL, false},
    };
    for (size_t i = 0; i < N(rows); i++) {
        assert_int_equal(nd_ulid_valid(rows[i].s), rows[i].ok);
        int64_t ms = 42;
        assert_int_equal(nd_ulid_time(rows[i].s, &ms), rows[i].ok ? 0 : -1);
        if (!rows[i].ok)
            assert_int_equal(ms, 42);
    }
}

static void test_ulid_new_monotonic(void **state)
{
    (void)state;
    int64_t before = nd_time_now_ms();
    char prev[ND_ULID_LEN + 1] = "";
    for (int i = 0; i < 20000; i++) {
        char cur[ND_ULID_LEN + 1];
        nd_ulid_new(cur);
        assert_true(nd_ulid_valid(cur));
        if (i && strcmp(prev, cur) >= 0)
            fail_msg("not increasing: %s then %s", prev, cur);
        memcpy(prev, cur, sizeof cur);
    }
    int64_t ms;
    assert_int_equal(nd_ulid_time(prev, &ms), 0);
    int64_t after = nd_time_now_ms();
    assert_true(ms >= before);
    assert_true(ms <= after + 1);
}

static void test_uid(void **state)
{
    (void)state;
    char *uid = nd_uid_new("job");
    assert_int_equal(strlen(uid), 4 + ND_ULID_LEN);
    assert_memory_equal(uid, "job_", 4);
    assert_true(nd_uid_valid(uid, "job"));
    assert_true(nd_uid_valid(uid, NULL));
    assert_false(nd_uid_valid(uid, "jo"));
    assert_false(nd_uid_valid(uid, "sbx"));
    assert_false(nd_uid_valid(uid, ""));
    char *other = nd_uid_new("job");
    assert_string_not_equal(uid, other);
    free(other);
    free(uid);

    char *bare = nd_uid_new(NULL);
    assert_true(nd_ulid_valid(bare));
    assert_true(nd_uid_valid(bare, ""));
    free(bare);
    bare = nd_uid_new("");
    assert_true(nd_ulid_valid(bare));
    free(bare);

    static const struct {
        const char *uid, *prefix;
        bool ok;
    } rows[] = {
        {"job_01aryz6s410000000000000000", "job", true},
        {"pact_01aryz6s410000000000000000", NULL, true},
        {"job_01ARYZ6S410000000000000000", "job", false},
        {"job-01aryz6s410000000000000000", "job", false},
        {"job01aryz6s410000000000000000", "job", false},
        {"_01aryz6s410000000000000000", NULL, false},
        {"Job_01aryz6s410000000000000000", NULL, false},
        {"job_01aryz6s410000000000000000x", "job", false},
        {"job_", "job", false},
        {"", NULL, false},
        {NULL, "job", false},
        {NULL, NULL, false},
    };
    for (size_t i = 0; i < N(rows); i++)
        assert_int_equal(nd_uid_valid(rows[i].uid, rows[i].prefix), rows[i].ok);
}

static void test_idempotency_key(void **state)
{
    (void)state;
    char *a = nd_idempotency_key_new();
    char *b = nd_idempotency_key_new();
    assert_int_equal(strlen(a), 32);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
    assert_string_not_equal(a, b);
    free(a);
    free(b);
}

static void test_random_bytes(void **state)
{
    (void)state;
    unsigned char a[32], b[32];
    assert_int_equal(nd_random_bytes(a, sizeof a), 0); /* /dev/urandom is there */
    assert_int_equal(nd_random_bytes(b, sizeof b), 0);
    assert_memory_not_equal(a, b, sizeof a);
    assert_int_equal(nd_random_bytes(a, 0), 0);
    /* a large request is filled completely (no zero tail left behind) */
    size_t n = 1 << 16;
    unsigned char *big = nd_xcalloc(1, n);
    nd_random_bytes(big, n);
    size_t zeros = 0;
    for (size_t i = n - 1024; i < n; i++)
        zeros += big[i] == 0;
    assert_true(zeros < 32);
    free(big);
}

/* Without getrandom(2) and with no file descriptor left, /dev/urandom cannot be opened:
 * the fallback fills in. */
static void test_random_fallback(void **state)
{
    (void)state;
    nd_random_use_getrandom(false);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    int fd = dup(0);
    assert_true(fd >= 0);
    close(fd);
    struct rlimit low = {(rlim_t)fd, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);

    unsigned char a[64] = {0}, b[64] = {0};
    int rc_a = nd_random_bytes(a, sizeof a);
    int rc_b = nd_random_bytes(b, sizeof b);
    char u1[ND_ULID_LEN + 1], u2[ND_ULID_LEN + 1];
    nd_ulid_new(u1);
    nd_ulid_new(u2);
    char sfx[6];
    nd_random_suffix(sfx);

    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    nd_random_use_getrandom(true);
    assert_int_equal(rc_a, -1);
    assert_int_equal(rc_b, -1);
    assert_memory_not_equal(a, b, sizeof a);
    int distinct = 0;
    for (size_t i = 1; i < sizeof a; i++)
        distinct += a[i] != a[i - 1];
    assert_true(distinct > 48);
    assert_true(nd_ulid_valid(u1));
    assert_true(strcmp(u1, u2) < 0);
    assert_int_equal(strspn(sfx, "bcdfghjklmnpqrstvwxz2456789"), 5);
}

static void test_random_suffix(void **state)
{
    (void)state;
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    int seen[256] = {0};
    for (int i = 0; i < 5400; i++) {
        char s[6] = "xxxxx";
        nd_random_suffix(s);
        assert_int_equal(strlen(s), 5);
        assert_int_equal(strspn(s, alphabet), 5);
        for (int k = 0; k < 5; k++)
            seen[(unsigned char)s[k]]++;
    }
    /* 27000 letters: each of the 27 about 1000 times */
    for (const char *p = alphabet; *p; p++)
        if (seen[(unsigned char)*p] < 700 || seen[(unsigned char)*p] > 1300)
            fail_msg("'%c' seen %d times", *p, seen[(unsigned char)*p]);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulid_from),          cmocka_unit_test(test_ulid_valid),
        cmocka_unit_test(test_ulid_new_monotonic), cmocka_unit_test(test_uid),
        cmocka_unit_test(test_idempotency_key),    cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_random_fallback),    cmocka_unit_test(test_random_suffix),
    };
    return cmocka_run_group_tests_name("util_id", tests, NULL, NULL);
}
