/* Unit tests of emulator/store/index.h, the ordered index: each operation, the chunk
 * boundaries, a project's key range, and a randomised model test against a sorted array
 * that is itself shown to catch broken comparators and off-by-ones.
 *
 * INDEX_BENCH=1 build/tests/unit/test_store_index also prints ns per operation and bytes
 * per entry at 100k keys (figures, not assertions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define V(n) ((void *)(uintptr_t)(n))

/* ---- a mutant build of index.c -------------------------------------------------------
 * index.c compiled a second time under mut_ names, its strcmp replaced by a comparator
 * that can be broken on purpose. With mut_mode 0 it is the real thing (and passes the
 * model test); with 1 or 2 the model test must fail, else it proves nothing. */
static int mut_mode; /* 0 strcmp; 1 bytes compared as signed char; 2 a prefix is equal */

static int mut_strcmp(const char *a, const char *b)
{
    if (mut_mode == 1) {
        while (*a && *a == *b) {
            a++;
            b++;
        }
        return (signed char)*a - (signed char)*b;
    }
    if (mut_mode == 2) {
        size_t la = strlen(a), lb = strlen(b);
        return memcmp(a, b, la < lb ? la : lb);
    }
    return strcmp(a, b);
}

#define strcmp               mut_strcmp
#define em_index_new         mut_index_new
#define em_index_new_chunked mut_index_new_chunked
#define em_index_clear       mut_index_clear
#define em_index_free        mut_index_free
#define em_index_put         mut_index_put
#define em_index_get         mut_index_get
#define em_index_has         mut_index_has
#define em_index_del         mut_index_del
#define em_index_count       mut_index_count
#define em_index_rank        mut_index_rank
#define em_index_foreach     mut_index_foreach
#define em_index_first       mut_index_first
#define em_index_seek        mut_index_seek
#define em_index_seek_after  mut_index_seek_after
#define em_index_at          mut_index_at
#define em_index_iter_valid  mut_index_iter_valid
#define em_index_iter_next   mut_index_iter_next
#define em_index_iter_key    mut_index_iter_key
#define em_index_iter_value  mut_index_iter_value
#define em_index_iter_set    mut_index_iter_set
#define em_index_iter_rank   mut_index_iter_rank
#define em_index_bytes       mut_index_bytes
#define em_index_chunks      mut_index_chunks
#define em_index_check       mut_index_check
#define em_index_ent_new     mut_index_ent_new
#define em_index_ent_key     mut_index_ent_key
#define em_index_ent_value   mut_index_ent_value
#define em_index_ent_free    mut_index_ent_free
#define em_index_put_ent     mut_index_put_ent
#define em_index_run_add     mut_index_run_add
#define em_index_run_sort    mut_index_run_sort
#define em_index_put_runs    mut_index_put_runs
#define em_index_run_free    mut_index_run_free
/* index.c's prototypes are index.h's em_ ones (included above, so not again): its mut_
 * functions have none, and each is defined before its first use. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "index.c"
#pragma GCC diagnostic pop
#undef strcmp
#undef em_index_new
#undef em_index_new_chunked
#undef em_index_clear
#undef em_index_free
#undef em_index_put
#undef em_index_get
#undef em_index_has
#undef em_index_del
#undef em_index_count
#undef em_index_rank
#undef em_index_foreach
#undef em_index_first
#undef em_index_seek
#undef em_index_seek_after
#undef em_index_at
#undef em_index_iter_valid
#undef em_index_iter_next
#undef em_index_iter_key
#undef em_index_iter_value
#undef em_index_iter_set
#undef em_index_iter_rank
#undef em_index_bytes
#undef em_index_chunks
#undef em_index_check
#undef em_index_ent_new
#undef em_index_ent_key
#undef em_index_ent_value
#undef em_index_ent_free
#undef em_index_put_ent
#undef em_index_run_add
#undef em_index_run_sort
#undef em_index_put_runs
#undef em_index_run_free

/* ---- helpers ---------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: the same sequence on every machine */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static size_t rnd_below(size_t n)
{
    return (size_t)(rnd() % n);
}

/* Every key of ix in order, joined by '|', into out. */
static void keys_of(const struct em_index *ix, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (struct em_index_iter it = em_index_first(ix); em_index_iter_valid(&it);
         em_index_iter_next(&it)) {
        int n = snprintf(out + used, len - used, "%s%s", em_index_iter_rank(&it) ? "|" : "",
                         em_index_iter_key(&it));
        assert_true(n >= 0 && (size_t)n < len - used);
        used += (size_t)n;
    }
}

static void put_all(struct em_index *ix, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_null(em_index_put(ix, keys[i], V(i + 1)));
}

/* ---- operations ------------------------------------------------------------------------- */

static int count_calls(const char *key, void *value, void *arg)
{
    (void)key;
    (void)value;
    (*(int *)arg)++;
    return 0;
}

static void test_empty(void **state)
{
    (void)state;
    struct em_index *ix = em_index_new();
    assert_int_equal(em_index_count(ix), 0);
    assert_int_equal(em_index_chunks(ix), 0);
    assert_null(em_index_get(ix, "a"));
    assert_false(em_index_has(ix, "a"));
    assert_false(em_index_has(ix, ""));
    assert_null(em_index_del(ix, "a"));
    assert_int_equal(em_index_rank(ix, "a"), 0);
    assert_int_equal(em_index_rank(ix, ""), 0);
    struct em_index_iter its[] = {em_index_first(ix),     em_index_seek(ix, ""),
                                  em_index_seek(ix, "a"), em_index_seek_after(ix, "a"),
                                  em_index_at(ix, 0),     em_index_at(ix, 7)};
    for (size_t i = 0; i < N(its); i++) {
        assert_false(em_index_iter_valid(&its[i]));
        assert_null(em_index_iter_key(&its[i]));
        assert_null(em_index_iter_value(&its[i]));
        assert_null(em_index_iter_set(&its[i], V(1)));
        assert_int_equal(em_index_iter_rank(&its[i]), 0);
        em_index_iter_next(&its[i]);
        assert_false(em_index_iter_valid(&its[i]));
    }
    struct em_index_iter zero = {0};
    assert_false(em_index_iter_valid(&zero));
    assert_null(em_index_iter_key(&zero));
    assert_int_equal(em_index_iter_rank(&zero), 0);
    int calls = 0;
    assert_int_equal(em_index_foreach(ix, count_calls, &calls), 0);
    assert_int_equal(calls, 0);
    assert_int_equal(em_index_check(ix), 0);
    em_index_clear(ix, free);
    assert_int_equal(em_index_count(ix), 0);
    em_index_free(ix, NULL);
    em_index_free(NULL, free);
}

static void test_one_key(void **state)
{
    (void)state;
    struct em_index *ix = em_index_new();
    assert_null(em_index_put(ix, "m", V(1)));
    assert_int_equal(em_index_count(ix), 1);
    assert_int_equal(em_index_chunks(ix), 1);
    assert_ptr_equal(em_index_get(ix, "m"), V(1));
    assert_null(em_index_get(ix, "a"));
    assert_null(em_index_get(ix, "z"));
    assert_null(em_index_get(ix, "mm"));
    assert_null(em_index_get(ix, ""));
    assert_true(em_index_has(ix, "m"));
    assert_int_equal(em_index_rank(ix, "a"), 0);
    assert_int_equal(em_index_rank(ix, "m"), 0);
    assert_int_equal(em_index_rank(ix, "m\x01"), 1);
    assert_int_equal(em_index_rank(ix, "z"), 1);

    struct em_index_iter it = em_index_seek(ix, "a");
    assert_string_equal(em_index_iter_key(&it), "m");
    assert_ptr_equal(em_index_iter_value(&it), V(1));
    assert_int_equal(em_index_iter_rank(&it), 0);
    em_index_iter_next(&it);
    assert_false(em_index_iter_valid(&it));
    assert_int_equal(em_index_iter_rank(&it), 1);
    it = em_index_seek(ix, "m");
    assert_string_equal(em_index_iter_key(&it), "m");
    it = em_index_seek(ix, "n");
    assert_false(em_index_iter_valid(&it));
    it = em_index_seek_after(ix, "m");
    assert_false(em_index_iter_valid(&it));
    it = em_index_seek_after(ix, "l");
    assert_string_equal(em_index_iter_key(&it), "m");
    it = em_index_at(ix, 0);
    assert_string_equal(em_index_iter_key(&it), "m");
    it = em_index_at(ix, 1);
    assert_false(em_index_iter_valid(&it));

    /* replace: the old value comes back, nothing moves */
    it = em_index_first(ix);
    assert_ptr_equal(em_index_put(ix, "m", V(2)), V(1));
    assert_int_equal(em_index_count(ix), 1);
    assert_true(em_index_iter_valid(&it));
    assert_ptr_equal(em_index_iter_value(&it), V(2));
    assert_ptr_equal(em_index_iter_set(&it, V(3)), V(2));
    assert_ptr_equal(em_index_get(ix, "m"), V(3));

    assert_null(em_index_del(ix, "n"));
    assert_true(em_index_iter_valid(&it)); /* a del of an absent key changes nothing */
    assert_ptr_equal(em_index_del(ix, "m"), V(3));
    assert_false(em_index_iter_valid(&it));
    assert_null(em_index_iter_key(&it));
    assert_int_equal(em_index_count(ix), 0);
    assert_int_equal(em_index_chunks(ix), 0);
    assert_null(em_index_del(ix, "m"));
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);
}

static void test_null_values_and_copied_keys(void **state)
{
    (void)state;
    struct em_index *ix = em_index_new();
    char buf[16] = "key";
    assert_null(em_index_put(ix, buf, NULL));
    memcpy(buf, "xyz", 4); /* the index holds its own copy */
    assert_true(em_index_has(ix, "key"));
    assert_false(em_index_has(ix, "xyz"));
    assert_null(em_index_get(ix, "key"));
    assert_int_equal(em_index_count(ix), 1);
    struct em_index_iter it = em_index_first(ix);
    assert_true(em_index_iter_valid(&it));
    assert_string_equal(em_index_iter_key(&it), "key");
    assert_ptr_not_equal(em_index_iter_key(&it), buf);
    assert_null(em_index_iter_value(&it));
    assert_null(em_index_put(ix, "key", V(5))); /* replaced NULL: answers NULL */
    assert_int_equal(em_index_count(ix), 1);
    assert_true(em_index_iter_valid(&it));
    assert_ptr_equal(em_index_del(ix, "key"), V(5));
    assert_false(em_index_has(ix, "key"));
    em_index_free(ix, NULL);
}

/* Keys that are prefixes of each other, the empty key, bytes from 0x01 to 0xff. */
static void test_prefixes_and_bytes(void **state)
{
    (void)state;
    static const char *const keys[] = {
        "ab",   "",          "abc",  "a",      "ab\x01",  "ab\x01z", "b",
        "\xff", "a\xc3\xa9", "\x01", "ab\x02", "abc\x01", "aa",
    };
    static const char *const sorted = "|\x01|a|aa|ab|ab\x01|ab\x01z|ab\x02|abc|abc\x01|"
                                      "a\xc3\xa9|b|\xff";
    for (size_t chunk = 4; chunk <= 16; chunk += 12) {
        struct em_index *ix = em_index_new_chunked(chunk);
        put_all(ix, keys, N(keys));
        char out[256];
        keys_of(ix, out, sizeof(out));
        assert_string_equal(out, sorted);
        assert_int_equal(em_index_check(ix), 0);
        for (size_t i = 0; i < N(keys); i++)
            assert_ptr_equal(em_index_get(ix, keys[i]), V(i + 1));
        assert_int_equal(em_index_rank(ix, ""), 0);
        assert_int_equal(em_index_rank(ix, "\x01"), 1);
        assert_int_equal(em_index_rank(ix, "ab"), 4);
        assert_int_equal(em_index_rank(ix, "ab\x01"), 5);
        assert_int_equal(em_index_rank(ix, "abb"), 8);
        assert_int_equal(em_index_rank(ix, "\xff"), 12);
        assert_int_equal(em_index_rank(ix, "\xff\xff"), 13);
        assert_null(em_index_get(ix, "abcd"));
        assert_null(em_index_get(ix, "ab\x03"));
        struct em_index_iter it = em_index_seek(ix, "ab\x01");
        assert_string_equal(em_index_iter_key(&it), "ab\x01");
        it = em_index_seek_after(ix, "ab\x01");
        assert_string_equal(em_index_iter_key(&it), "ab\x01z");
        it = em_index_seek_after(ix, "");
        assert_string_equal(em_index_iter_key(&it), "\x01");
        it = em_index_seek(ix, "abb");
        assert_string_equal(em_index_iter_key(&it), "abc");
        assert_ptr_equal(em_index_del(ix, ""), V(2));
        assert_ptr_equal(em_index_del(ix, "ab"), V(1));
        keys_of(ix, out, sizeof(out));
        assert_string_equal(out, "\x01|a|aa|ab\x01|ab\x01z|ab\x02|abc|abc\x01|a\xc3\xa9|b|\xff");
        em_index_free(ix, NULL);
    }
}

/* The store's keys: project "\x01" name; a project's objects are [p "\x01", p "\x02"). */
static void test_project_ranges(void **state)
{
    (void)state;
    static const char *const projects[] = {"dev", "dev-x", "dev2", "de", "prod", "d"};
    struct em_index *ix = em_index_new_chunked(8);
    char key[64];
    for (int i = 0; i < 40; i++)
        for (size_t p = 0; p < N(projects); p++) {
            snprintf(key, sizeof(key), "%s\x01n%d", projects[p], (i * 7) % 40);
            assert_null(em_index_put(ix, key, V(p + 1)));
        }
    assert_int_equal(em_index_count(ix), 40 * N(projects));
    for (size_t p = 0; p < N(projects); p++) {
        char lo[32], hi[32];
        snprintf(lo, sizeof(lo), "%s\x01", projects[p]);
        snprintf(hi, sizeof(hi), "%s\x02", projects[p]);
        assert_int_equal(em_index_rank(ix, hi) - em_index_rank(ix, lo), 40);
        size_t seen = 0;
        char prev[64] = "";
        struct em_index_iter it = em_index_seek(ix, lo);
        assert_int_equal(em_index_iter_rank(&it), em_index_rank(ix, lo));
        for (; em_index_iter_valid(&it) && strcmp(em_index_iter_key(&it), hi) < 0;
             em_index_iter_next(&it)) {
            assert_ptr_equal(em_index_iter_value(&it), V(p + 1));
            assert_true(strcmp(prev, em_index_iter_key(&it)) < 0);
            snprintf(prev, sizeof(prev), "%s", em_index_iter_key(&it));
            seen++;
        }
        assert_int_equal(seen, 40);
        /* a page of 10 then a continue after the page's last key */
        it = em_index_seek(ix, lo);
        for (int i = 0; i < 9; i++)
            em_index_iter_next(&it);
        snprintf(prev, sizeof(prev), "%s", em_index_iter_key(&it));
        it = em_index_seek_after(ix, prev);
        assert_int_equal(em_index_iter_rank(&it), em_index_rank(ix, lo) + 10);
        /* remaining after the page: everything in the project from it on */
        assert_int_equal(em_index_rank(ix, hi) - em_index_iter_rank(&it), 30);
    }
    /* an absent project is an empty range */
    assert_int_equal(em_index_rank(ix, "dev1\x02") - em_index_rank(ix, "dev1\x01"), 0);
    struct em_index_iter it = em_index_seek(ix, "dev1\x01");
    assert_string_equal(em_index_iter_key(&it), "dev2\x01n0");
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);
}

static void key_of(char *buf, size_t len, size_t i)
{
    snprintf(buf, len, "k%06zu", i);
}

/* Splits happen exactly when a chunk is full; sorted loads leave full chunks. */
static void test_split_at_chunk_size(void **state)
{
    (void)state;
    const size_t sizes[] = {8, EM_INDEX_CHUNK_DEFAULT};
    char key[32];
    for (size_t s = 0; s < N(sizes); s++) {
        size_t max = sizes[s];
        /* ascending: 3 * max keys fill 3 chunks, one more opens a 4th */
        struct em_index *ix = s ? em_index_new() : em_index_new_chunked(max);
        for (size_t i = 0; i < 3 * max; i++) {
            key_of(key, sizeof(key), 2 * i + 10);
            em_index_put(ix, key, V(i));
            assert_int_equal(em_index_chunks(ix), i / max + 1);
        }
        key_of(key, sizeof(key), 2 * 3 * max + 10);
        em_index_put(ix, key, V(0));
        assert_int_equal(em_index_chunks(ix), 4);
        for (size_t i = 0; i < 3; i++) /* each full chunk starts at a multiple of max */
            assert_int_equal(em_index_at(ix, i * max).chunk, i);
        assert_int_equal(em_index_at(ix, 3 * max).chunk, 3);
        /* a key inside a full chunk splits it in two halves */
        key_of(key, sizeof(key), 11);
        em_index_put(ix, key, V(0));
        assert_int_equal(em_index_chunks(ix), 5);
        assert_int_equal(em_index_at(ix, max / 2).chunk, 0);
        assert_int_equal(em_index_at(ix, max / 2 + 1).chunk, 1);
        assert_int_equal(em_index_check(ix), 0);
        em_index_free(ix, NULL);

        /* descending: the same, from the front */
        ix = em_index_new_chunked(max);
        for (size_t i = 2 * max; i-- > 0;) {
            key_of(key, sizeof(key), i + 10);
            em_index_put(ix, key, V(i));
        }
        assert_int_equal(em_index_chunks(ix), 2);
        assert_int_equal(em_index_at(ix, max - 1).chunk, 0);
        assert_int_equal(em_index_at(ix, max).chunk, 1);
        /* a chunk of exactly max does not split; max + 1 in the middle does */
        em_index_free(ix, NULL);
        ix = em_index_new_chunked(max);
        for (size_t i = 0; i < max; i++) {
            key_of(key, sizeof(key), (i * 7919) % max * 2 + 10);
            em_index_put(ix, key, V(i));
        }
        assert_int_equal(em_index_count(ix), max);
        assert_int_equal(em_index_chunks(ix), 1);
        key_of(key, sizeof(key), 11);
        em_index_put(ix, key, V(0));
        assert_int_equal(em_index_chunks(ix), 2);
        assert_int_equal(em_index_check(ix), 0);
        em_index_free(ix, NULL);
    }
    /* chunk sizes are clamped */
    struct em_index *ix = em_index_new_chunked(0);
    for (size_t i = 0; i < EM_INDEX_CHUNK_MIN + 1; i++) {
        key_of(key, sizeof(key), i);
        em_index_put(ix, key, V(i));
    }
    assert_int_equal(em_index_chunks(ix), 2);
    em_index_free(ix, NULL);
    ix = em_index_new_chunked(SIZE_MAX);
    for (size_t i = 0; i < EM_INDEX_CHUNK_LIMIT + 1; i++) {
        key_of(key, sizeof(key), i);
        em_index_put(ix, key, V(i));
    }
    assert_int_equal(em_index_chunks(ix), 2);
    assert_int_equal(em_index_at(ix, EM_INDEX_CHUNK_LIMIT).chunk, 1);
    em_index_free(ix, NULL);
}

/* A chunk below max / 4 merges with its smaller neighbour, or shares when both do not
 * fit in one; an emptied chunk goes. */
static void test_merge_at_quarter(void **state)
{
    (void)state;
    char key[32];
    struct em_index *ix = em_index_new_chunked(16);
    for (size_t i = 0; i < 16; i++) { /* k10 k12 ... k40: one full chunk */
        key_of(key, sizeof(key), 2 * i + 10);
        em_index_put(ix, key, V(i + 1));
    }
    key_of(key, sizeof(key), 11); /* split: k10 k11 k12..k24 (9) | k26..k40 (8) */
    em_index_put(ix, key, V(99));
    assert_int_equal(em_index_chunks(ix), 2);
    assert_int_equal(em_index_at(ix, 8).chunk, 0);
    assert_int_equal(em_index_at(ix, 9).chunk, 1);
    /* left down to 4 (= 16 / 4): still two chunks; to 3: merged (3 + 8 <= 16) */
    static const size_t gone[] = {10, 11, 12, 14, 16};
    for (size_t i = 0; i < N(gone); i++) {
        key_of(key, sizeof(key), gone[i]);
        assert_non_null(em_index_del(ix, key));
        assert_int_equal(em_index_chunks(ix), 2);
    }
    assert_int_equal(em_index_at(ix, 3).chunk, 0);
    assert_int_equal(em_index_at(ix, 4).chunk, 1);
    key_of(key, sizeof(key), 18);
    assert_non_null(em_index_del(ix, key));
    assert_int_equal(em_index_chunks(ix), 1);
    assert_int_equal(em_index_count(ix), 11);
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);

    /* sharing: left 16 full, right 4 -> delete one from the right: 16 + 3 > 16, so
     * they share evenly (9 | 10) */
    ix = em_index_new_chunked(16);
    for (size_t i = 0; i < 20; i++) { /* ascending: 16 | 4 */
        key_of(key, sizeof(key), 2 * i + 10);
        em_index_put(ix, key, V(i + 1));
    }
    assert_int_equal(em_index_chunks(ix), 2);
    assert_int_equal(em_index_at(ix, 16).chunk, 1);
    key_of(key, sizeof(key), 2 * 19 + 10);
    assert_ptr_equal(em_index_del(ix, key), V(20));
    assert_int_equal(em_index_chunks(ix), 2);
    assert_int_equal(em_index_at(ix, 8).chunk, 0);
    assert_int_equal(em_index_at(ix, 9).chunk, 1);
    assert_int_equal(em_index_rank(ix, "k000028"), 9);
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);

    /* a middle chunk merges with its smaller neighbour: chunks 16 | 16 | 4 after an
     * ascending load; splitting the first makes 9 | 8 | 16 | 4 */
    ix = em_index_new_chunked(16);
    for (size_t i = 0; i < 36; i++) {
        key_of(key, sizeof(key), 2 * i + 10);
        em_index_put(ix, key, V(i + 1));
    }
    key_of(key, sizeof(key), 11);
    em_index_put(ix, key, V(99));
    assert_int_equal(em_index_chunks(ix), 4);
    /* chunk 1 (k26..k40) down to 3: its neighbours hold 9 and 16, so it joins the 9 */
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(em_index_chunks(ix), 4);
        key_of(key, sizeof(key), 26 + 2 * i);
        assert_non_null(em_index_del(ix, key));
    }
    assert_int_equal(em_index_chunks(ix), 3);
    assert_int_equal(em_index_at(ix, 11).chunk, 0);
    assert_int_equal(em_index_at(ix, 12).chunk, 1);
    assert_int_equal(em_index_at(ix, 27).chunk, 1);
    assert_int_equal(em_index_at(ix, 28).chunk, 2);
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);

    /* a chunk of one (opened by an append) that loses its key goes */
    ix = em_index_new_chunked(EM_INDEX_CHUNK_DEFAULT);
    for (size_t i = 0; i <= EM_INDEX_CHUNK_DEFAULT; i++) {
        key_of(key, sizeof(key), i);
        em_index_put(ix, key, V(i + 1));
    }
    assert_int_equal(em_index_chunks(ix), 2);
    key_of(key, sizeof(key), EM_INDEX_CHUNK_DEFAULT);
    assert_ptr_equal(em_index_del(ix, key), V(EM_INDEX_CHUNK_DEFAULT + 1));
    assert_int_equal(em_index_chunks(ix), 1);
    assert_int_equal(em_index_check(ix), 0);
    em_index_free(ix, NULL);
}

static void test_delete_everything(void **state)
{
    (void)state;
    const size_t n = 5000;
    char key[32];
    size_t *order = nd_xmalloc(n * sizeof(*order));
    for (size_t chunk = 4; chunk <= 512; chunk *= 8) {
        struct em_index *ix = em_index_new_chunked(chunk);
        size_t empty_bytes = em_index_bytes(ix);
        for (int round = 0; round < 2; round++) {
            rng_state = 42 + (uint64_t)round;
            for (size_t i = 0; i < n; i++)
                order[i] = i;
            for (size_t i = n; i > 1; i--) {
                size_t j = rnd_below(i), t = order[i - 1];
                order[i - 1] = order[j];
                order[j] = t;
            }
            for (size_t i = 0; i < n; i++) {
                key_of(key, sizeof(key), order[i]);
                assert_null(em_index_put(ix, key, V(order[i] + 1)));
            }
            assert_int_equal(em_index_count(ix), n);
            assert_true(em_index_bytes(ix) > empty_bytes + n * (8 + 8 + 8));
            assert_int_equal(em_index_check(ix), 0);
            for (size_t i = n; i-- > 0;) { /* another order */
                key_of(key, sizeof(key), order[(i * 7) % n]);
                assert_ptr_equal(em_index_del(ix, key), V(order[(i * 7) % n] + 1));
                if (i % 97 == 0)
                    assert_int_equal(em_index_check(ix), 0);
            }
            assert_int_equal(em_index_count(ix), 0);
            assert_int_equal(em_index_chunks(ix), 0);
            assert_false(em_index_iter_valid(&(struct em_index_iter){0}));
            struct em_index_iter it = em_index_first(ix);
            assert_false(em_index_iter_valid(&it));
            assert_int_equal(em_index_check(ix), 0);
        }
        em_index_free(ix, NULL);
    }
    free(order);
}

/* Iterators: a full walk, ranks, positions by rank, and when they go stale. */
static void test_iterators(void **state)
{
    (void)state;
    const size_t n = 1000;
    char key[32];
    struct em_index *ix = em_index_new_chunked(16);
    for (size_t i = 0; i < n; i++) {
        key_of(key, sizeof(key), (i * 379) % n * 2); /* even numbers, scattered */
        em_index_put(ix, key, V((i * 379) % n + 1));
    }
    size_t i = 0;
    for (struct em_index_iter it = em_index_first(ix); em_index_iter_valid(&it);
         em_index_iter_next(&it), i++) {
        key_of(key, sizeof(key), 2 * i);
        assert_string_equal(em_index_iter_key(&it), key);
        assert_ptr_equal(em_index_iter_value(&it), V(i + 1));
        assert_int_equal(em_index_iter_rank(&it), i);
        struct em_index_iter at = em_index_at(ix, i);
        assert_string_equal(em_index_iter_key(&at), key);
        assert_int_equal(em_index_rank(ix, key), i);
        key_of(key, sizeof(key), 2 * i + 1); /* odd: absent, between i and i + 1 */
        assert_int_equal(em_index_rank(ix, key), i + 1);
        struct em_index_iter s = em_index_seek(ix, key);
        assert_int_equal(em_index_iter_rank(&s), i + 1);
        assert_ptr_equal(em_index_iter_value(&s), i + 1 < n ? V(i + 2) : NULL);
    }
    assert_int_equal(i, n);

    /* staleness: adding or removing a key invalidates, replacing a value does not */
    struct em_index_iter it = em_index_seek(ix, "k000500");
    const char *kept = em_index_iter_key(&it);
    assert_ptr_equal(em_index_put(ix, "k000500", V(7)), V(251));
    assert_true(em_index_iter_valid(&it));
    assert_ptr_equal(em_index_iter_set(&it, V(8)), V(7));
    assert_ptr_equal(em_index_get(ix, "k000500"), V(8));
    assert_true(em_index_iter_valid(&it));
    assert_null(em_index_del(ix, "k000501"));
    assert_true(em_index_iter_valid(&it));
    assert_null(em_index_put(ix, "k000501", V(9)));
    assert_false(em_index_iter_valid(&it));
    assert_null(em_index_iter_key(&it));
    assert_null(em_index_iter_value(&it));
    assert_null(em_index_iter_set(&it, V(1)));
    assert_int_equal(em_index_iter_rank(&it), n + 1);
    em_index_iter_next(&it);
    assert_false(em_index_iter_valid(&it));
    /* the key's bytes stay where they were, whatever moved */
    for (size_t k = 0; k < 300; k++) {
        key_of(key, sizeof(key), 3001 + 2 * k);
        em_index_put(ix, key, V(1));
    }
    assert_string_equal(kept, "k000500");
    it = em_index_seek(ix, "k000500");
    assert_ptr_equal(em_index_iter_key(&it), kept);
    /* resume after a change: seek after the last key seen */
    it = em_index_seek_after(ix, kept);
    assert_string_equal(em_index_iter_key(&it), "k000501");
    assert_ptr_equal(em_index_del(ix, "k000501"), V(9));
    assert_false(em_index_iter_valid(&it));
    it = em_index_first(ix);
    em_index_clear(ix, NULL);
    assert_false(em_index_iter_valid(&it));
    assert_int_equal(em_index_count(ix), 0);
    it = em_index_first(ix);
    assert_false(em_index_iter_valid(&it));
    assert_null(em_index_put(ix, "again", V(1))); /* usable after clear */
    assert_int_equal(em_index_count(ix), 1);
    em_index_free(ix, NULL);
}

struct walk {
    char keys[256];
    int calls, stop_at;
};

static int walk_fn(const char *key, void *value, void *arg)
{
    struct walk *w = arg;
    size_t used = strlen(w->keys);
    snprintf(w->keys + used, sizeof(w->keys) - used, "%s=%d,", key, (int)(uintptr_t)value);
    return ++w->calls == w->stop_at ? 42 : 0;
}

static int freed;
static char freed_order[64];

static void count_free(void *value)
{
    size_t used = strlen(freed_order);
    snprintf(freed_order + used, sizeof(freed_order) - used, "%s", (char *)value);
    free(value);
    freed++;
}

static void test_foreach_clear_free(void **state)
{
    (void)state;
    struct em_index *ix = em_index_new_chunked(4);
    static const char *const keys[] = {"c", "a", "e", "b", "d", "f"};
    put_all(ix, keys, N(keys));
    struct walk w = {.stop_at = 0};
    assert_int_equal(em_index_foreach(ix, walk_fn, &w), 0);
    assert_string_equal(w.keys, "a=2,b=4,c=1,d=5,e=3,f=6,");
    w = (struct walk){.stop_at = 3};
    assert_int_equal(em_index_foreach(ix, walk_fn, &w), 42);
    assert_string_equal(w.keys, "a=2,b=4,c=1,");
    em_index_free(ix, NULL);

    /* values are freed through the callback, in key order, exactly once */
    ix = em_index_new_chunked(4);
    for (size_t i = 0; i < N(keys); i++)
        em_index_put(ix, keys[i], nd_xstrdup(keys[i]));
    freed = 0;
    freed_order[0] = '\0';
    em_index_clear(ix, count_free);
    assert_int_equal(freed, 6);
    assert_string_equal(freed_order, "abcdef");
    for (size_t i = 0; i < N(keys); i++)
        em_index_put(ix, keys[i], nd_xstrdup(keys[i]));
    free(em_index_put(ix, "a", nd_xstrdup("A"))); /* the replaced value is the caller's */
    free(em_index_del(ix, "f"));
    freed = 0;
    freed_order[0] = '\0';
    em_index_free(ix, count_free);
    assert_int_equal(freed, 5);
    assert_string_equal(freed_order, "Abcde");
}

/* ---- the randomised model test ------------------------------------------------------------
 * Mixed operations against a sorted array of (key, value). model_run answers -1 when every
 * result agreed, else the number of the first operation that did not (with why). */

struct impl {
    const char *name;
    struct em_index *(*new_chunked)(size_t chunk_max);
    void (*free)(struct em_index *ix, void (*free_value)(void *value));
    void *(*put)(struct em_index *ix, const char *key, void *value);
    void *(*get)(const struct em_index *ix, const char *key);
    bool (*has)(const struct em_index *ix, const char *key);
    void *(*del)(struct em_index *ix, const char *key);
    size_t (*count)(const struct em_index *ix);
    size_t (*rank)(const struct em_index *ix, const char *key);
    struct em_index_iter (*first)(const struct em_index *ix);
    struct em_index_iter (*seek)(const struct em_index *ix, const char *key);
    struct em_index_iter (*seek_after)(const struct em_index *ix, const char *key);
    struct em_index_iter (*at)(const struct em_index *ix, size_t i);
    bool (*valid)(const struct em_index_iter *it);
    void (*next)(struct em_index_iter *it);
    const char *(*key)(const struct em_index_iter *it);
    void *(*value)(const struct em_index_iter *it);
    size_t (*iter_rank)(const struct em_index_iter *it);
    int (*check)(const struct em_index *ix);
};

static const struct impl real = {
    "real",
    em_index_new_chunked,
    em_index_free,
    em_index_put,
    em_index_get,
    em_index_has,
    em_index_del,
    em_index_count,
    em_index_rank,
    em_index_first,
    em_index_seek,
    em_index_seek_after,
    em_index_at,
    em_index_iter_valid,
    em_index_iter_next,
    em_index_iter_key,
    em_index_iter_value,
    em_index_iter_rank,
    em_index_check,
};

static const struct impl mutant = {
    "mutant",           mut_index_new_chunked, mut_index_free,
    mut_index_put,      mut_index_get,         mut_index_has,
    mut_index_del,      mut_index_count,       mut_index_rank,
    mut_index_first,    mut_index_seek,        mut_index_seek_after,
    mut_index_at,       mut_index_iter_valid,  mut_index_iter_next,
    mut_index_iter_key, mut_index_iter_value,  mut_index_iter_rank,
    mut_index_check,
};

struct ref {
    char **keys;
    uintptr_t *vals;
    size_t n, cap;
};

static size_t ref_lower(const struct ref *r, const char *key, bool *found)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(r->keys[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < r->n && strcmp(r->keys[lo], key) == 0;
    return lo;
}

/* Keys in the store's shape with traps: projects that are prefixes of each other, names
 * that are prefixes of each other, bytes above 0x7f, empty parts; sometimes a bare range
 * bound (p "\x01", p "\x02"), the empty key or "\xff". */
static void gen_key(char *buf, size_t len)
{
    static const char *const projects[] = {"",      "a",    "ab",   "dev",
                                           "dev-x", "dev2", "prod", "\xc3\xa9t\xc3\xa9"};
    const char *p = projects[rnd_below(N(projects))];
    unsigned r = (unsigned)rnd_below(100);
    if (r < 2) {
        snprintf(buf, len, "%s", r ? "\xff" : "");
        return;
    }
    if (r < 6) {
        snprintf(buf, len, "%s%s", p, r < 4 ? "\x01" : "\x02");
        return;
    }
    unsigned num = (unsigned)rnd_below(400);
    if (r < 66)
        snprintf(buf, len, "%s\x01n%u", p, num);
    else if (r < 86)
        snprintf(buf, len, "%s\x01job-%u-%08u", p, num % 50, num);
    else if (r < 94)
        snprintf(buf, len, "%s\x01\xe2\x82\xac%u", p, num);
    else
        snprintf(buf, len, "%s\x01%.*s", p, (int)(num % 4), "abc");
}

/* s with its bytes outside 0x20..0x7e as \xNN, for messages (four calls share no buffer) */
static const char *shown(const char *s)
{
    static char bufs[4][200];
    static unsigned turn;
    char *b = bufs[turn++ % 4];
    size_t used = 0;
    for (; s && *s && used + 5 < sizeof(bufs[0]); s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f)
            b[used++] = (char)c;
        else
            used += (size_t)snprintf(b + used, 5, "\\x%02x", c);
    }
    b[used] = '\0';
    return b;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf(why, whylen, __VA_ARGS__);                                                    \
            failed = op;                                                                           \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static long model_run(const struct impl *im, size_t chunk_max, uint64_t seed, long ops, char *why,
                      size_t whylen)
{
    struct em_index *ix = im->new_chunked(chunk_max);
    struct ref r = {0};
    long failed = -1, op = 0;
    char key[64];
    rng_state = seed;
    why[0] = '\0';
    for (op = 0; op < ops; op++) {
        gen_key(key, sizeof(key));
        bool found;
        size_t i = ref_lower(&r, key, &found);
        unsigned what = (unsigned)rnd_below(100);
        /* an iterator taken before the operation, to see when it goes stale */
        struct em_index_iter before = im->first(ix);
        size_t n_before = r.n;
        if (what < 40) { /* put */
            uintptr_t v = (uintptr_t)op + 1;
            void *old = im->put(ix, key, (void *)v);
            EXPECT(old == (found ? (void *)r.vals[i] : NULL), "put %s: old value", shown(key));
            if (found) {
                r.vals[i] = v;
            } else {
                if (r.n == r.cap) {
                    r.cap = r.cap ? 2 * r.cap : 64;
                    r.keys = nd_xrealloc(r.keys, r.cap * sizeof(*r.keys));
                    r.vals = nd_xrealloc(r.vals, r.cap * sizeof(*r.vals));
                }
                memmove(r.keys + i + 1, r.keys + i, (r.n - i) * sizeof(*r.keys));
                memmove(r.vals + i + 1, r.vals + i, (r.n - i) * sizeof(*r.vals));
                r.keys[i] = nd_xstrdup(key);
                r.vals[i] = v;
                r.n++;
            }
        } else if (what < 65) { /* del, mostly of a key that is there */
            if (r.n && what < 60) {
                i = rnd_below(r.n);
                snprintf(key, sizeof(key), "%s", r.keys[i]);
                found = true;
            }
            void *v = im->del(ix, key);
            EXPECT(v == (found ? (void *)r.vals[i] : NULL), "del %s: value", shown(key));
            if (found) {
                free(r.keys[i]);
                memmove(r.keys + i, r.keys + i + 1, (r.n - i - 1) * sizeof(*r.keys));
                memmove(r.vals + i, r.vals + i + 1, (r.n - i - 1) * sizeof(*r.vals));
                r.n--;
            }
        } else if (what < 72) {
            EXPECT(im->get(ix, key) == (found ? (void *)r.vals[i] : NULL), "get %s", shown(key));
            EXPECT(im->has(ix, key) == found, "has %s", shown(key));
        } else if (what < 80) {
            EXPECT(im->rank(ix, key) == i, "rank %s: %zu, want %zu", shown(key), im->rank(ix, key),
                   i);
        } else if (what < 95) { /* seek or seek_after, then a few steps */
            bool after = what >= 88;
            struct em_index_iter it = after ? im->seek_after(ix, key) : im->seek(ix, key);
            size_t j = after && found ? i + 1 : i;
            for (int step = 0; step < 6; step++, j++) {
                if (j >= r.n) {
                    EXPECT(!im->valid(&it) && !im->key(&it), "seek %s: past the end", shown(key));
                    EXPECT(im->iter_rank(&it) == r.n, "seek %s: rank at the end", shown(key));
                    break;
                }
                EXPECT(im->valid(&it), "seek%s %s + %d: ended early", after ? "_after" : "",
                       shown(key), step);
                EXPECT(strcmp(im->key(&it), r.keys[j]) == 0, "seek%s %s + %d: %s, want %s",
                       after ? "_after" : "", shown(key), step, shown(im->key(&it)),
                       shown(r.keys[j]));
                EXPECT(im->value(&it) == (void *)r.vals[j], "seek %s + %d: value", shown(key),
                       step);
                EXPECT(im->iter_rank(&it) == j, "seek %s + %d: rank", shown(key), step);
                im->next(&it);
            }
        } else { /* at */
            size_t k = rnd_below(r.n + 3);
            struct em_index_iter it = im->at(ix, k);
            if (k < r.n) {
                EXPECT(im->valid(&it) && strcmp(im->key(&it), r.keys[k]) == 0, "at %zu", k);
                EXPECT(im->iter_rank(&it) == k, "at %zu: rank", k);
            } else {
                EXPECT(!im->valid(&it), "at %zu of %zu: valid", k, r.n);
            }
        }
        EXPECT(im->count(ix) == r.n, "count %zu, want %zu", im->count(ix), r.n);
        if (r.n != n_before)
            EXPECT(!im->valid(&before) && !im->key(&before), "stale iterator still valid");
        else if (n_before)
            EXPECT(im->valid(&before), "iterator went stale with no key added or removed");
        if (op % 2000 == 1999 || op == ops - 1) { /* a full walk and the invariants */
            EXPECT(im->check(ix) == 0, "invariants");
            struct em_index_iter it = im->first(ix);
            for (size_t k = 0; k < r.n; k++, im->next(&it)) {
                EXPECT(im->valid(&it), "walk ended at %zu of %zu", k, r.n);
                EXPECT(strcmp(im->key(&it), r.keys[k]) == 0, "walk %zu: %s, want %s", k,
                       shown(im->key(&it)), shown(r.keys[k]));
                EXPECT(im->value(&it) == (void *)r.vals[k], "walk %zu: value", k);
            }
            EXPECT(!im->valid(&it), "walk past %zu", r.n);
        }
    }
out:
    for (size_t k = 0; k < r.n; k++)
        free(r.keys[k]);
    free(r.keys);
    free(r.vals);
    im->free(ix, NULL);
    return failed;
}

#define MODEL_OPS  200000L
#define MODEL_SEED 20261201ULL

static void expect_pass(const struct impl *im, size_t chunk_max)
{
    char why[256];
    long op = model_run(im, chunk_max, MODEL_SEED, MODEL_OPS, why, sizeof(why));
    if (op >= 0)
        fail_msg("%s, chunks of %zu: operation %ld: %s", im->name, chunk_max, op, why);
}

static void test_model_small_chunks(void **state)
{
    (void)state;
    expect_pass(&real, 4);
    expect_pass(&real, 5); /* odd: unequal halves */
    expect_pass(&real, 8);
}

static void test_model_default_chunks(void **state)
{
    (void)state;
    expect_pass(&real, EM_INDEX_CHUNK_DEFAULT);
}

/* The mutant build with the right comparator passes: what the broken ones fail on below
 * is their comparator, not the build. */
static void test_model_mutant_build(void **state)
{
    (void)state;
    mut_mode = 0;
    expect_pass(&mutant, 8);
}

/* Off-by-ones a real bug would make, as wrappers around the real index. */
static struct em_index_iter seek_after_is_seek(const struct em_index *ix, const char *key)
{
    return em_index_seek(ix, key);
}

static size_t rank_counts_equal(const struct em_index *ix, const char *key)
{
    return em_index_rank(ix, key) + em_index_has(ix, key);
}

static struct em_index_iter at_plus_one(const struct em_index *ix, size_t i)
{
    return em_index_at(ix, i + 1);
}

static void next_skips_chunk_start(struct em_index_iter *it)
{
    em_index_iter_next(it);
    if (em_index_iter_valid(it) && it->pos == 0 && it->chunk > 0)
        em_index_iter_next(it);
}

static size_t iter_rank_misses_chunk(const struct em_index_iter *it)
{
    size_t r = em_index_iter_rank(it);
    return em_index_iter_valid(it) && it->chunk == 3 && it->pos == 0 ? r - 1 : r;
}

static void *put_forgets_old(struct em_index *ix, const char *key, void *value)
{
    em_index_put(ix, key, value);
    return NULL;
}

static void *del_keeps_key(struct em_index *ix, const char *key)
{
    return em_index_get(ix, key);
}

static struct em_index_iter seek_past_chunk_end(const struct em_index *ix, const char *key)
{
    /* a seek that lands past a chunk's last slot and does not move on */
    struct em_index_iter it = em_index_seek(ix, key);
    if (em_index_iter_valid(&it) && it.pos == 0 && it.chunk > 0 &&
        strcmp(em_index_iter_key(&it), key) > 0)
        it.gen--;
    return it;
}

static void test_model_catches_mutants(void **state)
{
    (void)state;
    char why[256];
    for (int mode = 1; mode <= 2; mode++) {
        mut_mode = mode;
        long op = model_run(&mutant, 8, MODEL_SEED, MODEL_OPS, why, sizeof(why));
        print_message("comparator %s: caught at operation %ld (%s)\n",
                      mode == 1 ? "signed char" : "prefix equal", op, why);
        assert_true(op >= 0);
    }
    mut_mode = 0;
    struct impl m[8];
    for (size_t i = 0; i < N(m); i++)
        m[i] = real;
    m[0].name = "seek_after as seek", m[0].seek_after = seek_after_is_seek;
    m[1].name = "rank counts equal", m[1].rank = rank_counts_equal;
    m[2].name = "at off by one", m[2].at = at_plus_one;
    m[3].name = "next skips a chunk's start", m[3].next = next_skips_chunk_start;
    m[4].name = "iter_rank misses a chunk", m[4].iter_rank = iter_rank_misses_chunk;
    m[5].name = "put forgets the old value", m[5].put = put_forgets_old;
    m[6].name = "del keeps the key", m[6].del = del_keeps_key;
    m[7].name = "seek stops at a chunk end", m[7].seek = seek_past_chunk_end;
    for (size_t i = 0; i < N(m); i++) {
        long op = model_run(&m[i], 8, MODEL_SEED, MODEL_OPS, why, sizeof(why));
        print_message("%s: caught at operation %ld (%s)\n", m[i].name, op, why);
        assert_true(op >= 0);
    }
}

/* ---- micro-benchmark (INDEX_BENCH=1) --------------------------------------------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void memory_line(const char *what, size_t count, size_t key_bytes, size_t chunks,
                        size_t bytes, size_t heap)
{
    double n = (double)count;
    printf("  memory, %s: %zu chunks (%.0f%% full); em_index_bytes %.1f B/entry (%.1f beyond "
           "the key's bytes + NUL)",
           what, chunks, 100.0 * n / ((double)chunks * EM_INDEX_CHUNK_DEFAULT), (double)bytes / n,
           ((double)bytes - (double)key_bytes) / n);
    if (heap) /* mallinfo2 says 0 under a sanitizer's allocator */
        printf("; heap %.1f B/entry (%.1f beyond)", (double)heap / n,
               ((double)heap - (double)key_bytes) / n);
    printf("\n");
}

static void bench(void)
{
    const size_t n = 100000;
    char **keys = nd_xmalloc(n * sizeof(*keys));
    size_t key_bytes = 0;
    rng_state = 7;
    for (size_t i = 0; i < n; i++) {
        char k[64];
        /* about 30 bytes: a project of 10, \x01, a name of 19 */
        snprintf(k, sizeof(k), "project-%02u\x01object-%012llx", (unsigned)rnd_below(50),
                 (unsigned long long)(rnd() & 0xffffffffffffULL));
        keys[i] = nd_xstrdup(k);
        key_bytes += strlen(k) + 1;
    }
    size_t heap0 = mallinfo2().uordblks;
    struct em_index *ix = em_index_new();
    double t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        em_index_put(ix, keys[i], V(i + 1));
    double t_put = (now_ns() - t0) / (double)n;
    size_t heap = mallinfo2().uordblks - heap0;
    size_t count = em_index_count(ix);

    uintptr_t sink = 0;
    t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        sink += (uintptr_t)em_index_get(ix, keys[(i * 7919) % n]);
    double t_get = (now_ns() - t0) / (double)n;
    t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        sink += (uintptr_t)em_index_get(ix, "project-25\x01object-000000000000x");
    double t_miss = (now_ns() - t0) / (double)n;
    t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        struct em_index_iter it = em_index_seek(ix, keys[(i * 7919) % n]);
        sink += (uintptr_t)em_index_iter_value(&it);
    }
    double t_seek = (now_ns() - t0) / (double)n;
    t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        sink += em_index_rank(ix, keys[(i * 7919) % n]);
    double t_rank = (now_ns() - t0) / (double)n;
    t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        struct em_index_iter it = em_index_at(ix, (i * 7919) % n);
        sink += (uintptr_t)em_index_iter_value(&it);
    }
    double t_at = (now_ns() - t0) / (double)n;
    t0 = now_ns();
    for (struct em_index_iter it = em_index_first(ix); em_index_iter_valid(&it);
         em_index_iter_next(&it))
        sink += (uintptr_t)em_index_iter_value(&it);
    double t_next = (now_ns() - t0) / (double)count;
    /* a list page: seek to a project, 500 entries, the remaining count */
    t0 = now_ns();
    for (int p = 0; p < 1000; p++) {
        char lo[32];
        snprintf(lo, sizeof(lo), "project-%02d\x01", p % 50);
        struct em_index_iter it = em_index_seek(ix, lo);
        for (int k = 0; k < 500 && em_index_iter_valid(&it); k++, em_index_iter_next(&it))
            sink += (uintptr_t)em_index_iter_value(&it);
        sink += em_index_count(ix) - em_index_iter_rank(&it);
    }
    double t_page = (now_ns() - t0) / 1000.0;
    size_t bytes = em_index_bytes(ix), chunks = em_index_chunks(ix);
    t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        em_index_del(ix, keys[(i * 7919) % n]);
    double t_del = (now_ns() - t0) / (double)n;
    em_index_free(ix, NULL);

    /* a sorted load (a start from a sorted listing): chunks fill up */
    char **sorted = nd_xmalloc(n * sizeof(*sorted));
    memcpy(sorted, keys, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_str);
    heap0 = mallinfo2().uordblks;
    ix = em_index_new();
    t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        em_index_put(ix, sorted[i], V(i + 1));
    double t_load = (now_ns() - t0) / (double)n;
    size_t heap_sorted = mallinfo2().uordblks - heap0;
    size_t bytes_sorted = em_index_bytes(ix), chunks_sorted = em_index_chunks(ix);
    em_index_free(ix, NULL);
    free(sorted);

    printf("index bench, %zu keys of %.1f bytes (chunks of %d): ns per op\n", count,
           (double)key_bytes / (double)n - 1, EM_INDEX_CHUNK_DEFAULT);
    printf("  put (random order)  %7.1f\n", t_put);
    printf("  put (sorted order)  %7.1f\n", t_load);
    printf("  get (present)       %7.1f\n", t_get);
    printf("  get (absent)        %7.1f\n", t_miss);
    printf("  seek                %7.1f\n", t_seek);
    printf("  rank                %7.1f\n", t_rank);
    printf("  at (by rank)        %7.1f\n", t_at);
    printf("  iter_next           %7.1f\n", t_next);
    printf("  del (random order)  %7.1f\n", t_del);
    printf("  page of 500 + count %7.0f\n", t_page);
    memory_line("random order", count, key_bytes, chunks, bytes, heap);
    memory_line("sorted order", count, key_bytes, chunks_sorted, bytes_sorted, heap_sorted);
    if (sink == 42)
        printf("\n");
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_one_key),
        cmocka_unit_test(test_null_values_and_copied_keys),
        cmocka_unit_test(test_prefixes_and_bytes),
        cmocka_unit_test(test_project_ranges),
        cmocka_unit_test(test_split_at_chunk_size),
        cmocka_unit_test(test_merge_at_quarter),
        cmocka_unit_test(test_delete_everything),
        cmocka_unit_test(test_iterators),
        cmocka_unit_test(test_foreach_clear_free),
        cmocka_unit_test(test_model_small_chunks),
        cmocka_unit_test(test_model_default_chunks),
        cmocka_unit_test(test_model_mutant_build),
        cmocka_unit_test(test_model_catches_mutants),
    };
    int rc = cmocka_run_group_tests_name("store_index", tests, NULL, NULL);
    const char *b = getenv("INDEX_BENCH");
    if (b && *b && strcmp(b, "0") != 0)
        bench();
    return rc;
}
