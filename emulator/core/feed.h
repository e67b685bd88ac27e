/* feed.h: the durable changes, handed to watch streams without the server lock.
 *
 * Whoever commits writes (the router after a request, the scheduler, the journal's own
 * thread) publishes, under the server lock, the history's changes that are now on disk
 * into a ring of the newest EM_FEED_CAP events (each holding references to the records
 * of its object and of the previous object, entry.h, which select as the objects do, and
 * to the object's compact JSON: no trees, which for 4,096 changes were tens of MB), then
 * wakes the streams. A watch
 * stream that is caught up reads the ring under the feed's own small lock, so a change
 * seen by a thousand watches costs a thousand short critical sections on that lock,
 * never a thousand turns of the server lock that every request needs. A stream behind
 * the ring (resuming from an old revision), one that sends Tables or bookmarks, reads
 * the history under the server lock as before.
 *
 * A stream with nothing to send registers a waiter (em_feed_wait) and costs no thread
 * until the next publish, reset or stop wakes it (em_stream_wake: its connection is
 * resumed on the HTTP layer's loop). A publish only moves the waiters to a list of those
 * due (no work per stream under the server lock); em_feed_flush wakes them, a batch at a
 * time under the feed's lock alone. A publish made in a request's handler (a write)
 * flushes once that request's answer is on its way (em_http_after_answer): ten thousand
 * watches resumed never hold the writer's answer back; any other publish (the journal's
 * thread, the simulation) flushes at once.
 *
 * A stream of the ring's fast path waits under a key, its kind and its project (or every
 * project, or a cluster kind's none): a publish wakes only the keys its changes touched
 * (feed_keys.c), so ten thousand changes in one project wake no watch of another. Such a
 * stream's last_rev stands still meanwhile; should the ring move past it, the key tells
 * whether any change that left the ring was one of its own: if none was, the stream goes
 * on from the ring (em_feed_catch_up), not from the history under the server lock.
 *
 * Lock order: the server lock, then the feed's; a stream never takes the server lock
 * while it holds the feed's.
 */
#ifndef EM_FEED_H
#define EM_FEED_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "history.h"
#include "http.h"

#define EM_FEED_CAP 4096
#define EM_FEED_KEY_SLOTS 1024 /* the keys' hash table (chained) */

struct em_server;

struct em_feed_ev {
    int64_t rev;
    const char *plural; /* the registry's string */
    const char *type;   /* static */
    json_t *obj, *prev; /* the records (entry.h) of the object and the previous one */
    struct em_bytes *json;
    uint64_t ns_hash; /* em_ns_hash (history.h) of the object's project (0: not known) */
};

/* A stream waiting for the next publish (feed lock held to change it). The lists are
 * rings around a head of their own: a waiter leaves one without knowing which. */
struct em_feed_link {
    struct em_feed_link *prev, *next;
};

/* The streams waiting under one kind and project ("": every project, or a cluster
 * kind): feed lock held to change it. */
struct em_feed_key {
    struct em_feed_key *next; /* in its slot */
    uint64_t hash, ns_hash; /* ns_hash: em_ns_hash of its project, "" for every one */
    char *plural;
    unsigned refs; /* streams keyed on it */
    struct em_feed_link waiting;
    int64_t gone_rev; /* the newest change of this key's that left the ring */
};

struct em_feed_waiter {
    struct em_feed_link link; /* on a waiting list (its key's, or the feed's) or due */
    struct em_stream *s;
    struct em_feed_key *key; /* NULL: woken by every publish */
    bool linked;
};

struct em_feed {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct em_feed_ev ring[EM_FEED_CAP];
    uint64_t first, next;  /* the ring holds events first .. next-1 (by sequence) */
    uint64_t cap;          /* at most this many: EM_FEED_CAP (tests: fewer) */
    int64_t published_rev; /* the history's changes up to this were published */
    int64_t min_rev;       /* a stream at last_rev >= this finds what follows in the ring */
    bool stopping;
    struct em_feed_link waiting; /* until the next publish */
    struct em_feed_link due;     /* published to, not yet woken */
    bool flush_asked;            /* a flush is asked for after a request's answer */
    uint64_t woken_after_answer; /* streams woken once a writer's answer was on its way */
    uint64_t woken_at_once;      /* streams woken where the publish was made */
    struct em_feed_key *keys[EM_FEED_KEY_SLOTS];
    int64_t ring_gone_rev; /* the newest change that left the ring (or the start's) */
    int64_t blind_rev;     /* the newest that left it without its project known */
    int64_t reset_rev;     /* the last reset's */
    uint64_t all_hash;     /* em_ns_hash(""): the key of every project (and cluster kinds) */
    uint64_t behind_ring;  /* keyed streams the ring passed that read the history */
    uint64_t skipped_ahead; /* those that found none of theirs had left it */
};

/* A feed starting at the store's current revision (server start). */
struct em_feed *em_feed_new(int64_t rev);
void em_feed_free(struct em_feed *f);
/* Server lock held: publishes the history's changes now on disk; the streams waiting
 * are due, and woken after the answer of the request making it, else at once. */
void em_feed_publish(struct em_server *srv);
/* No lock held but possibly the server's: wakes every stream due, a batch at a time. */
void em_feed_flush(struct em_feed *f);
/* Server lock held: the journal was emptied (reset): so is the ring. */
void em_feed_reset(struct em_server *srv);
/* Wakes every stream for good (shutdown). */
void em_feed_stop(struct em_feed *f);
/* Feed lock held: w->s is woken once, at the next publish, reset or stop (a waiter
 * already waiting or due stays). em_feed_unwait takes it back (before the stream is
 * freed: a flush wakes a stream with the feed's lock held). */
void em_feed_wait(struct em_feed *f, struct em_feed_waiter *w);
void em_feed_unwait(struct em_feed *f, struct em_feed_waiter *w);

/* feed_keys.c. Feed lock held: the key of plural in ns ("": every project, a cluster kind), held
 * until em_feed_key_put (after em_feed_unwait). */
struct em_feed_key *em_feed_key_get(struct em_feed *f, const char *plural, const char *ns);
void em_feed_key_put(struct em_feed *f, struct em_feed_key *k);
/* Feed lock held, a keyed stream at *last_rev behind the ring: true when no change of its
 * key (nor one of a project not known) left the ring after *last_rev, which moves on to
 * where the ring begins; false when the stream must read the history. */
bool em_feed_catch_up(struct em_feed *f, const struct em_feed_waiter *w, int64_t *last_rev);
/* Feed lock held: a change of plural in the project of ns_hash (not 0: a change of a
 * project not known makes every key due, em_feed_keys_all_due) entered the ring: its
 * keys' waiting streams are due. */
void em_feed_keys_touch(struct em_feed *f, const char *plural, uint64_t ns_hash);
/* Feed lock held: the change rev of plural in the project of ns_hash left the ring. */
void em_feed_keys_gone(struct em_feed *f, const char *plural, uint64_t ns_hash, int64_t rev);
/* Feed lock held: every key's waiting streams are due (a reset, the stop). */
void em_feed_keys_all_due(struct em_feed *f);
void em_feed_keys_free(struct em_feed *f);
/* feed.c's lists, for feed_keys.c */
void em_feed_list_init(struct em_feed_link *l);
void em_feed_list_move(struct em_feed_link *to, struct em_feed_link *from);

#endif
