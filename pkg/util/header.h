/* header.h: reading HTTP header values (RFC 9110), shared by the client, the emulator and
 * nodus mcp's HTTP transport. */
#ifndef ND_HEADER_H
#define ND_HEADER_H

#include <stdbool.h>
#include <stddef.h>

/* True when the comma-separated list (a Connection, Upgrade, Transfer-Encoding or
 * Sec-WebSocket-Protocol value; NULL counts as empty) holds tok as one of its elements,
 * compared without regard to case and to the blanks around it. */
bool nd_http_has_token(const char *list, const char *tok);

/* The next element of a comma-separated list, without the blanks around it: its first
 * byte, its length in *len, and *cursor moved past it; NULL after the last. *cursor
 * starts at the list (NULL counts as empty):
 *   for (const char *e; (e = nd_http_list_next(&list, &n));) ... */
const char *nd_http_list_next(const char **cursor, size_t *len);

/* True when an Accept value (NULL: none sent) takes the media type type ("text/event-stream"):
 * the type itself, its "text/ *" range or "* / *" (parameters are ignored; a q=0 refuses). */
bool nd_http_accepts(const char *accept, const char *type);

/* Whether addr (an IPv4 address as text) is a loopback address (127.0.0.0/8). */
bool nd_http_addr_is_loopback(const char *addr);

/* The host part of a Host header value: "name" of "name" or "name:port", "[v6]" of "[v6]"
 * or "[v6]:port". NEW. */
char *nd_http_host_name(const char *host);

/* Guarding a server that listens on listen_addr:port against DNS rebinding and pages of
 * other sites (a browser sends the page's Origin):
 *   nd_http_host_is_local: host (a Host header value; NULL or empty, as HTTP/1.0 sends,
 *     passes) names 127.0.0.1, localhost, [::1] or listen_addr, on any port;
 *   nd_http_origin_is_own: origin is http(s)://AUTHORITY where AUTHORITY is the request's
 *     host (its Host header, already checked), or listen_addr:port, or, when listen_addr is
 *     loopback, 127.0.0.1:port, localhost:port or [::1]:port. */
bool nd_http_host_is_local(const char *host, const char *listen_addr);
bool nd_http_origin_is_own(const char *origin, const char *host, const char *listen_addr,
                           unsigned port);

/* Whether the secret given (a bearer token a request sent) is want, in a time that depends
 * only on given's length: no early exit for an attacker to time. An empty want matches
 * nothing. */
bool nd_http_secret_equal(const char *given, size_t given_len, const char *want,
                          size_t want_len);

#endif
