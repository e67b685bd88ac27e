/* Unit tests of the start's sort of a directory's names (namesort.h): the order is
 * strcmp's (as the qsort it replaced gave) for the names a state holds (a shared prefix
 * and a counter), for names that share more than the 8 bytes the first key reads (runs
 * of equal keys, short and long, ordered again past them), for names that end inside a
 * key or are prefixes of others, bytes above 0x7f (compared unsigned), and for the
 * small cases (none, one, all equal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namesort.h"
#define TEST_RNG_SEED 0x5b1f0c2d9e6a4783ULL
#include "test_rng.h"
#include "util/xmalloc.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts v both ways and checks they agree; frees the names. */
static void check_sorted(char **v, size_t n)
{
    char **want = nd_xmalloc((n ? n : 1) * sizeof *want);
    if (n)
        memcpy(want, v, n * sizeof *want);
    if (n > 1)
        qsort(want, n, sizeof *want, cmp_str);
    em_names_sort(v, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(want);
    free(v);
}

/* n names made by make(i, buf), in a shuffled order. */
static char **names(size_t n, void (*make)(size_t i, char *buf, size_t cap))
{
    char **v = nd_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        char buf[128];
        make(i, buf, sizeof buf);
        v[i] = nd_xstrdup(buf);
    }
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd((uint32_t)i);
        char *t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
    return v;
}

static void seeded(size_t i, char *buf, size_t cap)
{
    snprintf(buf, cap, "bench-%06zu", i);
}

static size_t groups; /* of long_shared's names */

/* Names whose group's 8 bytes after the shared "g" are the same ("NNN-shar"), and the
 * next 16 too: runs of equal keys ordered by the next keys (short runs by strcmp). */
static void long_shared(size_t i, char *buf, size_t cap)
{
    snprintf(buf, cap, "g%03zu-shared-middle-part-%zu", i % groups, i / groups);
}

/* Random names over a small alphabet with bytes above 0x7f, 0 to 20 long: prefixes of
 * each other, names ending inside a key. */
static void random_name(size_t i, char *buf, size_t cap)
{
    (void)i;
    static const char abc[] = {'a', 'b', '-', '.', '0', '9', (char)0xc3, (char)0xa9, 'z'};
    size_t len = rnd(21);
    if (len >= cap)
        len = cap - 1;
    for (size_t k = 0; k < len; k++)
        buf[k] = abc[rnd(sizeof abc)];
    buf[len] = '\0';
}

static void same(size_t i, char *buf, size_t cap)
{
    (void)i;
    snprintf(buf, cap, "same-name-longer-than-a-key");
}

static void test_seeded_names(void **state)
{
    (void)state;
    check_sorted(names(20000, seeded), 20000);
}

static void test_long_shared_prefix(void **state)
{
    (void)state;
    groups = 100; /* runs of 50 */
    check_sorted(names(5000, long_shared), 5000);
    groups = 1000; /* runs of 5 */
    check_sorted(names(5000, long_shared), 5000);
}

static void test_random_names(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        size_t n = rnd(400);
        check_sorted(names(n, random_name), n);
    }
}

static void test_small_and_equal(void **state)
{
    (void)state;
    check_sorted(names(0, seeded), 0);
    check_sorted(names(1, seeded), 1);
    check_sorted(names(2, seeded), 2);
    check_sorted(names(100, same), 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeded_names),
        cmocka_unit_test(test_long_shared_prefix),
        cmocka_unit_test(test_random_names),
        cmocka_unit_test(test_small_and_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
