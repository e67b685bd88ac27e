/* Unit tests of what the start's loader threads make apart from the store's indexes and
 * the store then only links in (index.h's runs, owners.h's em_owners_take, checkpoint.h):
 * an index filled from runs holds what the same puts make (duplicates, an index not empty,
 * small chunks); the owner index filled from runs holds what em_owners_set makes; and a
 * store reopened from its files and from its checkpoint, with enough objects for both
 * loader threads, holds the same indexes as before it stopped, made on the loaders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "index.h"
#include "owners.h"
#include "store.h"
#include "store_tmpdir.h"
#define TEST_RNG_SEED 0x1dc5e7a9b3f04d21ULL
#include "test_rng.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define V(n) ((void *)(uintptr_t)(n))

/* Each test its own sequence. */
static void rng_seed(uint64_t seed)
{
    rng = TEST_RNG_SEED ^ (seed * 0x9e3779b97f4a7c15ULL);
}

static size_t rng_below(size_t n)
{
    return rnd((uint32_t)n);
}

/* Every key=value of ix in order, '|'-joined (NEW). */
static char *dump(const struct em_index *ix)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    for (struct em_index_iter it = em_index_first(ix); em_index_iter_valid(&it);
         em_index_iter_next(&it))
        nd_buf_addf(&b, "%s=%zu|", em_index_iter_key(&it),
                    (size_t)(uintptr_t)em_index_iter_value(&it));
    return nd_buf_detach(&b);
}

static int freed;

static void count_free(void *value)
{
    (void)value;
    freed++;
}

/* nruns runs of random keys (about one in eight a key of another run, some twice in one
 * run with the same value), put once by em_index_put (run by run, in order) and once by
 * em_index_put_runs, into an index holding `before` keys already, of chunks of at most
 * chunk_max: the same keys and values, the index sound, each replaced value freed. */
static void same_as_puts(uint64_t seed, size_t nruns, size_t per_run, size_t before,
                         size_t chunk_max)
{
    rng_seed(seed);
    struct em_index *a = em_index_new_chunked(chunk_max), *b = em_index_new_chunked(chunk_max);
    for (size_t i = 0; i < before; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%05u", (unsigned)rng_below(20000));
        em_index_put(a, key, V(1));
        em_index_put(b, key, V(1));
    }
    struct em_index_run runs[4] = {{0}};
    int replaced = 0;
    for (size_t r = 0; r < nruns; r++) {
        for (size_t i = 0; i < per_run; i++) {
            char key[32];
            unsigned k = (unsigned)rng_below(20000);
            if (rng_below(8) == 0)
                k = k % 64; /* a key the other runs (and before) may hold too */
            snprintf(key, sizeof key, "k%05u", k);
            /* the same key twice in a run has the same value: which stays is not said */
            void *v = V(100000 + r * 100000 + k);
            if (em_index_put(a, key, v))
                replaced++;
            em_index_run_add(&runs[r], key, v);
        }
        em_index_run_sort(&runs[r]);
    }
    freed = 0;
    em_index_put_runs(b, runs, nruns, count_free);
    char *da = dump(a), *db = dump(b);
    assert_string_equal(da, db);
    free(da);
    free(db);
    assert_int_equal(em_index_count(a), em_index_count(b));
    assert_int_equal(em_index_check(b), 0);
    assert_int_equal(freed, replaced);
    for (size_t r = 0; r < nruns; r++)
        assert_int_equal(runs[r].n, 0); /* left empty */
    em_index_free(a, NULL);
    em_index_free(b, NULL);
}

static void test_runs_into_empty(void **state)
{
    (void)state;
    same_as_puts(1, 2, 3000, 0, EM_INDEX_CHUNK_DEFAULT);
    same_as_puts(2, 1, 5000, 0, EM_INDEX_CHUNK_DEFAULT);
    same_as_puts(3, 4, 700, 0, 4);
    same_as_puts(4, 3, 0, 0, 8);
}

static void test_runs_into_full(void **state)
{
    (void)state;
    same_as_puts(5, 2, 3000, 4000, EM_INDEX_CHUNK_DEFAULT);
    same_as_puts(6, 2, 500, 300, 4);
}

/* A run made in order is left as it is; one out of order is sorted; an entry made apart
 * and put takes an absent key's place, or gives an existing key its value. */
static void test_sort_and_put_ent(void **state)
{
    (void)state;
    struct em_index_run r = {0};
    for (int i = 9; i >= 0; i--) {
        char key[16];
        snprintf(key, sizeof key, "r%d", i);
        em_index_run_add(&r, key, V(i));
    }
    em_index_run_sort(&r);
    for (size_t i = 0; i < r.n; i++)
        assert_ptr_equal(em_index_ent_value(r.e[i]), V(i));
    em_index_run_sort(&r); /* in order: nothing moves */
    assert_string_equal(em_index_ent_key(r.e[3]), "r3");
    em_index_run_free(&r, NULL);
    assert_int_equal(r.n, 0);
    /* stretches in order (merged: one, two, 3 to 7 interleaved, and more than the merge
     * takes, sorted): the same order as a sort */
    for (int shape = 0; shape < 6; shape++) {
        int n = 500, stretches = shape == 0 ? 2 : shape == 1 ? 3 : shape == 5 ? 200 : shape + 2;
        for (int i = 0; i < n; i++) {
            char key[16];
            int v = shape == 0 && i == n - 1 ? -1 /* one key of another order, last */
                                             : (i % stretches) * 1000 + i / stretches;
            snprintf(key, sizeof key, "k%06d", v + 1);
            em_index_run_add(&r, key, V(v + 1));
        }
        em_index_run_sort(&r);
        for (size_t i = 1; i < r.n; i++)
            assert_true(strcmp(em_index_ent_key(r.e[i - 1]), em_index_ent_key(r.e[i])) < 0);
        assert_int_equal(r.n, n);
        em_index_run_free(&r, NULL);
    }

    struct em_index *ix = em_index_new();
    assert_null(em_index_put_ent(ix, em_index_ent_new("b", V(1))));
    assert_null(em_index_put_ent(ix, em_index_ent_new("a", V(2)))); /* before the first */
    assert_ptr_equal(em_index_put_ent(ix, em_index_ent_new("b", V(3))), V(1));
    assert_int_equal(em_index_count(ix), 2);
    assert_ptr_equal(em_index_get(ix, "b"), V(3));
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);
}

/* ---- the owner index ---- */

#define NKINDS 2
static const char *const plurals[NKINDS] = {"jobs", "volumes"};

/* NEW object ns/name with uid (NULL: none) and n owner references of uids owners. */
static json_t *obj_of(const char *ns, const char *name, const char *uid, const char *const *owners,
                      size_t n)
{
    json_t *meta = json_pack("{ss ss ss}", "name", name, "namespace", ns, "resourceVersion", "1");
    if (uid)
        json_object_set_new(meta, "uid", json_string(uid));
    if (n) {
        json_t *refs = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(refs, json_pack("{ss ss ss}", "kind", "Volume", "name", "x",
                                                  "uid", owners[i]));
        json_object_set_new(meta, "ownerReferences", refs);
    }
    return json_pack("{ss ss so}", "apiVersion", "nodus.dev/v1", "kind", "Volume", "metadata", meta);
}

/* The i-th random object: a kind, a project, a name, a uid (none for one in ten), up to
 * nine owners among the first uids (one sometimes twice, one in ten named twice). */
struct robj {
    const struct nd_kind *k;
    char ns[16], name[16], uid[16];
    const char *owners[10];
    char ouids[10][16];
    size_t n;
    bool has_uid;
};

static void robj_make(struct robj *o, size_t i)
{
    o->k = nd_kind_by_plural(NULL, plurals[rng_below(NKINDS)]);
    snprintf(o->ns, sizeof o->ns, "p%u", (unsigned)rng_below(3));
    snprintf(o->name, sizeof o->name, "o-%05zu", i);
    o->has_uid = rng_below(10) != 0;
    snprintf(o->uid, sizeof o->uid, "u-%05u", (unsigned)rng_below(100000));
    o->n = rng_below(10);
    for (size_t j = 0; j < o->n; j++) {
        snprintf(o->ouids[j], sizeof o->ouids[j], "u-%05u", (unsigned)rng_below(50));
        o->owners[j] = o->ouids[j];
    }
    if (o->n > 1 && rng_below(10) == 0)
        o->owners[1] = o->owners[0];
}

/* The three maps' keys (the objects map's values are records at addresses of their own),
 * each map checked sound (NEW). */
static char *owners_keys(const struct em_owners *o)
{
    const struct em_index *maps[3] = {o->objects, o->uids, o->dependents};
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    for (int m = 0; m < 3; m++) {
        if (maps[m])
            assert_int_equal(em_index_check(maps[m]), 0);
        for (struct em_index_iter it = em_index_first(maps[m]); maps[m] && em_index_iter_valid(&it);
             em_index_iter_next(&it))
            nd_buf_addf(&b, "%s|", em_index_iter_key(&it));
        nd_buf_adds(&b, "#");
    }
    return nd_buf_detach(&b);
}

/* 3,000 random objects recorded one by one (em_owners_set), and spread over three runs
 * (the loader threads') sorted and taken: the same keys, and the same answers. */
static void test_owners_from_runs(void **state)
{
    (void)state;
    rng_seed(7);
    struct em_owners one = {0}, runs_taken = {0};
    struct em_owners_run runs[3] = {{{0}}};
    for (size_t i = 0; i < 3000; i++) {
        struct robj o;
        robj_make(&o, i);
        json_t *obj = obj_of(o.ns, o.name, o.has_uid ? o.uid : NULL, o.owners, o.n);
        em_owners_set(&one, o.k, o.ns, o.name, obj);
        em_owners_run_set(&runs[rng_below(3)], o.k, o.ns, o.name, obj);
        json_decref(obj);
    }
    for (int r = 0; r < 3; r++)
        em_owners_run_sort(&runs[r]);
    em_owners_take(&runs_taken, runs, 3);
    char *a = owners_keys(&one), *b = owners_keys(&runs_taken);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(em_owners_objects(&one), em_owners_objects(&runs_taken));
    assert_int_equal(em_owners_references(&one), em_owners_references(&runs_taken));
    /* a later change finds what the runs recorded (to drop it) */
    em_owners_set(&runs_taken, nd_kind_by_plural(NULL, "jobs"), "p0", "o-00000", NULL);
    em_owners_set(&one, nd_kind_by_plural(NULL, "jobs"), "p0", "o-00000", NULL);
    em_owners_set(&runs_taken, nd_kind_by_plural(NULL, "volumes"), "p0", "o-00000", NULL);
    em_owners_set(&one, nd_kind_by_plural(NULL, "volumes"), "p0", "o-00000", NULL);
    a = owners_keys(&one);
    b = owners_keys(&runs_taken);
    assert_string_equal(a, b);
    free(a);
    free(b);
    em_owners_clear(&one);
    em_owners_clear(&runs_taken);
    /* runs of nothing take nothing */
    struct em_owners none = {0};
    em_owners_take(&none, runs, 3);
    assert_null(none.objects);
    em_owners_take(&none, NULL, 0);
    assert_int_equal(em_owners_objects(&none), 0);
}

/* ---- as the store opens ---- */

static void open_store(struct em_store *s, const char *dir)
{
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    if (em_store_open(s, dir, EM_FSYNC_NEVER, false, &report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
    nd_buf_release(&report);
}

static int walk_line(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    const json_t *md = json_object_get(em_entry_rec(e), "metadata");
    nd_buf_addf(ctx, "%s/%s/%s@%s %zu|", k->plural,
                json_string_value(json_object_get(md, "namespace")),
                json_string_value(json_object_get(md, "name")),
                json_string_value(json_object_get(md, "resourceVersion")), e->json->len);
    return 0;
}

/* Every object, kind by kind and project by project, the owner index's keys, the revision (NEW). */
static char *store_dump(struct em_store *s)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "rev %lld|", (long long)s->revision);
    for (int k = 0; k < NKINDS; k++) { /* (the store's kinds are in the order it met them) */
        for (int p = 0; p < 3; p++) {
            char ns[16];
            snprintf(ns, sizeof ns, "p%d", p);
            em_store_walk(s, nd_kind_by_plural(NULL, plurals[k]), ns, walk_line, &b);
        }
    }
    for (size_t i = 0; i < s->nkinds; i++)
        assert_int_equal(em_index_check(s->kinds[i].ix), 0);
    char *keys = owners_keys(&s->owners);
    nd_buf_adds(&b, keys);
    free(keys);
    return nd_buf_detach(&b);
}

/* 1,500 objects (both loader threads load some) of two kinds in three projects with
 * owner references: reopened from the checkpoint of a clean stop, then from the files,
 * the store holds the same objects, indexes and owner index as before, each object's
 * made on the loader threads. */
static void test_store_reopened_same(void **state)
{
    (void)state;
    enum { N = 1500 };
    char *dir = store_tmpdir("ixruns");
    struct em_store s;
    open_store(&s, dir);
    rng_seed(11);
    for (size_t i = 0; i < N; i++) {
        struct robj o;
        robj_make(&o, i);
        json_t *obj = obj_of(o.ns, o.name, o.has_uid ? o.uid : NULL, o.owners, o.n);
        char rv[24];
        snprintf(rv, sizeof rv, "%lld", (long long)em_store_next_revision(&s));
        json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv));
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(em_store_put(&s, o.k, obj, "ADDED", 1000, NULL, &st), 0);
        nd_status_release(&st);
        json_decref(obj);
    }
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    char *before = store_dump(&s);
    em_store_close(&s);
    char *checkpoint = nd_xasprintf("%s/history/checkpoint", dir);
    for (int from_files = 0; from_files < 2; from_files++) {
        if (from_files)
            unlink(checkpoint);
        open_store(&s, dir);
        assert_int_equal(s.loaded_files + s.loaded_checkpoint, N);
        assert_int_equal(s.indexed_on_loaders, N);
        char *after = store_dump(&s);
        assert_string_equal(before, after);
        free(after);
        em_store_close(&s);
    }
    free(checkpoint);
    free(before);
    em_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_into_empty),
        cmocka_unit_test(test_runs_into_full),
        cmocka_unit_test(test_sort_and_put_ent),
        cmocka_unit_test(test_owners_from_runs),
        cmocka_unit_test(test_store_reopened_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
