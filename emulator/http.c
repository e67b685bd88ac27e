/* The emulator's HTTP layer: libmicrohttpd in thread-per-connection mode. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/id.h"
#include "util/xmalloc.h"

struct em_http {
    struct MHD_Daemon *daemon;
    em_handler_fn handler;
    void *cls;
    em_access_log_fn log_fn;
    void *log_cls;
    uint16_t port;
};

/* Per-request state kept in MHD's con_cls. */
struct conn_req {
    struct em_req req;
    struct em_resp resp;
    char *method;
    char *path;
    int code;
    struct timespec start;
    bool handled;
};

static void make_request_id(char out[40])
{
    char ulid[27];
    nd_ulid_new(ulid);
    snprintf(out, 40, "req_%s", ulid);
}

static double elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

void em_http_header_add(json_t *headers, const char *key, const char *value)
{
    char *lkey = nd_xstrdup(key);
    for (char *p = lkey; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    const char *old = json_string_value(json_object_get(headers, lkey));
    if (old) {
        char *joined = nd_xasprintf("%s, %s", old, value ? value : "");
        json_object_set_new(headers, lkey, json_string(joined));
        free(joined);
    } else {
        json_object_set_new(headers, lkey, json_string(value ? value : ""));
    }
    free(lkey);
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    em_http_header_add(cls, key, value);
    return MHD_YES;
}

void em_http_query_add(json_t *query, const char *key, const char *value)
{
    json_t *vals = json_object_get(query, key);
    /* A name that is not UTF-8 cannot be a key (jansson refuses it and frees vals), and
     * no handler knows one: leave the argument out. */
    if (!vals && json_object_set_new(query, key, vals = json_array()) < 0)
        return;
    /* A value that is not UTF-8 cannot be held by jansson; keep it empty, handlers
     * validate every value they use. */
    json_t *s = json_string(value ? value : "");
    json_array_append_new(vals, s ? s : json_string(""));
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    em_http_query_add(cls, key, value);
    return MHD_YES;
}

void em_resp_init(struct em_resp *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->code = 200;
    nd_buf_init(&resp->body, 0);
    resp->headers = json_object();
}

void em_resp_release(struct em_resp *resp)
{
    nd_buf_release(&resp->body);
    free(resp->content_type);
    json_decref(resp->headers);
    if (resp->stream) {
        if (resp->stream->free)
            resp->stream->free(resp->stream->cls);
        free(resp->stream);
    }
    if (resp->upgrade_free && resp->upgrade_cls)
        resp->upgrade_free(resp->upgrade_cls);
    memset(resp, 0, sizeof *resp);
}

void em_resp_set_header(struct em_resp *resp, const char *name, const char *value)
{
    json_object_set_new(resp->headers, name, json_string(value));
}

void em_resp_add_header(struct em_resp *resp, const char *name, const char *value)
{
    json_t *old = json_object_get(resp->headers, name);
    if (!old) {
        em_resp_set_header(resp, name, value);
        return;
    }
    if (json_is_string(old)) {
        json_t *arr = json_array();
        json_array_append(arr, old);
        json_object_set_new(resp->headers, name, arr);
        old = arr;
    }
    json_array_append_new(old, json_string(value));
}

void em_resp_set_type(struct em_resp *resp, const char *content_type)
{
    free(resp->content_type);
    resp->content_type = nd_xstrdup(content_type);
}

void em_resp_json(struct em_resp *resp, int code, const json_t *v)
{
    resp->code = code;
    nd_buf_reset(&resp->body);
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s) {
        nd_buf_adds(&resp->body, s);
        free(s);
    }
    nd_buf_addch(&resp->body, '\n');
    em_resp_set_type(resp, "application/json");
}

void em_resp_text(struct em_resp *resp, int code, const char *content_type, const char *text)
{
    resp->code = code;
    nd_buf_reset(&resp->body);
    nd_buf_adds(&resp->body, text);
    em_resp_set_type(resp, content_type);
}

const char *em_req_query(const struct em_req *req, const char *name)
{
    json_t *vals = json_object_get(req->query, name);
    size_t n = json_array_size(vals);
    return n ? json_string_value(json_array_get(vals, n - 1)) : NULL;
}

const char *em_req_header(const struct em_req *req, const char *lname)
{
    return json_string_value(json_object_get(req->headers, lname));
}

/* Streams: MHD asks for bytes when the socket can take them; the stream blocks. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct em_stream *s = cls;
    ssize_t n = s->read(s->cls, buf, max);
    if (n == 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void stream_free(void *cls)
{
    struct em_stream *s = cls;
    if (s->free)
        s->free(s->cls);
    free(s);
}

struct upgrade_job {
    em_upgrade_fn fn;
    void *cls;
    int fd;
    char *extra;
    size_t extra_len;
    struct MHD_UpgradeResponseHandle *urh;
};

static void *upgrade_thread(void *arg)
{
    struct upgrade_job *job = arg;
    job->fn(job->cls, job->fd, job->extra, job->extra_len);
    MHD_upgrade_action(job->urh, MHD_UPGRADE_ACTION_CLOSE);
    free(job->extra);
    free(job);
    return NULL;
}

static void on_upgrade(void *cls, struct MHD_Connection *connection, void *req_cls,
                       const char *extra_in, size_t extra_in_size, MHD_socket sock,
                       struct MHD_UpgradeResponseHandle *urh)
{
    (void)connection;
    struct conn_req *r = req_cls;
    (void)cls;
    struct upgrade_job *job = nd_xcalloc(1, sizeof *job);
    job->fn = r->resp.upgrade;
    job->cls = r->resp.upgrade_cls;
    r->resp.upgrade_cls = NULL; /* the job owns it now */
    job->fd = sock;
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
    if (pthread_create(&t, &attr, upgrade_thread, job) != 0) {
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

static enum MHD_Result send_response(struct MHD_Connection *c, struct conn_req *r)
{
    struct em_resp *resp = &r->resp;
    struct MHD_Response *mr;
    if (resp->upgrade) {
        mr = MHD_create_response_for_upgrade(on_upgrade, NULL);
        resp->code = MHD_HTTP_SWITCHING_PROTOCOLS;
    } else if (resp->stream) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        resp->stream->fd = ci ? ci->connect_fd : -1;
        mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read,
                                               resp->stream, stream_free);
        resp->stream = NULL; /* MHD owns it now */
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
    if (!json_object_get(resp->headers, "Cache-Control"))
        MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
    r->code = resp->code;
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)resp->code, mr);
    MHD_destroy_response(mr);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    struct em_http *h = cls;
    struct conn_req *r = *con_cls;
    if (!r) {
        r = nd_xcalloc(1, sizeof *r);
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
        MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, r->req.headers);
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, r->req.query);
        em_resp_init(&r->resp);
        *con_cls = r;
        const char *cl = em_req_header(&r->req, "content-length");
        if (cl && strtoull(cl, NULL, 10) > EM_MAX_BODY) {
            /* Answer now, without reading the body; MHD closes the connection after. */
            r->req.body_too_large = true;
            r->handled = true;
            h->handler(h->cls, &r->req, &r->resp);
            return send_response(c, r);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!r->req.body_too_large && nd_buf_add(&r->req.body, upload_data, *upload_data_size) < 0)
            r->req.body_too_large = true;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (r->handled)
        return MHD_NO;
    r->handled = true;
    h->handler(h->cls, &r->req, &r->resp);
    return send_response(c, r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    (void)toe;
    struct em_http *h = cls;
    struct conn_req *r = *con_cls;
    if (!r)
        return;
    if (h->log_fn && r->handled)
        h->log_fn(h->log_cls, &r->req, r->code, elapsed_ms(&r->start));
    em_resp_release(&r->resp);
    json_decref(r->req.headers);
    json_decref(r->req.query);
    nd_buf_release(&r->req.body);
    free(r->method);
    free(r->path);
    free(r);
    *con_cls = NULL;
}

/* Nagle plus delayed ACK add ~40 ms to every small response; turn Nagle off. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    (void)socket_context;
    if (toe != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci) {
        int one = 1;
        setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
}

struct em_http *em_http_start(const char *addr, uint16_t port, em_handler_fn handler, void *cls,
                              struct nd_buf *err)
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
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_ALLOW_UPGRADE | MHD_USE_ITC;
    h->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &sa,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                                 MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
    if (!h->daemon) {
        nd_buf_addf(err, "cannot listen on %s:%u: %s", addr, (unsigned)port,
                    errno ? strerror(errno) : "address in use or not available");
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : port;
    return h;
}

uint16_t em_http_port(const struct em_http *h)
{
    return h->port;
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
    MHD_stop_daemon(h->daemon);
    free(h);
}
