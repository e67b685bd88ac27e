/* pools.h: what the Pool, Host, PoolAction and routing code share (private to controllers/).
 *
 * The source of truth for what runs where is the work itself: a Job or Sandbox placed in
 * a Pool carries status.placement {target: pool/<name>, host, gpuModel}, and it holds
 * those devices while it is placed and neither ended, suspended, stopped nor being
 * deleted. Hosts (status.allocated) and Pools (status.capacity, utilization, routing)
 * are views computed from it, so devices are released by the work's own phase changes.
 *
 * Every function runs with the server lock held. Arrays returned NEW hold references to
 * stored objects: read them, never change them in place.
 */
#ifndef EM_CTL_POOLS_H
#define EM_CTL_POOLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"

#define EM_HOUR_MS (3600LL * 1000)
/* A Pool keeps it until its controller has told its Hosts and work it is going. */
#define EM_FINALIZER_POOL "nodus.dev/routing"
/* Annotations Nodus sets on a Host: the Drain holding it cordoned (lifted by the Host
 * controller when that PoolAction no longer runs), and the IdleReclaim that returned it. */
#define EM_ANN_DRAINED_BY   "nodus.dev/drained-by"
#define EM_ANN_RECLAIMED_BY "nodus.dev/reclaimed-by"

/* ---- work routed to Pools (routing.c) ---- */

/* spec.placement.pool, or NULL. BORROWED. */
const char *em_work_pool(const json_t *obj);
/* GPUs the work asks for (0 for CPU work); *model (BORROWED, may be NULL) the model. */
int em_work_gpus(const json_t *obj, const char **model);
/* When the work began waiting to be placed: the start of its Queued (Job) or Pending
 * (Sandbox) phase, in emulated ms. */
int64_t em_work_queued_since(const json_t *obj);
/* Whether the work holds devices of a Pool host now. */
bool em_work_holds(const char *plural, const json_t *obj);
/* Whether it waits to be placed: meant to run, not placed, not being deleted. */
bool em_work_waiting(const char *plural, const json_t *obj);
/* Whether it runs (or is about to) on the market. */
bool em_work_on_market(const char *plural, const json_t *obj);

/* NEW array of [plural, object] pairs: every Job and Sandbox of ns routed to pool. */
json_t *em_pool_work(struct em_server *srv, const char *ns, const char *pool);
/* NEW array of the Hosts enrolled in pool (sorted by name), being-deleted ones left out. */
json_t *em_pool_hosts(struct em_server *srv, const char *ns, const char *pool);
/* NEW object: host name -> {model: devices held by work}, from the pool's work. */
json_t *em_pool_allocated(struct em_server *srv, const char *ns, const char *pool);
/* Devices of a model held on one host, from em_pool_allocated's answer. */
int64_t em_alloc_of(const json_t *alloc, const char *host, const char *model);
/* A Host is Ready when Running and not being deleted. */
bool em_host_ready(const json_t *host);
bool em_host_cordoned(const json_t *host);
/* Devices of a model a host carries. */
int64_t em_host_devices(const json_t *host, const char *model);

/* The Job controller's and Sandbox controller's hook while the work waits (Queued,
 * Pending): places work routed to a Pool on a free device of a Ready, uncordoned host,
 * else follows the Pool's waitPolicy, waitTimeout, burstToMarket and mode. Returns true
 * when the work is placed (status.placement, status.rateUSDPerHour set), else false with
 * *wait the emulated time to look again (EM_NEVER: when something changes). Work not
 * routed to a Pool is placed by its controller (true). */
bool em_route_place(struct em_ctl *c, const char *plural, int64_t *wait);

/* ---- PoolActions (poolaction.c) ---- */

/* NEW array of the PoolActions of pool (spec.pool), sorted by name. */
json_t *em_pool_actions(struct em_server *srv, const char *ns, const char *pool);
/* Whether a PoolAction has not ended. */
bool em_action_open(const json_t *pa);
/* Whether it ended because its Pool's Act was paused (the kill switch). */
bool em_action_paused_out(const json_t *pa);
/* The deterministic name of a Pool's action: <pool>-<action>-<hash of action, target and
 * key>, at most 63 characters. NEW string. */
char *em_action_name(const char *pool, const char *action, const char *target, const char *key);
/* Creates the PoolAction (owned by the Pool, ownerReferences controller: true) unless one
 * of that name exists; params is STOLEN (NULL: none). decision: Shadow, Pending or
 * Approved (Approved ones record decidedBy as the Pool's Act tier). Records an Event on
 * the Pool. Returns the stored object (BORROWED) or NULL on failure. */
const json_t *em_action_create(struct em_server *srv, const json_t *pool, const char *action,
                               const char *target, const char *key, json_t *params,
                               const char *reason, const char *decision);

/* ---- the Pool's tiers (pool_predict.c, pool_act.c) ---- */

/* Integrates utilization (busy and total devices) and demand up to c->now, closing hour
 * buckets on the way, then records the current values; fills status.utilization and asks
 * to run at the next hour. */
void em_pool_track(struct em_ctl *c, int64_t busy, int64_t total, int64_t demand);
/* Predict: the fee accrued from status.predict.enabledTime, and the forecast of peak
 * demand against devices (status.forecast), redone every hour. Clears both when off. */
void em_pool_predict(struct em_ctl *c, int64_t devices);
/* Act: the policies of spec.act create PoolActions per mode (Shadow, Propose, Auto). */
void em_pool_act(struct em_ctl *c, const json_t *hosts, const json_t *alloc, const json_t *work,
                 const json_t *actions);
/* Whether the Pool's Act pre-approves a burst of gpus devices at market rate (Auto mode,
 * a Burst policy whose maxGPUs and maxRateUSDPerHour cover it, counting market_gpus
 * already on the market). */
bool em_pool_burst_preapproved(const json_t *pool, int64_t gpus, int64_t market_gpus, int64_t rate);
/* Defragment's plan: every piece of work holding devices on host moved to the Pool's
 * other busy (Ready, uncordoned, partly used) hosts of the same GPU model, largest first,
 * each to the host it fills best. NEW array of [plural, name, destination host], or NULL
 * when the host runs nothing movable or its work does not fit. */
json_t *em_defrag_plan(struct em_server *srv, const char *ns, const char *pool, const char *host);
/* The next minute matching a cron expression strictly after t (emulated ms), or -1 when
 * the expression is not valid or matches nothing within 5 years. */
int64_t em_cron_next(const char *expr, int64_t t);

/* ---- small shared helpers (pool.c) ---- */

/* A duration field of obj (dotted path), or def. */
int64_t em_json_duration(const json_t *obj, const char *path, int64_t def);
/* An RFC 3339 time as ms, or -1. */
int64_t em_json_time(const json_t *v);
/* The Pool's spec.act.paused. */
bool em_pool_paused(const json_t *pool);
bool em_obj_deleting(const json_t *obj);

#endif
