/* openapi.c: OpenAPI v3 documents in kube-apiserver's shape (see openapi.h). */
#include "kinds/openapi.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/schema.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define META       "io.k8s.apimachinery.pkg.apis.meta.v1."
#define REF_PREFIX "#/components/schemas/"

/* Names a document is built with. */
struct doc {
    const char *group;    /* "nodus.dev" or "" */
    const char *prefix;   /* "/apis/nodus.dev/v1" or "/api/v1" */
    const char *op_group; /* "NodusDevV1" or "CoreV1", in operation ids */
    const char *tag;      /* "nodusDev_v1" or "core_v1" */
    json_t *paths;
    json_t *schemas;
};

char *nd_openapi_schema_name(const struct nd_kind *k)
{
    if (!*k->group)
        return nd_xasprintf("io.k8s.api.core.%s.%s", k->version, k->kind);
    /* a Kubernetes group (events.k8s.io): io.k8s.api.events.v1.Event, as kube names it */
    size_t gl = strlen(k->group);
    if (gl > 7 && strcmp(k->group + gl - 7, ".k8s.io") == 0)
        return nd_xasprintf("io.k8s.api.%.*s.%s.%s", (int)(gl - 7), k->group, k->version, k->kind);
    /* nodus.dev -> dev.nodus (reversed domain, as Kubernetes names CRD schemas) */
    struct nd_buf b = ND_BUF_INIT;
    const char *end = k->group + strlen(k->group);
    while (end > k->group) {
        const char *dot = end;
        while (dot > k->group && dot[-1] != '.')
            dot--;
        nd_buf_add(&b, dot, (size_t)(end - dot));
        nd_buf_addch(&b, '.');
        end = dot > k->group ? dot - 1 : dot;
    }
    nd_buf_addf(&b, "%s.%s", k->version, k->kind);
    return nd_buf_detach(&b);
}

static json_t *ref(const char *name)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, REF_PREFIX "%s", name);
    json_t *r = json_pack("{s:s}", "$ref", b.data);
    nd_buf_release(&b);
    return r;
}

static json_t *gvk(const struct nd_kind *k, const char *kind)
{
    return json_pack("{s:s, s:s, s:s}", "group", k->group, "version", k->version, "kind", kind);
}

static json_t *param(const char *name, const char *in, const char *type, const char *description)
{
    json_t *p = json_pack("{s:s, s:s, s:s, s:{s:s}}", "name", name, "in", in, "description",
                          description, "schema", "type", type);
    if (strcmp(in, "path") == 0)
        json_object_set_new(p, "required", json_true());
    else
        json_object_set_new(p, "style", json_string("form"));
    return p;
}

/* Query parameters by name, with the descriptions kubectl users see. */
static json_t *query(const char *name)
{
    static const struct {
        const char *name, *type, *description;
    } params[] = {
        {"allowWatchBookmarks", "boolean", "Send BOOKMARK events every 30 seconds to resume from."},
        {"continue", "string", "The token of the next page, from a list's metadata.continue."},
        {"dryRun", "string", "All runs every check and writes nothing."},
        {"fieldManager", "string", "The name of the client making the change."},
        {"fieldSelector", "string",
         "Select by fields: metadata.name, metadata.namespace, status.phase, spec.state."},
        {"fieldValidation", "string",
         "Ignore, Warn (the default: a Warning header per unknown field) or Strict (unknown "
         "fields fail Invalid)."},
        {"force", "boolean", "Take over fields another manager owns (server-side apply)."},
        {"gracePeriodSeconds", "integer", "Accepted for compatibility; work stops at once."},
        {"labelSelector", "string", "Select by labels: app=trainer, tier in (a,b), !key."},
        {"limit", "integer", "At most this many objects (default 500, at most 1000)."},
        {"pretty", "string", "Indent the answer."},
        {"propagationPolicy", "string", "Background (the default), Foreground or Orphan."},
        {"resourceVersion", "string", "List or watch from this revision of the store."},
        {"resourceVersionMatch", "string", "How resourceVersion applies to a list."},
        {"sendInitialEvents", "boolean",
         "With watch: the current objects as ADDED first, then a BOOKMARK annotated "
         "k8s.io/initial-events-end (with resourceVersionMatch=NotOlderThan)."},
        {"timeoutSeconds", "integer", "End the list or watch after this many seconds."},
        {"watch", "boolean", "Stream every change as ADDED, MODIFIED and DELETED events."},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (strcmp(params[i].name, name) == 0)
            return param(name, "query", params[i].type, params[i].description);
    return param(name, "query", "string", "");
}

static json_t *query_list(const char *const *names)
{
    json_t *a = json_array();
    for (; *names; names++)
        json_array_append_new(a, query(*names));
    return a;
}

static json_t *content(json_t *schema)
{
    json_t *c = json_object();
    json_object_set_new(c, "application/json", json_pack("{s:o}", "schema", schema));
    return c;
}

static json_t *response(const char *description, const char *schema_name)
{
    return json_pack("{s:s, s:o}", "description", description, "content",
                     content(ref(schema_name)));
}

/* What add_paths says of one operation. */
struct op {
    const char *verb;          /* the description's first words: "read", "list or watch" */
    const char *action;        /* x-kubernetes-action: get, list, post, put, patch ... */
    const char *const *params; /* query parameter names, NULL-terminated */
    const char *body;          /* the request body's schema; NULL: none */
    const char *answer;        /* the answer's schema */
    bool created;              /* it may also answer 201 Created */
};

/* An operation: id, action, GVK, query parameters, body schema, answers. */
static json_t *operation(const struct doc *d, const struct nd_kind *k, const char *what,
                         const struct op *o)
{
    const char *verb = o->verb, *action = o->action, *body = o->body, *answer = o->answer;
    const char *const *params = o->params;
    bool created = o->created;
    json_t *op = json_object();
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "%s %s", verb, what);
    json_object_set_new(op, "description", json_string(b.data));
    json_object_set_new(op, "tags", json_pack("[s]", d->tag));
    nd_buf_release(&b);
    json_object_set_new(op, "parameters", query_list(params));
    if (body && strcmp(action, "patch") == 0) {
        json_t *c = json_object();
        /* kube-apiserver's order; strategic merge only where the kind takes it (its
         * built-in kinds, not custom resources) */
        static const char *const types[] = {"application/json-patch+json",
                                            "application/merge-patch+json",
                                            "application/strategic-merge-patch+json",
                                            "application/apply-patch+yaml", NULL};
        for (const char *const *t = types; *t; t++)
            if (k->strategic || !strstr(*t, "strategic"))
                json_object_set_new(c, *t, json_pack("{s:o}", "schema", ref(body)));
        json_object_set_new(op, "requestBody",
                            json_pack("{s:o, s:b}", "content", c, "required", 1));
    } else if (body) {
        json_object_set_new(
            op, "requestBody",
            json_pack("{s:o, s:b}", "content", content(ref(body)), "required",
                      strcmp(action, "delete") != 0 && strcmp(action, "deletecollection") != 0));
    }
    json_t *responses = json_object();
    json_object_set_new(responses, "200", response("OK", answer));
    if (created)
        json_object_set_new(responses, "201", response("Created", answer));
    json_object_set_new(responses, "default", response("Error", META "Status"));
    json_object_set_new(op, "responses", responses);
    json_object_set_new(op, "x-kubernetes-action", json_string(action));
    json_object_set_new(op, "x-kubernetes-group-version-kind", gvk(k, k->kind));
    return op;
}

static void set_op_id(json_t *op, const char *verb, const struct doc *d, const struct nd_kind *k,
                      const char *scope, const char *suffix)
{
    char *id = nd_xasprintf("%s%s%s%s%s", verb, d->op_group, scope, k->kind, suffix);
    json_object_set_new(op, "operationId", json_string(id));
    free(id);
}

/* One HTTP method of a path: its operation and the verb of its operationId; `write`
 * methods are left out of read-only kinds. */
struct method {
    const char *http, *id_verb;
    const struct op *op;
    bool write;
};

/* Sets on path the operations of methods (a table ending with a NULL http): those that
 * write only when k is writable, and no delete on a subresource (suffix "Status"). */
static void add_methods(json_t *path, const struct method *m, const struct doc *d,
                        const struct nd_kind *k, const char *what, const char *suffix)
{
    for (; m->http; m++) {
        if ((m->write && k->read_only) || (*suffix && !strcmp(m->http, "delete")))
            continue;
        json_t *op = operation(d, k, what, m->op);
        set_op_id(op, m->id_verb, d, k, k->namespaced ? "Namespaced" : "", suffix);
        json_object_set_new(path, m->http, op);
    }
}

/* The query parameters of the operations of a kind, NULL-terminated. */
static const char *const list_params[] = {"allowWatchBookmarks",
                                          "continue",
                                          "fieldSelector",
                                          "labelSelector",
                                          "limit",
                                          "resourceVersion",
                                          "resourceVersionMatch",
                                          "sendInitialEvents",
                                          "timeoutSeconds",
                                          "watch",
                                          NULL};
static const char *const write_params[] = {"dryRun", "fieldManager", "fieldValidation", NULL};
static const char *const delete_all_params[] = {
    "continue",       "dryRun", "fieldSelector",     "gracePeriodSeconds",
    "labelSelector",  "limit",  "propagationPolicy", "resourceVersion",
    "timeoutSeconds", NULL};
static const char *const read_params[] = {"resourceVersion", NULL};
static const char *const patch_params[] = {"dryRun", "fieldManager", "fieldValidation", "force",
                                           NULL};
static const char *const delete_params[] = {"dryRun", "gracePeriodSeconds", "propagationPolicy",
                                            NULL};

/* The operations of a kind whose object schema is obj and list schema list, each used by
 * one or more of its paths. */
struct kind_ops {
    struct op list_all, create_one, delete_all, read_one, replace_one, patch_one, delete_one;
};

static void kind_ops_init(struct kind_ops *o, const char *obj, const char *list)
{
    o->list_all = (struct op){
        .verb = "list or watch", .action = "list", .params = list_params, .answer = list};
    o->create_one = (struct op){.verb = "create",
                                .action = "post",
                                .params = write_params,
                                .body = obj,
                                .answer = obj,
                                .created = true};
    o->delete_all = (struct op){.verb = "delete",
                                .action = "deletecollection",
                                .params = delete_all_params,
                                .body = META "DeleteOptions",
                                .answer = META "Status"};
    o->read_one =
        (struct op){.verb = "read", .action = "get", .params = read_params, .answer = obj};
    o->replace_one = (struct op){.verb = "replace",
                                 .action = "put",
                                 .params = write_params,
                                 .body = obj,
                                 .answer = obj,
                                 .created = true};
    o->patch_one = (struct op){.verb = "partially update",
                               .action = "patch",
                               .params = patch_params,
                               .body = META "Patch",
                               .answer = obj,
                               .created = true};
    o->delete_one = (struct op){.verb = "delete",
                                .action = "delete",
                                .params = delete_params,
                                .body = META "DeleteOptions",
                                .answer = META "Status"};
}

/* base: list, and unless read-only, create and delete the collection. */
static void add_collection(struct doc *d, const struct nd_kind *k, const struct kind_ops *o,
                           const char *base, json_t *path_params)
{
    const char *scope = k->namespaced ? "Namespaced" : "";
    struct nd_buf what = ND_BUF_INIT;
    json_t *coll = json_object();
    nd_buf_addf(&what, "objects of kind %s", k->kind);
    json_t *op = operation(d, k, what.data, &o->list_all);
    set_op_id(op, "list", d, k, scope, "");
    json_object_set_new(coll, "get", op);
    nd_buf_reset(&what);
    nd_buf_addf(&what, "a %s", k->kind);
    if (!k->read_only) {
        op = operation(d, k, what.data, &o->create_one);
        set_op_id(op, "create", d, k, scope, "");
        json_object_set_new(coll, "post", op);
        nd_buf_reset(&what);
        nd_buf_addf(&what, "a collection of %s", k->kind);
        op = operation(d, k, what.data, &o->delete_all);
        set_op_id(op, "delete", d, k, scope, "Collection");
        json_object_set_new(coll, "delete", op);
    }
    json_object_set(coll, "parameters", path_params);
    json_object_set_new(d->paths, base, coll);
    nd_buf_release(&what);
}

/* base/{name}, and base/{name}/status when the kind has that subresource. */
static void add_item(struct doc *d, const struct nd_kind *k, const struct kind_ops *o,
                     const char *base, json_t *path_params)
{
    struct nd_buf p = ND_BUF_INIT, what = ND_BUF_INIT;
    json_t *item_params = json_pack("[o]", param("name", "path", "string", "The object's name."));
    json_array_extend(item_params, path_params);
    json_t *item = json_object();
    nd_buf_addf(&what, "the specified %s", k->kind);
    const struct method item_methods[] = {{"get", "read", &o->read_one, false},
                                          {"put", "replace", &o->replace_one, true},
                                          {"patch", "patch", &o->patch_one, true},
                                          {"delete", "delete", &o->delete_one, true},
                                          {NULL}};
    add_methods(item, item_methods, d, k, what.data, "");
    json_object_set(item, "parameters", item_params);
    nd_buf_addf(&p, "%s/{name}", base);
    json_object_set_new(d->paths, p.data, item);

    /* the status subresource */
    if (nd_kind_has_subresource(k, "status")) {
        json_t *status = json_object();
        nd_buf_reset(&what);
        nd_buf_addf(&what, "status of the specified %s", k->kind);
        add_methods(status, item_methods, d, k, what.data, "Status");
        json_object_set(status, "parameters", item_params);
        nd_buf_reset(&p);
        nd_buf_addf(&p, "%s/{name}/status", base);
        json_object_set_new(d->paths, p.data, status);
    }
    json_decref(item_params);
    nd_buf_release(&p);
    nd_buf_release(&what);
}

/* PREFIX/PLURAL of a namespaced kind: its objects in every project at once. */
static void add_all_projects(struct doc *d, const struct nd_kind *k, const struct kind_ops *o)
{
    struct nd_buf p = ND_BUF_INIT, what = ND_BUF_INIT;
    json_t *all = json_object();
    nd_buf_addf(&what, "objects of kind %s in every project", k->kind);
    json_t *op = operation(d, k, what.data, &o->list_all);
    set_op_id(op, "list", d, k, "", "ForAllNamespaces");
    json_object_set_new(all, "get", op);
    json_object_set_new(all, "parameters", json_pack("[o]", query("pretty")));
    nd_buf_addf(&p, "%s/%s", d->prefix, k->plural);
    json_object_set_new(d->paths, p.data, all);
    nd_buf_release(&p);
    nd_buf_release(&what);
}

static void add_paths(struct doc *d, const struct nd_kind *k, const char *obj, const char *list)
{
    struct nd_buf base = ND_BUF_INIT;
    if (k->namespaced)
        nd_buf_addf(&base, "%s/namespaces/{namespace}/%s", d->prefix, k->plural);
    else
        nd_buf_addf(&base, "%s/%s", d->prefix, k->plural);
    json_t *path_params = json_array();
    if (k->namespaced)
        json_array_append_new(path_params, param("namespace", "path", "string", "The project."));
    json_array_append_new(path_params, query("pretty"));
    struct kind_ops o;
    kind_ops_init(&o, obj, list);
    add_collection(d, k, &o, base.data, path_params);
    add_item(d, k, &o, base.data, path_params);
    if (k->namespaced)
        add_all_projects(d, k, &o);
    json_decref(path_params);
    nd_buf_release(&base);
}

/* The deprecated watch paths kube-apiserver still serves (GET only, whatever ?watch=
 * says): PREFIX/watch[/namespaces/{namespace}]/PLURAL[/{name}], each a watch operation
 * answering WatchEvents, its parameters on the path as kube-apiserver lists them. */
static void add_watch_path(struct doc *d, const struct nd_kind *k, const char *path,
                           bool one, const char *scope, const char *suffix)
{
    static const char *const params[] = {
        "allowWatchBookmarks", "continue", "fieldSelector",  "labelSelector",
        "limit",               "pretty",   "resourceVersion", "resourceVersionMatch",
        "sendInitialEvents",   "timeoutSeconds", "watch",     NULL};
    const struct op watch_op = {.verb = "watch",
                                .action = one ? "watch" : "watchlist",
                                .params = (const char *const[]){NULL},
                                .answer = META "WatchEvent"};
    char *what = nd_xasprintf(
        one ? "changes to an object of kind %s. deprecated: use the 'watch' parameter with a "
              "list operation instead, filtered to a single item with the 'fieldSelector' "
              "parameter."
            : "individual changes to a list of %s. deprecated: use the 'watch' parameter with "
              "a list operation instead.",
        k->kind);
    json_t *op = operation(d, k, what, &watch_op);
    free(what);
    json_object_del(op, "parameters");
    /* a stream of events, one JSON object a line */
    json_t *ok = json_object_get(json_object_get(op, "responses"), "200");
    json_object_set_new(json_object_get(ok, "content"), "application/json;stream=watch",
                        json_pack("{s:o}", "schema", ref(META "WatchEvent")));
    json_object_set_new(op, "deprecated", json_true());
    set_op_id(op, "watch", d, k, scope, suffix);
    json_t *list = json_array();
    for (const char *const *p = params; *p; p++) {
        if (!strcmp(*p, "pretty") && k->namespaced && *scope) /* path parameters first */
            json_array_append_new(list, param("namespace", "path", "string", "The project."));
        if (!strcmp(*p, "pretty") && one)
            json_array_append_new(list, param("name", "path", "string", "The object's name."));
        json_array_append_new(list, query(*p));
    }
    json_object_set_new(d->paths, path,
                        json_pack("{s:o, s:o}", "get", op, "parameters", list));
}

static void add_watch_paths(struct doc *d, const struct nd_kind *k)
{
    char *list = NULL, *one = NULL;
    if (k->namespaced) {
        list = nd_xasprintf("%s/watch/namespaces/{namespace}/%s", d->prefix, k->plural);
        one = nd_xasprintf("%s/{name}", list);
        add_watch_path(d, k, list, false, "Namespaced", "List");
        add_watch_path(d, k, one, true, "Namespaced", "");
        free(list);
        list = nd_xasprintf("%s/watch/%s", d->prefix, k->plural);
        add_watch_path(d, k, list, false, "", "ListForAllNamespaces");
    } else {
        list = nd_xasprintf("%s/watch/%s", d->prefix, k->plural);
        one = nd_xasprintf("%s/{name}", list);
        add_watch_path(d, k, list, false, "", "List");
        add_watch_path(d, k, one, true, "", "");
    }
    free(list);
    free(one);
}

static json_t *list_schema(const struct nd_kind *k, const char *obj)
{
    char *desc = nd_xasprintf("%s is a list of %s objects.", k->list_kind, k->kind);
    json_t *s = json_pack(
        "{s:s, s:s, s:[s], s:{s:{s:s, s:s}, s:{s:s, s:s, s:o}, s:{s:s, s:s}, s:o}, s:[o]}",
        "description", desc, "type", "object", "required", "items", "properties", "apiVersion",
        "description", "APIVersion of the list.", "type", "string", "items", "description",
        "The objects.", "type", "array", "items", ref(obj), "kind", "description",
        "Kind of the list.", "type", "string", "metadata", ref(META "ListMeta"),
        "x-kubernetes-group-version-kind", gvk(k, k->list_kind));
    free(desc);
    return s;
}

static json_t *build(const char *group, const char *prefix, const char *op_group, const char *tag)
{
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_schemas_check(&st);
    nd_status_release(&st);
    if (rc != 0)
        return NULL;
    struct doc d = {group, prefix, op_group, tag, json_object(), json_object()};
    const char *name;
    json_t *s;
    json_object_foreach((json_t *)nd_schema_components(), name, s)
    {
        json_object_set_new(d.schemas, name, json_deep_copy(s));
    }
    for (size_t i = 0; i < nd_kind_served_count(); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (strcmp(k->group, group) != 0)
            continue;
        char *obj = nd_openapi_schema_name(k);
        char *list = nd_xasprintf("%sList", obj);
        json_object_set_new(d.schemas, obj, json_deep_copy(nd_kind_schema(k)));
        json_object_set_new(d.schemas, list, list_schema(k, obj));
        add_paths(&d, k, obj, list);
        add_watch_paths(&d, k);
        free(obj);
        free(list);
    }
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
                     "Nodus", "version", "v1", "paths", d.paths, "components", "schemas",
                     d.schemas);
}

json_t *nd_openapi_v3_group(void)
{
    return build("nodus.dev", "/apis/nodus.dev/v1", "NodusDevV1", "nodusDev_v1");
}

json_t *nd_openapi_v3_core(void)
{
    return build("", "/api/v1", "CoreV1", "core_v1");
}

json_t *nd_openapi_v3_events(void)
{
    return build("events.k8s.io", "/apis/events.k8s.io/v1", "EventsV1", "events_v1");
}

const struct nd_openapi_doc nd_openapi_v3_docs[] = {
    {"api/v1", nd_openapi_v3_core},
    {"apis/authorization.k8s.io/v1", nd_openapi_v3_authz},
    {"apis/events.k8s.io/v1", nd_openapi_v3_events},
    {"apis/nodus.dev/v1", nd_openapi_v3_group},
};

size_t nd_openapi_v3_doc_count(void)
{
    return sizeof nd_openapi_v3_docs / sizeof nd_openapi_v3_docs[0];
}

json_t *nd_openapi_v3_root(const char *const *hashes)
{
    json_t *paths = json_object();
    for (size_t i = 0; i < nd_openapi_v3_doc_count(); i++) {
        char *url = nd_xasprintf("/openapi/v3/%s?hash=%s", nd_openapi_v3_docs[i].path, hashes[i]);
        json_object_set_new(paths, nd_openapi_v3_docs[i].path,
                            json_pack("{ss}", "serverRelativeURL", url));
        free(url);
    }
    return json_pack("{so}", "paths", paths);
}

char *nd_openapi_hash(const json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis */
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL; /* FNV prime */
    }
    free(text);
    return nd_xasprintf("%016" PRIX64, h);
}
