/* nodus suspend: suspend Jobs and Pipelines (spec.state: Suspended).
 * state_verbs.c does the work. */
#include "commands.h"
#include "state_verbs.h"

int cmd_suspend(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_set_state(argc, argv, ctx, "Suspended", "suspended");
}
