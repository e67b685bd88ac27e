/* http.h: the Streamable HTTP transport of nodus mcp, shared by http.c (the daemon, the
 * checks every request passes, POST, GET and DELETE) and http_sse.c (sessions and the
 * event streams their messages go out on).
 *
 * libmicrohttpd runs inside the server's loop (loop.c), with no thread of its own: its
 * epoll fd is one watch, its timeout the loop's timer, so a call's fork copies no thread.
 * A response that waits (a tools/call's stream, a session's GET stream) is a callback
 * whose connection is suspended while it has nothing to send and resumed when a message
 * for it arrives.
 */
#ifndef ND_MCP_HTTP_H
#define ND_MCP_HTTP_H

#include <stdint.h>

#include "mcp.h"
#include "mhd.h"

#define MCP_HTTP_PATH "/mcp"
#define MCP_HTTP_MAX_CONNECTIONS 64u /* open at once: past it MHD refuses */
#define MCP_HTTP_MAX_SESSIONS 32u    /* past it initialize ends the least recently used
                                        idle one, or answers 503 */
#define MCP_HTTP_IDLE_TIMEOUT_S 60u  /* a connection that sends nothing (not a stream) */
#define MCP_HTTP_SESSION_IDLE_S 3600 /* a session with no request, stream or call ends */
#define MCP_HTTP_KEEPALIVE_MS 15000  /* a comment on each stream: finds clients gone */
#define MCP_HTTP_MAX_BACKLOG (1u << 20) /* a session's messages waiting for its GET stream */
#define MCP_HTTP_MAX_PENDING (8u << 20) /* bytes a stream's client has not read yet */
#define MCP_HTTP_MIN_TOKEN 16        /* --listen-token's length, at least */

struct mcp_sse;
struct mcp_http_session;

/* A request answered while it is handled (initialize, tools/list ...): what was sent. */
struct mcp_http_capture {
    struct mcp_http_session *hs;
    const json_t *id;
    json_t *answer; /* the response to id, or NULL */
    json_t *before; /* array: notifications sent before it */
};

struct mcp_http {
    struct mcp_server *srv;
    struct MHD_Daemon *d;
    char host[64];  /* the address listened on */
    unsigned port;
    bool loopback;
    const char *token; /* NULL: none asked */
    size_t token_len;
    struct mcp_http_session *sessions;
    unsigned nsessions;
    struct mcp_http_capture *capture; /* the request being handled, or NULL */
    bool kick;                        /* a connection was resumed: run MHD now */
    int64_t next_keepalive;           /* nd_time_mono_ms */
    int *conn_fds;                    /* the client sockets open (closed in a call's child) */
    size_t nconn_fds, capconn_fds;
    int sig[2];                       /* SIGINT and SIGTERM, written by their handler */
};

struct mcp_http_session {
    struct mcp_session sess;
    struct mcp_http *h;
    struct mcp_sse *get;     /* its GET stream, or NULL */
    struct mcp_sse *posts;   /* POST streams waiting on their calls */
    struct nd_buf backlog;   /* messages for the GET stream while none is open */
    int64_t used;            /* nd_time_mono_ms of its last request */
    struct mcp_http_session *next;
};

/* ---- sessions (http_sse.c) ---- */

/* A new session (not yet in the table: http_session_add) with a fresh id. */
struct mcp_http_session *http_session_new(struct mcp_http *h);
void http_session_add(struct mcp_http *h, struct mcp_http_session *hs);
struct mcp_http_session *http_session_find(struct mcp_http *h, const char *id);
/* Ends a session: its calls are killed, its streams end, it leaves the table and is freed. */
void http_session_end(struct mcp_http_session *hs);
/* Ends the sessions idle past MCP_HTTP_SESSION_IDLE_S (all of them when all). */
void http_sessions_reap(struct mcp_http *h, bool all);
/* Ends the least recently used session with no stream and no call: false when none is. */
bool http_sessions_make_room(struct mcp_http *h);

/* ---- streams (http_sse.c) ---- */

/* A text/event-stream response for hs: for the request id (NULL: the session's GET
 * stream, which takes the backlog). Queued on conn, 200; MHD_NO when it could not be. */
enum MHD_Result http_sse_open(struct mcp_http_session *hs, struct MHD_Connection *conn,
                              const json_t *id, json_t *before);
/* A whole answer as a stream that ends after it (notifications came before it). */
enum MHD_Result http_sse_answer(struct MHD_Connection *conn, json_t *before, json_t *answer);
/* Ends the POST streams of hs whose call is gone without an answer (cancelled). */
void http_sse_settle(struct mcp_http_session *hs);

/* The loop's timer (srv->timeout_ms and srv->tick, cls the transport): runs MHD for its
 * timeouts and resumed connections, and every MCP_HTTP_KEEPALIVE_MS writes a comment on
 * every stream (finds the clients gone) and ends the sessions idle too long. */
int http_timeout(void *cls);
void http_tick(void *cls);

#endif
