/* decision.h: what approve and reject share. */
#ifndef ND_DECISION_H
#define ND_DECISION_H

#include "cli.h"

/* The flags of approve and reject (one table). */
extern const struct nd_flag nd_decide_flags[];
/* Parses the verb's arguments (bare names are PoolActions) and patches spec.decision to
 * decision on each, printing "poolaction/NAME done". Returns the exit code. */
int nd_decide(int argc, char **argv, struct nd_ctx *ctx, const char *decision, const char *done);

#endif
