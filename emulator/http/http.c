/* The emulator's HTTP layer: libmicrohttpd's epoll loop, handlers on workers (loop.h). */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "loop.h"
#include "util/id.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* What MHD may hold of one request's line and headers. Above the front door's limits
 * (frontdoor.h: a 32 KiB target, 64 KiB of headers), so that a request a little over
 * them reaches it and is answered with a Status; past this libmicrohttpd answers its own
 * 414/431 page. Not bigger: libmicrohttpd 0.9.75 zeroes a connection's whole pool
 * between two requests on it, so every request costs a memset of this size (3 MiB was
 * 78% of a GET's CPU). */
#define EM_HTTP_MEMORY_LIMIT (160u * 1024u)
#define OVER_LIMIT_TIMEOUT_S 2u /* a connection past max_conns that sends nothing */
#define HARD_MARGIN 1024u
#define EM_HTTP_LOOPS 2u /* libmicrohttpd's epoll threads */
#define AFTER_ANSWER_WAIT_MS 50 /* what runs after an answer waits for it this long at most */

struct em_http {
    struct MHD_Daemon *daemon;
    em_handler_fn handler;
    void *cls;
    em_access_log_fn log_fn;
    void *log_cls;
    em_begin_fn begin;
    em_quick_fn quick;
    uint16_t port;
    pthread_mutex_t log_lock;
    pthread_mutex_t sent_lock; /* conn_req.sent */
    pthread_cond_t sent_cv;
    struct nd_buf *start_log; /* MHD's first complaint while starting, else NULL */
    struct em_guard *guard;   /* classes, deadlines and refusals of connections (guard.h) */
    struct em_loop *loop;     /* workers, live streams, the ticker (loop.h) */
    struct em_http_limits limits; /* em_http_start's (max_connections at least 1) */
    /* Upgraded connections' threads still running: MHD_upgrade_action must not be called
     * once the daemon is stopped, so em_http_stop waits for them. */
    pthread_mutex_t upgrades_lock;
    pthread_cond_t upgrades_done;
    unsigned upgrades_running;
};

/* Per-request state kept in MHD's con_cls (made when the request line is read). */
struct conn_req {
    struct em_http *h;
    struct em_req req;
    struct em_resp resp;
    char *method;
    char *path;
    int code;
    struct timespec start;
    bool started;
    bool handled;
    bool untimed; /* a stream: the idle timeout is off until the response ends */
    bool streaming; /* the body goes to req.sink */
    bool sink_done; /* the sink took no more */
    bool finish;    /* the worker runs the sink's finish, not the handler */
    bool ready;     /* the worker filled resp: send it when resumed */
    bool *sent;     /* the worker waits for the answer's end (em_http.sent_lock) */
    char remote[64];
};


unsigned em_http_reserve(unsigned max_connections)
{
    unsigned r = max_connections / 16;
    return r ? r : max_connections > 1;
}

/* The guard's slot of a connection (its socket context), or NULL. */
static struct em_guard_conn *slot_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void make_request_id(char out[40])
{
    memcpy(out, "req_", 4);
    nd_ulid_new(out + 4); /* 26 characters and the NUL */
}

static double elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    struct em_req *req = cls;
    size_t line = strlen(key) + (value ? strlen(value) : 0) + 4;
    req->header_bytes += line;
    req->header_count++;
    if (line > req->header_max)
        req->header_max = line;
    if (req->header_count <= EM_MAX_HEADERS && req->header_bytes <= EM_MAX_HEADER_BYTES)
        em_http_header_add(req->headers, key, value);
    return MHD_YES;
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    struct em_req *req = cls;
    req->query_count++;
    em_http_query_add(req->query, key, value);
    return MHD_YES;
}

int em_req_socket(const struct em_req *req)
{
    const union MHD_ConnectionInfo *ci =
        req->conn ? MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    return ci ? ci->connect_fd : -1;
}

struct upgrade_job {
    em_upgrade_fn fn;
    void *cls;
    int fd;
    char *extra;
    size_t extra_len;
    struct MHD_UpgradeResponseHandle *urh;
    int tcp_fd; /* the client's socket: fd itself, or behind MHD's TLS socket pair */
    struct em_http *h;
};

static void upgrades_add(struct em_http *h, int delta)
{
    pthread_mutex_lock(&h->upgrades_lock);
    h->upgrades_running += (unsigned)delta;
    if (!h->upgrades_running)
        pthread_cond_broadcast(&h->upgrades_done);
    pthread_mutex_unlock(&h->upgrades_lock);
}

static void *upgrade_thread(void *arg)
{
    struct upgrade_job *job = arg;
    job->fn(job->cls, job->fd, job->extra, job->extra_len);
    /* Over TLS, MHD 0.9.75's forwarding thread can miss the close below while the client
     * is silent and then wait for it forever, holding the connection open. Ending the
     * client side's reading wakes it; the socket stays MHD's until the close. */
    if (job->tcp_fd >= 0 && job->tcp_fd != job->fd)
        shutdown(job->tcp_fd, SHUT_RD);
    MHD_upgrade_action(job->urh, MHD_UPGRADE_ACTION_CLOSE);
    struct em_http *h = job->h;
    free(job->extra);
    free(job);
    upgrades_add(h, -1);
    return NULL;
}

static void on_upgrade(void *cls, struct MHD_Connection *connection, void *req_cls,
                       const char *extra_in, size_t extra_in_size, MHD_socket sock,
                       struct MHD_UpgradeResponseHandle *urh)
{
    struct conn_req *r = req_cls;
    struct upgrade_job *job = nd_xcalloc(1, sizeof *job);
    job->h = cls;
    job->fn = r->resp.upgrade;
    job->cls = r->resp.upgrade_cls;
    r->resp.upgrade_cls = NULL; /* the job owns it now */
    job->fd = sock;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    job->tcp_fd = ci ? ci->connect_fd : -1;
    job->extra = nd_xmalloc(extra_in_size + 1);
    if (extra_in_size)
        memcpy(job->extra, extra_in, extra_in_size);
    job->extra_len = extra_in_size;
    job->urh = urh;
    /* MHD expects this callback to return; the session runs on its own thread. */
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    upgrades_add(job->h, +1);
    if (pthread_create(&t, &attr, upgrade_thread, job) != 0) {
        upgrades_add(job->h, -1);
        MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
        free(job->extra);
        free(job);
    }
    pthread_attr_destroy(&attr);
}

static void add_headers(struct MHD_Response *mr, const struct em_resp *resp)
{
    const char *name;
    json_t *val;
    json_object_foreach(resp->headers, name, val) {
        if (json_is_array(val)) {
            size_t i;
            json_t *v;
            json_array_foreach(val, i, v) MHD_add_response_header(mr, name, json_string_value(v));
        } else {
            MHD_add_response_header(mr, name, json_string_value(val));
        }
    }
}

static enum MHD_Result send_response(struct em_http *h, struct MHD_Connection *c,
                                     struct conn_req *r)
{
    struct em_resp *resp = &r->resp;
    struct MHD_Response *mr;
    bool mr_is_stream = !resp->upgrade && resp->stream;
    if (resp->upgrade) {
        mr = MHD_create_response_for_upgrade(on_upgrade, h);
        resp->code = MHD_HTTP_SWITCHING_PROTOCOLS;
    } else if (resp->stream) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        resp->stream->fd = ci ? ci->connect_fd : -1;
        struct em_live *lv = em_live_new(h->loop, resp->stream, c);
        resp->stream = NULL; /* the live stream owns it now, and MHD that */
        mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, em_live_read, lv,
                                               em_live_free);
    } else {
        size_t len = resp->body.len;
        char *data = nd_buf_detach(&resp->body);
        mr = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    }
    if (!mr)
        return MHD_NO;
    add_headers(mr, resp);
    if (!resp->upgrade)
        MHD_add_response_header(mr, "Content-Type",
                                resp->content_type ? resp->content_type : "application/json");
    MHD_add_response_header(mr, "X-Request-Id", r->req.request_id);
    MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
    if (!resp->upgrade && em_guard_class(slot_of(c)) != EM_CONN_ORDINARY &&
        !json_object_get(resp->headers, "Connection"))
        MHD_add_response_header(mr, "Connection", "close"); /* one request, then the slot */
    if (resp->upgrade)
        em_guard_upgraded(h->guard, slot_of(c));
    if (resp->upgrade || mr_is_stream) {
        /* a watch, a followed log or an exec session is not idle while it waits */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
        r->untimed = !resp->upgrade;
    }
    if (!json_object_get(resp->headers, "Cache-Control"))
        MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
    r->code = resp->code;
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)resp->code, mr);
    MHD_destroy_response(mr);
    return ret;
}

/* MHD_OPTION_URI_LOG_CALLBACK: the request line has been read; its target, raw. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct em_http *h = cls;
    em_guard_request_line(h->guard, slot_of(c));
    struct conn_req *r = nd_xcalloc(1, sizeof *r);
    r->req.uri_bytes = uri ? strlen(uri) : 0;
    /* MHD decodes the path into a C string: "job1%00x" would be served as "job1" */
    size_t path_len = uri ? strcspn(uri, "?") : 0;
    for (size_t i = 0; i + 2 < path_len; i++)
        if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
            r->req.path_nul = true;
    return r;
}

static void peer_address(struct em_http *h, struct MHD_Connection *c, struct conn_req *r)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
                  r->remote, sizeof r->remote);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                  r->remote, sizeof r->remote);
    r->req.remote = r->remote;
    struct em_guard_conn *slot = slot_of(c);
    r->req.conn_class = em_guard_class(slot);
    if (r->req.conn_class == EM_CONN_CLIENT_CAP)
        r->req.client_conns = em_guard_client_conns(h->guard, slot);
}

/* Whether a body follows the headers just read. */
static bool body_follows(const struct em_req *req)
{
    const char *cl = em_req_header(req, "content-length");
    return (cl && strtoull(cl, NULL, 10) > 0) || em_req_header(req, "transfer-encoding");
}

/* On a worker: the handler (or the sink's finish) fills the answer; the loop sends it. */
static void run_handler(void *cls)
{
    struct conn_req *r = cls;
    struct em_http *h = r->h;
    if (r->finish)
        r->req.sink->finish(r->req.sink->cls, &r->req, &r->resp);
    else
        h->handler(h->cls, &r->req, &r->resp);
    r->ready = true;
    if (!em_loop_after_pending()) {
        MHD_resume_connection(r->req.conn);
        return;
    }
    /* what the handler set off (a fan-out to the watches) runs once its answer is sent:
     * it would else hold the answer back on the loop's threads */
    bool sent = false;
    struct timespec until;
    nd_time_deadline(&until, AFTER_ANSWER_WAIT_MS);
    pthread_mutex_lock(&h->sent_lock);
    r->sent = &sent;
    MHD_resume_connection(r->req.conn);
    while (!sent && pthread_cond_timedwait(&h->sent_cv, &h->sent_lock, &until) == 0)
        ;
    if (!sent)
        r->sent = NULL; /* r lives until on_completed, which sets sent under the lock */
    pthread_mutex_unlock(&h->sent_lock);
}

/* The request is in (or answered before its body): its answer is made on a worker, or
 * here by the quick hook. */
static enum MHD_Result answer(struct em_http *h, struct MHD_Connection *c, struct conn_req *r,
                              bool finish)
{
    r->handled = true;
    r->finish = finish;
    em_guard_answering(h->guard, slot_of(c));
    /* a read that cannot wait is answered here: a worker and the resume would cost four
     * thread hand-offs for a tenth of a millisecond of work (bench/limits.md) */
    if (!finish && h->quick && h->quick(h->cls, &r->req, &r->resp))
        return send_response(h, c, r);
    return em_loop_dispatch(h->loop, c, run_handler, r) ? MHD_YES : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    struct em_http *h = cls;
    struct conn_req *r = *con_cls;
    if (r && r->ready) { /* resumed: the worker's answer */
        r->ready = false;
        return send_response(h, c, r);
    }
    if (!r || !r->started) {
        if (!r)
            r = nd_xcalloc(1, sizeof *r);
        r->started = true;
        r->h = h;
        peer_address(h, c, r);
        clock_gettime(CLOCK_MONOTONIC, &r->start);
        r->method = nd_xstrdup(method);
        r->path = nd_xstrdup(url);
        r->req.method = r->method;
        r->req.path = r->path;
        r->req.conn = c;
        r->req.headers = json_object();
        r->req.query = json_object();
        nd_buf_init(&r->req.body, EM_MAX_BODY);
        make_request_id(r->req.request_id);
        MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &r->req);
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &r->req);
        em_resp_init(&r->resp);
        *con_cls = r;
        em_guard_headers_in(h->guard, slot_of(c), body_follows(&r->req));
        if (h->begin) {
            enum em_body_plan plan = h->begin(h->cls, &r->req, &r->resp);
            if (plan == EM_BODY_ANSWERED) {
                r->handled = true;
                em_guard_answering(h->guard, slot_of(c));
                return send_response(h, c, r);
            }
            if (plan == EM_BODY_STREAM && r->req.sink) {
                r->streaming = true;
                /* an upload may take long between pieces no more than any request */
                return MHD_YES;
            }
        }
        const char *cl = em_req_header(&r->req, "content-length");
        if (cl && strtoull(cl, NULL, 10) > EM_MAX_BODY) {
            /* Answer now, without reading the body; MHD closes the connection after. */
            r->req.body_too_large = true;
            return answer(h, c, r, false);
        }
        return MHD_YES;
    }
    if (*upload_data_size)
        em_guard_body(slot_of(c), *upload_data_size);
    if (r->streaming) {
        if (*upload_data_size && !r->sink_done &&
            r->req.sink->write(r->req.sink->cls, upload_data, *upload_data_size) < 0)
            r->sink_done = true;
        if (*upload_data_size) {
            *upload_data_size = 0;
            return MHD_YES;
        }
        if (r->handled)
            return MHD_NO;
        return answer(h, c, r, true);
    }
    if (*upload_data_size) {
        if (!r->req.body_too_large && nd_buf_add(&r->req.body, upload_data, *upload_data_size) < 0)
            r->req.body_too_large = true;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (r->handled)
        return MHD_NO;
    return answer(h, c, r, false);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct em_http *h = cls;
    struct conn_req *r = *con_cls;
    em_guard_done(h->guard, slot_of(c));
    if (!r)
        return;
    pthread_mutex_lock(&h->sent_lock);
    if (r->sent) { /* a worker waits for this answer's end */
        *r->sent = true;
        r->sent = NULL;
        pthread_cond_broadcast(&h->sent_cv);
    }
    pthread_mutex_unlock(&h->sent_lock);
    if (r->untimed) /* the stream ended; the connection may idle again */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, h->limits.idle_timeout_s);
    if (h->log_fn && r->handled)
        h->log_fn(h->log_cls, &r->req, r->code, elapsed_ms(&r->start));
    em_resp_release(&r->resp);
    if (r->req.sink) {
        if (r->req.sink->free)
            r->req.sink->free(r->req.sink->cls);
        free(r->req.sink);
    }
    json_decref(r->req.headers);
    json_decref(r->req.query);
    nd_buf_release(&r->req.body);
    free(r->method);
    free(r->path);
    free(r);
    *con_cls = NULL;
}

/* Each connection gets its slot in the guard (guard.h), which classes it: one that is
 * not ordinary (past the ordinary slots, or past its client's cap) serves only health
 * checks and admin tokens (frontdoor.c), and gets a short idle timeout. The slot goes
 * before libmicrohttpd closes the socket. Nagle plus delayed ACK add ~40 ms to every
 * small response; turn Nagle off. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct em_http *h = cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        em_guard_close(h->guard, *socket_context);
        *socket_context = NULL;
        return;
    }
    if (toe != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ai =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    struct em_guard_conn *slot =
        em_guard_open(h->guard, ci ? ci->connect_fd : -1, ai ? ai->client_addr : NULL);
    *socket_context = slot;
    if (em_guard_class(slot) != EM_CONN_ORDINARY) {
        unsigned idle = h->limits.idle_timeout_s;
        unsigned t = idle && idle < OVER_LIMIT_TIMEOUT_S ? idle : OVER_LIMIT_TIMEOUT_S;
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, t);
    }
    if (ci) {
        int one = 1;
        setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
}

/* A connection's socket, a stream's pipe or two, and the exec sessions' ptys and pipes:
 * let the soft limit on open files be the hard one. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* MHD's own limit: past it MHD 0.9.75 accepts a connection and closes it at once,
 * unanswered. Ours is well below, so that a flood of idle connections (each one MHD's
 * pool, reserved but mostly untouched; those past
 * ours closed after 2 s without a request) still leaves room to accept a new client and
 * answer it 503; the file limit decides how far. */
static unsigned hard_connection_limit(unsigned max_conns)
{
    unsigned margin = max_conns > HARD_MARGIN ? max_conns : HARD_MARGIN;
    unsigned long hard = (unsigned long)max_conns + margin;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        /* keep a quarter of the files for streams, exec sessions and the state */
        unsigned long room = (unsigned long)rl.rlim_cur / 4 * 3;
        if (hard > room)
            hard = room;
    }
    if (hard < (unsigned long)max_conns + 16)
        hard = (unsigned long)max_conns + 16;
    return (unsigned)hard;
}

/* MHD's error log (on only with TLS): GnuTLS's verdict on the certificate and key is
 * kept for the start's error message; the rest (MHD's remark that this logger is not
 * its first option, a client's failed handshake later on) is no news. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct em_http *h = cls;
    pthread_mutex_lock(&h->log_lock);
    if (h->start_log && !h->start_log->len && strstr(fmt, "GnuTLS")) {
        nd_buf_vaddf(h->start_log, fmt, ap);
        while (h->start_log->len && h->start_log->data[h->start_log->len - 1] == '\n')
            nd_buf_truncate(h->start_log, h->start_log->len - 1);
    }
    pthread_mutex_unlock(&h->log_lock);
}

/* libmicrohttpd's loop: a few threads with suspended connections; epoll (else poll), not
 * select(): a connection's socket may be past FD_SETSIZE. */
static unsigned loop_flags(void)
{
    unsigned wait = MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES  ? MHD_USE_EPOLL
                    : MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES ? MHD_USE_POLL
                                                                            : 0;
    return MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE |
           MHD_USE_ITC | wait;
}

struct em_http *em_http_start(const char *addr, uint16_t port, const struct em_http_tls *tls,
                              const struct em_http_limits *limits, em_handler_fn handler,
                              void *cls, struct nd_buf *err)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        nd_buf_addf(err, "invalid listen address %s (want an IPv4 address such as 127.0.0.1)",
                    addr);
        return NULL;
    }
    struct em_http *h = nd_xcalloc(1, sizeof *h);
    h->handler = handler;
    h->cls = cls;
    h->limits = limits ? *limits
                       : (struct em_http_limits){.max_connections = 256, .idle_timeout_s = 60};
    if (!h->limits.max_connections)
        h->limits.max_connections = 1;
    unsigned max_conns = h->limits.max_connections;
    pthread_mutex_init(&h->log_lock, NULL);
    pthread_mutex_init(&h->sent_lock, NULL);
    pthread_cond_init(&h->sent_cv, NULL);
    pthread_mutex_init(&h->upgrades_lock, NULL);
    pthread_cond_init(&h->upgrades_done, NULL);
    struct nd_buf tls_log = ND_BUF_INIT;
    h->start_log = &tls_log;
    unsigned flags = loop_flags();
    raise_fd_limit();
    /* TLS 1.2 and 1.3 only; an empty array when plain */
    struct MHD_OptionItem tls_opts[] = {
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, tls ? tls->cert_pem : NULL},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? tls->key_pem : NULL},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"},
        {MHD_OPTION_END, 0, NULL},
    };
    if (tls)
        flags |= MHD_USE_TLS | MHD_USE_ERROR_LOG;
    h->guard = em_guard_new(&(struct em_guard_opts){.max_conns = max_conns,
                                                    .reserve = em_http_reserve(max_conns),
                                                    .per_client = h->limits.per_client,
                                                    .header_ms = h->limits.header_timeout_ms,
                                                    .min_body_rate = h->limits.min_body_rate,
                                                    .body_window_ms = h->limits.body_window_ms},
                            tls != NULL);
    h->loop = em_loop_new();
    h->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &sa,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                                 MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EM_HTTP_MEMORY_LIMIT,
                                 MHD_OPTION_CONNECTION_LIMIT, hard_connection_limit(max_conns),
                                 MHD_OPTION_CONNECTION_TIMEOUT, h->limits.idle_timeout_s,
                                 MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                                 MHD_OPTION_THREAD_POOL_SIZE, EM_HTTP_LOOPS,
                                 MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
                                 MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    pthread_mutex_lock(&h->log_lock);
    h->start_log = NULL;
    pthread_mutex_unlock(&h->log_lock);
    if (h->daemon && (em_guard_start(h->guard) < 0 || em_loop_start(h->loop) < 0)) {
        em_loop_stop(h->loop);
        MHD_stop_daemon(h->daemon);
        h->daemon = NULL;
        errno = EAGAIN;
    }
    if (!h->daemon) {
        em_guard_free(h->guard);
        em_loop_free(h->loop);
        if (tls_log.len) {
            /* "GnuTLS failed to setup x509 certificate/key: <why>." */
            const char *why = strchr(tls_log.data, ':');
            why = why ? why + 1 : tls_log.data;
            while (*why == ' ')
                why++;
            size_t n = strlen(why);
            nd_buf_addf(err,
                        "cannot serve TLS with the certificate of --tls-cert and the key of "
                        "--tls-key: %.*s (GnuTLS)",
                        (int)(n && why[n - 1] == '.' ? n - 1 : n), why);
        } else {
            nd_buf_addf(err, "cannot listen on %s:%u: %s", addr, (unsigned)port,
                        errno ? strerror(errno) : "address in use or not available");
        }
        nd_buf_release(&tls_log);
        pthread_mutex_destroy(&h->log_lock);
        free(h);
        return NULL;
    }
    nd_buf_release(&tls_log);
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : port;
    char *base = nd_xasprintf("%s://%s:%u", tls ? "https" : "http", addr, (unsigned)h->port);
    em_guard_set_base_url(h->guard, base);
    free(base);
    return h;
}

uint16_t em_http_port(const struct em_http *h)
{
    return h->port;
}

void em_http_set_body_hook(struct em_http *h, em_begin_fn fn)
{
    h->begin = fn;
}

void em_http_set_quick(struct em_http *h, em_quick_fn fn)
{
    h->quick = fn;
}

void em_http_set_notice(struct em_http *h, em_notice_fn fn, void *cls)
{
    em_guard_set_notice(h->guard, fn, cls);
}

uint64_t em_http_guard_looked(struct em_http *h)
{
    return em_guard_looked(h ? h->guard : NULL);
}

void em_http_note(struct em_http *h, enum em_refusal kind, const char *remote)
{
    em_guard_note(h ? h->guard : NULL, kind, remote);
}

void em_http_set_access_log(struct em_http *h, em_access_log_fn fn, void *cls)
{
    h->log_fn = fn;
    h->log_cls = cls;
}

void em_http_quiesce(struct em_http *h)
{
    MHD_socket s = MHD_quiesce_daemon(h->daemon);
    if (s != MHD_INVALID_SOCKET)
        close(s);
}

void em_http_stop(struct em_http *h)
{
    if (!h)
        return;
    /* Sessions end when the server stops (exec.c); their threads then close the upgraded
     * connections through the daemon, so it outlives them (bounded: 15 s). */
    struct timespec until;
    nd_time_deadline(&until, 15000);
    pthread_mutex_lock(&h->upgrades_lock);
    while (h->upgrades_running &&
           pthread_cond_timedwait(&h->upgrades_done, &h->upgrades_lock, &until) == 0)
        ;
    bool stuck = h->upgrades_running > 0;
    pthread_mutex_unlock(&h->upgrades_lock);
    if (stuck) {
        /* stopping the daemon under a running session would crash it: leave both to exit */
        fprintf(stderr, "nodus-emulator: an exec session did not end; exiting without "
                        "waiting for it\n");
        return;
    }
    /* every stream ends and every handler returns: nothing is left suspended */
    if (!em_loop_stop(h->loop)) {
        fprintf(stderr, "nodus-emulator: a request's handler did not end; exiting without "
                        "waiting for it\n");
        return;
    }
    MHD_stop_daemon(h->daemon);
    em_loop_free(h->loop);
    em_guard_free(h->guard); /* every connection's slot is gone with the daemon */
    pthread_mutex_destroy(&h->log_lock);
    pthread_mutex_destroy(&h->sent_lock);
    pthread_cond_destroy(&h->sent_cv);
    pthread_mutex_destroy(&h->upgrades_lock);
    pthread_cond_destroy(&h->upgrades_done);
    free(h);
}
