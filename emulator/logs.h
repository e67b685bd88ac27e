/* logs.h: the log subresource (GET .../{plural}/{name}/log) of Jobs, Sandboxes,
 * Functions and PoolActions.
 *
 * A log is the output of an object's last run, one line per entry, each with the
 * emulated time it was printed (nanoseconds since the epoch). It comes from one of two
 * places:
 *  - under --runtime simulate (logsim.c) it is generated from the object's status on
 *    the emulated clock: what exists at emulated time T is what the run had printed by
 *    then, the same lines for the same object every time (values seeded by its uid);
 *  - a Job that ran under --runtime local has its real output in
 *    DIR/logs/<project>/jobs/<name>.log, one line per entry as
 *    `<RFC 3339 time with nanoseconds> <text>` (runtime.c writes it).
 *
 * The answer is text/plain; with follow=true it is a chunked stream that sends new lines
 * as the clock moves or the process prints, and ends when the object ends (a Job
 * Succeeded, Failed or Cancelled, a Sandbox or Function Stopped, or deleted). Query:
 * follow, tailLines, sinceSeconds, sinceTime, timestamps, limitBytes, previous (only
 * false), container (ignored), as Kubernetes' pod log.
 */
#ifndef EM_LOGS_H
#define EM_LOGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api.h"

struct em_log_line {
    int64_t ns;  /* emulated time, nanoseconds since the epoch */
    char *text;  /* without its newline (owned) */
};

struct em_log_lines {
    struct em_log_line *v;
    size_t len, cap;
};

/* Appends a line (the text is formatted and owned by the list). */
void em_log_add(struct em_log_lines *l, int64_t ns, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends text (len bytes, no newline) as a line. */
void em_log_addn(struct em_log_lines *l, int64_t ns, const char *text, size_t len);
void em_log_lines_release(struct em_log_lines *l);

/* Where an object's log stands at an emulated time. */
struct em_log_state {
    int64_t run;  /* the run shown, as its start (emulated ms); -1 before the first run */
    bool ended;   /* nothing more will be printed: a follow ends once it has sent all */
    bool local;   /* the lines come from the local runtime's file */
};

/* The simulated log of obj's last run as printed by now_ms, appended to out, and where
 * it stands (logsim.c). obj is the stored object (borrowed). */
void em_logsim_read(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                    int64_t now_ms, struct em_log_lines *out, struct em_log_state *state);

/* The run an object is in or last ran, from its status (logsim.c): -1 when it has not
 * started; *ended as in em_log_state. */
int64_t em_logsim_run(const struct nd_kind *k, const json_t *obj, bool *ended);

/* Appends "2026-01-02T03:04:05.123456789Z" (RFC 3339, nine fraction digits, as the
 * kubelet writes) for ns nanoseconds since the epoch. */
void em_log_format_time(int64_t ns, struct nd_buf *out);

/* The handler of the log subresource (a row of subresource.c). */
int em_logs_serve(struct em_api *a, const char *verb);

#endif
