/* auth_review.h: kubectl's `auth whoami` and `auth can-i`, served.
 *
 *   POST /apis/authentication.k8s.io/v1/selfsubjectreviews        who the caller is
 *        (and v1beta1, which kubectl 1.27 asks, answered as v1beta1)
 *   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews   may the caller do this
 *   POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews    what may it do in a project
 *
 * Any caller with a valid token may ask both (route.c routes them as EM_TO_REVIEW).
 * A SelfSubjectReview answers status.userInfo: the token's identity as username, the
 * group system:authenticated, and in extra the token's projects (nodus.dev/projects,
 * "*" for all) and scopes (nodus.dev/scopes). Without --token-file the caller is
 * emulator-user with every scope and every project. A SelfSubjectAccessReview answers
 * status.allowed (and why not, in status.reason) from em_authz_decide, the decision the
 * router makes for the request its spec.resourceAttributes describe. A
 * SelfSubjectRulesReview of spec.namespace (required, as kube-apiserver has it) answers
 * status.resourceRules and nonResourceRules from the same facts (em_authz_rules,
 * authz_rules.h), and spec {} as kube-apiserver does. Bodies are JSON, or protobuf
 * (kubectl 1.32 and later); answers are JSON.
 */
#ifndef EM_AUTH_REVIEW_H
#define EM_AUTH_REVIEW_H

#include <stdbool.h>

#include "authz.h"
#include "server.h"

#define EM_AUTHN_GROUP "authentication.k8s.io"
#define EM_AUTHZ_GROUP "authorization.k8s.io"

/* The review resources, each created only (POST) by any valid token; the table ends with
 * a NULL group. */
struct em_review {
    const char *group, *version, *plural, *singular, *kind;
    bool listed; /* in discovery, OpenAPI and the rules (v1beta1 is served, not listed) */
};
extern const struct em_review em_reviews[];

/* The row of a review path, or NULL (em_route_make asks). */
const struct em_review *em_review_of(const char *path);

/* Serves req, for the review r (its route's), for who. */
void em_review_handle(struct em_server *srv, struct em_req *req, const struct em_review *r,
                      struct em_resp *resp, const struct em_identity *who);

#endif
