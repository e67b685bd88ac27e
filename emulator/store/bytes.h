/* bytes.h: an immutable, reference-counted byte string: an object serialised once per
 * revision (compact JSON) and shared by the store, the journal and every answer that
 * sends it (GET, list items, watch events), so the hot paths copy bytes instead of
 * walking trees. The count is atomic; the bytes never change once made. */
#ifndef EM_BYTES_H
#define EM_BYTES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct em_bytes {
    atomic_size_t refs;
    size_t len;
    char data[]; /* len bytes and a NUL */
};

/* A NEW copy of p (one reference). */
struct em_bytes *em_bytes_new(const char *p, size_t len);
/* A NEW string of len bytes (and the NUL) for the caller to fill before it shares it. */
struct em_bytes *em_bytes_alloc(size_t len);
/* Takes ownership of a malloc'd NUL-terminated string (one reference; s is freed). */
struct em_bytes *em_bytes_take(char *s);
/* Adds a reference; b may be NULL. Returns b. */
struct em_bytes *em_bytes_ref(struct em_bytes *b);
/* Drops a reference, freeing b with the last; b may be NULL. */
void em_bytes_unref(struct em_bytes *b);

/* A 64-bit hash of len bytes (fast, not cryptographic); seed chains one call into the
 * next. */
uint64_t em_hash64(const char *p, size_t len, uint64_t seed);

#endif
