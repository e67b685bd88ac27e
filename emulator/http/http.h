/* http.h: the emulator's HTTP layer over libmicrohttpd.
 *
 * It turns each HTTP request into a struct em_req (method, path, decoded query,
 * lower-cased headers, body capped at 3 MiB, or taken piece by piece by a body sink
 * that the begin hook sets: em_http_set_body_hook), hands it to one handler function, and
 * writes back the struct em_resp the handler filled: a whole body, a stream produced
 * by a blocking callback (watches, followed logs), or a protocol upgrade (exec).
 * Every response carries X-Request-Id and X-Content-Type-Options: nosniff. A few event
 * loop threads serve every connection; a handler runs on a worker thread (it may wait)
 * while its connection is suspended, unless the quick hook answers the request on the
 * loop (em_http_set_quick), and a watch waiting for news is a suspended connection, no
 * thread (loop.h).
 */
#ifndef EM_HTTP_H
#define EM_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "guard.h"
#include "json/json.h"
#include "util/buf.h"

#define EM_MAX_BODY (3u * 1024u * 1024u)
/* What a JSON or YAML body may expand to once parsed (json.h): 4 MiB of values and keys,
 * aliases' copies counted again, and 100,000 values and keys. Every handler that parses
 * a body reads it with nd_json_load_limited or nd_yaml_load_limited and these. */
static const struct nd_load_limits em_body_limits = {4u << 20, 100000};
/* Headers a request may carry; the front door refuses more (431). Past them the HTTP
 * layer only counts: joining 40,000 repeats of one header would cost O(n^2). */
#define EM_MAX_HEADER_BYTES (64u * 1024u) /* every header line together */
#define EM_MAX_ONE_HEADER (32u * 1024u)   /* one header line */
#define EM_MAX_HEADERS 256u               /* header lines */

struct em_body_sink;

struct em_req {
    const char *method;
    const char *path;   /* URL path, percent-decoded, without the query */
    json_t *query;      /* name -> array of decoded values, in the order sent */
    json_t *headers;    /* lower-case name -> value (repeated headers joined by ", ") */
    struct nd_buf body;
    bool body_too_large;
    char request_id[40];
    const char *remote; /* peer address as text */
    void *conn;         /* the MHD connection (for upgrades) */
    /* measured for the front door (frontdoor.h) */
    size_t uri_bytes;     /* the raw request target (path and query) */
    bool path_nul;        /* the raw path (before any "?") holds %00 */
    size_t header_bytes;  /* every header line, "name: value\r\n" */
    size_t header_max;    /* the longest header line */
    size_t header_count;
    size_t query_count;   /* query parameters */
    enum em_conn_class conn_class; /* ordinary, or which limit it came past (guard.h) */
    unsigned client_conns; /* EM_CONN_CLIENT_CAP: its client's connections open */
    struct em_body_sink *sink; /* set by the begin hook: the body streams to it */
    bool body_coming;          /* in the begin hook: the body is still to be read */
    /* set by the quick hook when it filled the answer but its handler must still wait
     * (em_http_set_quick): the router's */
    struct em_req_then {
        bool due, unsettled;
        uint64_t before, ticket;
    } then;
};

/* Connection limits, given to em_http_start (NULL: 256 connections, 60 s idle). A connection
 * that arrives while max_connections are open is still accepted, up to a margin (1024
 * or max_connections more, within the open-file limit), so that its request is answered
 * (503, unless a health check or an admin token: guard.h) instead of being reset; it is
 * closed after 2 s without a whole request. idle_timeout_s (0: none) closes a connection
 * that sends nothing for that long; never a stream or an exec session in progress. The
 * rest is the guard's (guard.h): the header deadline, the body rate, the cap per client
 * address (0: none) and the reserve (em_http_reserve). */
struct em_http_limits {
    unsigned max_connections;
    unsigned idle_timeout_s;
    unsigned per_client;
    unsigned header_timeout_ms;
    uint64_t min_body_rate; /* bytes a second; 0: none */
    unsigned body_window_ms;
};
/* Of max_connections, those kept for health checks and admin tokens: 1/16, at least 1
 * (none when max_connections is 1). */
unsigned em_http_reserve(unsigned max_connections);

/* A streamed body: read() blocks until it has bytes (returns their count), the stream
 * ended (returns 0) or failed (-1). free() is called once when the connection is done.
 * A blocking stream is read by a thread of its own (loop.h). A non-blocking one (its
 * maker sets `nonblocking`: a watch) is read on the event loop and never waits: when it
 * has nothing it returns EM_STREAM_AGAIN, having arranged that em_stream_wake(s) is
 * called when it may have (and set wake_at_ms, real ms, for a deadline of its own; 0:
 * none); it then costs no thread until woken. */
struct em_live;
struct em_stream {
    ssize_t (*read)(void *cls, char *buf, size_t max);
    void (*free)(void *cls);
    void *cls;
    int fd; /* the client's socket, filled by the HTTP layer for disconnect checks; -1 */
    bool nonblocking;
    int64_t wake_at_ms;
    bool gone;            /* set (atomically) by the HTTP layer: the client went away */
    struct em_live *live; /* the HTTP layer's */
};
#define EM_STREAM_AGAIN (-2)
/* Any thread: the stream s may have bytes now; its read is called again soon. */
void em_stream_wake(struct em_stream *s);
/* The same for n streams (NULL ones skipped), taking the loop's lock once. */
void em_stream_wake_many(struct em_stream *const *s, size_t n);
/* em_stream_wake_many in two steps: mark (the streams must live: their owner's lock
 * held) fills resume with the connections to resume (n at most) and returns how many;
 * em_stream_wake_resume resumes them, with no lock held (one suspended waits for this
 * and is neither read nor freed meanwhile). */
size_t em_stream_wake_mark(struct em_stream *const *s, size_t n, void **resume);
void em_stream_wake_resume(void *const *resume, size_t k);
/* In a request's handler (on its worker): fn(cls) runs once the handler has returned and
 * its answer is on its way (the connection resumed), on the same thread; the same fn and
 * cls asked twice run once. False outside a handler (or past 4 of them): the caller runs
 * fn itself. A writer's answer so never waits for what its change sets off (loop.h). */
bool em_http_after_answer(void (*fn)(void *cls), void *cls);

struct em_resp;
/* Makes resp a 200 stream of content_type whose body read() writes (free(cls) runs once
 * when it ends); returns the stream (its fd is the HTTP layer's to fill). */
struct em_stream *em_resp_stream(struct em_resp *resp, const char *content_type,
                                 ssize_t (*read)(void *cls, char *buf, size_t max),
                                 void (*free_fn)(void *cls), void *cls);

/* The client of stream s (NULL: none) closed its end or its socket failed: a peek at the
 * socket, without waiting. False while the socket is not known (fd -1). */
bool em_stream_gone(const struct em_stream *s);

/* Called on the raw socket after a 101 Switching Protocols; owns the socket until it
 * returns. `extra` holds bytes the client sent after its request. */
typedef void (*em_upgrade_fn)(void *cls, int fd, const char *extra, size_t extra_len);

struct em_resp {
    int code;
    struct nd_buf body;
    char *content_type;   /* default application/json */
    json_t *headers;      /* name -> string, or array of strings for repeated headers */
    struct em_stream *stream;
    em_upgrade_fn upgrade;
    void *upgrade_cls;
    void (*upgrade_free)(void *cls); /* called if the upgrade never happens */
};

typedef void (*em_handler_fn)(void *cls, struct em_req *req, struct em_resp *resp);

struct em_http;

/* TLS (tls.h loads it): a certificate (chain) and its private key, PEM. */
struct em_http_tls {
    char *cert_pem, *key_pem;
};

/* Starts serving on addr:port (port 0 picks a free one) with one handler, over TLS 1.2
 * or 1.3 when tls is not NULL (upgrades included). Returns NULL and fills err (a short
 * message) on failure. */
struct em_http *em_http_start(const char *addr, uint16_t port, const struct em_http_tls *tls,
                              const struct em_http_limits *limits, em_handler_fn handler,
                              void *cls, struct nd_buf *err);
uint16_t em_http_port(const struct em_http *h);
/* The connections the guard's watchdog has looked at (0 without h): it times those
 * waiting for a request's bytes, not the watches and answers in flight. */
uint64_t em_http_guard_looked(struct em_http *h);
/* Stops accepting new connections (existing ones finish). */
void em_http_quiesce(struct em_http *h);
void em_http_stop(struct em_http *h);

/* Request helpers. Values are borrowed from the request. */
const char *em_req_query(const struct em_req *req, const char *name); /* last value or NULL */
const char *em_req_header(const struct em_req *req, const char *lname);
/* The client's TCP socket, to peek at (over TLS MHD reads it: never read or write it);
 * -1 if unknown. Open until the request (or its upgrade) is over. */
int em_req_socket(const struct em_req *req);

/* How a request is filled from what libmicrohttpd decoded (exposed for the fuzz target
 * tests/fuzz/fuzz_router.c): a query argument appended to its name's array (a name that
 * is not UTF-8 is left out, a value that is not becomes ""), a header lower-cased and
 * joined to an earlier one with ", ". */
void em_http_query_add(json_t *query, const char *key, const char *value);
void em_http_header_add(json_t *headers, const char *key, const char *value);

/* Response helpers. */
void em_resp_init(struct em_resp *resp);
void em_resp_release(struct em_resp *resp);
void em_resp_set_header(struct em_resp *resp, const char *name, const char *value);
void em_resp_add_header(struct em_resp *resp, const char *name, const char *value);
void em_resp_set_type(struct em_resp *resp, const char *content_type);
/* Body = compact JSON of v (not stolen). */
void em_resp_json(struct em_resp *resp, int code, const json_t *v);
void em_resp_text(struct em_resp *resp, int code, const char *content_type, const char *text);

/* A request body taken as it arrives instead of being held (an upload of any size).
 * The begin hook runs once a request's headers are in, before any byte of its body is
 * read (a client that sent Expect: 100-continue has not sent it yet). It answers
 *   EM_BODY_HOLD      the request is served as usual (body held, at most 3 MiB);
 *   EM_BODY_ANSWERED  resp is the answer: sent now, the body is never read (the
 *                     connection closes after it: a client still sending sees it
 *                     closed, and should read the answer first);
 *   EM_BODY_STREAM    req->sink (set by the hook, NEW) takes the body: write() gets each
 *                     piece in order (a -1 takes no more: the rest is read and dropped,
 *                     since HTTP/1.1 allows no answer before), finish() fills resp once
 *                     the whole body is in, free() runs once when the request is over,
 *                     finished or not (a client gone midway). The handler is not called.
 * The sink runs on the connection's thread, without any lock of the caller's. */
struct em_body_sink {
    int (*write)(void *cls, const char *data, size_t len);
    void (*finish)(void *cls, struct em_req *req, struct em_resp *resp);
    void (*free)(void *cls);
    void *cls;
};
enum em_body_plan { EM_BODY_HOLD, EM_BODY_ANSWERED, EM_BODY_STREAM };
typedef enum em_body_plan (*em_begin_fn)(void *cls, struct em_req *req, struct em_resp *resp);
/* Set before requests arrive; cls is the handler's. */
void em_http_set_body_hook(struct em_http *h, em_begin_fn fn);

/* The quick hook: on the loop's thread, for a whole request that a worker would else
 * serve. It answers what cannot wait (no lock waited for, no disk, bounded work: a read
 * served from memory) and returns true: resp is sent at once, no worker, no suspend and
 * resume. Else it returns false having done nothing, or having filled resp and left a
 * note in req->then, and the handler runs on a worker as usual. cls is the handler's. */
typedef bool (*em_quick_fn)(void *cls, struct em_req *req, struct em_resp *resp);
void em_http_set_quick(struct em_http *h, em_quick_fn fn);

/* The emulator's own log lines of the HTTP layer (slow-client episodes: guard.h). */
void em_http_set_notice(struct em_http *h, em_notice_fn fn, void *cls);
/* Counts a refusal of the front door's for the episode log (guard.h). */
void em_http_note(struct em_http *h, enum em_refusal kind, const char *remote);

/* Callback for request logging: one line per request when it ends. */
typedef void (*em_access_log_fn)(void *cls, const struct em_req *req, int code, double ms);
void em_http_set_access_log(struct em_http *h, em_access_log_fn fn, void *cls);

#endif
