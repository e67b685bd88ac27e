/* The Pool controller and its write-time rule.
 *
 * A Pool is long-running (Pending -> Starting -> Running). Its status is computed on every
 * reconcile from the store: capacity from its Hosts, utilization and demand from the work
 * placed on them (pool_predict.c keeps the hourly history), routing counts from the work
 * waiting for it and the Burst decisions pending, act counts from its PoolActions; Act
 * (pool_act.c) and Predict (pool_predict.c) run on top. A change to any of them makes the
 * Pool due (em_sim_touch_related), and the Pool then makes its Hosts, its waiting work and
 * its open PoolActions due, so freed devices go to the work waiting first.
 *
 * em_pool_admit: enabling Predict needs the token scope billing:write (Forbidden) and
 * the caller's consent to the Predict fee, the header Nodus-Price-Consent carrying the
 * hourly rate in US dollars the caller agrees to, at least the price book's
 * predictFeeUSDPerHour (ConsentRequired otherwise); the consent is recorded in
 * status.routing.consent.
 */
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "kinds/object.h"
#include "controllers.h"
#include "longrun.h"
#include "objects.h"
#include "pools.h"
#include "pricebook.h"
#include "util/money.h"
#include "util/time.h"

/* ---- shared helpers ---- */

int64_t em_json_duration(const json_t *obj, const char *path, int64_t def)
{
    const char *s = nd_obj_get_string(obj, path);
    int64_t ms;
    struct nd_status st = ND_STATUS_INIT;
    if (!s || nd_duration_parse(s, &ms, &st) < 0)
        ms = def;
    nd_status_release(&st);
    return ms;
}

int64_t em_json_time(const json_t *v)
{
    const char *s = json_string_value(v);
    int64_t secs;
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms = s && nd_time_parse(s, &secs, &st) == 0 ? secs * 1000 : -1;
    nd_status_release(&st);
    return ms;
}

bool em_pool_paused(const json_t *pool)
{
    return json_is_true(nd_obj_get(pool, "spec.act.paused"));
}

bool em_obj_deleting(const json_t *obj)
{
    return nd_obj_get(obj, "metadata.deletionTimestamp") != NULL;
}

/* ---- admission: Predict needs billing:write and price consent ---- */

static bool predict_on(const json_t *obj)
{
    return json_is_true(nd_obj_get(obj, "spec.predict.enabled"));
}

static json_t *member(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(parent, key, v);
    }
    return v;
}

/* The routing finalizer: a deleted Pool first tells its Hosts and work (pool_status). */
static void keep_finalizer(json_t *obj)
{
    if (em_obj_deleting(obj) || em_obj_has_finalizer(obj, EM_FINALIZER_POOL))
        return;
    json_t *meta = em_obj_meta(obj);
    json_t *fins = json_object_get(meta, "finalizers");
    if (!json_is_array(fins)) {
        fins = json_array();
        json_object_set_new(meta, "finalizers", fins);
    }
    json_array_append_new(fins, json_string(EM_FINALIZER_POOL));
}

int em_pool_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    keep_finalizer(obj);
    if (!predict_on(obj) || (old && predict_on(old)))
        return 0;
    const char *name = em_obj_name(obj);
    /* manifests of --seed are the operator's own state: no token, no prompt */
    bool seed = a->seeding;
    int64_t fee = em_book_rate(a->srv, EM_RATE_PREDICT_FEE);
    struct nd_buf feetxt = ND_BUF_INIT;
    nd_money_format(fee, &feetxt);
    int rc = -1;
    /* billing:write, as em_authz_request found it (without --token-file, or for a token
     * without a scope list, every scope; "*" and "admin" hold every one) */
    if (!seed && !a->may_bill) {
        nd_status_set(a->st, "Forbidden",
                      "use a token with the billing:write scope, or leave spec.predict.enabled "
                      "false",
                      "%s may not enable Predict on pool \"%s\": it needs the token scope "
                      "billing:write",
                      a->identity, name);
        goto fail;
    }
    const char *consent = a->price_consent;
    if (!seed && (!consent || !*consent)) {
        nd_status_set(a->st, "ConsentRequired", NULL,
                      "enabling Predict on pool \"%s\" costs %s USD per hour: consent to the "
                      "price with the Nodus-Price-Consent header",
                      name, feetxt.data);
        nd_status_set_fix(a->st,
                          "repeat the request with the header 'Nodus-Price-Consent: %s' "
                          "(the Predict fee in US dollars per hour you agree to)",
                          feetxt.data);
        goto fail;
    }
    if (!seed) {
        int64_t agreed;
        struct nd_status pst = ND_STATUS_INIT;
        int bad = nd_money_parse(consent, &agreed, &pst);
        if (bad < 0) {
            nd_status_set(a->st, "BadRequest", NULL, "Nodus-Price-Consent: %s", pst.message);
            nd_status_set_fix(a->st,
                              "send the hourly rate you agree to as a decimal amount of "
                              "US dollars: 'Nodus-Price-Consent: %s'",
                              feetxt.data);
            nd_status_release(&pst);
            goto fail;
        }
        nd_status_release(&pst);
        if (agreed < fee) {
            struct nd_buf ag = ND_BUF_INIT;
            nd_money_format(agreed, &ag);
            nd_status_set(a->st, "ConsentRequired", NULL,
                          "the Predict fee is %s USD per hour, more than the %s consented to "
                          "with the Nodus-Price-Consent header",
                          feetxt.data, ag.data);
            nd_status_set_fix(a->st,
                              "repeat the request with the header "
                              "'Nodus-Price-Consent: %s' to agree to the current fee",
                              feetxt.data);
            nd_buf_release(&ag);
            goto fail;
        }
    }
    json_t *status = member(obj, "status");
    json_t *routing = member(status, "routing");
    if (!json_object_get(routing, "burstPending"))
        json_object_set_new(routing, "burstPending", json_integer(0));
    if (!json_object_get(routing, "waiting"))
        json_object_set_new(routing, "waiting", json_integer(0));
    char now[32];
    em_now_rfc3339(a->srv, now);
    json_object_set_new(routing, "consent",
                        json_pack("{s:s, s:s}", "rateUSD", feetxt.data, "time", now));
    rc = 0;
    goto out;
fail:
    nd_status_set_target(a->st, name, a->kind->group, a->kind->plural);
out:
    nd_buf_release(&feetxt);
    return rc;
}

/* ---- the controller ---- */

static void count(json_t *obj, const char *key, int64_t n)
{
    json_object_set_new(obj, key, json_integer(n));
}

static void capacity(struct em_ctl *c, const json_t *hosts, const json_t *alloc, int64_t *devices,
                     int64_t *busy, int64_t *usable)
{
    json_t *gpus = json_object();
    int64_t nodes = 0, ready = 0;
    *devices = *busy = *usable = 0;
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        bool ok = em_host_ready(h), open = ok && !em_host_cordoned(h);
        nodes++;
        ready += ok;
        const char *model;
        json_t *n;
        json_object_foreach((json_t *)nd_obj_get(h, "spec.gpus"), model, n) {
            int64_t total = json_integer_value(n);
            int64_t used = em_alloc_of(alloc, em_obj_name(h), model);
            json_t *m = member(gpus, model);
            int64_t free_now = open && total > used ? total - used : 0;
            count(m, "free", json_integer_value(json_object_get(m, "free")) + free_now);
            count(m, "total", json_integer_value(json_object_get(m, "total")) + total);
            *devices += total;
            *busy += used;
            /* what Nodus may use: open hosts, and the busy devices of cordoned ones */
            if (ok)
                *usable += open ? (total > used ? total : used) : used;
        }
    }
    json_t *cap = json_object();
    json_object_set_new(cap, "gpus", gpus);
    count(cap, "nodes", nodes);
    count(cap, "readyNodes", ready);
    json_object_set_new(c->status, "capacity", cap);
    struct nd_buf msg = ND_BUF_INIT;
    nd_buf_addf(&msg, "%lld of %lld hosts Ready", (long long)ready, (long long)nodes);
    em_ctl_condition(c, "HostsReady", ready > 0, ready > 0 ? "HostsReady" : "NoReadyHosts",
                     msg.data);
    nd_buf_release(&msg);
}

/* status.routing (consent kept) and the Pool's GPU demand: work placed, waiting, burst. */
static int64_t routing(struct em_ctl *c, const json_t *work, const json_t *actions)
{
    int64_t waiting = 0, burst = 0, demand = 0;
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const char *plural = json_string_value(json_array_get(pair, 0));
        const json_t *o = json_array_get(pair, 1);
        const char *model;
        int n = em_work_gpus(o, &model);
        bool w = em_work_waiting(plural, o);
        waiting += w;
        if (w || em_work_holds(plural, o) || em_work_on_market(plural, o))
            demand += n;
    }
    json_t *pa;
    json_array_foreach(actions, i, pa) {
        const char *d = nd_obj_get_string(pa, "spec.decision");
        const char *a = nd_obj_get_string(pa, "spec.action");
        burst += em_action_open(pa) && d && !strcmp(d, "Pending") && a && !strcmp(a, "Burst");
    }
    json_t *r = member(c->status, "routing");
    count(r, "burstPending", burst);
    count(r, "waiting", waiting);
    return demand;
}

static void act_status(struct em_ctl *c, const json_t *actions)
{
    int64_t pending = 0, last = -1;
    size_t i;
    json_t *pa;
    json_array_foreach(actions, i, pa) {
        const char *d = nd_obj_get_string(pa, "spec.decision");
        pending += em_action_open(pa) && d && !strcmp(d, "Pending");
        int64_t t = em_json_time(nd_obj_get(pa, "metadata.creationTimestamp"));
        if (t > last)
            last = t;
    }
    json_t *act = json_object();
    count(act, "pending", pending);
    json_object_set_new(c->status, "act", act);
    if (last >= 0) {
        struct nd_buf t = ND_BUF_INIT;
        nd_time_format(last / 1000, &t);
        json_object_set_new(act, "lastActionTime", json_string(t.data));
        nd_buf_release(&t);
    }
    bool paused = em_pool_paused(c->obj);
    if (paused || json_object_get(c->sim, "wasPaused")) {
        em_ctl_condition(c, "ActPaused", paused, paused ? "Paused" : "Resumed",
                         paused ? "spec.act.paused: no new actions; pending ones are cancelled"
                                : "Act runs");
        em_ctl_sim_set(c, "wasPaused", 1);
    }
}

/* What may move now that the Pool changed: its Hosts, its waiting work, its open actions. */
static void touch(struct em_ctl *c, const json_t *hosts, const json_t *work, const json_t *actions)
{
    size_t i;
    json_t *o;
    const struct nd_kind *hk = nd_kind_by_plural(NULL, "hosts");
    json_array_foreach(hosts, i, o) em_sim_touch(c->srv, hk, o);
    json_array_foreach(work, i, o) {
        const char *plural = json_string_value(json_array_get(o, 0));
        if (em_work_waiting(plural, json_array_get(o, 1)))
            em_sim_touch(c->srv, nd_kind_by_plural(NULL, plural), json_array_get(o, 1));
    }
    const struct nd_kind *ak = nd_kind_by_plural(NULL, "poolactions");
    json_array_foreach(actions, i, o) {
        if (em_action_open(o))
            em_sim_touch(c->srv, ak, o);
    }
}

static void pool_status(struct em_ctl *c)
{
    const char *ns = em_obj_ns(c->obj), *name = em_obj_name(c->obj);
    bool live = !em_obj_deleting(c->obj);
    json_t *hosts = em_pool_hosts(c->srv, ns, name);
    json_t *alloc = em_pool_allocated(c->srv, ns, name);
    json_t *work = em_pool_work(c->srv, ns, name);
    json_t *actions = em_pool_actions(c->srv, ns, name);
    if (live && em_ctl_phase_id(c) == ND_PHASE_RUNNING) {
        em_pool_act(c, hosts, alloc, work, actions);
        json_decref(actions); /* it may have added some */
        actions = em_pool_actions(c->srv, ns, name);
    }
    int64_t devices, busy, usable;
    capacity(c, hosts, alloc, &devices, &busy, &usable);
    int64_t demand = routing(c, work, actions);
    act_status(c, actions);
    em_pool_track(c, busy, usable, live ? demand : 0);
    em_pool_predict(c, devices);
    touch(c, hosts, work, actions);
    if (!live)
        em_obj_drop_finalizer(c->obj, EM_FINALIZER_POOL);
    json_decref(hosts);
    json_decref(alloc);
    json_decref(work);
    json_decref(actions);
}

static const struct em_longrun_ops ops = {
    .status = pool_status,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

const struct em_controller em_pool_controller = {"pools", reconcile, em_pool_admit};
