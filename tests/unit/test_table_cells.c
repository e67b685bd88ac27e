/* Unit tests of emulator/api/table_cells.c, each revision's Table row made once: a row
 * comes from its revision (the same bytes, the same cells; new bytes, new cells), the AGE
 * cells follow the clock on every call, the cache stays within its bound by dropping the
 * least recently used rows (and the references they held), a row too big to keep is
 * still answered, and a cached row of a stored object asks for no tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_cells.h"

static const struct nd_kind *jobs(void)
{
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", "jobs");
    assert_non_null(k);
    return k;
}

/* A Job named name in phase phase, created at 2026-01-01T00:00:00Z. */
static json_t *job(const char *name, const char *phase)
{
    json_t *o = json_pack("{ss ss s{ss ss ss s[]} s{ss s{s{ss si}}} s{ss}}", "apiVersion",
                          "nodus.dev/v1", "kind", "Job", "metadata", "name", name, "namespace",
                          "default", "creationTimestamp", "2026-01-01T00:00:00Z",
                          "managedFields", "spec", "image", "img", "resources", "gpu", "model",
                          "H100", "count", 1, "status", "phase", phase);
    assert_non_null(o);
    return o;
}

static struct em_bytes *bytes_of(const json_t *o)
{
    return em_bytes_take(json_dumps(o, JSON_COMPACT));
}

/* The row's cells as text. */
static char *row(struct em_table_cells *c, const json_t *o, struct em_bytes *rev, int64_t now)
{
    struct nd_buf out = ND_BUF_INIT;
    struct em_table_obj to = {.obj = o, .rev = rev};
    em_table_cells_lock(c);
    em_table_cells_row(c, jobs(), &to, now, &out);
    em_table_cells_unlock(c);
    return nd_buf_detach(&out);
}

#define T0 1767225600 /* 2026-01-01T00:00:00Z */

static void test_row_follows_revision_and_clock(void **state)
{
    (void)state;
    struct em_table_cells *c = em_table_cells_new(EM_TABLE_CELLS_MAX_BYTES);
    json_t *o = job("a", "Queued");
    struct em_bytes *rev = bytes_of(o);
    char *r1 = row(c, o, rev, T0 + 5);
    assert_non_null(strstr(r1, "\"a\""));
    assert_non_null(strstr(r1, "\"Queued\""));
    assert_non_null(strstr(r1, "\"5s\""));
    assert_int_equal(em_table_cells_count(c), 1);
    /* the same revision: the row made for it, its age moved with the clock */
    json_object_set_new(json_object_get(o, "status"), "phase", json_string("Running"));
    char *r2 = row(c, o, rev, T0 + 3600);
    assert_non_null(strstr(r2, "\"Queued\""));
    assert_non_null(strstr(r2, "\"60m\""));
    assert_int_equal(em_table_cells_count(c), 1);
    /* a new revision: a new row */
    struct em_bytes *rev2 = bytes_of(o);
    char *r3 = row(c, o, rev2, T0 + 3600);
    assert_non_null(strstr(r3, "\"Running\""));
    assert_int_equal(em_table_cells_count(c), 2);
    /* no key: made for the answer, nothing kept */
    char *r4 = row(c, o, NULL, T0 + 1);
    assert_non_null(strstr(r4, "\"Running\""));
    assert_int_equal(em_table_cells_count(c), 2);
    assert_int_equal(atomic_load(&rev->refs), 2);
    em_table_cells_free(c);
    assert_int_equal(atomic_load(&rev->refs), 1);
    em_bytes_unref(rev);
    em_bytes_unref(rev2);
    free(r1);
    free(r2);
    free(r3);
    free(r4);
    json_decref(o);
}

static void test_metadata_without_managed_fields(void **state)
{
    (void)state;
    struct em_table_cells *c = em_table_cells_new(EM_TABLE_CELLS_MAX_BYTES);
    json_t *o = job("m", "Queued");
    struct em_bytes *rev = bytes_of(o);
    struct nd_buf out = ND_BUF_INIT;
    struct em_table_obj to = {.obj = o, .rev = rev};
    em_table_cells_lock(c);
    em_table_cells_meta(c, jobs(), &to, &out);
    em_table_cells_unlock(c);
    assert_string_equal(out.data, "{\"name\":\"m\",\"namespace\":\"default\","
                                  "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"}");
    nd_buf_release(&out);
    em_table_cells_free(c);
    em_bytes_unref(rev);
    json_decref(o);
}

static void test_bound(void **state)
{
    (void)state;
    const size_t max = 8 << 10;
    struct em_table_cells *c = em_table_cells_new(max);
    enum { N = 200 };
    struct em_bytes *revs[N];
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "job-%03d", i);
        json_t *o = job(name, "Queued");
        revs[i] = bytes_of(o);
        free(row(c, o, revs[i], T0));
        assert_true(em_table_cells_size(c) <= max);
        json_decref(o);
    }
    size_t n = em_table_cells_count(c);
    assert_true(n > 0 && n < N);
    /* the oldest rows went, and the references they held with them; the newest stay */
    assert_int_equal(atomic_load(&revs[0]->refs), 1);
    assert_int_equal(atomic_load(&revs[N - 1]->refs), 2);
    size_t held = 0;
    for (int i = 0; i < N; i++)
        held += atomic_load(&revs[i]->refs) == 2;
    assert_int_equal(held, n);
    em_table_cells_free(c);
    for (int i = 0; i < N; i++) {
        assert_int_equal(atomic_load(&revs[i]->refs), 1);
        em_bytes_unref(revs[i]);
    }
}

static void test_too_big_to_keep(void **state)
{
    (void)state;
    struct em_table_cells *c = em_table_cells_new(64);
    json_t *o = job("big", "Queued");
    struct em_bytes *rev = bytes_of(o);
    char *r = row(c, o, rev, T0 + 120);
    assert_non_null(strstr(r, "\"2m\""));
    assert_int_equal(em_table_cells_count(c), 0);
    assert_int_equal(em_table_cells_size(c), 0);
    assert_int_equal(atomic_load(&rev->refs), 1);
    free(r);
    em_table_cells_free(c);
    em_bytes_unref(rev);
    json_decref(o);
}

/* A stored object's row by its entry (no tree given): the tree is built from the bytes
 * only to make the row; a row already cached asks for no tree, even a cold one (what a
 * list of 1,000 cached rows must not do: build 1,000 trees). */
static void test_cached_row_builds_no_tree(void **state)
{
    (void)state;
    struct em_table_cells *c = em_table_cells_new(EM_TABLE_CELLS_MAX_BYTES);
    json_t *o = job("a", "Running");
    struct em_bytes *rev = bytes_of(o);
    struct em_entry *e = em_entry_new(em_bytes_ref(rev), json_object(), NULL);
    struct em_entry_stats st0, st1, st2;
    em_entry_stats(&st0);
    struct em_table_obj to = {.rev = rev, .entry = e};
    struct nd_buf first = ND_BUF_INIT, again = ND_BUF_INIT;
    em_table_cells_lock(c);
    em_table_cells_row(c, jobs(), &to, T0 + 60, &first);
    em_table_cells_unlock(c);
    em_entry_stats(&st1);
    assert_int_equal(st1.built, st0.built + 1); /* made: from the tree */
    char *want = row(c, o, rev, T0 + 60);
    assert_string_equal(first.data, want);
    em_entry_set_bound(0);
    em_entry_trim(); /* the tree is dropped: the entry is cold */
    em_table_cells_lock(c);
    em_table_cells_row(c, jobs(), &to, T0 + 60, &again);
    em_table_cells_unlock(c);
    em_entry_stats(&st2);
    assert_int_equal(st2.built, st1.built); /* cached: no tree */
    assert_string_equal(again.data, want);
    em_entry_set_bound(EM_ENTRY_HOT);
    free(want);
    nd_buf_release(&first);
    nd_buf_release(&again);
    em_entry_free(e);
    em_bytes_unref(rev);
    json_decref(o);
    em_table_cells_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_follows_revision_and_clock),
        cmocka_unit_test(test_metadata_without_managed_fields),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_too_big_to_keep),
        cmocka_unit_test(test_cached_row_builds_no_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
