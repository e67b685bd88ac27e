/* spend.h: what the priced objects have cost, per project and kind, over the emulator's
 * clock (GET /emulator/v1/spend, api/spend.c).
 *
 * The totals are the sum of status.costUSD of the objects of the billed kinds (Job,
 * Sandbox, Function, Volume: ND_KIND_BILLED; a Pipeline costs what its Jobs cost and is
 * not counted twice), kept up to date from the history's durable changes each time the
 * server publishes (em_server_publish): a change adds what its object's costUSD moved
 * by, so the work is per change, never per object. A deleted object's cost stays in the
 * total (money spent is spent); the first publish after a start or a reset counts the
 * objects the store holds.
 *
 * A sample (the totals at an emulated time) is taken at a publish when the totals
 * changed: the writes of a whole clock jump make one sample, and a sample at the time of
 * the last one (the clock has not moved) replaces it, so samples are one per emulated
 * instant, in time order. The newest EM_SPEND_SAMPLES are kept (a ring: the oldest goes),
 * each numbered by seq (increasing, never reused: a replaced sample gets a new one).
 * Series (a project and a kind) past EM_SPEND_SERIES are counted under the project
 * EM_SPEND_OTHER. Everything here runs with the server lock held.
 */
#ifndef EM_SPEND_H
#define EM_SPEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define EM_SPEND_SAMPLES 1000
#define EM_SPEND_SERIES 256
#define EM_SPEND_OTHER "(other projects)"

struct em_server;

/* Reads the history's durable changes since the last call into the totals, and takes a
 * sample when they changed and the clock moved (see above). */
void em_spend_publish(struct em_server *srv);
/* The store was emptied (a reset): the totals and the samples start again. */
void em_spend_reset(struct em_server *srv);
void em_spend_free(struct em_server *srv);
/* NEW {"time", "totalUSD", "totals": [{project, kind, costUSD}], "samples": [...],
 * "maxSamples"}: the current totals and every kept sample, oldest first. */
json_t *em_spend_json(struct em_server *srv);
/* NEW array of the kept samples with a seq above `after` (oldest first; each {"seq",
 * "time", "timeMs", "totalUSD", "costUSD": {project: {kind: amount}}}); *expired when
 * the ring dropped (or a reset emptied) samples above `after` that were never read. */
json_t *em_spend_after(struct em_server *srv, uint64_t after, bool *expired);
/* Where a new stream starts (the `after` of its first em_spend_after): just before the
 * newest kept sample, which it sends first; when none is kept, after the last seq given. */
uint64_t em_spend_start(const struct em_server *srv);

#endif
