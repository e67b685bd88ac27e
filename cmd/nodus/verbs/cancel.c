/* nodus cancel: cancel Jobs and Pipelines (spec.state: Cancelled).
 * state_verbs.c does the work. */
#include "commands.h"
#include "state_verbs.h"

int cmd_cancel(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_set_state(argc, argv, ctx, "Cancelled", "cancelled");
}
