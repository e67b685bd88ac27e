#include "util/id.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/time.h"
#include "util/xmalloc.h"

static const char crockford[] = "0123456789abcdefghjkmnpqrstvwxyz";

/* ---- randomness ---- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fallback_bytes(unsigned char *p, size_t n)
{
    /* Not cryptographic: it only has to keep ids distinct when /dev/urandom is gone.
     * Each call mixes fresh clock readings into a process-wide counter. */
    static _Atomic uint64_t counter;
    struct timespec rt = {0, 0}, mono = {0, 0};
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    uint64_t state = (uint64_t)rt.tv_sec * 1000000007ULL ^ (uint64_t)rt.tv_nsec ^
                     ((uint64_t)mono.tv_nsec << 32) ^ ((uint64_t)getpid() << 48) ^
                     (uint64_t)(uintptr_t)&state ^ atomic_fetch_add(&counter, 0x1000193ULL);
    while (n) {
        uint64_t r = splitmix64(&state);
        size_t k = n < sizeof r ? n : sizeof r;
        memcpy(p, &r, k);
        p += k;
        n -= k;
    }
}

static _Atomic bool use_getrandom = true;

void nd_random_use_getrandom(bool use)
{
    use_getrandom = use;
}

int nd_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    /* getrandom(2): one system call, no file (an emulator asks for a request id on every
     * request); /dev/urandom where the kernel lacks it */
    size_t have = 0;
    while (use_getrandom && have < n) {
        ssize_t r = getrandom(p + have, n - have, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    if (use_getrandom && have == n)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        size_t got = 0;
        while (got < n) {
            ssize_t r = read(fd, p + got, n - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        close(fd);
        if (got == n)
            return 0;
    }
    fallback_bytes(p, n);
    return -1;
}

/* ---- ULIDs ---- */

int nd_ulid_from(int64_t ms, const unsigned char rand[10], char out[ND_ULID_LEN + 1])
{
    out[0] = '\0';
    if (ms < 0 || ms > ND_ULID_MAX_MS)
        return -1;
    unsigned __int128 v = (unsigned __int128)(uint64_t)ms << 80;
    for (int i = 0; i < 10; i++)
        v |= (unsigned __int128)rand[i] << (8 * (9 - i));
    /* 26 characters carry 130 bits: the first holds the top 3 bits only. */
    for (int i = 0; i < ND_ULID_LEN; i++)
        out[i] = crockford[(unsigned)(v >> (125 - 5 * i)) & 31];
    out[ND_ULID_LEN] = '\0';
    return 0;
}

static atomic_flag ulid_lock = ATOMIC_FLAG_INIT;
static int64_t last_ms = -1;
static unsigned char last_rand[10];

void nd_ulid_new(char out[ND_ULID_LEN + 1])
{
    unsigned char r[10];
    int64_t ms = nd_time_now_ms();
    if (ms < 0)
        ms = 0;
    if (ms > ND_ULID_MAX_MS)
        ms = ND_ULID_MAX_MS;
    /* in a millisecond that has an id already the random part is the last one + 1 (below):
     * no draw then (getrandom(2) is a system call, and the emulator makes an id for every
     * request). last_ms never goes back, so what is seen here holds under the lock. */
    if (ms > __atomic_load_n(&last_ms, __ATOMIC_RELAXED))
        nd_random_bytes(r, sizeof r);
    while (atomic_flag_test_and_set_explicit(&ulid_lock, memory_order_acquire))
        ;
    if (ms <= last_ms) {
        /* Same millisecond (or the clock went back): previous random part + 1. */
        int i = 9;
        while (i >= 0 && ++last_rand[i] == 0)
            i--;
        if (i < 0 && last_ms < ND_ULID_MAX_MS) /* 2^80 ids in one ms: borrow the next */
            __atomic_store_n(&last_ms, last_ms + 1, __ATOMIC_RELAXED);
        ms = last_ms;
        memcpy(r, last_rand, sizeof r);
    } else {
        memcpy(last_rand, r, sizeof r);
        __atomic_store_n(&last_ms, ms, __ATOMIC_RELAXED);
    }
    atomic_flag_clear_explicit(&ulid_lock, memory_order_release);
    nd_ulid_from(ms, r, out);
}

static int decode(char c)
{
    const char *p = c ? strchr(crockford, c) : NULL;
    return p ? (int)(p - crockford) : -1;
}

bool nd_ulid_valid(const char *s)
{
    if (!s)
        return false;
    for (int i = 0; i < ND_ULID_LEN; i++)
        if (decode(s[i]) < 0)
            return false;
    return s[ND_ULID_LEN] == '\0' && s[0] <= '7';
}

int nd_ulid_time(const char *s, int64_t *ms)
{
    if (!nd_ulid_valid(s))
        return -1;
    /* The first 10 characters hold 50 bits: 2 leading zero bits and the 48-bit time. */
    int64_t v = 0;
    for (int i = 0; i < 10; i++)
        v = v << 5 | decode(s[i]);
    *ms = v;
    return 0;
}

/* ---- uids, keys, suffixes ---- */

char *nd_uid_new(const char *prefix)
{
    char ulid[ND_ULID_LEN + 1];
    nd_ulid_new(ulid);
    if (!prefix || !*prefix)
        return nd_xstrdup(ulid);
    return nd_xasprintf("%s_%s", prefix, ulid);
}

bool nd_uid_valid(const char *uid, const char *prefix)
{
    if (!uid)
        return false;
    const char *p = uid;
    if (prefix && !*prefix)
        return nd_ulid_valid(uid);
    if (prefix) {
        size_t n = strlen(prefix);
        if (strncmp(uid, prefix, n) != 0)
            return false;
        p += n;
    } else {
        while (*p >= 'a' && *p <= 'z')
            p++;
        if (p == uid)
            return false;
    }
    return *p == '_' && nd_ulid_valid(p + 1);
}

char *nd_idempotency_key_new(void)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char r[16];
    char *key = nd_xmalloc(33);
    nd_random_bytes(r, sizeof r);
    for (int i = 0; i < 16; i++) {
        key[2 * i] = hex[r[i] >> 4];
        key[2 * i + 1] = hex[r[i] & 15];
    }
    key[32] = '\0';
    return key;
}

void nd_random_suffix(char out[6])
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    const unsigned n = sizeof alphabet - 1; /* 27 */
    unsigned char r[16];
    int have = 0, used = 0;
    for (int i = 0; i < 5;) {
        if (used == have) {
            nd_random_bytes(r, sizeof r);
            have = (int)sizeof r;
            used = 0;
        }
        unsigned b = r[used++];
        if (b >= 256 / n * n) /* reject 243..255 so every letter is equally likely */
            continue;
        out[i++] = alphabet[b % n];
    }
    out[5] = '\0';
}
