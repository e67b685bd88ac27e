/* Unit tests of the store's entries (emulator/store/entry.h): an object is kept as its
 * compact bytes and a small record (the fields selectors, indexes and controllers read);
 * its tree is built on demand, counted, kept in a bounded hot list and dropped at the safe
 * point; a start from the checkpoint builds no tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "fsutil.h"
#include "pretty.h"
#include "selector/selector.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

#define JOBS nd_kind_by_plural(NULL, "jobs")

static json_t *job(const char *name, int64_t rv)
{
    char rvs[24];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    return json_pack(
        "{ss ss s{ss ss ss ss s{ss} s[{ssssss}] ss s[s]} s{ss s{ss} s{s{si}}} "
        "s{ss ss s[{ssss}{ssss}{ssss}]}}",
        "apiVersion", "nodus.dev/v1", "kind", "Job", "metadata", "name", name, "namespace", "p",
        "uid", "u-1", "resourceVersion", rvs, "labels", "app", "web", "ownerReferences", "kind",
        "Pipeline", "name", "pipe", "uid", "u-0", "deletionTimestamp", "2026-01-01T00:00:00Z",
        "finalizers", "nodus.dev/x", "spec", "state", "Running", "placement", "pool", "gpu-a",
        "resources", "gpu", "count", 1, "status", "phase", "Succeeded", "costUSD", "1.50",
        "conditions", "type", "Ready", "status", "False", "type", "Complete", "status", "True",
        "type", "Progressing", "status", "False");
}

static void put(struct em_store *s, json_t *obj)
{
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, JOBS, obj, "ADDED", 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(obj);
}

static uint64_t built(void)
{
    struct em_entry_stats ts;
    em_entry_stats(&ts);
    return ts.built;
}

static size_t hot(void)
{
    struct em_entry_stats ts;
    em_entry_stats(&ts);
    return ts.hot;
}

/* The record holds what is asked of it, shared with the object, and nothing else. */
static void test_record_fields(void **state)
{
    (void)state;
    json_t *o = job("a", 7);
    json_t *rec = em_rec_of(JOBS, o);
    const json_t *m = json_object_get(rec, "metadata");
    assert_string_equal(json_string_value(json_object_get(m, "name")), "a");
    assert_string_equal(json_string_value(json_object_get(m, "namespace")), "p");
    assert_string_equal(json_string_value(json_object_get(m, "uid")), "u-1");
    assert_string_equal(json_string_value(json_object_get(m, "resourceVersion")), "7");
    assert_ptr_equal(json_object_get(m, "labels"),
                     json_object_get(json_object_get(o, "metadata"), "labels"));
    assert_non_null(json_object_get(m, "ownerReferences"));
    assert_non_null(json_object_get(m, "deletionTimestamp"));
    assert_non_null(json_object_get(m, "finalizers"));
    const json_t *st = json_object_get(rec, "status");
    assert_string_equal(json_string_value(json_object_get(st, "phase")), "Succeeded");
    assert_string_equal(json_string_value(json_object_get(st, "costUSD")), "1.50");
    /* of the conditions, only the end conditions the scheduler asks about */
    assert_int_equal(json_array_size(json_object_get(st, "conditions")), 1);
    /* the kind's selectable fields, and no other part of spec */
    const json_t *spec = json_object_get(rec, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "state")), "Running");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(spec, "placement"), "pool")), "gpu-a");
    assert_null(json_object_get(spec, "resources"));
    assert_null(json_object_get(rec, "kind"));
    /* selectors read the record as they read the object */
    struct nd_select sel;
    struct nd_status ss = ND_STATUS_INIT;
    assert_int_equal(nd_select_parse(&sel, "app=web", "spec.state=Running,status.phase=Succeeded",
                                     JOBS->field_selectors, ND_SELECT_READ, &ss),
                     0);
    assert_true(nd_select_matches(&sel, rec));
    assert_true(nd_select_matches(&sel, o));
    nd_select_release(&sel);
    json_decref(rec);
    json_decref(o);
}

/* An ended Job's record also holds what its controller reads to find it has nothing to do
 * (the simulation's idle), through the checkpoint's text too; a running Job's does not. */
static void test_record_of_ended_job(void **state)
{
    (void)state;
    json_t *o = job("a", 7);
    json_t *meta = json_object_get(o, "metadata");
    json_t *status = json_object_get(o, "status");
    json_object_set_new(meta, "generation", json_integer(2));
    json_object_set_new(status, "observedGeneration", json_integer(2));
    json_object_set_new(status, "startTime", json_string("2026-01-01T00:00:35Z"));
    json_object_set_new(status, "completionTime", json_string("2026-01-01T00:10:35Z"));
    json_object_set_new(status, "billing", json_pack("{sbss}", "settled", 1, "finalChargeTime",
                                                     "2026-01-01T00:11:05Z"));
    json_object_set_new(status, "simulation", json_pack("{sIsI}", "phaseTime", (json_int_t)5,
                                                        "runMs", (json_int_t)600000));
    json_t *rec = em_rec_of(JOBS, o);
    char *text = json_dumps(rec, JSON_COMPACT);
    json_t *back = em_rec_parse(text, strlen(text));
    free(text);
    for (int i = 0; i < 2; i++) {
        const json_t *r = i ? back : rec;
        const json_t *st = json_object_get(r, "status");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "metadata"),
                                                            "generation")),
                         2);
        assert_int_equal(json_integer_value(json_object_get(st, "observedGeneration")), 2);
        assert_string_equal(json_string_value(json_object_get(st, "startTime")),
                            "2026-01-01T00:00:35Z");
        assert_string_equal(json_string_value(json_object_get(st, "completionTime")),
                            "2026-01-01T00:10:35Z");
        const json_t *billing = json_object_get(st, "billing");
        assert_true(json_is_true(json_object_get(billing, "settled")));
        assert_int_equal(json_object_size(billing), 1); /* not its finalChargeTime */
        const json_t *sim = json_object_get(st, "simulation");
        assert_int_equal(json_integer_value(json_object_get(sim, "phaseTime")), 5);
        assert_int_equal(json_object_size(sim), 1);
    }
    json_decref(back);
    json_decref(rec);
    /* while it runs, none of it */
    json_object_set_new(status, "phase", json_string("Running"));
    rec = em_rec_of(JOBS, o);
    const json_t *st = json_object_get(rec, "status");
    assert_null(json_object_get(json_object_get(rec, "metadata"), "generation"));
    assert_null(json_object_get(st, "startTime"));
    assert_null(json_object_get(st, "billing"));
    assert_null(json_object_get(st, "simulation"));
    json_decref(rec);
    json_decref(o);
}

/* Trees are built when asked, counted, and a safe point keeps at most the bound. */
static void test_hot_trees_bounded(void **state)
{
    (void)state;
    char *dir = store_tmpdir("bytes");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    em_entry_set_bound(3);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", i);
        put(&s, job(name, i + 1));
    }
    /* what a write stored is hot until the safe point */
    assert_int_equal(hot(), 10);
    em_store_trim(&s);
    assert_int_equal(hot(), 3);
    uint64_t b0 = built();
    /* the bytes and the record need no tree */
    const struct em_entry *e = em_store_entry(&s, JOBS, "p", "j0");
    assert_non_null(strstr(em_store_entry_json(e)->data, "\"name\":\"j0\""));
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(em_entry_rec(e), "metadata"), "name")),
                        "j0");
    assert_int_equal(built(), b0);
    /* a cold object's tree is built from its bytes, once until it is dropped */
    json_t *t = em_store_get(&s, JOBS, "p", "j0");
    json_t *want = job("j0", 1);
    assert_true(json_equal(t, want));
    json_decref(want);
    assert_int_equal(built(), b0 + 1);
    assert_ptr_equal(em_store_get(&s, JOBS, "p", "j0"), t);
    assert_int_equal(built(), b0 + 1);
    /* every tree asked: all hot until the safe point, then the bound, the newest kept */
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", i);
        assert_non_null(em_store_get(&s, JOBS, "p", name));
    }
    assert_int_equal(hot(), 10);
    json_t *held = json_incref(em_store_get(&s, JOBS, "p", "j1")); /* kept past the point */
    em_store_trim(&s);
    assert_int_equal(hot(), 3);
    assert_non_null(em_store_entry(&s, JOBS, "p", "j1")); /* its tree is dropped, ... */
    assert_string_equal(json_string_value(json_object_get(json_object_get(held, "metadata"), "name")),
                        "j1"); /* ... the reference still good */
    json_decref(held);
    uint64_t b1 = built();
    assert_non_null(em_store_get(&s, JOBS, "p", "j9")); /* among the newest */
    assert_int_equal(built(), b1);
    em_entry_set_bound(EM_ENTRY_HOT);
    em_store_close(&s);
    assert_int_equal(hot(), 0);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

/* A start from the checkpoint builds no tree: bytes and records come from it. */
static void test_checkpoint_start_builds_no_tree(void **state)
{
    (void)state;
    char *dir = store_tmpdir("bytes");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", i);
        put(&s, job(name, i + 1));
    }
    char *bytes5 = nd_xstrdup(em_store_entry_json(em_store_entry(&s, JOBS, "p", "j5"))->data);
    em_store_close(&s);
    uint64_t b0 = built();
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    assert_int_equal(s.loaded_checkpoint, 20);
    assert_int_equal(s.revision, 20);
    assert_int_equal(built(), b0);
    assert_int_equal(hot(), 0);
    const struct em_entry *e = em_store_entry(&s, JOBS, "p", "j5");
    assert_string_equal(em_store_entry_json(e)->data, bytes5);
    const json_t *m = json_object_get(em_entry_rec(e), "metadata");
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "labels"), "app")),
                        "web");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(em_entry_rec(e), "status"), "phase")),
        "Succeeded");
    assert_int_equal(built(), b0);
    em_store_close(&s);
    /* from the files (no checkpoint: it is used once), no tree is kept either */
    char *ck = nd_xasprintf("%s/history/checkpoint", dir);
    unlink(ck);
    free(ck);
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    assert_int_equal(s.loaded_files, 20);
    assert_int_equal(hot(), 0);
    assert_string_equal(em_store_entry_json(em_store_entry(&s, JOBS, "p", "j5"))->data, bytes5);
    em_store_close(&s);
    free(bytes5);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

/* An object file's text made from the compact bytes is jansson's indented dump, byte for
 * byte (strings holding the punctuation, escapes, empty and nested containers, numbers). */
static void test_pretty_from_compact_is_jansson_indent(void **state)
{
    (void)state;
    json_t *odd = json_pack(
        "{ss ss s{} s[] s[{}[]] s[i f b n] s{s{s[s s]}} ss ss}", "a", "x:{y},[z]\"q\\\"",
        "ü", "é\u2028\t\n", "empty", "none", "nest", "nums", -42, 1.5, 1, "deep", "k",
        "l", "m", "n", "tab\t", "ctl\x01", "last", "");
    json_t *cases[] = {job("pretty", 7), odd, json_object(), json_pack("[]"),
                       json_pack("[i[i{}]]", 1, 2)};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_non_null(cases[i]);
        char *compact = json_dumps(cases[i], JSON_COMPACT | JSON_ENCODE_ANY);
        char *want = json_dumps(cases[i], JSON_INDENT(2) | JSON_ENCODE_ANY);
        size_t n = 0;
        char *got = em_pretty_from_compact(compact, strlen(compact), &n);
        assert_int_equal(n, strlen(want) + 1);
        assert_memory_equal(got, want, n - 1);
        assert_int_equal(got[n - 1], '\n');
        free(compact);
        free(want);
        free(got);
        json_decref(cases[i]);
    }
}

/* Puts the Job PREFIX<i> (revision i + 1) with a 128 KiB annotation: large objects. */
enum { BIG = 128 << 10 };
static void put_big(struct em_store *s, const char *prefix, int i, char *name, size_t cap)
{
    static char note[BIG + 1];
    if (!note[0])
        memset(note, 'x', BIG);
    snprintf(name, cap, "%s%d", prefix, i);
    json_t *o = job(name, i + 1);
    json_object_set_new(json_object_get(o, "metadata"), "annotations",
                        json_pack("{ss}", "note", note));
    put(s, o);
}

/* The trees the simulation keeps (em_entry_keep) are bounded by their objects' bytes, not
 * by their count: large objects fill the bound with fewer trees. */
static void test_kept_trees_bounded_by_bytes(void **state)
{
    (void)state;
    char *dir = store_tmpdir("kept");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    enum { N = 24 }; /* 3 MB of objects: more than the bound */
    size_t kept = 0, refused = 0;
    for (int i = 0; i < N; i++) {
        char name[16];
        put_big(&s, "big", i, name, sizeof name);
        const struct em_entry *e = em_store_entry(&s, JOBS, "p", name);
        assert_non_null(em_store_get(&s, JOBS, "p", name)); /* its tree */
        if (em_entry_keep(e, true))
            kept++;
        else
            refused++;
        em_store_trim(&s);
    }
    struct em_entry_stats ts;
    em_entry_stats(&ts);
    assert_int_equal(ts.kept, kept);
    assert_true(ts.kept_bytes <= EM_ENTRY_KEPT_BYTES);
    assert_true(ts.kept_bytes + BIG > EM_ENTRY_KEPT_BYTES); /* full: no room for one more */
    assert_true(refused > 0 && kept > 0);
    /* the ones kept stay (found again without a build) */
    uint64_t b0 = built();
    assert_non_null(em_store_get(&s, JOBS, "p", "big0"));
    assert_int_equal(built(), b0);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "big%d", i);
        em_entry_keep(em_store_entry(&s, JOBS, "p", name), false);
    }
    em_entry_stats(&ts);
    assert_int_equal(ts.kept, 0);
    assert_int_equal(ts.kept_bytes, 0);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

/* A safe point keeps at most EM_ENTRY_HOT_BYTES of objects hot, not EM_ENTRY_HOT trees
 * whatever their size. */
static void test_hot_trees_bounded_by_bytes(void **state)
{
    (void)state;
    char *dir = store_tmpdir("hotb");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    enum { N = 40 }; /* 5 MB of objects: more than the bound */
    for (int i = 0; i < N; i++) {
        char name[16];
        put_big(&s, "h", i, name, sizeof name);
    }
    assert_int_equal(hot(), N);
    em_store_trim(&s);
    assert_true(hot() > 0 && hot() <= EM_ENTRY_HOT_BYTES / BIG);
    /* the newest stay hot */
    uint64_t b0 = built();
    assert_non_null(em_store_get(&s, JOBS, "p", "h39"));
    assert_int_equal(built(), b0);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

/* A write's record shares its repeated values with other writes' records (rec_share.h),
 * not with the tree it was made from, which would stay in pieces once dropped. */
static void test_write_records_shared(void **state)
{
    (void)state;
    char *dir = store_tmpdir("wrec");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    put(&s, job("a", 1));
    put(&s, job("b", 2));
    const struct em_entry *a = em_store_entry(&s, JOBS, "p", "a");
    const struct em_entry *b = em_store_entry(&s, JOBS, "p", "b");
    const json_t *ma = json_object_get(em_entry_rec(a), "metadata");
    const json_t *mb = json_object_get(em_entry_rec(b), "metadata");
    const json_t *ta = json_object_get(em_store_get(&s, JOBS, "p", "a"), "metadata");
    assert_ptr_equal(json_object_get(ma, "labels"), json_object_get(mb, "labels"));
    assert_ptr_equal(json_object_get(ma, "finalizers"), json_object_get(mb, "finalizers"));
    assert_ptr_not_equal(json_object_get(ma, "labels"), json_object_get(ta, "labels"));
    assert_ptr_not_equal(json_object_get(ma, "name"), json_object_get(ta, "name"));
    assert_true(json_equal(json_object_get(ma, "labels"), json_object_get(ta, "labels")));
    assert_string_equal(json_string_value(json_object_get(ma, "name")), "a");
    assert_string_equal(json_string_value(json_object_get(mb, "uid")), "u-1");
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

/* A tree borrowed from the store (em_store_get) stays valid until the next safe point
 * even when its object is written or removed meanwhile: the write retires the tree, it
 * does not drop it (entry.h). The project deletion reads the project's name from the tree
 * it replaces; with the write records shared (none of their values the tree's) nothing
 * else kept that name alive, and the deletion listed garbage once the history let go. */
static void test_borrowed_tree_outlives_its_write(void **state)
{
    (void)state;
    char *dir = store_tmpdir("retire");
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    assert_int_equal(em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err), 0);
    put(&s, job("a", 1));
    put(&s, job("b", 2));
    put(&s, job("c", 3));
    em_store_trim(&s);
    /* a reference of the test's own shows the store's: it holds the tree until the trim */
    json_t *ta = json_incref(em_store_get(&s, JOBS, "p", "a"));
    json_t *tb = json_incref(em_store_get(&s, JOBS, "p", "b"));
    size_t ra = ta->refcount, rb = tb->refcount;
    /* and one borrowed as the deletion borrows it: a pointer into the tree, no reference */
    const char *name = json_string_value(
        json_object_get(json_object_get(em_store_get(&s, JOBS, "p", "c"), "metadata"), "name"));
    put(&s, job("a", 4));
    put(&s, job("c", 5));
    struct nd_status st = ND_STATUS_INIT;
    json_t *gone = job("b", 6);
    assert_int_equal(em_store_delete(&s, JOBS, gone, 1000, NULL, &st), 0);
    json_decref(gone);
    nd_status_release(&st);
    assert_null(em_store_get(&s, JOBS, "p", "b"));
    assert_int_equal(ta->refcount, ra);
    assert_int_equal(tb->refcount, rb);
    assert_string_equal(name, "c");
    em_store_trim(&s);
    assert_int_equal(ta->refcount, ra - 1);
    assert_int_equal(tb->refcount, rb - 1);
    json_decref(ta);
    json_decref(tb);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pretty_from_compact_is_jansson_indent),
        cmocka_unit_test(test_record_fields),
        cmocka_unit_test(test_record_of_ended_job),
        cmocka_unit_test(test_hot_trees_bounded),
        cmocka_unit_test(test_kept_trees_bounded_by_bytes),
        cmocka_unit_test(test_hot_trees_bounded_by_bytes),
        cmocka_unit_test(test_write_records_shared),
        cmocka_unit_test(test_borrowed_tree_outlives_its_write),
        cmocka_unit_test(test_checkpoint_start_builds_no_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
