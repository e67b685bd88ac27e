/* id.h: ULIDs, object uids, idempotency keys, random name suffixes.
 *
 * A ULID is 128 bits: a 48-bit Unix time in milliseconds, then 80 random bits,
 * written as 26 characters of Crockford base32 in LOWER case
 * ("01j9zq3x5m8k2v7c4n6p0r1s2t"), so ULIDs sort by creation time as strings.
 * nd_ulid_new is monotonic within a process: a second ULID in the same millisecond
 * (or after the clock stepped back) is the previous one plus one, so it still sorts
 * after it. It is safe to call from several threads.
 *
 * Randomness comes from /dev/urandom. If it cannot be read (no /dev in a chroot, out
 * of file descriptors), a generator seeded from the clocks, the process id and a
 * counter fills in: ids stay unique and well spread, though not unpredictable.
 */
#ifndef ND_ID_H
#define ND_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_ULID_LEN    26
#define ND_ULID_MAX_MS ((INT64_C(1) << 48) - 1)

/* Fills buf with n random bytes. Returns 0 when they came from the kernel, -1 when
 * the fallback generator had to be used (buf is filled either way). */
int nd_random_bytes(void *buf, size_t n);
/* Whether nd_random_bytes asks getrandom(2) first (the default); tests turn it off to
 * reach /dev/urandom and the fallback. */
void nd_random_use_getrandom(bool use);

/* Writes a new ULID and its NUL into out (27 bytes). */
void nd_ulid_new(char out[ND_ULID_LEN + 1]);
/* The ULID of a given time and random part (for tests and replays). -1 (out = "")
 * when ms is outside 0..ND_ULID_MAX_MS. */
int nd_ulid_from(int64_t ms, const unsigned char rand[10], char out[ND_ULID_LEN + 1]);
/* True for exactly 26 lower-case Crockford base32 characters whose value fits 128
 * bits (the first is 0..7). Upper case is refused: nodus writes lower case only. */
bool nd_ulid_valid(const char *s);
/* The timestamp of a valid ULID in ms; -1 when s is not one. */
int nd_ulid_time(const char *s, int64_t *ms);

/* "<prefix>_<ULID>", e.g. nd_uid_new("job") -> "job_01j9...". A NULL or empty prefix
 * gives the bare ULID. New string (free()). */
char *nd_uid_new(const char *prefix);
/* True when uid is "<prefix>_<valid ULID>"; with a NULL prefix, any prefix of one or
 * more of [a-z] is accepted; with an empty prefix, the bare ULID. */
bool nd_uid_valid(const char *uid, const char *prefix);

/* A fresh Idempotency-Key: 32 lower-case hex characters (128 random bits). New string. */
char *nd_idempotency_key_new(void);

/* A Kubernetes generateName suffix: 5 characters of "bcdfghjklmnpqrstvwxz2456789"
 * (no vowels, no look-alikes), uniformly chosen, and a NUL (6 bytes). */
void nd_random_suffix(char out[6]);

#endif
