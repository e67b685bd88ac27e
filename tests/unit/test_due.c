/* Unit tests of emulator/sim/due.c, the scheduler's due queue: a binary heap ordered by
 * (time, arrival) with an index from each object to its item. Ordering, ties, moves and
 * removal, the round's collect and prune, and many random operations checked against a
 * plain array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "due.h"

static const struct nd_kind *K(size_t i)
{
    return &nd_kinds[i % nd_kind_count()];
}

static struct em_due_item *add(struct em_due *q, const char *name, int64_t at)
{
    return em_due_set(q, K(0), "p", name, at);
}

/* Pops everything (peek then remove) and writes the names in order, space-separated. */
static void drain(struct em_due *q, char *out, size_t cap)
{
    out[0] = '\0';
    struct em_due_item *it;
    while ((it = em_due_peek(q))) {
        assert_true(em_due_check(q));
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", n ? " " : "", it->name);
        em_due_remove(q, it);
    }
    assert_int_equal(em_due_count(q), 0);
}

static void test_orders_by_time(void **state)
{
    (void)state;
    struct em_due *q = em_due_new();
    assert_int_equal(em_due_next(q), EM_NEVER);
    assert_null(em_due_peek(q));
    const char *names[] = {"e", "b", "g", "a", "d", "f", "c"};
    const int64_t at[] = {50, 20, 70, 10, 40, 60, 30};
    for (size_t i = 0; i < 7; i++)
        add(q, names[i], at[i]);
    assert_int_equal(em_due_count(q), 7);
    assert_int_equal(em_due_next(q), 10);
    char got[128];
    drain(q, got, sizeof got);
    assert_string_equal(got, "a b c d e f g");
    em_due_free(q);
}

static void test_ties_go_by_arrival(void **state)
{
    (void)state;
    struct em_due *q = em_due_new();
    add(q, "a", 5);
    add(q, "b", 5);
    add(q, "c", 5);
    add(q, "d", 5);
    /* a move keeps the arrival: a goes later and back, and still leads */
    struct em_due_item *a = em_due_find(q, K(0), "p", "a");
    assert_non_null(a);
    em_due_move(q, a, 100);
    assert_string_equal(em_due_peek(q)->name, "b");
    em_due_set(q, K(0), "p", "a", 5); /* set of a present object is a move, not an add */
    assert_int_equal(em_due_count(q), 4);
    /* a removed object that comes back arrives anew: after the others */
    em_due_remove(q, em_due_find(q, K(0), "p", "b"));
    assert_null(em_due_find(q, K(0), "p", "b"));
    add(q, "b", 5);
    char got[64];
    drain(q, got, sizeof got);
    assert_string_equal(got, "a c d b");
    em_due_free(q);
}

static void test_keys_are_kind_project_name(void **state)
{
    (void)state;
    struct em_due *q = em_due_new();
    em_due_set(q, K(0), "p", "x", 3);
    em_due_set(q, K(1), "p", "x", 2);
    em_due_set(q, K(0), "q", "x", 1);
    em_due_set(q, K(0), "", "x", 4);
    assert_int_equal(em_due_count(q), 4);
    assert_int_equal(em_due_find(q, K(1), "p", "x")->at, 2);
    assert_int_equal(em_due_find(q, K(0), "q", "x")->at, 1);
    assert_int_equal(em_due_find(q, K(0), "", "x")->at, 4);
    assert_ptr_equal(em_due_find(q, K(0), "p", "x")->kind, K(0));
    assert_null(em_due_find(q, K(1), "q", "x"));
    em_due_free(q);
}

static void test_remove_and_reschedule(void **state)
{
    (void)state;
    struct em_due *q = em_due_new();
    char name[16];
    for (int i = 0; i < 31; i++) {
        snprintf(name, sizeof name, "n%02d", i);
        add(q, name, i * 10);
    }
    /* the root, a leaf and one in between go; others move both ways */
    em_due_remove(q, em_due_find(q, K(0), "p", "n00"));
    em_due_remove(q, em_due_find(q, K(0), "p", "n30"));
    em_due_remove(q, em_due_find(q, K(0), "p", "n07"));
    assert_true(em_due_check(q));
    em_due_move(q, em_due_find(q, K(0), "p", "n29"), 0);  /* a late one first */
    em_due_move(q, em_due_find(q, K(0), "p", "n01"), 1000); /* the first one last */
    em_due_move(q, em_due_find(q, K(0), "p", "n15"), 155);  /* a step within its place */
    assert_true(em_due_check(q));
    assert_string_equal(em_due_peek(q)->name, "n29");
    char got[256];
    drain(q, got, sizeof got);
    assert_string_equal(got, "n29 n02 n03 n04 n05 n06 n08 n09 n10 n11 n12 n13 n14 n15 n16 "
                             "n17 n18 n19 n20 n21 n22 n23 n24 n25 n26 n27 n28 n01");
    em_due_free(q);
}

static void test_collect_and_prune(void **state)
{
    (void)state;
    struct em_due *q = em_due_new();
    add(q, "late", 90);
    add(q, "b", 30);
    add(q, "a", 10);
    add(q, "c", 20);
    add(q, "never", EM_NEVER);
    struct em_due_item **due = NULL;
    size_t cap = 0;
    assert_int_equal(em_due_collect(q, 5, &due, &cap), 0);
    size_t n = em_due_collect(q, 30, &due, &cap);
    assert_int_equal(n, 3);
    /* in arrival order, not time order */
    assert_string_equal(due[0]->name, "b");
    assert_string_equal(due[1]->name, "a");
    assert_string_equal(due[2]->name, "c");
    /* a round: each parked while it runs, then due again or not */
    for (size_t i = 0; i < n; i++)
        em_due_move(q, due[i], EM_NEVER);
    em_due_move(q, due[1], 40);                  /* a: due later */
    em_due_set(q, K(0), "p", "b", 0);            /* b: touched again */
    assert_int_equal(em_due_count(q), 5);
    em_due_prune(q);
    /* what is still parked at EM_NEVER goes: c, and "never" (added at EM_NEVER, so
     * parked from the start); a and b, due again, stay with their arrivals */
    assert_int_equal(em_due_count(q), 3);
    assert_null(em_due_find(q, K(0), "p", "c"));
    assert_null(em_due_find(q, K(0), "p", "never"));
    assert_true(em_due_check(q));
    assert_int_equal(em_due_next(q), 0);
    char got[64];
    drain(q, got, sizeof got);
    assert_string_equal(got, "b a late");
    free(due);
    em_due_free(q);
}

/* ---- many entries, against a plain array ---- */

struct ref {
    char name[16];
    int64_t at;
    uint64_t arrival;
    bool live;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

static void test_many_random(void **state)
{
    (void)state;
    enum { N = 4000, OPS = 40000 };
    struct ref *r = calloc(N, sizeof *r);
    struct em_due *q = em_due_new();
    uint64_t arrivals = 0;
    unsigned seed = 22;
    for (int op = 0; op < OPS; op++) {
        size_t i = (size_t)rand_r(&seed) % N;
        int64_t at = rand_r(&seed) % 500; /* many ties */
        snprintf(r[i].name, sizeof r[i].name, "o%04zu", i);
        if (r[i].live && rand_r(&seed) % 4 == 0) {
            em_due_remove(q, em_due_find(q, K(i), "p", r[i].name));
            r[i].live = false;
        } else {
            if (!r[i].live)
                r[i].arrival = arrivals++;
            r[i].live = true;
            r[i].at = at;
            struct em_due_item *it = em_due_set(q, K(i), "p", r[i].name, at);
            assert_int_equal(it->at, at);
        }
        if (op % 4000 == 0)
            assert_true(em_due_check(q));
    }
    size_t live = 0;
    for (size_t i = 0; i < N; i++)
        if (r[i].live)
            r[live++] = r[i];
    assert_int_equal(em_due_count(q), live);
    qsort(r, live, sizeof *r, ref_cmp);
    /* what is due by 250, in arrival order */
    struct em_due_item **due = NULL;
    size_t cap = 0, n = em_due_collect(q, 250, &due, &cap), want = 0;
    for (size_t i = 0; i < live; i++)
        want += r[i].at <= 250;
    assert_int_equal(n, want);
    for (size_t i = 0; i + 1 < n; i++)
        assert_true(due[i]->arrival < due[i + 1]->arrival);
    for (size_t i = 0; i < n; i++)
        assert_true(due[i]->at <= 250);
    free(due);
    for (size_t i = 0; i < live; i++) {
        struct em_due_item *it = em_due_peek(q);
        assert_non_null(it);
        assert_string_equal(it->name, r[i].name);
        assert_int_equal(it->at, r[i].at);
        em_due_remove(q, it);
        if (i % 500 == 0)
            assert_true(em_due_check(q));
    }
    assert_null(em_due_peek(q));
    em_due_free(q);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_by_time),
        cmocka_unit_test(test_ties_go_by_arrival),
        cmocka_unit_test(test_keys_are_kind_project_name),
        cmocka_unit_test(test_remove_and_reschedule),
        cmocka_unit_test(test_collect_and_prune),
        cmocka_unit_test(test_many_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
