/* Dispatch of API requests to the generic handlers, and what they share. */
#include "api.h"
#include "route.h"
#include "subresource.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errors.h"
#include "json/json.h"
#include "protobuf.h"
#include "query.h"
#include "selector/selector.h"
#include "table.h"
#include "util/validate.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

int em_api_not_found(struct em_api *a, const char *name)
{
    return em_route_not_found(a->kind, a->ns, name, &a->st);
}

int em_api_dry_run(struct em_api *a, bool *dry_run)
{
    *dry_run = false;
    json_t *vals = json_object_get(a->req->query, "dryRun");
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v) {
        const char *s = json_string_value(v);
        if (strcmp(s, "All") == 0)
            *dry_run = true;
        else if (*s)
            return nd_status_set(&a->st, "BadRequest", "use dryRun=All",
                                 "invalid dry run value: %s (the only value is All)", s);
    }
    return 0;
}

json_t *em_api_body(struct em_api *a, bool yaml_ok)
{
    const char *ct = em_req_header(a->req, "content-type");
    if (a->req->body.len == 0) {
        nd_status_set(&a->st, "BadRequest", "send the object as JSON in the request body",
                      "the request has no body");
        return NULL;
    }
    if (ct && strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) == 0)
        return em_protobuf_namespace((const unsigned char *)a->req->body.data, a->req->body.len,
                                     &a->st);
    bool yaml = ct && (strncasecmp(ct, "application/yaml", 16) == 0 ||
                       strncasecmp(ct, "application/apply-patch+yaml", 28) == 0);
    if (yaml && !yaml_ok) {
        nd_status_set(&a->st, "UnsupportedMediaType", NULL,
                      "the body of the request was in an unknown format - accepted media "
                      "types include: application/json");
        return NULL;
    }
    const struct em_req *r = a->req;
    json_t *obj = yaml ? nd_yaml_load_limited(r->body.data, r->body.len, "body", &em_body_limits,
                                              &a->st)
                       : nd_json_load_limited(r->body.data, r->body.len, "body", &em_body_limits,
                                              &a->st);
    if (!obj)
        return NULL;
    if (!json_is_object(obj)) {
        json_decref(obj);
        nd_status_set(&a->st, "BadRequest", NULL, "the body must be a JSON object");
        return NULL;
    }
    return obj;
}

const char *em_api_field_manager(struct em_api *a, char out[128])
{
    const char *fm = em_req_query(a->req, "fieldManager");
    if (fm && *fm) {
        snprintf(out, 128, "%s", fm);
        return out;
    }
    /* As kube-apiserver: the User-Agent's product name ("kubectl", "curl", ...). */
    const char *ua = em_req_header(a->req, "user-agent");
    size_t n = 0;
    while (ua && ua[n] && ua[n] != '/' && ua[n] != ' ' && n < 127)
        n++;
    if (!n) {
        snprintf(out, 128, "unknown");
        return out;
    }
    snprintf(out, 128, "%.*s", (int)n, ua);
    return out;
}

int em_api_selectors(struct em_api *a, enum nd_select_use use, struct nd_select *out)
{
    return nd_select_parse(out, em_req_query(a->req, "labelSelector"),
                           em_req_query(a->req, "fieldSelector"), a->kind->field_selectors, use,
                           &a->st);
}

json_t *em_api_select(struct em_api *a, json_t *items)
{
    struct nd_select sel;
    if (em_api_selectors(a, ND_SELECT_WRITE, &sel) < 0)
        return NULL;
    json_t *out = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(items, i, o) {
        if (em_authz_sees_object(a->who, a->kind, o) && nd_select_matches(&sel, o))
            json_array_append(out, o);
    }
    nd_select_release(&sel);
    return out;
}

void em_api_answer(struct em_api *a, int code, const json_t *obj)
{
    json_t *out = NULL;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, "Status") == 0) {
        em_resp_json(a->resp, code, obj);
        return;
    }
    if (a->accept.repr == EM_REPR_TABLE) {
        struct em_table_row row = {.o = {.obj = obj}};
        em_table_answer(a->srv, a->kind, &row, 1,
                        &(struct em_table_opts){.req = a->req, .version = a->accept.version,
                                                .with_columns = true},
                        a->resp);
        a->resp->code = code;
        return;
    } else if (a->accept.repr == EM_REPR_META) {
        out = em_partial_object(obj, a->accept.version);
    }
    em_resp_json(a->resp, code, out ? out : obj);
    json_decref(out);
}

/* The checks and the handler of a request are decided in route.c (from its method and
 * path alone); the query parameters are checked between the two. */
static int dispatch(struct em_api *a)
{
    const struct em_route *rt = a->route;
    const struct em_path *p = &rt->api;
    const char *verb = rt->verb;
    if (em_route_api(rt, &a->st) < 0)
        return -1;
    /* every query parameter of the verb (the subresource's name for log, exec, files,
     * invoke), before anything reads state: query.h */
    if (em_query_check(a->req->query, p->sub && strcmp(p->sub, "status") ? p->sub : verb,
                       &a->st) < 0)
        return -1;
    enum em_api_op op;
    if (em_route_op(rt, &op, &a->st) < 0)
        return -1;
    /* a metadata answer that does not fit the answer's shape is refused before anything
     * is read or written (kube-apiserver refuses it after) */
    if (op != EM_OP_SUBRESOURCE) {
        bool list = op == EM_OP_LIST || op == EM_OP_DELETECOLLECTION;
        const char *what = op == EM_OP_WATCH ? "a watch event's object"
                           : list             ? a->kind->list_kind
                                              : a->kind->kind;
        if (em_accept_fits(&a->accept, list, what, &a->st) < 0)
            return -1;
    }
    switch (op) {
    case EM_OP_SUBRESOURCE:
        return em_subresource_dispatch(a, verb);
    case EM_OP_GET:
        return em_api_get(a);
    case EM_OP_LIST:
        return em_api_list(a);
    case EM_OP_WATCH:
        return em_api_watch(a);
    case EM_OP_CREATE:
        return em_api_create(a);
    case EM_OP_UPDATE:
        return em_api_replace(a);
    case EM_OP_PATCH:
        return em_api_patch(a);
    case EM_OP_DELETE:
        return em_api_delete(a);
    case EM_OP_DELETECOLLECTION:
        break;
    }
    return em_api_delete_collection(a);
}

void em_api_handle(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                   struct em_resp *resp, const struct em_identity *who)
{
    struct em_api a = {.srv = srv,
                       .req = req,
                       .resp = resp,
                       .route = rt,
                       .path = rt->api, /* borrowed: released with the route */
                       .kind = rt->kind,
                       .ns = rt->api.ns ? rt->api.ns : "",
                       .identity = who->name,
                       .who = who};
    nd_status_init(&a.st);
    a.warnings = json_array();
    if (em_accept_choose(em_req_header(req, "accept"), &a.accept, &a.st) < 0) {
        em_resp_status(srv, req, resp, &a.st);
        goto out;
    }
    if (em_api_check_query(&a) < 0 || dispatch(&a) < 0)
        em_resp_status(srv, req, resp, &a.st);
    em_api_pretty(&a);
    size_t i;
    json_t *w;
    json_array_foreach(a.warnings, i, w) {
        struct nd_buf b = ND_BUF_INIT;
        nd_buf_adds(&b, "299 - \"");
        for (const char *c = json_string_value(w); *c; c++) {
            if (*c == '"' || *c == '\\')
                nd_buf_addch(&b, '\\');
            nd_buf_addch(&b, *c);
        }
        nd_buf_addch(&b, '"');
        em_resp_add_header(resp, "Warning", b.data);
        nd_buf_release(&b);
    }
out:
    json_decref(a.warnings);
    nd_status_release(&a.st);
}
