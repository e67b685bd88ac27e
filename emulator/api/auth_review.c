/* Who am I, and may I: kubectl's SelfSubjectReview and SelfSubjectAccessReview; see
 * auth_review.h. Both answer from the identity the router found for the request
 * (authz.c) and, for an access review, from the one decision every request goes
 * through (em_authz_decide). Bodies come as JSON or, from kubectl 1.32 on, protobuf. */
#include "auth_review.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "authz_rules.h"
#include "errors.h"
#include "json/json.h"
#include "protobuf.h"
#include "util/xmalloc.h"

const struct em_review em_reviews[] = {
    {EM_AUTHN_GROUP, "v1", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview",
     true},
    /* kubectl 1.27 asks v1beta1 (kube-apiserver 1.27 and 1.28 serve it), answered in kind */
    {EM_AUTHN_GROUP, "v1beta1", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview",
     false},
    {EM_AUTHZ_GROUP, "v1", "selfsubjectaccessreviews", "selfsubjectaccessreview",
     "SelfSubjectAccessReview", true},
    {EM_AUTHZ_GROUP, "v1", "selfsubjectrulesreviews", "selfsubjectrulesreview",
     "SelfSubjectRulesReview", true},
    {NULL, NULL, NULL, NULL, NULL, false},
};

const struct em_review *em_review_of(const char *path)
{
    for (const struct em_review *r = em_reviews; r->group; r++) {
        size_t g = strlen(r->group), v = strlen(r->version);
        if (!strncmp(path, "/apis/", 6) && !strncmp(path + 6, r->group, g) &&
            path[6 + g] == '/' && !strncmp(path + 7 + g, r->version, v) &&
            path[7 + g + v] == '/' && !strcmp(path + 8 + g + v, r->plural))
            return r;
    }
    return NULL;
}

/* ---- whoami ---- */

static json_t *scope_list(unsigned scopes)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{EM_SCOPE_READ, "read"},
                 {EM_SCOPE_WRITE, "write"},
                 {EM_SCOPE_BILLING_WRITE, "billing:write"},
                 {EM_SCOPE_ADMIN, "admin"}};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (scopes & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
}

/* NEW: the userInfo of who (Kubernetes' shape); the token's scopes and projects go in
 * extra, as a real server puts what its authenticator knows beyond name and groups. */
static json_t *user_info(const struct em_identity *who)
{
    json_t *projects = who->projects ? json_deep_copy(who->projects) : json_pack("[s]", "*");
    return json_pack("{sss[s]s{soso}}", "username", who->name ? who->name : "", "groups",
                     "system:authenticated", "extra", "nodus.dev/projects", projects,
                     "nodus.dev/scopes", scope_list(who->scopes));
}

static void whoami(const struct em_identity *who, struct em_resp *resp, const char *group,
                   const char *version)
{
    char av[64];
    snprintf(av, sizeof av, "%s/%s", group, version);
    json_t *out = json_pack("{sssss{sn}s{so}}", "kind", "SelfSubjectReview", "apiVersion",
                            av, "metadata", "creationTimestamp", "status", "userInfo",
                            user_info(who));
    em_resp_json(resp, 201, out);
    json_decref(out);
}

/* ---- can-i ---- */

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* NEW object of the body (JSON, or protobuf), or NULL with st. */
static json_t *read_body(struct em_req *req, struct nd_status *st)
{
    const char *ct = em_req_header(req, "content-type");
    if (ct && strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) == 0)
        return em_protobuf_review((const unsigned char *)req->body.data, req->body.len, st);
    return nd_json_load_limited(req->body.data, req->body.len, "body", &em_body_limits, st);
}

/* A bad review body: BadRequest (or what reading it found) with fix. */
static void refuse(struct em_server *srv, struct em_req *req, struct em_resp *resp,
                   struct nd_status *st, const char *message, const char *fix)
{
    if (!st->reason)
        nd_status_set(st, "BadRequest", NULL, "%s", message);
    nd_status_set_fix(st, "%s", fix);
    em_resp_status(srv, req, resp, st);
}

static void can_i(struct em_server *srv, struct em_req *req, struct em_resp *resp,
                  const struct em_identity *who)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *in = read_body(req, &st);
    const json_t *spec = json_object_get(in, "spec");
    const json_t *ra = json_object_get(spec, "resourceAttributes");
    const json_t *nra = json_object_get(spec, "nonResourceAttributes");
    if (!json_is_object(in) || (!json_is_object(ra) && !json_is_object(nra))) {
        refuse(srv, req, resp, &st,
               "spec.resourceAttributes or spec.nonResourceAttributes is required",
               "ask with a client that fills it in (kubectl auth can-i works too): "
               "nodus auth can-i create jobs");
        json_decref(in);
        nd_status_release(&st);
        return;
    }
    struct nd_buf reason = ND_BUF_INIT;
    bool allowed;
    if (json_is_object(ra)) {
        struct em_ask q = {str(ra, "verb"),        str(ra, "group"), str(ra, "resource"),
                           str(ra, "subresource"), str(ra, "namespace"), str(ra, "name")};
        allowed = em_authz_may(srv, who, &q, &reason);
    } else {
        allowed = em_authz_may_path(srv, who, str(nra, "path"), str(nra, "verb"), &reason);
    }
    json_t *out = json_pack("{sssss{sn}sO}", "kind", "SelfSubjectAccessReview", "apiVersion",
                            EM_AUTHZ_GROUP "/v1", "metadata", "creationTimestamp", "spec",
                            spec);
    json_t *status = json_pack("{sb}", "allowed", allowed);
    if (reason.len)
        json_object_set_new(status, "reason", json_string(reason.data));
    json_object_set_new(out, "status", status);
    em_resp_json(resp, 201, out);
    json_decref(out);
    json_decref(in);
    nd_buf_release(&reason);
    nd_status_release(&st);
}

/* ---- can-i --list ---- */

#define RULES_FIX "name the project: {\"spec\": {\"namespace\": \"default\"}} (kubectl auth " \
                  "can-i --list -n PROJECT)"

static void rules(struct em_server *srv, struct em_req *req, struct em_resp *resp,
                  const struct em_identity *who)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *in = read_body(req, &st);
    const json_t *spec = json_object_get(in, "spec");
    const json_t *ns = json_object_get(spec, "namespace");
    const char *kind = json_string_value(json_object_get(in, "kind"));
    if (!json_is_object(in)) {
        refuse(srv, req, resp, &st, "the body must be a JSON object", RULES_FIX);
    } else if (kind && *kind && strcmp(kind, "SelfSubjectRulesReview") != 0) {
        nd_status_set(&st, "BadRequest", NULL, "not a SelfSubjectRulesReview: the body is a %s",
                      kind);
        refuse(srv, req, resp, &st, "", "send kind SelfSubjectRulesReview (" RULES_FIX ")");
    } else if (spec && !json_is_object(spec)) {
        refuse(srv, req, resp, &st, "spec must be an object", RULES_FIX);
    } else if (ns && !json_is_string(ns)) {
        refuse(srv, req, resp, &st, "spec.namespace must be a string", RULES_FIX);
    } else if (!json_string_length(ns)) {
        /* kube-apiserver's words: a review is of one namespace */
        refuse(srv, req, resp, &st, "no namespace on request", RULES_FIX);
    } else {
        json_t *out = json_pack("{sssss{sn}s{}so}", "kind", "SelfSubjectRulesReview",
                                "apiVersion", EM_AUTHZ_GROUP "/v1", "metadata",
                                "creationTimestamp", "spec", "status",
                                em_authz_rules(srv, who, json_string_value(ns)));
        em_resp_json(resp, 201, out);
        json_decref(out);
    }
    json_decref(in);
    nd_status_release(&st);
}

void em_review_handle(struct em_server *srv, struct em_req *req, const struct em_review *r,
                      struct em_resp *resp, const struct em_identity *who)
{
    if (strcmp(req->method, "POST") != 0) {
        em_resp_error(srv, req, resp, "MethodNotAllowed",
                      "%s is not supported on %s: reviews are created (POST)", req->method,
                      req->path);
        return;
    }
    const char *ct = em_req_header(req, "content-type");
    if (ct && strncasecmp(ct, "application/json", 16) != 0 &&
        strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) != 0) {
        em_resp_error(srv, req, resp, "UnsupportedMediaType",
                      "the body of the request was in an unknown format - accepted media "
                      "types include: application/json, application/vnd.kubernetes.protobuf");
        return;
    }
    if (!strcmp(r->kind, "SelfSubjectAccessReview"))
        can_i(srv, req, resp, who);
    else if (!strcmp(r->kind, "SelfSubjectRulesReview"))
        rules(srv, req, resp, who);
    else
        whoami(who, resp, r->group, r->version);
}
