/* protobuf.h: the protobuf bodies the emulator reads.
 *
 * kubectl 1.32 and later send core objects as protobuf (`kubectl create namespace X`
 * POSTs a v1 Namespace as application/vnd.kubernetes.protobuf). The emulator answers in
 * JSON (kubectl accepts it) and decodes just what a Namespace create carries: the
 * envelope ("k8s\0" + runtime.Unknown), and of the Namespace its metadata's name,
 * generateName, labels, annotations and finalizers and its spec's finalizers.
 */
#ifndef EM_PROTOBUF_H
#define EM_PROTOBUF_H

#include <jansson.h>
#include <stddef.h>

#include "util/status.h"

/* NEW JSON object of the Namespace, or NULL with st (BadRequest) for anything else. */
json_t *em_protobuf_namespace(const unsigned char *data, size_t len, struct nd_status *st);

/* NEW JSON object of a SelfSubjectReview, SelfSubjectAccessReview or
 * SelfSubjectRulesReview (kubectl 1.32 and later `auth whoami`, `auth can-i` and `auth
 * can-i --list`): kind, apiVersion and, of an access review, spec.resourceAttributes
 * (namespace verb group version resource subresource name) or spec.nonResourceAttributes
 * (path verb); of a rules review, spec.namespace. NULL with st (BadRequest) otherwise. */
json_t *em_protobuf_review(const unsigned char *data, size_t len, struct nd_status *st);

#endif
