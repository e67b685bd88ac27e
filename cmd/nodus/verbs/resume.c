/* nodus resume: resume suspended Jobs and Pipelines (spec.state: Running).
 * state_verbs.c does the work. */
#include "commands.h"
#include "state_verbs.h"

int cmd_resume(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_set_state(argc, argv, ctx, "Running", "resumed");
}
