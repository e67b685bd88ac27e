/* The Function controller: the long-running lifecycle of a scaled endpoint, billed per
 * running replica at the Function's rate (em_spec_rate "functions"), with:
 *
 * - scaling: an invocation counts as load for EM_FN_RECENT_MS after it arrives (the
 *   emulator's stand-in for a request in flight). The replicas wanted are
 *   ceil(recent invocations / spec.scaling.concurrency), never fewer than minReplicas
 *   nor more than maxReplicas. A scale-up happens at once (the new replicas are ready
 *   after the price book's "starting" delay); replicas go back down to minReplicas only
 *   after EM_FN_IDLE_MS without any invocation (or at once when maxReplicas is lowered).
 * - status.url: where the Function is invoked (the invoke subresource of the emulator).
 * - the rolling restart request nodus.dev/restart-requested-at: once per new value,
 *   while Running, each replica is replaced in turn (a "starting" delay each, the
 *   Function keeps serving); condition Restarting, status.restartCount.
 *
 * status.simulation: invocations (emulated ms of the recent ones), lastInvokedAt,
 * invocationCount, readyAt (when the replicas started last become ready), restartUntil. */
#include <string.h>

#include "controllers.h"
#include "longrun.h"
#include "objects.h"
#include "pricebook.h"
#include "priced.h"
#include "util/xmalloc.h"

static const json_t *scaling(const struct em_ctl *c)
{
    return json_object_get(json_object_get(c->obj, "spec"), "scaling");
}

static int64_t scaling_int(const struct em_ctl *c, const char *key, int64_t def, int64_t min)
{
    const json_t *v = json_object_get(scaling(c), key);
    int64_t n = json_is_integer(v) ? json_integer_value(v) : def;
    return n < min ? min : n;
}

static int64_t replicas(const struct em_ctl *c)
{
    return json_integer_value(json_object_get(c->status, "replicas"));
}

static int64_t replica_rate(struct em_ctl *c)
{
    return em_ctl_spec_rate(c, -1);
}

static int64_t rate(struct em_ctl *c)
{
    return replica_rate(c) * replicas(c);
}

/* Sets the replica count (the cost so far was accrued at the old count by the caller). */
static void set_replicas(struct em_ctl *c, int64_t n, int64_t ready)
{
    json_object_set_new(c->status, "replicas", json_integer(n));
    json_object_set_new(c->status, "readyReplicas", json_integer(ready));
    if (em_ctl_phase_id(c) == ND_PHASE_RUNNING)
        em_ctl_set_rate(c, replica_rate(c) * n);
    else
        em_ctl_clear_rate(c);
}

static void started(struct em_ctl *c)
{
    int64_t min = scaling_int(c, "minReplicas", 0, 0);
    int64_t max = scaling_int(c, "maxReplicas", 1, 1);
    if (min > max)
        min = max;
    set_replicas(c, min, min); /* the first replicas start with the Function */
    em_ctl_sim_del(c, "readyAt");
}

static void ended(struct em_ctl *c)
{
    set_replicas(c, 0, 0);
    em_ctl_sim_del(c, "readyAt");
    em_ctl_sim_del(c, "restartUntil");
    em_ctl_clear_rate(c);
    if (em_ctl_condition_true(c, "Restarting"))
        em_ctl_condition(c, "Restarting", false, "Stopped", "the Function stopped");
}

/* Invocations still counted as load at now (older ones are dropped from the list). */
static int64_t recent_invocations(struct em_ctl *c, int64_t *next_expiry)
{
    json_t *list = json_object_get(c->sim, "invocations");
    *next_expiry = EM_NEVER;
    for (size_t i = json_array_size(list); i-- > 0;) {
        int64_t t = json_integer_value(json_array_get(list, i));
        if (t + EM_FN_RECENT_MS <= c->now)
            json_array_remove(list, i);
        else if (t + EM_FN_RECENT_MS < *next_expiry)
            *next_expiry = t + EM_FN_RECENT_MS;
    }
    if (list && !json_array_size(list))
        json_object_del(c->sim, "invocations");
    return (int64_t)json_array_size(json_object_get(c->sim, "invocations"));
}

static void scale(struct em_ctl *c)
{
    int64_t min = scaling_int(c, "minReplicas", 0, 0);
    int64_t max = scaling_int(c, "maxReplicas", 1, 1);
    int64_t per = scaling_int(c, "concurrency", 1, 1);
    if (min > max)
        min = max;
    int64_t expiry;
    int64_t load = recent_invocations(c, &expiry);
    int64_t want = (load + per - 1) / per;
    if (want < min)
        want = min;
    if (want > max)
        want = max;
    int64_t cur = replicas(c);
    int64_t ready = json_integer_value(json_object_get(c->status, "readyReplicas"));
    int64_t last = em_ctl_sim_get(c, "lastInvokedAt", -1);
    bool idle = last < 0 || c->now - last >= EM_FN_IDLE_MS;
    if (want > cur) {
        set_replicas(c, want, ready);
        em_ctl_sim_set(c, "readyAt", c->now + em_delay_ms(c->srv, "starting"));
        em_event_record(c->srv, c->k, c->obj, "Normal", "ScaledUp",
                        "scaled from %lld to %lld replicas (%lld recent invocations, "
                        "concurrency %lld)",
                        (long long)cur, (long long)want, (long long)load, (long long)per);
    } else if (want < cur && (idle || cur > max)) {
        set_replicas(c, want, ready < want ? ready : want);
        em_event_record(c->srv, c->k, c->obj, "Normal", "ScaledDown",
                        "scaled from %lld to %lld replicas (%s)", (long long)cur,
                        (long long)want, cur > max ? "maxReplicas lowered" : "idle");
    } else if (want < cur && last >= 0) {
        em_ctl_due(c, last + EM_FN_IDLE_MS);
    }
    int64_t ready_at = em_ctl_sim_get(c, "readyAt", -1);
    if (ready_at >= 0 && c->now >= ready_at) {
        em_ctl_sim_del(c, "readyAt");
        ready_at = -1;
    }
    if (ready_at < 0)
        set_replicas(c, replicas(c), replicas(c));
    else
        em_ctl_due(c, ready_at);
    if (expiry != EM_NEVER)
        em_ctl_due(c, expiry);
}

static void restart_progress(struct em_ctl *c)
{
    int64_t until = em_ctl_sim_get(c, "restartUntil", -1);
    if (until < 0)
        return;
    if (c->now < until) {
        em_ctl_due(c, until);
        return;
    }
    em_ctl_sim_del(c, "restartUntil");
    em_ctl_condition(c, "Restarting", false, "Restarted", "every replica was replaced");
    em_event_record(c->srv, c->k, c->obj, "Normal", "Restarted",
                    "rolling restart done: %lld replicas replaced", (long long)replicas(c));
}

static void running(struct em_ctl *c)
{
    scale(c);
    restart_progress(c);
}

static void status(struct em_ctl *c)
{
    char *url = nd_xasprintf("%s/apis/nodus.dev/v1/namespaces/%s/functions/%s/invoke",
                             c->srv->base_url, em_obj_ns(c->obj), em_obj_name(c->obj));
    json_object_set_new(c->status, "url", json_string(url));
    free(url);
    if (!json_object_get(c->status, "replicas"))
        set_replicas(c, 0, 0);
    if (json_object_get(json_object_get(c->obj, "metadata"), "deletionTimestamp"))
        return;
    const char *req = em_ctl_take_request(c, "restart");
    if (!req)
        return;
    if (em_ctl_phase_id(c) != ND_PHASE_RUNNING) {
        em_event_record(c->srv, c->k, c->obj, "Normal", "RestartSkipped",
                        "restart request %s: nothing to restart (phase %s)", req,
                        em_ctl_phase(c));
        return;
    }
    int64_t n = replicas(c) > 0 ? replicas(c) : 1;
    json_object_set_new(
        c->status, "restartCount",
        json_integer(json_integer_value(json_object_get(c->status, "restartCount")) + 1));
    em_ctl_sim_set(c, "restartUntil", c->now + n * em_delay_ms(c->srv, "starting"));
    em_ctl_condition(c, "Restarting", true, "RollingRestart",
                     "replacing the replicas one at a time");
    em_event_record(c->srv, c->k, c->obj, "Normal", "Restarting",
                    "rolling restart requested at %s", req);
    em_ctl_due(c, em_ctl_sim_get(c, "restartUntil", c->now));
}

static const struct em_longrun_ops ops = {
    .rate = rate,
    .started = started,
    .ended = ended,
    .running = running,
    .status = status,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

const struct em_controller em_function_controller = {"functions", reconcile};

void em_function_record_invocation(json_t *fn, int64_t now)
{
    json_t *status = json_object_get(fn, "status");
    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(fn, "status", status);
    }
    json_t *sim = json_object_get(status, "simulation");
    if (!json_is_object(sim)) {
        sim = json_object();
        json_object_set_new(status, "simulation", sim);
    }
    json_t *list = json_object_get(sim, "invocations");
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(sim, "invocations", list);
    }
    for (size_t i = json_array_size(list); i-- > 0;)
        if (json_integer_value(json_array_get(list, i)) + EM_FN_RECENT_MS <= now)
            json_array_remove(list, i);
    json_array_append_new(list, json_integer(now));
    json_object_set_new(sim, "lastInvokedAt", json_integer(now));
    json_object_set_new(sim, "invocationCount",
                        json_integer(json_integer_value(json_object_get(sim, "invocationCount")) +
                                     1));
}
