/* http.c: nodus mcp over Streamable HTTP (--listen HOST:PORT): one endpoint, /mcp.
 *
 *   POST    one JSON-RPC message. A notification or a response: 202, no body. A request:
 *           its answer as application/json when it is answered at once (initialize,
 *           tools/list ...), else a text/event-stream carrying the call's notifications
 *           (progress, log lines) and then its answer.
 *   GET     the session's stream of messages that belong to no request (a subscription's
 *           updates).
 *   DELETE  ends the session (its calls are killed).
 * initialize opens a session and answers its id in Mcp-Session-Id; every later request
 * carries it (400 without, 404 for one unknown) and an MCP-Protocol-Version this server
 * serves (400 otherwise).
 *
 * Every request first passes the front door: on loopback a Host that names this machine
 * (DNS rebinding), an Origin that is the server's own (a web page's is refused, 403), the
 * bearer token when one is set (401, compared in constant time), then the path (404), the
 * method (405), and for POST the Content-Type (415), Accept (406) and size (413).
 * Off loopback nodus mcp does not start without a token. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "http.h"
#include "util/header.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* ---- the configuration ---- */

/* HOST:PORT into host (an IPv4 address; "localhost" is 127.0.0.1) and port: 0 or -1. */
static int parse_listen(const char *listen, char *host, size_t cap, unsigned *port)
{
    const char *colon = listen ? strrchr(listen, ':') : NULL;
    if (!colon || colon == listen || (size_t)(colon - listen) >= cap)
        return -1;
    snprintf(host, cap, "%.*s", (int)(colon - listen), listen);
    if (!strcmp(host, "localhost"))
        snprintf(host, cap, "127.0.0.1");
    struct in_addr a;
    if (inet_pton(AF_INET, host, &a) != 1)
        return -1;
    char *end;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || errno || p > 65535)
        return -1;
    *port = (unsigned)p;
    return 0;
}

const char *mcp_http_config_check(const struct mcp_config *cfg, char *buf, size_t cap)
{
    char host[64];
    unsigned port;
    if (parse_listen(cfg->listen, host, sizeof host, &port) < 0) {
        snprintf(buf, cap, "--listen %s: want HOST:PORT with an IPv4 address, such as "
                           "127.0.0.1:8808 (port 0 picks a free one)", cfg->listen);
        return buf;
    }
    const char *tok = cfg->listen_token;
    if (tok && strlen(tok) < MCP_HTTP_MIN_TOKEN) {
        snprintf(buf, cap, "the listen token is %zu characters: use at least %d (e.g. "
                           "NODUS_MCP_TOKEN=$(openssl rand -hex 24))", strlen(tok),
                 MCP_HTTP_MIN_TOKEN);
        return buf;
    }
    if (!nd_http_addr_is_loopback(host) && !tok) {
        snprintf(buf, cap, "--listen %s is not a loopback address: anyone who reaches it "
                           "could drive your account, so it needs a bearer token: set "
                           "NODUS_MCP_TOKEN (or --listen-token TOKEN), or listen on "
                           "127.0.0.1", cfg->listen);
        return buf;
    }
    return NULL;
}

/* ---- answers ---- */

static const char *header(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* Steals body (NULL: none). sid: the Mcp-Session-Id to name, or NULL. */
static enum MHD_Result reply_json(struct MHD_Connection *conn, unsigned code, json_t *body,
                                  const char *sid)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    size_t len = text ? strlen(text) : 0;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, text ? text : (char *)"", text ? MHD_RESPMEM_MUST_FREE
                                                                            : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    if (text)
        MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (sid)
        MHD_add_response_header(r, "Mcp-Session-Id", sid);
    if (code == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"nodus mcp\"");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, POST, DELETE");
    enum MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

/* A refusal: the HTTP code, and a JSON-RPC error (id null) whose data is the Status. */
static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned code, int rpc,
                              const char *reason, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned code, int rpc,
                              const char *reason, const char *fix, const char *fmt, ...)
{
    struct nd_buf msg = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    struct nd_status st = ND_STATUS_INIT;
    nd_status_setc(&st, (int)code, reason, fix, "%s", msg.data);
    json_t *body = json_pack("{s:s, s:n, s:{s:i, s:s, s:{s:o}}}", "jsonrpc", "2.0", "id",
                             "error", "code", rpc, "message", msg.data, "data", "status",
                             nd_status_to_json(&st));
    nd_status_release(&st);
    nd_buf_release(&msg);
    return reply_json(conn, code, body, NULL);
}

#define SERVER_ERROR (-32000) /* JSON-RPC's range for a server's own errors */

/* ---- the front door ---- */

static bool type_is(const char *ct, const char *want)
{
    size_t n = ct ? strcspn(ct, "; \t") : 0;
    return ct && strlen(want) == n && strncasecmp(ct, want, n) == 0;
}

/* Host, Origin and the token: true when it answered (*ret). */
static bool guard_refused(struct mcp_http *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
    const char *host = header(conn, "Host"), *origin = header(conn, "Origin");
    if (h->loopback && !nd_http_host_is_local(host, h->host)) {
        *ret = refuse(conn, 403, SERVER_ERROR, "Forbidden",
                      "connect to http://127.0.0.1:PORT/mcp (the URL this server printed when it started)",
                      "the Host %s is not this machine's: a web page may not reach nodus mcp "
                      "through a name of its own (DNS rebinding)", host);
        return true;
    }
    if (origin && !nd_http_origin_is_own(origin, host, h->host, h->port)) {
        *ret = refuse(conn, 403, SERVER_ERROR, "Forbidden",
                      "use an MCP client (it sends no Origin): a web page may not drive "
                      "this server",
                      "requests from web pages of origin %s are refused", origin);
        return true;
    }
    if (!h->token)
        return false;
    const char *auth = header(conn, "Authorization");
    const char *given = auth && strncasecmp(auth, "Bearer ", 7) == 0 ? auth + 7 : NULL;
    if (given && nd_http_secret_equal(given, strlen(given), h->token, h->token_len))
        return false;
    *ret = refuse(conn, 401, SERVER_ERROR, "Unauthorized",
                  "send Authorization: Bearer TOKEN with the token this server was started with "
                  "(--listen-token or NODUS_MCP_TOKEN)",
                  given ? "the bearer token is not the one nodus mcp was started with"
                        : "a bearer token is required");
    return true;
}

/* The path, the method and a POST's headers: true when it answered (*ret). */
static bool request_refused(struct MHD_Connection *conn, const char *method, const char *url,
                            enum MHD_Result *ret)
{
    if (strcmp(url, MCP_HTTP_PATH) != 0) {
        *ret = refuse(conn, 404, SERVER_ERROR, "NotFound",
                      "use the endpoint this server printed when it started: http://HOST:PORT/mcp",
                      "nothing is served at %s: the MCP endpoint is %s", url, MCP_HTTP_PATH);
        return true;
    }
    if (!strcmp(method, "GET") || !strcmp(method, "DELETE"))
        return false;
    if (strcmp(method, "POST") != 0) {
        *ret = refuse(conn, 405, SERVER_ERROR, "MethodNotAllowed",
                      "send POST (a message), GET (the session's stream) or DELETE (end it)",
                      "%s is not served at %s", method, MCP_HTTP_PATH);
        return true;
    }
    const char *ct = header(conn, "Content-Type"), *accept = header(conn, "Accept");
    const char *cl = header(conn, "Content-Length");
    if (!type_is(ct, "application/json")) {
        *ret = refuse(conn, 415, SERVER_ERROR, "UnsupportedMediaType",
                      "send the message with Content-Type: application/json",
                      "a POST carries one JSON-RPC message as application/json, not %s",
                      ct ? ct : "(no Content-Type)");
    } else if (!nd_http_accepts(accept, "application/json") ||
               !nd_http_accepts(accept, "text/event-stream")) {
        *ret = refuse(conn, 406, SERVER_ERROR, "NotAcceptable",
                      "send Accept: application/json, text/event-stream",
                      "a POST's answer is application/json or text/event-stream, and the "
                      "Accept header (%s) must take both", accept ? accept : "none");
    } else if (cl && strtoull(cl, NULL, 10) > MCP_MAX_MESSAGE) {
        *ret = refuse(conn, 413, MCP_INVALID_REQUEST, "RequestEntityTooLarge",
                      "send a smaller message (a manifest of fewer documents)",
                      "message too large: a message is at most %u bytes", MCP_MAX_MESSAGE);
    } else {
        return false;
    }
    return true;
}

/* The session a request names (Mcp-Session-Id), with a revision this server serves; NULL
 * when it answered (*ret). */
static struct mcp_http_session *session_of(struct mcp_http *h, struct MHD_Connection *conn,
                                           enum MHD_Result *ret)
{
    const char *sid = header(conn, "Mcp-Session-Id");
    const char *rev = header(conn, "MCP-Protocol-Version");
    if (!sid) {
        *ret = refuse(conn, 400, SERVER_ERROR, "BadRequest",
                      "send initialize first, then its Mcp-Session-Id with every request",
                      "the request has no Mcp-Session-Id");
        return NULL;
    }
    struct mcp_http_session *hs = http_session_find(h, sid);
    if (!hs) {
        *ret = refuse(conn, 404, SERVER_ERROR, "NotFound",
                      "start a new session: send initialize without Mcp-Session-Id",
                      "no session %.64s: it ended, or this server was restarted", sid);
        return NULL;
    }
    bool served = !rev;
    for (int i = 0; rev && mcp_revisions[i]; i++)
        served = served || !strcmp(rev, mcp_revisions[i]);
    if (!served) {
        *ret = refuse(conn, 400, SERVER_ERROR, "BadRequest",
                      "send MCP-Protocol-Version: the revision initialize answered",
                      "MCP-Protocol-Version %.40s is not served: this server serves %s, %s "
                      "and %s", rev, mcp_revisions[0], mcp_revisions[1], mcp_revisions[2]);
        return NULL;
    }
    hs->used = nd_time_mono_ms();
    return hs;
}

/* ---- POST, GET, DELETE ---- */

struct http_req {
    struct nd_buf body;
    bool answered;
};

/* Handles m for hs while capturing what it answers; then the answer, its stream, or 202. */
static enum MHD_Result post_to_session(struct mcp_http *h, struct MHD_Connection *conn,
                                       struct mcp_http_session *hs, const struct mcp_message *m)
{
    if (!m->id) {
        mcp_session_message(&hs->sess, m);
        http_sse_settle(hs); /* a notifications/cancelled ends its call's stream */
        return reply_json(conn, MHD_HTTP_ACCEPTED, NULL, NULL);
    }
    struct mcp_http_capture c = {hs, m->id, NULL, json_array()};
    h->capture = &c;
    mcp_session_message(&hs->sess, m);
    h->capture = NULL;
    enum MHD_Result ret;
    if (c.answer && !json_array_size(c.before))
        ret = reply_json(conn, MHD_HTTP_OK, json_incref(c.answer), hs->sess.id);
    else if (c.answer)
        ret = http_sse_answer(conn, c.before, c.answer);
    else if (mcp_job_find(h->srv, &hs->sess, m->id))
        ret = http_sse_open(hs, conn, m->id, c.before);
    else
        ret = reply_json(conn, 500, mcp_error(m->id, MCP_INTERNAL_ERROR, "the request got no "
                                                                          "answer"), NULL);
    json_decref(c.answer);
    json_decref(c.before);
    return ret;
}

static enum MHD_Result post_initialize(struct mcp_http *h, struct MHD_Connection *conn,
                                       const struct mcp_message *m)
{
    if (header(conn, "Mcp-Session-Id") || !m->id)
        return refuse(conn, 400, MCP_INVALID_REQUEST, "BadRequest",
                      "send initialize as a request (with an id) without Mcp-Session-Id",
                      "initialize starts a new session: it is a request and names none");
    if (h->nsessions >= MCP_HTTP_MAX_SESSIONS && !http_sessions_make_room(h))
        return refuse(conn, 503, SERVER_ERROR, "ServiceUnavailable",
                      "end sessions you no longer use (DELETE with their Mcp-Session-Id)",
                      "%u sessions are open and busy (a stream or a call each), the most this "
                      "server keeps", h->nsessions);
    struct mcp_http_session *hs = http_session_new(h);
    json_t *answer = NULL;
    struct mcp_http_capture c = {hs, m->id, NULL, json_array()};
    h->capture = &c;
    mcp_session_message(&hs->sess, m);
    h->capture = NULL;
    answer = c.answer;
    json_decref(c.before);
    if (!hs->sess.initialized) { /* refused (no protocolVersion): no session */
        http_session_end(hs);
        return reply_json(conn, MHD_HTTP_OK, answer, NULL);
    }
    http_session_add(h, hs);
    return reply_json(conn, MHD_HTTP_OK, answer, hs->sess.id);
}

static enum MHD_Result on_post(struct mcp_http *h, struct MHD_Connection *conn,
                               struct http_req *r)
{
    if (r->body.overflow)
        return refuse(conn, 413, MCP_INVALID_REQUEST, "RequestEntityTooLarge",
                      "send a smaller message (a manifest of fewer documents)",
                      "message too large: a message is at most %u bytes", MCP_MAX_MESSAGE);
    struct mcp_message m;
    enum MHD_Result ret;
    if (mcp_message_parse(r->body.data, r->body.len, &m) < 0) {
        ret = reply_json(conn, 400, mcp_error(m.id, m.error, m.why), NULL);
    } else if (m.method && !strcmp(m.method, "initialize")) {
        ret = post_initialize(h, conn, &m);
    } else {
        struct mcp_http_session *hs = session_of(h, conn, &ret);
        if (hs)
            ret = post_to_session(h, conn, hs, &m);
    }
    mcp_message_release(&m);
    return ret;
}

static enum MHD_Result on_get(struct mcp_http *h, struct MHD_Connection *conn)
{
    const char *accept = header(conn, "Accept");
    if (!nd_http_accepts(accept, "text/event-stream"))
        return refuse(conn, 406, SERVER_ERROR, "NotAcceptable",
                      "send Accept: text/event-stream",
                      "GET opens the session's event stream: the Accept header (%s) must take "
                      "text/event-stream", accept ? accept : "none");
    enum MHD_Result ret;
    struct mcp_http_session *hs = session_of(h, conn, &ret);
    return hs ? http_sse_open(hs, conn, NULL, NULL) : ret;
}

static enum MHD_Result on_delete(struct mcp_http *h, struct MHD_Connection *conn)
{
    enum MHD_Result ret;
    struct mcp_http_session *hs = session_of(h, conn, &ret);
    if (!hs)
        return ret;
    http_session_end(hs);
    return reply_json(conn, MHD_HTTP_OK, NULL, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    struct mcp_http *h = cls;
    struct http_req *r = *con_cls;
    enum MHD_Result ret;
    if (!r) {
        r = nd_xcalloc(1, sizeof *r);
        nd_buf_init(&r->body, MCP_MAX_MESSAGE);
        *con_cls = r;
        if (guard_refused(h, conn, &ret) || request_refused(conn, method, url, &ret)) {
            r->answered = true; /* now: a body that may follow is never read */
            return ret;
        }
        return MHD_YES; /* answered once the request is whole (a POST's body read) */
    }
    if (*upload_data_size) {
        if (!r->answered)
            nd_buf_add(&r->body, upload_data, *upload_data_size); /* overflow: 413 */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (r->answered)
        return MHD_YES;
    r->answered = true;
    if (!strcmp(method, "POST"))
        return on_post(h, conn, r);
    return !strcmp(method, "GET") ? on_get(h, conn) : on_delete(h, conn);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    /* a stream's connection that stays open may idle again (http_sse.c turned its
     * timeout off) */
    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, MCP_HTTP_IDLE_TIMEOUT_S);
    struct http_req *r = *con_cls;
    if (!r)
        return;
    nd_buf_release(&r->body);
    free(r);
    *con_cls = NULL;
}

/* The client sockets open, so that a call's child closes its copies of them. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)socket_context;
    struct mcp_http *h = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    int fd = ci->connect_fd;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        if (h->nconn_fds == h->capconn_fds) {
            h->capconn_fds = h->capconn_fds ? 2 * h->capconn_fds : 16;
            h->conn_fds = nd_xrealloc(h->conn_fds, h->capconn_fds * sizeof *h->conn_fds);
        }
        h->conn_fds[h->nconn_fds++] = fd;
        return;
    }
    for (size_t i = 0; i < h->nconn_fds; i++)
        if (h->conn_fds[i] == fd) {
            h->conn_fds[i] = h->conn_fds[--h->nconn_fds];
            break;
        }
}

/* ---- the loop ---- */

static int sig_fd = -1; /* the write end of the transport's signal pipe (one per process) */

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (sig_fd >= 0 && write(sig_fd, "x", 1) < 0) {
        /* the pipe is full: a stop is already pending */
    }
    errno = saved;
}

static void signal_readable(void *cls, int fd, short revents)
{
    (void)revents;
    struct mcp_http *h = cls;
    char buf[16];
    while (read(fd, buf, sizeof buf) > 0)
        ;
    h->srv->stopping = true;
    http_sessions_reap(h, true); /* their calls are killed: the loop ends */
}

static void mhd_readable(void *cls, int fd, short revents)
{
    (void)fd;
    (void)revents;
    struct mcp_http *h = cls;
    MHD_run(h->d);
}

/* In a call's child: the sockets are the parent's alone (a connection it closes must
 * close for its client, not linger in a child). */
static void http_at_fork(void *cls)
{
    struct mcp_http *h = cls;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_LISTEN_FD);
    if (di)
        close(di->listen_fd);
    for (size_t i = 0; i < h->nconn_fds; i++)
        close(h->conn_fds[i]);
    close(h->sig[0]);
    close(h->sig[1]);
}

static int start_daemon(struct mcp_http *h)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)h->port);
    inet_pton(AF_INET, h->host, &sa.sin_addr);
    h->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)h->port, NULL,
                            NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                            MHD_OPTION_CONNECTION_LIMIT, MCP_HTTP_MAX_CONNECTIONS,
                            MHD_OPTION_CONNECTION_TIMEOUT, MCP_HTTP_IDLE_TIMEOUT_S,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                            MHD_OPTION_END);
    if (!h->d)
        return -1;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    if (di)
        h->port = di->port;
    return 0;
}

static void hook_loop(struct mcp_http *h, bool on)
{
    struct mcp_server *srv = h->srv;
    int ep = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_signal : SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!on) {
        mcp_loop_unwatch(srv, ep);
        mcp_loop_unwatch(srv, h->sig[0]);
        srv->timeout_ms = NULL;
        srv->tick = NULL;
        srv->at_fork = NULL;
        sig_fd = -1;
        return;
    }
    sig_fd = h->sig[1];
    mcp_loop_watch(srv, ep, POLLIN, mhd_readable, h);
    mcp_loop_watch(srv, h->sig[0], POLLIN, signal_readable, h);
    srv->timeout_ms = http_timeout;
    srv->tick = http_tick;
    srv->at_fork = http_at_fork;
    srv->tick_cls = h;
}

int mcp_serve_http(struct mcp_server *srv)
{
    struct mcp_http h;
    memset(&h, 0, sizeof h);
    h.srv = srv;
    const struct mcp_config *cfg = srv->cfg;
    if (parse_listen(cfg->listen, h.host, sizeof h.host, &h.port) < 0)
        return -1; /* mcp_http_config_check said why */
    unsigned asked = h.port;
    h.loopback = nd_http_addr_is_loopback(h.host);
    h.token = cfg->listen_token;
    h.token_len = h.token ? strlen(h.token) : 0;
    struct nd_status st = ND_STATUS_INIT;
    if (mcp_mhd_load(&st) < 0) {
        fprintf(stderr, "nodus mcp: %s\nfix: %s\n", st.message, st.fix);
        nd_status_release(&st);
        return -1;
    }
    if (pipe(h.sig) < 0)
        return -1;
    if (start_daemon(&h) < 0) {
        fprintf(stderr, "nodus mcp: cannot listen on %s: %s\n", cfg->listen,
                errno ? strerror(errno) : "address in use or not available");
        close(h.sig[0]);
        close(h.sig[1]);
        return -1;
    }
    fcntl(h.sig[0], F_SETFL, O_NONBLOCK);
    fcntl(h.sig[1], F_SETFL, O_NONBLOCK);
    h.next_keepalive = nd_time_mono_ms() + MCP_HTTP_KEEPALIVE_MS;
    hook_loop(&h, true);
    if (!h.loopback)
        fprintf(stderr, "nodus mcp: warning: listening on %s without TLS: the token and every "
                        "message cross the network in the clear (put it behind a TLS proxy)\n",
                h.host);
    fprintf(stderr, "nodus mcp: serving MCP (Streamable HTTP) at http://%s:%u%s", h.host,
            h.port, MCP_HTTP_PATH);
    if (!asked)
        fprintf(stderr, " (port 0: the system chose %u)", h.port);
    fprintf(stderr, "\n");
    int rc = mcp_loop_run(srv);
    http_sessions_reap(&h, true); /* every stream ends, so no connection stays suspended */
    MHD_run(h.d);
    hook_loop(&h, false);
    MHD_stop_daemon(h.d);
    close(h.sig[0]);
    close(h.sig[1]);
    free(h.conn_fds);
    return rc;
}
