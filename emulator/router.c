/* Request routing: health, control endpoints, docs, discovery, then the API. Every
 * request is served with the server lock held (streams take it again per read). */
#include "router.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "admin.h"
#include "api.h"
#include "discovery.h"
#include "errors.h"
#include "exec.h"
#include "frontdoor.h"
#include "fsutil.h"
#include "idempotency.h"
#include "json/json.h"
#include "util/xmalloc.h"

#define ANONYMOUS "emulator-user"

/* --token-file: {"TOKEN": {"identity": "...", "projects": ["*"], "scopes": [...]}}, or
 * the same map under "tokens". */
static int load_tokens(struct em_server *srv, struct nd_buf *err)
{
    if (!srv->opt.token_file)
        return 0;
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = -1;
    if (em_read_file(srv->opt.token_file, &b) < 0) {
        nd_buf_addf(err, "cannot read --token-file %s", srv->opt.token_file);
        goto out;
    }
    json_t *j = nd_json_load(b.data, b.len, srv->opt.token_file, &st);
    if (!j) {
        nd_buf_addf(err, "--token-file: %s", st.message);
        goto out;
    }
    json_t *tokens = json_object_get(j, "tokens") ? json_object_get(j, "tokens") : j;
    const char *tok;
    json_t *v;
    json_object_foreach(tokens, tok, v) {
        if (!json_is_object(v) || !json_string_value(json_object_get(v, "identity"))) {
            nd_buf_addf(err, "--token-file: token entries need an \"identity\" string");
            json_decref(j);
            goto out;
        }
    }
    srv->tokens = json_incref(tokens);
    json_decref(j);
    rc = 0;
out:
    nd_status_release(&st);
    nd_buf_release(&b);
    return rc;
}

static bool in_list(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const char *x = json_string_value(v);
        if (x && (strcmp(x, s) == 0 || strcmp(x, "*") == 0))
            return true;
    }
    return false;
}

/* Who asks; NULL (and resp filled) when the request may not go on. */
static const char *authorize(struct em_server *srv, const struct em_req *req,
                             struct em_resp *resp, bool admin_path)
{
    if (!srv->tokens)
        return ANONYMOUS;
    const char *auth = em_req_header(req, "authorization");
    json_t *entry = NULL;
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0)
        entry = json_object_get(srv->tokens, auth + 7);
    if (!entry) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "Unauthorized", "nodus config set-credentials NAME --token TOKEN",
                      auth ? "the bearer token is not known" : "a bearer token is required");
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return NULL;
    }
    json_t *scopes = json_object_get(entry, "scopes");
    bool write = strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0;
    const char *need = admin_path ? "admin" : write ? "write" : "read";
    bool ok = !scopes || in_list(scopes, need) || in_list(scopes, "admin");
    /* the project in the path must be one the token may use */
    const char *ns = strstr(req->path, "/namespaces/");
    json_t *projects = json_object_get(entry, "projects");
    if (ok && ns) {
        ns += strlen("/namespaces/");
        size_t n = strcspn(ns, "/");
        char *project = nd_xstrndup(ns, n);
        if (projects && !in_list(projects, project) && strcmp(project, "nodus") != 0)
            ok = false;
        free(project);
    } else if (ok && projects && !in_list(projects, "*") &&
               strncmp(req->path, "/apis/nodus.dev/v1/", 19) == 0) {
        /* every project at once (/apis/nodus.dev/v1/jobs) needs a token for every project */
        ok = false;
    }
    if (!ok) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "Forbidden", "ask for a token with that scope or project",
                      "%s may not %s %s", json_string_value(json_object_get(entry, "identity")),
                      write ? "write" : "read", req->path);
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return NULL;
    }
    return json_string_value(json_object_get(entry, "identity"));
}

int em_router_init(struct em_server *srv, struct nd_buf *err)
{
    em_idem_load(srv);
    if (load_tokens(srv, err) < 0)
        return -1;
    return em_discovery_init(srv, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --seed DIR: every *.yaml, *.yml and *.json file (but pricebook.json), in name order,
 * created as if posted. */
static int apply_seed(struct em_server *srv, struct nd_buf *err)
{
    DIR *d = opendir(srv->opt.seed_dir);
    if (!d) {
        nd_buf_addf(err, "--seed: cannot open %s", srv->opt.seed_dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' || !dot ||
            (strcmp(dot, ".yaml") && strcmp(dot, ".yml") && strcmp(dot, ".json")) ||
            !strcmp(e->d_name, "pricebook.json")) /* part of the state tree */
            continue;
        names = nd_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = nd_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *path = nd_xasprintf("%s/%s", srv->opt.seed_dir, names[i]);
        struct nd_buf data = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        json_t *objs = NULL;
        if (em_read_file(path, &data) < 0 ||
            !(objs = nd_manifest_load_all(data.data, data.len, path, &st))) {
            nd_buf_addf(err, "--seed: %s", st.message ? st.message : path);
            rc = -1;
        }
        size_t j;
        json_t *obj;
        json_array_foreach(objs, j, obj) {
            const struct nd_kind *k = nd_kind_by_api_version(
                json_string_value(json_object_get(obj, "apiVersion")),
                json_string_value(json_object_get(obj, "kind")));
            if (!k) {
                nd_buf_addf(err, "--seed: %s: document %zu: unknown apiVersion/kind", path, j + 1);
                rc = -1;
                break;
            }
            const char *ns = json_string_value(
                json_object_get(json_object_get(obj, "metadata"), "namespace"));
            char *url = k->namespaced
                            ? nd_xasprintf("%s/%s/namespaces/%s/%s", *k->group ? "/apis" : "/api",
                                           *k->group ? "nodus.dev/v1" : "v1", ns ? ns : "default",
                                           k->plural)
                            : nd_xasprintf("/api/v1/%s", k->plural);
            struct em_req req = {.method = "POST", .path = url};
            req.query = json_object();
            req.headers = json_pack("{ssss}", "content-type", "application/json", "user-agent",
                                    "nodus-emulator/seed");
            nd_buf_init(&req.body, 0);
            char *text = json_dumps(obj, JSON_COMPACT);
            nd_buf_adds(&req.body, text);
            free(text);
            snprintf(req.request_id, sizeof req.request_id, "seed");
            struct em_resp resp;
            em_resp_init(&resp);
            em_api_handle(srv, &req, &resp, ANONYMOUS);
            if (resp.code >= 300) {
                nd_buf_addf(err, "--seed: %s: document %zu: %s", path, j + 1, resp.body.data);
                rc = -1;
            }
            em_resp_release(&resp);
            nd_buf_release(&req.body);
            json_decref(req.query);
            json_decref(req.headers);
            free(url);
            if (rc < 0)
                break;
        }
        json_decref(objs);
        nd_status_release(&st);
        nd_buf_release(&data);
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int em_router_seed(struct em_server *srv, struct nd_buf *err)
{
    struct nd_status st = ND_STATUS_INIT;
    pthread_mutex_lock(&srv->lock);
    int rc = em_builtin_ensure(srv, &st);
    if (rc < 0)
        nd_buf_addf(err, "%s", st.message);
    if (rc == 0 && srv->opt.seed_dir && srv->seed_wanted)
        rc = apply_seed(srv, err);
    pthread_mutex_unlock(&srv->lock);
    nd_status_release(&st);
    return rc;
}

static bool is_write(const char *m)
{
    return strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "PATCH") == 0 ||
           strcmp(m, "DELETE") == 0;
}

static void handle_locked(struct em_server *srv, struct em_req *req, struct em_resp *resp)
{
    const char *p = req->path;
    srv->stats.requests++;
    em_server_housekeep(srv);
    if (strcmp(p, "/healthz") == 0 || strcmp(p, "/livez") == 0) {
        em_resp_text(resp, 200, "text/plain; charset=utf-8", "ok");
        return;
    }
    if (strcmp(p, "/readyz") == 0) {
        if (srv->ready && !srv->stopping)
            em_resp_text(resp, 200, "text/plain; charset=utf-8", "ok");
        else
            em_resp_text(resp, 503, "text/plain; charset=utf-8", "not ready");
        return;
    }
    if (strncmp(p, "/docs", 5) == 0 && (p[5] == '\0' || p[5] == '/')) {
        em_docs_handle(srv, req, resp);
        return;
    }
    if (srv->stopping) {
        em_resp_error(srv, req, resp, "ServiceUnavailable", "the emulator is shutting down");
        return;
    }
    if (req->body_too_large) {
        em_resp_error(srv, req, resp, "RequestEntityTooLarge",
                      "the request body is larger than the limit of 3 MiB");
        return;
    }
    bool admin = strncmp(p, "/emulator/v1/", 13) == 0;
    bool loopback = strncmp(srv->opt.listen_addr, "127.", 4) == 0;
    const char *identity = admin && loopback ? ANONYMOUS : authorize(srv, req, resp, admin);
    if (!identity)
        return;
    if (admin) {
        em_admin_handle(srv, req, resp, p + 13);
        return;
    }
    if (em_discovery_handle(srv, req, resp))
        return;
    if (strncmp(p, "/api/", 5) != 0 && strncmp(p, "/apis/", 6) != 0) {
        em_resp_error(srv, req, resp, "NotFound", "the server could not find the requested "
                                                  "resource");
        return;
    }
    bool keyed = is_write(req->method) && em_req_header(req, "idempotency-key");
    if (keyed && em_idem_check(srv, req, resp))
        return;
    em_api_handle(srv, req, resp, identity);
    if (keyed)
        em_idem_save(srv, req, resp);
}

void em_router_handle(void *cls, struct em_req *req, struct em_resp *resp)
{
    struct em_server *srv = cls;
    int64_t delay = 0;
    if (em_frontdoor_check(srv, req, resp))
        return;
    pthread_mutex_lock(&srv->lock);
    const char *p = req->path;
    bool faulted = strncmp(p, "/emulator/", 10) != 0 && strcmp(p, "/healthz") != 0 &&
                   strcmp(p, "/readyz") != 0 && strcmp(p, "/livez") != 0 &&
                   strncmp(p, "/docs", 5) != 0 && em_faults_check(srv, req, resp, &delay);
    pthread_mutex_unlock(&srv->lock);
    if (delay > 0) {
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (faulted)
        return;
    pthread_mutex_lock(&srv->lock);
    handle_locked(srv, req, resp);
    pthread_mutex_unlock(&srv->lock);
}

void em_router_stop(struct em_server *srv)
{
    em_exec_shutdown(srv);
}

void em_router_release(struct em_server *srv)
{
    em_discovery_release();
    em_faults_release(srv);
    json_decref(srv->idempotency);
    srv->idempotency = NULL;
    json_decref(srv->tokens);
    srv->tokens = NULL;
}
