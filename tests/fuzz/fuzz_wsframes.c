/* fuzz_wsframes: the emulator's server-side WebSocket frame follower
 * (emulator/http/ws_framing.c), which reads every byte an exec client sends before wslay does.
 * Input: the bytes a client sends. The verdict (a header that cannot be parsed, or not)
 * and, when there is none, where the follower stands must not depend on how the bytes
 * arrive: all at once, one by one, or in pieces whose sizes the input itself picks. */
#include <string.h>

#include "fuzz.h"
#include "ws_framing.h"

/* Feeds data in pieces of the sizes step() gives; the verdict, and the state in *f. */
static bool feed(struct em_ws_framing *f, const uint8_t *data, size_t size,
                 size_t (*step)(const uint8_t *, size_t, size_t))
{
    memset(f, 0, sizeof *f);
    for (size_t at = 0; at < size;) {
        size_t n = step(data, size, at);
        if (n > size - at)
            n = size - at;
        if (em_ws_framing_unparsable(f, data + at, n))
            return true;
        at += n;
    }
    return false;
}

static size_t all(const uint8_t *d, size_t size, size_t at)
{
    (void)d;
    return size - at;
}

static size_t one(const uint8_t *d, size_t size, size_t at)
{
    (void)d, (void)size, (void)at;
    return 1;
}

static size_t picked(const uint8_t *d, size_t size, size_t at)
{
    (void)size;
    return (size_t)(d[at] % 7) + 1;
}

static bool same(const struct em_ws_framing *a, const struct em_ws_framing *b)
{
    return a->state == b->state && a->need == b->need && a->got == b->got &&
           a->len == b->len && a->skip == b->skip && a->masked == b->masked &&
           (a->state == 0 || a->b0 == b->b0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct em_ws_framing a, b, c;
    bool va = feed(&a, data, size, all);
    bool vb = feed(&b, data, size, one);
    bool vc = feed(&c, data, size, picked);
    FZ_ASSERT(va == vb && vb == vc);
    if (!va) {
        FZ_ASSERT(same(&a, &b) && same(&b, &c));
        FZ_ASSERT(a.state >= 0 && a.state <= 3);
        FZ_ASSERT(a.state != 3 || a.skip > 0);
    }
    return 0;
}
