/* store.h: the emulator's flat-JSON object store.
 *
 * Every object lives in memory and in one pretty-printed file
 * DIR/objects/<project>/<plural>/<name>.json (cluster-scoped objects under the project
 * directory "_cluster"). Writes are atomic: a temporary file beside the old one, flushed
 * and renamed, then the directory flushed, as --fsync says. A lock file makes one
 * emulator own a state directory. At open every object file is loaded; a file that does
 * not parse is reported (em_store_broken) and left untouched, and writes to its name are
 * refused until a person fixes or removes it.
 *
 * Not thread-safe: the server calls it with its lock held.
 */
#ifndef EM_STORE_H
#define EM_STORE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/status.h"

enum em_fsync { EM_FSYNC_ALWAYS, EM_FSYNC_BATCH, EM_FSYNC_NEVER };

struct em_store {
    char *dir;
    enum em_fsync fsync_mode;
    int lock_fd;
    int64_t revision;   /* last revision handed out */
    json_t *by_plural;  /* plural -> { "ns/name" -> object } */
    json_t *broken;     /* "plural/ns/name" -> path of the broken file */
    /* --fsync batch: files written but not yet flushed and renamed. */
    pthread_mutex_t batch_lock;
    json_t *pending;    /* array of [tmp path, final path] */
    pthread_t flusher;
    bool flusher_running;
    bool stopping;
};

/* Opens (creating) the state directory, takes its lock, empties it first when reset
 * (objects, history, idempotency keys, logs, files, snapshots, emulator.json; the lock
 * is taken before anything is removed) and loads every object. Broken files are
 * described, one line each, in `report`. -1 with a message in err. */
int em_store_open(struct em_store *s, const char *dir, enum em_fsync mode, bool reset,
                  struct nd_buf *report, struct nd_buf *err);
void em_store_close(struct em_store *s);

/* The next revision (for resourceVersion), strictly increasing. */
int64_t em_store_next_revision(struct em_store *s);

/* BORROWED object or NULL. ns is "" for cluster-scoped kinds. */
json_t *em_store_get(struct em_store *s, const char *plural, const char *ns, const char *name);
/* Stores obj (the store takes a new reference) and writes its file. The object's
 * metadata.name and metadata.namespace say where. -1 (InternalError) on I/O failure or
 * when a broken file holds that name. */
int em_store_put(struct em_store *s, const char *plural, json_t *obj, struct nd_status *st);
/* Removes an object and its file. 0 also when absent. */
int em_store_delete(struct em_store *s, const char *plural, const char *ns, const char *name,
                    struct nd_status *st);
/* NEW array of the objects of a plural (every project when ns is NULL), sorted by
 * project then name; the items are references to the stored objects (do not modify). */
json_t *em_store_list(struct em_store *s, const char *plural, const char *ns);
/* Number of objects of a plural (all projects). */
size_t em_store_count(struct em_store *s, const char *plural);
/* Removes every object (and file) of every kind. */
int em_store_clear(struct em_store *s, struct nd_status *st);
/* Path helpers: NEW strings. */
char *em_store_path(const struct em_store *s, const char *rel);

/* Writes data to path atomically per the fsync mode (also used for other state files). */
int em_store_write_file(struct em_store *s, const char *path, const char *data, size_t len,
                        struct nd_status *st);
/* Flushes every pending batch write now. */
void em_store_flush(struct em_store *s);

#endif
