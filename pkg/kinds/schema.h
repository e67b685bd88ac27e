/* schema.h: each kind's OpenAPI v3 schema, and the validation and defaulting done with it.
 *
 * The schemas are YAML files compiled into the library (pkg/kinds/schemas/<kind>.yaml, see
 * util/embed.h). They are parsed once, on first use, by whichever thread gets there
 * first (a `get` that never validates never pays for it). Besides standard OpenAPI
 * (type, format, enum, default, minimum, maximum, minItems, maxItems, minLength,
 * maxLength, pattern, required, nullable, additionalProperties, $ref to
 * components.schemas) they use:
 *   format            int32, int64, double; and nodus's string formats, checked here:
 *                     duration (Go, non-negative), money (decimal US dollars,
 *                     non-negative), quantity, date-time (RFC 3339), cron (5 fields),
 *                     image (nodus/<name>:<tag>), dns-label
 *   x-nodus-min/max   bounds of a duration or a quantity ("1m", "24h", "1Gi")
 *   x-nodus-priced    the field sets a price: the price book's key that prices it
 *                     (cpuCoreHourUSD, memoryGiBHourUSD, storageGiBMonthUSD), or gpu for
 *                     a GPU model, which the emulator refuses unless the price book or
 *                     the work's Pool offers it (emulator/sim/controllers/priced.c)
 *   x-kubernetes-int-or-string   an integer or a string (quantities)
 *   x-nodus-include   `file#a.b` takes in a piece of another file (resolved at load time,
 *                     so the served schemas never show it)
 */
#ifndef ND_API_SCHEMA_H
#define ND_API_SCHEMA_H

#include <jansson.h>

#include "kinds/field_errors.h"
#include "kinds/registry.h"
#include "util/status.h"

/* The fieldValidation query parameter (api.md). */
enum nd_field_validation {
    ND_FIELD_VALIDATION_IGNORE, /* unknown fields are dropped silently */
    ND_FIELD_VALIDATION_WARN,   /* the default: one warning per unknown field */
    ND_FIELD_VALIDATION_STRICT, /* unknown fields fail Invalid */
};

/* "Ignore", "Warn", "Strict"; NULL or "" is Warn. Else -1 and st BadRequest. */
int nd_field_validation_parse(const char *s, enum nd_field_validation *out, struct nd_status *st);

/* The kind's whole object schema: apiVersion, kind, metadata ($ref to
 * #/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta), then the
 * kind's own properties (spec, status), with x-kubernetes-group-version-kind.
 * BORROWED, lives for the program. NULL only when the embedded files are broken
 * (nd_schemas_check says why). */
const json_t *nd_kind_schema(const struct nd_kind *k);
/* The shared components (ObjectMeta, ManagedFieldsEntry, OwnerReference, ListMeta,
 * Status, DeleteOptions, Patch) by full name, as an object name -> schema. BORROWED. */
const json_t *nd_schema_components(void);
/* The schema of the field at path below schema ("spec.resources.gpu.count",
 * "spec.steps[0].job", "metadata.labels"), following $ref, items and
 * additionalProperties. BORROWED; NULL when the schema has no such field. */
const json_t *nd_schema_at(const json_t *schema, const char *path);
/* schema itself, or the component its "$ref: #/components/schemas/NAME" names. BORROWED;
 * NULL for a reference to nothing. */
const json_t *nd_schema_deref(const json_t *schema);
/* 0 when every embedded schema loaded and every kind has one; else -1 with st saying
 * what is wrong (InternalError). */
int nd_schemas_check(struct nd_status *st);

/* Applies the schema's defaults to obj in place, Kubernetes' structural defaulting: a
 * missing member with a default gets a copy of it, then defaults apply inside it (so
 * `default: {}` on a parent makes its children's defaults apply); a JSON null in a
 * member that is not nullable is removed first (pruned), so it is defaulted too. */
void nd_kind_default(const struct nd_kind *k, json_t *obj);

/* Drops, in place, every member the kind's schema does not know (except below
 * x-kubernetes-preserve-unknown-fields and open additionalProperties), as kube-apiserver
 * prunes custom resources: call it after nd_kind_validate has warned about them. */
void nd_kind_prune(const struct nd_kind *k, json_t *obj);
/* Validates everything but status (what a create, replace or patch may set). Unknown
 * fields: Ignore drops nothing and says nothing, Warn appends `unknown field "spec.foo"`
 * to warnings (an array; may be NULL), Strict makes each an error. Also checks
 * metadata (name a DNS label, or generateName; labels; annotations), apiVersion and
 * kind when present, and the kind's own rules (validate_extra).
 * Returns 0, or -1 with st: reason Invalid, Kubernetes' message
 * (`Job.nodus.dev "x" is invalid: [spec.maxCostUSD: Required value, ...]`) and one
 * details.causes entry per problem (see field_errors.h). */
int nd_kind_validate(const struct nd_kind *k, const json_t *obj, enum nd_field_validation fv,
                     json_t *warnings, struct nd_status *st);
/* The same for status only (what the status subresource may set). */
int nd_kind_validate_status(const struct nd_kind *k, const json_t *obj, enum nd_field_validation fv,
                            json_t *warnings, struct nd_status *st);
/* The generic schema walk, for callers validating a piece (a Pipeline step's job):
 * value against schema, problems under path (may be "" for the root). */
void nd_schema_validate(const json_t *schema, const json_t *value, const char *path,
                        enum nd_field_validation fv, json_t *warnings,
                        struct nd_field_errors *errs);

/* Checks an update of old_obj into new_obj (replace or patch) against the kind's
 * mutable fields (registry.h):
 *   - a change to a field that is not mutable, or to metadata.name, metadata.namespace
 *     or metadata.uid: one cause per field path, FieldValueForbidden
 *     "Forbidden: field is immutable";
 *   - a raise-only field lowered (compared as money, duration or quantity by the field's
 *     format; setting one that was unset lowers it from "no limit"; removing one raises it):
 *     FieldValueInvalid "...: may only be raised";
 *   - a field changed while its old value was not the one it may change from
 *     (PoolAction decision): FieldValueForbidden;
 *   - spec.state changed on a run-to-completion object that has finished: FieldValueInvalid.
 * Labels, annotations, finalizers and status are not checked. Returns 0, or -1 with st:
 * reason FieldImmutable when any cause is an immutable field, Invalid otherwise, with
 * the message and causes of nd_kind_validate. */
int nd_kind_check_update(const struct nd_kind *k, const json_t *old_obj, const json_t *new_obj,
                         struct nd_status *st);

/* Checks labels and annotations under the reserved prefix nodus.dev/, which Nodus sets:
 * a key that new_obj adds or changes compared with old_obj (NULL on create) is
 * FieldValueForbidden, except the request annotations nodus.dev/<action>-requested-at
 * that clients set. Keys new_obj leaves out are not reported (a replace carries the
 * server's keys over). Returns 0, or -1 with st: Invalid, one cause per key. */
int nd_kind_check_reserved(const struct nd_kind *k, const json_t *old_obj, const json_t *new_obj,
                           struct nd_status *st);

#endif
