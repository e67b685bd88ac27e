/* openapi.h: the OpenAPI v3 documents the API serves, built from the kind registry and
 * the kind schemas, shaped as kube-apiserver shapes them so kubectl (explain, create
 * with server-side field validation) and client-go work unchanged:
 *
 *   - for each kind, paths for list/create/deletecollection, get/replace/patch/delete,
 *     the status subresource and the list across projects, each operation carrying
 *     x-kubernetes-action and x-kubernetes-group-version-kind ({group, version, kind});
 *     the patch operation has a `fieldValidation` query parameter (kubectl looks for it
 *     before sending fieldValidation=Strict). Read-only kinds get get and list only.
 *   - components.schemas: dev.nodus.v1.<Kind> and dev.nodus.v1.<Kind>List (core:
 *     io.k8s.api.core.v1.<Kind>, events.k8s.io: io.k8s.api.events.v1.Event), each with
 *     x-kubernetes-group-version-kind
 *     [{group, version, kind}] and descriptions, plus ObjectMeta, ManagedFieldsEntry,
 *     OwnerReference, ListMeta, Status (with fix, docs, requestId), DeleteOptions, Patch.
 */
#ifndef ND_API_OPENAPI_H
#define ND_API_OPENAPI_H

#include <jansson.h>

#include "kinds/registry.h"

/* The document served at /openapi/v3/apis/nodus.dev/v1. NEW; NULL only when the
 * embedded schemas are broken (nd_schemas_check). */
json_t *nd_openapi_v3_group(void);
/* The document served at /openapi/v3/api/v1 (Namespace, Event). NEW, or NULL as above. */
json_t *nd_openapi_v3_core(void);
/* The document served at /openapi/v3/apis/events.k8s.io/v1 (the events.k8s.io view of
 * Events, io.k8s.api.events.v1.Event). NEW, or NULL as above. */
json_t *nd_openapi_v3_events(void);
/* The document served at /openapi/v3/apis/authorization.k8s.io/v1 (openapi_authz.c):
 * the create operations of SelfSubjectAccessReview and SelfSubjectRulesReview and their
 * io.k8s.api.authorization.v1 schemas. NEW, or NULL as above. */
json_t *nd_openapi_v3_authz(void);
/* The group-version documents of /openapi/v3, one per group version served, in the
 * root's order: `path` as the root names it ("api/v1", "apis/nodus.dev/v1"), served at
 * /openapi/v3/<path>; `make` builds it (NEW, or NULL as above). */
struct nd_openapi_doc {
    const char *path;
    json_t *(*make)(void);
};
extern const struct nd_openapi_doc nd_openapi_v3_docs[];
size_t nd_openapi_v3_doc_count(void);
/* The root document served at /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL":
 * "/openapi/v3/api/v1?hash=<hashes[0]>"}, ...}}, hashes[i] the hash of
 * nd_openapi_v3_docs[i]. NEW. */
json_t *nd_openapi_v3_root(const char *const *hashes);
/* The Swagger 2.0 document served at /openapi/v2 (openapi_v2.c), made from the v3
 * documents: their paths and operations in v2's shape (a `body` parameter, the query
 * parameters' own `type`, consumes/produces, x-kubernetes-action and
 * x-kubernetes-group-version-kind kept), and their schemas under `definitions`, with
 * `$ref`s to #/definitions/ and no `nullable`. NEW, or NULL as above. */
json_t *nd_openapi_v2(void);
/* doc (a Swagger 2.0 document as nd_openapi_v2 makes) as the protobuf message
 * openapi.v2.Document of gnostic's OpenAPIv2.proto, what kubectl 1.27 and 1.28 ask for
 * (openapi_v2_pb.c): swagger, info, paths (operations, parameters, responses, vendor
 * extensions) and definitions (every schema keyword of a Swagger schema; each
 * vendor extension a NamedAny whose Any holds the value as YAML, here JSON, which YAML
 * reads). Appended to out. */
struct nd_buf;
void nd_openapi_v2_protobuf(const json_t *doc, struct nd_buf *out);

/* The components.schemas name of a kind: "dev.nodus.v1.Job", "io.k8s.api.core.v1.Event".
 * NEW string. */
char *nd_openapi_schema_name(const struct nd_kind *k);

/* A stable hash of doc: FNV-1a 64 of its compact serialisation (keys in insertion
 * order), as 16 upper-case hex digits. NEW string. */
char *nd_openapi_hash(const json_t *doc);

#endif
