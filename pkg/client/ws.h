/* ws.h: WebSocket (RFC 6455) for `nodus exec`, over the client's own transports.
 *
 * nd_ws_connect opens a new connection to the client's server (http://: a socket as the
 * plain transport makes it; https://: libcurl with CURLOPT_CONNECT_ONLY, with the
 * client's TLS settings), sends the upgrade request (GET, Sec-WebSocket-Key, the
 * offered subprotocols, the bearer token), and checks the 101 answer: Upgrade,
 * Connection, Sec-WebSocket-Accept = base64(SHA-1(key + GUID)) and a subprotocol that
 * was offered. Any other answer is read whole and becomes the caller's struct nd_status
 * (the server's Status, never dropped). No retries: a session is not idempotent. The
 * client's request timeout bounds the handshake only.
 *
 * After the handshake, frames and masking are wslay's. The connection never blocks:
 * the caller polls nd_ws_fd() (POLLIN always, POLLOUT when nd_ws_want_write()) and
 * calls nd_ws_pump(), which reads what arrived (handing each data message to a
 * callback), answers pings and sends what is queued.
 *
 * The same handshake arithmetic serves the emulator's side (nd_ws_accept).
 */
#ifndef ND_CLIENT_WS_H
#define ND_CLIENT_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "client/client.h"
#include "util/status.h"

#define ND_WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/* SHA-1 (FIPS 180-4) of n bytes. Only for the WebSocket handshake. */
void nd_sha1(const void *p, size_t n, unsigned char out[20]);
/* Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + GUID)), 28 chars. */
void nd_ws_accept(const char *key, char out[29]);

struct nd_ws;

struct nd_ws_opts {
    const char *path;             /* path and query, encoded ("/apis/.../exec?command=ls") */
    const char *const *protocols; /* subprotocols offered, preferred first; NULL-terminated */
};

/* Connects and upgrades. 0 with *out (free with nd_ws_free); -1 with st: the server's
 * Status for a non-101 answer, Unreachable / Timeout for the transport, InternalError
 * ("malformed answer from the server: ...") for a bad handshake. */
/* For the recv and send callbacks a wslay context calls (this client's and the
 * emulator's exec sessions): after the transport moved nothing (n == 0 from a recv: the
 * peer's end) or failed (n < 0 with errno; EINTR is for the caller to retry), sets the
 * context's error and says whether the connection is over: false for
 * WSLAY_ERR_WOULDBLOCK (EAGAIN: the socket would block), true for
 * WSLAY_ERR_CALLBACK_FAILURE. errno is left as it was. The callback then returns -1. */
struct wslay_event_context;
bool nd_ws_io_failed(struct wslay_event_context *ctx, ssize_t n);

int nd_ws_connect(struct nd_client *c, const struct nd_ws_opts *o, struct nd_ws **out,
                  struct nd_status *st);
void nd_ws_free(struct nd_ws *ws);

/* The subprotocol the server chose ("" for none). BORROWED. */
const char *nd_ws_protocol(const struct nd_ws *ws);
/* The socket to poll. */
int nd_ws_fd(const struct nd_ws *ws);
/* True while queued bytes wait for the socket to take them (poll for POLLOUT). */
bool nd_ws_want_write(const struct nd_ws *ws);
/* Bytes of queued messages not yet sent. */
size_t nd_ws_queued(const struct nd_ws *ws);

/* Queues a binary message: one channel byte, then n bytes of data (copied). -1 once the
 * connection is closing. */
int nd_ws_send(struct nd_ws *ws, unsigned char channel, const void *data, size_t n);
/* Queues a close frame (1000, normal closure); nothing more can be sent after it. */
void nd_ws_close(struct nd_ws *ws);

/* A data message: binary (true) or text, with its bytes. A non-zero return ends the
 * pump with -1 (the callback fills nothing: the caller knows why it stopped). */
typedef int (*nd_ws_msg_fn)(void *cls, bool binary, const unsigned char *data, size_t n);

/* Reads and writes without blocking. 0: go on; 1: the connection is over (both close
 * frames went, or the server closed the socket: nd_ws_closed_cleanly says which); -1
 * with st on a protocol or I/O error, or when fn returned non-zero (st then unset). */
int nd_ws_pump(struct nd_ws *ws, nd_ws_msg_fn fn, void *cls, struct nd_status *st);
/* True when the server sent a close frame. Its status code (1000 normal), 0 if none. */
bool nd_ws_closed_cleanly(const struct nd_ws *ws, int *code);

#endif
