/* object.h: helpers over jansson objects addressed by Kubernetes-style field paths.
 *
 * A field path is what Kubernetes' field.Path prints and what a Status cause's `field`
 * holds:
 *
 *     spec.resources.gpu.model        member names joined by '.'
 *     spec.volumes[0].name            an array element: [index]
 *     metadata.labels[app.kubernetes.io/name]   a map key that is not a plain identifier
 *
 * Grammar: a path is a first segment followed by more segments; a segment is
 * `.name` (the first one without the dot) or `[text]`. A name is one or more
 * characters other than '.', '[' and ']'; a bracket holds one or more characters other
 * than ']'. A bracket is an array index when it is decimal digits without a leading
 * zero and the value it applies to is an array; on an object it is a member key (so
 * `[0]` on an object means the key "0"). The empty key and keys containing ']' have
 * no path form.
 *
 * Ownership follows jansson: BORROWED results live as long as the object they came
 * from and must not be decref'd; NEW results belong to the caller.
 */
#ifndef ND_API_OBJECT_H
#define ND_API_OBJECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/status.h"

/* The value at path, BORROWED; NULL when a segment is absent, when a segment does not
 * fit the value it applies to (a name on an array, a bracket on a string...) or when
 * the path is malformed. A JSON null that is present is returned (json_is_null). */
const json_t *nd_obj_get(const json_t *obj, const char *path);

/* The string at path, BORROWED from obj; NULL when absent or not a string. */
const char *nd_obj_get_string(const json_t *obj, const char *path);

/* Sets the value at path, STEALING value (even on error). Missing or null intermediate
 * members are created as empty objects (never arrays). An index must name an existing
 * element of an array (an index past the end, or equal to the size, is an error):
 * the element is replaced. obj must be an object.
 * Returns 0, or -1 with st filled: BadRequest for a malformed path (the message names
 * the 1-based character position), Invalid when the path goes through a value of the
 * wrong type or past the end of an array, or when value is NULL. On error obj is
 * unchanged. */
int nd_obj_set(json_t *obj, const char *path, json_t *value, struct nd_status *st);

/* Removes the value at path: an object member, or an array element (later elements
 * move down). Returns 0 when something was removed, 1 when nothing was there, -1 when
 * the path is malformed. */
int nd_obj_del(json_t *obj, const char *path);

/* Checks a path's syntax: 0, or -1 with st filled (BadRequest, with the position). */
int nd_field_path_check(const char *path, struct nd_status *st);

/* Deep equality with JSON semantics: numbers compare by value (integer 1 equals real
 * 1.0), object member order does not matter, array order does. Two NULLs are equal;
 * NULL never equals a value. */
bool nd_json_equal(const json_t *a, const json_t *b);
/* Appends v to the array arr (a new reference) unless an equal value is there already. */
void nd_json_array_add_unique(json_t *arr, json_t *v);

/* The field paths of every difference between a and b, as a NEW array of strings,
 * in a stable order: a's members in a's order (changed, or removed from b), then the
 * members only b has, in b's order. Objects are compared member by member, arrays
 * index by index; when arrays differ in length each extra index is reported as
 * `path[i]`. A member added or removed is reported by its own path (not by its
 * descendants); a value whose type changed (object, array, string, number, boolean,
 * null) is reported by its own path. When a and b themselves differ in type, or are
 * unequal scalars, the single entry is "" (the root). Equal inputs give []. */
json_t *nd_obj_diff(const json_t *a, const json_t *b);
/* The same, with lists taken as atomic values, as a user sees a field: a path into a
 * list is cut before its first index ("spec.command[1]" -> "spec.command") and repeats
 * are dropped. NEW array of strings. */
json_t *nd_obj_diff_atomic(const json_t *a, const json_t *b);

/* base + a member key, as a NEW string: `base.key` when key is a plain identifier
 * ([A-Za-z_][A-Za-z0-9_-]*), else `base[key]`. base may be NULL or "" (the root):
 * then `key` or `[key]`. */
char *nd_field_path_append_key(const char *base, const char *key);

/* base + an array index, as a NEW string: `base[i]` (`[i]` at the root). */
char *nd_field_path_append_index(const char *base, size_t i);

#endif
