/* crd.h: CustomResourceDefinitions (apiextensions.k8s.io/v1) of the nodus.dev kinds, so a
 * Kubernetes cluster stores, validates and prints them.
 *
 * Everything comes from the kind registry (registry.h) and the kind schemas (schema.h),
 * the ones the OpenAPI documents are built from (openapi.h): nothing here describes a
 * field. Each CRD has
 *   metadata.name   <plural>.<group> ("jobs.nodus.dev"), label app.kubernetes.io/part-of=nodus
 *   spec.group, spec.names (plural, singular, kind, listKind, shortNames, categories),
 *   spec.scope      Namespaced, or Cluster for a kind outside projects
 *   spec.versions   one: the kind's version, served and stored, with the status
 *                   subresource when the kind has one, the kind's printer columns but
 *                   NAME (Kubernetes adds that one itself), and the structural schema
 *                   of nd_crd_schema_new.
 */
#ifndef ND_API_CRD_H
#define ND_API_CRD_H

#include <jansson.h>

#include "kinds/registry.h"
#include "util/status.h"

/* The CRD of k. NEW; NULL with st (InternalError) when the kind has no schema or when
 * its schema cannot be made structural (the message names the field). */
json_t *nd_crd_new(const struct nd_kind *k, struct nd_status *st);

/* The kind's whole object schema (nd_kind_schema) made structural, as Kubernetes wants
 * a CRD's openAPIV3Schema:
 *   - $ref inlined (the description beside one wins); metadata is `type: object` alone,
 *     left to the API server;
 *   - `type` at every level (an int-or-string has anyOf [integer, string] instead);
 *     an array has items; additionalProperties never beside properties (-1 if so);
 *     `additionalProperties: true` becomes x-kubernetes-preserve-unknown-fields;
 *   - nodus's own string formats become patterns (money, quantity, dns-label, image)
 *     or are dropped (cron); formats Kubernetes knows are kept; x-nodus-* extensions
 *     and x-kubernetes-group-version-kind are dropped; descriptions, defaults, enums,
 *     bounds and required stay.
 * NEW; NULL with st (InternalError) naming the field that cannot be made structural. */
json_t *nd_crd_schema_new(const struct nd_kind *k, struct nd_status *st);
/* The same for any schema of schema.h, whose root is taken as an object's root (its
 * metadata becomes `type: object`). `what` names it in messages
 * (`the schema of WHAT cannot be made structural: spec.env: an array without items`). */
json_t *nd_crd_structural_new(const json_t *schema, const char *what, struct nd_status *st);

#endif
