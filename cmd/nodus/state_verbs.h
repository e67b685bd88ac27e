/* state_verbs.h: what suspend, resume, cancel, stop and start share. */
#ifndef ND_STATE_VERBS_H
#define ND_STATE_VERBS_H

#include "cli.h"

/* The flags of the five verbs (one table). */
extern const struct nd_flag nd_state_flags[];
/* Parses the verb's arguments, checks every kind has that state, and patches spec.state
 * to state on each object, printing "KIND/NAME done". Returns the exit code. */
int nd_set_state(int argc, char **argv, struct nd_ctx *ctx, const char *state, const char *done);

#endif
