/* guard.h: what a slow or greedy client may hold of the server: the connection guard.
 *
 * Every connection the HTTP layer accepts gets a slot here (em_guard_open, from
 * libmicrohttpd's connection notice) and a class, decided as it arrives:
 *   EM_CONN_CLIENT_CAP  its client address already holds per_client slots;
 *   EM_CONN_OVER        every one of the max_conns slots is held (it is accepted up to
 *                       a margin, so that it gets an answer);
 *   EM_CONN_RESERVE     it holds one of the last `reserve` slots;
 *   EM_CONN_ORDINARY    it holds one of the others.
 * The last two hold a slot until they close; the first two hold none (they are closed
 * after 2 s without their headers, or after one request).
 * Only an ordinary connection serves any request; the others serve health checks and
 * admin-token requests (the front door decides, frontdoor.c) and are closed after one.
 *
 * A thread (the watchdog) closes, whatever bytes trickle in:
 *   - a connection whose request headers are not all in within header_ms of its opening,
 *     or of the first byte of a later request on it (2 s at most for a connection that
 *     is not ordinary);
 *   - a request whose body brings fewer than min_body_rate bytes a second over a window
 *     of body_window_ms (the first window starts when the headers are in: the grace).
 * On plain HTTP it first writes a 408 RequestTimeout Status, over TLS it just closes.
 * A response, a stream (watch, followed log) or an exec session is never timed here.
 *
 * Refusals are logged once per episode through the notice callback: the first one, then
 * a count once none came for 30 s.
 */
#ifndef EM_GUARD_H
#define EM_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define EM_GUARD_SHORT_HEADER_MS 2000u /* headers of a connection that is not ordinary */
#define EM_GUARD_QUIET_MS 30000        /* an episode ends after this long without one */

enum em_conn_class { EM_CONN_ORDINARY, EM_CONN_RESERVE, EM_CONN_OVER, EM_CONN_CLIENT_CAP };

/* What the guard counts and logs once per episode. */
enum em_refusal {
    EM_REFUSE_HEADERS,  /* closed: headers not in within the deadline */
    EM_REFUSE_BODY,     /* closed: a body below the minimum rate */
    EM_REFUSE_CAPACITY, /* answered 503: every slot taken (front door) */
    EM_REFUSE_CLIENT,   /* answered 429: the client's connections at their cap (front door) */
    EM_REFUSE_KINDS
};

struct em_guard_opts {
    unsigned max_conns;     /* --max-connections */
    unsigned reserve;       /* of max_conns, kept for health checks and admin tokens */
    unsigned per_client;    /* --max-connections-per-client (0: no cap) */
    unsigned header_ms;     /* --header-timeout (0: none) */
    uint64_t min_body_rate; /* --min-body-rate, bytes a second (0: none) */
    unsigned body_window_ms; /* --body-rate-window */
};

/* A line for the server's log (the emulator's own messages, not requests). */
typedef void (*em_notice_fn)(void *cls, const char *msg);

struct em_guard;
struct em_guard_conn;

/* tls: never write raw bytes (no 408, just the close). */
struct em_guard *em_guard_new(const struct em_guard_opts *opts, bool tls);
void em_guard_set_notice(struct em_guard *g, em_notice_fn fn, void *cls);
/* The server's URL (scheme://host:port), for the docs link of the 408's Status. */
void em_guard_set_base_url(struct em_guard *g, const char *url);
/* The watchdog thread: 0, or -1 when it cannot start. em_guard_free stops it. */
int em_guard_start(struct em_guard *g);
void em_guard_free(struct em_guard *g);

/* A connection accepted (fd, its peer) and closed (before its socket is closed). */
struct em_guard_conn *em_guard_open(struct em_guard *g, int fd, const struct sockaddr *peer);
void em_guard_close(struct em_guard *g, struct em_guard_conn *c);
enum em_conn_class em_guard_class(const struct em_guard_conn *c);
/* Open connections of c's client address, c included. */
unsigned em_guard_client_conns(struct em_guard *g, const struct em_guard_conn *c);

/* A request's life on c: its line is in; its headers are in (body: one follows); so many
 * body bytes came; it is being answered (or streamed, or upgraded: untimed until done);
 * it is upgraded (an exec session: never timed again); it is over (the connection idles
 * until the next request's first byte). */
void em_guard_request_line(struct em_guard *g, struct em_guard_conn *c);
void em_guard_headers_in(struct em_guard *g, struct em_guard_conn *c, bool body);
void em_guard_body(struct em_guard_conn *c, size_t n);
void em_guard_answering(struct em_guard *g, struct em_guard_conn *c);
void em_guard_upgraded(struct em_guard *g, struct em_guard_conn *c); /* for good */
void em_guard_done(struct em_guard *g, struct em_guard_conn *c);

/* The connections the watchdog has looked at, in all: it times only those waiting for a
 * request's bytes, never one answering or streaming (a watch waiting for news). */
uint64_t em_guard_looked(struct em_guard *g);

/* Counts a refusal for the episode log (the first of an episode is logged now). */
void em_guard_note(struct em_guard *g, enum em_refusal kind, const char *remote);

#endif
