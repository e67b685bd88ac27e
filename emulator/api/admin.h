/* admin.h: the control endpoints under /emulator/v1/ and injected faults.
 * All called with the server lock held. */
#ifndef EM_ADMIN_H
#define EM_ADMIN_H

#include "route.h"
#include "server.h"

/* Serves /emulator/v1/<rest>. */
void em_admin_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                     const char *rest);
/* When an injected fault matches the request (its route's method and path; never the
 * control endpoints, health checks or docs): fills resp, sets *delay_ms (how long to
 * wait before answering, with the lock released) and returns 1. 0 otherwise. A fault
 * with status 0 only delays: its delay is added to *delay_ms and later faults are
 * still tried. */
int em_faults_check(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                    struct em_resp *resp, int64_t *delay_ms);
void em_faults_release(struct em_server *srv);

/* /emulator/v1/snapshots[/NAME[/restore]] (snapshot.c); rest is what follows
 * "snapshots". 0 with resp filled, or -1 with st. */
int em_snapshot_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                       const char *rest, struct nd_status *st);

/* Hooks the admin endpoints call into the rest of the emulator. */
int em_reset_state(struct em_server *srv, struct nd_status *st);
json_t *em_stats_json(struct em_server *srv); /* NEW */
/* GET /emulator/v1/spend[?watch=true] (spend_watch.c): 0 (resp filled, a stream when
 * watched), or -1 with st set. */
int em_spend_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                    struct nd_status *st);

#endif
