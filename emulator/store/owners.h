/* owners.h: the store's owner index, so that finding an object by its uid, or the
 * dependents of an owner (the objects whose metadata.ownerReferences name its uid), costs
 * O(log N) plus what is found, not a walk of the project.
 *
 * The store keeps it beside its objects (struct em_store's owners): every object set or
 * removed in the store (a write, a delete, the start's files, checkpoint and journal
 * repair, the undo of a failed commit) is recorded here with em_owners_set, from the
 * object's metadata.uid and the uid of each of its ownerReferences (a reference without a
 * string uid names nothing, an object without a string uid is found by no uid, as
 * before); em_store_clear and em_store_close empty it.
 *
 * Three ordered maps (index.h), keys joined by "\x01":
 *   objects      plural ns name              -> what was recorded for it (to undo it)
 *   uids         uid ns plural name          -> (nothing: the key says it all)
 *   dependents   owner-uid ns plural name    -> (nothing)
 * A key is read back from its right (a project, a plural and a name never hold "\x01";
 * a uid, which a client may write, can), and an answer is checked against its exact uid
 * and project, so no uid can pass for another.
 *
 * Memory: about 200 bytes an object (its uid twice, its key twice) plus about 100 a
 * reference. Not thread-safe: the store's caller holds its lock.
 */
#ifndef EM_STORE_OWNERS_H
#define EM_STORE_OWNERS_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index.h"
#include "kinds/registry.h"

/* Zero-initialised it is empty; the maps are made on first use. */
struct em_owners {
    struct em_index *objects, *uids, *dependents;
    uint64_t visited; /* index entries the lookups below looked at (the stats show it) */
};

/* Records obj as the object (k: a stored kind, ns "" for cluster-scoped, name), replacing
 * what was recorded for that name; obj NULL: the object is gone. Reads only obj's
 * metadata.uid and metadata.ownerReferences[].uid. */
void em_owners_set(struct em_owners *o, const struct nd_kind *k, const char *ns,
                   const char *name, const json_t *obj);
/* The same from what the object's fields say, for a store that keeps them without a
 * tree: present false (the object is gone), else its uid (NULL: none) and the uids of its
 * owner references, in their order. */
struct em_owners_obj {
    const struct nd_kind *kind;
    const char *ns, *name;
    bool present;
    const char *uid;
    const char *const *owners;
    size_t nowners;
};
void em_owners_put(struct em_owners *o, const struct em_owners_obj *obj);
/* The entries of objects recorded apart from the owner index (on a start's loader
 * thread: nothing of o is touched), one run (index.h) per map, put in at once by
 * em_owners_take. Zero-initialised it is empty. */
struct em_owners_run {
    struct em_index_run objects, uids, dependents;
};
/* Records obj (not NULL) as em_owners_set would, into the run. */
void em_owners_run_set(struct em_owners_run *r, const struct nd_kind *k, const char *ns,
                       const char *name, const json_t *obj);
/* Orders the run's entries (on the thread that made them, before em_owners_take). */
void em_owners_run_sort(struct em_owners_run *r);
/* Puts the n sorted runs' entries into o, as em_owners_put of each of their objects
 * would: no object in them may be recorded in o or in two runs (the start's objects are
 * each in one file). The runs are left empty. */
void em_owners_take(struct em_owners *o, struct em_owners_run *runs, size_t n);
/* em_owners_take on a thread of its own (when thread), so the caller goes on meanwhile
 * with what does not touch o, then em_owners_take_end merges the uids' map on the
 * caller's thread (the thread the objects' and the dependents') and waits for it;
 * without thread em_owners_take_end does it all (also when no thread can be made). */
struct em_owners_taking {
    pthread_t th;
    bool threaded;
    struct em_owners *o;
    struct em_owners_run *runs;
    size_t n;
    struct em_index_run *maps; /* the runs' entries by map (NULL: em_owners_take's) */
};
void em_owners_take_begin(struct em_owners_taking *t, struct em_owners *o,
                          struct em_owners_run *runs, size_t n, bool thread);
void em_owners_take_end(struct em_owners_taking *t);
/* Frees a run not taken. */
void em_owners_run_free(struct em_owners_run *r);
/* Forgets every object (the maps are freed; o is empty again). */
void em_owners_clear(struct em_owners *o);

/* A found object: its kind's plural and its name (BORROWED from the index: valid until
 * the next change to it). */
struct em_owned {
    const char *plural;
    size_t plural_len;
    const char *name;
};
/* fn(found, ctx) for each object of project ns (exactly: "" is cluster-scoped) whose
 * metadata.uid is uid (em_owners_holders) or whose ownerReferences name uid
 * (em_owners_dependents), in (plural, name) order; a nonzero return stops it and is its
 * result, else 0. fn must not change the owners. */
typedef int (*em_owned_fn)(const struct em_owned *found, void *ctx);
int em_owners_holders(struct em_owners *o, const char *ns, const char *uid, em_owned_fn fn,
                      void *ctx);
int em_owners_dependents(struct em_owners *o, const char *ns, const char *uid, em_owned_fn fn,
                         void *ctx);
/* How many objects and references are recorded (for tests). */
size_t em_owners_objects(const struct em_owners *o);
size_t em_owners_references(const struct em_owners *o);

#endif
