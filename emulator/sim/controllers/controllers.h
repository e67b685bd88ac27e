/* controllers.h: the controller of each kind, and the rules they share. */
#ifndef EM_CONTROLLERS_H
#define EM_CONTROLLERS_H

#include <stdbool.h>

#include "common.h"

extern const struct em_controller em_job_controller;
extern const struct em_controller em_sandbox_controller;
extern const struct em_controller em_budget_controller;
extern const struct em_controller em_pipeline_controller;
extern const struct em_controller em_volume_controller;
extern const struct em_controller em_function_controller;
extern const struct em_controller em_pool_controller;
extern const struct em_controller em_host_controller;
extern const struct em_controller em_poolaction_controller;

/* Whether a queued Job may be placed now. When not, *wait is the emulated time to look
 * again (EM_NEVER: when something changes). */
bool em_job_can_start(struct em_ctl *c, int64_t *wait);

/* Whether a Pending Sandbox may start now (its Pool's routing, when spec.placement.pool
 * is set). When not, *wait is the emulated time to look again. */
bool em_sandbox_can_start(struct em_ctl *c, int64_t *wait);

/* An exec session into the Sandbox (the stored object) ended now: while it is Running,
 * its idle clock starts again (status.lastActivityTime). Lock held. */
void em_sandbox_session_ended(struct em_server *srv, json_t *sandbox);

/* Budgets (budget.c). Whether launching obj (an object of kind k, as it would be stored)
 * passes every Budget of its project with action Block: 0, or -1 with st BudgetExceeded
 * naming the Budget and what to do. */
int em_budget_check_launch(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                           struct nd_status *st);
/* What an object has cost up to now (micro-dollars): status.costUSD plus what accrued
 * since its controller last wrote it. *rate (may be NULL) gets its hourly rate now, 0
 * when it is not accruing. */
int64_t em_live_cost(struct em_server *srv, const char *plural, const json_t *obj, int64_t now,
                     int64_t *rate);

/* Volumes (volume.c): a Volume's storage cost up to now (micro-dollars). */
int64_t em_volume_cost(struct em_server *srv, const json_t *vol, int64_t now);

/* Functions (function.c). An invocation counts as load this long; replicas go back to
 * minReplicas after this long without one. */
#define EM_FN_RECENT_MS (60 * 1000)
#define EM_FN_IDLE_MS (5 * 60 * 1000)
/* Records an invocation at now on a copy of a Function (status.simulation). */
void em_function_record_invocation(json_t *fn, int64_t now);

#endif
