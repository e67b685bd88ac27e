/* Who am I, and may I: kubectl's SelfSubjectReview and SelfSubjectAccessReview; see
 * auth_review.h. Both answer from the identity the router found for the request
 * (authz.c) and, for an access review, from the one decision every request goes
 * through (em_authz_decide). Bodies come as JSON or, from kubectl 1.32 on, protobuf. */
#include "auth_review.h"

#include <string.h>
#include <strings.h>

#include "errors.h"
#include "json/json.h"
#include "protobuf.h"
#include "util/xmalloc.h"

#define AUTHN_PATH "/apis/" EM_AUTHN_GROUP "/v1/selfsubjectreviews"
#define AUTHZ_PATH "/apis/" EM_AUTHZ_GROUP "/v1/selfsubjectaccessreviews"
/* kubectl 1.27 asks v1beta1 (kube-apiserver 1.27 and 1.28 serve it), answered in kind */
#define AUTHN_PATH_BETA "/apis/" EM_AUTHN_GROUP "/v1beta1/selfsubjectreviews"

bool em_review_path(const char *path)
{
    return strcmp(path, AUTHN_PATH) == 0 || strcmp(path, AUTHZ_PATH) == 0 ||
           strcmp(path, AUTHN_PATH_BETA) == 0;
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

static void whoami(const struct em_identity *who, struct em_resp *resp, bool beta)
{
    const char *version = beta ? EM_AUTHN_GROUP "/v1beta1" : EM_AUTHN_GROUP "/v1";
    json_t *out = json_pack("{sssss{sn}s{so}}", "kind", "SelfSubjectReview", "apiVersion",
                            version, "metadata", "creationTimestamp", "status", "userInfo",
                            user_info(who));
    em_resp_json(resp, 201, out);
    json_decref(out);
}

/* ---- can-i ---- */

static const char *const verbs[] = {"get",    "list",   "watch",  "create",          "update",
                                    "patch",  "delete", "deletecollection", NULL};

static bool known_verb(const char *v)
{
    for (int i = 0; verbs[i]; i++)
        if (strcmp(verbs[i], v) == 0)
            return true;
    return false;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The answer to one resourceAttributes: allowed, or not with why in reason. The access
 * is what em_authz_describe makes of the request the attributes describe. */
static bool decide(const struct em_server *srv, const struct em_identity *who, const json_t *ra,
                   struct nd_buf *reason)
{
    const char *verb = str(ra, "verb"), *group = str(ra, "group"), *resource = str(ra, "resource");
    const char *ns = str(ra, "namespace"), *name = str(ra, "name"), *sub = str(ra, "subresource");
    if (!known_verb(verb)) {
        nd_buf_addf(reason, "the verb \"%s\" is not one this server knows (get, list, watch, "
                            "create, update, patch, delete, deletecollection)", verb);
        return false;
    }
    const struct nd_kind *k = nd_kind_by_plural(group, resource);
    if (!k) {
        nd_buf_addf(reason, "the server has no resource \"%s\"%s%s", resource,
                    *group ? " in the group " : "", group);
        return false;
    }
    if (*sub && !nd_kind_has_subresource(k, sub)) {
        nd_buf_addf(reason, "%s have no subresource \"%s\"", k->plural, sub);
        return false;
    }
    struct em_access acc = {.route = EM_ROUTE_API, .verb = verb, .kind = k};
    bool namespaces = !k->namespaced && nd_kind_is(k, ND_KIND_PROJECT) && !*group;
    if (k->namespaced && *ns)
        acc.project = nd_xstrdup(ns);
    else if (namespaces && *name)
        acc.project = nd_xstrdup(name);
    bool listing = !strcmp(verb, "list") || !strcmp(verb, "watch");
    acc.cluster_wide = listing && !acc.project;
    acc.unnamed = namespaces && !strcmp(verb, "create") && !*name;
    acc.sub = *sub ? nd_xstrdup(sub) : NULL;
    acc.plural = nd_xstrdup(k->plural);
    /* the path of the request described, for the words of the answer */
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? ns : NULL, *name ? name : NULL, *sub ? sub : NULL, &path);
    struct nd_status st = ND_STATUS_INIT;
    bool allowed = em_authz_decide(srv, who, &acc, path.data, &st) == 0;
    nd_buf_release(&path);
    if (!allowed) {
        nd_buf_adds(reason, st.message ? st.message : "forbidden");
    } else if (who->projects && !acc.project && (k->namespaced || namespaces)) {
        /* every project (--all-namespaces), for a token of some projects only */
        if (listing) {
            nd_buf_adds(reason, "answered with the objects of the token's projects only");
        } else {
            allowed = false;
            nd_buf_addf(reason, "%s may %s %s only in its own projects", who->name, verb,
                        k->plural);
        }
    }
    nd_status_release(&st);
    em_access_release(&acc);
    return allowed;
}

static void can_i(struct em_server *srv, struct em_req *req, struct em_resp *resp,
                  const struct em_identity *who)
{
    struct nd_status st = ND_STATUS_INIT;
    const char *ct = em_req_header(req, "content-type");
    json_t *in = ct && strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) == 0
                     ? em_protobuf_review((const unsigned char *)req->body.data, req->body.len,
                                          &st)
                     : nd_json_load_limited(req->body.data, req->body.len, "body",
                                            &em_body_limits, &st);
    const json_t *spec = json_object_get(in, "spec");
    const json_t *ra = json_object_get(spec, "resourceAttributes");
    const json_t *nra = json_object_get(spec, "nonResourceAttributes");
    if (!json_is_object(in) || (!json_is_object(ra) && !json_is_object(nra))) {
        if (!st.reason)
            nd_status_set(&st, "BadRequest", NULL,
                          "spec.resourceAttributes or spec.nonResourceAttributes is required");
        nd_status_set_fix(&st, "ask with a client that fills it in (kubectl auth can-i works too): "
                                "nodus auth can-i create jobs");
        em_resp_status(srv, req, resp, &st);
        json_decref(in);
        nd_status_release(&st);
        return;
    }
    struct nd_buf reason = ND_BUF_INIT;
    bool allowed;
    if (json_is_object(ra)) {
        allowed = decide(srv, who, ra, &reason);
    } else {
        /* paths outside the API (discovery, /version, /healthz): any valid caller reads
         * them; /emulator/ needs admin */
        const char *path = str(nra, "path");
        allowed = strncmp(path, "/emulator", 9) != 0 || (who->scopes & EM_SCOPE_ADMIN);
        if (!allowed)
            nd_buf_addf(&reason, "%s may not use %s: it needs the token scope admin", who->name,
                        path);
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

int em_review_handle(struct em_server *srv, struct em_req *req, struct em_resp *resp,
                     const struct em_identity *who)
{
    if (!em_review_path(req->path))
        return 0;
    if (strcmp(req->method, "POST") != 0) {
        em_resp_error(srv, req, resp, "MethodNotAllowed",
                      "%s is not supported on %s: reviews are created (POST)", req->method,
                      req->path);
        return 1;
    }
    const char *ct = em_req_header(req, "content-type");
    if (ct && strncasecmp(ct, "application/json", 16) != 0 &&
        strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) != 0) {
        em_resp_error(srv, req, resp, "UnsupportedMediaType",
                      "the body of the request was in an unknown format - accepted media "
                      "types include: application/json, application/vnd.kubernetes.protobuf");
        return 1;
    }
    if (strcmp(req->path, AUTHZ_PATH) != 0)
        whoami(who, resp, strcmp(req->path, AUTHN_PATH_BETA) == 0);
    else
        can_i(srv, req, resp, who);
    return 1;
}
