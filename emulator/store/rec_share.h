/* rec_share.h: the records a loader thread or the store's writes keep (entry.h), their
 * equal parts shared.
 *
 * A record is a few jansson objects, and most of its values repeat from one object to
 * the next of a large state: the namespace, the labels, the finalizers, status.phase
 * (with the object that holds it), spec.state, an owner's reference. Each jansson object
 * costs 200 bytes before its keys (its header and 8 hash buckets), a string 32 bytes and
 * its text: of a seeded Job's 2.5 KB record, 1.3 KB are such repeated parts. A keeper
 * copies a record into the records' arena (rec_arena.h), taking a reference to an equal
 * value it kept before instead of a copy: leaves (strings, numbers) equal by value,
 * objects and arrays whose keys are the same in the same order and whose values are the
 * same kept values. What is unique to an object (the record itself, its metadata, the
 * name, uid and resourceVersion) is copied without a look. The values it remembers are a
 * bounded cache (a newer one takes an older one's slot), so a state of unique values
 * costs it only its slots.
 *
 * Readers see the same values: a record is never changed in place (a write makes a new
 * one, em_rec_of), so a value shared by records, as one shared by a record and its tree,
 * is read only; jansson's reference counts are atomic (the last record freed, on any
 * thread, frees it). A keeper is one thread's. */
#ifndef EM_STORE_REC_SHARE_H
#define EM_STORE_REC_SHARE_H

#include <jansson.h>
#include <stdint.h>

struct em_rec_share;

struct em_rec_share *em_rec_share_new(void);
/* Drops the cache's references (the records keep theirs). */
void em_rec_share_free(struct em_rec_share *sh);

/* A NEW record equal to rec (key order kept), made in the records' arena whatever the
 * calling thread's choice (rec_arena.h), its repeated parts shared with those sh kept
 * before. rec stays the caller's. */
json_t *em_rec_keep(struct em_rec_share *sh, const json_t *rec);
/* The same, made by malloc whatever the calling thread's choice: the record of a write
 * (store.c), which replaces one object's at a time, where the arena gives a block back
 * only once every record in it is gone. Its values shared with those sh kept before,
 * none with the tree it was made from (which it would keep in pieces: em_rec_of). */
json_t *em_rec_keep_heap(struct em_rec_share *sh, const json_t *rec);

struct em_rec_share_stats {
    uint64_t shared; /* values taken from the cache (no copy made) */
    uint64_t copied; /* values copied */
};
void em_rec_share_stats(const struct em_rec_share *sh, struct em_rec_share_stats *out);

#endif
