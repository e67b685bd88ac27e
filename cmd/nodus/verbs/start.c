/* nodus start: start stopped Sandboxes, Functions and Budgets (spec.state: Running).
 * state_verbs.c does the work. */
#include "commands.h"
#include "state_verbs.h"

int cmd_start(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_set_state(argc, argv, ctx, "Running", "started");
}
