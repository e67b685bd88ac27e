/* authz.h: who may do what, decided once for every request.
 *
 * em_authz_request is the only code that reads the Authorization header (and, for a
 * WebSocket upgrade without one, the token a browser offers as a subprotocol,
 * EM_BEARER_PROTOCOL). It finds the
 * caller's identity (struct em_identity) and asks em_authz_decide of what the request
 * does (its struct em_route, route.h: target, verb, project, kind, subresource), which
 * answers allowed (0) or a Status: 401 Unauthorized for a missing or unknown token, 403 Forbidden for a scope or project the token does not have. The
 * identity then rides down to the handlers: the created-by label, the billing:write scope
 * of Predict, and the filtering of cluster-wide lists and watches to the token's projects
 * (em_authz_may_see).
 *
 * Rules (spec/emulator.md "Identity and access"):
 *   /healthz /livez /readyz /docs/      open, tokens or not
 *   discovery, /openapi, /version       any valid token
 *   whoami, can-i (auth_review.h)       any valid token
 *   /emulator/v1/...                    admin (without --token-file: open, loopback only)
 *   get list watch, log                 read
 *   create update patch delete
 *   deletecollection, exec files invoke write
 *   a path naming a project             the token's projects (read: also nodus)
 *   project nodus, Namespace nodus      no write by anyone
 *   DELETE /api/v1/namespaces           only a token for every project ("*")
 *   cluster-wide lists and watches      filtered to the token's projects and nodus
 * admin (and "*") holds every scope; a token without "scopes" has every scope, one without
 * "projects" may use every project.
 */
#ifndef EM_AUTHZ_H
#define EM_AUTHZ_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "route.h"
#include "server.h"

#define EM_SCOPE_READ 1u
#define EM_SCOPE_WRITE 2u
#define EM_SCOPE_BILLING_WRITE 4u
#define EM_SCOPE_ADMIN 8u
#define EM_SCOPE_ALL 15u

/* A browser's WebSocket cannot carry Authorization: it offers the subprotocol
 * EM_BEARER_PROTOCOL + base64url(token) (no padding) beside v5.channel.k8s.io, as
 * kube-apiserver takes it. Never chosen, echoed or logged; at most
 * EM_BEARER_PROTOCOL_MAX characters of base64 (a longer one is an unknown token). */
#define EM_BEARER_PROTOCOL "base64url.bearer.authorization.k8s.io."
#define EM_BEARER_PROTOCOL_MAX 4096u

/* The caller. Strings and projects are borrowed from the token file (srv->tokens), which
 * lives until em_router_release, after every stream has ended. */
struct em_identity {
    const char *name;       /* nodus.dev/created-by; NULL: no token, or an unknown one */
    unsigned scopes;        /* EM_SCOPE_* */
    const json_t *projects; /* the token's "projects"; NULL: every project */
    bool token_sent;        /* an Authorization header came, or a subprotocol token */
    const char *token;      /* the token that matched (a secret: never log or store it);
                             * NULL: no token file (the operator) or none matched */
};

/* Reads --token-file (0600 or stricter, like ssh keys) into srv->tokens. 0, or -1 with
 * a message in err. Called before the state directory is touched. */
int em_authz_load(struct em_server *srv, struct nd_buf *err);

/* The one decision: 0 when who may do what rt says, else -1 with st set (Unauthorized or
 * Forbidden, with a fix). path only words the message. A SelfSubjectAccessReview asks it
 * of a route it fills from the review's attributes (authz_rules.c). */
int em_authz_decide(const struct em_server *srv, const struct em_identity *who,
                    const struct em_route *rt, const char *path, struct nd_status *st);

/* Decide for who the route rt of req; the body (the project a Namespace create names) is
 * read only once who passed every check the path alone allows (token, scope), and within
 * em_body_limits. */
int em_authz_check(const struct em_server *srv, const struct em_identity *who,
                   const struct em_req *req, const struct em_route *rt, struct nd_status *st);

/* Identify, then em_authz_check: what the router calls for every request. */
int em_authz_request(const struct em_server *srv, const struct em_req *req,
                     const struct em_route *rt, struct em_identity *who, struct nd_status *st);

/* Whether the request carries a token of the --token-file with the admin scope (false
 * without --token-file: then everyone is the operator, and no one is set apart). */
bool em_authz_admin_token(const struct em_server *srv, const struct em_req *req);

/* The caller without --token-file, and of --seed: emulator-user with every scope. */
const struct em_identity *em_authz_operator(void);

/* Whether who sees objects of project (its projects, and nodus, read-only to all). */
bool em_authz_may_see(const struct em_identity *who, const char *project);
/* Whether who sees obj of kind k in a list or watch (a Namespace by its name). */
bool em_authz_sees_object(const struct em_identity *who, const struct nd_kind *k,
                          const json_t *obj);

#endif
