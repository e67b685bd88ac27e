/* Shared immutable byte strings; see bytes.h. */
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

struct em_bytes *em_bytes_alloc(size_t len)
{
    struct em_bytes *b = nd_xmalloc(sizeof *b + len + 1);
    atomic_init(&b->refs, 1);
    b->len = len;
    b->data[len] = '\0';
    return b;
}

struct em_bytes *em_bytes_new(const char *p, size_t len)
{
    struct em_bytes *b = em_bytes_alloc(len);
    memcpy(b->data, p, len);
    return b;
}

struct em_bytes *em_bytes_take(char *s)
{
    struct em_bytes *b = em_bytes_new(s, strlen(s));
    free(s);
    return b;
}

struct em_bytes *em_bytes_ref(struct em_bytes *b)
{
    if (b)
        atomic_fetch_add(&b->refs, 1);
    return b;
}

void em_bytes_unref(struct em_bytes *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1)
        free(b);
}

uint64_t em_hash64(const char *p, size_t len, uint64_t h)
{
    const uint64_t m = 0x9e3779b97f4a7c15ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h ^ (h >> 31);
}
