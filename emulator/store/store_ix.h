/* store_ix.h: between store.c (changes) and store_read.c (cursors, lists, walks): the
 * per-kind indexes of the store (index.h). */
#ifndef EM_STORE_IX_H
#define EM_STORE_IX_H

#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/* The index key of an object: project "\x01" name (index.h), into buf. */
const char *em_store_ix_key(const char *ns, const char *name, char *buf, size_t cap);
/* The index of kind k (a stored kind: em_store_kind), made when create; NULL when it has
 * none and create is false. */
struct em_index *em_store_index(struct em_store *s, const struct nd_kind *k, bool create);

#endif
