/* entry.h: one stored object as the store keeps it: the compact JSON of its current
 * revision (struct em_bytes, shared with the journal and every answer), a small record of
 * the fields the indexes, selectors and controllers ask for, and, only while it is hot,
 * the whole jansson tree.
 *
 * The record (em_rec_of) is a small JSON object in the shape of the object itself, so
 * the code that reads metadata and selects (em_obj_ns, nd_select_matches, authz) reads it
 * as it would the object: metadata.{name, namespace, uid, resourceVersion, labels,
 * ownerReferences, deletionTimestamp, finalizers, creationTimestamp (the hour file of an
 * Event: events_file.h)}, status.phase, status.conditions of type
 * Complete or Failed, status.costUSD of a billed kind, every path of the kind's field
 * selectors, and, of a run-to-completion object that ended, metadata.generation and
 * status.{observedGeneration, startTime, completionTime, billing.settled,
 * simulation.phaseTime} (what its controller reads to find it has nothing to do). Its
 * values are
 * shared with the tree it came from (references, not copies), and those of a record the
 * start loaded with other records' (rec_share.h): a record is never changed in place.
 *
 * The tree is built from the bytes on demand (em_entry_obj), counted, and kept in one
 * bounded list of hot trees (least recently asked first). A tree the caller borrowed stays
 * valid until the next safe point, em_entry_trim, which the server calls with its lock held
 * where no borrowed pointer lives (the end of a request's locked section, of a controller
 * round); what keeps a tree longer takes a reference (json_incref). Not thread-safe: the
 * server's lock guards it, as the store. */
#ifndef EM_STORE_ENTRY_H
#define EM_STORE_ENTRY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "kinds/registry.h"

/* A file's identity as loaded (checkpoint.h): valid false when the object changed
 * since the start read it. */
struct em_stamp {
    bool valid;
    int64_t size, mtime_ns, ctime_ns;
    uint64_t ino;
};

/* A stored object. Read the tree through em_entry_obj, never tree directly. */
struct em_entry {
    struct em_bytes *json; /* the current revision's compact JSON (always set) */
    json_t *rec;           /* its record (em_rec_of) */
    json_t *tree;          /* the whole object while hot, else NULL */
    struct em_entry *hot_prev, *hot_next; /* the hot list (or the kept), while tree is set */
    bool kept;             /* tree is kept for the simulation (em_entry_keep) */
    uint64_t text_hash;    /* em_hash64 of the file text the store wrote (0: unknown) */
    struct em_stamp stamp; /* its file's, when loaded at start and unchanged since */
};

/* The seed of em_hash64 over a file's text (text_hash). */
#define EM_TEXT_SEED 11

/* Trees kept hot after a safe point (em_entry_trim) by default, and of those no more
 * than EM_ENTRY_HOT_BYTES of objects' JSON (the count binds first for objects under 2 KB;
 * larger objects keep fewer trees). */
#define EM_ENTRY_HOT 1024
#define EM_ENTRY_HOT_BYTES (2u << 20)
/* The trees kept for the simulation (em_entry_keep) at most, counted by their objects'
 * compact JSON: 2 MiB, about 1,700 running Jobs. A tree takes about 11 times its JSON in
 * heap (a running Job's 1.2 KB, 13 KB), so a bound of 8,192 trees (until session 30) held
 * about 100 MB at 10,000 running Jobs, and this one about 25 MB. */
#define EM_ENTRY_KEPT_BYTES (2u << 20)

/* The keys of metadata a record holds (NULL-terminated). */
extern const char *const em_rec_meta[];
/* The paths a record of an ended run-to-completion object holds too (what the
 * simulation's idle reads, sim/sim.h), NULL-terminated. */
extern const char *const em_rec_ended[];

/* NEW record of obj, an object of kind k (NULL: no field selectors). */
json_t *em_rec_of(const struct nd_kind *k, const json_t *obj);

/* NEW record parsed from its compact JSON text (what json_dumps(rec, JSON_COMPACT) wrote:
 * the checkpoint's), or NULL when it is not JSON or repeats a key. The text the store
 * writes (ASCII without escapes, integers) is read without jansson's lexer; any other
 * (escapes, UTF-8, reals, blanks) goes to json_loadb. */
json_t *em_rec_parse(const char *text, size_t len);

/* A NEW entry of bytes json and record rec (both taken: the caller's references move in),
 * with tree (a new reference is taken; NULL: none yet) hot. */
struct em_entry *em_entry_new(struct em_bytes *json, json_t *rec, json_t *tree);
void em_entry_free(struct em_entry *e);
/* Frees e, but its tree (when it has one) is held until the next safe point
 * (em_entry_trim): what a write that replaces or removes an object does (store.c), so a
 * tree borrowed from the entry, and any pointer into it, stays valid until then as
 * em_entry_obj promises, whoever else let go of it meanwhile (the history drops its
 * trees as it goes, and a write's record shares none of the tree's values: rec_share.h).
 * A caller may write the object it reads: the project deletion (api_delete.c) marks the
 * project it borrowed Terminating, then lists its objects by the name read from it. */
void em_entry_retire(struct em_entry *e);

/* The whole object (BORROWED; valid until the next em_entry_trim): the hot tree, or one
 * built from the bytes now (counted in em_entry_stats). NULL only when the bytes do not
 * parse (never for what the store wrote). */
json_t *em_entry_obj(const struct em_entry *e);
/* The entry's bytes (BORROWED) when tree is its hot tree (so the bytes are tree's compact
 * JSON), else NULL. */
struct em_bytes *em_entry_bytes_of(const struct em_entry *e, const json_t *tree);
/* The record (BORROWED, lives as long as the entry). */
const json_t *em_entry_rec(const struct em_entry *e);

/* Keeps e's tree (when it has one) past the safe points, outside the hot list's bound,
 * until em_entry_keep(e, false) or e goes (a write replaces the entry): what the
 * simulation does for an object it runs again soon (a running Job, every emulated
 * minute), whose tree it would otherwise build from the bytes each time. (A running
 * Job's minute that only accrues its cost is written from the bytes, with no tree:
 * sim/controllers/job_minute.c; its tree is kept for the first minute after a start, and
 * for those whose minute needs more.) At most
 * EM_ENTRY_KEPT_BYTES of objects are kept: when full, a new one is not (the ones kept
 * stay, so they are found again). Whether e's tree is kept now. NODUS_EMULATOR_TEST_NO_KEPT_TREES
 * (tests): none is. */
bool em_entry_keep(const struct em_entry *e, bool keep);

/* The safe point: drops the trees retired since the last one (em_entry_retire) and those
 * of the least recently asked entries beyond the bound (EM_ENTRY_HOT, or
 * em_entry_set_bound's, and EM_ENTRY_HOT_BYTES). */
void em_entry_trim(void);
void em_entry_set_bound(size_t bound);

struct em_entry_stats {
    uint64_t built;  /* trees built from bytes since the process began */
    size_t hot;      /* trees held now */
    size_t bound;    /* how many a safe point keeps */
    size_t peak;     /* the most held at once since the process began (between safe
                      * points the list grows past bound with what a round works on) */
    size_t kept;     /* trees kept for the simulation (em_entry_keep), besides */
    size_t kept_bytes; /* their objects' compact JSON (bounded: EM_ENTRY_KEPT_BYTES) */
};
void em_entry_stats(struct em_entry_stats *out);

#endif
