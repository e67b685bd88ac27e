/* idempotency.h: Idempotency-Key handling for writes.
 *
 * The first response to a write carrying a key is kept for 24 hours of the emulator's
 * clock (in memory and in DIR/idempotency/<hash>.json) with a fingerprint of the request
 * (method, path, query, content type, body). A key belongs to the identity that used it
 * (its token, or "anonymous" without --token-file) and the project it wrote in: another
 * token's or project's key of the same text is another key (no replay of another's
 * answer, no IdempotencyKeyReused, nothing told). Within one token and project, the same
 * key with the same request replays that response byte for byte plus
 * `Idempotent-Replayed: true`; with another request it fails IdempotencyKeyReused. 5xx
 * answers are not kept, so a retry runs again.
 *
 * On disk each entry holds "key", "scope" ("anonymous" or "token:" and the first 32 hex
 * digits of the token's SHA-256: never the token) and "project"; its file is named for
 * the digest of the three. An entry of an older emulator (no "scope") is still read and
 * replays the very same request (same fingerprint) to anyone who may make it, and is
 * otherwise ignored, until it expires.
 * Called with the server lock held.
 */
#ifndef EM_IDEMPOTENCY_H
#define EM_IDEMPOTENCY_H

#include <stdbool.h>

#include "authz.h"
#include "server.h"

/* Loads the saved keys (dropping expired ones). */
void em_idem_load(struct em_server *srv);
/* The project of a key is the one in rt's path ("" when none). For a request with an
 * Idempotency-Key: 1 when resp was filled (a replay or an
 * IdempotencyKeyReused error), 0 when the request should run. */
int em_idem_check(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                  const struct em_identity *who, struct em_resp *resp);
/* Records the response of a request that ran (no-op without a key or for 5xx). */
void em_idem_save(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                  const struct em_identity *who, const struct em_resp *resp);
/* Forgets the response recorded for req's key (of who): the request's change was refused
 * by the disk after it was recorded (a retry runs again). */
void em_idem_forget(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                    const struct em_identity *who);
/* Forgets every key (reset). */
void em_idem_clear(struct em_server *srv);
/* Drops keys older than 24 hours. */
void em_idem_expire(struct em_server *srv);

#endif
