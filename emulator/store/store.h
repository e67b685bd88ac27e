/* store.h: the emulator's flat-JSON object store.
 *
 * Every object lives in memory (as its compact JSON and a small record, its tree built
 * on demand: entry.h) and in one pretty-printed file
 * DIR/objects/<project>/<plural>/<name>.json (cluster-scoped objects under the project
 * directory "_cluster"). A change is first a record in the write-ahead log
 * (DIR/history/journal.ndjson, journal.h); its file is written, atomically, by the
 * journal's file writer after the record is on disk (after the answer, too). Callers change the store under their lock, then, without it, wait for
 * durability with em_store_commit: concurrent changes share one flush.
 *
 * At open every object file is loaded, then the log's newest records repair the files
 * a crash left missing or older (a file changed by hand after the record was written
 * wins) or broken (moved aside to DIR/broken/, fsutil.h: crash_repair.h); any other file
 * that does not parse is reported and left untouched,
 * and writes to its name are refused until a person fixes or removes it; so is a file in a
 * directory that names no kind of the registry (no store holds what no kind describes),
 * and a log record of such a kind is left out of the repair. A lock file
 * makes one emulator own a state directory.
 *
 * Not thread-safe apart from em_store_commit: the server calls it with its lock held.
 */
#ifndef EM_STORE_H
#define EM_STORE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "entry.h"
#include "index.h"
#include "kinds/registry.h"
#include "util/buf.h"
#include "util/status.h"
#include "journal.h"
#include "owners.h"

/* Longest index key: a project (63) and a name (253), a separator and a NUL. */
#define EM_STORE_KEY_MAX 320

/* A position in a kind's objects, in (project, name) order (em_store_seek). */
struct em_store_cursor {
    struct em_index *ix;
    struct em_index_iter it;
    bool bounded;            /* one project: stop at hi */
    char hi[EM_STORE_KEY_MAX];
};

/* A change not yet known durable, to undo if its journal write fails (store.c). */
struct em_undo {
    uint64_t ticket;
    int64_t rev;
    const struct nd_kind *kind;
    char *ns, *name;
    struct em_entry *prev; /* the entry before the change (NULL: there was none) */
};

struct em_rec_share;

struct em_store {
    char *dir;
    enum em_fsync fsync_mode;
    int lock_fd;
    int64_t revision;   /* last revision handed out */
    bool torture_lowered; /* a broken build's one-shot (torture.h: rv-low) */
    struct {
        const struct nd_kind *kind; /* a kind of nd_kinds[] (a view's is the stored one) */
        struct em_index *ix; /* project "\x01" name -> struct em_entry */
    } *kinds;           /* one ordered index per kind, in the order the store met the
                           kinds (since the open or the last em_store_clear) */
    size_t nkinds;
    json_t *broken;     /* "plural/ns/name" -> path of the broken file */
    struct em_journal journal;  /* the write-ahead log (history/journal.ndjson) */
    /* the log's records as read at open, for the history (em_history_open takes them) */
    struct em_journal_record *history;
    size_t nhistory;
    /* the records the open read from the log, and of its lines those that went to
     * jansson's parser, not as the store writes them (journal_scan.h) */
    size_t journal_records, journal_parsed;
    /* the lines the open read of the Events' hour files, and those jansson parsed
     * (events_file.h) */
    size_t event_lines, event_parsed;
    size_t repaired;    /* files the open brought up to date from the log */
    /* the journal's spares the open's repairs wrote through since the last flush of the
     * files (em_store_bring_up; the journal goes on from there), and whether this
     * filesystem cannot exchange two names */
    unsigned open_spares;
    bool open_no_exchange;
    /* objects the open took from their files, and from the checkpoint (checkpoint.h) */
    size_t loaded_files, loaded_checkpoint;
    /* of those, the objects whose entry and index entries the loader threads made (the
     * open only linked them in: checkpoint.h) */
    size_t indexed_on_loaders;
    size_t opened_in_dir; /* object files the start reached by name in their directory's
                           * descriptor (checkpoint.h) */
    json_t *events_live; /* live Events per hour file (events_file.h) */
    struct em_undo *undo; /* changes whose journal write may still fail, oldest first */
    size_t nundo, capundo;
    struct em_owners owners; /* uids and owner references of the objects (owners.h) */
    struct em_rec_share *rec_share; /* the writes' records' shared values (rec_share.h) */
};

/* Opens (creating) the state directory, takes its lock, empties it first when reset
 * (objects, history, idempotency keys, logs, files, snapshots, emulator.json; the lock
 * is taken before anything is removed) and loads every object. Broken files are
 * described, one line each, in `report`. -1 with a message in err. */
int em_store_open(struct em_store *s, const char *dir, enum em_fsync mode, bool reset,
                  struct nd_buf *report, struct nd_buf *err);
void em_store_close(struct em_store *s);
/* The part of em_store_close that reaches the disk: the log's last commit and marker, the
 * files behind the journal, the checkpoint of a clean stop, the lock given back. The
 * objects stay in memory (an exiting process leaves them to the exit); em_store_close
 * after it frees them. 0, or -1 with what it could not write in err. */
int em_store_stop(struct em_store *s, struct nd_buf *err);

/* The next revision (for resourceVersion), strictly increasing. */
int64_t em_store_next_revision(struct em_store *s);

/* Every function below that takes a kind takes the registry's row (a view, such as
 * events.k8s.io's Event, reaches the objects of the kind it views: em_store_kind); the
 * kind's plural names it only at the edges: its directory on disk and the log's records. */
/* The kind whose objects k's are: k itself, or for a view (from_stored) the kind of
 * nd_kinds[] with its plural. NULL for NULL. */
const struct nd_kind *em_store_kind(const struct nd_kind *k);

/* BORROWED object or NULL. ns is "" for cluster-scoped kinds. Its tree is built from the
 * stored bytes when it is not hot (entry.h): valid until the next em_store_trim, even when
 * the object is written or removed meanwhile (the write retires its tree: entry.h). */
json_t *em_store_get(struct em_store *s, const struct nd_kind *k, const char *ns, const char *name);
/* Stores obj (the store takes a new reference) and logs the change: type "ADDED" or
 * "MODIFIED" at emulated time time_ms; the file follows once the log is flushed. The
 * object's metadata.name, .namespace and .resourceVersion say where and which revision.
 * -1 (InternalError) when a broken file holds that name. */
int em_store_put(struct em_store *s, const struct nd_kind *k, json_t *obj, const char *type,
                 int64_t time_ms, struct em_bytes **json, struct nd_status *st);
/* em_store_put of an object by its compact JSON json and its record rec (em_rec_of of
 * the same object, which says its name and project; both taken), without a tree: a
 * "MODIFIED" at revision rev of a kind that is not an Event's (whose hour file is written
 * from the tree). The caller made json by the store's invariant (entry.h:
 * json_dumps(tree, JSON_COMPACT) of that object). */
int em_store_put_bytes(struct em_store *s, const struct nd_kind *k, int64_t rev, int64_t time_ms,
                       struct em_bytes *json, json_t *rec, struct nd_status *st);
/* Removes an object and logs "DELETED" with gone (the object as it went, with its new
 * resourceVersion); its file goes once the log is flushed. 0 also when absent.
 * Both give, when json is not NULL, a NEW reference to the object's compact JSON. */
int em_store_delete(struct em_store *s, const struct nd_kind *k, const json_t *gone,
                    int64_t time_ms, struct em_bytes **json, struct nd_status *st);
/* The ticket of the last change logged: pass it to em_store_commit. */
uint64_t em_store_ticket(struct em_store *s);
/* The changes made between these two (one request's: its object and its Event) go to the
 * journal in one flush, so the disk refuses all of them or none (em_journal_hold). */
void em_store_hold(struct em_store *s);
void em_store_unhold(struct em_store *s);
/* Called WITHOUT the caller's lock: returns once every change up to ticket is on disk
 * (per --fsync); its file follows (em_journal_drain waits for the files). -1 when the disk
 * refused a write. */
int em_store_commit(struct em_store *s, uint64_t ticket);
/* Whether every change up to ticket is settled (on disk, or its write failed and was
 * undone by em_store_rollback): a read that saw the store at ticket need not wait. A
 * change that failed and is still in memory is not settled: the read commits, hears -1,
 * and is served again after the rollback (router.c). */
bool em_store_settled(struct em_store *s, uint64_t ticket);
/* After a commit failed (-1 from em_store_commit): undoes, in memory, every change whose
 * journal write failed, newest first, as if it never happened, revision counter included.
 * Returns the revision the store is back at (the caller drops its events after it), or
 * -1 when nothing failed since the last call. Call it with the caller's lock held before
 * anything reads or changes the store. */
int64_t em_store_rollback(struct em_store *s);
/* Before a write: the journal's space is allocated ahead (where the filesystem can), so a
 * full disk refuses the write before anything changes. 0, or -1 with StorageFull or
 * StorageError in st. */
int em_store_reserve(struct em_store *s, struct nd_status *st);
/* Fills st for a failed write of path with errno err: StorageFull (507: ENOSPC, EDQUOT)
 * or StorageError (500), each with a fix. Returns -1. */
int em_store_io_status(const struct em_store *s, struct nd_status *st, int err,
                       const char *path);
/* Notes a failed write of a state file (logged once per episode of failures). */
void em_store_note_error(struct em_store *s, const char *path, int err);

/* The highest revision on disk: watches show changes up to it, never one a crash
 * could still undo. */
int64_t em_store_durable_rev(struct em_store *s);
/* A log record's line (compact JSON, no newline): NEW. */
char *em_store_record_line(int64_t rev, int64_t time_ms, const char *type, const char *plural,
                           const json_t *obj, size_t *len);
char *em_store_record_line_bytes(int64_t rev, int64_t time_ms, const char *type,
                                 const char *plural, const char *json, size_t *len);

/* BORROWED entry of an object, or NULL. */
const struct em_entry *em_store_entry(struct em_store *s, const struct nd_kind *k, const char *ns,
                                      const char *name);
/* An entry's compact JSON (BORROWED: kept until the object changes). */
struct em_bytes *em_store_entry_json(const struct em_entry *e);
/* The safe point of the trees built on demand (entry.h): call it with the lock held where
 * no borrowed tree lives; it drops the least recently asked beyond the bound. */
void em_store_trim(struct em_store *s);
/* Positions c at the first object of kind k in project ns (every project when NULL),
 * or at the first after (after_ns, after_name) when after_name is given. O(log N).
 * A cursor is valid until the next change to the kind. */
void em_store_seek(struct em_store *s, const struct nd_kind *k, const char *ns,
                   const char *after_ns, const char *after_name, struct em_store_cursor *c);
/* The entry at the cursor (NULL at the end), and that entry with the cursor moved on. */
const struct em_entry *em_store_peek(const struct em_store_cursor *c);
const struct em_entry *em_store_next(struct em_store_cursor *c);
/* The cursor's index key (project "\x01" name), NULL at the end. */
const char *em_store_cursor_key(const struct em_store_cursor *c);
/* How many objects from the cursor to the end of its range, O(log N). */
size_t em_store_remaining(const struct em_store_cursor *c);
/* NEW array of the objects of kind k (every project when ns is NULL), sorted by
 * project then name; the items are references to the stored objects (do not modify). */
json_t *em_store_list(struct em_store *s, const struct nd_kind *k, const char *ns);
/* Number of objects of kind k (all projects). */
size_t em_store_count(struct em_store *s, const struct nd_kind *k);
/* Number of objects of kind k in project ns ("" for cluster-scoped ones; every project
 * when NULL), O(log N). */
size_t em_store_count_in(struct em_store *s, const struct nd_kind *k, const char *ns);

/* Walks. The callbacks must not change the store (collect what to change, then change it
 * after the walk); a nonzero return stops the walk and is its result, else 0. */
/* fn(kind, count, ctx) for each kind holding objects, in the order the store met the
 * kinds: first stored since the open or the last em_store_clear (the order is kept when a
 * kind empties and fills again). */
typedef int (*em_store_kind_fn)(const struct nd_kind *k, size_t count, void *ctx);
int em_store_kinds(struct em_store *s, em_store_kind_fn fn, void *ctx);
/* fn(kind, entry, ctx) for each object of kind k (of every kind, in em_store_kinds
 * order, when k is NULL) in project ns ("" for cluster-scoped ones; every project
 * when NULL), in (project, name) order. A project's objects cost O(log N) per kind to
 * find plus what is walked, not a walk of every object. */
typedef int (*em_store_walk_fn)(const struct nd_kind *k, const struct em_entry *e, void *ctx);
int em_store_walk(struct em_store *s, const struct nd_kind *k, const char *ns, em_store_walk_fn fn,
                  void *ctx);
/* Through the owner index (owners.h), O(log N) plus what is found, not a walk:
 * fn(kind, entry, ctx) for each object of project ns ("" for cluster-scoped ones) whose
 * metadata.ownerReferences name uid, in em_store_walk's order; as a walk's, fn must not
 * change the store, and a nonzero return stops it and is its result. */
int em_store_dependents(struct em_store *s, const char *ns, const char *uid, em_store_walk_fn fn,
                        void *ctx);
/* The first object of project ns in em_store_walk's order whose metadata.uid is uid
 * (BORROWED), its kind in *k; NULL when none. */
const struct em_entry *em_store_by_uid(struct em_store *s, const char *ns, const char *uid,
                                       const struct nd_kind **k);
/* Removes every object (and file) of every kind. */
int em_store_clear(struct em_store *s, struct nd_status *st);
/* Path helpers: NEW strings. */
char *em_store_path(const struct em_store *s, const char *rel);

/* Writes data to path atomically (also used for other state files), flushed unless
 * --fsync never. */
int em_store_write_file(struct em_store *s, const char *path, const char *data, size_t len,
                        struct nd_status *st);

#endif
