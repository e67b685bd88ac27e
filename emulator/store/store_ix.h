/* store_ix.h: between store.c (changes) and store_read.c (cursors, lists, walks): the
 * per-kind indexes of the store (index.h). */
#ifndef EM_STORE_IX_H
#define EM_STORE_IX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The index key of an object: project "\x01" name (index.h), into buf. */
const char *em_store_ix_key(const char *ns, const char *name, char *buf, size_t cap);
/* The index of kind k (a stored kind: em_store_kind), made when create; NULL when it has
 * none and create is false. */
struct em_index *em_store_index(struct em_store *s, const struct nd_kind *k, bool create);

/* The undo list (store_undo.c): each change not yet known durable, with the entry it
 * replaced, so that em_store_rollback puts back what the disk refused. */
/* Remembers how to undo the change of ticket (before it is made: cur is the entry it
 * replaces, or NULL), and forgets the changes known durable. */
void em_store_undo_push(struct em_store *s, uint64_t ticket, int64_t rev, const struct nd_kind *k,
                        const char *ns, const char *name, const struct em_entry *cur);
void em_store_undo_release(struct em_undo *u);
void em_store_undo_clear(struct em_store *s);

#endif
