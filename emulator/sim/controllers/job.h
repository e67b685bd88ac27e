/* job.h: between the Job controller (job.c) and a running Job's minute made from its
 * bytes (job_minute.c): what decides, while a Job runs, whether it ends now and when it
 * runs next, the same for both. */
#ifndef EM_CTL_JOB_H
#define EM_CTL_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "entry.h"

/* A running Job after its cost accrued up to now (emulated ms; money in micro-dollars;
 * -1: no such limit). */
struct em_job_clock {
    int64_t now;
    int64_t cost, max_cost, rate;
    int64_t ran;      /* status.simulation.runMs */
    int64_t duration; /* how long it runs (its annotation, else the book's jobRun) */
    int64_t fail_at;  /* its fail-at annotation, or -1 */
    int64_t deadline; /* spec.maxDuration, or -1 */
};

/* Why a running Job ends now, in the order the controller looks. */
enum em_job_end {
    EM_JOB_RUNS,
    EM_JOB_MAX_COST,
    EM_JOB_DEADLINE,
    EM_JOB_FAILS,
    EM_JOB_DONE,
};

enum em_job_end em_job_end_of(const struct em_job_clock *jc);
/* When a Job that runs on must run again: its end, a limit, or its next visible cost. */
int64_t em_job_next(const struct em_job_clock *jc);
/* A duration's text (spec.maxDuration, an annotation) in ms, or def when NULL or not
 * one. */
int64_t em_job_ms(const char *text, int64_t def);

/* The Job controller's reconcile (job.c). */
int64_t em_job_reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now);
/* A running Job's minute (its cost accrued, nothing else) written from its stored bytes
 * and record, without a tree (job_minute.c): true with *due when it was (or, under
 * NODUS_EMULATOR_TEST_CHECK_DUMP, when reconcile made it the same, byte for byte); false
 * when the Job needs more than that, or the bytes are not as expected (then reconcile
 * runs). */
bool em_job_minute(struct em_server *srv, const struct nd_kind *k, const struct em_entry *e,
                   int64_t now, int64_t *due);

#endif
