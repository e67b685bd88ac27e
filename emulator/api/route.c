/* Which handler a request reaches; see route.h. */
#include "route.h"

#include <stdio.h>
#include <string.h>

#include "api.h"
#include "auth_review.h"
#include "query.h"
#include "util/validate.h"

#define GET ((const char *const[]){"get", NULL})

const struct em_nonresource em_nonresources[] = {
    /* open, tokens or not */
    {"/healthz", EM_TO_HEALTH, GET},
    {"/livez", EM_TO_HEALTH, GET},
    {"/readyz", EM_TO_READY, GET},
    {"/docs", EM_TO_DOCS, GET},
    {"/docs/*", EM_TO_DOCS, GET},
    {"/", EM_TO_CONSOLE, GET},
    {"/console", EM_TO_CONSOLE, GET},
    {"/console/*", EM_TO_CONSOLE, GET},
    /* any valid token: discovery (what under /api and /apis names a resource or a review
     * is routed there instead: em_route_make) */
    {"/api", EM_TO_DISCOVERY, GET},
    {"/api/*", EM_TO_DISCOVERY, GET},
    {"/apis", EM_TO_DISCOVERY, GET},
    {"/apis/*", EM_TO_DISCOVERY, GET},
    {"/openapi", EM_TO_DISCOVERY, GET},
    {"/openapi/*", EM_TO_DISCOVERY, GET},
    {"/version", EM_TO_DISCOVERY, GET},
    {"/version/", EM_TO_DISCOVERY, GET},
    /* admin: the control endpoints (em_route_control's methods) */
    {"/emulator", EM_TO_CONTROL, NULL},
    {"/emulator/*", EM_TO_CONTROL, (const char *const[]){"get", "post", "put", "delete", NULL}},
    {NULL, 0, NULL},
};

/* Where the control endpoints are, under /emulator/; where the docs are */
#define CONTROL_PREFIX "/emulator/v1/"
#define DOCS_PREFIX "/docs"
#define CONSOLE_PREFIX "/console/"

const struct em_nonresource *em_route_nonresource(const char *path)
{
    const struct em_nonresource *prefix = NULL;
    for (const struct em_nonresource *r = em_nonresources; r->path; r++) {
        size_t n = strlen(r->path);
        if (n >= 2 && !strcmp(r->path + n - 2, "/*")) {
            if (!prefix && !strncmp(path, r->path, n - 1))
                prefix = r;
        } else if (!strcmp(path, r->path)) {
            return r;
        }
    }
    return prefix;
}

bool em_route_method_writes(const char *m)
{
    return strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "PATCH") == 0 ||
           strcmp(m, "DELETE") == 0;
}

const char *em_route_verb_method(const char *verb)
{
    static const char *const methods[][2] = {
        {"get", "GET"},      {"list", "GET"},      {"watch", "GET"},
        {"create", "POST"},  {"update", "PUT"},    {"patch", "PATCH"},
        {"delete", "DELETE"}, {"deletecollection", "DELETE"},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(methods[i][0], verb) == 0)
            return methods[i][1];
    return verb;
}

/* The verb of method on an API path: get, list, watch (GET or HEAD; watch: the request's
 * ?watch= is true), create, update, patch, delete, deletecollection; NULL when the
 * method is not served there. On a deprecated .../watch/... path (p->watch) GET and HEAD
 * are watch, whatever ?watch= says, and nothing else is served. */
static const char *api_verb(const char *m, const struct em_path *p, bool watch)
{
    bool item = p->name != NULL;
    bool read = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
    if (p->watch) /* a .../watch/... path watches, whatever ?watch= says; nothing else */
        return read ? "watch" : NULL;
    if (read)
        return item ? "get" : watch ? "watch" : "list";
    if (strcmp(m, "POST") == 0)
        return item && !p->sub ? NULL : "create"; /* POST .../NAME/exec, /invoke */
    if (strcmp(m, "PUT") == 0)
        return item ? "update" : NULL;
    if (strcmp(m, "PATCH") == 0)
        return item ? "patch" : NULL;
    if (strcmp(m, "DELETE") == 0)
        return item ? "delete" : "deletecollection";
    return NULL;
}

/* ?watch= (its last value) is true; a value that is not a boolean is false here and
 * refused by the handler (400). */
static bool watch_asked(const json_t *query)
{
    const json_t *vals = json_object_get(query, "watch");
    size_t n = json_array_size(vals);
    bool w;
    return n && em_query_parse_bool(json_string_value(json_array_get(vals, n - 1)), &w) == 0 &&
           w;
}

/* What an API request does, from its parsed path (rt->api). */
static void api_route(struct em_route *rt, const json_t *query)
{
    const struct em_path *p = &rt->api;
    rt->target = EM_TO_API;
    rt->kind = nd_kind_by_plural(p->group, p->plural);
    rt->verb = api_verb(rt->method, p, watch_asked(query));
    rt->sub = p->sub;
    /* /api/v1/namespaces/NAME is the project NAME itself */
    bool ns_object = !*p->group && nd_kind_is(rt->kind, ND_KIND_PROJECT) && !p->ns;
    rt->project = p->ns ? p->ns : ns_object ? p->name : NULL;
    rt->project_in_body = ns_object && !p->name && rt->verb && !strcmp(rt->verb, "create");
}

void em_route_make(struct em_route *rt, const char *method, const char *path,
                   const json_t *query)
{
    memset(rt, 0, sizeof *rt);
    rt->method = method;
    rt->path = path;
    rt->is_write = em_route_method_writes(method);
    const struct em_nonresource *row = em_route_nonresource(path);
    rt->target = row ? row->target : EM_TO_OTHER;
    if (rt->target == EM_TO_DOCS) {
        rt->docs_page = path + strlen(DOCS_PREFIX);
    } else if (rt->target == EM_TO_CONSOLE) {
        size_t n = strlen(CONSOLE_PREFIX);
        rt->console_file = strncmp(path, CONSOLE_PREFIX, n) == 0 ? path + n : "";
    } else if (rt->target == EM_TO_CONTROL) {
        if (strncmp(path, CONTROL_PREFIX, strlen(CONTROL_PREFIX)) == 0)
            rt->control = path + strlen(CONTROL_PREFIX);
    } else if (rt->target == EM_TO_DISCOVERY && (rt->review = em_review_of(path))) {
        rt->target = EM_TO_REVIEW;
    } else if (rt->target == EM_TO_DISCOVERY && em_path_parse(path, &rt->api) == 0) {
        if (rt->api.plural) /* else /api/v1, /apis/G/V: discovery */
            api_route(rt, query);
        else
            em_path_release(&rt->api);
    }
}

void em_route_release(struct em_route *rt)
{
    em_path_release(&rt->api);
    memset(rt, 0, sizeof *rt);
}

bool em_route_open(const struct em_route *rt)
{
    return rt->target == EM_TO_HEALTH || rt->target == EM_TO_READY || rt->target == EM_TO_DOCS ||
           rt->target == EM_TO_CONSOLE;
}

bool em_route_is_sub(const struct em_route *rt, const char *sub)
{
    return rt->target == EM_TO_API && rt->sub && strcmp(rt->sub, sub) == 0;
}

enum em_control em_route_control(const char *method, const char *rest)
{
    bool get = strcmp(method, "GET") == 0;
    bool post = strcmp(method, "POST") == 0;
    bool del = strcmp(method, "DELETE") == 0;
    if (strcmp(rest, "stats") == 0 && get)
        return EM_CONTROL_STATS;
    if (strcmp(rest, "reset") == 0 && post)
        return EM_CONTROL_RESET;
    if (strcmp(rest, "clock") == 0 && (get || post))
        return EM_CONTROL_CLOCK;
    if (strcmp(rest, "pricebook") == 0 && (get || !strcmp(method, "PUT")))
        return EM_CONTROL_PRICEBOOK;
    if (strncmp(rest, "snapshots", 9) == 0 && (rest[9] == 0 || rest[9] == '/'))
        return EM_CONTROL_SNAPSHOTS;
    if (strcmp(rest, "faults") == 0 && (post || get || del))
        return EM_CONTROL_FAULTS;
    if (strcmp(rest, "spend") == 0 && get)
        return EM_CONTROL_SPEND;
    if (strcmp(rest, "stats") == 0 || strcmp(rest, "reset") == 0 ||
        strcmp(rest, "faults") == 0 || strcmp(rest, "clock") == 0 ||
        strcmp(rest, "pricebook") == 0 || strcmp(rest, "spend") == 0)
        return EM_CONTROL_METHOD;
    return EM_CONTROL_NONE;
}

int em_route_not_found(const struct nd_kind *k, const char *ns, const char *name,
                       struct nd_status *st)
{
    char res[ND_KIND_NAME_MAX];
    nd_status_set(st, "NotFound", NULL, "%s \"%s\" not found",
                  nd_kind_resource_name(k, res, sizeof res), name);
    nd_status_set_target(st, name, k->group, k->plural);
    if (k->namespaced && *ns)
        nd_status_set_fix(st, "list what exists: nodus get %s -n %s", k->plural, ns);
    else
        nd_status_set_fix(st, "list what exists: nodus get %s", k->plural);
    return -1;
}

int em_route_api(const struct em_route *rt, struct nd_status *st)
{
    char res[ND_KIND_NAME_MAX];
    const struct em_path *p = &rt->api;
    const char *method = rt->method, *path = rt->path, *verb = rt->verb;
    const struct nd_kind *k = rt->kind;
    if (!k || strcmp(k->version, p->version) != 0)
        return nd_status_set(st, "NotFound", "list the kinds: nodus api-resources",
                             "the server could not find the requested resource");
    if (p->ns && !k->namespaced)
        return nd_status_set(st, "NotFound", NULL,
                             "the server could not find the requested resource");
    const char *ns = p->ns ? p->ns : "";
    if (*ns && !nd_is_dns_label(ns))
        return nd_status_set(st, "NotFound", NULL, "namespaces \"%s\" not found", ns);
    bool item = p->name != NULL;
    if (!verb && p->watch)
        return nd_status_set(st, "MethodNotAllowed",
                             "watch with GET here; for other verbs leave /watch out of the path",
                             "the server does not allow this method on the requested resource: "
                             "%s on %s (a watch path takes only GET)",
                             method, path);
    if (!verb)
        return nd_status_set(st, "MethodNotAllowed", NULL, "%s is not supported on %s", method,
                             path);
    bool write = rt->is_write;
    if (k->read_only && !nd_kind_serves(k, NULL, verb))
        return nd_status_set(st, "MethodNotAllowed", NULL,
                             "%s are published by Nodus and cannot be changed",
                             nd_kind_resource_name(k, res, sizeof res));
    /* kube-apiserver has no .../watch/{plural}/{name} for a namespaced kind */
    if (p->watch && item && k->namespaced && !p->ns)
        return nd_status_set(st, "NotFound", "add the project: .../watch/namespaces/{ns}/...",
                             "the server could not find the requested resource");
    /* A namespaced kind without a project in the path is only listed and watched. */
    if (k->namespaced && !p->ns && (item || strcmp(verb, "create") == 0 ||
                                    strcmp(verb, "deletecollection") == 0))
        return nd_status_set(st, "MethodNotAllowed", "add the project: /namespaces/{ns}/...",
                             "%s needs a project in the path", verb);
    /* Events are named as kube names them, OBJECT.HEX (a DNS subdomain): a read looks any
     * such name up; writes and deletes take the DNS labels objects are created with */
    if (item && !write && nd_is_dns_subdomain(p->name))
        return 0;
    if (item && !p->watch && !nd_is_dns_label(p->name)) { /* a watch of it sees nothing */
        if (!write || strcmp(verb, "delete") == 0)
            return em_route_not_found(k, ns, p->name, st);
        nd_validate_dns_label(p->name, "metadata.name", st);
        return -1;
    }
    return 0;
}

/* MethodNotAllowed for a verb the subresource is not served with (nd_kind_sub_verbs),
 * the fix naming the methods it is. */
static int sub_method_not_allowed(const struct nd_kind *k, const char *sub, const char *verb,
                                  struct nd_status *st)
{
    struct nd_buf fix = ND_BUF_INIT;
    const char *const *v = nd_kind_sub_verbs(k, sub);
    nd_buf_addf(&fix, "the %s subresource takes ", sub);
    for (size_t i = 0; v[i]; i++)
        nd_buf_addf(&fix, "%s%s", i == 0 ? "" : v[i + 1] ? ", " : " or ", em_route_verb_method(v[i]));
    nd_status_set(st, "MethodNotAllowed", fix.data, "%s is not supported on the %s subresource",
                  em_route_verb_method(verb), sub);
    nd_buf_release(&fix);
    return -1;
}

int em_route_op(const struct em_route *rt, enum em_api_op *op, struct nd_status *st)
{
    const struct em_path *p = &rt->api;
    const struct nd_kind *k = rt->kind;
    const char *verb = rt->verb;
    if (p->sub && strcmp(p->sub, "status") != 0) {
        if (!nd_kind_has_subresource(k, p->sub))
            return nd_status_set(st, "NotFound", NULL,
                                 "the server could not find the requested resource");
        if (!nd_kind_serves(k, p->sub, verb))
            return sub_method_not_allowed(k, p->sub, verb, st);
        *op = EM_OP_SUBRESOURCE;
        return 0;
    }
    if (p->sub && !nd_kind_has_subresource(k, "status"))
        return nd_status_set(st, "NotFound", NULL,
                             "the server could not find the requested resource");
    if (p->sub && !nd_kind_serves(k, p->sub, verb))
        return sub_method_not_allowed(k, p->sub, verb, st);
    static const struct {
        const char *verb;
        enum em_api_op op;
    } ops[] = {
        {"get", EM_OP_GET},         {"list", EM_OP_LIST},     {"watch", EM_OP_WATCH},
        {"create", EM_OP_CREATE},   {"update", EM_OP_UPDATE}, {"patch", EM_OP_PATCH},
        {"delete", EM_OP_DELETE},
    };
    *op = EM_OP_DELETECOLLECTION;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(verb, ops[i].verb) == 0)
            *op = ops[i].op;
    return 0;
}
