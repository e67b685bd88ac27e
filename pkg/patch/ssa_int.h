/* ssa_int.h: what fieldset.c and ssa.c share; not part of the library's API. */
#ifndef ND_PATCH_SSA_INT_H
#define ND_PATCH_SSA_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "patch/ssa.h"

/* One node of a field set: the root (key NULL) or a path element. Invariant after every
 * operation: no child is empty (neither a member nor with children). */
struct nd_fieldset {
    char *key;                 /* "f:name", "v:<json>", "k:<json>", "i:<n>"; NULL at the root */
    bool member;               /* the path ending here is in the set */
    struct nd_fieldset **kids; /* sorted by nd_fieldset_elem_cmp */
    size_t n, cap;
};

/* Where a walk over an object stands: the object itself, its metadata, or deeper. */
enum nd_ssa_level { ND_SSA_ROOT, ND_SSA_META, ND_SSA_INNER };

/* Whether member key at level l is a tracked field (subresource "" or NULL: the main
 * resource). */
bool nd_ssa_tracked(enum nd_ssa_level l, const char *key, const char *subresource);
/* The level of member key's value. */
enum nd_ssa_level nd_ssa_level_next(enum nd_ssa_level l, const char *key);
/* True for metadata.finalizers, the one list with set semantics. */
bool nd_ssa_is_set_list(enum nd_ssa_level l, const char *key);
/* True for the path that is never a member itself (metadata). */
bool nd_ssa_never_member(enum nd_ssa_level l, const char *key);

/* Element order (Kubernetes' PathElement order). */
int nd_fieldset_elem_cmp(const char *a, const char *b);
/* The child with that key, BORROWED, or NULL. */
struct nd_fieldset *nd_fieldset_child(const struct nd_fieldset *s, const char *key);
/* The child with that key, added (empty) when absent; BORROWED. Callers must not leave
 * it empty: see nd_fieldset_compact. */
struct nd_fieldset *nd_fieldset_child_add(struct nd_fieldset *s, const char *key);
/* Removes empty children, recursively; returns true when s itself is empty. */
bool nd_fieldset_compact(struct nd_fieldset *s);
/* In place: dst |= src; dst -= src (not recursive, as nd_fieldset_difference). */
void nd_fieldset_add_all(struct nd_fieldset *dst, const struct nd_fieldset *src);
void nd_fieldset_remove_all(struct nd_fieldset *dst, const struct nd_fieldset *src);
/* Records a Kubernetes field.Invalid cause `Invalid value: <v>: <detail>` for any JSON
 * value (a string quoted as Go's %q, anything else as compact JSON), adding to an Invalid
 * status as util/validate.h does. Returns -1. */
int nd_ssa_invalid_json(struct nd_status *st, const char *field, const json_t *v,
                        const char *detail);
/* "f:" + name, NEW. */
char *nd_fieldset_fkey(const char *name);
/* "v:" + the compact JSON text of v, NEW. */
char *nd_fieldset_vkey(const json_t *v);

#endif
