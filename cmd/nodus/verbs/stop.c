/* nodus stop: stop Sandboxes, Functions and Budgets (spec.state: Stopped).
 * state_verbs.c does the work. */
#include "commands.h"
#include "state_verbs.h"

int cmd_stop(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_set_state(argc, argv, ctx, "Stopped", "stopped");
}
