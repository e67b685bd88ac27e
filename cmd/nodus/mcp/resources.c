/* resources.c: every object as a resource (nodus://PROJECT/PLURAL/NAME): resources/list
 * (paged with cursors), resources/read (YAML or JSON) and resources/templates/list (one
 * template per kind of the registry). The reads run in a job's child, as tool calls do.
 *
 * What is listed: the objects of the context's project (with --projects, of those
 * projects) of every kind of the registry but Events (the events tool reads them), and
 * the projects themselves. A page holds at most NODUS_MCP_PAGE_SIZE objects (default
 * 100); its cursor is the server's continue token and the kind and project it belongs
 * to, base64url-encoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "resolve.h"
#include "util/base64.h"
#include "write.h"
#include "yaml/yaml.h"

#define PAGE_DEFAULT 100
#define PAGE_MAX     1000
#define URI_SCHEME   "nodus://"

/* ---- URIs ---- */

static bool name_ok(const char *s, size_t n)
{
    if (!n || n >= 254 || (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.'))))
        return false; /* "." and ".." would move the object's URL (nodus://../jobs/x) */
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch <= ' ' || ch >= 0x7f || strchr("/?#%\\\"'<>{}|^`[]@", ch))
            return false;
    }
    return true;
}

static int bad_uri(struct nd_status *st, const char *why)
{
    nd_status_set(st, "BadRequest",
                  "write it nodus://PROJECT/PLURAL/NAME, or nodus:///PLURAL/NAME for a project "
                  "(resources/templates/list has the forms), optionally with ?format=json",
                  "%s", why);
    return MCP_INVALID_PARAMS;
}

int mcp_uri_parse(const struct mcp_config *cfg, const char *uri, struct mcp_uri *u,
                  struct nd_status *st)
{
    memset(u, 0, sizeof *u);
    if (!uri || strncmp(uri, URI_SCHEME, strlen(URI_SCHEME)) != 0)
        return bad_uri(st, "not a nodus resource: a URI of nodus mcp starts with nodus://");
    const char *p = uri + strlen(URI_SCHEME);
    const char *q = strchr(p, '?');
    const char *end = q ? q : p + strlen(p);
    if (q) {
        if (!strcmp(q, "?format=json"))
            u->json = true;
        else if (strcmp(q, "?format=yaml") != 0)
            return bad_uri(st, "the only query a resource takes is ?format=json or ?format=yaml");
    }
    const char *s1 = memchr(p, '/', (size_t)(end - p));
    const char *s2 = s1 ? memchr(s1 + 1, '/', (size_t)(end - s1 - 1)) : NULL;
    if (!s2 || memchr(s2 + 1, '/', (size_t)(end - s2 - 1)))
        return bad_uri(st, "a resource has three parts: nodus://PROJECT/PLURAL/NAME");
    size_t np = (size_t)(s1 - p), nk = (size_t)(s2 - s1 - 1), nn = (size_t)(end - s2 - 1);
    if ((np && !name_ok(p, np)) || !name_ok(s1 + 1, nk) || !name_ok(s2 + 1, nn))
        return bad_uri(st, "a project, kind or name of the URI is empty, . or .., or holds a "
                           "character names never hold");
    char kind[254];
    snprintf(kind, sizeof kind, "%.*s", (int)nk, s1 + 1);
    snprintf(u->project, sizeof u->project, "%.*s", (int)np, p);
    snprintf(u->name, sizeof u->name, "%.*s", (int)nn, s2 + 1);
    u->k = nd_resolve_kind(kind, st);
    if (!u->k)
        return MCP_RESOURCE_NOT_FOUND;
    if (u->k->namespaced && !np)
        return bad_uri(st, "this kind lives in a project: nodus://PROJECT/PLURAL/NAME");
    if (!u->k->namespaced && np)
        return bad_uri(st, "this kind has no project: nodus:///PLURAL/NAME (three slashes)");
    const char *project = u->k->namespaced ? u->project : u->name;
    if (u->k->namespaced || nd_kind_is(u->k, ND_KIND_PROJECT))
        if (!mcp_project_allowed(cfg, project)) {
            nd_status_set(st, "Forbidden",
                          "read the objects of the projects this server was started with "
                          "(--projects); resources/list names them",
                          "project \"%s\" is not one this server serves", project);
            return MCP_RESOURCE_NOT_FOUND;
        }
    return 0;
}

int mcp_uri_path(const struct mcp_uri *u, struct nd_buf *path)
{
    return nd_kind_path(u->k, u->k->namespaced ? u->project : NULL, u->name, NULL, path);
}

json_t *mcp_status_error(const json_t *id, int code, const char *uri, const struct nd_status *st)
{
    json_t *e = mcp_error(id, code, st->message ? st->message : "failed");
    json_t *data = json_pack("{s:o}", "status", nd_status_to_json(st));
    if (uri)
        json_object_set_new(data, "uri", json_string(uri));
    json_object_set_new(json_object_get(e, "error"), "data", data);
    return e;
}

/* The URI of obj, a k (format: "", or "?format=json"). */
static void object_uri(const struct nd_kind *k, const json_t *obj, struct nd_buf *b)
{
    const json_t *md = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    const char *name = json_string_value(json_object_get(md, "name"));
    nd_buf_addf(b, URI_SCHEME "%s/%s/%s", k->namespaced && ns ? ns : "", k->plural,
                name ? name : "");
}

/* ---- resources/read ---- */

/* What a child answers with: the id it answers is the job's. */
static void child_answer(int fd, json_t *result)
{
    mcp_child_write(fd, json_pack("{s:o}", "result", result));
}

static void child_fail(int fd, int code, const char *uri, const struct nd_status *st)
{
    json_t *e = mcp_status_error(json_null(), code, uri, st);
    mcp_child_write(fd, json_pack("{s:O}", "error", json_object_get(e, "error")));
    json_decref(e);
}

struct read_body {
    struct mcp_server *srv;
    const char *uri;
    struct mcp_uri u;
};

static void run_read(int fd, void *cls)
{
    struct read_body *b = cls;
    struct nd_buf path = ND_BUF_INIT, text = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    json_t *obj = NULL;
    mcp_uri_path(&b->u, &path);
    if (nd_call_get(b->srv->ctx, path.data, &obj, &st) == 0) {
        /* managedFields is bookkeeping an agent never needs: it costs context */
        json_object_del(json_object_get(obj, "metadata"), "managedFields");
        if (b->u.json) {
            char *s = json_dumps(obj, JSON_INDENT(2));
            nd_buf_adds(&text, s);
            nd_buf_addch(&text, '\n');
            free(s);
        } else {
            nd_yaml_dump_flags(obj, &text, ND_YAML_SORT_KEYS, &st);
        }
    }
    if (nd_status_failed(&st))
        child_fail(fd, st.code == 404 ? MCP_RESOURCE_NOT_FOUND : MCP_INTERNAL_ERROR, b->uri, &st);
    else
        child_answer(fd, json_pack("{s:[{s:s, s:s, s:s%}]}", "contents", "uri", b->uri, "mimeType",
                                   b->u.json ? "application/json" : "application/yaml", "text",
                                   text.data, text.len));
    json_decref(obj);
    nd_status_release(&st);
    nd_buf_release(&path);
    nd_buf_release(&text);
}

void mcp_on_resources_read(struct mcp_session *s, const struct mcp_message *m)
{
    struct read_body b = {s->srv, json_string_value(json_object_get(m->params, "uri")), {0}};
    struct nd_status st = ND_STATUS_INIT;
    int code = b.uri ? mcp_uri_parse(s->srv->cfg, b.uri, &b.u, &st) : MCP_INVALID_PARAMS;
    if (!b.uri)
        nd_status_set(&st, "BadRequest", "resources/list names the resources",
                      "resources/read needs params.uri");
    if (code && m->id)
        s->send(s, mcp_status_error(m->id, code, b.uri, &st));
    else if (!code && m->id && !mcp_job_start(s, m->id, NULL, run_read, &b))
        s->send(s, mcp_error(m->id, MCP_INTERNAL_ERROR, "could not start the read (fork failed)"));
    nd_status_release(&st);
}

/* ---- resources/list ---- */

static bool listed(const struct nd_kind *k)
{
    return strcmp(k->plural, "events") != 0;
}

/* Where a page starts: the kind (index in nd_kinds), the project (index in the scope),
 * and the server's continue token there. */
struct cursor {
    size_t kind, project;
    char cont[4096];
};

static size_t page_size(void)
{
    const char *env = getenv("NODUS_MCP_PAGE_SIZE");
    long n = env ? strtol(env, NULL, 10) : 0;
    return n >= 1 && n <= PAGE_MAX ? (size_t)n : PAGE_DEFAULT;
}

static void cursor_encode(const struct cursor *c, struct nd_buf *out)
{
    struct nd_buf raw = ND_BUF_INIT;
    nd_buf_addf(&raw, "%zu.%zu.%s", c->kind, c->project, c->cont);
    nd_base64_encode(raw.data, raw.len, true, out);
    nd_buf_release(&raw);
}

static int cursor_decode(const char *s, size_t nprojects, struct cursor *c)
{
    struct nd_buf raw = ND_BUF_INIT;
    int rc = -1;
    char *end;
    if (nd_base64_decode(s, strlen(s), &raw) == 0 && raw.len && raw.len < sizeof c->cont) {
        c->kind = strtoul(raw.data, &end, 10);
        if (*end == '.') {
            c->project = strtoul(end + 1, &end, 10);
            if (*end == '.' && c->kind < nd_kind_count() && c->project < nprojects) {
                snprintf(c->cont, sizeof c->cont, "%s", end + 1);
                rc = 0;
            }
        }
    }
    nd_buf_release(&raw);
    return rc;
}

struct list_body {
    struct mcp_server *srv;
    struct cursor at;
    const char *const *projects; /* the scope */
    size_t nprojects;
};

/* Adds the entries of one list answer's items; the kinds' cluster-scoped projects only
 * those --projects names. */
static void add_items(const struct list_body *b, const struct nd_kind *k, const json_t *list,
                      json_t *out)
{
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(list, "items"), i, obj)
    {
        const json_t *md = json_object_get(obj, "metadata");
        const char *name = json_string_value(json_object_get(md, "name"));
        const char *ns = json_string_value(json_object_get(md, "namespace"));
        if (!name || (nd_kind_is(k, ND_KIND_PROJECT) && !mcp_project_allowed(b->srv->cfg, name)))
            continue;
        struct nd_buf uri = ND_BUF_INIT, title = ND_BUF_INIT, id = ND_BUF_INIT;
        object_uri(k, obj, &uri);
        nd_buf_addf(&id, "%s/%s", k->singular, name);
        nd_buf_addf(&title, "%s %s", k->kind, name);
        if (k->namespaced && ns)
            nd_buf_addf(&title, " (project %s)", ns);
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:s, s:s}", "uri", uri.data, "name", id.data,
                                        "title", title.data, "mimeType", "application/yaml"));
        nd_buf_release(&uri);
        nd_buf_release(&title);
        nd_buf_release(&id);
    }
}

/* Moves c to the next (kind, project) of the scope; false past the last. */
static bool next_scope(const struct list_body *b, struct cursor *c)
{
    c->cont[0] = '\0';
    const struct nd_kind *k = &nd_kinds[c->kind];
    if (k->namespaced && ++c->project < b->nprojects)
        return true;
    c->project = 0;
    while (++c->kind < nd_kind_count())
        if (listed(&nd_kinds[c->kind]))
            return true;
    return false;
}

static void run_list(int fd, void *cls)
{
    struct list_body *b = cls;
    struct cursor c = b->at;
    size_t want = page_size();
    json_t *out = json_array();
    struct nd_status st = ND_STATUS_INIT;
    bool more = listed(&nd_kinds[c.kind]) || next_scope(b, &c);
    while (more && json_array_size(out) < want) {
        const struct nd_kind *k = &nd_kinds[c.kind];
        struct nd_buf path = ND_BUF_INIT;
        nd_kind_path(k, k->namespaced ? b->projects[c.project] : NULL, NULL, NULL, &path);
        nd_buf_addf(&path, "?limit=%zu", want - json_array_size(out));
        if (c.cont[0]) {
            nd_buf_adds(&path, "&continue=");
            nd_buf_add_urlencoded(&path, c.cont);
        }
        json_t *list = NULL;
        int rc = nd_call_get(b->srv->ctx, path.data, &list, &st);
        nd_buf_release(&path);
        if (rc < 0) {
            json_decref(list);
            if (st.code != 404 && st.code != 403)
                break;
            /* a kind this server does not serve, or does not let this token list */
            nd_status_release(&st);
            more = next_scope(b, &c);
            continue;
        }
        add_items(b, k, list, out);
        const char *cont =
            json_string_value(json_object_get(json_object_get(list, "metadata"), "continue"));
        if (cont && *cont && strlen(cont) >= sizeof c.cont)
            nd_status_set(&st, "InternalError",
                          "ask the server's operator: its continue tokens "
                          "are too long for this server's cursors",
                          "the server's continue token is %zu bytes; a cursor holds %zu",
                          strlen(cont), sizeof c.cont - 1);
        else if (cont && *cont)
            snprintf(c.cont, sizeof c.cont, "%s", cont);
        else
            more = next_scope(b, &c);
        json_decref(list);
        if (nd_status_failed(&st))
            break;
    }
    if (nd_status_failed(&st)) {
        child_fail(fd, MCP_INTERNAL_ERROR, NULL, &st);
    } else {
        json_t *r = json_pack("{s:o}", "resources", out);
        out = NULL;
        if (more) {
            struct nd_buf cb = ND_BUF_INIT;
            cursor_encode(&c, &cb);
            json_object_set_new(r, "nextCursor", json_string(cb.data));
            nd_buf_release(&cb);
        }
        child_answer(fd, r);
    }
    json_decref(out);
    nd_status_release(&st);
}

void mcp_on_resources_list(struct mcp_session *s, const struct mcp_message *m)
{
    const struct mcp_config *cfg = s->srv->cfg;
    const char *here[] = {nd_ctx_project(s->srv->ctx), NULL};
    struct list_body b = {s->srv, {0, 0, ""}, here, 1};
    if (cfg->projects.n) {
        b.projects = (const char *const *)cfg->projects.v;
        b.nprojects = cfg->projects.n;
    }
    json_t *cursor = json_object_get(m->params, "cursor");
    if (cursor && (!json_is_string(cursor) ||
                   cursor_decode(json_string_value(cursor), b.nprojects, &b.at) < 0)) {
        if (m->id)
            s->send(s, mcp_error(m->id, MCP_INVALID_PARAMS,
                                 "params.cursor is not a cursor of this server: pass the "
                                 "nextCursor of the page before, or none for the first page"));
        return;
    }
    if (m->id && !mcp_job_start(s, m->id, NULL, run_list, &b))
        s->send(s, mcp_error(m->id, MCP_INTERNAL_ERROR, "could not start the list (fork failed)"));
}

/* ---- resources/templates/list ---- */

void mcp_on_resources_templates(struct mcp_session *s, const struct mcp_message *m)
{
    json_t *out = json_array();
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        struct nd_buf t = ND_BUF_INIT;
        nd_buf_addf(&t, URI_SCHEME "%s/%s/{name}{?format}", k->namespaced ? "{project}" : "",
                    k->plural);
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:s}", "uriTemplate", t.data,
                                             "name", k->singular, "title", k->kind, "description",
                                             k->description ? k->description : "", "mimeType",
                                             "application/yaml"));
        nd_buf_release(&t);
    }
    if (m->id)
        s->send(s, mcp_response(m->id, json_pack("{s:o}", "resourceTemplates", out)));
    else
        json_decref(out);
}
