/* checkpoint.h: how a start loads the object files fast.
 *
 * A clean stop (em_store_close, after the log's final commit) writes DIR/history/checkpoint:
 * every stored object's compact JSON and record (entry.h) with its file's stamp (size,
 * mtime, ctime, inode) and the log's size and mtime then. The next start reads it once and
 * deletes it (a crash later leaves none), walks the object directories as always and
 * stats each file: an object whose file still has the recorded stamp is taken from the
 * checkpoint, its bytes as they are and only its small record parsed (no tree of the
 * object is built), instead of opening, reading and parsing the file; a file read is
 * parsed, its compact JSON and record kept and its tree dropped; any other file (changed, new, or
 * stamped within the checkpoint's own clock tick, where a later edit could keep its
 * mtime) is read as before. The files are the truth: files gone are dropped, broken ones
 * reported. A checkpoint that is torn, fails its checksum, or was written for another
 * log (the log grew or was replaced since) is ignored and deleted. The log is replayed
 * after loading, as without it.
 *
 * The checkpoint is read and its checksum checked on a thread of its own while the
 * directories are listed; each file is then stat-ed on the two loader threads. Parsing
 * runs on those threads (separate objects; jansson's hash seed is fixed before). Each
 * directory's items are put in name order, and the projects in theirs, so the store builds
 * its indexes by appending. The loader threads also make what the store keeps of each
 * object (its entry, its kind's index entry, its owner index entries: a run per thread,
 * which the thread sorts when done), as they load it, or in a second pass once the
 * checkpoint is freed (not to hold both at once), so the thread that opens the store only
 * links the entries in and merges the runs: at 100k objects that was 0.2 s of CPU on one
 * core after the two threads (keys built, allocations, a cache miss each).
 */
#ifndef EM_STORE_CHECKPOINT_H
#define EM_STORE_CHECKPOINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "index.h"
#include "owners.h"
#include "store.h"

/* One object file found at start, loaded or broken. */
struct em_loaded {
    const char *plural; /* shared per directory; valid until em_loaded_free */
    const char *ns;     /* "" for cluster-scoped */
    char *name;
    char *path;         /* the file, when broken and read (else NULL) */
    json_t *rec;        /* its record (entry.h), NEW when loaded; NULL when broken */
    char *why;          /* why it is broken */
    struct em_bytes *json; /* its compact JSON (NEW) when loaded */
    struct em_stamp stamp; /* the file's, when loaded */
    bool from_checkpoint;
    /* made on the loader thread when the load is for the store (em_load_objects' index):
     * its entry (NEW; rec and json moved into it), as the kind's index entry (value:
     * entry), its metadata.resourceVersion; its owner index's entries are in a run of
     * em_load's */
    struct em_entry *entry;
    struct em_index_ent *ent;
    int64_t rev;
};

struct em_load {
    struct em_loaded *items; /* by directory, in name order within each */
    size_t n;
    char **dirs;             /* the shared plural/project strings */
    size_t ndirs;
    /* the lines of the Events' hour files read, and those jansson parsed (events_file.h) */
    size_t event_lines, event_parsed;
    struct nd_buf report; /* the start's lines of what the scan repaired (events_file.h) */
    /* when for the store: the owner index's entries of the items with an entry, a run
     * per loader thread, each sorted there, and one of the Events read by the listing
     * (owners.h) */
    struct em_owners_run *runs;
    size_t nruns;
    size_t made_on_threads; /* items whose entry the loader threads made */
    size_t opened_in_dir;   /* files the loader threads opened or stat-ed by name in their
                             * directory's descriptor (not by a path from the root) */
};

/* Loads every object file under dir/objects (using dir/history/checkpoint when it is
 * valid, then deleting it) and removes temporary files of interrupted writes. index:
 * for the store, which then only links in what the loader threads (the listing, for the
 * Events' hour files) made of every object loaded whose directory names a kind (its
 * entry, index entry and owner index entries: em_loaded's entry, ent and rev, em_load's
 * runs), instead of building all that on one thread after them; else items keep rec and
 * json. */
void em_load_objects(const char *dir, struct em_load *out, bool index);
void em_load_free(struct em_load *l);

/* Writes dir/history/checkpoint for the store's objects, atomically. Called at a clean
 * stop once every file write is done. An object whose file does not hold what the
 * store holds (changed by hand while running) is left out. 0, or -1 (nothing written). */
int em_checkpoint_write(struct em_store *s);

/* ---- between load.c and checkpoint.c ---- */

struct em_ckpt_rec {
    const char *plural, *ns, *name; /* ns as in the path: "_cluster" for cluster-scoped */
    struct em_stamp st;
    const char *rec;  /* the object's record (entry.h), compact JSON */
    size_t rec_len;
    const char *json; /* the object, compact JSON */
    size_t len;
};

struct em_ckpt {
    char *buf;
    struct em_ckpt_rec *recs;
    size_t n;
    uint32_t *slots; /* index + 1, 0: empty */
    size_t mask;
    int64_t mtime_ns; /* the checkpoint file's own */
};

/* Reads and deletes dir/history/checkpoint; false (nothing kept) when there is none or
 * it is not sound (torn, checksum wrong, or written for another log). */
bool em_ckpt_read(const char *dir, struct em_ckpt *ck);
const struct em_ckpt_rec *em_ckpt_find(const struct em_ckpt *ck, const char *plural,
                                        const char *ns, const char *name);
void em_ckpt_free(struct em_ckpt *ck);
void em_stamp_of(const struct stat *sb, struct em_stamp *st);
bool em_stamp_eq(const struct em_stamp *a, const struct em_stamp *b);

#endif
