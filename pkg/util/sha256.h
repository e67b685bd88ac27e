/* sha256.h: SHA-256 (FIPS 180-4), for digests that must not be reversible or forgeable
 * (invoke's simulated answer, the idempotency scope of a token). Not constant time. */
#ifndef ND_SHA256_H
#define ND_SHA256_H

#include <stddef.h>

/* The digest of n bytes as 64 lower-case hex digits and a NUL. */
void nd_sha256_hex(const void *data, size_t n, char out[65]);

#endif
