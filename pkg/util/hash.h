/* hash.h: a small non-cryptographic hash for fingerprints and ETags (FNV-1a, 64 bit). */
#ifndef ND_HASH_H
#define ND_HASH_H

#include <stddef.h>
#include <stdint.h>

#define ND_FNV64_INIT 0xcbf29ce484222325ULL

/* Continues hash h over n bytes (start with ND_FNV64_INIT). */
uint64_t nd_fnv64(uint64_t h, const void *p, size_t n);
/* Writes h as 16 lower-case hex digits and a NUL into out. */
void nd_hash_hex(uint64_t h, char out[17]);

#endif
