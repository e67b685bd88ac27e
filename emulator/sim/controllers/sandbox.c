/* The Sandbox controller: the long-running lifecycle billed at the Sandbox's rate,
 * idleTimeout (Stopped, reason IdleTimeout, after that long Running with no exec
 * session), and the restart request (nodus.dev/restart-requested-at, once per value;
 * status.requests.restart, status.restartCount). */
#include <string.h>

#include "controllers.h"
#include "longrun.h"
#include "pricebook.h"
#include "priced.h"
#include "util/time.h"

static int64_t rate(struct em_ctl *c)
{
    int64_t r = c->money->rate;
    int64_t spec = em_ctl_spec_rate(c, r);
    return r >= 0 ? r : spec;
}

static void started(struct em_ctl *c)
{
    em_ctl_set_rate(c, rate(c));
    em_ctl_sim_set(c, "activeAt", c->now);
}

static void ended(struct em_ctl *c)
{
    em_ctl_clear_rate(c);
}

static int64_t idle_timeout(const struct em_ctl *c)
{
    const char *s = json_string_value(
        json_object_get(json_object_get(c->obj, "spec"), "idleTimeout"));
    int64_t ms = 30 * 60 * 1000;
    struct nd_status st = ND_STATUS_INIT;
    if (s && nd_duration_parse(s, &ms, &st) < 0)
        ms = 30 * 60 * 1000;
    nd_status_release(&st);
    return ms;
}

static const struct em_longrun_ops ops;

static void running(struct em_ctl *c)
{
    int64_t limit = idle_timeout(c);
    if (limit <= 0)
        return;
    int64_t active = em_ctl_sim_get(c, "activeAt", c->now);
    int (*sessions)(struct em_server *, const json_t *) = c->srv->hooks.sandbox_sessions;
    if (sessions && sessions(c->srv, c->obj) > 0) { /* api/exec.c keeps them */
        em_ctl_sim_set(c, "activeAt", c->now);
        active = c->now;
    }
    if (c->now - active >= limit) {
        em_longrun_stop(c, &ops, "IdleTimeout", "stopped: no exec session for spec.idleTimeout");
        return;
    }
    em_ctl_due(c, active + limit);
}

static const struct em_longrun_ops ops = {
    .rate = rate,
    .can_start = em_sandbox_can_start,
    .started = started,
    .ended = ended,
    .running = running,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    const char *req = json_string_value(json_object_get(
        json_object_get(json_object_get(obj, "metadata"), "annotations"),
        "nodus.dev/restart-requested-at"));
    const char *done = json_string_value(
        json_object_get(json_object_get(json_object_get(obj, "status"), "requests"), "restart"));
    if (req && *req && (!done || strcmp(req, done) != 0) &&
        !json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp")) {
        struct em_ctl c;
        em_ctl_begin(&c, srv, k, obj, now);
        em_ctl_take_request(&c, "restart");
        json_object_set_new(
            c.status, "restartCount",
            json_integer(json_integer_value(json_object_get(c.status, "restartCount")) + 1));
        if (strcmp(em_ctl_state(&c), "Stopped") != 0)
            em_longrun_restart(&c, &ops, "Restarted",
                               "restarting: nodus.dev/restart-requested-at changed");
        em_ctl_commit(&c);
        return now; /* run again at once on the new state */
    }
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

void em_sandbox_session_ended(struct em_server *srv, json_t *sandbox)
{
    const struct nd_kind *k = nd_kind_by_plural(NULL, "sandboxes");
    struct em_ctl c;
    em_ctl_begin(&c, srv, k, sandbox, em_clock_now_ms(&srv->clock));
    if (em_ctl_phase_id(&c) == ND_PHASE_RUNNING) {
        em_ctl_sim_set(&c, "activeAt", c.now);
        em_ctl_set_time(&c, "lastActivityTime", c.now);
    }
    em_ctl_commit(&c);
}

const struct em_controller em_sandbox_controller = {"sandboxes", reconcile};
