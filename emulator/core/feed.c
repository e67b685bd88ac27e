/* The watch streams' feed of durable changes; see feed.h. */
#include "feed.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "server.h"
#include "util/xmalloc.h"

void em_feed_list_init(struct em_feed_link *l)
{
    l->prev = l->next = l;
}

struct em_feed *em_feed_new(int64_t rev)
{
    struct em_feed *f = nd_xcalloc(1, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    em_feed_list_init(&f->waiting);
    em_feed_list_init(&f->due);
    f->published_rev = f->min_rev = f->ring_gone_rev = rev;
    f->all_hash = em_ns_hash("");
    /* NODUS_EMULATOR_TEST_FEED_CAP (tests): a ring of fewer events, that a test's few
     * changes pass */
    const char *cap = getenv("NODUS_EMULATOR_TEST_FEED_CAP");
    f->cap = cap && atoi(cap) >= 2 && atoi(cap) <= EM_FEED_CAP ? (uint64_t)atoi(cap) : EM_FEED_CAP;
    return f;
}

static void drop(struct em_feed_ev *e)
{
    json_decref(e->obj);
    json_decref(e->prev);
    em_bytes_unref(e->json);
    memset(e, 0, sizeof *e);
}

static void drop_all(struct em_feed *f)
{
    for (uint64_t s = f->first; s < f->next; s++)
        drop(&f->ring[s % EM_FEED_CAP]);
    f->first = f->next;
}

void em_feed_free(struct em_feed *f)
{
    if (!f)
        return;
    drop_all(f);
    em_feed_keys_free(f);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static void list_add(struct em_feed_link *l, struct em_feed_waiter *w)
{
    w->linked = true;
    w->link.prev = l->prev;
    w->link.next = l;
    l->prev->next = &w->link;
    l->prev = &w->link;
}

static void list_remove(struct em_feed_waiter *w)
{
    w->link.prev->next = w->link.next;
    w->link.next->prev = w->link.prev;
    w->linked = false;
}

/* from's waiters go at the end of to's: no work per waiter */
void em_feed_list_move(struct em_feed_link *to, struct em_feed_link *from)
{
    if (from->next == from)
        return;
    struct em_feed_link *first = from->next, *last = from->prev;
    first->prev = to->prev;
    to->prev->next = first;
    last->next = to;
    to->prev = last;
    em_feed_list_init(from);
}

void em_feed_wait(struct em_feed *f, struct em_feed_waiter *w)
{
    if (!w->linked)
        list_add(w->key ? &w->key->waiting : &f->waiting, w);
}

void em_feed_unwait(struct em_feed *f, struct em_feed_waiter *w)
{
    (void)f;
    if (w->linked)
        list_remove(w);
}

#define WAKE_BATCH 64 /* streams woken under one hold of the feed's lock */

/* Wakes every stream due, counted as woken after an answer or at once. */
static void flush(struct em_feed *f, bool after_answer)
{
    pthread_mutex_lock(&f->mu);
    for (;;) {
        struct em_stream *batch[WAKE_BATCH];
        size_t n = 0;
        while (n < WAKE_BATCH && f->due.next != &f->due) {
            struct em_feed_waiter *w = (struct em_feed_waiter *)(void *)f->due.next;
            list_remove(w);
            batch[n++] = w->s;
        }
        if (!n)
            break;
        /* marked with the feed's lock held (no stream is freed meanwhile: em_feed_unwait),
         * resumed without it: the streams just woken read the feed */
        void *resume[WAKE_BATCH];
        size_t k = em_stream_wake_mark(batch, n, resume);
        if (after_answer)
            f->woken_after_answer += n;
        else
            f->woken_at_once += n;
        pthread_mutex_unlock(&f->mu);
        em_stream_wake_resume(resume, k);
        pthread_mutex_lock(&f->mu);
    }
    pthread_mutex_unlock(&f->mu);
}

void em_feed_flush(struct em_feed *f)
{
    if (f)
        flush(f, false);
}

static void flush_after_answer(void *cls)
{
    struct em_feed *f = cls;
    pthread_mutex_lock(&f->mu);
    f->flush_asked = false;
    pthread_mutex_unlock(&f->mu);
    flush(f, true);
}

/* Feed lock held: the streams made due are to be woken. True when the caller must flush
 * now (the feed's lock let go); else a flush is asked for after the answer of the request
 * making this publish, or one already is. */
static bool make_due(struct em_feed *f)
{
    if (f->due.next == &f->due || f->flush_asked)
        return false;
    if (em_http_after_answer(flush_after_answer, f)) {
        f->flush_asked = true;
        return false;
    }
    return true;
}

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

/* What a stream of the ring selects with (NEW reference; NULL for NULL): the record of
 * tree (entry.h: a record reads as the object does for the namespace, the name, authz
 * and the selectors; what the initial ADDED events already select with), the stored
 * entry's when it is at tree's revision, so that the ring's EM_FEED_CAP changes hold no
 * trees (a Job's is ~10 KB of heap, its record a few hundred bytes). The tree is
 * dropped (taken). */
static json_t *select_rec(struct em_server *srv, const struct nd_kind *k, json_t *tree)
{
    if (!tree)
        return NULL;
    k = em_store_kind(k); /* the stored kind's record (not a view's) */
    const char *name = meta_str(tree, "name"), *rv = meta_str(tree, "resourceVersion");
    const char *ns = meta_str(tree, "namespace");
    const struct em_entry *se = k && name ? em_store_entry(&srv->store, k, ns ? ns : "", name)
                                          : NULL;
    const char *srv_rv = se ? meta_str(em_entry_rec(se), "resourceVersion") : NULL;
    json_t *rec = srv_rv && rv && strcmp(srv_rv, rv) == 0 ? json_incref((json_t *)em_entry_rec(se))
                                                          : em_rec_of(k, tree);
    json_decref(tree);
    return rec;
}

void em_feed_publish(struct em_server *srv)
{
    struct em_feed *f = srv->feed;
    if (!f)
        return;
    struct em_history *j = &srv->history;
    int64_t upto = em_store_durable_rev(&srv->store);
    pthread_mutex_lock(&f->mu);
    uint64_t had = f->next;
    int64_t min_was = f->min_rev;
    /* of more than the ring holds (a clock jump's), the older go again before this ends:
     * no trees for those (nobody reads them: the feed's lock is held throughout) */
    size_t from = em_history_after(j, f->published_rev), end = em_history_after(j, upto);
    size_t keep_from = end - from > f->cap ? end - f->cap : from;
    bool blind = false;
    for (size_t i = from; i < j->len && j->ev[i].rev <= upto; i++) {
        struct em_change *e = &j->ev[i];
        const struct nd_kind *k = nd_kind_by_plural(NULL, e->plural);
        if (f->next - f->first == f->cap) {
            /* the oldest goes: a stream behind it reads the history */
            struct em_feed_ev *old = &f->ring[f->first % EM_FEED_CAP];
            if (old->rev > f->min_rev)
                f->min_rev = old->rev;
            em_feed_keys_gone(f, old->plural, old->ns_hash, old->rev);
            drop(old);
            f->first++;
        }
        struct em_feed_ev *n = &f->ring[f->next++ % EM_FEED_CAP];
        n->rev = e->rev;
        n->plural = k ? k->plural : "";
        n->type = e->type;
        /* records, not trees (select_rec); none for a change dropped again below */
        n->obj = i < keep_from ? NULL
                 : e->rec      ? json_incref(e->rec) /* written without a tree: its record */
                               : select_rec(srv, k, em_change_obj_new(e));
        n->prev = i < keep_from ? NULL
                  : e->rec      ? json_incref(e->prev_rec)
                                : select_rec(srv, k, em_change_prev_new(e));
        n->json = em_bytes_ref(em_change_json(e));
        n->ns_hash = e->ns_hash; /* (0: an object the history had none of) */
        if (n->ns_hash)
            em_feed_keys_touch(f, n->plural, n->ns_hash);
        else
            blind = true; /* every key is due, once */
        f->published_rev = e->rev;
    }
    if (blind)
        em_feed_keys_all_due(f);
    if (upto > f->published_rev)
        f->published_rev = upto; /* revisions without events (none are skipped) */
    /* what the history no longer covers (24 hours, a reset) is Expired: the slow path */
    if (j->oldest_rev > f->min_rev)
        f->min_rev = j->oldest_rev;
    pthread_cond_broadcast(&f->cv);
    /* no event and no stream sent to the history: no news for anyone (the journal's
     * thread publishes after each writer that committed first); the keyed streams were
     * made due above by the changes of their own keys */
    if (f->next != had || f->min_rev != min_was)
        em_feed_list_move(&f->due, &f->waiting);
    bool now = make_due(f);
    pthread_mutex_unlock(&f->mu);
    if (now)
        flush(f, false);
}

void em_feed_reset(struct em_server *srv)
{
    struct em_feed *f = srv->feed;
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    drop_all(f);
    f->published_rev = f->min_rev = srv->history.oldest_rev;
    /* no keyed stream goes on from the ring past a reset (em_feed_catch_up) */
    f->reset_rev = f->ring_gone_rev = f->published_rev;
    pthread_cond_broadcast(&f->cv);
    em_feed_list_move(&f->due, &f->waiting);
    em_feed_keys_all_due(f);
    bool now = make_due(f);
    pthread_mutex_unlock(&f->mu);
    if (now)
        flush(f, false);
}

void em_feed_stop(struct em_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->stopping = true;
    pthread_cond_broadcast(&f->cv);
    em_feed_list_move(&f->due, &f->waiting);
    em_feed_keys_all_due(f);
    pthread_mutex_unlock(&f->mu);
    em_feed_flush(f);
}
