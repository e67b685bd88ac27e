/* history.h: the change history that watches, continue tokens and the scheduler resume
 * from.
 *
 * Every write appends one change (revision, emulated time, ADDED/MODIFIED/DELETED, the
 * kind's plural and the object as it became; `prev` is the object before, so a watch
 * with a selector can tell an object entering or leaving it). The newest changes hold
 * trees (shared with the store); older ones keep the compact JSON only, so 24 hours of
 * history costs about the size of its JSON, not whole trees. Changes older than 24
 * hours of the emulator's clock are dropped; a client resuming from before the oldest
 * kept change gets 410 Expired. Kept in memory; on disk it is the store's journal, its
 * write-ahead log (DIR/history/journal.ndjson, journal.h), which this rewrites when it drops
 * old changes. Not thread-safe: used under the server lock.
 */
#ifndef EM_HISTORY_H
#define EM_HISTORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

#define EM_HISTORY_MS (24LL * 3600 * 1000)

struct em_change {
    int64_t rev;
    int64_t time_ms;
    const char *type; /* "ADDED", "MODIFIED", "DELETED" (static strings) */
    char *plural;
    /* Read these through em_change_obj/em_change_prev: an old event keeps only bytes */
    json_t *obj;      /* reference held by the event, or NULL (then json holds it) */
    json_t *prev;     /* NULL for ADDED, or when prev_json holds it */
    struct em_bytes *json;      /* obj's compact JSON, shared with the store (NULL: not made) */
    struct em_bytes *prev_json; /* prev's, once the event gave up the tree */
    /* A change written without a tree (em_history_append_rec): the records (entry.h) of
     * obj and prev, what the scheduler, the feed and the spend read of it (each reads
     * as the object does for what it asks), until the event gives up its trees */
    json_t *rec, *prev_rec;
    uint64_t ns_hash; /* em_ns_hash of the object's project (0: not known) */
};

/* A project's hash, as a change carries it (never 0; "" for a cluster object's). A watch
 * of one project passes over another's changes on it, building no tree. */
uint64_t em_ns_hash(const char *ns);

/* Events newer than this many keep their trees, and of those no more than
 * EM_HISTORY_HOT_BYTES of objects' JSON (a tree takes about 11 times it: 2 MiB is about
 * 1,700 running Jobs, the count binding first for those; larger objects keep fewer);
 * older ones keep bytes. */
#define EM_HISTORY_HOT 1024
#define EM_HISTORY_HOT_BYTES (2u << 20)

struct em_history {
    struct em_change *ev;
    size_t len, cap;
    int64_t oldest_rev; /* resuming from any revision >= this is complete */
    size_t dropped_since_rewrite;
    size_t appended_since_compact;
    size_t bytes_since_compact; /* the JSON of those appended since */
    struct em_store *store;
};

/* Takes the records the store read from its log at open (events older than now - 24h
 * are dropped, and the log rewritten without them). current_rev: the store's revision,
 * the starting point when there is no history. */
int em_history_open(struct em_history *j, struct em_store *store, int64_t current_rev,
                    int64_t now_ms, struct nd_buf *err);
void em_history_close(struct em_history *j);
/* Appends an event (the store has logged it: em_store_put/delete); obj, prev and json
 * are referenced (not stolen; json may be NULL). */
void em_history_append(struct em_history *j, int64_t rev, int64_t time_ms, const char *type,
                       const char *plural, json_t *obj, json_t *prev, struct em_bytes *json);
/* Appends a MODIFIED event written without a tree: json its object's compact JSON,
 * prev_json the previous object's, rec and prev_rec their records (all referenced). */
void em_history_append_rec(struct em_history *j, int64_t rev, int64_t time_ms,
                           const char *plural, struct em_bytes *json, json_t *rec,
                           struct em_bytes *prev_json, json_t *prev_rec);
/* What an event's object and previous object select with (BORROWED, NULL for ADDED's
 * previous): their records when the event was written without a tree, else the trees
 * (em_change_obj, em_change_prev). Read the metadata, the record's status and field
 * selectors' paths of it, nothing else. */
json_t *em_change_sel(struct em_change *e);
/* The bytes of the last appended event's previous object (referenced), when the writer
 * has them (the stored entry's, the previous object being its tree): the event keeps
 * them when it gives up its trees, not a copy made from the tree (which doubled the
 * history's bytes: each revision's JSON kept again as the next one's previous). */
void em_history_set_prev_json(struct em_history *j, struct em_bytes *prev_json);
/* An event's compact JSON (BORROWED; made on first use). */
struct em_bytes *em_change_json(struct em_change *e);
/* An event's object and previous object (NULL for ADDED), BORROWED until the next
 * append: trees, made again from the bytes for an old event. */
json_t *em_change_obj(struct em_change *e);
/* The trees built of changes' bytes since start (the stats' trees.fromHistory) */
uint64_t em_history_inflated(void);
json_t *em_change_prev(struct em_change *e);
/* The same as NEW references: the event's trees, or trees made from its bytes that the
 * event does not keep. For a reader of many old events (the spend counter after a clock
 * jump): em_change_obj keeps what it made until the next compaction, every tree of a
 * jump's thousands of changes at once. */
json_t *em_change_obj_new(const struct em_change *e);
json_t *em_change_prev_new(const struct em_change *e);
/* Drops events older than now - 24h. */
void em_history_trim(struct em_history *j, int64_t now_ms);
/* Index of the first event with revision > rev (j->len when none). */
size_t em_history_after(const struct em_history *j, int64_t rev);
/* True when every event after rev is still kept. */
bool em_history_covers(const struct em_history *j, int64_t rev);
/* The last revision in the journal (0 when empty). */
int64_t em_history_last_rev(const struct em_history *j);
/* Drops the events after rev: changes the disk refused (em_store_rollback). */
void em_history_drop_after(struct em_history *j, int64_t rev);
/* Empties the journal (reset); resuming from before `rev` is then Expired. */
void em_history_clear(struct em_history *j, int64_t rev);

#endif
