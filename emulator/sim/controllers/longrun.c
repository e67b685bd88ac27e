/* The long-running family's lifecycle; see longrun.h. */
#include "longrun.h"

#include <string.h>

#include "objects.h"
#include "pricebook.h"

const char *em_ctl_state(const struct em_ctl *c)
{
    const char *s = json_string_value(json_object_get(json_object_get(c->obj, "spec"), "state"));
    return s ? s : "Running";
}

const char *em_ctl_take_request(struct em_ctl *c, const char *action)
{
    char key[96];
    snprintf(key, sizeof key, "nodus.dev/%s-requested-at", action);
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(c->obj, "metadata"), "annotations"), key));
    if (!v || !*v)
        return NULL;
    json_t *req = json_object_get(c->status, "requests");
    if (!json_is_object(req)) {
        req = json_object();
        json_object_set_new(c->status, "requests", req);
    }
    const char *done = json_string_value(json_object_get(req, action));
    if (done && !strcmp(done, v))
        return NULL;
    json_object_set_new(req, action, json_string(v));
    return v;
}

static int64_t rate(struct em_ctl *c, const struct em_longrun_ops *ops)
{
    return ops->rate ? ops->rate(c) : 0;
}

static bool running(const struct em_ctl *c)
{
    return em_ctl_phase_id(c) == ND_PHASE_RUNNING;
}

static bool ready_because(const struct em_ctl *c, const char *reason)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(c->status, "conditions"), i, x) {
        const char *t = json_string_value(json_object_get(x, "type"));
        const char *r = json_string_value(json_object_get(x, "reason"));
        if (t && !strcmp(t, "Ready"))
            return r && !strcmp(r, reason);
    }
    return false;
}

void em_longrun_stop(struct em_ctl *c, const struct em_longrun_ops *ops, const char *reason,
                     const char *message)
{
    bool was = running(c);
    em_ctl_accrue_stop(c, rate(c, ops));
    if (was && ops->ended)
        ops->ended(c);
    json_object_set_new(c->status, "reason", json_string(reason));
    json_object_set_new(c->status, "message", json_string(message));
    em_ctl_sim_set(c, "stoppedAt", c->now);
    em_ctl_condition(c, "Ready", false, reason, message);
    em_ctl_set_phase(c, "Stopped", reason, "%s", message);
}

void em_longrun_restart(struct em_ctl *c, const struct em_longrun_ops *ops, const char *reason,
                        const char *message)
{
    if (running(c)) {
        em_ctl_accrue_stop(c, rate(c, ops));
        if (ops->ended)
            ops->ended(c);
    }
    json_object_del(c->status, "reason");
    em_ctl_sim_del(c, "stoppedAt");
    em_ctl_condition(c, "Ready", false, reason, message);
    em_ctl_set_phase(c, "Pending", reason, "%s", message);
}

/* Walks Pending -> Starting -> Running as far as the clock allows. */
static void advance(struct em_ctl *c, const struct em_longrun_ops *ops)
{
    const char *phase = em_ctl_phase(c);
    if (!*phase || nd_phase_parse(phase) == ND_PHASE_PENDING) {
        if (!*phase)
            json_object_set_new(c->status, "phase", json_string("Pending"));
        int64_t wait = EM_NEVER;
        if (ops->can_start && !ops->can_start(c, &wait)) {
            em_ctl_due(c, wait);
            em_ctl_condition(c, "Ready", false, "Pending", "waiting for capacity");
            return;
        }
        int64_t at = em_ctl_phase_time(c) + em_delay_ms(c->srv, "pending");
        if (c->now < at) {
            em_ctl_due(c, at);
            em_ctl_condition(c, "Ready", false, "Pending", "waiting to be placed");
            return;
        }
        em_ctl_condition(c, "Ready", false, "Starting", "starting");
        em_ctl_set_phase(c, "Starting", "Starting", "placed; starting");
    }
    if (em_ctl_phase_id(c) == ND_PHASE_STARTING) {
        int64_t at = em_ctl_phase_time(c) + em_delay_ms(c->srv, "starting");
        if (c->now < at) {
            em_ctl_due(c, at);
            return;
        }
        json_object_del(c->status, "reason");
        json_object_del(c->status, "message");
        if (!json_object_get(c->status, "startTime"))
            em_ctl_set_time(c, "startTime", c->now);
        if (ops->rate)
            em_ctl_accrue_start(c);
        em_ctl_condition(c, "Ready", true, "Running", "running");
        em_ctl_set_phase(c, "Running", "Running", "running");
        if (ops->started)
            ops->started(c);
    }
}

/* While Running: cost, the cost limit, the kind's own rules, the next accrual. */
static void run(struct em_ctl *c, const struct em_longrun_ops *ops)
{
    int64_t r = rate(c, ops);
    if (ops->rate) {
        em_ctl_accrue(c, r);
        int64_t max = c->money->max_cost;
        int64_t cost = c->money->cost;
        if (max >= 0 && cost >= max) {
            em_ctl_set_cost(c, max);
            em_longrun_stop(c, ops, "MaxCostReached", "stopped: the cost reached maxCostUSD");
            return;
        }
        if (r > 0) {
            int64_t step = EM_ACCRUE_EVERY_MS;
            if (max >= 0) {
                __int128 ms = ((__int128)(max - cost) * 3600000 + r - 1) / r;
                if (ms < step)
                    step = ms < 1 ? 1 : (int64_t)ms;
            }
            em_ctl_due(c, c->now + step);
        }
    }
    if (ops->running)
        ops->running(c);
}

int64_t em_longrun_reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                             int64_t now, const struct em_longrun_ops *ops)
{
    struct em_ctl c;
    em_ctl_begin(&c, srv, k, obj, now);
    bool deleting = json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;

    if (deleting) {
        /* the delete request already set phase Terminating (objects.c): the Ready
         * condition tells whether the controller has handled it, and whether it ran */
        if (!ready_because(&c, "Terminating")) {
            bool was = em_ctl_sim_get(&c, "accruedAt", -1) >= 0 ||
                       em_ctl_condition_true(&c, "Ready");
            em_ctl_accrue_stop(&c, rate(&c, ops));
            if (was && ops->ended)
                ops->ended(&c);
            int64_t stopped = em_ctl_sim_get(&c, "stoppedAt", -1);
            em_ctl_sim_set(&c, "endedAt", was || stopped < 0 ? now : stopped);
            em_ctl_condition(&c, "Ready", false, "Terminating", "being deleted");
            em_ctl_set_phase(&c, "Terminating", "Terminating", "being deleted");
        }
        if (ops->status)
            ops->status(&c);
        if (!ops->can_go || ops->can_go(&c))
            em_ctl_settle(&c, em_ctl_sim_get(&c, "endedAt", now));
        return em_ctl_commit(&c);
    }

    const char *state = em_ctl_state(&c);
    if (!strcmp(state, "Stopped")) {
        if (em_ctl_phase_id(&c) != ND_PHASE_STOPPED)
            em_longrun_stop(&c, ops, "Stopped", "stopped: spec.state is Stopped");
    } else if (em_ctl_phase_id(&c) == ND_PHASE_STOPPED) {
        /* spec.state Running again after a stop by the user: start over */
        const char *why = json_string_value(json_object_get(c.status, "reason"));
        if (why && !strcmp(why, "Stopped"))
            em_longrun_restart(&c, ops, "Started", "started: spec.state is Running");
    }
    if (em_ctl_phase_id(&c) != ND_PHASE_STOPPED) {
        advance(&c, ops);
        if (running(&c))
            run(&c, ops);
    }
    if (ops->status)
        ops->status(&c);
    return em_ctl_commit(&c);
}
