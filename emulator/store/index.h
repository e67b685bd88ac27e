/* index.h: an ordered in-memory map from a C string to a pointer.
 *
 * The store keeps one per kind, every object of the kind ordered by (project, name), with
 * keys built as project "\x01" name: strcmp order is then project order, then name order
 * within a project, and a project's objects are exactly the keys in
 * [project "\x01", project "\x02") (the store's project names never hold \x01 or \x02).
 *
 * Keys are NUL-terminated byte strings (never NULL) compared with strcmp (as unsigned char).
 * The index copies every key it stores and frees the copies; values are the caller's: the
 * index never looks at them, and frees them only through the callback given to clear/free.
 * A value may be NULL, but then get/del/put answer NULL for it as for "absent": use
 * em_index_has to tell them apart.
 *
 * Layout: a sorted array of sorted chunks of at most `chunk_max` entries (512 by default),
 * plus a Fenwick tree over the chunks' sizes for ranks. A full chunk splits in two (or, for
 * a key past the last key or before the first, a new chunk starts so ascending or
 * descending loads fill their chunks); a chunk that falls below chunk_max / 4 merges with
 * its smaller neighbour, or shares evenly with it when both do not fit in one.
 *
 * Costs, N keys, C = about N / 384 chunks, B = chunk_max:
 *   put, del              O(log N) comparisons + O(B) pointer moves in one chunk
 *                         (+ O(C) when a chunk splits, merges or goes, once per >= B/4 ops)
 *   get, has, rank        O(log N)
 *   seek, seek_after, at  O(log N); iter_next O(1); iter_rank O(log C)
 *   count                 O(1)
 *   foreach, clear, free  O(N)
 *   memory                per entry: one allocation holding the value pointer and the key
 *                         (8 + strlen + 1 bytes) + an 8-byte chunk slot, chunks being about
 *                         3/4 full after random inserts and full after sorted loads; at
 *                         100k keys of 30 bytes, 19 bytes/entry beyond the key and its NUL
 *                         (28 with glibc's malloc overhead).
 *
 * Iterators: a struct em_index_iter is a position (the index, a chunk, an offset and the
 * index's generation when it was made). Every put that adds a key, every del that removes
 * one and every clear bumps the generation and so invalidates every iterator of the index;
 * a put that only replaces a value does not (positions do not move). An invalidated
 * iterator is never dereferenced: it reads as finished (valid false, key and value NULL,
 * next does nothing). To carry on after changing the index, remember the last key seen
 * and em_index_seek_after(ix, last_key). Keys returned by em_index_iter_key stay valid
 * until that key is deleted or the index cleared or freed, whatever else changes.
 *
 * Not thread-safe, but reads (get, has, count, rank, seek*, at, iter_* but iter_set,
 * foreach, bytes, check) change nothing: any number may run at once while nothing writes;
 * put, del, clear and iter_set need the index to themselves (e.g. a rwlock's write side).
 */
#ifndef EM_STORE_INDEX_H
#define EM_STORE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Default and allowed chunk sizes (entries per chunk). */
#define EM_INDEX_CHUNK_DEFAULT 512
#define EM_INDEX_CHUNK_MIN     4
#define EM_INDEX_CHUNK_LIMIT   65536

struct em_index;

/* A position in an index; plain data, copy freely, never freed. */
struct em_index_iter {
    const struct em_index *ix;
    size_t chunk;
    size_t pos;
    uint64_t gen;
};

/* A new, empty index with chunks of at most EM_INDEX_CHUNK_DEFAULT entries. Never NULL
 * (out of memory exits, as nd_xmalloc does). */
struct em_index *em_index_new(void);
/* The same with chunks of at most chunk_max entries, clamped to
 * [EM_INDEX_CHUNK_MIN, EM_INDEX_CHUNK_LIMIT] (small chunks are for tests). */
struct em_index *em_index_new_chunked(size_t chunk_max);
/* Removes every key; free_value (may be NULL) is called on each value in key order.
 * Invalidates every iterator. */
void em_index_clear(struct em_index *ix, void (*free_value)(void *value));
/* clear, then frees the index itself. NULL is a no-op. */
void em_index_free(struct em_index *ix, void (*free_value)(void *value));

/* Stores value under a copy of key. Returns the value it replaced, or NULL when key was
 * new (the index then grows by one and iterators are invalidated). */
void *em_index_put(struct em_index *ix, const char *key, void *value);
/* The value stored under key, or NULL. */
void *em_index_get(const struct em_index *ix, const char *key);
/* Whether key is stored (whatever its value, NULL included). */
bool em_index_has(const struct em_index *ix, const char *key);
/* Removes key and returns its value (the caller's to free), or NULL when key was absent
 * (nothing changes then, iterators stay valid). */
void *em_index_del(struct em_index *ix, const char *key);

/* ---- entries made apart ----
 * An entry (its key copied, its value) can be made without the index, on another thread
 * (nothing of the index is touched), and put in later: a start's loader threads make the
 * store's entries this way, so the one thread that fills the indexes after them only
 * links them in (checkpoint.h). */
struct em_index_ent;
/* A NEW entry of key (copied) and value. */
struct em_index_ent *em_index_ent_new(const char *key, void *value);
const char *em_index_ent_key(const struct em_index_ent *e);
void *em_index_ent_value(const struct em_index_ent *e);
/* Frees an entry never put (not its value). */
void em_index_ent_free(struct em_index_ent *e);
/* em_index_put of e's key and value, e taken: it becomes the index's entry, or is freed
 * when its key was there (that entry's value replaced, and returned). A key past the last
 * costs one comparison, as for em_index_put. */
void *em_index_put_ent(struct em_index *ix, struct em_index_ent *e);

/* A run: entries made apart, to be put in an index in one go. Zero-initialised it is
 * empty. */
struct em_index_run {
    struct em_index_ent **e;
    size_t n, cap;
};
/* Adds a NEW entry of key (copied) and value. */
void em_index_run_add(struct em_index_run *r, const char *key, void *value);
/* Orders the run by key (O(n) when it is in order already, O(n log k) when it is k
 * stretches in order, up to 64); of equal keys, which comes first is not said. */
void em_index_run_sort(struct em_index_run *r);
/* Puts every entry of the n runs, each sorted, into ix (empty or not) in key order (a
 * merge: into an empty index, or past its keys, each costs a comparison or two, no
 * search); a key put twice keeps the value put last (of equal keys, the later run's),
 * each value it replaced given to free_value (may be NULL). The runs are left empty. */
void em_index_put_runs(struct em_index *ix, struct em_index_run *runs, size_t n,
                       void (*free_value)(void *value));
/* Frees the run's entries (free_value, may be NULL, on each value); r is empty again. */
void em_index_run_free(struct em_index_run *r, void (*free_value)(void *value));

/* Number of keys, O(1). */
size_t em_index_count(const struct em_index *ix);
/* Number of keys strictly less than key (key need not be stored). The keys in [lo, hi)
 * number em_index_rank(ix, hi) - em_index_rank(ix, lo) when lo <= hi. */
size_t em_index_rank(const struct em_index *ix, const char *key);

/* Calls fn on every entry in key order; a nonzero return from fn stops the walk and is
 * returned, else 0. fn must not change the index (it may change what a value points to). */
int em_index_foreach(const struct em_index *ix, int (*fn)(const char *key, void *value, void *arg),
                     void *arg);

/* Positions. Each returns an iterator at the entry described, or finished (valid false)
 * when there is none. */
/* The first (smallest) key. */
struct em_index_iter em_index_first(const struct em_index *ix);
/* The first key >= key. */
struct em_index_iter em_index_seek(const struct em_index *ix, const char *key);
/* The first key > key (resume after the last key seen, a `continue` token). */
struct em_index_iter em_index_seek_after(const struct em_index *ix, const char *key);
/* The entry of rank i (the i-th smallest, from 0); finished when i >= count. */
struct em_index_iter em_index_at(const struct em_index *ix, size_t i);

/* Whether it is at an entry (false when finished or invalidated). */
bool em_index_iter_valid(const struct em_index_iter *it);
/* Moves to the next key in order; at the last one it becomes finished. */
void em_index_iter_next(struct em_index_iter *it);
/* The entry's key (owned by the index) or value; NULL when not valid. */
const char *em_index_iter_key(const struct em_index_iter *it);
void *em_index_iter_value(const struct em_index_iter *it);
/* Replaces the entry's value in place and returns the old one (NULL when not valid).
 * Keeps every iterator valid, like a put of an existing key. */
void *em_index_iter_set(const struct em_index_iter *it, void *value);
/* The entry's rank (keys before it); em_index_count when finished or invalidated. So
 * count - rank counts the entries from it to the end, it included: after a page, the
 * iterator at the next entry gives remainingItemCount (bounded by a range's end rank). */
size_t em_index_iter_rank(const struct em_index_iter *it);

/* Bytes the index holds on the heap as requested from malloc (structures, chunk slots,
 * entries with their keys), not counting the allocator's own overhead or the values. */
size_t em_index_bytes(const struct em_index *ix);
/* Number of chunks (for tests and statistics). */
size_t em_index_chunks(const struct em_index *ix);
/* Checks every invariant (order, chunk sizes, counts, ranks); 0 when sound, else -1.
 * O(N); for tests. */
int em_index_check(const struct em_index *ix);

#endif
