/* frontdoor.h: the checks every request passes before any handler runs.
 *
 * In order: a connection past --max-connections or --max-connections-per-client (503
 * ServiceUnavailable or 429 TooManyRequests, Connection: close; not for health checks
 * and admin tokens: em_frontdoor_connection), the per-client rate limit (429 TooManyRequests), the size of the request line
 * and headers (414 RequestURITooLong, 431 RequestHeaderFieldsTooLarge, 400 for too many
 * query parameters), the Host header on a loopback listener (403: DNS rebinding), the
 * Origin header (403 unless the emulator's own or --allow-origin; CORS preflights of
 * allowed origins are answered here) and the Content-Type of writes (415 for a type the
 * path does not take, which also keeps out the types a browser may send cross-site
 * without asking: text/plain, form encodings).
 */
#ifndef EM_FRONTDOOR_H
#define EM_FRONTDOOR_H

#include <stdbool.h>

#include "http.h"

#define EM_DEFAULT_MAX_CONNECTIONS 256u
#define EM_MAX_MAX_CONNECTIONS 20000
#define EM_DEFAULT_IDLE_TIMEOUT_S 60u
#define EM_DEFAULT_HEADER_TIMEOUT_MS 10000u /* a request's line and headers, all of them */
#define EM_DEFAULT_MIN_BODY_RATE 1024u      /* bytes a second of a body... */
#define EM_DEFAULT_BODY_WINDOW_MS 10000u    /* ...over each window of this, after the first */
/* connections per client address, off loopback (on loopback every client is 127.0.0.1) */
#define EM_DEFAULT_PER_CLIENT_DIVISOR 4u
#define EM_DEFAULT_RATE_LIMIT 100.0 /* requests a second per client, off loopback */

/* What a request may carry (the HTTP layer measures; see struct em_req). */
#define EM_MAX_URI_BYTES (32u * 1024u)     /* request target: path and query, raw */
/* EM_MAX_HEADER_BYTES, EM_MAX_ONE_HEADER, EM_MAX_HEADERS: http.h (it stops keeping
 * headers past them) */
#define EM_MAX_QUERY_PARAMS 1000u          /* query parameters (exec repeats command=) */

struct em_server;
struct em_frontdoor;
struct em_route;

/* The rate limiter's table; NULL when --rate-limit is off (nothing to free then). */
struct em_frontdoor *em_frontdoor_new(double rate_per_s);
void em_frontdoor_free(struct em_frontdoor *fd);

/* The first check alone: a connection that is not ordinary (past the ordinary slots of
 * --max-connections, or past --max-connections-per-client: guard.h) serves a health check
 * or a request with an admin token, and answers anything else 503 ServiceUnavailable or
 * 429 TooManyRequests, with Retry-After and Connection: close. True when it answered.
 * Called as soon as the headers are in, before any body is read. */
bool em_frontdoor_connection(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                             struct em_resp *resp);

/* Runs the checks above on req, whose route is rt (route.h); true when it answered resp (the handler must not run).
 * Also adds the CORS headers for an allowed foreign origin to resp. Thread-safe; does
 * not take the server lock. */
bool em_frontdoor_check(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                        struct em_resp *resp);

#endif
