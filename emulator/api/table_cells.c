/* Each object revision's Table row, made once; see table_cells.h. */
#include "table_cells.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

#define MAX_COLUMNS 32

/* One revision's row: the cells' JSON text (each with its comma before it but the first),
 * the AGE cells left out and kept as the time they count from. */
struct entry {
    const struct nd_kind *kind;
    struct em_bytes *rev;          /* held */
    struct entry *chain;           /* next in the bucket */
    struct entry *newer, *older;   /* the recency list */
    char *cells;                   /* the cells but the AGE ones, JSON, comma before each */
    size_t ncols;
    uint32_t end[MAX_COLUMNS];     /* where column i's text ends in cells */
    int64_t from[MAX_COLUMNS];     /* an AGE column's time; other columns: unused */
    unsigned char age[MAX_COLUMNS];
    char *meta;                    /* the metadata (no managedFields), JSON; NULL until asked */
    size_t meta_len;
    size_t cost;
};

struct em_table_cells {
    pthread_mutex_t mu;
    struct entry **buckets;
    size_t nbuckets; /* a power of two */
    size_t count, size, max;
    uint64_t made, reused;
    struct entry *newest, *oldest;
};

struct em_table_cells *em_table_cells_new(size_t max_bytes)
{
    struct em_table_cells *c = nd_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    c->nbuckets = 256;
    c->buckets = nd_xcalloc(c->nbuckets, sizeof *c->buckets);
    c->max = max_bytes;
    return c;
}

static void entry_free(struct entry *e)
{
    em_bytes_unref(e->rev);
    free(e->cells);
    free(e->meta);
    free(e);
}

void em_table_cells_free(struct em_table_cells *c)
{
    if (!c)
        return;
    for (struct entry *e = c->newest, *next; e; e = next) {
        next = e->older;
        entry_free(e);
    }
    free(c->buckets);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void em_table_cells_lock(struct em_table_cells *c)
{
    if (c)
        pthread_mutex_lock(&c->mu);
}

void em_table_cells_unlock(struct em_table_cells *c)
{
    if (c)
        pthread_mutex_unlock(&c->mu);
}

size_t em_table_cells_count(struct em_table_cells *c)
{
    return c->count;
}

size_t em_table_cells_size(struct em_table_cells *c)
{
    return c->size;
}

json_t *em_table_cells_stats(struct em_table_cells *c)
{
    if (!c)
        return json_pack("{sisisisi}", "kept", 0, "bytes", 0, "made", 0, "reused", 0);
    pthread_mutex_lock(&c->mu);
    json_t *j = json_pack("{sIsIsIsI}", "kept", (json_int_t)c->count, "bytes",
                          (json_int_t)c->size, "made", (json_int_t)c->made, "reused",
                          (json_int_t)c->reused);
    pthread_mutex_unlock(&c->mu);
    return j;
}

static size_t bucket_of(const struct em_table_cells *c, const struct nd_kind *k,
                        const struct em_bytes *rev)
{
    uint64_t h = ((uint64_t)(uintptr_t)rev ^ ((uint64_t)(uintptr_t)k << 17)) *
                 UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (c->nbuckets - 1);
}

static void unlink_recency(struct em_table_cells *c, struct entry *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void push_newest(struct em_table_cells *c, struct entry *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest)
        c->newest->newer = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

static void drop(struct em_table_cells *c, struct entry *e)
{
    struct entry **p = &c->buckets[bucket_of(c, e->kind, e->rev)];
    while (*p != e)
        p = &(*p)->chain;
    *p = e->chain;
    unlink_recency(c, e);
    c->count--;
    c->size -= e->cost;
    entry_free(e);
}

static void grow(struct em_table_cells *c)
{
    struct entry **old = c->buckets;
    size_t n = c->nbuckets;
    c->nbuckets = n * 2;
    c->buckets = nd_xcalloc(c->nbuckets, sizeof *c->buckets);
    for (size_t i = 0; i < n; i++)
        for (struct entry *e = old[i], *next; e; e = next) {
            next = e->chain;
            size_t b = bucket_of(c, e->kind, e->rev);
            e->chain = c->buckets[b];
            c->buckets[b] = e;
        }
    free(old);
}

/* Appends s as a JSON string, as the Table has always written a cell (a cell that is
 * not UTF-8 is ""). */
static void add_cell(struct nd_buf *out, const char *s)
{
    json_t *j = json_string(s);
    char *text = json_dumps(j ? j : json_string(""), JSON_COMPACT | JSON_ENCODE_ANY);
    nd_buf_adds(out, text ? text : "\"\"");
    free(text);
    json_decref(j);
}

/* The object of o (its tree built from the stored bytes when o holds none). */
static const json_t *obj_of(const struct em_table_obj *o)
{
    return o->obj ? o->obj : o->entry ? em_entry_obj(o->entry) : NULL;
}

/* A NEW entry of o's row (not in the cache yet). */
static struct entry *make(const struct nd_kind *k, const struct em_table_obj *o)
{
    const json_t *obj = obj_of(o);
    struct entry *e = nd_xcalloc(1, sizeof *e);
    e->kind = k;
    e->rev = em_bytes_ref(o->rev);
    struct nd_buf text = ND_BUF_INIT, cell = ND_BUF_INIT;
    for (const struct nd_column *col = k->columns; col->name && e->ncols < MAX_COLUMNS; col++) {
        size_t i = e->ncols++;
        if (i)
            nd_buf_addch(&text, ',');
        if (nd_column_age_from(col, obj, &e->from[i])) {
            e->age[i] = 1;
        } else {
            nd_buf_reset(&cell);
            nd_column_render(col, obj, 0, &cell);
            add_cell(&text, cell.data ? cell.data : "");
        }
        e->end[i] = (uint32_t)text.len;
    }
    nd_buf_release(&cell);
    e->cells = nd_buf_detach(&text);
    e->cost = sizeof *e + e->end[e->ncols ? e->ncols - 1 : 0] + (o->rev ? o->rev->len : 0);
    return e;
}

/* The entry of o, made (and kept, unless too big or o has no bytes) when missing; when
 * not kept, *made is that NEW entry, for the caller to free. again: a second look for the
 * same row (its metadata), not counted in the stats. */
static struct entry *lookup(struct em_table_cells *c, const struct nd_kind *k,
                            const struct em_table_obj *o, bool again, struct entry **made)
{
    *made = NULL;
    if (!c || !o->rev) {
        if (c && !again)
            c->made++;
        *made = make(k, o);
        return *made;
    }
    size_t b = bucket_of(c, k, o->rev);
    for (struct entry *e = c->buckets[b]; e; e = e->chain)
        if (e->rev == o->rev && e->kind == k) {
            c->reused += !again;
            unlink_recency(c, e);
            push_newest(c, e);
            return e;
        }
    struct entry *e = make(k, o);
    c->made += !again;
    if (e->cost > c->max) { /* never kept: it would evict everything */
        *made = e;
        return e;
    }
    while (c->size + e->cost > c->max && c->oldest)
        drop(c, c->oldest);
    if (c->count + 1 > c->nbuckets)
        grow(c);
    b = bucket_of(c, k, o->rev);
    e->chain = c->buckets[b];
    c->buckets[b] = e;
    push_newest(c, e);
    c->count++;
    c->size += e->cost;
    return e;
}

void em_table_cells_row(struct em_table_cells *c, const struct nd_kind *k,
                        const struct em_table_obj *o, int64_t now_unix, struct nd_buf *out)
{
    struct entry *made;
    struct entry *e = lookup(c, k, o, false, &made);
    nd_buf_addch(out, '[');
    uint32_t start = 0;
    for (size_t i = 0; i < e->ncols; i++) {
        nd_buf_add(out, e->cells + start, e->end[i] - start);
        if (e->age[i]) {
            nd_buf_addch(out, '"');
            nd_column_render_age(e->from[i], now_unix, out);
            nd_buf_addch(out, '"');
        }
        start = e->end[i];
    }
    nd_buf_addch(out, ']');
    if (made)
        entry_free(made);
}

/* o's metadata but managedFields, compact JSON: NEW. */
static char *meta_text(const json_t *obj, size_t *len)
{
    json_t *meta = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(obj, "metadata"), key, v) {
        if (strcmp(key, "managedFields") != 0)
            json_object_set(meta, key, v);
    }
    char *text = json_dumps(meta, JSON_COMPACT);
    json_decref(meta);
    if (!text)
        text = nd_xstrdup("{}");
    *len = strlen(text);
    return text;
}

void em_table_cells_meta(struct em_table_cells *c, const struct nd_kind *k,
                         const struct em_table_obj *o, struct nd_buf *out)
{
    struct entry *made;
    struct entry *e = lookup(c, k, o, true, &made);
    if (!e->meta) {
        e->meta = meta_text(obj_of(o), &e->meta_len);
        if (!made) {
            e->cost += e->meta_len;
            c->size += e->meta_len;
            while (c->size > c->max && c->oldest != e)
                drop(c, c->oldest);
        }
    }
    nd_buf_add(out, e->meta, e->meta_len);
    if (made)
        entry_free(made);
}
