/* strategic.h: strategic merge patch, as kube-apiserver applies one to a built-in kind
 * (apimachinery's strategicpatch with the server's options: parallel deletion lists
 * merged, nulls that match nothing ignored).
 *
 * A strategic merge patch is a merge patch (RFC 7386: objects merge, null deletes) that
 * also knows, field by field, how a list merges, and takes directives:
 *   {"$patch": "replace"}            in an object: the object replaces what is there;
 *                                    as an element of a merging list of objects: the
 *                                    list's other elements replace the list
 *   {"$patch": "delete", KEY: V}     as an element of a merging list of objects: removes
 *                                    the elements whose KEY is V; in an object: removes
 *                                    the object's members
 *   "$retainKeys": [names]           in an object: members not named are cleared first
 *   "$setElementOrder/LIST": [...]   the order of LIST's elements after the merge
 *   "$deleteFromPrimitiveList/LIST": [values]
 *                                    removes values from the merging list of scalars LIST
 * ("$patch": "merge" is refused, as apimachinery does.) */
#ifndef ND_PATCH_STRATEGIC_H
#define ND_PATCH_STRATEGIC_H

#include <jansson.h>

#include "patch/patch.h"
#include "util/status.h"

/* How a field merges. An object without an entry merges member by member, a list
 * without one is replaced whole (kube's default: no patchStrategy tag). */
enum nd_smp_strategy {
    ND_SMP_REPLACE = 1, /* replaced whole (a list or an object) */
    ND_SMP_MERGE,       /* a list merged: objects by merge_key, scalars by value */
};

/* One field's patch strategy; a kind's table ends with a NULL path. */
struct nd_smp_field {
    /* the members from the object's root joined by '.', list elements not counted:
     * "metadata.finalizers", "metadata.ownerReferences" */
    const char *path;
    enum nd_smp_strategy strategy;
    const char *merge_key; /* the member naming an element of a merging list of objects
                            * ("uid"); NULL for a list of scalars merged by value */
};

/* ObjectMeta's fields, as kube's types.go tags them: finalizers merged by value,
 * ownerReferences by uid, managedFields replaced. NULL-terminated; every kind's metadata
 * follows it. */
extern const struct nd_smp_field nd_smp_object_meta[];

/* target with patch applied, NEW; neither input is modified. fields: the kind's own
 * patch strategies, looked up before nd_smp_object_meta (NULL: none). lim bounds the
 * work (max_steps: list elements compared while merging and ordering; NULL: no bound).
 * target NULL counts as {}. Returns NULL with st filled:
 *   BadRequest  patch is not an object, or a directive is malformed (apimachinery's
 *               wording: "unknown patch type in map: {...}", "invalid patch format of
 *               retainKeys", "map: {...} does not contain declared merge key: uid", ...)
 *   Invalid     a list of lists, or more than max_steps steps. */
json_t *nd_strategic_patch_apply(const json_t *target, const json_t *patch,
                                 const struct nd_smp_field *fields,
                                 const struct nd_patch_limits *lim, struct nd_status *st);

#endif
