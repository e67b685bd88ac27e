/* Unit tests of the change history (emulator/store/history.c): old changes keep
 * their compact JSON instead of whole trees, and give the trees back when read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "fsutil.h"
#include "history.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

/* the kind these tests store (the store takes the registry's row) */
#define VOLUMES nd_kind_by_plural(NULL, "volumes")

/* Each test's store, in a directory of its own, and its history (setup and teardown). */
struct fix {
    char *dir;
    struct em_store s;
    struct em_history j;
};

static int fix_open(void **state)
{
    struct fix *f = nd_xcalloc(1, sizeof *f);
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    f->dir = store_tmpdir("journal");
    int rc = em_store_open(&f->s, f->dir, EM_FSYNC_NEVER, false, &report, &err) == 0 &&
                     em_history_open(&f->j, &f->s, 0, 1000, &err) == 0
                 ? 0
                 : -1;
    if (rc < 0)
        fprintf(stderr, "cannot open the store or its history: %s\n", err.data ? err.data : "?");
    nd_buf_release(&report);
    nd_buf_release(&err);
    *state = f;
    return rc;
}

static int fix_close(void **state)
{
    struct fix *f = *state;
    em_history_close(&f->j);
    em_store_close(&f->s);
    em_rm_rf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static json_t *volume(const char *name, int64_t rv, int size)
{
    char rvs[24], sz[24];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    snprintf(sz, sizeof sz, "%dGi", size);
    return json_pack("{ss ss s{ss ss ss} s{ss}}", "apiVersion", "nodus.dev/v1", "kind", "Volume",
                     "metadata", "name", name, "namespace", "default", "resourceVersion", rvs,
                     "spec", "size", sz);
}

/* One object changed n times: each change stored, then journaled with the previous
 * revision, as objects.c does. */
static void churn(struct em_store *s, struct em_history *j, int n)
{
    json_t *prev = NULL;
    for (int i = 1; i <= n; i++) {
        json_t *v = volume("a", i, i);
        struct em_bytes *json = NULL;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(
            em_store_put(s, VOLUMES, v, i == 1 ? "ADDED" : "MODIFIED", 1000, &json, &st), 0);
        em_history_append(j, i, 1000, i == 1 ? "ADDED" : "MODIFIED", "volumes", v, prev, json);
        em_bytes_unref(json);
        json_decref(prev);
        prev = v; /* our reference: the next change's previous object */
    }
    json_decref(prev);
}

static void test_old_events_keep_bytes(void **state)
{
    struct fix *f = *state;
    struct em_store *s = &f->s;
    struct em_history *j = &f->j;
    int n = 3 * EM_HISTORY_HOT;
    churn(s, j, n);
    assert_int_equal(j->len, (size_t)n);
    /* an old event: bytes only */
    struct em_change *old = &j->ev[10];
    assert_null(old->obj);
    assert_null(old->prev);
    assert_non_null(old->json);
    assert_non_null(old->prev_json);
    /* ...and the trees come back, equal to what was stored then */
    json_t *want = volume("a", 11, 11), *want_prev = volume("a", 10, 10);
    assert_true(json_equal(em_change_obj(old), want));
    assert_true(json_equal(em_change_prev(old), want_prev));
    /* a reader of many old events takes trees the event does not keep */
    struct em_change *older = &j->ev[20];
    json_t *o = em_change_obj_new(older), *p = em_change_prev_new(older);
    assert_null(older->obj);
    assert_null(older->prev);
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "metadata"),
                                                          "resourceVersion")), "21");
    assert_string_equal(json_string_value(json_object_get(json_object_get(p, "metadata"),
                                                          "resourceVersion")), "20");
    json_decref(o);
    json_decref(p);
    json_decref(want);
    json_decref(want_prev);
    /* the newest events keep their trees; the last one is the stored object itself */
    struct em_change *last = &j->ev[j->len - 1];
    assert_non_null(last->obj);
    assert_ptr_equal(last->obj, em_store_get(s, VOLUMES, "default", "a"));
    assert_non_null(j->ev[j->len - EM_HISTORY_HOT].obj);
}

/* A change whose writer gave the previous object's bytes (objects.c: the stored entry's)
 * keeps those when it gives up its trees: one copy of each revision's JSON, shared with
 * the change that made it, not a second one made from the tree. */
static void test_previous_shares_bytes(void **state)
{
    struct fix *f = *state;
    struct em_store *s = &f->s;
    struct em_history *j = &f->j;
    json_t *prev = NULL;
    struct em_bytes *prev_json = NULL;
    int n = 2 * EM_HISTORY_HOT + 10;
    for (int i = 1; i <= n; i++) {
        json_t *v = volume("a", i, i);
        struct em_bytes *json = NULL;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(
            em_store_put(s, VOLUMES, v, i == 1 ? "ADDED" : "MODIFIED", 1000, &json, &st), 0);
        em_history_append(j, i, 1000, i == 1 ? "ADDED" : "MODIFIED", "volumes", v, prev, json);
        em_history_set_prev_json(j, prev_json);
        em_bytes_unref(prev_json);
        prev_json = json; /* our reference: the next change's previous bytes */
        json_decref(prev);
        prev = v;
    }
    em_bytes_unref(prev_json);
    json_decref(prev);
    struct em_change *old = &j->ev[10];
    assert_null(old->prev);
    assert_ptr_equal(old->prev_json, j->ev[9].json);
    json_t *want_prev = volume("a", 10, 10);
    assert_true(json_equal(em_change_prev(old), want_prev));
    json_decref(want_prev);
}

static void test_stored_object_shares_its_bytes(void **state)
{
    struct fix *f = *state;
    struct em_store *s = &f->s;
    struct em_history *j = &f->j;
    /* one object created first and never changed, then much churn of another */
    json_t *b = volume("b", 1, 1);
    struct em_bytes *json = NULL;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, VOLUMES, b, "ADDED", 1000, &json, &st), 0);
    em_history_append(j, 1, 1000, "ADDED", "volumes", b, NULL, json);
    em_bytes_unref(json);
    json_decref(b);
    for (int i = 0; i < 2 * EM_HISTORY_HOT; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", i);
        json_t *c = volume(name, i + 2, 1);
        assert_int_equal(em_store_put(s, VOLUMES, c, "ADDED", 1000, &json, &st), 0);
        em_history_append(j, i + 2, 1000, "ADDED", "volumes", c, NULL, json);
        em_bytes_unref(json);
        json_decref(c);
    }
    /* b is old but still the stored revision: its bytes shared with the store, not
     * copied, and its tree given up (the store builds one when asked) */
    assert_null(j->ev[0].obj);
    assert_ptr_equal(j->ev[0].json, em_store_entry_json(em_store_entry(s, VOLUMES, "default", "b")));
}

/* A change written without a tree (em_store_put_bytes, em_history_append_rec: a running
 * Job's minute, sim/controllers/job_minute.c): the store holds its bytes and record, the
 * change selects with the records until it gives up its trees, then by the bytes. */
static void test_change_without_tree(void **state)
{
    struct fix *f = *state;
    struct em_store *s = &f->s;
    struct em_history *j = &f->j;
    json_t *v = volume("a", 1, 1);
    struct em_bytes *json = NULL;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, VOLUMES, v, "ADDED", 1000, &json, &st), 0);
    em_history_append(j, 1, 1000, "ADDED", "volumes", v, NULL, json);
    const struct em_entry *e = em_store_entry(s, VOLUMES, "default", "a");
    json_t *prev_rec = json_incref((json_t *)em_entry_rec(e));
    json_t *v2 = volume("a", 2, 2);
    struct em_bytes *json2 = em_bytes_take(json_dumps(v2, JSON_COMPACT));
    json_t *rec2 = em_rec_of(VOLUMES, v2);
    assert_int_equal(
        em_store_put_bytes(s, VOLUMES, 2, 1000, em_bytes_ref(json2), json_incref(rec2), &st), 0);
    em_history_append_rec(j, 2, 1000, "volumes", json2, rec2, json, prev_rec);
    /* stored: its bytes and record, no tree until one is asked for (built from them) */
    e = em_store_entry(s, VOLUMES, "default", "a");
    assert_ptr_equal(em_store_entry_json(e), json2);
    assert_ptr_equal(em_entry_rec(e), rec2);
    assert_null(e->tree);
    assert_true(json_equal(em_store_get(s, VOLUMES, "default", "a"), v2));
    /* the change: the records select, the bytes are the object's */
    struct em_change *c = &j->ev[j->len - 1];
    assert_ptr_equal(em_change_sel(c), rec2);
    assert_ptr_equal(c->prev_rec, prev_rec);
    assert_ptr_equal(c->prev_json, json);
    assert_true(json_equal(em_change_obj(c), v2));
    assert_true(json_equal(em_change_prev(c), v));
    /* once old, a change like any other */
    for (int i = 0; i < 2 * EM_HISTORY_HOT; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", i);
        json_t *o = volume(name, i + 3, 1);
        struct em_bytes *b = NULL;
        assert_int_equal(em_store_put(s, VOLUMES, o, "ADDED", 1000, &b, &st), 0);
        em_history_append(j, i + 3, 1000, "ADDED", "volumes", o, NULL, b);
        em_bytes_unref(b);
        json_decref(o);
    }
    c = &j->ev[1];
    assert_null(c->rec);
    assert_null(c->prev_rec);
    assert_true(json_equal(em_change_sel(c), v2));
    em_bytes_unref(json);
    em_bytes_unref(json2);
    json_decref(rec2);
    json_decref(prev_rec);
    json_decref(v);
    json_decref(v2);
}

/* Large objects keep fewer trees: the newest changes hold at most EM_HISTORY_HOT_BYTES
 * of objects in trees, not EM_HISTORY_HOT changes whatever their size. */
static void test_trees_bounded_by_bytes(void **state)
{
    struct fix *f = *state;
    struct em_store *s = &f->s;
    struct em_history *j = &f->j;
    enum { N = 100, BIG = 64 << 10 }; /* 6.4 MB of objects, 100 changes */
    char *note = nd_xmalloc(BIG + 1);
    memset(note, 'n', BIG);
    note[BIG] = '\0';
    for (int i = 1; i <= N; i++) {
        char name[16];
        snprintf(name, sizeof name, "big%d", i);
        json_t *v = volume(name, i, 1);
        json_object_set_new(json_object_get(v, "metadata"), "annotations",
                            json_pack("{ss}", "note", note));
        struct em_bytes *json = NULL;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(em_store_put(s, VOLUMES, v, "ADDED", 1000, &json, &st), 0);
        em_history_append(j, i, 1000, "ADDED", "volumes", v, NULL, json);
        em_bytes_unref(json);
        json_decref(v);
    }
    size_t with_trees = 0;
    for (size_t i = 0; i < j->len; i++)
        with_trees += j->ev[i].obj != NULL;
    /* at most the bytes' worth kept at the last pass and what came after it */
    assert_true(with_trees > 0);
    assert_true(with_trees <= 2 * (EM_HISTORY_HOT_BYTES / BIG));
    assert_non_null(j->ev[j->len - 1].obj);
    /* an old one's tree comes back from its bytes */
    json_t *o = em_change_obj(&j->ev[0]);
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "metadata"), "name")),
                        "big1");
    free(note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_old_events_keep_bytes, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_previous_shares_bytes, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_stored_object_shares_its_bytes, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_trees_bounded_by_bytes, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_change_without_tree, fix_open, fix_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
