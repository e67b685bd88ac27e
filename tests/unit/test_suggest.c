/* Unit tests of pkg/util/suggest.h: "did you mean". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/buf.h"
#include "util/suggest.h"

static void test_distance(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        size_t d;
    } rows[] = {
        {"", "", 0},
        {"get", "get", 0},
        {"", "get", 3},
        {"get", "", 3},
        {"gte", "get", 1},
        {"jbos", "jobs", 1},
        {"wach", "watch", 1},
        {"GET", "get", 0},
        {"jbos", "job", 2},
        {"ca", "abc", 3},
        {"kitten", "sitting", 3},
        {"describ", "describe", 1},
        {"dleete", "delete", 1},
        {"xyz", "get", 3},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t d = nd_suggest_distance(rows[i].a, rows[i].b);
        if (d != rows[i].d)
            fail_msg("distance(%s, %s) = %zu, want %zu", rows[i].a, rows[i].b, d, rows[i].d);
    }
}

static void test_matches(void **state)
{
    (void)state;
    assert_true(nd_suggest_matches("gte", "get"));
    assert_true(nd_suggest_matches("ex", "explain")); /* a prefix */
    assert_true(nd_suggest_matches("EXP", "explain"));
    assert_false(nd_suggest_matches("xplain", "api-resources"));
    assert_false(nd_suggest_matches("", "get"));
    assert_false(nd_suggest_matches("frobnicate", "get"));
}

static void test_order_and_keys(void **state)
{
    (void)state;
    static const int job = 1, jobset = 2;
    struct nd_suggest s;
    nd_suggest_init(&s, "jbos");
    nd_suggest_add(&s, "pools", NULL);
    nd_suggest_add(&s, "job", &job);
    nd_suggest_add(&s, "jobs", &job);
    nd_suggest_add(&s, "jobsets", &jobset);
    nd_suggest_add(&s, "jobs", NULL); /* the same word twice: once */
    assert_int_equal(nd_suggest_count(&s), 1);
    assert_string_equal(nd_suggest_at(&s, 0), "jobs");
    assert_null(nd_suggest_at(&s, 1));
    nd_suggest_release(&s);

    nd_suggest_init(&s, "gt");
    const char *verbs[] = {"set", "get", "cp", "top", "logs"};
    for (size_t i = 0; i < 5; i++)
        nd_suggest_add(&s, verbs[i], NULL);
    /* get (1) first, then the distance-2 words in the order given; top is 3 away */
    assert_int_equal(nd_suggest_count(&s), 3);
    assert_string_equal(nd_suggest_at(&s, 0), "get");
    assert_string_equal(nd_suggest_at(&s, 1), "set");
    assert_string_equal(nd_suggest_at(&s, 2), "cp");
    struct nd_buf b;
    nd_buf_init(&b, 0);
    assert_int_equal(nd_suggest_join(&s, "--", "", &b), 3);
    assert_string_equal(b.data, "--get, --set or --cp");
    nd_buf_release(&b);
    nd_suggest_release(&s);
}

static void test_strict(void **state)
{
    (void)state;
    struct nd_suggest s;
    nd_suggest_init_strict(&s, "frobs"); /* 5 letters: one edit at most */
    nd_suggest_add(&s, "jobs", NULL);    /* two away */
    nd_suggest_add(&s, "frob", NULL);    /* one away */
    assert_int_equal(nd_suggest_count(&s), 1);
    assert_string_equal(nd_suggest_at(&s, 0), "frob");
    nd_suggest_release(&s);
    nd_suggest_init_strict(&s, "pipelnes"); /* 8 letters: two */
    nd_suggest_add(&s, "pipelines", NULL);
    nd_suggest_add(&s, "pipes", NULL); /* three away */
    assert_int_equal(nd_suggest_count(&s), 1);
    nd_suggest_release(&s);
    nd_suggest_init(&s, "frobs"); /* cobra's rule for verbs: two */
    nd_suggest_add(&s, "jobs", NULL);
    assert_int_equal(nd_suggest_count(&s), 1);
    nd_suggest_release(&s);
    nd_suggest_init_strict(&s, "ws"); /* short: prefixes still count */
    nd_suggest_add(&s, "wsx", NULL);
    nd_suggest_add(&s, "ab", NULL);
    assert_int_equal(nd_suggest_count(&s), 1);
    nd_suggest_release(&s);
}

static void test_join_one_two_none(void **state)
{
    (void)state;
    struct nd_suggest s;
    struct nd_buf b;
    nd_buf_init(&b, 0);
    nd_suggest_init(&s, "wach");
    assert_int_equal(nd_suggest_join(&s, "--", NULL, &b), 0);
    assert_int_equal(b.len, 0);
    nd_suggest_add(&s, "watch", NULL);
    assert_int_equal(nd_suggest_join(&s, "--", NULL, &b), 1);
    assert_string_equal(b.data, "--watch");
    nd_buf_reset(&b);
    nd_suggest_add(&s, "wash", NULL);
    nd_suggest_join(&s, "\"", "\"", &b);
    assert_string_equal(b.data, "\"watch\" or \"wash\"");
    nd_buf_release(&b);
    nd_suggest_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),          cmocka_unit_test(test_matches),
        cmocka_unit_test(test_order_and_keys),    cmocka_unit_test(test_strict),
        cmocka_unit_test(test_join_one_two_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
