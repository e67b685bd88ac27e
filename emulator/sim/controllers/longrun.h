/* longrun.h: the long-running family's lifecycle (Sandbox, Function, Volume, Pool,
 * Budget, Host): Pending -> Starting -> Running -> Stopped, Terminating while deleted.
 *
 * em_longrun_reconcile() walks the phases with the price book's delays ("pending",
 * "starting"), honours spec.state (Stopped stops, Running starts again from Pending),
 * accrues cost while Running at ops->rate (maxCostUSD stops it, reason MaxCostReached),
 * keeps the Ready condition, and on delete goes Terminating until ops->can_go says the
 * object may go and the final charge has posted. Each kind adds its own behaviour
 * through the hooks; every hook is optional.
 */
#ifndef EM_CTL_LONGRUN_H
#define EM_CTL_LONGRUN_H

#include "common.h"

struct em_longrun_ops {
    /* Hourly rate while Running (micro-dollars); NULL: not billed by the hour. */
    int64_t (*rate)(struct em_ctl *c);
    /* Whether it may leave Pending now (capacity); *wait: when to look again. */
    bool (*can_start)(struct em_ctl *c, int64_t *wait);
    /* Called on every reconcile while Running, after accrual. May stop the object
     * with em_longrun_stop(). */
    void (*running)(struct em_ctl *c);
    /* Called once on entering Running, and once on leaving it (stopped, deleted). */
    void (*started)(struct em_ctl *c);
    void (*ended)(struct em_ctl *c);
    /* While Terminating: whether the object may go (e.g. a Volume still mounted: no).
     * NULL: yes. */
    bool (*can_go)(struct em_ctl *c);
    /* Fills kind-specific status on every reconcile (any phase). */
    void (*status)(struct em_ctl *c);
};

int64_t em_longrun_reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                             int64_t now, const struct em_longrun_ops *ops);

/* Stops a Running object from a hook (idle timeout, cost limit): phase Stopped with
 * reason and message; it stays Stopped until spec.state changes or a restart request. */
void em_longrun_stop(struct em_ctl *c, const struct em_longrun_ops *ops, const char *reason,
                     const char *message);
/* Starts a Stopped object again from Pending (a restart request). */
void em_longrun_restart(struct em_ctl *c, const struct em_longrun_ops *ops, const char *reason,
                        const char *message);

/* spec.state, "Running" when unset. */
const char *em_ctl_state(const struct em_ctl *c);

/* A request annotation nodus.dev/<action>-requested-at whose value is new (not yet in
 * status.requests.<action>): returns the value (borrowed) and records it as handled;
 * NULL when there is nothing new. */
const char *em_ctl_take_request(struct em_ctl *c, const char *action);

#endif
