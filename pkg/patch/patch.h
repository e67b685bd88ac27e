/* patch.h: JSON merge patch (RFC 7386), kubectl's three-way merge for client-side
 * apply, and JSON patch (RFC 6902).
 *
 * Every function leaves its inputs untouched and returns a NEW value (or NULL with a
 * caller's struct nd_status filled). Values are compared with nd_json_equal (kinds/object.h):
 * integer 1 equals real 1.0.
 */
#ifndef ND_PATCH_H
#define ND_PATCH_H

#include <jansson.h>

#include "util/status.h"

/* ---- RFC 7386 JSON merge patch (merge.c) ---- */

/* target with patch applied, NEW. A null member of patch removes the member; an
 * object member merges recursively; anything else (arrays included) replaces. A patch
 * that is not an object replaces the whole target. target may be NULL (absent).
 * A NULL patch gives a copy of target (json null when target is NULL too). */
json_t *nd_merge_patch_apply(const json_t *target, const json_t *patch);

/* ---- creating merge patches (diff.c) ---- */

/* The smallest merge patch turning from into to, NEW: members removed are null,
 * changed or added members are set (objects recursively, arrays whole), unchanged
 * members are left out; {} when from and to are equal objects. When either is not an
 * object the patch is a copy of to (json null for a NULL to). For objects whose
 * members in to are never null, nd_merge_patch_apply(from, patch) equals to. */
json_t *nd_merge_patch_create(const json_t *from, const json_t *to);

/* kubectl's client-side apply for kinds without strategic merge
 * (apimachinery's jsonmergepatch.CreateThreeWayJSONMergePatch with kubectl apply's
 * preconditions), NEW:
 *   original  the last-applied configuration (the annotation), NULL when none
 *   modified  the configuration being applied now
 *   current   the object as the server has it
 * The patch is the union of
 *   - deletions: every member of original that modified no longer has, as null
 *     (recursively through objects), and
 *   - additions and changes: the merge patch from current to modified, without its
 *     nulls (so members only current has, set by the server or by someone else and
 *     never applied, are kept; a member someone changed is set back to modified's).
 * An explicitly empty object in modified is kept as a value. NULL inputs count as {}.
 * Returns NULL with st filled: BadRequest when an input is not an object; Invalid
 * ("At least one of apiVersion, kind and name was changed", with one cause per field)
 * when the patch would change apiVersion, kind or metadata.name. current must
 * therefore be the whole object as served. */
json_t *nd_merge_patch_three_way(const json_t *original, const json_t *modified,
                                 const json_t *current, struct nd_status *st);

/* ---- RFC 6902 JSON patch (jsonpatch.c) ---- */

/* doc with the operations applied in order, NEW; all or nothing (doc is never
 * modified). Operations: add (an index inserts before it, "-" appends, a member is
 * set; the path "" replaces the document), remove, replace, move, copy, test (deep
 * equality). Paths are JSON pointers (RFC 6901): "" or '/'-separated tokens with
 * "~1" for '/' and "~0" for '~'; an array index is "0" or digits without a leading
 * zero. Members of an operation other than op, path, from and value are ignored; an
 * operation with a member twice (RFC 6902 A.13) must be refused by the parser: load
 * patches with JSON_REJECT_DUPLICATES.
 * Returns NULL with st filled:
 *   BadRequest  ops is not an array, or an operation is malformed (not an object; op,
 *               path, from missing or not strings; unknown op; missing value; a
 *               pointer that does not start with '/' or has a bad '~' escape): the
 *               message starts with "ops[i]" or "ops[i].<member>"
 *   Invalid     an operation does not apply (missing path, index out of range, failed
 *               test): "ops[i]: " followed by evanphx/json-patch's wording (the library
 *               kube-apiserver uses), e.g.
 *               `ops[1]: testing value /spec/x failed: test failed`. */
json_t *nd_json_patch_apply(const json_t *doc, const json_t *ops, struct nd_status *st);

/* ---- bounds (jsonpatch.c) ----
 *
 * What one patch may make a server do. A JSON patch of 2.7 KB whose twenty operations
 * each copy a member into itself doubles the document twenty times (gigabytes); the
 * bounds are checked AS THE OPERATIONS APPLY, before a copy is made, so memory and time
 * stay proportional to the limits. They follow kube-apiserver's: at most 10,000
 * operations (413 RequestEntityTooLarge), copies adding at most 3 MiB together
 * (evanphx/json-patch's AccumulatedCopySizeLimit, which kube-apiserver sets to 3 MiB:
 * 422 Invalid), and no result nested deeper than ND_JSON_MAX_DEPTH, which nodus' JSON
 * reader would refuse to read back (422 Invalid). */
#define ND_PATCH_MAX_OPS          10000
#define ND_PATCH_MAX_COPY_BYTES   (3u * 1024u * 1024u)
#define ND_PATCH_MAX_DEPTH        100 /* ND_JSON_MAX_DEPTH */
#define ND_PATCH_MAX_RESULT_BYTES (3u * 1024u * 1024u)
#define ND_PATCH_MAX_STEPS        (8u * 1024u * 1024u)

struct nd_patch_limits {
    size_t max_ops;          /* operations of a JSON patch; 0: no limit */
    size_t max_copy_bytes;   /* bytes (compact JSON) all copy operations add together;
                              * 0: no limit */
    size_t max_depth;        /* nesting of what an operation puts in place; 0: no limit */
    size_t max_result_bytes; /* compact JSON of the patched object (nd_patch_check_result);
                              * 0: no limit */
    size_t max_steps;        /* array elements shifted by inserts and removes, and values
                              * visited measuring how deep a moved value nests (10,000
                              * inserts at the front of a 1M-element array would take 3 s);
                              * 0: no limit */
};

/* ND_PATCH_MAX_OPS, ND_PATCH_MAX_COPY_BYTES, ND_PATCH_MAX_DEPTH, ND_PATCH_MAX_RESULT_BYTES,
 * ND_PATCH_MAX_STEPS; what nd_json_patch_apply applies. */
extern const struct nd_patch_limits nd_patch_default_limits;

/* nd_json_patch_apply with limits (NULL: none). Beyond the errors above:
 *   RequestEntityTooLarge  more than max_ops operations, checked before any applies:
 *               "The allowed maximum operations in a JSON patch is 10000, got 10001"
 *   Invalid     operation i would pass a bound, checked before it applies:
 *               "ops[i]: Unable to complete the copy, the accumulated size increase of
 *               copy is N, exceeding the limit 3145728" (evanphx's wording), or
 *               "ops[i]: the value at \"/a/b\" would nest N levels deep, more than the
 *               limit of 100", or "ops[i]: Unable to complete the add, the patch would
 *               take more than 8388608 steps (array elements shifted, moved values
 *               measured)". */
json_t *nd_json_patch_apply_limited(const json_t *doc, const json_t *ops,
                                    const struct nd_patch_limits *lim, struct nd_status *st);

/* 0 when obj (the result of any kind of patch) is within lim's max_result_bytes and
 * max_depth; else -1 with st: RequestEntityTooLarge ("the patched object is N bytes,
 * more than the limit of 3145728") or Invalid (nesting). Measures without allocating. */
int nd_patch_check_result(const json_t *obj, const struct nd_patch_limits *lim,
                          struct nd_status *st);

#endif
