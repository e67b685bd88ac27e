/* field_errors.h: validation problems collected in Kubernetes' field.ErrorList shape.
 *
 * Each problem has a type (a Kubernetes CauseType such as FieldValueRequired), a field
 * path (Kubernetes syntax: spec.steps[1].dependsOn[0]) and a body, worded as
 * field.Error.ErrorBody() words it:
 *
 *   Required value                                  FieldValueRequired
 *   Invalid value: -1: must be greater than ...     FieldValueInvalid
 *   Unsupported value: "X": supported values: "A", "B"   FieldValueNotSupported
 *   Too many: 17: must have at most 16 items        FieldValueTooMany
 *   Forbidden: field is immutable                   FieldValueForbidden
 *
 * nd_field_errors_to_status() turns the list into the Status Kubernetes' NewInvalid
 * builds: message `Job.nodus.dev "x" is invalid: <field>: <body>` for one problem and
 * `... is invalid: [<e1>, <e2>]` for several (identical texts once), and one
 * details.causes entry {reason, field, message: <body>} per problem (no field for a
 * problem with the whole object, whose path is "").
 * Bad values are echoed as Go's %v / %q would: strings quoted (cut after 256 bytes),
 * numbers and booleans bare, objects and arrays as compact JSON.
 */
#ifndef ND_API_FIELD_ERRORS_H
#define ND_API_FIELD_ERRORS_H

#include <jansson.h>
#include <stddef.h>

#include "kinds/registry.h"
#include "util/status.h"

struct nd_field_errors {
    json_t *causes; /* owned array of {reason, field, message} */
    json_t *texts;  /* owned array: each problem as the aggregated message shows it */
    json_t *fixes;  /* owned array: each problem's own fix, or null (nd_field_errors_fix) */
};

void nd_field_errors_init(struct nd_field_errors *e);
void nd_field_errors_release(struct nd_field_errors *e);
size_t nd_field_errors_count(const struct nd_field_errors *e);

/* Required value[: detail]. detail may be NULL. */
void nd_field_errors_required(struct nd_field_errors *e, const char *field, const char *detail);
/* Invalid value: <value>: <detail>. A NULL value leaves the value out ("Invalid value:
 * <detail>"), as Kubernetes does for problems that are not about one value. */
void nd_field_errors_invalid(struct nd_field_errors *e, const char *field, const json_t *value,
                             const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Invalid value (type): reason FieldValueTypeInvalid. */
void nd_field_errors_type_invalid(struct nd_field_errors *e, const char *field, const json_t *value,
                                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Unsupported value: <value>: supported values: "a", "b" (supported NULL-terminated). */
void nd_field_errors_not_supported(struct nd_field_errors *e, const char *field,
                                   const json_t *value, const char *const *supported);
/* Forbidden: <detail>. */
void nd_field_errors_forbidden(struct nd_field_errors *e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Duplicate value: <value>. */
void nd_field_errors_duplicate(struct nd_field_errors *e, const char *field, const json_t *value);
/* Too many: <actual>: must have at most <max> items. */
void nd_field_errors_too_many(struct nd_field_errors *e, const char *field, size_t actual,
                              size_t max);
/* Too long: may not be longer than <max>. */
void nd_field_errors_too_long(struct nd_field_errors *e, const char *field, size_t max);
/* An unknown field under fieldValidation=Strict: reason FieldValueInvalid, message
 * `unknown field "<field>"` (the wording of Kubernetes' strict decoding errors, which
 * is also the whole text shown in the aggregated message). */
void nd_field_errors_unknown(struct nd_field_errors *e, const char *field);
/* Appends the causes of a status filled by util/validate.h's nd_validate_* functions. */
void nd_field_errors_add_status(struct nd_field_errors *e, const struct nd_status *st);
/* What to do about the problems added from the first-th on (nd_field_errors_count before
 * adding them): the Status's fix when every problem has one (several different ones are
 * joined with "; "), instead of the generic fix of its reason. */
void nd_field_errors_fix(struct nd_field_errors *e, size_t first, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Builds st from the list: reason (e.g. "Invalid", "FieldImmutable"), details
 * {name, group, kind, causes} and Kubernetes' aggregated message naming the kind as
 * `<Kind>.<group>` (`<Kind>` for the core group) and the object's name; the fix is the
 * problems' own (nd_field_errors_fix) when each has one, else the reason's. Returns -1
 * when there is at least one problem, 0 (st untouched) when there is none. */
int nd_field_errors_to_status(const struct nd_field_errors *e, const char *reason,
                              const struct nd_kind *k, const char *name, struct nd_status *st);

/* Appends v as a field.Error shows a bad value. */
void nd_field_errors_format_value(struct nd_buf *out, const json_t *v);

#endif
