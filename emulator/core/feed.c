/* The watch streams' feed of durable changes; see feed.h. */
#include "feed.h"

#include <string.h>

#include "kinds/registry.h"
#include "server.h"
#include "util/xmalloc.h"

struct em_feed *em_feed_new(int64_t rev)
{
    struct em_feed *f = nd_xcalloc(1, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->published_rev = f->min_rev = rev;
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
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

void em_feed_wait(struct em_feed *f, struct em_feed_waiter *w)
{
    if (w->linked)
        return;
    w->linked = true;
    w->prev = NULL;
    w->next = f->waiters;
    if (f->waiters)
        f->waiters->prev = w;
    f->waiters = w;
}

void em_feed_unwait(struct em_feed *f, struct em_feed_waiter *w)
{
    if (!w->linked)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        f->waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->linked = false;
}

/* Feed lock held: every waiter woken, the list emptied. */
static void wake_waiters(struct em_feed *f)
{
    struct em_feed_waiter *w = f->waiters;
    f->waiters = NULL;
    while (w) {
        struct em_feed_waiter *next = w->next;
        w->linked = false;
        em_stream_wake(w->s);
        w = next;
    }
}

void em_feed_publish(struct em_server *srv)
{
    struct em_feed *f = srv->feed;
    if (!f)
        return;
    struct em_history *j = &srv->history;
    int64_t upto = em_store_durable_rev(&srv->store);
    pthread_mutex_lock(&f->mu);
    for (size_t i = em_history_after(j, f->published_rev); i < j->len && j->ev[i].rev <= upto;
         i++) {
        struct em_change *e = &j->ev[i];
        const struct nd_kind *k = nd_kind_by_plural(NULL, e->plural);
        if (f->next - f->first == EM_FEED_CAP) {
            /* the oldest goes: a stream behind it reads the history */
            struct em_feed_ev *old = &f->ring[f->first % EM_FEED_CAP];
            if (old->rev > f->min_rev)
                f->min_rev = old->rev;
            drop(old);
            f->first++;
        }
        struct em_feed_ev *n = &f->ring[f->next++ % EM_FEED_CAP];
        n->rev = e->rev;
        n->plural = k ? k->plural : "";
        n->type = e->type;
        n->obj = json_incref(em_change_obj(e));
        json_t *prev = em_change_prev(e);
        n->prev = prev ? json_incref(prev) : NULL;
        n->json = em_bytes_ref(em_change_json(e));
        f->published_rev = e->rev;
    }
    if (upto > f->published_rev)
        f->published_rev = upto; /* revisions without events (none are skipped) */
    /* what the history no longer covers (24 hours, a reset) is Expired: the slow path */
    if (j->oldest_rev > f->min_rev)
        f->min_rev = j->oldest_rev;
    pthread_cond_broadcast(&f->cv);
    wake_waiters(f);
    pthread_mutex_unlock(&f->mu);
}

void em_feed_reset(struct em_server *srv)
{
    struct em_feed *f = srv->feed;
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    drop_all(f);
    f->published_rev = f->min_rev = srv->history.oldest_rev;
    pthread_cond_broadcast(&f->cv);
    wake_waiters(f);
    pthread_mutex_unlock(&f->mu);
}

void em_feed_stop(struct em_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->stopping = true;
    pthread_cond_broadcast(&f->cv);
    wake_waiters(f);
    pthread_mutex_unlock(&f->mu);
}
