/* Watch streams: every change after a resourceVersion, in order, from the history.
 *
 * A stream is a non-blocking reader (struct em_stream) that the HTTP layer's event loop
 * calls whenever the socket can take bytes; it turns the feed's or the history's changes
 * into lines and, when there is nothing to send, registers with the feed (em_feed_wait:
 * woken by the next publish, reset or shutdown) and names when it must be looked at
 * again (its timeout, its next bookmark), costing no thread while it waits. It ends on
 * timeoutSeconds, on shutdown, or when the client goes away (the HTTP layer sees its
 * hang-up: loop.h); it never ends early otherwise (kubectl's get -w exits when a
 * watch ends).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "api.h"
#include "feed.h"
#include "objects.h"
#include "selector/selector.h"
#include "table.h"
#include "torture.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define BOOKMARK_MS (30 * 1000)
#define WATCH_MAX_TIMEOUT_S (100L * 365 * 24 * 3600) /* a century: no overflow in ms */

struct watch {
    struct em_server *srv;
    const struct nd_kind *kind;
    char *ns;
    char *name; /* a deprecated .../watch/.../{name} path: only that object; else NULL */
    struct em_identity who; /* projects borrowed from the token file, which outlives us */
    struct nd_select sel;
    struct em_req req_copy; /* query of the request, for table building */
    struct em_accept accept; /* each event's object: as it is, a Table, metadata only */
    bool table_columns_sent;
    bool bookmarks;
    bool ended;
    int64_t last_rev;
    int64_t deadline_real_ms; /* 0: none */
    int64_t next_bookmark_ms; /* emulated clock */
    struct nd_buf pending;
    size_t sent;              /* bytes of pending already handed out */
    struct em_stream *stream; /* for the socket */
    struct em_feed_waiter waiter;
    uint64_t ns_hash;         /* em_ns_hash(ns), 0 for every project */
    unsigned torture_n;       /* changes emitted (a broken build's counter: torture.h) */
};

static bool matches(struct watch *w, const json_t *obj)
{
    if (!obj)
        return false;
    if (*w->ns && strcmp(em_obj_ns(obj), w->ns) != 0)
        return false;
    if (w->name && strcmp(em_obj_name(obj), w->name) != 0)
        return false;
    if (!em_authz_sees_object(&w->who, w->kind, obj))
        return false;
    return nd_select_matches(&w->sel, obj);
}

/* A change of another kind, or of another project known by its hash (ns_hash 0: not
 * known): passed over without looking at the object, or building its tree */
static bool not_ours(const struct watch *w, const char *plural, uint64_t ns_hash)
{
    return (w->ns_hash && ns_hash && ns_hash != w->ns_hash) || strcmp(plural, w->kind->plural) != 0;
}

/* What a change (type, the object as it became, the object before) is to this watch:
 * "ADDED", "MODIFIED", "DELETED" (deleted, or it left the selection) or NULL (unseen). */
static const char *seen_as(struct watch *w, const char *type, const json_t *obj,
                           const json_t *prev)
{
    bool before = prev && matches(w, prev);
    if (strcmp(type, "DELETED") == 0)
        return matches(w, obj) || before ? "DELETED" : NULL;
    bool now = matches(w, obj);
    if (now)
        return before ? "MODIFIED" : "ADDED";
    return before ? "DELETED" : NULL;
}

/* An event of an object whose compact JSON is made (json), unless the watch converts it. */
static void emit_bytes(struct watch *w, const char *type, const json_t *obj,
                       const struct em_bytes *json);

static void emit(struct watch *w, const char *type, const json_t *obj)
{
    json_t *payload;
    bool error = strcmp(type, "ERROR") == 0;
    if (w->accept.repr == EM_REPR_TABLE && !error && strcmp(type, "BOOKMARK") != 0) {
        struct em_table_row row = {.o = {.obj = obj}};
        nd_buf_addf(&w->pending, "{\"type\":\"%s\",\"object\":", type);
        em_table_write(w->srv, w->kind, &row, 1,
                       &(struct em_table_opts){.req = &w->req_copy,
                                               .version = w->accept.version,
                                               .with_columns = !w->table_columns_sent},
                       &w->pending);
        nd_buf_adds(&w->pending, "}\n");
        w->table_columns_sent = true;
        return;
    }
    if (w->accept.repr == EM_REPR_META && !error) {
        /* bookmarks too, as kube-apiserver converts them */
        payload = em_partial_object(obj, w->accept.version);
    } else {
        payload = json_incref((json_t *)obj);
    }
    json_t *ev = json_pack("{ssso}", "type", type, "object", payload);
    char *line = json_dumps(ev, JSON_COMPACT);
    nd_buf_adds(&w->pending, line);
    nd_buf_addch(&w->pending, '\n');
    free(line);
    json_decref(ev);
}

static void emit_bytes(struct watch *w, const char *type, const json_t *obj,
                       const struct em_bytes *json)
{
    if ((EM_TORTURE_WATCH_SKIP || EM_TORTURE_WATCH_REPEAT) && ++w->torture_n % 50 == 0) {
        if (EM_TORTURE_WATCH_SKIP)
            return;
        emit_bytes(w, type, obj, json); /* and once more below */
    }
    if (w->kind->from_stored) { /* a view: the stored object converted */
        json_t *seen = w->kind->from_stored(obj);
        emit(w, type, seen);
        json_decref(seen);
        return;
    }
    if (w->accept.repr != EM_REPR_OBJECT || !json) {
        emit(w, type, obj);
        return;
    }
    nd_buf_addf(&w->pending, "{\"type\":\"%s\",\"object\":", type);
    nd_buf_add(&w->pending, json->data, json->len);
    nd_buf_adds(&w->pending, "}\n");
}

static void emit_expired(struct watch *w, int64_t rev)
{
    char msg[128];
    snprintf(msg, sizeof msg, "too old resource version: %lld (%lld)", (long long)rev,
             (long long)w->srv->history.oldest_rev);
    json_t *st = json_pack("{sssss{}sssssssi}", "kind", "Status", "apiVersion", "v1", "metadata",
                           "status", "Failure", "message", msg, "reason", "Expired", "code", 410);
    emit(w, "ERROR", st);
    json_decref(st);
    w->ended = true;
}

/* A BOOKMARK at the store's revision; initial_end marks the end of the initial events
 * of sendInitialEvents=true with the annotation client-go's streaming lists wait for. */
static void emit_bookmark(struct watch *w, bool initial_end)
{
    char rv[24];
    int64_t at = w->srv->store.revision;
    snprintf(rv, sizeof rv, "%lld", (long long)(at > w->last_rev ? at : w->last_rev));
    json_t *obj = json_pack("{sssss{ss}}", "kind", w->kind->kind, "apiVersion",
                            w->kind->api_version, "metadata", "resourceVersion", rv);
    if (initial_end)
        json_object_set_new(json_object_get(obj, "metadata"), "annotations",
                            json_pack("{ss}", "k8s.io/initial-events-end", "true"));
    emit(w, "BOOKMARK", obj);
    json_decref(obj);
}

/* Moves the history's changes after last_rev into pending (lock held). */
static void collect(struct watch *w)
{
    struct em_history *j = &w->srv->history;
    if (!em_history_covers(j, w->last_rev)) {
        emit_expired(w, w->last_rev);
        return;
    }
    /* only what is on disk: a watch never shows a change a crash could undo */
    int64_t durable = em_store_durable_rev(&w->srv->store);
    for (size_t i = em_history_after(j, w->last_rev); i < j->len && w->pending.len < 256 * 1024;
         i++) {
        struct em_change *e = &j->ev[i];
        if (e->rev > durable)
            break;
        w->last_rev = e->rev;
        if (not_ours(w, e->plural, e->ns_hash))
            continue;
        json_t *obj = em_change_obj(e);
        const char *type = seen_as(w, e->type, obj, em_change_prev(e));
        if (type) /* the bytes made when the change was stored */
            emit_bytes(w, type, obj, w->accept.repr != EM_REPR_OBJECT ? NULL : em_change_json(e));
    }
}

/* When a stream waiting for a change must be looked at again without one (real ms, 0:
 * never): its timeout or (slow path, server lock held) its next bookmark, whichever is
 * nearer; at most a second ahead while it sends bookmarks, for a clock that jumps. */
static int64_t wake_at(const struct watch *w, int64_t real_now)
{
    int64_t at = w->deadline_real_ms;
    if (w->bookmarks) {
        int64_t d = em_clock_real_delay_ms(&w->srv->clock, w->next_bookmark_ms);
        int64_t b = real_now + (d < 1 ? 1 : d > 1000 ? 1000 : d);
        if (!at || b < at)
            at = b;
    }
    return at;
}

/* Hands out what is pending; 0 when nothing is. A caught-up stream keeps at most 16 KiB
 * of buffer: ten thousand of them that once sent a long list hold no more. */
static ssize_t take_pending(struct watch *w, char *buf, size_t max)
{
    ssize_t n = (ssize_t)nd_buf_take(&w->pending, &w->sent, buf, max);
    if (!w->pending.len && w->pending.cap > 16 * 1024) {
        nd_buf_release(&w->pending);
        nd_buf_init(&w->pending, 0);
    }
    return n;
}

/* Nothing to send (feed lock held): woken by the next publish, or when its timeout or
 * its next bookmark is due. */
static ssize_t wait_for_news(struct watch *w, int64_t real_now)
{
    em_feed_wait(w->srv->feed, &w->waiter);
    w->stream->wake_at_ms = wake_at(w, real_now);
    return EM_STREAM_AGAIN;
}

static bool client_gone_now(struct watch *w)
{
    return __atomic_load_n(&w->stream->gone, __ATOMIC_RELAXED);
}

/* The events of the feed's ring after last_rev, as collect() makes them from the
 * history (feed lock held). */
static void collect_feed(struct watch *w, struct em_feed *f)
{
    /* the ring is in revision order: the first event after last_rev by halving, not a
     * walk of up to EM_FEED_CAP events by each of ten thousand streams */
    uint64_t lo = f->first, hi = f->next;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (f->ring[mid % EM_FEED_CAP].rev <= w->last_rev)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint64_t s = lo; s < f->next && w->pending.len < 256 * 1024; s++) {
        const struct em_feed_ev *e = &f->ring[s % EM_FEED_CAP];
        w->last_rev = e->rev;
        if (not_ours(w, e->plural, e->ns_hash))
            continue;
        const char *type = seen_as(w, e->type, e->obj, e->prev);
        if (type)
            emit_bytes(w, type, e->obj, e->json);
    }
}

/* The fast path of a caught-up JSON stream without bookmarks: the feed (feed.h), not the
 * server lock; the history under the server lock only when the stream is behind the
 * ring. Never waits: EM_STREAM_AGAIN when there is nothing. */
static ssize_t watch_read_feed(struct watch *w, char *buf, size_t max)
{
    struct em_server *srv = w->srv;
    struct em_feed *f = srv->feed;
    ssize_t n = 0;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        if ((n = take_pending(w, buf, max)) > 0)
            break;
        if (w->ended || srv->stopping || f->stopping)
            break;
        int64_t real_now = em_real_now_ms();
        if (w->deadline_real_ms && real_now >= w->deadline_real_ms)
            break;
        if (w->last_rev < f->min_rev && !em_feed_catch_up(f, &w->waiter, &w->last_rev)) {
            /* behind the ring, and a change of its own (or one not known) left it: the
             * history (and Expired) under the server lock */
            int64_t was = w->last_rev;
            pthread_mutex_unlock(&f->mu);
            pthread_mutex_lock(&srv->lock);
            collect(w);
            pthread_mutex_unlock(&srv->lock);
            pthread_mutex_lock(&f->mu);
            if (w->pending.len || w->ended || w->last_rev != was)
                continue;
        } else {
            collect_feed(w, f);
            if (w->pending.len)
                continue;
        }
        if (!client_gone_now(w))
            n = wait_for_news(w, real_now);
        break;
    }
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* A JSON stream without bookmarks of a stored kind reads the feed's ring (feed.h) */
static bool on_feed(const struct watch *w)
{
    return w->accept.repr == EM_REPR_OBJECT && !w->bookmarks && !w->kind->from_stored;
}

static ssize_t watch_read(void *cls, char *buf, size_t max)
{
    struct watch *w = cls;
    struct em_server *srv = w->srv;
    if (!srv->feed) /* not serving: what is pending, then the end */
        return take_pending(w, buf, max);
    /* the feed holds records (feed.h): a view converts the whole object, from the history */
    if (on_feed(w))
        return watch_read_feed(w, buf, max);
    pthread_mutex_lock(&srv->lock);
    ssize_t n = 0;
    for (;;) {
        if ((n = take_pending(w, buf, max)) > 0)
            break;
        if (w->ended || srv->stopping)
            break;
        int64_t real_now = em_real_now_ms();
        if (w->deadline_real_ms && real_now >= w->deadline_real_ms)
            break;
        collect(w);
        if (w->pending.len)
            continue;
        int64_t emu_now = em_clock_now_ms(&srv->clock);
        if (w->bookmarks && emu_now >= w->next_bookmark_ms) {
            emit_bookmark(w, false);
            w->next_bookmark_ms = emu_now + BOOKMARK_MS;
            continue;
        }
        if (client_gone_now(w))
            break;
        /* publishes are made under the server lock: none is missed */
        pthread_mutex_lock(&srv->feed->mu);
        n = wait_for_news(w, real_now);
        pthread_mutex_unlock(&srv->feed->mu);
        break;
    }
    pthread_mutex_unlock(&srv->lock);
    return n;
}

static void watch_free(void *cls)
{
    struct watch *w = cls;
    if (w->srv->feed) {
        pthread_mutex_lock(&w->srv->feed->mu);
        em_feed_unwait(w->srv->feed, &w->waiter);
        em_feed_key_put(w->srv->feed, w->waiter.key);
        pthread_mutex_unlock(&w->srv->feed->mu);
    }
    pthread_mutex_lock(&w->srv->lock);
    w->srv->stats.watches_open--;
    pthread_mutex_unlock(&w->srv->lock);
    nd_select_release(&w->sel);
    json_decref(w->req_copy.query);
    nd_buf_release(&w->pending);
    free(w->ns);
    free(w->name);
    free(w);
}

/* What the watch's changes are known by: its project's hash, and for a stream of the
 * ring its key, so that only the changes of its kind in its project wake it (feed.h) */
static void key_watch(struct watch *w)
{
    struct em_feed *f = w->srv->feed;
    w->ns_hash = *w->ns ? em_ns_hash(w->ns) : 0;
    if (f && on_feed(w)) {
        pthread_mutex_lock(&f->mu);
        w->waiter.key = em_feed_key_get(f, w->kind->plural, w->ns);
        pthread_mutex_unlock(&f->mu);
    }
}

int em_api_watch(struct em_api *a)
{
    struct em_server *srv = a->srv;
    int64_t rv, t = 0;
    bool timeout, initial, initial_given = em_req_query(a->req, "sendInitialEvents") != NULL;
    /* query.h's table checked these, and that sendInitialEvents comes with
     * resourceVersionMatch=NotOlderThan */
    if (em_api_query_rv(a, &rv) < 0 || em_api_query_int(a, "timeoutSeconds", &t, &timeout) < 0 ||
        em_api_query_bool(a, "sendInitialEvents", &initial) < 0)
        return -1;
    struct watch *w = nd_xcalloc(1, sizeof *w);
    w->srv = srv;
    w->kind = a->kind;
    w->ns = nd_xstrdup(a->ns);
    /* kube-apiserver adds metadata.name=NAME to the field selector */
    w->name = a->path.name ? nd_xstrdup(a->path.name) : NULL;
    w->who = *a->who;
    nd_buf_init(&w->pending, 0);
    w->req_copy.query = json_incref(a->req->query);
    if (em_api_selectors(a, ND_SELECT_READ, &w->sel) < 0)
        goto fail;
    if (timeout && t < 0) {
        nd_status_set(&a->st, "BadRequest", "send timeoutSeconds=0 or more, or leave it out",
                      "invalid value for query parameter timeoutSeconds: \"%lld\" (want a whole "
                      "number, 0 or more)",
                      (long long)t);
        goto fail;
    }
    if (t > WATCH_MAX_TIMEOUT_S) /* kube takes any int64: longer is forever here */
        t = WATCH_MAX_TIMEOUT_S;
    if (t > 0)
        w->deadline_real_ms = em_real_now_ms() + t * 1000;
    if (em_api_query_bool(a, "allowWatchBookmarks", &w->bookmarks) < 0)
        goto fail;
    w->next_bookmark_ms = em_clock_now_ms(&srv->clock) + BOOKMARK_MS;
    w->accept = a->accept;
    if (initial_given && !initial) {
        /* sendInitialEvents=false: changes after rv (NotOlderThan; one not reached yet
         * too, as below), or from now */
        w->last_rev = rv > 0 ? rv : srv->store.revision;
        if (!em_history_covers(&srv->history, w->last_rev))
            emit_expired(w, w->last_rev);
    } else if (initial && em_api_wait_fresh(a, rv) < 0) {
        /* a streaming list at a version the server has not reached in 3 s: as
         * kube-apiserver, one ERROR event holding the 504 Timeout */
        json_t *st = nd_status_to_json(&a->st);
        emit(w, "ERROR", st);
        json_decref(st);
        nd_status_release(&a->st);
        w->ended = true;
    } else if (rv <= 0 || initial) {
        /* no starting point, or sendInitialEvents=true (a state at least as new as rv: the
         * current one): the current objects first, as ADDED */
        w->last_rev = srv->store.revision;
        struct em_store_cursor c;
        em_store_seek(&srv->store, a->kind, *a->ns ? a->ns : NULL, NULL, NULL, &c);
        const struct em_entry *e;
        /* the records select (entry.h); a tree only for a view or a conversion */
        bool whole = w->kind->from_stored || w->accept.repr != EM_REPR_OBJECT;
        while ((e = em_store_next(&c))) {
            const json_t *o = w->kind->from_stored ? em_entry_obj(e) : em_entry_rec(e);
            if (matches(w, o))
                emit_bytes(w, "ADDED", whole ? em_entry_obj(e) : o,
                           w->accept.repr != EM_REPR_OBJECT ? NULL : em_store_entry_json(e));
        }
        /* then, for a streaming list (client-go's WatchList, kubectl 1.30+), where they end */
        if (initial && w->bookmarks)
            emit_bookmark(w, true);
    } else {
        /* the changes after rv, as kube-apiserver: after a version the server has not
         * reached yet too (nothing is sent until it is passed) */
        w->last_rev = rv;
        if (!em_history_covers(&srv->history, w->last_rev))
            emit_expired(w, w->last_rev);
    }
    key_watch(w);
    srv->stats.watches_open++;
    srv->stats.watches_total++;
    const char *accept = em_req_header(a->req, "accept");
    w->stream = em_resp_stream(a->resp,
                               accept && strstr(accept, "application/x-ndjson") &&
                                       w->accept.repr == EM_REPR_OBJECT
                                   ? "application/x-ndjson"
                                   : "application/json",
                               watch_read, watch_free, w);
    w->stream->nonblocking = true;
    w->waiter.s = w->stream;
    return 0;
fail:
    nd_select_release(&w->sel);
    json_decref(w->req_copy.query);
    nd_buf_release(&w->pending);
    free(w->ns);
    free(w->name);
    free(w);
    return -1;
}
