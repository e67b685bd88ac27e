/* Discovery and OpenAPI documents; see discovery.h. */
#include "discovery.h"

#include <stdlib.h>
#include <string.h>

#include "accept.h"
#include "kinds/openapi.h"
#include "kinds/registry.h"
#include "auth_review.h"
#include "errors.h"
#include "util/hash.h"
#include "util/xmalloc.h"

#define AGG_V2 "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#define AGG_V2BETA1 "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
/* OpenAPI v2 as protobuf: kubectl asks with the old name, kube-apiserver answers with the
 * new one (and takes both). */
#define PB_V2 "com.github.proto-openapi.spec.v2.v1.0+protobuf"
#define PB_V2_OLD "com.github.proto-openapi.spec.v2@v1.0+protobuf"

/* Each document is kept serialised, with its ETag. */
struct doc {
    char *body;
    size_t len;
    char etag[20];
};

/* One server's documents (srv->discovery). */
struct em_discovery {
    struct doc version, api, apis, group, core_list, nodus_list;
    struct doc events_group, events_list; /* events.k8s.io (a view) */
    struct doc agg_api_v2, agg_apis_v2, agg_api_v2b1, agg_apis_v2b1;
    struct doc openapi_root, openapi_v2, openapi_v2_pb;
    struct doc openapi_v3[8]; /* nd_openapi_v3_docs[i] */
    char *v3_hash[8];
    struct doc authn_group, authn_list, authz_group, authz_list; /* auth_review.h */
};

static void set_doc(struct doc *doc, json_t *j)
{
    doc->body = json_dumps(j, JSON_COMPACT);
    doc->len = strlen(doc->body);
    char hex[17];
    nd_hash_hex(nd_fnv64(ND_FNV64_INIT, doc->body, doc->len), hex);
    snprintf(doc->etag, sizeof doc->etag, "\"%s\"", hex);
    json_decref(j);
}

/* A binary document: takes b's bytes. */
static void set_bin_doc(struct doc *doc, struct nd_buf *b)
{
    doc->len = b->len;
    doc->body = nd_buf_detach(b);
    char hex[17];
    nd_hash_hex(nd_fnv64(ND_FNV64_INIT, doc->body, doc->len), hex);
    snprintf(doc->etag, sizeof doc->etag, "\"%s\"", hex);
}

static json_t *str_array(const char *const *list)
{
    json_t *a = json_array();
    for (; list && *list; list++)
        json_array_append_new(a, json_string(*list));
    return a;
}

static const char *sub_kind(const struct nd_kind *k, const char *sub)
{
    if (strcmp(sub, "status") == 0)
        return k->kind;
    if (strcmp(sub, "log") == 0)
        return "Log";
    return "Status";
}

/* The legacy APIResourceList of a group version. */
static json_t *resource_list(const char *group, const char *gv)
{
    json_t *res = json_array();
    for (size_t i = 0; i < nd_kind_served_count(); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (strcmp(k->group, group) != 0)
            continue;
        json_t *r = json_pack("{sssssbsssoso}", "name", k->plural, "singularName", k->singular,
                              "namespaced", k->namespaced, "kind", k->kind, "verbs",
                              str_array(nd_kind_verbs(k)), "shortNames",
                              str_array(k->short_names));
        if (k->categories && k->categories[0])
            json_object_set_new(r, "categories", str_array(k->categories));
        json_array_append_new(res, r);
        for (const char *const *s = k->subresources; s && *s; s++) {
            char *name = nd_xasprintf("%s/%s", k->plural, *s);
            json_array_append_new(res, json_pack("{sssssbssso}", "name", name, "singularName", "",
                                                 "namespaced", k->namespaced, "kind",
                                                 sub_kind(k, *s), "verbs",
                                                 str_array(nd_kind_sub_verbs(k, *s))));
            free(name);
        }
    }
    return json_pack("{ssssssso}", "kind", "APIResourceList", "apiVersion", "v1", "groupVersion",
                     gv, "resources", res);
}

/* One APIGroupDiscovery (aggregated discovery) of a group. */
static json_t *agg_group(const char *group)
{
    json_t *res = json_array();
    for (size_t i = 0; i < nd_kind_served_count(); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (strcmp(k->group, group) != 0)
            continue;
        json_t *subs = json_array();
        for (const char *const *s = k->subresources; s && *s; s++)
            json_array_append_new(
                subs, json_pack("{sss{ssssss}so}", "subresource", *s, "responseKind", "group",
                                strcmp(*s, "status") == 0 ? k->group : "", "version",
                                strcmp(*s, "status") == 0 ? k->version : "v1", "kind",
                                sub_kind(k, *s), "verbs", str_array(nd_kind_sub_verbs(k, *s))));
        json_t *r = json_pack("{sss{ssssss}ssssso}", "resource", k->plural, "responseKind",
                              "group", k->group, "version", k->version, "kind", k->kind, "scope",
                              k->namespaced ? "Namespaced" : "Cluster", "singularResource",
                              k->singular, "verbs", str_array(nd_kind_verbs(k)));
        if (k->short_names && k->short_names[0])
            json_object_set_new(r, "shortNames", str_array(k->short_names));
        if (k->categories && k->categories[0])
            json_object_set_new(r, "categories", str_array(k->categories));
        if (json_array_size(subs))
            json_object_set_new(r, "subresources", subs);
        else
            json_decref(subs);
        json_array_append_new(res, r);
    }
    json_t *version = json_pack("{sssoss}", "version", "v1", "resources", res, "freshness",
                                "Current");
    return json_pack("{s{ss}s[o]}", "metadata", "name", group, "versions", version);
}

static json_t *agg_list(const char *version, json_t *group)
{
    char av[64];
    snprintf(av, sizeof av, "apidiscovery.k8s.io/%s", version);
    return json_pack("{sssss{}s[o]}", "kind", "APIGroupDiscoveryList", "apiVersion", av,
                     "metadata", "items", group);
}

/* The APIGroup of a group served at v1 (nodus.dev, events.k8s.io). */
static json_t *api_group(const char *group)
{
    char gv[64];
    snprintf(gv, sizeof gv, "%s/v1", group);
    return json_pack("{sssssss[{ssss}]s{ssss}}", "kind", "APIGroup", "apiVersion", "v1", "name",
                     group, "versions", "groupVersion", gv, "version", "v1", "preferredVersion",
                     "groupVersion", gv, "version", "v1");
}

/* The groups of kubectl's `auth whoami` and `auth can-i` (auth_review.h): the listed
 * rows of em_reviews, cluster-scoped resources created only. */
static const char *const review_groups[] = {EM_AUTHN_GROUP, EM_AUTHZ_GROUP};

static json_t *review_group(int i, bool typed)
{
    char gv[64];
    snprintf(gv, sizeof gv, "%s/v1", review_groups[i]);
    json_t *g = json_pack("{sss[{ssss}]s{ssss}}", "name", review_groups[i], "versions",
                          "groupVersion", gv, "version", "v1", "preferredVersion", "groupVersion",
                          gv, "version", "v1");
    if (typed) {
        json_object_set_new(g, "kind", json_string("APIGroup"));
        json_object_set_new(g, "apiVersion", json_string("v1"));
    }
    return g;
}

/* The legacy APIResourceList (agg false) or the aggregated resources (agg true) of
 * review group i. */
static json_t *review_resources(int i, bool agg)
{
    json_t *res = json_array();
    for (const struct em_review *r = em_reviews; r->group; r++) {
        if (!r->listed || strcmp(r->group, review_groups[i]) != 0)
            continue;
        if (agg)
            json_array_append_new(
                res, json_pack("{sss{ssssss}sssss[s]}", "resource", r->plural, "responseKind",
                               "group", r->group, "version", r->version, "kind", r->kind,
                               "scope", "Cluster", "singularResource", r->singular, "verbs",
                               "create"));
        else
            json_array_append_new(res, json_pack("{sssssbsss[s]}", "name", r->plural,
                                                 "singularName", r->singular, "namespaced", 0,
                                                 "kind", r->kind, "verbs", "create"));
    }
    return res;
}

static json_t *review_list(int i)
{
    char gv[64];
    snprintf(gv, sizeof gv, "%s/v1", review_groups[i]);
    return json_pack("{ssssssso}", "kind", "APIResourceList", "apiVersion", "v1",
                     "groupVersion", gv, "resources", review_resources(i, false));
}

static json_t *review_agg(int i)
{
    return json_pack("{s{ss}s[{sssoss}]}", "metadata", "name", review_groups[i], "versions",
                     "version", "v1", "resources", review_resources(i, true), "freshness",
                     "Current");
}

/* The aggregated list of /apis: nodus.dev, events.k8s.io, then the review groups. */
static json_t *agg_apis(const char *version)
{
    json_t *list = agg_list(version, agg_group("nodus.dev"));
    json_t *items = json_object_get(list, "items");
    json_array_append_new(items, agg_group("events.k8s.io"));
    for (int i = 0; i < 2; i++)
        json_array_append_new(items, review_agg(i));
    return list;
}

int em_discovery_init(struct em_server *srv, struct nd_buf *err)
{
    struct em_discovery *d = srv->discovery = nd_xcalloc(1, sizeof *srv->discovery);
    set_doc(&d->version,
            json_pack("{ssssssssssssssssss}", "major", "1", "minor", "33", "gitVersion",
                      "v1.33.0-nodus." ND_VERSION, "gitCommit", "", "gitTreeState", "clean",
                      "buildDate", "2026-01-01T00:00:00Z", "goVersion", "go1.24", "compiler",
                      "gc", "platform", "linux/amd64"));
    set_doc(&d->api, json_pack("{sss[s]s[{ssss}]}", "kind", "APIVersions", "versions", "v1",
                              "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0",
                              "serverAddress", ""));
    json_t *group = api_group("nodus.dev"), *events = api_group("events.k8s.io");
    json_object_del(group, "kind");
    json_object_del(group, "apiVersion");
    json_object_del(events, "kind");
    json_object_del(events, "apiVersion");
    set_doc(&d->apis, json_pack("{sssss[oooo]}", "kind", "APIGroupList", "apiVersion", "v1",
                               "groups", group, events, review_group(0, false),
                               review_group(1, false)));
    set_doc(&d->authn_group, review_group(0, true));
    set_doc(&d->authn_list, review_list(0));
    set_doc(&d->authz_group, review_group(1, true));
    set_doc(&d->authz_list, review_list(1));
    set_doc(&d->group, api_group("nodus.dev"));
    set_doc(&d->events_group, api_group("events.k8s.io"));
    set_doc(&d->events_list, resource_list("events.k8s.io", "events.k8s.io/v1"));
    set_doc(&d->core_list, resource_list("", "v1"));
    set_doc(&d->nodus_list, resource_list("nodus.dev", "nodus.dev/v1"));
    set_doc(&d->agg_api_v2, agg_list("v2", agg_group("")));
    set_doc(&d->agg_apis_v2, agg_apis("v2"));
    set_doc(&d->agg_api_v2b1, agg_list("v2beta1", agg_group("")));
    set_doc(&d->agg_apis_v2b1, agg_apis("v2beta1"));
    (void)err;
    return 0;
}

/* The OpenAPI documents are the biggest by far: made at the first request for one (under
 * the server lock), not at start. -1 when the built-in schemas do not load. */
static int openapi_ready(struct em_discovery *d)
{
    if (d->openapi_root.body)
        return 0;
    size_t n = nd_openapi_v3_doc_count();
    json_t *docs[sizeof d->openapi_v3 / sizeof d->openapi_v3[0]] = {NULL};
    bool ok = n <= sizeof docs / sizeof docs[0];
    for (size_t i = 0; ok && i < n; i++)
        ok = (docs[i] = nd_openapi_v3_docs[i].make()) != NULL;
    if (!ok) {
        for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
            json_decref(docs[i]);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        d->v3_hash[i] = nd_openapi_hash(docs[i]);
        set_doc(&d->openapi_v3[i], docs[i]);
    }
    set_doc(&d->openapi_root, nd_openapi_v3_root((const char *const *)d->v3_hash));
    return 0;
}

/* Which of nd_openapi_v3_docs is served at /openapi/v3/<path>; -1: none. */
static int openapi_v3_index(const char *path)
{
    for (size_t i = 0; i < nd_openapi_v3_doc_count(); i++)
        if (strcmp(path, nd_openapi_v3_docs[i].path) == 0)
            return (int)i;
    return -1;
}

/* OpenAPI v2 (kubectl 1.27 and 1.28 validate and explain with it), made at its first
 * request like v3, in JSON and in protobuf. -1 when the built-in schemas do not load. */
static int openapi_v2_ready(struct em_discovery *d)
{
    if (d->openapi_v2.body)
        return 0;
    json_t *doc = nd_openapi_v2();
    if (!doc)
        return -1;
    struct nd_buf pb = ND_BUF_INIT;
    nd_openapi_v2_protobuf(doc, &pb);
    set_bin_doc(&d->openapi_v2_pb, &pb);
    set_doc(&d->openapi_v2, doc);
    return 0;
}

void em_discovery_release(struct em_server *srv)
{
    struct em_discovery *d = srv->discovery;
    if (!d)
        return;
    struct doc *docs[] = {&d->version, &d->api, &d->apis, &d->group, &d->core_list,
                          &d->nodus_list, &d->agg_api_v2, &d->agg_apis_v2, &d->agg_api_v2b1,
                          &d->agg_apis_v2b1,
                          &d->openapi_root, &d->openapi_v2, &d->openapi_v2_pb,
                          &d->authn_group, &d->authn_list, &d->authz_group, &d->authz_list,
                          &d->events_group, &d->events_list};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        free(docs[i]->body);
    for (size_t i = 0; i < sizeof d->openapi_v3 / sizeof d->openapi_v3[0]; i++) {
        free(d->openapi_v3[i].body);
        free(d->v3_hash[i]);
    }
    free(d);
    srv->discovery = NULL;
}

static void serve(const struct em_req *req, struct em_resp *resp, const struct doc *doc,
                  const char *type)
{
    em_resp_set_header(resp, "ETag", doc->etag);
    const char *inm = em_req_header(req, "if-none-match");
    if (inm && strcmp(inm, doc->etag) == 0) {
        resp->code = 304;
        nd_buf_reset(&resp->body);
        em_resp_set_type(resp, type);
        return;
    }
    resp->code = 200;
    nd_buf_reset(&resp->body);
    nd_buf_add(&resp->body, doc->body, doc->len);
    em_resp_set_type(resp, type);
}

/* Which OpenAPI v2 encoding Accept asks for, as kube-apiserver chooses: the clauses by
 * quality (then the more specific first), the first one that JSON (application/json)
 * or protobuf matches, a wildcard matching JSON first. No Accept is `*` `/` `*`.
 * Returns 'j', 'p', or 0 (406). */
static int openapi_v2_format(const struct em_req *req)
{
    const char *accept = em_req_header(req, "accept");
    if (!accept || !*accept)
        return 'j';
    struct em_accept_clause cl[16];
    size_t n = em_accept_clauses(accept, cl, sizeof cl / sizeof cl[0]);
    for (size_t i = 0; i < n; i++) {
        if (cl[i].q <= 0)
            continue;
        const char *t = cl[i].type;
        if (!strcmp(t, "*/*") || !strcmp(t, "application/*") || !strcmp(t, "application/json"))
            return 'j';
        if (!strcmp(t, "application/" PB_V2) || !strcmp(t, "application/" PB_V2_OLD))
            return 'p';
    }
    return 0;
}

/* Aggregated discovery is served when Accept offers it: the first version offered wins. */
static const char *agg_version(const struct em_req *req)
{
    const char *accept = em_req_header(req, "accept");
    if (!accept)
        return NULL;
    const char *v2 = strstr(accept, "v=v2;as=APIGroupDiscoveryList");
    const char *b1 = strstr(accept, "v=v2beta1;as=APIGroupDiscoveryList");
    if (v2 && (!b1 || v2 < b1))
        return "v2";
    return b1 ? "v2beta1" : NULL;
}

int em_discovery_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp)
{
    struct em_discovery *d = srv->discovery;
    const char *p = req->path;
    bool get = strcmp(req->method, "GET") == 0;
    int v3 = -1; /* which /openapi/v3 group document */
    if (strcmp(p, "/version") == 0 || strcmp(p, "/version/") == 0) {
        serve(req, resp, &d->version, "application/json");
    } else if (strcmp(p, "/api") == 0 || strcmp(p, "/apis") == 0) {
        bool core = strcmp(p, "/api") == 0;
        const char *agg = agg_version(req);
        if (agg && strcmp(agg, "v2") == 0)
            serve(req, resp, core ? &d->agg_api_v2 : &d->agg_apis_v2, AGG_V2);
        else if (agg)
            serve(req, resp, core ? &d->agg_api_v2b1 : &d->agg_apis_v2b1, AGG_V2BETA1);
        else
            serve(req, resp, core ? &d->api : &d->apis, "application/json");
    } else if (strcmp(p, "/api/v1") == 0) {
        serve(req, resp, &d->core_list, "application/json");
    } else if (strcmp(p, "/apis/nodus.dev") == 0) {
        serve(req, resp, &d->group, "application/json");
    } else if (strcmp(p, "/apis/nodus.dev/v1") == 0) {
        serve(req, resp, &d->nodus_list, "application/json");
    } else if (strcmp(p, "/apis/events.k8s.io") == 0) {
        serve(req, resp, &d->events_group, "application/json");
    } else if (strcmp(p, "/apis/events.k8s.io/v1") == 0) {
        serve(req, resp, &d->events_list, "application/json");
    } else if (strcmp(p, "/apis/" EM_AUTHN_GROUP) == 0) {
        serve(req, resp, &d->authn_group, "application/json");
    } else if (strcmp(p, "/apis/" EM_AUTHN_GROUP "/v1") == 0) {
        serve(req, resp, &d->authn_list, "application/json");
    } else if (strcmp(p, "/apis/" EM_AUTHZ_GROUP) == 0) {
        serve(req, resp, &d->authz_group, "application/json");
    } else if (strcmp(p, "/apis/" EM_AUTHZ_GROUP "/v1") == 0) {
        serve(req, resp, &d->authz_list, "application/json");
    } else if (strncmp(p, "/openapi/v3", 11) == 0 && openapi_ready(d) < 0) {
        em_resp_error(srv, req, resp, "InternalError",
                      "the built-in kind schemas do not load (a build problem)");
        return 1;
    } else if (strcmp(p, "/openapi/v3") == 0) {
        serve(req, resp, &d->openapi_root, "application/json");
    } else if (strncmp(p, "/openapi/v3/", 12) == 0 && (v3 = openapi_v3_index(p + 12)) >= 0) {
        const char *hash = em_req_query(req, "hash");
        if (hash && strcmp(hash, d->v3_hash[v3]) == 0)
            em_resp_set_header(resp, "Cache-Control", "public, immutable");
        serve(req, resp, &d->openapi_v3[v3], "application/json");
    } else if (strcmp(p, "/openapi/v2") == 0) {
        if (openapi_v2_ready(d) < 0) {
            em_resp_error(srv, req, resp, "InternalError",
                          "the built-in kind schemas do not load (a build problem)");
            return 1;
        }
        em_resp_set_header(resp, "Vary", "Accept");
        int format = openapi_v2_format(req);
        if (!format) {
            em_resp_error(srv, req, resp, "NotAcceptable",
                          "/openapi/v2 is served as application/json or as "
                          "application/" PB_V2);
            return 1;
        }
        if (format == 'p')
            serve(req, resp, &d->openapi_v2_pb, "application/" PB_V2);
        else
            serve(req, resp, &d->openapi_v2, "application/json");
    } else if (strncmp(p, "/openapi/", 9) == 0) {
        em_resp_error(srv, req, resp, "NotFound", "the server could not find the requested "
                                                  "resource");
        return 1;
    } else {
        return 0;
    }
    if (!get && resp->code < 300) {
        nd_buf_reset(&resp->body);
        em_resp_error(srv, req, resp, "MethodNotAllowed", "%s is not supported on %s",
                      req->method, p);
    }
    return 1;
}
