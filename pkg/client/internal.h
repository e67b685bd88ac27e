/* internal.h: what client.c, plain.c and curl.c share (not part of libnodus's API; the
 * unit tests include it to reach the URL parser and the retry knobs).
 *
 * A request is one `struct nd_exchange`: client.c fills its inputs (the request line,
 * the header lines, the body, the deadline, the sink) and hands it to a transport,
 * which connects, writes, and passes the answer to the sink as it arrives. Transports
 * describe failures through the nd_client_fail_* helpers so both speak alike.
 */
#ifndef ND_CLIENT_INTERNAL_H
#define ND_CLIENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "client/client.h"
#include "util/buf.h"
#include "util/status.h"

/* A parsed server URL. All strings owned. */
struct nd_url {
    bool tls;        /* https */
    char *host;      /* as written, IPv6 without brackets */
    int port;        /* explicit, or 80 / 443 */
    char *hostport;  /* "host:port" ("[::1]:8443"): what messages name */
    char *authority; /* the Host header: hostport, without the port when it is the default */
    char *origin;    /* "http://authority" */
    char *prefix;    /* path prefix without a trailing '/': "" or "/k8s/clusters/c1" */
};

/* Parses a server URL (see client.h). 0, or -1 with st = Usage naming the URL. */
int nd_url_parse(const char *s, struct nd_url *u, struct nd_status *st);
void nd_url_release(struct nd_url *u);

struct nd_plain;
struct nd_curl;

struct nd_client {
    struct nd_url url;
    char *server;
    char *token;
    char *ca_file, *ca_data;
    bool insecure;
    char *cert_file, *key_file, *cert_data, *key_data;
    int64_t timeout_ms;
    char *user_agent;
    int64_t backoff_base_ms;    /* 100 */
    int64_t backoff_cap_ms;     /* 4000 */
    int64_t retry_after_max_ms; /* longest Retry-After waited for without a deadline: 60 s */
    int max_attempts;           /* without a deadline: 5 */
    size_t max_body;            /* largest answer body kept (max_response_bytes) */
    size_t max_line;            /* longest streamed line: max_body / 16 */
    size_t max_head;            /* largest header block: max_body / 256 */
    int64_t idle_ms;            /* longest wait for a byte; 0: none */
    struct nd_plain *plain;     /* http://, NULL until first used */
    struct nd_curl *curl;       /* https://, NULL until first used */
    int64_t skew_ms;            /* the server's clock minus ours (server_clock.c) */
    bool skew_known;            /* an answer with a Date header came */
};

struct nd_exchange;
/* The sink. on_head runs once the status line and headers of the final answer are in
 * x->resp; on_data gets body bytes as they arrive (chunk framing removed). A non-zero
 * return stops the answer: the transport stops reading (and drops the connection
 * unless the answer was complete) and the exchange succeeds. */
typedef int (*nd_head_fn)(struct nd_exchange *x);
typedef int (*nd_data_fn)(struct nd_exchange *x, const char *p, size_t n);

struct nd_exchange {
    /* in */
    const char *method;
    const char *target;  /* request target: prefix + path (+ query) */
    const char *url;     /* origin + target, for libcurl and the log */
    const char *headers; /* "Name: value\r\n" lines, without Host and Content-Length */
    const char *body;    /* NULL: no body */
    size_t body_len;
    /* a streamed body (nd_request.body_read), sent chunked; NULL: none */
    ssize_t (*body_read)(void *cls, char *buf, size_t max, struct nd_status *st);
    void *body_cls;
    int64_t deadline; /* nd_client_now_ms() value, 0: none */
    int64_t idle_ms;  /* longest wait for a byte (c->idle_ms), 0: none */
    size_t max_head;  /* largest header block (c->max_head) */
    nd_head_fn on_head;
    nd_data_fn on_data;
    void *cls;
    struct nd_response *resp;
    /* out */
    struct nd_buf phrase; /* the status line's reason phrase ("OK") */
    bool got_answer;      /* a byte of the answer arrived */
    bool retryable;       /* failed on a refused or reset connection */
    bool stopped;         /* the sink stopped the answer */
    bool delivered;       /* the sink passed data on to its caller (never retried then) */
    bool head_done;       /* the answer's head reached the sink (on_head ran) */
    int64_t head_wall_ms; /* the wall clock (nd_time_now_ms) when it did */
    bool idled;           /* failed because the server sent nothing for idle_ms */
    bool body_started;    /* body_read was called (never retried then) */
    bool body_failed;     /* body_read failed: body_st says why */
    struct nd_status body_st;
};

/* Monotonic clock in milliseconds. */
int64_t nd_client_now_ms(void);

/* Transports: 0 when an answer arrived (or the sink stopped it), -1 with st. */
int nd_plain_exchange(struct nd_client *c, struct nd_exchange *x, struct nd_status *st);
void nd_plain_free(struct nd_plain *p);
int nd_curl_exchange(struct nd_client *c, struct nd_exchange *x, struct nd_status *st);
void nd_curl_free(struct nd_curl *k);
/* The soname nd_curl_exchange loads ("libcurl.so.4"); tests point it elsewhere to see
 * the error. A failed load is not remembered, so the next request tries again. */
void nd_curl_set_library(const char *soname);

/* For ws.c: a new connection of its own, with the errors a request would get. Plain:
 * a connected non-blocking socket (*fd, owned by the caller). TLS: a libcurl handle
 * connected with CURLOPT_CONNECT_ONLY (TLS done, nothing sent), its socket in *fd;
 * bytes go through nd_curl_raw_send/recv (-1 with errno EAGAIN when they would block,
 * 0 from recv at the end), and nd_curl_raw_close frees it. deadline: 0 or
 * nd_client_now_ms() based. */
int nd_plain_dial(struct nd_client *c, int64_t deadline, int *fd, struct nd_status *st);
int nd_curl_raw_open(struct nd_client *c, const char *url, int64_t deadline, void **handle,
                     int *fd, struct nd_status *st);
ssize_t nd_curl_raw_send(void *handle, const void *p, size_t n);
ssize_t nd_curl_raw_recv(void *handle, void *p, size_t n);
void nd_curl_raw_close(void *handle);

/* Notes the server's clock from the answer's Date header, read when its head came at
 * at_ms (wall clock): see nd_client_server_now_ms. An answer without one (or with one
 * that is not an HTTP date) changes nothing. */
void nd_client_note_date(struct nd_client *c, const struct nd_response *resp, int64_t at_ms);

/* Records a header of the answer in resp->headers (name lower-cased, repeats joined
 * by ", " up to 64 KiB, surrounding blanks trimmed, bytes that are not UTF-8 turned into
 * '?').
 * -1 when the name is not an HTTP token (a malformed answer). */
int nd_response_add_header(struct nd_response *r, const char *name, size_t name_len,
                           const char *value, size_t value_len);

/* Failures, worded alike for both transports; each returns -1. */
int nd_client_fail_refused(const struct nd_client *c, struct nd_exchange *x, struct nd_status *st);
int nd_client_fail_dns(const struct nd_client *c, const char *why, struct nd_status *st);
int nd_client_fail_connect(const struct nd_client *c, const char *why, struct nd_status *st);
int nd_client_fail_tls(const struct nd_client *c, const char *why, struct nd_status *st);
int nd_client_fail_timeout(const struct nd_client *c, struct nd_status *st);
/* The connection dropped (reset, or closed early); retryable before the answer began. */
int nd_client_fail_closed(const struct nd_client *c, struct nd_exchange *x, const char *why,
                          struct nd_status *st);
int nd_client_fail_malformed(struct nd_status *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Nothing came for x->idle_ms (sets x->idled): "Timeout", naming --read-idle-timeout. */
int nd_client_fail_idle(struct nd_exchange *x, struct nd_status *st);
/* A part of the answer passed its limit: what ("a header block"), the limit in bytes;
 * an InternalError naming --max-response-bytes. */
int nd_client_fail_too_large(const char *what, size_t limit, struct nd_status *st);

#endif
