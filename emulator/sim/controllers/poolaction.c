/* The PoolAction controller (run-to-completion: Queued -> Provisioning -> Running ->
 * Succeeded | Failed | Cancelled) and its write-time rule.
 *
 * A PoolAction waits in Queued for its decision: Pending waits for a person (nodus
 * approve / reject), Approved runs after the price book's queued and provisioning delays,
 * Rejected ends Cancelled, Shadow (recorded by a Pool in Shadow mode) ends Cancelled at
 * once without running. While its Pool's spec.act.paused is true, a waiting action is
 * cancelled and a running one stops at its next safe point (both end Cancelled, reason
 * Paused). What running does:
 *   IdleReclaim  cordons the idle host (annotation nodus.dev/reclaimed-by), if still idle
 *   Drain        cordons the Pool's uncordoned hosts (annotation nodus.dev/drained-by) until
 *                the window (params.windowStart + params.duration) closes; the Host
 *                controller puts them back once the action no longer runs
 *   Defragment   moves the work of the target host to the other busy hosts (em_defrag_plan)
 *   WaitTuning   sets the Pool's spec.routing.waitTimeout to params.waitTimeout
 *   Burst        ends once its work runs on the market (the work bursts itself as soon as
 *                the decision is Approved); work that no longer waits cancels it
 *
 * status.decision shows the decision that holds (the DECISION column): spec.decision,
 * or Cancelled for an action that ended while Pending.
 *
 * em_poolaction_admit: a decision set by a user records status.decisionTime and
 * status.decidedBy; users decide with Approved or Rejected only, and an ended action
 * takes no decision.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "kinds/field_errors.h"
#include "kinds/object.h"
#include "controllers.h"
#include "objects.h"
#include "pools.h"
#include "pricebook.h"
#include "util/hash.h"
#include "util/id.h"
#include "util/time.h"
#include "util/xmalloc.h"

static bool ended(const char *phase)
{
    return nd_phase_ended(nd_phase_parse(phase));
}

bool em_action_open(const json_t *pa)
{
    return !ended(nd_obj_get_string(pa, "status.phase")) && !em_obj_deleting(pa);
}

bool em_action_paused_out(const json_t *pa)
{
    const char *phase = nd_obj_get_string(pa, "status.phase");
    if (nd_phase_parse(phase) != ND_PHASE_CANCELLED)
        return false;
    size_t i;
    json_t *cond;
    json_array_foreach(nd_obj_get(pa, "status.conditions"), i, cond) {
        const char *t = json_string_value(json_object_get(cond, "type"));
        const char *r = json_string_value(json_object_get(cond, "reason"));
        if (t && r && !strcmp(t, "Ready") && !strcmp(r, "Paused"))
            return true;
    }
    return false;
}

json_t *em_pool_actions(struct em_server *srv, const char *ns, const char *pool)
{
    json_t *out = json_array();
    json_t *items = em_store_list(&srv->store, nd_kind_by_plural(NULL, "poolactions"), ns);
    size_t i;
    json_t *pa;
    json_array_foreach(items, i, pa) {
        const char *p = nd_obj_get_string(pa, "spec.pool");
        if (p && !strcmp(p, pool))
            json_array_append(out, pa);
    }
    json_decref(items);
    return out;
}

char *em_action_name(const char *pool, const char *action, const char *target, const char *key)
{
    uint64_t h = ND_FNV64_INIT;
    h = nd_fnv64(h, action, strlen(action) + 1);
    h = nd_fnv64(h, target, strlen(target) + 1);
    h = nd_fnv64(h, key, strlen(key) + 1);
    char hex[17];
    nd_hash_hex(h, hex);
    char lower[32];
    size_t n = strlen(action);
    if (n >= sizeof lower)
        n = sizeof lower - 1;
    for (size_t i = 0; i < n; i++)
        lower[i] = (char)(action[i] >= 'A' && action[i] <= 'Z' ? action[i] + 32 : action[i]);
    lower[n] = '\0';
    int room = 63 - 1 - (int)n - 1 - 8;
    return nd_xasprintf("%.*s-%s-%.8s", room, pool, lower, hex);
}

const json_t *em_action_create(struct em_server *srv, const json_t *pool, const char *action,
                               const char *target, const char *key, json_t *params,
                               const char *reason, const char *decision)
{
    const char *ns = em_obj_ns(pool), *pname = em_obj_name(pool);
    char *name = em_action_name(pname, action, target, key);
    json_t *existing = em_store_get(&srv->store, nd_kind_by_plural(NULL, "poolactions"), ns, name);
    if (existing) {
        json_decref(params);
        free(name);
        return existing;
    }
    const struct nd_kind *k = nd_kind_by_plural(NULL, "poolactions");
    char now[32];
    em_now_rfc3339(srv, now);
    char *uid = nd_uid_new(k->uid_prefix);
    json_t *meta = json_pack(
        "{s:s, s:s, s:s, s:i, s:s, s:{s:s, s:s}, s:[{s:s, s:s, s:s, s:O, s:b, s:b}]}", "name", name,
        "namespace", ns, "uid", uid, "generation", 1, "creationTimestamp", now, "labels",
        "nodus.dev/pool", pname, "nodus.dev/created-by", "nodus", "ownerReferences", "apiVersion",
        "nodus.dev/v1", "kind", "Pool", "name", pname, "uid", nd_obj_get(pool, "metadata.uid"),
        "controller", 1, "blockOwnerDeletion", 1);
    free(uid);
    json_t *spec = json_pack("{s:s, s:s, s:s}", "pool", pname, "action", action, "target", target);
    if (params)
        json_object_set_new(spec, "params", params);
    json_object_set_new(spec, "reason", json_string(reason));
    json_object_set_new(spec, "decision", json_string(decision));
    json_t *status = json_pack("{s:s, s:s}", "phase", "Queued", "decision", decision);
    if (!strcmp(decision, "Approved")) {
        json_object_set_new(status, "decisionTime", json_string(now));
        json_object_set_new(status, "decidedBy", json_sprintf("pool/%s (Act Auto)", pname));
    }
    json_t *obj = json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", "nodus.dev/v1", "kind",
                            "PoolAction", "metadata", meta, "spec", spec, "status", status);
    struct nd_status st = ND_STATUS_INIT;
    const json_t *stored = NULL;
    if (em_obj_add(srv, k, obj, &st) == 0) {
        stored = em_store_get(&srv->store, nd_kind_by_plural(NULL, "poolactions"), ns, name);
        const char *verb = !strcmp(decision, "Shadow")    ? "ActionRecorded"
                           : !strcmp(decision, "Pending") ? "ActionProposed"
                                                          : "ActionApproved";
        em_event_record(srv, nd_kind_by_plural(NULL, "pools"), pool, "Normal", verb,
                        "poolaction/%s (%s %s, decision %s): %s", name, action, target, decision,
                        reason);
    }
    nd_status_release(&st);
    json_decref(obj);
    free(name);
    return stored;
}

/* ---- the controller ---- */

static void finish(struct em_ctl *c, const char *phase, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void finish(struct em_ctl *c, const char *phase, const char *reason, const char *fmt, ...)
{
    struct nd_buf msg = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    em_ctl_set_time(c, "completionTime", c->now);
    json_object_set_new(c->status, "message", json_string(msg.data));
    em_ctl_condition(c, "Ready", false, reason, msg.data);
    em_ctl_set_phase(c, phase, reason, "%s", msg.data);
    nd_buf_release(&msg);
}

/* "host/x" -> the stored Host x (BORROWED) or NULL. */
static json_t *target_obj(struct em_ctl *c, const char **plural_out)
{
    const char *t = nd_obj_get_string(c->obj, "spec.target");
    const char *slash = t ? strchr(t, '/') : NULL;
    if (!slash)
        return NULL;
    static const char *const kinds[][2] = {
        {"host", "hosts"}, {"job", "jobs"}, {"sandbox", "sandboxes"}, {"pool", "pools"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (strlen(kinds[i][0]) == (size_t)(slash - t) &&
            !strncmp(t, kinds[i][0], (size_t)(slash - t))) {
            if (plural_out)
                *plural_out = kinds[i][1];
            return em_store_get(&c->srv->store, nd_kind_by_plural(NULL, kinds[i][1]),
                                em_obj_ns(c->obj), slash + 1);
        }
    }
    return NULL;
}

/* Writes a changed copy of another stored object. */
static void write_other(struct em_server *srv, const char *plural, json_t *old, json_t *copy)
{
    struct nd_status st = ND_STATUS_INIT;
    em_obj_update(srv, nd_kind_by_plural(NULL, plural), old, copy, &st);
    nd_status_release(&st);
}

static void cordon(struct em_ctl *c, json_t *host, const char *annotation)
{
    json_t *copy = json_deep_copy(host);
    json_object_set_new(json_object_get(copy, "spec"), "cordoned", json_true());
    json_t *meta = em_obj_meta(copy);
    json_t *ann = json_object_get(meta, "annotations");
    if (!json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(meta, "annotations", ann);
    }
    json_object_set_new(ann, annotation, json_sprintf("poolaction/%s", em_obj_name(c->obj)));
    write_other(c->srv, "hosts", host, copy);
    json_decref(copy);
}

static void run_idle_reclaim(struct em_ctl *c)
{
    json_t *host = target_obj(c, NULL);
    if (!host || em_obj_deleting(host)) {
        finish(c, "Cancelled", "NotNeeded", "%s is gone", nd_obj_get_string(c->obj, "spec.target"));
        return;
    }
    const char *name = em_obj_name(host);
    json_t *alloc =
        em_pool_allocated(c->srv, em_obj_ns(c->obj), nd_obj_get_string(host, "spec.pool"));
    bool busy = false;
    const char *m;
    json_t *v;
    json_object_foreach(json_object_get(alloc, name), m, v) busy |= json_integer_value(v) > 0;
    json_decref(alloc);
    if (busy) {
        finish(c, "Cancelled", "NotNeeded", "host/%s runs work again; it stays in service", name);
        return;
    }
    if (!em_host_cordoned(host))
        cordon(c, host, EM_ANN_RECLAIMED_BY);
    finish(c, "Succeeded", "Succeeded", "returned host/%s: cordoned, no new work lands on it",
           name);
}

static void run_drain(struct em_ctl *c)
{
    const json_t *params = nd_obj_get(c->obj, "spec.params");
    int64_t start = em_json_time(json_object_get(params, "windowStart"));
    if (start < 0)
        start = em_ctl_time(c, "startTime");
    int64_t end = start + em_json_duration(params, "duration", EM_HOUR_MS);
    bool began = em_ctl_sim_get(c, "drained", -1) >= 0;
    if (c->now >= end) {
        if (began)
            finish(c, "Succeeded", "Succeeded",
                   "the drain window closed; the hosts are back in "
                   "service");
        else
            finish(c, "Cancelled", "WindowPassed",
                   "the drain window closed before the action "
                   "could start");
        return;
    }
    if (!began) {
        json_t *hosts =
            em_pool_hosts(c->srv, em_obj_ns(c->obj), nd_obj_get_string(c->obj, "spec.pool"));
        int64_t n = 0;
        size_t i;
        json_t *h;
        json_array_foreach(hosts, i, h) {
            if (!em_host_cordoned(h)) {
                cordon(c, h, EM_ANN_DRAINED_BY);
                n++;
            }
        }
        json_decref(hosts);
        em_ctl_sim_set(c, "drained", n);
        struct nd_buf t = ND_BUF_INIT, msg = ND_BUF_INIT;
        nd_time_format(end / 1000, &t);
        nd_buf_addf(&msg, "draining %lld hosts: no new work until %s; running work finishes",
                    (long long)n, t.data);
        json_object_set_new(c->status, "message", json_string(msg.data));
        nd_buf_release(&t);
        nd_buf_release(&msg);
    }
    em_ctl_due(c, end);
}

static void run_defragment(struct em_ctl *c)
{
    json_t *host = target_obj(c, NULL);
    const char *pool = nd_obj_get_string(c->obj, "spec.pool");
    if (!host) {
        finish(c, "Cancelled", "NotNeeded", "%s is gone", nd_obj_get_string(c->obj, "spec.target"));
        return;
    }
    const char *name = em_obj_name(host);
    json_t *plan = em_defrag_plan(c->srv, em_obj_ns(c->obj), pool, name);
    json_t *alloc = em_pool_allocated(c->srv, em_obj_ns(c->obj), pool);
    bool empty = !json_object_get(alloc, name);
    json_decref(alloc);
    if (!plan) {
        if (empty)
            finish(c, "Cancelled", "NotNeeded", "host/%s runs no work any more", name);
        else
            finish(c, "Failed", "NoRoom",
                   "the work on host/%s no longer fits on the Pool's "
                   "other busy hosts",
                   name);
        return;
    }
    size_t i;
    json_t *mv;
    json_array_foreach(plan, i, mv) {
        const char *plural = json_string_value(json_array_get(mv, 0));
        const char *dest = json_string_value(json_array_get(mv, 2));
        json_t *o = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, plural), em_obj_ns(c->obj),
                                 json_string_value(json_array_get(mv, 1)));
        if (!o)
            continue;
        json_t *copy = json_deep_copy(o);
        json_object_set_new(json_object_get(json_object_get(copy, "status"), "placement"), "host",
                            json_string(dest));
        em_event_record(c->srv, nd_kind_by_plural(NULL, plural), copy, "Normal", "Moved",
                        "moved from host/%s to host/%s by poolaction/%s (Defragment)", name, dest,
                        em_obj_name(c->obj));
        write_other(c->srv, plural, o, copy);
        json_decref(copy);
    }
    finish(c, "Succeeded", "Succeeded", "moved %zu pieces of work off host/%s, which is now free",
           json_array_size(plan), name);
    json_decref(plan);
}

static void run_wait_tuning(struct em_ctl *c)
{
    const char *want = nd_obj_get_string(c->obj, "spec.params.waitTimeout");
    json_t *pool = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "pools"), em_obj_ns(c->obj),
                                nd_obj_get_string(c->obj, "spec.pool"));
    int64_t ms = em_json_duration(nd_obj_get(c->obj, "spec.params"), "waitTimeout", -1);
    if (!pool || ms < 60 * 1000 || ms > 24 * EM_HOUR_MS) {
        finish(c, "Failed", "Invalid", "params.waitTimeout must be a duration from 1m to 24h");
        return;
    }
    const char *was = nd_obj_get_string(pool, "spec.routing.waitTimeout");
    char *from = nd_xstrdup(was ? was : "30m");
    json_t *copy = json_deep_copy(pool);
    json_t *spec = json_object_get(copy, "spec");
    json_t *routing = json_object_get(spec, "routing");
    if (!json_is_object(routing)) {
        routing = json_object();
        json_object_set_new(spec, "routing", routing);
    }
    json_object_set_new(routing, "waitTimeout", json_string(want));
    em_event_record(c->srv, nd_kind_by_plural(NULL, "pools"), copy, "Normal", "WaitTuned",
                    "spec.routing.waitTimeout %s -> %s by poolaction/%s", from, want,
                    em_obj_name(c->obj));
    write_other(c->srv, "pools", pool, copy);
    json_decref(copy);
    finish(c, "Succeeded", "Succeeded", "spec.routing.waitTimeout %s -> %s", from, want);
    free(from);
}

/* Where the work a Burst targets is: 1 sent to the market, 0 still waiting, -1 neither
 * (placed in the Pool, ended or gone: the action ends Cancelled). */
static int burst_state(struct em_ctl *c)
{
    const char *plural = NULL;
    json_t *o = target_obj(c, &plural);
    const char *t = nd_obj_get_string(c->obj, "spec.target");
    const char *where = nd_obj_get_string(o, "status.placement.target");
    if (o && plural && where && !strcmp(where, "market"))
        return 1;
    if (o && plural && em_work_waiting(plural, o)) {
        em_sim_touch(c->srv, nd_kind_by_plural(NULL, plural), o);
        return 0;
    }
    finish(c, "Cancelled", "NotNeeded", "%s no longer waits for a burst", t ? t : "the work");
    return -1;
}

static void run_burst(struct em_ctl *c)
{
    if (burst_state(c) == 1)
        finish(c, "Succeeded", "Succeeded", "%s runs on the market",
               nd_obj_get_string(c->obj, "spec.target"));
}

static void run(struct em_ctl *c)
{
    const char *action = nd_obj_get_string(c->obj, "spec.action");
    if (!action)
        action = "";
    if (!strcmp(action, "IdleReclaim"))
        run_idle_reclaim(c);
    else if (!strcmp(action, "Drain"))
        run_drain(c);
    else if (!strcmp(action, "Defragment"))
        run_defragment(c);
    else if (!strcmp(action, "WaitTuning"))
        run_wait_tuning(c);
    else if (!strcmp(action, "Burst"))
        run_burst(c);
    else
        finish(c, "Failed", "Invalid", "unknown action %s", action);
}

/* Approved: Queued -> Provisioning -> Running after the price book's delays, then run. */
static void progress(struct em_ctl *c)
{
    const char *action = nd_obj_get_string(c->obj, "spec.action");
    if (action && !strcmp(action, "Burst") && burst_state(c) < 0)
        return;
    if (em_ctl_phase_id(c) == ND_PHASE_QUEUED) {
        int64_t from = em_ctl_phase_time(c), decided = em_ctl_time(c, "decisionTime");
        int64_t at = (decided > from ? decided : from) + em_delay_ms(c->srv, "queued");
        if (c->now < at) {
            em_ctl_due(c, at);
            em_ctl_condition(c, "Ready", false, "Approved", "approved; starting");
            return;
        }
        em_ctl_set_phase(c, "Provisioning", "Provisioning", "approved; preparing the action");
    }
    if (em_ctl_phase_id(c) == ND_PHASE_PROVISIONING) {
        int64_t at = em_ctl_phase_time(c) + em_delay_ms(c->srv, "provisioning");
        if (c->now < at) {
            em_ctl_due(c, at);
            return;
        }
        em_ctl_set_time(c, "startTime", c->now);
        em_ctl_condition(c, "Ready", true, "Running", "the action is running");
        em_ctl_set_phase(c, "Running", "Running", "the action is running");
    }
    if (em_ctl_phase_id(c) == ND_PHASE_RUNNING)
        run(c);
}

/* status.decision, the decision that holds: spec.decision, or Cancelled for an action
 * that ended while still Pending (its Pool paused or gone, its work placed without it):
 * nobody decides it any more. */
static void show_decision(struct em_ctl *c)
{
    const char *d = nd_obj_get_string(c->obj, "spec.decision");
    if (!d)
        d = "Pending";
    if (!strcmp(d, "Pending") && ended(em_ctl_phase(c)))
        d = "Cancelled";
    json_object_set_new(c->status, "decision", json_string(d));
}

static void step(struct em_ctl *c);

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    struct em_ctl c;
    em_ctl_begin(&c, srv, k, obj, now);
    step(&c);
    show_decision(&c);
    return em_ctl_commit(&c);
}

static void step(struct em_ctl *c)
{
    struct em_server *srv = c->srv;
    json_t *obj = c->obj;
    int64_t now = c->now;
    const char *phase = em_ctl_phase(c);
    if (!*phase) {
        json_object_set_new(c->status, "phase", json_string("Queued"));
        phase = "Queued";
    }
    if (ended(phase) || em_obj_deleting(obj))
        return;
    const char *decision = nd_obj_get_string(obj, "spec.decision");
    if (!decision)
        decision = "Pending";
    if (strcmp(decision, "Pending") != 0 && strcmp(decision, "Shadow") != 0 &&
        !json_object_get(c->status, "decisionTime"))
        em_ctl_set_time(c, "decisionTime", now);
    const json_t *pool = em_store_get(&srv->store, nd_kind_by_plural(NULL, "pools"), em_obj_ns(obj),
                                      nd_obj_get_string(obj, "spec.pool"));
    bool running = nd_phase_parse(phase) != ND_PHASE_QUEUED;
    if (!pool || em_obj_deleting(pool))
        finish(c, "Cancelled", "PoolNotFound", "pool/%s no longer exists",
               nd_obj_get_string(obj, "spec.pool"));
    else if (!strcmp(decision, "Shadow"))
        finish(c, "Cancelled", "Shadow", "recorded in Shadow mode; never run");
    else if (!strcmp(decision, "Rejected"))
        finish(c, "Cancelled", "Rejected", "rejected%s%s",
               json_object_get(c->status, "decidedBy") ? " by " : "",
               json_object_get(c->status, "decidedBy")
                   ? json_string_value(json_object_get(c->status, "decidedBy"))
                   : "");
    else if (em_pool_paused(pool))
        finish(c, "Cancelled", "Paused",
               running ? "stopped at a safe point: the Pool's Act is paused (spec.act.paused)"
                       : "cancelled: the Pool's Act is paused (spec.act.paused)");
    else if (!strcmp(decision, "Pending")) {
        const char *action = nd_obj_get_string(obj, "spec.action");
        int where = action && !strcmp(action, "Burst") ? burst_state(c) : 0;
        if (where > 0)
            finish(c, "Cancelled", "NotNeeded", "%s went to the market without this decision",
                   nd_obj_get_string(obj, "spec.target"));
        else if (where == 0) {
            struct nd_buf msg = ND_BUF_INIT;
            nd_buf_addf(&msg,
                        "waiting for a decision: nodus approve poolaction/%s, or nodus "
                        "reject poolaction/%s",
                        em_obj_name(obj), em_obj_name(obj));
            em_ctl_condition(c, "Ready", false, "Pending", msg.data);
            nd_buf_release(&msg);
        }
    } else {
        progress(c);
    }
}

const struct em_controller em_poolaction_controller = {"poolactions", reconcile,
                                                       em_poolaction_admit};

/* ---- admission ---- */

int em_poolaction_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    if (!old)
        return 0;
    const char *was = nd_obj_get_string(old, "spec.decision");
    const char *now = nd_obj_get_string(obj, "spec.decision");
    if (!was)
        was = "Pending";
    if (!now)
        now = "Pending";
    if (!strcmp(was, now))
        return 0;
    const char *phase = nd_obj_get_string(old, "status.phase");
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    const json_t *v = nd_obj_get(obj, "spec.decision");
    if (ended(phase)) {
        nd_field_errors_invalid(&errs, "spec.decision", v,
                                "the PoolAction has ended (%s); it can no longer be decided",
                                phase);
        nd_field_errors_fix(&errs, 0,
                            "nothing is left to decide; when the situation comes back its Pool "
                            "proposes a new PoolAction: nodus get poolactions -n %s",
                            em_obj_ns(old));
    } else if (strcmp(now, "Approved") != 0 && strcmp(now, "Rejected") != 0) {
        nd_field_errors_invalid(&errs, "spec.decision", v,
                                "decide with Approved or Rejected (Shadow is recorded by a Pool "
                                "in Shadow mode)");
        nd_field_errors_fix(&errs, 0, "set spec.decision to Approved or Rejected");
    }
    int rc = nd_field_errors_to_status(&errs, "Invalid", a->kind, em_obj_name(old), a->st);
    nd_field_errors_release(&errs);
    if (rc < 0)
        return -1;
    json_t *status = json_object_get(obj, "status");
    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(obj, "status", status);
    }
    char t[32];
    json_object_set_new(status, "decisionTime", json_string(em_now_rfc3339(a->srv, t)));
    json_object_set_new(status, "decidedBy", json_string(a->identity));
    return 0;
}
