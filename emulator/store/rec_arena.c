/* The records' arena; see rec_arena.h. */
#include "rec_arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
/* MAP_ANONYMOUS, MAP_NORESERVE, MADV_DONTNEED, MADV_HUGEPAGE and madvise(2): glibc shows
 * them only under _DEFAULT_SOURCE, which the build does not set (banned.h comes first) */
#include <linux/mman.h>
int madvise(void *addr, size_t len, int advice);

#include "util/xmalloc.h"

#define BLOCK ((size_t)16 << 10)
#define BIG (BLOCK / 8)   /* larger allocations go to nd_xmalloc */
#define OPEN (1u << 31)   /* in a block's count: a thread still allocates from it */
#define SCRATCH ((size_t)64 << 10) /* a thread's scratch (em_rec_scratch_begin) */

static struct {
    pthread_once_t once;
    char *base;
    size_t nblocks;
    _Atomic uint32_t *live; /* per block: allocations alive (+ OPEN) */
    atomic_size_t next;     /* the next block to hand out */
    atomic_uint_fast64_t allocs, bytes, released;
} ar = {.once = PTHREAD_ONCE_INIT};

static _Thread_local bool on;
static _Thread_local char *cur, *end;
/* the open block's allocations and bytes, added to its count and the stats when it is
 * closed: one atomic operation a block, not one an allocation (the two loader threads'
 * counts on one cache line cost more than the carving) */
static _Thread_local uint32_t nallocs;
static _Thread_local uint64_t nbytes;
static _Thread_local bool scratch_on;
static _Thread_local char *sbase, *scur; /* the scratch, and its next free byte */

static void release(size_t b)
{
    (void)madvise(ar.base + b * BLOCK, BLOCK, MADV_DONTNEED);
    atomic_fetch_add(&ar.released, 1);
}

static void put_down(size_t b, uint32_t by)
{
    if (atomic_fetch_sub(&ar.live[b], by) == by)
        release(b);
}

static void close_block(void)
{
    if (cur) { /* end points just past the block; its count is OPEN less the frees */
        atomic_fetch_add_explicit(&ar.allocs, nallocs, memory_order_relaxed);
        atomic_fetch_add_explicit(&ar.bytes, nbytes, memory_order_relaxed);
        put_down((size_t)(end - ar.base) / BLOCK - 1, OPEN - nallocs);
    }
    cur = end = NULL;
    nallocs = 0;
    nbytes = 0;
}

static void *arena_malloc(size_t n)
{
    if (!on && scratch_on && (size_t)(sbase + SCRATCH - scur) >= ((n + 7) & ~(size_t)7)) {
        void *p = scur;
        scur += (n + 7) & ~(size_t)7;
        return p;
    }
    if (!on || n > BIG || !ar.base)
        return nd_xmalloc(n);
    n = (n + 7) & ~(size_t)7;
    if (!cur || (size_t)(end - cur) < n) {
        close_block();
        size_t b = atomic_fetch_add(&ar.next, 1);
        if (b >= ar.nblocks)
            return nd_xmalloc(n);
        atomic_store(&ar.live[b], OPEN);
        cur = ar.base + b * BLOCK;
        end = cur + BLOCK;
    }
    void *p = cur;
    cur += n;
    nallocs++;
    nbytes += n;
    return p;
}

static void arena_free(void *p)
{
    char *c = p;
    if (ar.base && c >= ar.base && c < ar.base + ar.nblocks * BLOCK)
        put_down((size_t)(c - ar.base) / BLOCK, 1);
    else if (!(sbase && c >= sbase && c < sbase + SCRATCH)) /* scratch: reset at its end */
        free(p);
}

static void reserve(void)
{
    /* address space only: pages are made as they are touched */
    for (size_t size = (size_t)16 << 30; size >= ((size_t)64 << 20); size /= 4) {
        size_t n = size / BLOCK;
        void *live = mmap(NULL, n * sizeof *ar.live, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *base = mmap(NULL, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (live != MAP_FAILED && base != MAP_FAILED) {
            (void)madvise(base, size, MADV_HUGEPAGE);
            ar.live = live;
            ar.base = base;
            ar.nblocks = n;
            break;
        }
        if (live != MAP_FAILED)
            munmap(live, n * sizeof *ar.live);
        if (base != MAP_FAILED)
            munmap(base, size);
    }
    json_set_alloc_funcs(arena_malloc, arena_free);
}

void em_rec_arena_init(void)
{
    pthread_once(&ar.once, reserve);
}

void em_rec_arena_use(bool use)
{
    on = use;
}

bool em_rec_arena_on(void)
{
    return on;
}

void em_rec_arena_done(void)
{
    on = false;
    close_block();
    free(sbase);
    sbase = scur = NULL;
    scratch_on = false;
}

void em_rec_scratch_begin(void)
{
    if (!sbase)
        sbase = nd_xmalloc(SCRATCH);
    scur = sbase;
    scratch_on = true;
}

void em_rec_scratch_end(void)
{
    scratch_on = false;
    scur = sbase;
}

void em_rec_arena_stats(struct em_rec_arena_stats *out)
{
    out->allocs = atomic_load(&ar.allocs);
    out->bytes = atomic_load(&ar.bytes);
    size_t next = atomic_load(&ar.next);
    out->blocks = next < ar.nblocks ? next : ar.nblocks;
    out->released = atomic_load(&ar.released);
}
