/* controllers.h: the controller of each kind, and the rules they share. */
#ifndef EM_CONTROLLERS_H
#define EM_CONTROLLERS_H

#include <stdbool.h>

#include "common.h"

extern const struct em_controller em_job_controller;
extern const struct em_controller em_sandbox_controller;

/* Whether a queued Job may be placed now. When not, *wait is the emulated time to look
 * again (EM_NEVER: when something changes). */
bool em_job_can_start(struct em_ctl *c, int64_t *wait);

/* Open exec sessions into a Sandbox (exec.c keeps them; 0 when none). A Sandbox with
 * a session open is not idle. */
int em_sandbox_sessions(struct em_server *srv, const json_t *sandbox);
/* An exec session into the Sandbox (the stored object) ended now: while it is Running,
 * its idle clock starts again (status.lastActivityTime). Lock held. */
void em_sandbox_session_ended(struct em_server *srv, json_t *sandbox);

#endif
