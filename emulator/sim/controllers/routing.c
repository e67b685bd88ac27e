/* routing.c: placement of work routed to a Pool (spec.placement.pool); see pools.h.
 *
 * Work is placed on free devices of a Ready, uncordoned host of its Pool, the host left
 * with the fewest free devices first (best fit, so whole hosts stay free), in the order
 * the work began waiting (first in, first out per GPU model). Without room it follows
 * the Pool's routing: waitPolicy (Never: no wait; Timeout: up to waitTimeout; Cheaper:
 * as long as the Pool is cheaper than the market), then burstToMarket (Allow: the
 * market; Approve: a Burst PoolAction a person decides, or Act pre-approves; Deny: keep
 * waiting); mode Only never leaves the Pool.
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "objects.h"
#include "pools.h"
#include "pricebook.h"
#include "store.h"
#include "util/buf.h"
#include "util/money.h"
#include "util/time.h"

const char *em_work_pool(const json_t *obj)
{
    return nd_obj_get_string(obj, "spec.placement.pool");
}

int em_work_gpus(const json_t *obj, const char **model)
{
    const json_t *gpu = nd_obj_get(obj, "spec.resources.gpu");
    *model = json_string_value(json_object_get(gpu, "model"));
    if (!json_is_object(gpu))
        return 0;
    json_int_t n = json_integer_value(json_object_get(gpu, "count"));
    return n > 0 ? (int)n : 1;
}

/* Routed work is a Job (it runs to completion) or a Sandbox (long-running). */
static bool runs_to_completion(const char *plural)
{
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
    return k && k->family == ND_FAMILY_RUN;
}

/* The phases of routed work: [0] waiting (Queued, Pending), [1] being placed
 * (Provisioning, Starting). */
static const char *const *phases_of(const char *plural)
{
    return nd_phases(runs_to_completion(plural) ? ND_FAMILY_RUN : ND_FAMILY_LONG);
}

int64_t em_work_queued_since(const json_t *obj)
{
    const json_t *t = nd_obj_get(obj, "status.simulation.phaseTime");
    if (json_is_integer(t))
        return json_integer_value(t);
    int64_t ms = em_json_time(nd_obj_get(obj, "metadata.creationTimestamp"));
    return ms < 0 ? 0 : ms;
}

static const char *state_of(const json_t *obj)
{
    const char *s = nd_obj_get_string(obj, "spec.state");
    return s ? s : "Running";
}

static bool waiting_phase(const char *plural, const char *phase)
{
    return !phase || !*phase || !strcmp(phase, phases_of(plural)[0]);
}

static bool active_phase(const char *plural, const char *phase)
{
    if (!phase)
        return false;
    return nd_phase_parse(phase) == ND_PHASE_RUNNING || !strcmp(phase, phases_of(plural)[1]);
}

/* A placement decided while the work waits, in this wait (not left from an earlier run). */
static bool placed_now(const json_t *obj)
{
    const json_t *at = nd_obj_get(obj, "status.simulation.placedAt");
    return nd_obj_get(obj, "status.placement") && json_is_integer(at) &&
           json_integer_value(at) >= em_work_queued_since(obj) && !strcmp(state_of(obj), "Running");
}

/* Placed (on target "pool/..." or "market") and not ended, suspended or deleted. */
static bool placed_on(const char *plural, const json_t *obj, bool pool)
{
    const char *target = nd_obj_get_string(obj, "status.placement.target");
    if (!target || em_obj_deleting(obj))
        return false;
    if (pool ? strncmp(target, "pool/", 5) != 0 : strcmp(target, "market") != 0)
        return false;
    const char *phase = nd_obj_get_string(obj, "status.phase");
    return active_phase(plural, phase) || (waiting_phase(plural, phase) && placed_now(obj));
}

bool em_work_holds(const char *plural, const json_t *obj)
{
    return placed_on(plural, obj, true) && nd_obj_get_string(obj, "status.placement.host");
}

bool em_work_on_market(const char *plural, const json_t *obj)
{
    return placed_on(plural, obj, false);
}

bool em_work_waiting(const char *plural, const json_t *obj)
{
    if (!em_work_pool(obj) || em_obj_deleting(obj) || strcmp(state_of(obj), "Running") != 0)
        return false;
    return waiting_phase(plural, nd_obj_get_string(obj, "status.phase")) && !placed_now(obj);
}

json_t *em_pool_work(struct em_server *srv, const char *ns, const char *pool)
{
    static const char *const plurals[] = {"jobs", "sandboxes", NULL};
    json_t *out = json_array();
    for (int i = 0; plurals[i]; i++) {
        json_t *items = em_store_list(&srv->store, nd_kind_by_plural(NULL, plurals[i]), ns);
        size_t j;
        json_t *o;
        json_array_foreach(items, j, o) {
            const char *p = em_work_pool(o);
            if (p && !strcmp(p, pool))
                json_array_append_new(out, json_pack("[sO]", plurals[i], o));
        }
        json_decref(items);
    }
    return out;
}

json_t *em_pool_hosts(struct em_server *srv, const char *ns, const char *pool)
{
    json_t *out = json_array();
    json_t *items = em_store_list(&srv->store, nd_kind_by_plural(NULL, "hosts"), ns);
    size_t i;
    json_t *h;
    json_array_foreach(items, i, h) {
        const char *p = nd_obj_get_string(h, "spec.pool");
        if (p && !strcmp(p, pool) && !em_obj_deleting(h))
            json_array_append(out, h);
    }
    json_decref(items);
    return out;
}

json_t *em_pool_allocated(struct em_server *srv, const char *ns, const char *pool)
{
    json_t *out = json_object();
    json_t *work = em_pool_work(srv, ns, pool);
    struct nd_buf target = ND_BUF_INIT;
    nd_buf_addf(&target, "pool/%s", pool);
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const char *plural = json_string_value(json_array_get(pair, 0));
        const json_t *o = json_array_get(pair, 1);
        const char *t = nd_obj_get_string(o, "status.placement.target");
        if (!em_work_holds(plural, o) || strcmp(t, target.data) != 0)
            continue;
        const char *model;
        int n = em_work_gpus(o, &model);
        const char *got = nd_obj_get_string(o, "status.placement.gpuModel");
        if (got)
            model = got;
        if (!n || !model)
            continue;
        const char *host = nd_obj_get_string(o, "status.placement.host");
        json_t *h = json_object_get(out, host);
        if (!h) {
            h = json_object();
            json_object_set_new(out, host, h);
        }
        json_object_set_new(h, model,
                            json_integer(json_integer_value(json_object_get(h, model)) + n));
    }
    nd_buf_release(&target);
    json_decref(work);
    return out;
}

int64_t em_alloc_of(const json_t *alloc, const char *host, const char *model)
{
    return json_integer_value(json_object_get(json_object_get(alloc, host), model));
}

bool em_host_ready(const json_t *host)
{
    const char *phase = nd_obj_get_string(host, "status.phase");
    return phase && nd_phase_parse(phase) == ND_PHASE_RUNNING && !em_obj_deleting(host);
}

bool em_host_cordoned(const json_t *host)
{
    return json_is_true(nd_obj_get(host, "spec.cordoned"));
}

int64_t em_host_devices(const json_t *host, const char *model)
{
    return model ? json_integer_value(json_object_get(nd_obj_get(host, "spec.gpus"), model)) : 0;
}

/* ---- placing ---- */

static const char *singular(const char *plural)
{
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
    return k ? k->singular : plural;
}

/* Whether work that began waiting earlier waits for the same devices (first in, first out). */
static bool behind(struct em_ctl *c, const char *plural, const json_t *work, const char *model)
{
    int64_t since = em_work_queued_since(c->obj);
    const char *name = em_obj_name(c->obj);
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const char *p = json_string_value(json_array_get(pair, 0));
        const json_t *o = json_array_get(pair, 1);
        if ((!strcmp(p, plural) && !strcmp(em_obj_name(o), name)) || !em_work_waiting(p, o))
            continue;
        const char *m;
        if (!em_work_gpus(o, &m) || !m || strcmp(m, model) != 0)
            continue;
        int64_t s = em_work_queued_since(o);
        int cmp = strcmp(p, plural);
        if (s < since ||
            (s == since && (cmp < 0 || (cmp == 0 && strcmp(em_obj_name(o), name) < 0))))
            return true;
    }
    return false;
}

/* The Ready, uncordoned host with room for count devices of model that is left with the
 * fewest free (ties: by name); for CPU work (count 0) the first Ready, uncordoned host. */
static const json_t *pick_host(const json_t *hosts, const json_t *alloc, const char *model,
                               int count)
{
    const json_t *best = NULL;
    int64_t best_left = INT64_MAX;
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        if (!em_host_ready(h) || em_host_cordoned(h))
            continue;
        if (count == 0)
            return h;
        int64_t left =
            em_host_devices(h, model) - em_alloc_of(alloc, em_obj_name(h), model) - count;
        if (left >= 0 && left < best_left) {
            best = h;
            best_left = left;
        }
    }
    return best;
}

static void placed(struct em_ctl *c, const char *target, const char *host, const char *model,
                   int64_t rate, const char *reason, const char *msg)
{
    json_t *p = json_object();
    json_object_set_new(p, "target", json_string(target));
    if (host)
        json_object_set_new(p, "host", json_string(host));
    if (model)
        json_object_set_new(p, "gpuModel", json_string(model));
    json_object_set_new(c->status, "placement", p);
    em_ctl_set_rate(c, rate);
    em_ctl_sim_set(c, "placedAt", c->now);
    em_ctl_sim_set(c, "waitMs", c->now - em_work_queued_since(c->obj));
    em_ctl_condition(c, "Placed", true, reason, msg);
    em_event_record(c->srv, c->k, c->obj, "Normal", reason, "%s", msg);
}

static void waiting(struct em_ctl *c, const char *reason, const char *msg)
{
    json_object_del(c->status, "placement");
    em_ctl_clear_rate(c);
    em_ctl_condition(c, "Placed", false, reason, msg);
}

/* The market's hourly rate for the work's spec, or -1 when no market offers its GPU. */
static int64_t market_rate(struct em_server *srv, const char *plural, const json_t *spec,
                           const char *model)
{
    if (model && em_gpu_rate(srv, model, 0) < 0)
        return -1;
    json_t *copy = json_copy((json_t *)spec);
    json_object_del(copy, "placement");
    int64_t r = em_spec_rate(srv, plural, copy);
    json_decref(copy);
    return r;
}

static int64_t pool_rate(struct em_server *srv, const char *model, int count)
{
    int64_t per = model ? em_gpu_rate(srv, model, 1) : 0;
    return per > 0 ? per * count : 0;
}

static void money(struct nd_buf *b, int64_t micros)
{
    nd_buf_reset(b);
    nd_money_format(micros, b);
}

static void to_market(struct em_ctl *c, const char *model, int64_t rate, const char *why)
{
    struct nd_buf m = ND_BUF_INIT, msg = ND_BUF_INIT;
    money(&m, rate);
    nd_buf_addf(&msg, "%s; placed on the market at %s USD per hour", why, m.data);
    placed(c, "market", NULL, model, rate, "Burst", msg.data);
    nd_buf_release(&msg);
    nd_buf_release(&m);
}

/* What the devices are, for messages: "2 H100", "a CPU host". */
static void what(struct nd_buf *b, const char *model, int count)
{
    if (count)
        nd_buf_addf(b, "%d free %s", count, model);
    else
        nd_buf_adds(b, "a CPU host");
}

static int64_t market_gpus(const json_t *work)
{
    int64_t n = 0;
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const json_t *o = json_array_get(pair, 1);
        const char *m;
        if (em_work_on_market(json_string_value(json_array_get(pair, 0)), o))
            n += em_work_gpus(o, &m);
    }
    return n;
}

/* burstToMarket Approve: the Burst PoolAction of this wait decides. */
static bool approve_burst(struct em_ctl *c, const char *plural, const json_t *pool,
                          const json_t *work, const char *model, int count, int64_t rate,
                          const char *why)
{
    const char *pname = em_obj_name(pool);
    struct nd_buf target = ND_BUF_INIT, key = ND_BUF_INIT, msg = ND_BUF_INIT, m = ND_BUF_INIT;
    nd_buf_addf(&target, "%s/%s", singular(plural), em_obj_name(c->obj));
    nd_buf_addf(&key, "%s@%lld",
                json_string_value(json_object_get(json_object_get(c->obj, "metadata"), "uid")),
                (long long)em_work_queued_since(c->obj));
    /* a burst cancelled by the kill switch is proposed again once Act is unpaused */
    char *name = NULL;
    const json_t *pa = NULL;
    size_t base = key.len;
    for (int attempt = 0; attempt < 100; attempt++) {
        free(name);
        nd_buf_truncate(&key, base);
        nd_buf_addf(&key, "#%d", attempt);
        name = em_action_name(pname, "Burst", target.data, key.data);
        pa = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "poolactions"), em_obj_ns(c->obj),
                          name);
        if (!pa || !em_action_paused_out(pa) || em_pool_paused(pool))
            break;
    }
    bool go = false;
    if (!pa && em_pool_paused(pool)) {
        nd_buf_addf(&msg, "%s; the Pool's Act is paused, so no burst is proposed", why);
        waiting(c, "ActPaused", msg.data);
        goto out;
    }
    if (!pa) {
        money(&m, rate);
        json_t *params = json_object();
        if (model)
            json_object_set_new(params, "gpuModel", json_string(model));
        char gpus[24];
        snprintf(gpus, sizeof gpus, "%d", count);
        json_object_set_new(params, "gpus", json_string(gpus));
        json_object_set_new(params, "rateUSDPerHour", json_string(m.data));
        nd_buf_addf(&msg, "%s; burst %s to the market at %s USD per hour", why, target.data,
                    m.data);
        bool pre = em_pool_burst_preapproved(pool, count, market_gpus(work), rate);
        pa = em_action_create(c->srv, pool, "Burst", target.data, key.data, params, msg.data,
                              pre ? "Approved" : "Pending");
        nd_buf_reset(&msg);
        if (!pa) {
            waiting(c, "BurstPending", "the Burst PoolAction could not be created");
            goto out;
        }
    }
    const char *decision = nd_obj_get_string(pa, "spec.decision");
    enum nd_phase phase = nd_phase_parse(nd_obj_get_string(pa, "status.phase"));
    bool ended = phase == ND_PHASE_CANCELLED || phase == ND_PHASE_FAILED;
    if (decision && !strcmp(decision, "Approved") && !ended) {
        nd_buf_addf(&msg, "%s; poolaction/%s approved the burst", why, name);
        to_market(c, model, rate, msg.data);
        go = true;
    } else if (decision && !strcmp(decision, "Rejected")) {
        nd_buf_addf(&msg, "%s; poolaction/%s was rejected, so it waits for the Pool", why, name);
        waiting(c, "BurstRejected", msg.data);
    } else if (ended) {
        nd_buf_addf(&msg, "%s; poolaction/%s was cancelled, so it waits for the Pool", why, name);
        waiting(c, "BurstCancelled", msg.data);
    } else {
        nd_buf_addf(&msg,
                    "%s; waiting for a decision on poolaction/%s (nodus approve "
                    "poolaction/%s)",
                    why, name, name);
        waiting(c, "BurstPending", msg.data);
    }
out:
    free(name);
    nd_buf_release(&target);
    nd_buf_release(&key);
    nd_buf_release(&msg);
    nd_buf_release(&m);
    return go;
}

/* No room in the Pool: wait, or go to the market, as the Pool's routing says. */
static bool no_room(struct em_ctl *c, const char *plural, const json_t *pool, const json_t *work,
                    const char *model, int count, bool can_fit, int64_t *wait)
{
    const json_t *routing = nd_obj_get(pool, "spec.routing");
    const char *mode = json_string_value(json_object_get(routing, "mode"));
    const char *policy = json_string_value(json_object_get(routing, "waitPolicy"));
    const char *burst = json_string_value(json_object_get(routing, "burstToMarket"));
    const char *timeout_s = json_string_value(json_object_get(routing, "waitTimeout"));
    int64_t timeout = em_json_duration(routing, "waitTimeout", 30 * 60 * 1000);
    const char *pname = em_obj_name(pool);
    const json_t *spec = json_object_get(c->obj, "spec");
    int64_t since = em_work_queued_since(c->obj);
    int64_t rate = market_rate(c->srv, plural, spec, model);
    int64_t in_pool = pool_rate(c->srv, model, count);
    struct nd_buf need = ND_BUF_INIT, msg = ND_BUF_INIT;
    bool go = false;
    what(&need, model, count);
    if (!can_fit)
        nd_buf_addf(&msg, "pool/%s does not run CPU Sandboxes (spec.sandboxCapable)", pname);
    else
        nd_buf_addf(&msg, "no %s in pool/%s", need.data, pname);

    if (mode && !strcmp(mode, "Only")) {
        nd_buf_adds(&msg, "; routing mode Only keeps it waiting for the Pool");
        waiting(c, "Waiting", msg.data);
        goto out;
    }
    if (can_fit && (!policy || !strcmp(policy, "Timeout")) && c->now < since + timeout) {
        nd_buf_addf(&msg, "; waiting up to waitTimeout %s, then burstToMarket %s",
                    timeout_s ? timeout_s : "30m", burst ? burst : "Approve");
        waiting(c, "Waiting", msg.data);
        *wait = since + timeout;
        goto out;
    }
    if (can_fit && policy && !strcmp(policy, "Cheaper") && (rate < 0 || rate > in_pool)) {
        nd_buf_adds(&msg, "; waitPolicy Cheaper waits while the Pool is cheaper than the market");
        waiting(c, "Waiting", msg.data);
        goto out;
    }
    if (rate < 0) {
        nd_buf_addf(&msg, "; the market offers no %s, so it waits for the Pool", model);
        waiting(c, "NoMarket", msg.data);
        goto out;
    }
    int64_t max = c->money->max_rate;
    if (max >= 0 && rate > max) {
        nd_buf_adds(&msg, "; the market rate is above spec.placement.maxRateUSDPerHour, so it "
                          "waits for the Pool");
        waiting(c, "MarketAboveMax", msg.data);
        goto out;
    }
    if (burst && !strcmp(burst, "Allow")) {
        to_market(c, model, rate, msg.data);
        go = true;
    } else if (burst && !strcmp(burst, "Deny")) {
        nd_buf_adds(&msg, "; burstToMarket Deny keeps it waiting for the Pool");
        waiting(c, "BurstDenied", msg.data);
    } else {
        go = approve_burst(c, plural, pool, work, model, count, rate, msg.data);
    }
out:
    nd_buf_release(&need);
    nd_buf_release(&msg);
    return go;
}

bool em_route_place(struct em_ctl *c, const char *plural, int64_t *wait)
{
    *wait = EM_NEVER;
    const char *pname = em_work_pool(c->obj);
    if (!pname)
        return true;
    if (placed_now(c->obj))
        return true;
    const char *ns = em_obj_ns(c->obj);
    const json_t *pool = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "pools"), ns, pname);
    if (!pool || em_obj_deleting(pool)) {
        struct nd_buf msg = ND_BUF_INIT;
        nd_buf_addf(&msg, "pool/%s does not exist; waiting until it does", pname);
        waiting(c, "PoolNotFound", msg.data);
        nd_buf_release(&msg);
        return false;
    }
    const char *model;
    int count = em_work_gpus(c->obj, &model);
    bool can_fit = count > 0 || runs_to_completion(plural) ||
                   json_is_true(nd_obj_get(pool, "spec.sandboxCapable"));
    json_t *work = em_pool_work(c->srv, ns, pname);
    json_t *hosts = em_pool_hosts(c->srv, ns, pname);
    json_t *alloc = em_pool_allocated(c->srv, ns, pname);
    const json_t *host = NULL;
    if (can_fit && !(count && behind(c, plural, work, model)))
        host = pick_host(hosts, alloc, model, count);
    bool go;
    if (host) {
        struct nd_buf t = ND_BUF_INIT, msg = ND_BUF_INIT;
        nd_buf_addf(&t, "pool/%s", pname);
        nd_buf_addf(&msg, "placed on host/%s of pool/%s", em_obj_name(host), pname);
        placed(c, t.data, em_obj_name(host), model, pool_rate(c->srv, model, count), "Placed",
               msg.data);
        nd_buf_release(&t);
        nd_buf_release(&msg);
        go = true;
    } else {
        go = no_room(c, plural, pool, work, model, count, can_fit, wait);
    }
    json_decref(work);
    json_decref(hosts);
    json_decref(alloc);
    return go;
}
