/* client.h: the REST client of the nodus CLI.
 *
 * One client talks to one server over one kept-alive connection. Plain http:// servers
 * (the emulator) are served by a small built-in HTTP/1.1 transport over a socket;
 * https:// servers by libcurl, loaded only when first needed (dlopen), with the TLS
 * options below. Loading libcurl and its thirty dependent libraries costs ~25 ms per
 * process on the target machine, which alone would break the CLI's start-up budget
 * (docs/benchmarks.md); the plain transport keeps `nodus get` against a local emulator
 * in the single-digit milliseconds.
 *
 * Retries: a refused or reset connection, 429 and 503 are retried with exponential
 * backoff and full jitter (a uniform wait in [0, min(4 s, 100 ms * 2^n)]), or after
 * exactly Retry-After seconds when the answer gives them. With a request timeout, as
 * many attempts as fit before the deadline (a wait that would pass it is not started:
 * the last answer or error is returned); without one, at most 5 attempts and a
 * Retry-After of at most 60 s. Nothing else is retried (DNS failures, TLS errors,
 * timeouts, other codes), nor a request marked no_retry, nor a stream whose lines
 * already reached the caller, nor a non-idempotent request (POST, PATCH without an
 * Idempotency-Key) whose answer had begun, nor a request whose streamed body
 * (body_read) had begun. A request with an Idempotency-Key sends
 * the same key on every retry. A kept-alive connection found closed by the server is
 * replaced transparently (that is not an attempt).
 *
 * Headers sent: Host, User-Agent, Accept, Authorization: Bearer (with a token),
 * Content-Type and Content-Length (with a body; POST, PUT and PATCH always carry a
 * Content-Length; a streamed body goes chunked after Expect: 100-continue instead),
 * Idempotency-Key, then the request's own lines. No Accept-Encoding:
 * answers are never compressed.
 *
 * Errors of the client itself: "Unreachable" (refused: `The connection to the server
 * HOST:PORT was refused - did you specify the right host or port?`; DNS: `Unable to
 * connect to the server: dial tcp: lookup HOST: no such host`; TLS; a connection the
 * server dropped; libcurl missing for https://), "Timeout" (`the server did not answer
 * within 2s (--request-timeout)`), "InternalError" (`malformed answer from the server:
 * ...`: a bad status line, header, chunk size or JSON body), each with a fix line.
 *
 * Logging (util/log.h levels): 6 each request with status and latency, 7 headers (the
 * Authorization header masked), 8 bodies (cut at 10 KiB), 9 a curl command line that
 * replays the request.
 */
#ifndef ND_CLIENT_H
#define ND_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/status.h"

/* The strings are copied: opts need not outlive nd_client_new. */
struct nd_client_opts {
    /* base URL: http:// or https://, a host (name, IPv4 or [IPv6]), an optional :port
     * (default 80 / 443) and an optional path prefix put before every request path */
    const char *server;
    const char *token;      /* bearer token, or NULL */
    const char *ca_file;    /* PEM bundle to trust (https), or NULL */
    const char *ca_data;    /* PEM text to trust (already base64-decoded), or NULL */
    bool insecure;          /* skip TLS verification */
    const char *cert_file;  /* client certificate (PEM), or NULL */
    const char *key_file;   /* client key (PEM), or NULL */
    const char *cert_data;  /* client certificate PEM text, or NULL */
    const char *key_data;   /* client key PEM text, or NULL */
    int64_t timeout_ms;     /* whole-request deadline including retries; 0: none */
    const char *user_agent; /* default "nodus/<version>" */
    /* What the client reads from a server it cannot trust to be sane. The largest
     * answer body (a list, an object) in bytes, 0: ND_CLIENT_MAX_RESPONSE; a streamed
     * line (a watch event, a log line) may be a sixteenth of it and a header block a
     * 256th (16 MiB and 1 MiB by default). Past any of them the request fails with an
     * InternalError naming the limit and --max-response-bytes. */
    int64_t max_response_bytes;
    /* The longest wait for a byte of an answer, in ms (0: ND_CLIENT_IDLE_TIMEOUT_MS,
     * negative: none); past it the request fails with "Timeout" ("the server sent
     * nothing for 5m0s"), unless the request has .idled (a watch or a follow, which
     * resume). */
    int64_t idle_timeout_ms;
};

#define ND_CLIENT_MAX_RESPONSE    (256LL << 20)
#define ND_CLIENT_IDLE_TIMEOUT_MS (5 * 60 * 1000LL)

struct nd_response;

struct nd_request {
    const char *method;          /* "GET" ... */
    const char *path;            /* path and query, already encoded: /apis/...?limit=500 */
    const char *accept;          /* NULL: application/json */
    const char *content_type;    /* for a body; NULL: application/json */
    const char *body;            /* may be NULL */
    size_t body_len;
    const char *idempotency_key; /* sent as Idempotency-Key (same on every retry), or NULL */
    const char *const *headers;  /* extra "Name: value" lines, NULL-terminated, or NULL */
    bool no_retry;               /* do not retry (streams resumed by their caller) */
    /* A body produced while it is sent (an upload of any size), instead of body: read
     * fills buf with up to max bytes and returns their count, 0 at the end, or -1 with
     * st to abort (the request then fails with that st). It goes chunked
     * (Transfer-Encoding: chunked) after Expect: 100-continue, so a server that refuses
     * at once (401, 404, 413 ...) is answered before read is first called; an answer
     * that comes while the body is still going out (the server may close the
     * connection after it) is read and returned, never taken for a dropped
     * connection. A request whose body_read was called is never sent again. */
    ssize_t (*body_read)(void *cls, char *buf, size_t max, struct nd_status *st);
    void *body_cls;
    /* nd_client_stream_bytes: called with the response's status and headers before its
     * first byte (2xx answers only), or NULL. */
    void (*on_head)(void *cls, const struct nd_response *resp);
    /* A stream that resumes by itself (a watch, a followed log): when the answer's head
     * came and then nothing for the idle timeout, the stream ends as if the server had
     * ended it (the call returns 0) and *idled is set, so the caller watches again from
     * where it was; a server that never answers still fails with "Timeout". NULL: the
     * idle timeout is an error. */
    bool *idled;
};

struct nd_response {
    int code;
    struct nd_buf body;
    json_t *headers; /* lower-case name -> value (repeated headers joined by ", ") */
};

struct nd_client;

/* NEW client; NULL with st (Usage, naming the URL) for a bad server URL. Connects
 * lazily (nothing is resolved or loaded here). A client serves one thread at a time. */
struct nd_client *nd_client_new(const struct nd_client_opts *opts, struct nd_status *st);
void nd_client_free(struct nd_client *c);

void nd_response_init(struct nd_response *r);
void nd_response_release(struct nd_response *r);
/* A response header (lower-case name), or NULL. BORROWED. */
const char *nd_response_header(const struct nd_response *r, const char *lname);
/* Fills st from a (non-2xx) answer: its Status body parsed (nd_status_parse), and
 * st->request_id from X-Request-Id when the body has none. */
void nd_response_status(const struct nd_response *r, struct nd_status *st);

/* Sends a request and reads the whole answer, retrying as described above. Returns 0
 * when an HTTP answer arrived (whatever its code: the caller decides), -1 with st when
 * none did: reason "Unreachable" (connection refused, DNS, TLS handshake), "Timeout"
 * (the deadline passed). The response's Warning headers are the caller's to print. */
int nd_client_do(struct nd_client *c, const struct nd_request *req, struct nd_response *resp,
                 struct nd_status *st);

/* The common case: a JSON request (body may be NULL; sent compact, as
 * application/json) whose 2xx answer is JSON. out may be NULL when the caller does
 * not want the answer; else *out is the parsed answer (NEW), or NULL for an empty
 * body. A non-2xx answer becomes st (nd_response_status: its Status parsed, never
 * dropped) and -1; a 2xx body that is not JSON is an InternalError. */
int nd_client_json(struct nd_client *c, const char *method, const char *path,
                   const json_t *body, json_t **out, struct nd_status *st);
/* The same for a full request (idempotency key, extra headers, another content type,
 * no_retry); req->body and req->body_len are ignored: body is sent. */
int nd_client_json_req(struct nd_client *c, const struct nd_request *req, const json_t *body,
                       json_t **out, struct nd_status *st);

/* Streams a response line by line (watches, followed logs): fn gets each line without
 * its newline ('\n'; a '\r' before it is kept), and a last line without one when the
 * answer ends; a non-zero return ends the stream early (the connection is dropped).
 * The answer is read as it arrives and never held whole. Reads wait at most the
 * client's idle timeout for a byte (see nd_request.idled). *code (may be NULL) is the
 * HTTP status, 0 when no answer came; a non-2xx answer is read whole into st
 * (nd_response_status; its first 4 MiB) and -1 returned. 0 when the server ended the
 * stream (or fn stopped it); -1 with st on a transport error or timeout (a line longer
 * than the line limit, 16 MiB by default, is an InternalError naming
 * --max-response-bytes). */
typedef int (*nd_line_fn)(void *cls, const char *line, size_t len);
int nd_client_stream(struct nd_client *c, const struct nd_request *req, nd_line_fn fn, void *cls,
                     int *code, struct nd_status *st);

/* Streams a response's body as it arrives (a log): fn gets each piece in order, chunk
 * framing removed, lines not reassembled (a last line without a newline stays so); a
 * non-zero return ends the stream early. *code, errors and the return value as for
 * nd_client_stream. */
typedef int (*nd_bytes_fn)(void *cls, const char *data, size_t len);
int nd_client_stream_bytes(struct nd_client *c, const struct nd_request *req, nd_bytes_fn fn,
                           void *cls, int *code, struct nd_status *st);

/* The largest answer body the client holds (max_response_bytes), for a caller that
 * gathers several answers (a list's pages) and must bound their sum as well. */
size_t nd_client_max_response(const struct nd_client *c);
/* Fills st with the client's error for what (`the list (all its pages)`) passing that
 * size: an InternalError naming --max-response-bytes. Returns -1. */
int nd_client_too_large(const char *what, const struct nd_client *c, struct nd_status *st);

/* The server's clock now, in milliseconds since the epoch: what every age and duration
 * the CLI prints is measured against, so an emulator whose clock was advanced, or a
 * cluster whose clock differs from this host's, reads the same in every verb. It is the
 * local wall clock moved by the offset of the latest answer's Date header (RFC 9110)
 * from the local clock when that answer's head arrived; the local clock until an answer
 * with a Date came. Date has whole seconds: the offset is up to a second short. */
int64_t nd_client_server_now_ms(const struct nd_client *c);

/* The base URL the client was made with (for messages). BORROWED. */
const char *nd_client_server(const struct nd_client *c);

#endif
