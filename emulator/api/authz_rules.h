/* authz_rules.h: what a caller may do, asked of the facts every request is decided by.
 *
 * The router decides each request with em_authz_decide (authz.c: token, scope, the
 * token's projects, the read-only project nodus) after route.c has refused what is not
 * served (nd_kind_sub_verbs: the verbs of each kind and subresource, none but get, list
 * and watch on a kind Nodus publishes). The two reviews ask exactly those:
 *
 *   em_authz_may       one request, as a SelfSubjectAccessReview's resourceAttributes
 *                      describe it (kubectl auth can-i VERB RESOURCE)
 *   em_authz_may_path  one path outside the resources (nonResourceAttributes), from
 *                      em_nonresources
 *   em_authz_rules     every rule of one project (a SelfSubjectRulesReview, kubectl auth
 *                      can-i --list): each kind, subresource and served verb asked of
 *                      em_authz_may, the reviews, and each row of em_nonresources
 *
 * so an answer of the one and a row of the other cannot disagree.
 */
#ifndef EM_AUTHZ_RULES_H
#define EM_AUTHZ_RULES_H

#include <jansson.h>
#include <stdbool.h>

#include "authz.h"
#include "util/buf.h"

/* One request, by its attributes; "" (never NULL) where it has none. */
struct em_ask {
    const char *verb, *group, *resource, *sub, *ns, *name;
};

/* Whether who may make the request q describes; when not (or when allowed only in part,
 * a list filtered to the token's projects), why in reason. */
bool em_authz_may(const struct em_server *srv, const struct em_identity *who,
                  const struct em_ask *q, struct nd_buf *reason);

/* Whether who may use path (verb: a lower-case HTTP method, "" for any); why not in
 * reason. */
bool em_authz_may_path(const struct em_server *srv, const struct em_identity *who,
                       const char *path, const char *verb, struct nd_buf *reason);

/* NEW status of a SelfSubjectRulesReview of project ns for who: resourceRules,
 * nonResourceRules, incomplete, and evaluationError when incomplete (what the rules
 * leave out: a right over every project but nodus, which rules cannot say). */
json_t *em_authz_rules(const struct em_server *srv, const struct em_identity *who,
                       const char *ns);

#endif
