/* rec_arena.h: where the start puts the records (entry.h) it loads.
 *
 * A record is about 45 small jansson allocations (objects, hash buckets, keys, strings);
 * through malloc each costs its chunk header and rounding, and the start's 100k records
 * cost a page fault per 4 KB as the heap grows. While a thread has the arena on
 * (em_rec_arena_use), jansson's allocations of that thread are carved from 16 KB blocks
 * of one reserved region (8-byte aligned, no header; transparent huge pages asked for),
 * each thread its own block; other threads and other times allocate as before
 * (nd_xmalloc). A free inside the region counts the allocation's block down; a block no
 * one allocates from any more whose last allocation is freed goes back to the kernel
 * (MADV_DONTNEED): its address range is not used again. So the memory of records that
 * replaced objects have dropped is returned block by block, not allocation by
 * allocation: a block stays while one record in it lives.
 *
 * When the region cannot be reserved or is used up, allocations go to nd_xmalloc. */
#ifndef EM_STORE_REC_ARENA_H
#define EM_STORE_REC_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reserves the region and installs the arena's functions as jansson's: once, while no
 * other thread runs jansson (the start's loader, before its threads). */
void em_rec_arena_init(void);
/* Whether the calling thread's jansson allocations come from the arena (after
 * em_rec_arena_init); its block stays its own while it is off. */
void em_rec_arena_use(bool on);
/* Whether the calling thread has the arena on. */
bool em_rec_arena_on(void);
/* The calling thread allocates as before and gives up its block (released once empty)
 * and its scratch. */
void em_rec_arena_done(void);

/* Between these, the calling thread's jansson allocations made with the arena off come
 * from its scratch (64 KB, then nd_xmalloc once it is full) and their frees cost
 * nothing: for what the loader builds to make one record from and drops (the scan's
 * values, em_rec_of's or em_rec_parse's record before em_rec_keep, rec_share.h), no malloc
 * and free of each allocation. Everything made there must be dropped before the end,
 * which takes the scratch back whole; made on the thread that began it. */
void em_rec_scratch_begin(void);
void em_rec_scratch_end(void);

struct em_rec_arena_stats {
    uint64_t allocs;   /* allocations carved from the region since the process began
                        * (those of a block a thread still allocates from: once it leaves
                        * it, em_rec_arena_done) */
    uint64_t bytes;    /* their bytes (each rounded up to 8) */
    uint64_t blocks;   /* blocks handed out */
    uint64_t released; /* blocks given back to the kernel */
};
void em_rec_arena_stats(struct em_rec_arena_stats *out);

#endif
