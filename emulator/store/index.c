/* index.c: the ordered index (index.h), a sorted array of sorted chunks. */
#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* One allocation per entry: the value next to the key bytes, so a lookup that compares
 * the key finds the value in the same cache line, and the key's address never moves while
 * chunks split, merge and share. */
struct ent {
    void *value;
    char key[];
};

struct chunk {
    uint32_t n;   /* entries, >= 1 */
    uint32_t cap; /* slots allocated, n <= cap <= chunk_max */
    struct ent **e;
};

struct em_index {
    struct chunk *ch; /* nch chunks, in key order, none empty */
    size_t nch, capch;
    size_t *fw; /* Fenwick tree over ch[].n, 1-based, capch + 1 slots */
    size_t count;
    size_t chunk_max;
    size_t ent_bytes; /* sum of the entries' allocation sizes */
    uint64_t gen;     /* bumped whenever positions move */
};

#define CAP_FIRST 8u

/* ---- Fenwick tree over the chunk sizes ---------------------------------------------- */

static void fw_rebuild(struct em_index *ix)
{
    size_t n = ix->nch;
    for (size_t i = 1; i <= n; i++)
        ix->fw[i] = ix->ch[i - 1].n;
    for (size_t i = 1; i <= n; i++) {
        size_t j = i + (i & (~i + 1));
        if (j <= n)
            ix->fw[j] += ix->fw[i];
    }
}

static void fw_add(struct em_index *ix, size_t ci, int delta)
{
    for (size_t i = ci + 1; i <= ix->nch; i += i & (~i + 1))
        ix->fw[i] += (size_t)delta; /* wraps for -1, as intended */
}

/* Entries in chunks [0, ci). */
static size_t fw_prefix(const struct em_index *ix, size_t ci)
{
    size_t s = 0;
    for (size_t i = ci; i > 0; i -= i & (~i + 1))
        s += ix->fw[i];
    return s;
}

/* The chunk holding the entry of rank r (< count), and r's offset in it. */
static size_t fw_find(const struct em_index *ix, size_t r, size_t *off)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= ix->nch)
        step *= 2;
    for (; step > 0; step /= 2) {
        if (pos + step <= ix->nch && ix->fw[pos + step] <= r) {
            pos += step;
            r -= ix->fw[pos];
        }
    }
    *off = r;
    return pos;
}

/* ---- chunks ------------------------------------------------------------------------- */

static uint32_t cap_for(const struct em_index *ix, size_t n)
{
    size_t cap = CAP_FIRST;
    while (cap < n)
        cap *= 2;
    return (uint32_t)(cap > ix->chunk_max ? ix->chunk_max : cap);
}

static void chunk_reserve(const struct em_index *ix, struct chunk *c, size_t n)
{
    if (n <= c->cap)
        return;
    c->cap = cap_for(ix, n);
    c->e = nd_xrealloc(c->e, (size_t)c->cap * sizeof(*c->e));
}

/* Opens an empty chunk at ci (the caller fills it and rebuilds the Fenwick tree). */
static struct chunk *chunk_open(struct em_index *ix, size_t ci, size_t n)
{
    if (ix->nch == ix->capch) {
        ix->capch = ix->capch ? ix->capch * 2 : 4;
        ix->ch = nd_xrealloc(ix->ch, ix->capch * sizeof(*ix->ch));
        ix->fw = nd_xrealloc(ix->fw, (ix->capch + 1) * sizeof(*ix->fw));
    }
    memmove(ix->ch + ci + 1, ix->ch + ci, (ix->nch - ci) * sizeof(*ix->ch));
    ix->nch++;
    struct chunk *c = &ix->ch[ci];
    c->n = 0;
    c->cap = cap_for(ix, n);
    c->e = nd_xmalloc((size_t)c->cap * sizeof(*c->e));
    return c;
}

/* Drops chunk ci, whose entries have gone elsewhere. */
static void chunk_close(struct em_index *ix, size_t ci)
{
    free(ix->ch[ci].e);
    memmove(ix->ch + ci, ix->ch + ci + 1, (ix->nch - ci - 1) * sizeof(*ix->ch));
    ix->nch--;
}

/* The last chunk whose first key is <= key, or 0 when key precedes them all. nch > 0. */
static size_t find_chunk(const struct em_index *ix, const char *key)
{
    size_t lo = 0, hi = ix->nch;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->ch[mid].e[0]->key, key) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The first slot of c whose key is >= key; *found when that key equals key. */
static size_t lower_bound(const struct chunk *c, const char *key, bool *found)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->e[mid]->key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < c->n && strcmp(c->e[lo]->key, key) == 0;
    return lo;
}

/* Where key is or would go: chunk *ci, slot returned (may be ch[*ci].n). nch > 0. */
static size_t locate(const struct em_index *ix, const char *key, size_t *ci, bool *found)
{
    const struct chunk *last = &ix->ch[ix->nch - 1];
    if (strcmp(last->e[last->n - 1]->key, key) < 0) {
        /* past the last key, as every key of an ascending load (the start's): one
         * comparison, not a search */
        *ci = ix->nch - 1;
        *found = false;
        return last->n;
    }
    *ci = find_chunk(ix, key);
    return lower_bound(&ix->ch[*ci], key, found);
}

/* ---- life cycle --------------------------------------------------------------------- */

struct em_index *em_index_new_chunked(size_t chunk_max)
{
    struct em_index *ix = nd_xcalloc(1, sizeof(*ix));
    if (chunk_max < EM_INDEX_CHUNK_MIN)
        chunk_max = EM_INDEX_CHUNK_MIN;
    if (chunk_max > EM_INDEX_CHUNK_LIMIT)
        chunk_max = EM_INDEX_CHUNK_LIMIT;
    ix->chunk_max = chunk_max;
    return ix;
}

struct em_index *em_index_new(void)
{
    return em_index_new_chunked(EM_INDEX_CHUNK_DEFAULT);
}

void em_index_clear(struct em_index *ix, void (*free_value)(void *value))
{
    for (size_t ci = 0; ci < ix->nch; ci++) {
        struct chunk *c = &ix->ch[ci];
        for (size_t i = 0; i < c->n; i++) {
            if (free_value)
                free_value(c->e[i]->value);
            free(c->e[i]);
        }
        free(c->e);
    }
    free(ix->ch);
    free(ix->fw);
    ix->ch = NULL;
    ix->fw = NULL;
    ix->nch = ix->capch = 0;
    ix->count = 0;
    ix->ent_bytes = 0;
    ix->gen++;
}

void em_index_free(struct em_index *ix, void (*free_value)(void *value))
{
    if (!ix)
        return;
    em_index_clear(ix, free_value);
    free(ix);
}

/* ---- writes ------------------------------------------------------------------------- */

static struct ent *ent_make(const char *key, void *value)
{
    size_t len = strlen(key) + 1;
    struct ent *e = nd_xmalloc(sizeof(*e) + len);
    e->value = value;
    memcpy(e->key, key, len);
    return e;
}

/* The entry to store for key: made, or the one made apart (em_index_ent_new), counted. */
static struct ent *ent_take(struct em_index *ix, struct ent *made, const char *key, void *value)
{
    struct ent *e = made ? made : ent_make(key, value);
    ix->ent_bytes += sizeof(*e) + strlen(e->key) + 1;
    return e;
}

static void slot_insert(const struct em_index *ix, struct chunk *c, size_t pos, struct ent *e)
{
    chunk_reserve(ix, c, (size_t)c->n + 1);
    memmove(c->e + pos + 1, c->e + pos, (c->n - pos) * sizeof(*c->e));
    c->e[pos] = e;
    c->n++;
}

/* Splits the full chunk ci in two halves; returns the size of the left one. */
static size_t split(struct em_index *ix, size_t ci)
{
    size_t n = ix->ch[ci].n, half = n / 2;
    struct chunk *r = chunk_open(ix, ci + 1, n - half + 1);
    struct chunk *l = &ix->ch[ci]; /* after chunk_open: ix->ch may have moved */
    memcpy(r->e, l->e + half, (n - half) * sizeof(*r->e));
    r->n = (uint32_t)(n - half);
    l->n = (uint32_t)half;
    return half;
}

/* em_index_put, the entry to store being made (NULL) or the one made apart (its key and
 * value are key and value; freed when key was there). */
static void *put(struct em_index *ix, const char *key, void *value, struct ent *made)
{
    if (ix->nch == 0) {
        struct chunk *c = chunk_open(ix, 0, 1);
        c->e[c->n++] = ent_take(ix, made, key, value);
        fw_rebuild(ix);
        ix->count = 1;
        ix->gen++;
        return NULL;
    }
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    if (found) {
        struct ent *e = ix->ch[ci].e[pos];
        void *old = e->value;
        e->value = value;
        free(made);
        return old;
    }
    struct ent *e = ent_take(ix, made, key, value);
    if (ix->ch[ci].n < ix->chunk_max) {
        slot_insert(ix, &ix->ch[ci], pos, e);
        fw_add(ix, ci, 1);
    } else if (pos == ix->ch[ci].n && ci == ix->nch - 1) {
        /* past the last key: a new chunk, so ascending loads leave full chunks behind */
        struct chunk *c = chunk_open(ix, ix->nch, 1);
        c->e[c->n++] = e;
        fw_rebuild(ix);
    } else if (pos == 0 && ci == 0) {
        struct chunk *c = chunk_open(ix, 0, 1);
        c->e[c->n++] = e;
        fw_rebuild(ix);
    } else {
        size_t half = split(ix, ci);
        if (pos > half) {
            ci++;
            pos -= half;
        }
        slot_insert(ix, &ix->ch[ci], pos, e);
        fw_rebuild(ix);
    }
    ix->count++;
    ix->gen++;
    return NULL;
}

void *em_index_put(struct em_index *ix, const char *key, void *value)
{
    return put(ix, key, value, NULL);
}

/* ---- entries made apart, and runs of them ------------------------------------------- */

struct em_index_ent *em_index_ent_new(const char *key, void *value)
{
    return (struct em_index_ent *)ent_make(key, value);
}

const char *em_index_ent_key(const struct em_index_ent *e)
{
    return ((const struct ent *)e)->key;
}

void *em_index_ent_value(const struct em_index_ent *e)
{
    return ((const struct ent *)e)->value;
}

void em_index_ent_free(struct em_index_ent *e)
{
    free(e);
}

void *em_index_put_ent(struct em_index *ix, struct em_index_ent *made)
{
    struct ent *e = (struct ent *)made;
    return put(ix, e->key, e->value, e);
}

void em_index_run_add(struct em_index_run *r, const char *key, void *value)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->e = nd_xrealloc(r->e, r->cap * sizeof *r->e);
    }
    r->e[r->n++] = em_index_ent_new(key, value);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(em_index_ent_key(*(struct em_index_ent *const *)a),
                  em_index_ent_key(*(struct em_index_ent *const *)b));
}

/* dst: a (na) and b (nb), each in order, merged (of equal keys, a's first). */
static void merge_two(struct em_index_ent **dst, struct em_index_ent *const *a, size_t na,
                      struct em_index_ent *const *b, size_t nb)
{
    size_t i = 0, j = 0, o = 0;
    while (i < na && j < nb)
        dst[o++] = strcmp(em_index_ent_key(b[j]), em_index_ent_key(a[i])) < 0 ? b[j++] : a[i++];
    while (i < na)
        dst[o++] = a[i++];
    while (j < nb)
        dst[o++] = b[j++];
}

/* Merges r's k stretches in order (starts: where each begins, room for k + 1), pairwise
 * until one is left. */
static void merge_stretches(struct em_index_run *r, size_t *starts, size_t k)
{
    struct em_index_ent **src = r->e, **buf = nd_xmalloc(r->n * sizeof *buf), **dst = buf;
    starts[k] = r->n;
    while (k > 1) {
        size_t nk = 0;
        for (size_t s = 0; s < k; s += 2) {
            size_t lo = starts[s], mid = starts[s + 1], hi = s + 2 <= k ? starts[s + 2] : r->n;
            merge_two(dst + lo, src + lo, mid - lo, src + mid, hi - mid);
            starts[nk++] = lo;
        }
        starts[nk] = r->n;
        k = nk;
        struct em_index_ent **t = src;
        src = dst;
        dst = t;
    }
    if (src != r->e)
        memcpy(r->e, src, r->n * sizeof *r->e);
    free(buf);
}

#define STRETCHES_MAX 64 /* merged; more: sorted */

void em_index_run_sort(struct em_index_run *r)
{
    /* A start's runs come in order (no sort) or nearly: a key of another order among them
     * (the bench's template Job, its uid among the seeded ones') splits one into a few
     * stretches in order, merged in O(n log k), not sorted again whole. */
    size_t starts[STRETCHES_MAX + 1], k = 1;
    starts[0] = 0;
    for (size_t i = 1; i < r->n; i++) {
        if (strcmp(em_index_ent_key(r->e[i - 1]), em_index_ent_key(r->e[i])) <= 0)
            continue;
        if (k == STRETCHES_MAX) {
            qsort(r->e, r->n, sizeof *r->e, by_key);
            return;
        }
        starts[k++] = i;
    }
    if (k > 1)
        merge_stretches(r, starts, k);
}

void em_index_run_free(struct em_index_run *r, void (*free_value)(void *value))
{
    for (size_t i = 0; i < r->n; i++) {
        if (free_value)
            free_value(em_index_ent_value(r->e[i]));
        free(r->e[i]);
    }
    free(r->e);
    *r = (struct em_index_run){0};
}

/* The run whose next entry has the smallest key (the first such run), or n when every
 * run is done; at[i] is run i's next entry. */
static size_t run_least(const struct em_index_run *runs, const size_t *at, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (at[i] < runs[i].n &&
            (best == n || strcmp(em_index_ent_key(runs[i].e[at[i]]),
                                 em_index_ent_key(runs[best].e[at[best]])) < 0))
            best = i;
    }
    return best;
}

void em_index_put_runs(struct em_index *ix, struct em_index_run *runs, size_t n,
                       void (*free_value)(void *value))
{
    size_t *at = nd_xcalloc(n ? n : 1, sizeof *at);
    for (size_t r; (r = run_least(runs, at, n)) < n;) {
        struct ent *e = (struct ent *)runs[r].e[at[r]++];
        /* in key order: each past the last, appended (locate's first comparison) */
        void *old = put(ix, e->key, e->value, e);
        if (old && free_value)
            free_value(old);
    }
    free(at);
    for (size_t i = 0; i < n; i++) { /* their entries are the index's now */
        free(runs[i].e);
        runs[i] = (struct em_index_run){0};
    }
}

/* Chunk ci fell below chunk_max / 4: merge it with its smaller neighbour when both fit in
 * one chunk, else share their entries evenly (both then hold more than chunk_max / 2). */
static void rebalance(struct em_index *ix, size_t ci)
{
    size_t nb;
    if (ci == 0)
        nb = 1;
    else if (ci == ix->nch - 1)
        nb = ci - 1;
    else
        nb = ix->ch[ci - 1].n <= ix->ch[ci + 1].n ? ci - 1 : ci + 1;
    size_t ai = ci < nb ? ci : nb;
    struct chunk *a = &ix->ch[ai], *b = &ix->ch[ai + 1];
    size_t na = a->n, nbn = b->n, total = na + nbn;
    if (total <= ix->chunk_max) {
        chunk_reserve(ix, a, total);
        memcpy(a->e + na, b->e, nbn * sizeof(*a->e));
        a->n = (uint32_t)total;
        chunk_close(ix, ai + 1);
    } else if (na < total / 2) {
        size_t k = total / 2 - na; /* from b's front to a's end */
        chunk_reserve(ix, a, na + k);
        memcpy(a->e + na, b->e, k * sizeof(*a->e));
        memmove(b->e, b->e + k, (nbn - k) * sizeof(*b->e));
        a->n = (uint32_t)(na + k);
        b->n = (uint32_t)(nbn - k);
    } else {
        size_t k = na - total / 2; /* from a's end to b's front */
        chunk_reserve(ix, b, nbn + k);
        memmove(b->e + k, b->e, nbn * sizeof(*b->e));
        memcpy(b->e, a->e + (na - k), k * sizeof(*b->e));
        a->n = (uint32_t)(na - k);
        b->n = (uint32_t)(nbn + k);
    }
    fw_rebuild(ix);
}

void *em_index_del(struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return NULL;
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    if (!found)
        return NULL;
    struct chunk *c = &ix->ch[ci];
    struct ent *e = c->e[pos];
    void *value = e->value;
    ix->ent_bytes -= sizeof(*e) + strlen(e->key) + 1;
    free(e);
    memmove(c->e + pos, c->e + pos + 1, (c->n - pos - 1) * sizeof(*c->e));
    c->n--;
    ix->count--;
    ix->gen++;
    if (c->n == 0) {
        chunk_close(ix, ci);
        fw_rebuild(ix);
        return value;
    }
    /* give back slots a shrinking chunk no longer needs */
    if (c->cap > CAP_FIRST && c->n <= c->cap / 4) {
        c->cap /= 2;
        c->e = nd_xrealloc(c->e, (size_t)c->cap * sizeof(*c->e));
    }
    if (ix->nch > 1 && c->n < ix->chunk_max / 4)
        rebalance(ix, ci);
    else
        fw_add(ix, ci, -1);
    return value;
}

/* ---- reads -------------------------------------------------------------------------- */

void *em_index_get(const struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return NULL;
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    return found ? ix->ch[ci].e[pos]->value : NULL;
}

bool em_index_has(const struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return false;
    size_t ci;
    bool found;
    locate(ix, key, &ci, &found);
    return found;
}

size_t em_index_count(const struct em_index *ix)
{
    return ix->count;
}

size_t em_index_rank(const struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return 0;
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    return fw_prefix(ix, ci) + pos;
}

int em_index_foreach(const struct em_index *ix, int (*fn)(const char *key, void *value, void *arg),
                     void *arg)
{
    for (size_t ci = 0; ci < ix->nch; ci++) {
        const struct chunk *c = &ix->ch[ci];
        for (size_t i = 0; i < c->n; i++) {
            int rc = fn(c->e[i]->key, c->e[i]->value, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* ---- iterators ---------------------------------------------------------------------- */

/* An iterator at (ci, pos), moved to the next chunk when pos is past ci's end. */
static struct em_index_iter iter_at(const struct em_index *ix, size_t ci, size_t pos)
{
    if (ci < ix->nch && pos >= ix->ch[ci].n) {
        ci++;
        pos = 0;
    }
    if (ci >= ix->nch) {
        ci = ix->nch;
        pos = 0;
    }
    return (struct em_index_iter){.ix = ix, .chunk = ci, .pos = pos, .gen = ix->gen};
}

struct em_index_iter em_index_first(const struct em_index *ix)
{
    return iter_at(ix, 0, 0);
}

struct em_index_iter em_index_seek(const struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return iter_at(ix, 0, 0);
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    return iter_at(ix, ci, pos);
}

struct em_index_iter em_index_seek_after(const struct em_index *ix, const char *key)
{
    if (ix->nch == 0)
        return iter_at(ix, 0, 0);
    size_t ci;
    bool found;
    size_t pos = locate(ix, key, &ci, &found);
    return iter_at(ix, ci, found ? pos + 1 : pos);
}

struct em_index_iter em_index_at(const struct em_index *ix, size_t i)
{
    if (i >= ix->count)
        return iter_at(ix, ix->nch, 0);
    size_t off;
    size_t ci = fw_find(ix, i, &off);
    return iter_at(ix, ci, off);
}

bool em_index_iter_valid(const struct em_index_iter *it)
{
    return it->ix && it->gen == it->ix->gen && it->chunk < it->ix->nch;
}

void em_index_iter_next(struct em_index_iter *it)
{
    if (!em_index_iter_valid(it))
        return;
    if (++it->pos >= it->ix->ch[it->chunk].n) {
        it->chunk++;
        it->pos = 0;
    }
}

const char *em_index_iter_key(const struct em_index_iter *it)
{
    return em_index_iter_valid(it) ? it->ix->ch[it->chunk].e[it->pos]->key : NULL;
}

void *em_index_iter_value(const struct em_index_iter *it)
{
    return em_index_iter_valid(it) ? it->ix->ch[it->chunk].e[it->pos]->value : NULL;
}

void *em_index_iter_set(const struct em_index_iter *it, void *value)
{
    if (!em_index_iter_valid(it))
        return NULL;
    struct ent *e = it->ix->ch[it->chunk].e[it->pos];
    void *old = e->value;
    e->value = value;
    return old;
}

size_t em_index_iter_rank(const struct em_index_iter *it)
{
    if (!it->ix)
        return 0;
    if (!em_index_iter_valid(it))
        return it->ix->count;
    return fw_prefix(it->ix, it->chunk) + it->pos;
}

/* ---- statistics and checks ---------------------------------------------------------- */

size_t em_index_bytes(const struct em_index *ix)
{
    size_t b = sizeof(*ix) + ix->ent_bytes;
    if (ix->capch)
        b += ix->capch * sizeof(*ix->ch) + (ix->capch + 1) * sizeof(*ix->fw);
    for (size_t ci = 0; ci < ix->nch; ci++)
        b += (size_t)ix->ch[ci].cap * sizeof(*ix->ch[ci].e);
    return b;
}

size_t em_index_chunks(const struct em_index *ix)
{
    return ix->nch;
}

int em_index_check(const struct em_index *ix)
{
    size_t total = 0, bytes = 0;
    const char *prev = NULL;
    if (ix->nch > ix->capch || (ix->nch == 0) != (ix->count == 0))
        return -1;
    for (size_t ci = 0; ci < ix->nch; ci++) {
        const struct chunk *c = &ix->ch[ci];
        if (c->n == 0 || c->n > c->cap || c->cap > ix->chunk_max)
            return -1;
        if (fw_prefix(ix, ci) != total)
            return -1;
        for (size_t i = 0; i < c->n; i++) {
            if (prev && strcmp(prev, c->e[i]->key) >= 0)
                return -1;
            prev = c->e[i]->key;
            bytes += sizeof(struct ent) + strlen(prev) + 1;
        }
        total += c->n;
    }
    if (total != ix->count || fw_prefix(ix, ix->nch) != total || bytes != ix->ent_bytes)
        return -1;
    return 0;
}
