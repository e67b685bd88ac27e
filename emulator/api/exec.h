/* exec.h: the exec subresource: a WebSocket session running a command as a local
 * process in the object's file tree (files.h), with Kubernetes' channel protocol.
 *
 *   GET (or POST) .../namespaces/{ns}/{sandboxes|jobs}/{name}/exec
 *       ?command=A&command=B...&stdin=true&stdout=true&stderr=true&tty=true
 *   Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Version: 13,
 *   Sec-WebSocket-Key, Sec-WebSocket-Protocol: v5.channel.k8s.io and/or v4.channel.k8s.io
 *
 * Before the upgrade, a refusal is an ordinary Status answer: NotFound (no such object),
 * BadRequest (no command, no stream asked for, a bad boolean, not a WebSocket request,
 * no subprotocol this server speaks, or the object is not Running). After the 101
 * (v5 chosen when offered, else v4): every message is binary, its first byte the
 * channel: 0 stdin (client to server), 1 stdout, 2 stderr, 3 the final Status, 4 a
 * terminal resize {"Width":W,"Height":H}, and with v5 only, 255 "close a stream"
 * ([255, 0] closes stdin). The command runs without a shell (argv as given, found on
 * PATH), in the object's tree, with the object's spec.env; with tty=true on a
 * pseudo-terminal (stderr then comes on stdout) that waits up to 300 ms for the first
 * resize before starting. When the process has ended and its output has been sent,
 * channel 3 carries {"metadata":{},"status":"Success"}, or a Failure with reason
 * NonZeroExitCode and details.causes [{"reason":"ExitCode","message":"<code>"}] (a
 * signal counts as 128 + its number), then a close frame. A client that closes, drops
 * the connection, breaks the protocol (close 1002; 1009 past 1 MiB a message) or
 * answers none of the pings sent every --exec-keepalive seconds before the end ends
 * the process's whole group (SIGHUP, SIGTERM, SIGKILL 2 s later); the object leaving
 * Running or the server shutting down kills it at once.
 *
 * Open sessions into a Sandbox keep it from idling (em_sandbox_sessions); when one ends
 * the Sandbox's idle clock starts again from that moment.
 */
#ifndef EM_EXEC_H
#define EM_EXEC_H

#include "api.h"

/* The subresource handler (subresource.c's table). */
int em_exec_handle(struct em_api *a, const char *verb);

/* At shutdown (srv->stopping set, lock not held): waits until every session has ended
 * (each sees stopping within 250 ms, kills its process, sends its status and closes),
 * at most 5 s. */
void em_exec_shutdown(struct em_server *srv);
/* Open exec sessions into a Sandbox (0 when none): the sim asks through
 * srv->hooks.sandbox_sessions (a Sandbox with a session open is not idle). Lock held. */
int em_sandbox_sessions(struct em_server *srv, const json_t *sandbox);
/* Frees the session registry (after every session has ended: em_router_release). */
void em_exec_release(struct em_server *srv);

#endif
