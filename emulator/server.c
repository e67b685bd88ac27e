/* The emulator's life: open the state, serve, shut down cleanly on SIGTERM/SIGINT. */
#include "emulator.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authz.h"
#include "exec.h"
#include "feed.h"
#include "spend.h"
#include "frontdoor.h"
#include "fsutil.h"
#include "idempotency.h"
#include "pricebook.h"
#include "router.h"
#include "runtime.h"
#include "sim.h"
#include "tls.h"
#include "util/quote.h"
#include "util/xmalloc.h"

/* A field of a text log line: as it is when it holds only printable ASCII other than
 * '"' and '\\', else quoted as Go's %q does (nd_quote: control characters, DEL, C1 and
 * bytes that are not UTF-8 escaped), so a request cannot end the line or forge another,
 * nor send escape sequences to a terminal that shows the log. */
static void log_field(struct nd_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\') {
            nd_quote(b, s, 0);
            return;
        }
    }
    nd_buf_adds(b, s);
}

/* Whether a stop gives the objects' and the history's memory back one by one before the
 * exit: only under AddressSanitizer, which checks that everything is freed. Otherwise
 * the exit returns it at once (freeing 100,000 trees one by one takes a second or more
 * of a clean stop, after everything is on disk). */
#if defined(__SANITIZE_ADDRESS__)
#define EM_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EM_FREE_AT_EXIT 1
#endif
#endif
#ifndef EM_FREE_AT_EXIT
#define EM_FREE_AT_EXIT 0
#endif

static void access_log(void *cls, const struct em_req *req, int code, double ms)
{
    struct em_server *srv = cls;
    if (srv->opt.quiet)
        return;
    const char *ua = em_req_header(req, "user-agent");
    struct nd_buf method = ND_BUF_INIT, path = ND_BUF_INIT;
    log_field(&method, req->method);
    log_field(&path, req->path);
    if (srv->opt.log_json) {
        /* jansson escapes control characters; what is not UTF-8 goes quoted */
        json_t *m = json_string(req->method), *pth = json_string(req->path);
        /* to the microsecond, printed as such ("ms":0.878), not as the nearest double */
        double us = (double)(int64_t)(ms * 1000 + 0.5) / 1000;
        json_t *j = json_pack("{sososisfssssss}", "method", m ? m : json_string(method.data),
                              "path", pth ? pth : json_string(path.data), "code", code, "ms",
                              us, "requestId", req->request_id, "userAgent", ua ? ua : "",
                              "remote", req->remote ? req->remote : "");
        /* all ASCII: a C1 control (U+009B, CSI) stays an escape, not a byte */
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15))
                    : NULL;
        if (s)
            fprintf(stderr, "%s\n", s);
        free(s);
        json_decref(j);
    } else {
        fprintf(stderr, "%s %s %d %.1fms %s\n", method.data, path.data, code, ms,
                req->request_id);
    }
    nd_buf_release(&method);
    nd_buf_release(&path);
}

/* The journal's own thread made writes durable that no request waited for. */
static void wake_watches(void *ctx)
{
    struct em_server *srv = ctx;
    pthread_mutex_lock(&srv->lock);
    em_server_publish(srv);
    pthread_mutex_unlock(&srv->lock);
}

static void log_line(struct em_server *srv, const char *msg);

/* The store's own lines (storage errors, once per episode). */
static void store_log(void *ctx, const char *msg)
{
    log_line(ctx, msg);
}

/* A message of the emulator's own (not a request), in the log format asked for. */
static void log_line(struct em_server *srv, const char *msg)
{
    if (srv->opt.log_json) {
        json_t *j = json_pack("{ss}", "msg", msg);
        char *s = json_dumps(j, JSON_COMPACT);
        fprintf(stderr, "%s\n", s);
        free(s);
        json_decref(j);
    } else {
        fprintf(stderr, "nodus-emulator: %s\n", msg);
    }
}

/* The HTTP layer's own lines (slow clients), logged even under --quiet. */
static void notice(void *cls, const char *msg)
{
    log_line(cls, msg);
}

static int write_port_file(const char *path, unsigned port)
{
    char *tmp = nd_xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(tmp);
        return -1;
    }
    fprintf(f, "%u\n", port);
    int rc = fclose(f);
    if (rc == 0)
        rc = rename(tmp, path);
    free(tmp);
    return rc;
}

static const char *const seed_trees[] = {"objects", "files", "logs", "pricebook.json", NULL};

static bool seed_has_tree(const char *dir)
{
    char *p = nd_xasprintf("%s/objects", dir);
    struct stat sb;
    bool yes = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(p);
    return yes;
}

static int copy_seed_tree(struct em_server *srv)
{
    for (int i = 0; seed_trees[i]; i++) {
        char *from = nd_xasprintf("%s/%s", srv->opt.seed_dir, seed_trees[i]);
        char *to = nd_xasprintf("%s/%s", srv->opt.state_dir, seed_trees[i]);
        int rc = em_copy_tree(from, to);
        free(from);
        free(to);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* How far a start got: a stop undoes exactly that much (shut_down). */
enum em_up { UP_NOTHING, UP_STORE, UP_JOURNAL, UP_ROUTER, UP_HTTP, UP_SERVING };

/* The store's start-up report (what recovery found), one log line each. */
static void log_report(struct em_server *srv, struct nd_buf *report)
{
    if (!report->len)
        return;
    char *save = NULL;
    for (char *line = strtok_r(report->data, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        log_line(srv, line);
}

/* The token file, the store (with --seed's state tree), emulator.json and the journal:
 * UP_JOURNAL when all are open, else how far it got (err says why). */
static enum em_up open_state(struct em_server *srv, struct nd_buf *report, struct nd_buf *err)
{
    /* --token-file first: a bad or unsafe file stops the start before --reset acts */
    if (em_authz_load(srv, err) < 0 || em_store_open(&srv->store, srv->opt.state_dir,
                                                     srv->opt.fsync_mode, srv->opt.reset,
                                                     report, err) < 0)
        return UP_NOTHING;
    /* --seed's state tree (objects/, files/, logs/, pricebook.json) fills an empty state
     * directory; the store is opened again to load what came in. */
    if (srv->opt.seed_dir && srv->store.revision == 0 && seed_has_tree(srv->opt.seed_dir)) {
        if (copy_seed_tree(srv) < 0) {
            nd_buf_addf(err, "--seed: cannot copy the state tree of %s into %s",
                        srv->opt.seed_dir, srv->opt.state_dir);
            return UP_STORE;
        }
        em_store_close(&srv->store);
        nd_buf_reset(report);
        if (em_store_open(&srv->store, srv->opt.state_dir, srv->opt.fsync_mode, false, report,
                          err) < 0)
            return UP_NOTHING;
        srv->seeded_tree = true;
    }
    log_report(srv, report);
    /* --seed fills an empty state directory only: a later start keeps what changed */
    srv->seed_wanted = srv->store.revision == 0 || srv->seeded_tree;
    em_server_load_meta(srv);
    if (em_history_open(&srv->history, &srv->store, srv->store.revision,
                        em_clock_now_ms(&srv->clock), err) < 0)
        return UP_STORE;
    if (em_history_last_rev(&srv->history) > srv->store.revision)
        srv->store.revision = em_history_last_rev(&srv->history);
    return UP_JOURNAL;
}

/* The price book and the API's own state (router.h). */
static int open_api(struct em_server *srv, struct nd_buf *err)
{
    struct nd_status pst = ND_STATUS_INIT;
    if (em_pricebook_load(srv, &pst) < 0) {
        nd_buf_adds(err, pst.message);
        nd_status_release(&pst);
        return -1;
    }
    srv->hooks.expire = em_idem_expire; /* the API's keys expire with the housekeeping */
    srv->hooks.sandbox_sessions = em_sandbox_sessions;
    return em_router_init(srv, err);
}

/* TLS, the front door, the feed and the listening socket; base_url says where. */
static int listen_http(struct em_server *srv, struct nd_buf *err)
{
    if (srv->opt.tls_cert && em_tls_load(&srv->tls, srv->opt.tls_cert, srv->opt.tls_key, err) < 0)
        return -1;
    srv->frontdoor = em_frontdoor_new(srv->opt.front.rate_limit);
    srv->feed = em_feed_new(srv->store.revision);
    const struct em_frontdoor_opts *fo = &srv->opt.front;
    struct em_http_limits limits = {.max_connections = fo->max_connections,
                                    .idle_timeout_s = fo->idle_timeout_s,
                                    .per_client = fo->per_client,
                                    .header_timeout_ms = fo->header_timeout_ms,
                                    .min_body_rate = fo->min_body_rate,
                                    .body_window_ms = fo->body_window_ms};
    srv->http = em_http_start(srv->opt.listen_addr, srv->opt.port,
                              srv->opt.tls_cert ? &srv->tls : NULL, &limits, em_router_handle,
                              srv, err);
    if (!srv->http)
        return -1;
    em_http_set_access_log(srv->http, access_log, srv);
    em_http_set_notice(srv->http, notice, srv);
    em_http_set_body_hook(srv->http, em_router_begin);
    em_http_set_quick(srv->http, em_router_quick);
    snprintf(srv->base_url, sizeof srv->base_url, "%s://%s:%u",
             srv->opt.tls_cert ? "https" : "http", srv->opt.listen_addr,
             em_http_port(srv->http));
    return 0;
}

/* The built-in objects and --seed, the store's hooks, the simulation, the port file: the
 * server is ready, and says where it listens on stdout. */
static int go_live(struct em_server *srv, struct nd_buf *err)
{
    if (em_router_seed(srv, err) < 0)
        return -1;
    srv->store.journal.notify = wake_watches;
    srv->store.journal.notify_ctx = srv;
    srv->store.journal.log = store_log;
    srv->store.journal.log_ctx = srv;
    /* what the start wrote (built-in objects, --seed) is on disk before /readyz says so */
    em_store_commit(&srv->store, em_store_ticket(&srv->store));
    pthread_mutex_lock(&srv->lock);
    em_sim_init(srv);
    em_store_trim(&srv->store); /* a safe point (entry.h): what the start built */
    srv->ready = true;
    pthread_mutex_unlock(&srv->lock);
    if (em_sim_start(srv) < 0) {
        nd_buf_adds(err, "cannot start the simulation thread");
        return -1;
    }
    unsigned port = em_http_port(srv->http);
    if (srv->opt.port_file && write_port_file(srv->opt.port_file, port) < 0) {
        nd_buf_addf(err, "cannot write %s: %s", srv->opt.port_file, strerror(errno));
        return -1;
    }
    printf("listening on %s\n", srv->base_url);
    if (!srv->opt.no_console)
        printf("console: %s/\n", srv->base_url);
    fflush(stdout);
    return 0;
}

static enum em_up start(struct em_server *srv, struct nd_buf *report, struct nd_buf *err)
{
    enum em_up up = open_state(srv, report, err);
    if (up < UP_JOURNAL)
        return up;
    if (open_api(srv, err) < 0)
        return UP_JOURNAL;
    if (listen_http(srv, err) < 0)
        return UP_ROUTER;
    if (go_live(srv, err) < 0)
        return UP_HTTP;
    return UP_SERVING;
}

/* Signals are taken by sigwait() in this thread only; SIGPIPE is ignored so a client
 * that goes away is an error on write, not the end of the emulator. */
static void take_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static void wait_for_stop(struct em_server *srv, sigset_t *set)
{
    int sig = 0;
    while (sigwait(set, &sig) != 0 || (sig != SIGINT && sig != SIGTERM))
        ;
    if (!srv->opt.quiet)
        log_line(srv, sig == SIGINT ? "SIGINT, shutting down" : "SIGTERM, shutting down");
}

/* Stop taking connections, end every stream, then wait for the handlers. */
static void stop_serving(struct em_server *srv)
{
    em_http_quiesce(srv->http);
    em_sim_stop(srv);
    em_runtime_shutdown(srv);
    pthread_mutex_lock(&srv->lock);
    srv->stopping = 1;
    em_feed_stop(srv->feed);
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
    em_router_stop(srv);
    em_http_stop(srv->http);
}

/* Undoes a start that got as far as up; a stop that cannot write its state says so in
 * the exit status it returns. */
static int shut_down(struct em_server *srv, enum em_up up, int status, struct nd_buf *err)
{
    if (up >= UP_HTTP)
        stop_serving(srv);
    if (up >= UP_ROUTER) {
        em_tls_release(&srv->tls);
        if (em_server_save_meta(srv) < 0) {
            /* (the store's stop below may still write, with the room its own stop frees) */
            fprintf(stderr, "nodus-emulator: the stop could not write its state: "
                            "emulator.json (the revision and the clock; see above)\n");
            if (status == 0)
                status = 1;
        }
        if (srv->sim_due) {
            em_sim_save(srv);
            em_sim_release(srv);
        }
        em_router_release(srv);
        em_frontdoor_free(srv->frontdoor);
        srv->frontdoor = NULL;
        em_feed_free(srv->feed);
        em_spend_free(srv);
        srv->feed = NULL;
        em_pricebook_release(srv);
    }
    if (up >= UP_JOURNAL && EM_FREE_AT_EXIT)
        em_history_close(&srv->history);
    if (up >= UP_STORE) {
        nd_buf_reset(err);
        if (em_store_stop(&srv->store, err) < 0) {
            fprintf(stderr, "nodus-emulator: the stop could not write its state: %s\n",
                    err->data);
            if (status == 0)
                status = 1;
        }
        if (EM_FREE_AT_EXIT)
            em_store_close(&srv->store);
    }
    json_decref(srv->tokens); /* when the start failed before em_router_release */
    srv->tokens = NULL;
    return status;
}

int em_server_run(struct em_server *srv)
{
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    int status = 1;
    sigset_t set;
    take_signals(&set);
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->changed, NULL);
    enum em_up up = start(srv, &report, &err);
    if (up == UP_SERVING) {
        wait_for_stop(srv, &set);
        status = 0;
    } else {
        fprintf(stderr, "nodus-emulator: %s\n", err.data);
    }
    status = shut_down(srv, up, status, &err);
    nd_buf_release(&err);
    nd_buf_release(&report);
    pthread_cond_destroy(&srv->changed);
    pthread_mutex_destroy(&srv->lock);
    return status;
}
