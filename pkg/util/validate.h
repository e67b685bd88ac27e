/* validate.h: Kubernetes name and metadata checks, with Kubernetes' messages.
 *
 * The rules and the wording are those of k8s.io/apimachinery/pkg/util/validation as
 * of Kubernetes 1.33 (IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
 * IsValidLabelValue; annotation keys are qualified names checked in lower case, as
 * ValidateAnnotations does).
 *
 * The nd_validate_* functions return 0 when s is valid. Otherwise they record an
 * error in st and return -1: reason "Invalid" (HTTP 422) and, for each problem (a
 * value can have two, e.g. too long AND a bad character), one entry in
 * details.causes: {reason "FieldValueInvalid", field <field>, message
 * `Invalid value: "Foo": <what is wrong>`}, exactly as a Kubernetes field.Invalid
 * error. st->message is the causes joined the way Kubernetes aggregates them:
 * `metadata.name: Invalid value: "Foo": a lowercase RFC 1123 label must ...` for one
 * error, `[e1, e2]` for several. field may be NULL (no field, no "field: " prefix).
 *
 * Errors accumulate: when st already holds an Invalid error with causes (from these
 * functions), the new causes are appended and the message rebuilt, so a caller can
 * validate every field of an object and report all problems at once. Any other error
 * in st is replaced. A NULL s records {FieldValueRequired, field, "Required value"}.
 * Values are echoed quoted as Go's %q would (see quote.h), cut after 256 bytes.
 *
 * The nd_is_* variants answer yes/no without touching any status (NULL is no).
 */
#ifndef ND_VALIDATE_H
#define ND_VALIDATE_H

#include <stdbool.h>

#include "util/status.h"

#define ND_DNS_LABEL_MAX     63
#define ND_DNS_SUBDOMAIN_MAX 253
#define ND_LABEL_VALUE_MAX   63

/* RFC 1123 label: 1..63 of [a-z0-9-], starting and ending with [a-z0-9] (metadata.name). */
int nd_validate_dns_label(const char *s, const char *field, struct nd_status *st);
/* RFC 1123 subdomain: 1..253 bytes, dot-separated labels. */
int nd_validate_dns_subdomain(const char *s, const char *field, struct nd_status *st);
/* Label key (qualified name): [prefix/]name, prefix a DNS subdomain, name 1..63 of
 * [A-Za-z0-9._-] starting and ending with [A-Za-z0-9]. */
int nd_validate_label_key(const char *s, const char *field, struct nd_status *st);
/* Label value: empty, or 1..63 bytes like a label key's name part. */
int nd_validate_label_value(const char *s, const char *field, struct nd_status *st);
/* Annotation key: a label key, case-insensitive ("Example.com/Key" is fine). */
int nd_validate_annotation_key(const char *s, const char *field, struct nd_status *st);

bool nd_is_dns_label(const char *s);
bool nd_is_dns_subdomain(const char *s);
bool nd_is_label_key(const char *s);
bool nd_is_label_value(const char *s);
bool nd_is_annotation_key(const char *s);

/* Records one Kubernetes field.Invalid error the same way (for other modules'
 * checks): cause {FieldValueInvalid, field, `Invalid value: "<value>": <detail>`}.
 * Returns -1. */
int nd_validate_invalid(struct nd_status *st, const char *field, const char *value,
                        const char *detail);
/* Records one field.Required error: cause {FieldValueRequired, field, "Required value"}
 * (with ": <detail>" when detail is not NULL). Returns -1. */
int nd_validate_required(struct nd_status *st, const char *field, const char *detail);

#endif
