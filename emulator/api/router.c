/* Request routing: health, control endpoints, docs, discovery, then the API. Every
 * request is served with the server lock held (streams take it again per read). */
#include "router.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admin.h"
#include "api.h"
#include "auth_review.h"
#include "console.h"
#include "authz.h"
#include "discovery.h"
#include "errors.h"
#include "exec.h"
#include "frontdoor.h"
#include "fsutil.h"
#include "idempotency.h"
#include "json/json.h"
#include "objects.h"
#include "route.h"
#include "sim.h"
#include "table_cells.h"
#include "util/time.h"
#include "util/xmalloc.h"

int em_router_init(struct em_server *srv, struct nd_buf *err)
{
    em_idem_load(srv);
    srv->table_cells = em_table_cells_new(EM_TABLE_CELLS_MAX_BYTES);
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
        if (nd_buf_read_file(&data, path) < 0 ||
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
            /* the operator's manifests pass the same decision (nothing goes into nodus) */
            struct nd_status ast = ND_STATUS_INIT;
            struct em_route rt;
            em_route_make(&rt, req.method, req.path, req.query);
            if (em_authz_check(srv, em_authz_operator(), &req, &rt, &ast) < 0)
                em_resp_status(srv, &req, &resp, &ast);
            else
                em_api_handle(srv, &req, &rt, &resp, em_authz_operator());
            em_route_release(&rt);
            nd_status_release(&ast);
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

/* The answer to a path that names nothing served. */
static void not_found(struct em_server *srv, struct em_req *req, struct em_resp *resp)
{
    em_resp_error(srv, req, resp, "NotFound", "the server could not find the requested resource");
}

static void handle_locked(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                          struct em_resp *resp, const struct em_identity *who)
{
    srv->stats.requests++;
    em_server_housekeep(srv);
    if (rt->target == EM_TO_HEALTH) {
        em_resp_text(resp, 200, "text/plain; charset=utf-8", "ok");
        return;
    }
    if (rt->target == EM_TO_READY) {
        if (srv->ready && !srv->stopping)
            em_resp_text(resp, 200, "text/plain; charset=utf-8", "ok");
        else
            em_resp_text(resp, 503, "text/plain; charset=utf-8", "not ready");
        return;
    }
    if (rt->target == EM_TO_DOCS) {
        em_docs_handle(srv, req, rt->docs_page, resp);
        return;
    }
    if (rt->target == EM_TO_CONSOLE) {
        em_console_handle(srv, req, rt->console_file, resp);
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
    switch (rt->target) {
    case EM_TO_CONTROL:
        if (rt->control)
            em_admin_handle(srv, req, resp, rt->control);
        else
            not_found(srv, req, resp);
        return;
    case EM_TO_DISCOVERY:
        if (!em_discovery_handle(srv, req, resp))
            not_found(srv, req, resp);
        return;
    case EM_TO_REVIEW:
        em_review_handle(srv, req, rt->review, resp, who);
        return;
    case EM_TO_API:
        break;
    default:
        not_found(srv, req, resp);
        return;
    }
    bool keyed = rt->is_write && em_req_header(req, "idempotency-key") && !req->body_coming;
    if (keyed && em_idem_check(srv, req, rt, who, resp))
        return;
    em_api_handle(srv, req, rt, resp, who);
    if (keyed)
        em_idem_save(srv, req, rt, who, resp);
}

/* Changes the disk refused are undone before anything reads or changes the store. */
static void settle(struct em_server *srv)
{
    if (em_obj_rollback(srv) >= 0)
        em_sim_touch_all(srv); /* objects came back as they were: their schedules too */
}

/* The disk refused the change: memory goes back to what is on disk, and the answer says
 * so (507 StorageFull or 500 StorageError); a retry with the same key runs again. */
static void commit_failed(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                          struct em_resp *resp, const struct em_identity *who, int err)
{
    pthread_mutex_lock(&srv->lock);
    settle(srv);
    em_idem_forget(srv, req, rt, who);
    if (!resp->stream && !resp->upgrade) {
        struct nd_status st = ND_STATUS_INIT;
        em_store_io_status(&srv->store, &st, err, srv->store.journal.path);
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
    }
    pthread_mutex_unlock(&srv->lock);
}

/* A write is refused before it changes anything when the journal cannot take it (a full
 * disk): 1 when resp was filled. Lock held. */
static int refuse_unwritable(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                             struct em_resp *resp)
{
    /* what writes nothing passes: upgrades (exec), dry runs, reviews (POSTs that read) */
    if (!rt->is_write || em_req_header(req, "upgrade") || em_req_query(req, "dryRun") ||
        rt->target == EM_TO_REVIEW)
        return 0;
    struct nd_status st = ND_STATUS_INIT;
    int rc = em_store_reserve(&srv->store, &st) < 0;
    if (rc) {
        srv->stats.requests++;
        em_resp_status(srv, req, resp, &st);
    }
    nd_status_release(&st);
    return rc;
}

/* Lock held, the store settled: handles req and lets the lock go. *before and *ticket
 * are the store's tickets around it (a write moved it); true when what it read is not
 * yet on disk (finish waits for it). */
static bool handle_once(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                        struct em_resp *resp, const struct em_identity *who, uint64_t *before,
                        uint64_t *ticket)
{
    *before = em_store_ticket(&srv->store);
    /* what a write changes goes to the disk in one flush: refused whole (its answer says
     * so) or kept whole, never its object kept and its Event refused */
    if (rt->is_write)
        em_store_hold(&srv->store);
    handle_locked(srv, req, rt, resp, who);
    if (rt->is_write)
        em_store_unhold(&srv->store);
    *ticket = em_store_ticket(&srv->store);
    if (*ticket != *before) /* it publishes in finish: the journal's thread need not */
        srv->writers_publishing++;
    /* a read answers from memory, which may hold changes of other requests not yet on
     * disk: it waits for them as their writers do, so no answer shows a change a crash
     * could still undo (make torture's flip and rv-backwards) */
    bool unsettled = *ticket == *before && !em_store_settled(&srv->store, *ticket);
    /* a safe point (entry.h): no tree the request borrowed lives past its lock */
    em_store_trim(&srv->store);
    pthread_mutex_unlock(&srv->lock);
    return unsettled;
}

/* After handle_once, no lock held: waits until what the answer shows is on disk (serving
 * the read again if the disk refused it) and publishes a write. May wait: a worker's. */
static void finish(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                   struct em_resp *resp, const struct em_identity *who, uint64_t before,
                   uint64_t ticket, bool unsettled)
{
    for (int tries = 1; unsettled; tries++) {
        if (em_store_commit(&srv->store, ticket) == 0)
            break;
        /* what it read included a change the disk refused (another request's, or a
         * controller's Event): that is undone, and a plain read is served again from
         * what is on disk; a stream or an upgrade already began, and a third refusal
         * in a row answers as the writes do */
        if (resp->stream || resp->upgrade || tries == 3) {
            commit_failed(srv, req, rt, resp, who, errno);
            break;
        }
        em_resp_release(resp);
        em_resp_init(resp);
        pthread_mutex_lock(&srv->lock);
        settle(srv);
        unsettled = handle_once(srv, req, rt, resp, who, &before, &ticket);
    }
    /* the answer goes once what the request changed is on disk: its journal records
     * share one flush with whatever else is committing now (store.h) */
    if (ticket != before) {
        if (em_store_commit(&srv->store, ticket) < 0)
            commit_failed(srv, req, rt, resp, who, errno);
        /* watches show what is on disk: this may be news to them */
        pthread_mutex_lock(&srv->lock);
        em_server_publish_write(srv);
        pthread_mutex_unlock(&srv->lock);
    }
}

/* Serves req, whose route rt was made from it at the front: every step below reads rt. */
static void serve(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                  struct em_resp *resp)
{
    /* the front door first (origins, hosts, content types, sizes, rates: frontdoor.h),
     * then who asks and may they: the one decision (authz.h) */
    if (em_frontdoor_check(srv, req, rt, resp))
        return;
    struct em_identity who;
    struct nd_status st = ND_STATUS_INIT;
    int allowed = em_authz_request(srv, req, rt, &who, &st);
    int64_t delay = 0;
    pthread_mutex_lock(&srv->lock);
    if (allowed < 0) {
        srv->stats.requests++;
        em_resp_status(srv, req, resp, &st);
        pthread_mutex_unlock(&srv->lock);
        nd_status_release(&st);
        return;
    }
    bool faulted = em_faults_check(srv, req, rt, resp, &delay);
    pthread_mutex_unlock(&srv->lock);
    if (delay > 0) {
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (!faulted) {
        pthread_mutex_lock(&srv->lock);
        settle(srv);
        if (refuse_unwritable(srv, req, rt, resp)) {
            pthread_mutex_unlock(&srv->lock);
            nd_status_release(&st);
            return;
        }
        uint64_t before, ticket;
        bool unsettled = handle_once(srv, req, rt, resp, &who, &before, &ticket);
        finish(srv, req, rt, resp, &who, before, ticket, unsettled);
    }
    nd_status_release(&st);
}

/* Every answer's Date is the emulator's clock, not the host's: clients measure ages
 * against the server's time (docs/api.md), and after `clock advance` that is this one. */
static void stamp_date_at(struct em_resp *resp, int64_t now)
{
    /* the second's text is made once a thread (a GET's answer is tens of microseconds) */
    static _Thread_local int64_t made_s = INT64_MIN;
    static _Thread_local char made[40];
    int64_t s = now / 1000;
    if (s != made_s) {
        struct nd_buf d = ND_BUF_INIT;
        if (nd_http_date_format(s, &d) != 0 || d.len >= sizeof made) {
            nd_buf_release(&d);
            return;
        }
        memcpy(made, d.data, d.len + 1);
        made_s = s;
        nd_buf_release(&d);
    }
    em_resp_set_header(resp, "Date", made);
}

static void stamp_date(struct em_server *srv, struct em_resp *resp)
{
    pthread_mutex_lock(&srv->lock);
    int64_t now = em_clock_now_ms(&srv->clock);
    pthread_mutex_unlock(&srv->lock);
    stamp_date_at(resp, now);
}

/* A read the loop's thread may serve (em_router_quick): a health or readiness probe, a GET
 * of one object or its status, or a LIST of at most 500 without selectors (kubectl's
 * pages), at no resourceVersion or 0 (a newer one waits for it: fresh.c). Its work is bounded by its answer; a LIST of a
 * whole large state, a watch or anything else goes to a worker, as the loop serves every
 * other connection of its thread meanwhile. */
static bool quick_read(const struct em_req *req, const struct em_route *rt)
{
    if ((rt->target == EM_TO_HEALTH || rt->target == EM_TO_READY) && !req->body_too_large &&
        req->conn_class == EM_CONN_ORDINARY)
        return true; /* probes: a word */
    if (rt->target != EM_TO_API || rt->is_write || !rt->verb || req->body_too_large ||
        req->conn_class != EM_CONN_ORDINARY || (rt->sub && strcmp(rt->sub, "status") != 0) ||
        em_req_query(req, "watch"))
        return false;
    const char *rv = em_req_query(req, "resourceVersion");
    if (rv && *rv && strcmp(rv, "0") != 0)
        return false;
    if (strcmp(rt->verb, "get") == 0)
        return true;
    if (strcmp(rt->verb, "list") != 0 || em_req_query(req, "labelSelector") ||
        em_req_query(req, "fieldSelector"))
        return false;
    const char *limit = em_req_query(req, "limit");
    char *end;
    long n = limit ? strtol(limit, &end, 10) : 0;
    return limit && *limit && !*end && n > 0 && n <= 500;
}

/* Lock held: whether nothing the quick path cannot do is due first: the hourly
 * housekeeping (it may write), an injected fault (it may delay), a change not yet on
 * disk (the read would wait for it, or be served again after its rollback: serve). */
static bool quick_now(struct em_server *srv)
{
    return !srv->faults &&
           em_clock_now_ms(&srv->clock) - srv->last_housekeep_ms < 60 * 1000 &&
           em_store_settled(&srv->store, em_store_ticket(&srv->store));
}

/* Lock held, quick_now: serves req as serve does, the lock held throughout (the front
 * door and the decision take none of theirs), and lets it go. True when resp is the
 * answer; false when it must still wait, as req->then says (em_router_handle). */
static bool quick_serve(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                        struct em_resp *resp)
{
    int64_t now = em_clock_now_ms(&srv->clock);
    struct em_identity who;
    struct nd_status st = ND_STATUS_INIT;
    bool done = true;
    if (em_frontdoor_check(srv, req, rt, resp)) {
        pthread_mutex_unlock(&srv->lock);
    } else if (em_authz_request(srv, req, rt, &who, &st) < 0) {
        srv->stats.requests++;
        em_resp_status(srv, req, resp, &st);
        pthread_mutex_unlock(&srv->lock);
    } else {
        uint64_t before, ticket;
        bool unsettled = handle_once(srv, req, rt, resp, &who, &before, &ticket);
        /* a read changes nothing, and all it saw was on disk: the rest is for a worker
         * only if that was not so after all */
        if (unsettled || ticket != before) {
            req->then = (struct em_req_then){true, unsettled, before, ticket};
            done = false;
        }
    }
    nd_status_release(&st);
    if (done)
        stamp_date_at(resp, now);
    return done;
}

bool em_router_quick(void *cls, struct em_req *req, struct em_resp *resp)
{
    struct em_server *srv = cls;
    const char *method = req->method;
    bool head = strcmp(method, "HEAD") == 0;
    if ((!head && strcmp(method, "GET") != 0) || em_req_header(req, "upgrade"))
        return false;
    req->method = "GET";
    struct em_route rt;
    em_route_make(&rt, req->method, req->path, req->query);
    bool done = false;
    /* never waits for the lock: a busy server's read goes to a worker */
    if (quick_read(req, &rt) && pthread_mutex_trylock(&srv->lock) == 0) {
        if (quick_now(srv))
            done = quick_serve(srv, req, &rt, resp);
        else
            pthread_mutex_unlock(&srv->lock);
    }
    em_route_release(&rt);
    req->method = method;
    return done;
}

void em_router_handle(void *cls, struct em_req *req, struct em_resp *resp)
{
    struct em_server *srv = cls;
    /* HEAD is GET without the body: served (and authorised) wherever GET is, with GET's
     * headers; libmicrohttpd sends no body for HEAD. The request log keeps HEAD. */
    const char *method = req->method;
    bool head = strcmp(method, "HEAD") == 0;
    if (head && em_req_header(req, "upgrade")) {
        em_resp_error(srv, req, resp, "MethodNotAllowed",
                      "HEAD cannot upgrade the connection: open it with GET");
        stamp_date(srv, resp);
        return;
    }
    if (head)
        req->method = "GET";
    struct em_route rt;
    em_route_make(&rt, req->method, req->path, req->query);
    if (req->then.due) {
        /* begun on the loop (em_router_quick): what it read must be on disk first */
        struct em_identity who;
        struct nd_status st = ND_STATUS_INIT;
        em_authz_request(srv, req, &rt, &who, &st); /* as decided there */
        nd_status_release(&st);
        finish(srv, req, &rt, resp, &who, req->then.before, req->then.ticket,
               req->then.unsettled);
        req->then.due = false;
    } else {
        serve(srv, req, &rt, resp);
    }
    em_route_release(&rt);
    req->method = method;
    stamp_date(srv, resp);
}

enum em_body_plan em_router_begin(void *cls, struct em_req *req, struct em_resp *resp)
{
    bool upload = strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0;
    /* nothing to decide for an ordinary connection's other requests: no route made here
     * (a GET's answer is tens of microseconds, the route's a tenth of them) */
    if (req->conn_class == EM_CONN_ORDINARY && !upload)
        return EM_BODY_HOLD;
    struct em_route rt;
    em_route_make(&rt, req->method, req->path, req->query);
    enum em_body_plan plan = EM_BODY_HOLD;
    if (em_frontdoor_connection(cls, req, &rt, resp)) {
        /* a connection past a limit is answered before its body is read (frontdoor.h) */
        stamp_date(cls, resp);
        plan = EM_BODY_ANSWERED;
    } else if (upload && em_route_is_sub(&rt, "files")) {
        /* only the files subresource takes its body as it arrives (files.c); the request
         * is served as any other (front door, authorisation, the handler's checks) with
         * the body still to come, and the handler sets the sink */
        req->body_coming = true;
        serve(cls, req, &rt, resp);
        req->body_coming = false;
        stamp_date(cls, resp);
        plan = req->sink ? EM_BODY_STREAM : EM_BODY_ANSWERED;
    }
    em_route_release(&rt);
    return plan;
}

void em_router_stop(struct em_server *srv)
{
    em_exec_shutdown(srv);
}

void em_router_release(struct em_server *srv)
{
    em_discovery_release(srv);
    em_table_cells_free(srv->table_cells);
    srv->table_cells = NULL;
    em_exec_release(srv);
    em_faults_release(srv);
    json_decref(srv->idempotency);
    srv->idempotency = NULL;
    json_decref(srv->tokens); /* read by em_authz_load */
    srv->tokens = NULL;
}
