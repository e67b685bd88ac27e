/* test_rng.h: a small reproducible generator (xorshift64) for the unit tests that make
 * varied or mutated inputs. Define TEST_RNG_SEED (a nonzero 64-bit constant) before the
 * include: each test file keeps its own sequence. */
#ifndef ND_TEST_RNG_H
#define ND_TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#error "define TEST_RNG_SEED before including test_rng.h"
#endif

static uint64_t rng = TEST_RNG_SEED;

/* The next number below n (n > 0). */
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

#endif
