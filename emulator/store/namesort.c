/* A directory's names in strcmp order; see namesort.h. */
#include "namesort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* A name and the 8 bytes after the shared prefix, big-endian (NUL-padded past its end),
 * so that keys compare as the names do over those bytes. */
struct keyed {
    uint64_t key;
    char *s;
};

/* The bytes every name of v begins with. */
static size_t shared_prefix(char *const *v, size_t n)
{
    size_t len = strlen(v[0]);
    for (size_t i = 1; i < n && len; i++) {
        size_t j = 0;
        while (j < len && v[i][j] == v[0][j])
            j++;
        len = j;
    }
    return len;
}

static uint64_t key_at(const char *s)
{
    uint64_t k = 0;
    int i = 0;
    for (; i < 8 && s[i]; i++)
        k = (k << 8) | (unsigned char)s[i];
    return i ? k << (8 * (8 - i)) : 0; /* (a shift by 64 is undefined) */
}

/* Orders a by key, least significant byte first (a pass whose byte is the same for every
 * key is skipped); tmp holds n. */
static void radix(struct keyed *a, struct keyed *tmp, size_t n)
{
    struct keyed *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(src[i].key >> shift) & 0xff]++;
        if (count[(src[0].key >> shift) & 0xff] == n)
            continue;
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
        struct keyed *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* A few names of one key, by strcmp of what follows it (off: the prefix and the key). */
static void insertion(struct keyed *a, size_t n, size_t off)
{
    for (size_t i = 1; i < n; i++) {
        struct keyed x = a[i];
        size_t j = i;
        while (j > 0 && strcmp(a[j - 1].s + off, x.s + off) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Names of equal keys whose 8 bytes all hold text may differ past them (off: the prefix
 * and the key): each such run is ordered by the next 8 bytes the same way, and so on. */
static void sort_ties(struct keyed *a, struct keyed *tmp, size_t n, size_t off)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].key == a[i].key)
            j++;
        if (j - i > 1 && (a[i].key & 0xff)) {
            if (j - i < 16) {
                insertion(a + i, j - i, off);
            } else {
                for (size_t k = i; k < j; k++)
                    a[k].key = key_at(a[k].s + off);
                radix(a + i, tmp + i, j - i);
                sort_ties(a + i, tmp + i, j - i, off + 8);
            }
        }
        i = j;
    }
}

void em_names_sort(char **v, size_t n)
{
    if (n < 2)
        return;
    size_t pre = shared_prefix(v, n);
    struct keyed *a = nd_xmalloc(2 * n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = (struct keyed){key_at(v[i] + pre), v[i]};
    radix(a, a + n, n);
    sort_ties(a, a + n, n, pre + 8);
    for (size_t i = 0; i < n; i++)
        v[i] = a[i].s;
    free(a);
}
