/* The change history; see history.h. */
#include "history.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/xmalloc.h"

uint64_t em_ns_hash(const char *ns)
{
    uint64_t h = nd_fnv64(ND_FNV64_INIT, ns, strlen(ns) + 1);
    return h ? h : 1;
}

/* em_ns_hash of an object's (or a record's) project; 0 for none */
static uint64_t obj_ns_hash(const json_t *o)
{
    if (!o)
        return 0;
    const char *ns =
        json_string_value(json_object_get(json_object_get(o, "metadata"), "namespace"));
    return em_ns_hash(ns ? ns : "");
}

static void push(struct em_history *j, int64_t rev, int64_t time_ms, const char *type,
                 const char *plural, json_t *obj, json_t *prev, struct em_bytes *json)
{
    if (j->len == j->cap) {
        j->cap = j->cap ? j->cap * 2 : 256;
        j->ev = nd_xrealloc(j->ev, j->cap * sizeof *j->ev);
    }
    struct em_change *e = &j->ev[j->len++];
    e->rev = rev;
    e->time_ms = time_ms;
    e->type = em_journal_type_name(type);
    e->plural = nd_xstrdup(plural);
    e->obj = json_incref(obj);
    e->prev = prev ? json_incref(prev) : NULL;
    e->json = em_bytes_ref(json);
    e->prev_json = NULL;
    e->rec = e->prev_rec = NULL;
    e->ns_hash = obj ? obj_ns_hash(obj) : obj_ns_hash(prev);
}

static void free_event(struct em_change *e)
{
    free(e->plural);
    json_decref(e->obj);
    json_decref(e->prev);
    em_bytes_unref(e->json);
    em_bytes_unref(e->prev_json);
    json_decref(e->rec);
    json_decref(e->prev_rec);
}

struct em_bytes *em_change_json(struct em_change *e)
{
    if (!e->json)
        e->json = em_bytes_take(json_dumps(e->obj, JSON_COMPACT));
    return e->json;
}

static uint64_t inflated; /* trees built of changes' bytes, since start (any history) */

uint64_t em_history_inflated(void)
{
    return __atomic_load_n(&inflated, __ATOMIC_RELAXED);
}

static json_t *inflate(const struct em_bytes *b)
{
    if (!b)
        return NULL;
    __atomic_add_fetch(&inflated, 1, __ATOMIC_RELAXED);
    return json_loadb(b->data, b->len, 0, NULL);
}

json_t *em_change_obj(struct em_change *e)
{
    if (!e->obj)
        e->obj = inflate(e->json);
    return e->obj;
}

json_t *em_change_obj_new(const struct em_change *e)
{
    return e->obj ? json_incref(e->obj) : inflate(e->json);
}

json_t *em_change_prev_new(const struct em_change *e)
{
    return e->prev ? json_incref(e->prev) : inflate(e->prev_json);
}

json_t *em_change_sel(struct em_change *e)
{
    return e->rec && !e->obj ? e->rec : em_change_obj(e);
}

json_t *em_change_prev(struct em_change *e)
{
    if (!e->prev && e->prev_json)
        e->prev = inflate(e->prev_json);
    return e->prev;
}

/* History is kept as bytes: every EM_HISTORY_HOT appends (or EM_HISTORY_HOT_BYTES of
 * them), the events older than the newest EM_HISTORY_HOT (and EM_HISTORY_HOT_BYTES) give
 * up their trees (a previous object becomes its compact JSON; an object only the journal
 * still holds, one no longer stored, too). A reader of an old event gets the tree back
 * (em_change_obj, em_change_prev) until the next pass. */
static void compact(struct em_history *j)
{
    size_t keep = 0, bytes = 0;
    while (keep < j->len && keep < EM_HISTORY_HOT) {
        const struct em_change *e = &j->ev[j->len - 1 - keep];
        bytes += e->json ? e->json->len : 0;
        if (bytes > EM_HISTORY_HOT_BYTES)
            break;
        keep++;
    }
    if (j->len <= keep)
        return;
    for (size_t i = 0; i < j->len - keep; i++) {
        struct em_change *e = &j->ev[i];
        if (e->prev) {
            if (!e->prev_json)
                e->prev_json = em_bytes_take(json_dumps(e->prev, JSON_COMPACT));
            json_decref(e->prev);
            e->prev = NULL;
        }
        json_decref(e->rec); /* (a reader builds the tree from the bytes, as for any) */
        json_decref(e->prev_rec);
        e->rec = e->prev_rec = NULL;
        if (e->obj) { /* the store keeps bytes too (entry.h): the tree is built again */
            em_change_json(e);
            json_decref(e->obj);
            e->obj = NULL;
        }
    }
}

/* Rewrites the log with only the kept events (after a trim). */
static void rewrite(struct em_history *j)
{
    struct nd_buf all = ND_BUF_INIT;
    for (size_t i = 0; i < j->len; i++) {
        struct em_change *e = &j->ev[i];
        size_t len;
        char *line = em_store_record_line_bytes(e->rev, e->time_ms, e->type, e->plural,
                                                em_change_json(&j->ev[i])->data, &len);
        nd_buf_add(&all, line, len);
        nd_buf_addch(&all, '\n');
        free(line);
    }
    if (j->store->journal.path)
        em_journal_rewrite(&j->store->journal, all.data ? all.data : "", all.len);
    nd_buf_release(&all);
    j->dropped_since_rewrite = 0;
}

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

/* The stored entry when a record is its current revision (so a restart holds one copy
 * of every object, the store's), else NULL. */
static const struct em_entry *shared(struct em_store *store, const struct em_journal_record *r)
{
    if (!r->name || !r->rv || strcmp(r->type, "DELETED") == 0)
        return NULL;
    const struct em_entry *e =
        em_store_entry(store, nd_kind_by_plural(NULL, r->plural), r->ns, r->name);
    const char *crv = e ? meta_str(em_entry_rec(e), "resourceVersion") : NULL;
    return crv && strcmp(r->rv, crv) == 0 ? e : NULL;
}

/* An event from a record read back: the store's bytes when the record is the object's
 * current revision, else the record's (a reader makes the tree when it needs it); prev,
 * the key's record before it, the same way. */
static void push_record(struct em_history *j, const struct em_journal_record *r,
                        const struct em_journal_record *prev)
{
    const struct em_entry *se = shared(j->store, r);
    push(j, r->rev, r->time_ms, r->type, r->plural, NULL, NULL, se ? se->json : r->json);
    struct em_change *e = &j->ev[j->len - 1];
    e->ns_hash = em_ns_hash(r->ns ? r->ns : "");
    if (prev) {
        const struct em_entry *pe = shared(j->store, prev);
        e->prev_json = em_bytes_ref(pe ? pe->json : prev->json);
    }
}

int em_history_open(struct em_history *j, struct em_store *store, int64_t current_rev,
                    int64_t now_ms, struct nd_buf *err)
{
    (void)err;
    memset(j, 0, sizeof *j);
    j->store = store;
    j->oldest_rev = current_rev;
    /* the record before, of each key, for `prev` */
    json_t *last = json_object(); /* "plural/ns/name" -> index into store->history */
    bool first = true;
    size_t dropped = 0;
    for (size_t i = 0; i < store->nhistory; i++) {
        const struct em_journal_record *r = &store->history[i];
        char *key = nd_xasprintf("%s/%s/%s", r->plural, r->ns, r->name ? r->name : "");
        json_t *li = json_object_get(last, key);
        if (r->time_ms >= now_ms - EM_HISTORY_MS) {
            if (first) {
                j->oldest_rev = r->rev - 1;
                first = false;
            }
            push_record(j, r, li ? &store->history[json_integer_value(li)] : NULL);
        } else {
            dropped++;
        }
        json_object_set_new(last, key, json_integer((json_int_t)i));
        free(key);
    }
    json_decref(last);
    if (first)
        j->oldest_rev = current_rev;
    /* the records now live in the journal (or were dropped) */
    em_journal_records_free(store->history, store->nhistory);
    store->history = NULL;
    store->nhistory = 0;
    if (dropped)
        rewrite(j);
    return 0;
}

void em_history_close(struct em_history *j)
{
    for (size_t i = 0; i < j->len; i++)
        free_event(&j->ev[i]);
    free(j->ev);
    memset(j, 0, sizeof *j);
}

/* Counts the event just pushed (json its bytes), compacting when it is time. */
static void appended(struct em_history *j, const struct em_bytes *json)
{
    j->bytes_since_compact += json ? json->len : 0;
    if (++j->appended_since_compact >= EM_HISTORY_HOT ||
        j->bytes_since_compact >= EM_HISTORY_HOT_BYTES) {
        compact(j);
        j->appended_since_compact = 0;
        j->bytes_since_compact = 0;
    }
}

void em_history_append(struct em_history *j, int64_t rev, int64_t time_ms, const char *type,
                       const char *plural, json_t *obj, json_t *prev, struct em_bytes *json)
{
    push(j, rev, time_ms, type, plural, obj, prev, json);
    appended(j, json);
}

void em_history_append_rec(struct em_history *j, int64_t rev, int64_t time_ms,
                           const char *plural, struct em_bytes *json, json_t *rec,
                           struct em_bytes *prev_json, json_t *prev_rec)
{
    push(j, rev, time_ms, "MODIFIED", plural, NULL, NULL, json);
    struct em_change *e = &j->ev[j->len - 1];
    e->prev_json = em_bytes_ref(prev_json);
    e->rec = json_incref(rec);
    e->prev_rec = json_incref(prev_rec);
    e->ns_hash = obj_ns_hash(rec);
    appended(j, json);
}

void em_history_set_prev_json(struct em_history *j, struct em_bytes *prev_json)
{
    struct em_change *e = j->len ? &j->ev[j->len - 1] : NULL;
    if (!e || !prev_json || e->prev_json)
        return;
    e->prev_json = em_bytes_ref(prev_json);
}

void em_history_trim(struct em_history *j, int64_t now_ms)
{
    size_t drop = 0;
    while (drop < j->len && j->ev[drop].time_ms < now_ms - EM_HISTORY_MS)
        drop++;
    if (!drop)
        return;
    j->oldest_rev = j->ev[drop - 1].rev;
    for (size_t i = 0; i < drop; i++)
        free_event(&j->ev[i]);
    memmove(j->ev, j->ev + drop, (j->len - drop) * sizeof *j->ev);
    j->len -= drop;
    j->dropped_since_rewrite += drop;
    if (j->dropped_since_rewrite > 1000 || j->len == 0)
        rewrite(j);
}

size_t em_history_after(const struct em_history *j, int64_t rev)
{
    size_t lo = 0, hi = j->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->ev[mid].rev <= rev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool em_history_covers(const struct em_history *j, int64_t rev)
{
    return rev >= j->oldest_rev;
}

int64_t em_history_last_rev(const struct em_history *j)
{
    return j->len ? j->ev[j->len - 1].rev : 0;
}

void em_history_clear(struct em_history *j, int64_t rev)
{
    for (size_t i = 0; i < j->len; i++)
        free_event(&j->ev[i]);
    j->len = 0;
    j->oldest_rev = rev;
    rewrite(j);
}

void em_history_drop_after(struct em_history *j, int64_t rev)
{
    while (j->len && j->ev[j->len - 1].rev > rev)
        free_event(&j->ev[--j->len]);
}
