/* cp_progress.h: the progress line `nodus cp` draws on a terminal. */
#ifndef ND_CP_PROGRESS_H
#define ND_CP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cp_progress {
    FILE *out;       /* NULL: off (not a terminal, or --quiet) */
    uint64_t total;  /* 0: unknown (bytes and rate, no % or ETA) */
    uint64_t done;
    int64_t start_ms, drawn_ms;
    bool drawn;
};

/* On when stderr is a terminal and not quiet. */
void cp_progress_start(struct cp_progress *p, bool quiet, uint64_t total);
void cp_progress_add(struct cp_progress *p, uint64_t n);
/* Draws the last state and ends the line (ok) or erases it (!ok). */
void cp_progress_end(struct cp_progress *p, bool ok);
/* "12.3 MiB / 1.0 GiB  1%  45.2 MiB/s  ETA 0:21" for done of total after ms. */
void cp_progress_format(char *out, size_t n, uint64_t done, uint64_t total, int64_t ms);

#endif
