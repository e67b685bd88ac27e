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
 * Retries: connection errors, 429 and 503 are retried with exponential backoff and
 * full jitter, honouring Retry-After, bounded by the request timeout (or 5 attempts when
 * there is none); nothing else is retried. A request with an Idempotency-Key sends the
 * same key on every retry.
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

struct nd_client_opts {
    const char *server;     /* base URL: http://host:port or https://host:port[/prefix] */
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
};

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
};

struct nd_response {
    int code;
    struct nd_buf body;
    json_t *headers; /* lower-case name -> value (repeated headers joined by ", ") */
};

struct nd_client;

/* NEW client; -1/NULL with st (Usage) for a bad server URL. Connects lazily. */
struct nd_client *nd_client_new(const struct nd_client_opts *opts, struct nd_status *st);
void nd_client_free(struct nd_client *c);

void nd_response_init(struct nd_response *r);
void nd_response_release(struct nd_response *r);
/* A response header (lower-case name), or NULL. BORROWED. */
const char *nd_response_header(const struct nd_response *r, const char *lname);

/* Sends a request and reads the whole answer, retrying as described above. Returns 0
 * when an HTTP answer arrived (whatever its code: the caller decides), -1 with st when
 * none did: reason "Unreachable" (connection refused, DNS, TLS handshake), "Timeout"
 * (the deadline passed). The response's Warning headers are the caller's to print. */
int nd_client_do(struct nd_client *c, const struct nd_request *req, struct nd_response *resp,
                 struct nd_status *st);

/* The common case: a JSON request (body may be NULL) whose 2xx answer is JSON.
 * *out (NEW, may be NULL when the caller does not want it) is the parsed answer.
 * A non-2xx answer becomes st (its Status parsed, never dropped) and -1. */
int nd_client_json(struct nd_client *c, const char *method, const char *path,
                   const json_t *body, json_t **out, struct nd_status *st);

/* Streams a response line by line (watches, followed logs): fn gets each line without
 * its newline; a non-zero return ends the stream early. *code is the HTTP status; a
 * non-2xx answer is read whole into st and -1 returned. 0 when the server ended the
 * stream (or fn stopped it); -1 with st on a transport error or timeout. */
typedef int (*nd_line_fn)(void *cls, const char *line, size_t len);
int nd_client_stream(struct nd_client *c, const struct nd_request *req, nd_line_fn fn, void *cls,
                     int *code, struct nd_status *st);

/* The base URL the client was made with (for messages). BORROWED. */
const char *nd_client_server(const struct nd_client *c);

#endif
