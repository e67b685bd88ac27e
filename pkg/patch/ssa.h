/* ssa.h: Kubernetes server-side apply and field ownership (metadata.managedFields).
 *
 * Pure functions over jansson objects, after sigs.k8s.io/structured-merge-diff (the merge
 * package's Updater) and k8s.io/apiserver's fieldmanager, for CRD-like objects:
 *   - every JSON object is a granular map: each member is owned on its own (spec,
 *     spec.resources, metadata.labels, metadata.annotations ...);
 *   - every array is atomic: owned, compared and replaced as one value,
 *     except metadata.finalizers, a set (listType=set): each item is owned on its own
 *     (`"v:\"nodus.dev/billing\""`), merging unions the items, pruning removes items;
 *   - tracked fields exclude apiVersion, kind, metadata.{name, namespace, uid,
 *     resourceVersion, generation, creationTimestamp, deletionTimestamp,
 *     deletionGracePeriodSeconds, managedFields, selfLink, generateName}, and the
 *     metadata object itself; `status` is not tracked for the main resource, and for the
 *     `status` subresource only `status` is (any other subresource name: only the
 *     top-level member of that name).
 *
 * How a server uses this: a PATCH application/apply-patch+yaml calls nd_ssa_apply (and
 * nothing else about ownership); every other write (POST, PUT, merge or JSON patch, a
 * controller's status write) calls nd_ssa_record_update on the object it is about to
 * store, after nd_ssa_validate_managed_fields has checked a client-supplied
 * metadata.managedFields (422 on error). Defaults a server adds after the apply are owned
 * by nobody, as in Kubernetes. Not done: kube-apiserver's cap of 10 Update entries (it
 * merges the oldest), and the client-side to server-side apply upgrade of kubectl's
 * last-applied annotation.
 *
 * Field sets use the fieldsV1 format of managedFields: an object per level, member names
 * `f:<name>` (an object member), `v:<json>` (a set item), and, accepted from users,
 * `k:<json object>` and `i:<index>`. A leaf is `{}`; a path that has children and is
 * itself in the set carries `".": {}` (Kubernetes writes it for an object a write
 * created whole, e.g. `"f:spec":{".":{},"f:image":{}}` after a create).
 *
 * Kubernetes-style paths (conflict messages, causes' `field`, nd_fieldset_paths) print
 * `.spec.image`, `.metadata.labels.app.kubernetes.io/name` (names are never escaped),
 * `.metadata.finalizers[="nodus.dev/billing"]`, `[name="x"]` for `k:` and `[3]`
 * for `i:`.
 *
 * Ownership follows jansson: NEW results belong to the caller, BORROWED ones do not.
 */
#ifndef ND_PATCH_SSA_H
#define ND_PATCH_SSA_H

#include <jansson.h>
#include <stdbool.h>

#include "util/status.h"

/* ---- field sets (fieldset.c) ---- */

/* A set of field paths (a tree of path elements). Opaque; every function below leaves
 * its const arguments untouched. */
struct nd_fieldset;

/* An empty set, NEW (free with nd_fieldset_free). */
struct nd_fieldset *nd_fieldset_new(void);
/* Frees s and everything in it; NULL is fine. */
void nd_fieldset_free(struct nd_fieldset *s);
/* A copy of s, NEW. */
struct nd_fieldset *nd_fieldset_copy(const struct nd_fieldset *s);

/* Reads a fieldsV1 value, NEW set. Every value must be an object; "." marks its
 * parent as a member; other names must start with "f:", "v:" (then JSON), "k:" (then
 * a JSON object) or "i:" (then a decimal integer). NULL (absent) or JSON null gives an
 * empty set. On error NULL, with st = Invalid and one cause whose field is `field`
 * (e.g. "metadata.managedFields[0].fieldsV1"), e.g.
 * `Invalid value: "x:foo": a field name must be "." or start with "f:", "v:", "k:" or
 * "i:"`. */
struct nd_fieldset *nd_fieldset_from_json(const json_t *fields_v1, const char *field,
                                          struct nd_status *st);
/* s in fieldsV1 form, NEW object: "." first, then the names in Kubernetes' order
 * (f: names by byte order, then k:, then v:, then i: by number). */
json_t *nd_fieldset_to_json(const struct nd_fieldset *s);

/* The fields an apply configuration sets, NEW (structured-merge-diff's ToFieldSet):
 * every leaf (a scalar, null, an array, and each item of metadata.finalizers) is a
 * member; objects are not members themselves; an empty object sets nothing.
 * subresource "" (or NULL) is the main resource (status excluded); "status" keeps
 * only status. obj must be an object (anything else gives an empty set). */
struct nd_fieldset *nd_fieldset_from_object(const json_t *obj, const char *subresource);

/* What changed from old_obj to new_obj (structured-merge-diff's Compare), each a NEW set
 * written into *added, *modified, *removed:
 *   added     paths only new_obj has: a new object is a member and so is everything
 *             in it (so a create gives `".":{}` on every object);
 *   modified  leaves whose value changed (an array or a set item is one leaf; a value
 *             whose type changed is modified, and what was inside it removed/added);
 *   removed   paths only old_obj has, and everything inside them.
 * Untracked fields (see the top of this file) are left out. old_obj NULL is {} (a
 * create). */
void nd_fieldset_compare(const json_t *old_obj, const json_t *new_obj, const char *subresource,
                         struct nd_fieldset **added, struct nd_fieldset **modified,
                         struct nd_fieldset **removed);

/* Adds one path to s. The path is written as kinds/object.h writes field paths
 * (`spec.resources.gpu`, `metadata.labels[app.kubernetes.io/name]`, an optional
 * leading '.'), plus `[=<json>]` for a set item (`metadata.finalizers[="x"]`); every
 * other segment is an object member. Returns 0, or -1 with st = BadRequest naming the
 * character position of a malformed path. */
int nd_fieldset_insert(struct nd_fieldset *s, const char *path, struct nd_status *st);
/* True when path (as for nd_fieldset_insert) is a member of s; false for a malformed
 * path, or a path that only has members below it. */
bool nd_fieldset_has(const struct nd_fieldset *s, const char *path);
/* True when s has no member. */
bool nd_fieldset_empty(const struct nd_fieldset *s);
/* True when a and b have the same members. */
bool nd_fieldset_equal(const struct nd_fieldset *a, const struct nd_fieldset *b);

/* Set algebra, each a NEW set. The difference is structured-merge-diff's (not
 * recursive): removing a path keeps the paths below it. */
struct nd_fieldset *nd_fieldset_union(const struct nd_fieldset *a, const struct nd_fieldset *b);
struct nd_fieldset *nd_fieldset_difference(const struct nd_fieldset *a,
                                           const struct nd_fieldset *b);
struct nd_fieldset *nd_fieldset_intersection(const struct nd_fieldset *a,
                                             const struct nd_fieldset *b);

/* Every member as a Kubernetes path string, NEW array, in structured-merge-diff's
 * iteration order: at each level the members first, then the levels below, each in
 * element order. E.g. [".spec.a", ".spec.d", ".spec.b.c"]. */
json_t *nd_fieldset_paths(const struct nd_fieldset *s);

/* ---- server-side apply and ownership (ssa.c) ---- */

/* How nd_ssa_apply applies: nd_ssa_apply(live, applied, &(struct nd_ssa_opts){.manager
 * = "kubectl", .force = true}, &out, st). */
typedef void (*nd_ssa_normalize_fn)(json_t *obj, void *cls);
struct nd_ssa_opts {
    const char *manager;     /* the field manager (required) */
    bool force;              /* take conflicting fields from their managers */
    const char *api_version; /* recorded in the entry; NULL: applied's apiVersion */
    const char *now;         /* RFC 3339 time of the entry; NULL: the clock */
    /* run on the merged object before it is compared with live (NULL: none): a server
     * passes its defaulting, so that a list the configuration gives without the fields
     * the server fills in (and that would be stored equal to live) is not a change, and
     * so no conflict */
    nd_ssa_normalize_fn normalize;
    void *cls; /* normalize's */
};

/* Applies `applied` (the apply configuration, an object) for `o->manager` onto `live`
 * (the stored object, NULL when the object does not exist: create on PATCH), as
 * kube-apiserver does for PATCH application/apply-patch+yaml. *out is the NEW object to
 * store; the inputs are untouched.
 *
 * - Create (live NULL): *out is applied without status and managedFields, with one
 *   managedFields entry for the manager. The caller fills the system metadata.
 * - Merge: *out is live with every tracked field of applied set to applied's value
 *   (objects merge member by member, arrays replace, finalizers union); applied's
 *   status and untracked metadata are ignored (resourceVersion preconditions and
 *   name/kind checks are the caller's).
 * - Pruning: a field in the manager's previous Apply entry that applied no longer sets
 *   is removed, unless another manager (Apply or Update) owns it or something below
 *   it; an object of the previous entry nobody owns anything in any more is removed
 *   whole (metadata never is).
 * - Conflicts: a field another manager owns (any operation; the manager's own Update
 *   entry is another manager) that this apply adds or changes. Without force the
 *   apply fails with ALL conflicts: st = Conflict (409), message exactly Kubernetes'
 *     Apply failed with 1 conflict: conflict with "kubectl-edit" using nodus.dev/v1: .spec.x
 *     Apply failed with 2 conflicts: conflicts with "a":\n- .spec.x\n- .spec.y
 *   (managers sorted; an Apply manager prints as "name", an Update manager as
 *   "name" using <apiVersion>, a subresource adds ` with subresource "status"`) and
 *   details.causes one per conflict: {reason "FieldManagerConflict", field ".spec.x",
 *   message "conflict with \"kubectl-edit\" using nodus.dev/v1"}.
 *   With force the fields are taken: removed from the other managers' entries.
 *   An unchanged value is no conflict: both managers then own the field.
 * - Ownership: the manager's Apply entry becomes exactly applied's field set, with
 *   apiVersion = o->api_version (NULL: applied's apiVersion); fields removed from the
 *   object leave every entry; entries left empty are dropped. Entries are
 *   {manager, operation "Apply", apiVersion, time, fieldsType "FieldsV1", fieldsV1}.
 *   Entry order is stable: existing entries in order, a new entry appended
 *   (kube-apiserver sorts them by operation, time, manager). An entry whose set did
 *   not change keeps its fieldsV1 text.
 * - Time: o->now (NULL: the clock) when the object changed or the manager's entry
 *   is new or changed; otherwise the entry keeps its time, so re-applying the same
 *   configuration changes nothing at all.
 * Errors (-1, *out NULL, st filled): Invalid when manager is empty ("fieldManager:
 * Required value: is required for apply patch"), too long or not printable;
 * BadRequest when applied is not an object or sets metadata.managedFields
 * ("metadata.managedFields must be nil"); InternalError when live's managedFields
 * cannot be read; Conflict as above. */
int nd_ssa_apply(const json_t *live, const json_t *applied, const struct nd_ssa_opts *o,
                 json_t **out, struct nd_status *st);

/* Records ownership for a write that is not an apply (create, PUT, merge patch, JSON
 * patch, or a write to a subresource), as kube-apiserver's Update does. Rewrites
 * new_obj's metadata.managedFields IN PLACE (removed when no entry is left).
 *   old_obj      the stored object before the write; NULL for a create
 *   new_obj      the object about to be stored (after the patch)
 *   manager      the fieldManager query parameter; when the request has none, the
 *                caller derives it with nd_ssa_manager_name (User-Agent prefix)
 *   api_version  recorded in the entry (NULL: new_obj's apiVersion)
 *   subresource  "" (or NULL) for the object; "status" for the status subresource:
 *                then only status is tracked and the entry has "subresource":"status"
 * The starting entries are old_obj's; for the main resource, new_obj's own
 * managedFields instead when it carries a readable non-empty list (a client may set
 * them), and none at all when it asks for a reset (nd_ssa_reset_requested).
 * Every field the write added or changed becomes the manager's, merged into its
 * Update entry (same manager, apiVersion and subresource; appended when new, with time
 * now_rfc3339 or the clock) and is taken from every other entry, Apply ones included
 * (so their next apply conflicts on it). Fields the write removed leave every entry;
 * entries left empty are dropped. A write that changes no tracked field leaves the
 * entries as they were. */
void nd_ssa_record_update(const json_t *old_obj, json_t *new_obj, const char *manager,
                          const char *api_version, const char *subresource,
                          const char *now_rfc3339);

/* Checks a client-supplied metadata.managedFields value (NULL or null: absent, fine).
 * `[]` and `[{}]` (a reset request) are fine. Otherwise a list of objects, each with
 * operation "Apply" or "Update", manager (a string of at most 128 printable bytes),
 * optional strings apiVersion, time (RFC 3339), fieldsType ("FieldsV1"), subresource
 * (at most 256 bytes), an optional fieldsV1 that nd_fieldset_from_json reads, and no
 * two entries with the same manager, operation, subresource (and apiVersion, for
 * Update). Returns 0, or -1 with st = Invalid and every problem as a cause with its
 * path, e.g. `metadata.managedFields[0].operation: Invalid value: "Patch": must be
 * `Apply` or `Update``, `metadata.managedFields[1].fieldsV1: Invalid value: ...`. */
int nd_ssa_validate_managed_fields(const json_t *mf, struct nd_status *st);

/* True when obj's metadata.managedFields is `[]` or `[{}]` (one entry whose members
 * are all null or ""), which Kubernetes reads as "reset ownership": the write's
 * manager then becomes the only owner of what it changes. */
bool nd_ssa_reset_requested(const json_t *obj);

/* Checks a field manager name: 0, or -1 with st = Invalid: empty ("Required value: is
 * required for apply patch"), longer than 128 bytes ("Too long: may not be more than
 * 128 bytes") or with a byte that is not printable ("invalid characters"). field
 * names the cause's field (e.g. "fieldManager"). */
int nd_ssa_validate_manager(const char *manager, const char *field, struct nd_status *st);

/* The manager of a write, NEW string: field_manager when non-empty, else what
 * kube-apiserver derives from the User-Agent: the text before the first '/', without
 * non-printable characters, cut at 128 bytes ("kubectl/v1.31.0 (linux/amd64)" gives
 * "kubectl"); "" when both are empty or NULL. */
char *nd_ssa_manager_name(const char *field_manager, const char *user_agent);

#endif
