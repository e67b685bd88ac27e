/* nodus reject: reject PoolActions waiting for a decision (decision.c does the work). */
#include "commands.h"
#include "decision.h"

int cmd_reject(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_decide(argc, argv, ctx, "Rejected", "rejected");
}
