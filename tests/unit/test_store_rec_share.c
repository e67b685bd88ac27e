/* Unit tests of the loader's record keeper (emulator/store/rec_share.h): a kept record
 * reads as the record it was kept from (values, key order), its repeated parts are shared
 * with the records kept before it (the labels, the finalizers, a status alike), what is
 * unique to an object is not; and the records a start loads of objects alike take well
 * under the 2.5 KB each a whole copy took. */
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
#include "rec_arena.h"
#include "rec_share.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

#define JOBS nd_kind_by_plural(NULL, "jobs")
#define N 64

/* A Job as the emulator stores one (the bench's seeded Job). */
static json_t *job(const char *name, int64_t rv, const char *phase)
{
    char rvs[24], uid[48];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    snprintf(uid, sizeof uid, "b0000000-0000-4000-8000-%012lld", (long long)rv);
    return json_pack("{ss ss s{ss ss ss ss si ss s{ss ss} s[s]} s{ss s{s{ss si}} ss} s{ss}}",
                     "apiVersion", "nodus.dev/v1", "kind", "Job", "metadata", "name", name,
                     "namespace", "bench", "uid", uid, "resourceVersion", rvs, "generation", 1,
                     "creationTimestamp", "2026-12-06T12:51:35Z", "labels",
                     "nodus.dev/created-by", "emulator-user", "nodus.dev/launched-by", "api",
                     "finalizers", "nodus.dev/billing", "spec", "image",
                     "nodus/pytorch:2.8-cuda12.8", "resources", "gpu", "model", "H100", "count",
                     1, "state", "Running", "status", "phase", phase);
}

static const json_t *at(const json_t *rec, const char *a, const char *b)
{
    return json_object_get(json_object_get(rec, a), b);
}

static void same_text(const json_t *a, const json_t *b)
{
    char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

static void test_kept_reads_the_same_and_shares(void **state)
{
    (void)state;
    struct em_rec_share *sh = em_rec_share_new();
    json_t *o1 = job("a", 11, "Queued"), *o2 = job("b", 12, "Queued"), *o3 = job("c", 13, "Running");
    json_t *r1 = em_rec_of(JOBS, o1), *r2 = em_rec_of(JOBS, o2), *r3 = em_rec_of(JOBS, o3);
    json_t *k1 = em_rec_keep(sh, r1), *k2 = em_rec_keep(sh, r2), *k3 = em_rec_keep(sh, r3);
    /* the same values in the same order */
    assert_true(json_equal(k1, r1) && json_equal(k2, r2) && json_equal(k3, r3));
    same_text(k1, r1);
    same_text(k3, r3);
    /* what repeats is one value */
    assert_ptr_equal(at(k1, "metadata", "labels"), at(k2, "metadata", "labels"));
    assert_ptr_equal(at(k1, "metadata", "labels"), at(k3, "metadata", "labels"));
    assert_ptr_equal(at(k1, "metadata", "finalizers"), at(k3, "metadata", "finalizers"));
    assert_ptr_equal(at(k1, "metadata", "namespace"), at(k2, "metadata", "namespace"));
    assert_ptr_equal(json_object_get(k1, "status"), json_object_get(k2, "status"));
    assert_ptr_equal(json_object_get(k1, "spec"), json_object_get(k3, "spec"));
    /* what differs is not */
    assert_ptr_not_equal(json_object_get(k1, "status"), json_object_get(k3, "status"));
    assert_string_equal(json_string_value(at(k3, "status", "phase")), "Running");
    assert_string_equal(json_string_value(at(k1, "status", "phase")), "Queued");
    assert_ptr_not_equal(json_object_get(k1, "metadata"), json_object_get(k2, "metadata"));
    struct em_rec_share_stats st;
    em_rec_share_stats(sh, &st);
    assert_true(st.shared >= 10);
    /* a shared value outlives the keeper and the records but one */
    em_rec_share_free(sh);
    json_decref(k1);
    json_decref(k2);
    same_text(k3, r3);
    json_decref(k3);
    json_t *all[] = {o1, o2, o3, r1, r2, r3};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        json_decref(all[i]);
}

/* Equal by value, not by look: 1 and 1.0, "1" and 1, objects with their keys in another
 * order, are kept apart. */
static void test_only_equal_shared(void **state)
{
    (void)state;
    struct em_rec_share *sh = em_rec_share_new();
    json_t *a = json_pack("{s{ss} s{si si}}", "metadata", "name", "x", "spec", "a", 1, "b", 2);
    json_t *b = json_pack("{s{ss} s{si si}}", "metadata", "name", "x", "spec", "b", 2, "a", 1);
    json_t *c = json_pack("{s{ss} s{sf si}}", "metadata", "name", "x", "spec", "a", 1.0, "b", 2);
    json_t *d = json_pack("{s{ss} s{ss si}}", "metadata", "name", "x", "spec", "a", "1", "b", 2);
    json_t *in[] = {a, b, c, d}, *kept[4];
    for (int i = 0; i < 4; i++) {
        kept[i] = em_rec_keep(sh, in[i]);
        same_text(kept[i], in[i]);
    }
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++)
            assert_ptr_not_equal(json_object_get(kept[i], "spec"), json_object_get(kept[j], "spec"));
    }
    em_rec_share_free(sh);
    for (int i = 0; i < 4; i++) {
        json_decref(kept[i]);
        json_decref(in[i]);
    }
}

static void open_store(struct em_store *s, const char *dir)
{
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    int rc = em_store_open(s, dir, EM_FSYNC_NEVER, false, &report, &err);
    if (rc != 0)
        fail_msg("em_store_open: %s", err.data);
    assert_int_equal(report.len, 0);
    nd_buf_release(&err);
    nd_buf_release(&report);
}

/* The records a start loads of N Jobs alike, from the files and from the checkpoint:
 * under 1.5 KB of the records' arena each (a whole copy of each: 2.5 KB), and each reads
 * as the record of its object. */
static void test_loaded_records_small(void **state)
{
    (void)state;
    char *dir = store_tmpdir("recshare");
    static struct em_store s;
    open_store(&s, dir);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "job-%02d", i);
        struct nd_status st = ND_STATUS_INIT;
        json_t *o = job(name, em_store_next_revision(&s), "Queued");
        assert_int_equal(em_store_put(&s, JOBS, o, "ADDED", 1000, NULL, &st), 0);
        nd_status_release(&st);
        json_decref(o);
    }
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_store_close(&s);
    char *ck = nd_xasprintf("%s/history/checkpoint", dir);
    for (int from_files = 0; from_files < 2; from_files++) {
        if (from_files)
            unlink(ck);
        struct em_rec_arena_stats a, b;
        em_rec_arena_stats(&a);
        open_store(&s, dir);
        assert_int_equal(from_files ? s.loaded_files : s.loaded_checkpoint, N);
        em_rec_arena_stats(&b);
        uint64_t per = (b.bytes - a.bytes) / N;
        print_message("from %s: %llu bytes of the arena a record\n",
                      from_files ? "the files" : "the checkpoint", (unsigned long long)per);
        assert_true(per > 0);
        assert_true(per < 1536);
        for (int i = 0; i < N; i += 7) {
            char name[16];
            snprintf(name, sizeof name, "job-%02d", i);
            const struct em_entry *e = em_store_entry(&s, JOBS, "bench", name);
            assert_non_null(e);
            json_t *r = em_rec_of(JOBS, em_entry_obj(e));
            same_text(em_entry_rec(e), r);
            json_decref(r);
        }
        em_entry_trim();
        em_store_close(&s);
    }
    free(ck);
    em_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_reads_the_same_and_shares),
        cmocka_unit_test(test_only_equal_shared),
        cmocka_unit_test(test_loaded_records_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
