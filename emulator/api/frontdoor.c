/* The front door: checks every request passes before any handler (frontdoor.h). */
#include "frontdoor.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "authz.h"
#include "errors.h"
#include "route.h"
#include "server.h"
#include "util/header.h"
#include "util/xmalloc.h"

/* ---- rate limit: a token bucket per client address ---- */

#define SLOTS 4096 /* clients remembered; the stalest is forgotten first */
#define PROBES 16

struct bucket {
    char addr[64];
    double tokens;
    double last; /* seconds, monotonic */
};

struct em_frontdoor {
    pthread_mutex_t lock;
    double rate, burst;
    struct bucket slots[SLOTS];
};

struct em_frontdoor *em_frontdoor_new(double rate_per_s)
{
    if (!(rate_per_s > 0))
        return NULL;
    struct em_frontdoor *fd = nd_xcalloc(1, sizeof *fd);
    pthread_mutex_init(&fd->lock, NULL);
    fd->rate = rate_per_s;
    fd->burst = 2 * rate_per_s;
    return fd;
}

void em_frontdoor_free(struct em_frontdoor *fd)
{
    if (!fd)
        return;
    pthread_mutex_destroy(&fd->lock);
    free(fd);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* 0 when addr may go on, else the seconds until it may. */
static int take_token(struct em_frontdoor *fd, const char *addr)
{
    double now = now_s();
    size_t h = hash(addr);
    pthread_mutex_lock(&fd->lock);
    struct bucket *b = NULL, *stalest = NULL;
    for (size_t i = 0; i < PROBES && !b; i++) {
        struct bucket *s = &fd->slots[(h + i) % SLOTS];
        if (strcmp(s->addr, addr) == 0)
            b = s;
        else if (!stalest || s->last < stalest->last)
            stalest = s;
    }
    if (!b) {
        b = stalest;
        snprintf(b->addr, sizeof b->addr, "%s", addr);
        b->tokens = fd->burst;
        b->last = now;
    }
    b->tokens += (now - b->last) * fd->rate;
    if (b->tokens > fd->burst)
        b->tokens = fd->burst;
    b->last = now;
    int wait = 0;
    if (b->tokens >= 1)
        b->tokens -= 1;
    else
        wait = (int)((1 - b->tokens) / fd->rate) + 1; /* whole seconds, rounded up */
    pthread_mutex_unlock(&fd->lock);
    return wait > 0 ? wait : 0;
}

/* ---- helpers ---- */

static bool is_loopback(const struct em_server *srv)
{
    return nd_http_addr_is_loopback(srv->opt.listen_addr);
}

static unsigned our_port(const struct em_server *srv)
{
    return srv->http ? em_http_port(srv->http) : srv->opt.port;
}

static void refuse(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                   const char *reason, const char *fix, const char *msg)
{
    struct nd_status st = ND_STATUS_INIT;
    nd_status_set(&st, reason, fix, "%s", msg);
    em_resp_status(srv, req, resp, &st);
    nd_status_release(&st);
}

static bool host_allowed(const struct em_server *srv, const char *host)
{
    if (nd_http_host_is_local(host, srv->opt.listen_addr))
        return true;
    char *name = nd_http_host_name(host);
    bool ok = false;
    for (size_t i = 0; !ok && i < srv->opt.front.n_allow_hosts; i++)
        ok = strcasecmp(name, srv->opt.front.allow_hosts[i]) == 0;
    free(name);
    return ok;
}

/* The emulator's own origin: scheme://HOST:PORT for the names it answers to on this port
 * (and the Host header the request came with, already checked on loopback). */
static bool own_origin(const struct em_server *srv, const struct em_req *req, const char *origin)
{
    return nd_http_origin_is_own(origin, em_req_header(req, "host"), srv->opt.listen_addr,
                                 our_port(srv));
}

static bool flag_origin(const struct em_server *srv, const char *origin)
{
    for (size_t i = 0; i < srv->opt.front.n_allow_origins; i++) {
        const char *a = srv->opt.front.allow_origins[i];
        if (strcmp(a, "*") == 0 || strcasecmp(a, origin) == 0)
            return true;
    }
    return false;
}

/* The media type of a Content-Type value without parameters, compared without case. */
static bool type_is(const char *ct, const char *want)
{
    size_t n = strcspn(ct, "; \t");
    return strlen(want) == n && strncasecmp(ct, want, n) == 0;
}

static bool type_in(const char *ct, const char *const *list)
{
    for (; *list; list++)
        if (type_is(ct, *list))
            return true;
    return false;
}

static const char *const api_types[] = {
    "application/json", "application/yaml", "application/merge-patch+json",
    "application/json-patch+json", "application/apply-patch+yaml",
    "application/strategic-merge-patch+json", /* answered 415 by the patch handler */
    "application/vnd.kubernetes.protobuf",    /* kubectl create namespace */
    NULL};
static const char *const json_types[] = {"application/json", NULL};
static const char *const tar_types[] = {"application/x-tar", "application/octet-stream", NULL};
/* What a browser page may send to another site without asking first (CORS). */
static const char *const simple_types[] = {"text/plain", "application/x-www-form-urlencoded",
                                           "multipart/form-data", NULL};

/* POST, PUT, PATCH: a Content-Type the route takes, or none with no body. */
static bool check_type(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                       struct em_resp *resp)
{
    const char *m = req->method;
    if (strcmp(m, "POST") != 0 && strcmp(m, "PUT") != 0 && strcmp(m, "PATCH") != 0)
        return false;
    const char *ct = em_req_header(req, "content-type");
    const char *cl = em_req_header(req, "content-length");
    bool body = req->body.len > 0 || req->body_too_large || (cl && strtoull(cl, NULL, 10) > 0);
    const char *p = req->path;
    /* a POST to the control endpoints changes the whole state (reset, snapshot, restore):
     * JSON even without a body, so no bodiless POST a browser sends unasked reaches them */
    bool control = rt->target == EM_TO_CONTROL;
    if ((!ct || !*ct) && !body && !(control && strcmp(m, "POST") == 0))
        return false;
    const char *want, *fix;
    bool ok;
    if (control) {
        ok = ct && type_in(ct, json_types);
        want = "application/json";
        fix = "send the body as JSON: curl -H 'Content-Type: application/json' -d '{...}' "
              "(or curl --json '{...}')";
    } else if (em_route_is_sub(rt, "files")) {
        ok = ct && type_in(ct, tar_types);
        want = "application/x-tar";
        fix = "send the archive with Content-Type: application/x-tar (as the CLI's cp does)";
    } else if (em_route_is_sub(rt, "invoke")) {
        /* any type but the ones a browser page may send cross-site unasked */
        ok = ct && *ct && !type_in(ct, simple_types);
        want = "application/octet-stream or application/json (not text/plain or a form "
               "encoding)";
        fix = "send the body with Content-Type: application/octet-stream (as the CLI's invoke does) "
              "or application/json";
    } else {
        ok = ct && type_in(ct, api_types);
        want = "application/json, application/yaml or a patch type";
        fix = "send the object as JSON with Content-Type: application/json";
    }
    if (ok)
        return false;
    struct nd_buf msg = ND_BUF_INIT;
    if (ct && *ct)
        nd_buf_addf(&msg, "the body's Content-Type %s is not accepted by %s %s: it takes %s",
                    ct, m, p, want);
    else if (body)
        nd_buf_addf(&msg, "the request has a body but no Content-Type: %s %s takes %s", m, p,
                    want);
    else
        nd_buf_addf(&msg, "the request has no Content-Type: %s %s takes %s, even without a body",
                    m, p, want);
    refuse(srv, req, resp, "UnsupportedMediaType", fix, msg.data);
    nd_buf_release(&msg);
    return true;
}

static void cors_headers(struct em_resp *resp, const char *origin, bool preflight)
{
    em_resp_set_header(resp, "Access-Control-Allow-Origin", origin);
    em_resp_set_header(resp, "Vary", "Origin");
    if (!preflight) {
        em_resp_set_header(resp, "Access-Control-Expose-Headers",
                           "X-Request-Id, ETag, Retry-After, Warning, Idempotent-Replayed");
        return;
    }
    em_resp_set_header(resp, "Access-Control-Allow-Methods",
                       "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    em_resp_set_header(resp, "Access-Control-Allow-Headers",
                       "Authorization, Content-Type, Accept, Idempotency-Key, If-Match, "
                       "Nodus-Price-Consent");
    em_resp_set_header(resp, "Access-Control-Max-Age", "600");
}

/* Origin: refused unless the emulator's own or allowed by --allow-origin. */
static bool check_origin(struct em_server *srv, struct em_req *req, struct em_resp *resp)
{
    const char *origin = em_req_header(req, "origin");
    if (!origin)
        return false;
    bool flagged = flag_origin(srv, origin);
    if (!flagged && !own_origin(srv, req, origin)) {
        struct nd_buf msg = ND_BUF_INIT, fix = ND_BUF_INIT;
        nd_buf_addf(&msg, "requests from web pages of origin %s are refused: a page a browser "
                          "shows may not drive this emulator",
                    origin);
        nd_buf_addf(&fix, "if you trust that page, start the emulator with --allow-origin %s",
                    strcmp(origin, "null") == 0 || strpbrk(origin, " '\"") ? "ORIGIN" : origin);
        refuse(srv, req, resp, "Forbidden", fix.data, msg.data);
        nd_buf_release(&msg);
        nd_buf_release(&fix);
        return true;
    }
    if (!flagged)
        return false;
    bool preflight = strcmp(req->method, "OPTIONS") == 0 &&
                     em_req_header(req, "access-control-request-method");
    cors_headers(resp, origin, preflight);
    if (preflight) {
        resp->code = 204;
        nd_buf_reset(&resp->body);
        return true;
    }
    return false;
}

static bool check_sizes(struct em_server *srv, struct em_req *req, struct em_resp *resp)
{
    struct nd_buf msg = ND_BUF_INIT;
    const char *reason = NULL, *fix = NULL;
    if (req->uri_bytes > EM_MAX_URI_BYTES) {
        reason = "RequestURITooLong";
        nd_buf_addf(&msg, "the request target is %zu bytes, over the limit of %u",
                    req->uri_bytes, EM_MAX_URI_BYTES);
    } else if (req->header_max > EM_MAX_ONE_HEADER) {
        reason = "RequestHeaderFieldsTooLarge";
        nd_buf_addf(&msg, "a header line is %zu bytes, over the limit of %u", req->header_max,
                    EM_MAX_ONE_HEADER);
    } else if (req->header_bytes > EM_MAX_HEADER_BYTES) {
        reason = "RequestHeaderFieldsTooLarge";
        nd_buf_addf(&msg, "the headers are %zu bytes, over the limit of %u", req->header_bytes,
                    EM_MAX_HEADER_BYTES);
    } else if (req->header_count > EM_MAX_HEADERS) {
        reason = "RequestHeaderFieldsTooLarge";
        nd_buf_addf(&msg, "the request has %zu header lines, over the limit of %u",
                    req->header_count, EM_MAX_HEADERS);
    } else if (req->path_nul) {
        reason = "BadRequest";
        fix = "remove the %00 from the path";
        nd_buf_addf(&msg, "the request path holds a NUL character (%%00)");
    } else if (req->query_count > EM_MAX_QUERY_PARAMS) {
        reason = "BadRequest";
        fix = "send fewer query parameters";
        nd_buf_addf(&msg, "the request has %zu query parameters, over the limit of %u",
                    req->query_count, EM_MAX_QUERY_PARAMS);
    }
    if (reason)
        refuse(srv, req, resp, reason, fix, msg.data);
    nd_buf_release(&msg);
    return reason != NULL;
}

/* A health check, or a request with an admin token: served on any connection. */
static bool privileged(const struct em_server *srv, const struct em_req *req,
                       const struct em_route *rt)
{
    return rt->target == EM_TO_HEALTH || rt->target == EM_TO_READY ||
           em_authz_admin_token(srv, req);
}

bool em_frontdoor_connection(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                             struct em_resp *resp)
{
    if (req->conn_class == EM_CONN_ORDINARY || privileged(srv, req, rt))
        return false;
    struct nd_status st = ND_STATUS_INIT;
    if (req->conn_class == EM_CONN_CLIENT_CAP) {
        nd_status_set(&st, "TooManyRequests",
                      "close idle connections of this client, or wait Retry-After seconds and "
                      "retry; start the emulator with a higher --max-connections-per-client "
                      "(0: none) if one address serves many users",
                      "%s has %u connections open, over the limit of %u a client address",
                      req->remote ? req->remote : "this client", req->client_conns,
                      srv->opt.front.per_client);
        em_http_note(srv->http, EM_REFUSE_CLIENT, req->remote);
    } else {
        nd_status_set(&st, "ServiceUnavailable",
                      "retry in a moment; if many clients need the emulator at once, start it "
                      "with a higher --max-connections (health checks and admin tokens are "
                      "still served)",
                      "the emulator is serving its limit of %u connections",
                      srv->opt.front.max_connections);
        em_http_note(srv->http, EM_REFUSE_CAPACITY, req->remote);
    }
    json_object_set_new(nd_status_details(&st), "retryAfterSeconds", json_integer(1));
    em_resp_status(srv, req, resp, &st);
    nd_status_release(&st);
    em_resp_set_header(resp, "Connection", "close");
    return true;
}

bool em_frontdoor_check(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                        struct em_resp *resp)
{
    if (em_frontdoor_connection(srv, req, rt, resp))
        return true;
    if (srv->frontdoor && req->remote && *req->remote) {
        int wait = take_token(srv->frontdoor, req->remote);
        if (wait > 0) {
            struct nd_status st = ND_STATUS_INIT;
            nd_status_set(&st, "TooManyRequests",
                          "wait Retry-After seconds and retry; start the emulator with a "
                          "higher --rate-limit (0: off) if this client needs more",
                          "%s sends faster than the limit of %g requests a second (bursts of %g)",
                          req->remote, srv->opt.front.rate_limit, 2 * srv->opt.front.rate_limit);
            json_object_set_new(nd_status_details(&st), "retryAfterSeconds",
                                json_integer(wait));
            em_resp_status(srv, req, resp, &st);
            nd_status_release(&st);
            return true;
        }
    }
    if (check_sizes(srv, req, resp))
        return true;
    const char *host = em_req_header(req, "host");
    if (is_loopback(srv) && !host_allowed(srv, host)) {
        struct nd_buf msg = ND_BUF_INIT, fix = ND_BUF_INIT;
        nd_buf_addf(&msg, "the Host %s is not a name of this emulator: on loopback it answers "
                          "to 127.0.0.1, localhost and [::1] only (a web page may point another "
                          "name at 127.0.0.1: DNS rebinding)",
                    host);
        nd_buf_addf(&fix, "use http://127.0.0.1:%u, or start the emulator with --allow-host "
                          "NAME",
                    our_port(srv));
        refuse(srv, req, resp, "Forbidden", fix.data, msg.data);
        nd_buf_release(&msg);
        nd_buf_release(&fix);
        return true;
    }
    if (check_origin(srv, req, resp))
        return true;
    return check_type(srv, req, rt, resp);
}
