/* controllers.h: the controller of each kind, and the rules they share. */
#ifndef EM_CONTROLLERS_H
#define EM_CONTROLLERS_H

#include <stdbool.h>

#include "common.h"

extern const struct em_controller em_job_controller;
extern const struct em_controller em_sandbox_controller;
extern const struct em_controller em_pool_controller;
extern const struct em_controller em_host_controller;
extern const struct em_controller em_poolaction_controller;

/* Whether a queued Job may be placed now. When not, *wait is the emulated time to look
 * again (EM_NEVER: when something changes). */
bool em_job_can_start(struct em_ctl *c, int64_t *wait);

/* Whether a Pending Sandbox may start now (its Pool's routing, when spec.placement.pool
 * is set). When not, *wait is the emulated time to look again. */
bool em_sandbox_can_start(struct em_ctl *c, int64_t *wait);

/* Open exec sessions into a Sandbox (exec.c keeps them; 0 when none). A Sandbox with
 * a session open is not idle. */
int em_sandbox_sessions(struct em_server *srv, const json_t *sandbox);

#endif
