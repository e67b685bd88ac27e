/* objects.h: every change to a stored object goes through here, whoever makes it (a
 * request handler or a controller): resourceVersion and generation, the store file, the
 * change in the history that watches see, deletion with finalizers and owner references, and
 * Events recording what happened.
 *
 * Stored objects are never modified in place: the journal and open watches hold
 * references to them. A writer copies (json_deep_copy), changes the copy and commits it.
 * All functions are called with the server lock held.
 */
#ifndef EM_OBJECTS_H
#define EM_OBJECTS_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "server.h"

#define EM_FINALIZER_BILLING "nodus.dev/billing"
#define EM_FINALIZER_IN_USE "nodus.dev/in-use"
#define EM_FINALIZER_FOREGROUND "foregroundDeletion"

/* Now on the emulator's clock as RFC 3339 (seconds), into a caller's buffer. */
const char *em_now_rfc3339(struct em_server *srv, char out[32]);

/* Stores a new object (server-set metadata already filled, except resourceVersion,
 * which is assigned here) and records ADDED. obj is referenced, not stolen. */
/* After a commit failed: every change the disk refused is undone in memory (objects,
 * revision counter, the history's changes), as if it never happened. The revision the
 * server is back at, or -1 when nothing had failed. Lock held. */
int64_t em_obj_rollback(struct em_server *srv);
int em_obj_add(struct em_server *srv, const struct nd_kind *k, json_t *obj, struct nd_status *st);
/* Replaces old (the stored object) with obj: a new resourceVersion, generation + 1 when
 * spec changed, MODIFIED; when obj is being deleted and has no finalizers left it is
 * removed instead. obj is referenced, not stolen. */
int em_obj_update(struct em_server *srv, const struct nd_kind *k, json_t *old, json_t *obj,
                  struct nd_status *st);
/* em_obj_update of a stored object cur (of kind k, not an Event) by the new revision's
 * compact JSON json and record rec (both taken), made without a tree by a writer that
 * changes nothing but values (the simulation's minute of a running Job,
 * sim/controllers/job_minute.c): rev is its resourceVersion (em_store_next_revision),
 * already in json; its generation, its order and its finalizers are cur's. */
int em_obj_update_bytes(struct em_server *srv, const struct nd_kind *k,
                        const struct em_entry *cur, int64_t rev, struct em_bytes *json,
                        json_t *rec, struct nd_status *st);
/* Removes a stored object now (DELETED), then deletes or orphans what it owned. */
int em_obj_remove(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                  struct nd_status *st);
/* A delete request: marks obj deleting (deletionTimestamp, the family's deleting phase)
 * and removes it once its finalizers are clear, applying the propagation policy
 * ("Background", "Foreground" or "Orphan") to the objects it owns. With dry_run nothing
 * changes. *result (NEW) is the object as the answer shows it. */
int em_obj_delete(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                  const char *propagation, bool dry_run, json_t **result, struct nd_status *st);
/* True when nothing is owed for obj any more, so nodus.dev/billing may clear. */
bool em_billing_settled(struct em_server *srv, const struct nd_kind *k, const json_t *obj);

/* Records an Event (type "Normal" or "Warning") about obj in its project. */
void em_event_record(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                     const char *type, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Reorders an object's members as Kubernetes prints them (apiVersion, kind, metadata,
 * spec, status; metadata's own members in their usual order). In place. */
void em_obj_normalize(json_t *obj);

/* Borrowed helpers. */
const char *em_obj_name(const json_t *obj);
const char *em_obj_ns(const json_t *obj);
json_t *em_obj_meta(json_t *obj);
/* True when the string array at obj's metadata.finalizers holds f. */
bool em_obj_has_finalizer(const json_t *obj, const char *f);
/* Removes f from a (copied, uncommitted) object's finalizers; true if it was there. */
bool em_obj_drop_finalizer(json_t *obj, const char *f);

#endif
