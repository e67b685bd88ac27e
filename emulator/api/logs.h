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
#include "loglines.h"

/* The handler of the log subresource (a row of subresource.c). */
int em_logs_serve(struct em_api *a, const char *verb);

#endif
