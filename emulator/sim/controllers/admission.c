/* admission.c: whether a queued Job may be placed now. The market always has room;
 * Pools (routing, waits, bursts), reviewed prices and Budgets add their rules here. */
#include "controllers.h"
#include "pools.h"
#include "priced.h"

bool em_job_can_start(struct em_ctl *c, int64_t *wait)
{
    *wait = EM_NEVER;
    return em_route_place(c, "jobs", wait); /* true when not routed to a Pool */
}

bool em_sandbox_can_start(struct em_ctl *c, int64_t *wait)
{
    em_ctl_spec_rate(c, -1); /* says while it waits when its GPU model lost its price */
    return em_route_place(c, "sandboxes", wait);
}
