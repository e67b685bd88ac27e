/* pool_act.c: the Act tier of a Pool: each policy of spec.act.policies watches for its
 * situation and creates a PoolAction for it, recorded (mode Shadow, decision Shadow),
 * proposed (Propose, decision Pending) or run (Auto, decision Approved). Nothing is
 * created while spec.act.paused is true. One PoolAction per situation: its name is a
 * hash of the action, its target and what triggered it, so a situation that lasts is
 * not proposed twice, and no second action of a kind starts for a target while one is
 * open.
 *
 *   IdleReclaim  a Ready host with no work for idleFor (default 1h), while nothing waits
 *                for the Pool: return it (cordon it).
 *   Drain        each time the cron schedule fires: cordon the Pool's hosts for duration
 *                (default 1h), then put them back in service.
 *   Defragment   when the busy hosts of a model could take all the work of the least busy
 *                one: move that work, freeing the whole host.
 *   WaitTuning   when 90 % of the work placed in the last 24 h after waiting waited less
 *                (or more) than waitTimeout: set waitTimeout to that wait, rounded up to a
 *                minute and kept within minWaitTimeout (default 1m) and maxWaitTimeout
 *                (default 24h).
 *   Burst        pre-approves (mode Auto) the Burst PoolActions routing creates under
 *                burstToMarket Approve, within maxGPUs and maxRateUSDPerHour.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kinds/object.h"
#include "objects.h"
#include "pools.h"
#include "store.h"
#include "util/buf.h"
#include "util/time.h"

/* ---- cron ---- */

struct cron {
    uint64_t min;
    uint32_t hour, dom;
    uint16_t mon;
    uint8_t dow;
    bool dom_star, dow_star;
};

static const char *const month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
static const char *const day_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

static bool value(const char **p, int lo, int hi, const char *const *names, int n_names, int *out)
{
    const char *s = *p;
    if (*s >= '0' && *s <= '9') {
        char *end;
        long v = strtol(s, &end, 10);
        *p = end;
        *out = (int)v;
        return v >= lo && v <= hi;
    }
    for (int i = 0; i < n_names; i++) {
        if (!strncasecmp(s, names[i], 3)) {
            *out = lo + i;
            *p = s + 3;
            return true;
        }
    }
    return false;
}

/* One field ("*", "a", "a-b", each with an optional "/step", items joined by ','): the
 * bits of the values it matches. */
static bool field(const char *s, int lo, int hi, const char *const *names, int n_names,
                  uint64_t *bits, bool *star)
{
    *bits = 0;
    *star = *s == '*';
    const char *p = s;
    for (;;) {
        int a = lo, b = hi, step = 1;
        bool all = *p == '*';
        if (all) {
            p++;
        } else {
            if (!value(&p, lo, hi, names, n_names, &a))
                return false;
            b = a;
            if (*p == '-') {
                p++;
                if (!value(&p, lo, hi, names, n_names, &b) || b < a)
                    return false;
            }
        }
        if (*p == '/') {
            char *end;
            long st = strtol(p + 1, &end, 10);
            if (end == p + 1 || st < 1 || st > hi)
                return false;
            p = end;
            step = (int)st;
            if (!all && b == a)
                b = hi; /* "a/step": from a to the end */
        }
        for (int v = a; v <= b; v += step)
            *bits |= 1ULL << v;
        if (*p != ',')
            break;
        p++;
    }
    return *p == '\0';
}

static bool cron_parse(const char *expr, struct cron *c)
{
    static const char *const macros[][2] = {
        {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
        {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
        {"@hourly", "0 * * * *"},
    };
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++)
        if (!strcmp(expr, macros[i][0]))
            expr = macros[i][1];
    char f[5][64];
    if (sscanf(expr, "%63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4]) != 5)
        return false;
    uint64_t bits;
    bool star;
    if (!field(f[0], 0, 59, NULL, 0, &c->min, &star))
        return false;
    if (!field(f[1], 0, 23, NULL, 0, &bits, &star))
        return false;
    c->hour = (uint32_t)bits;
    if (!field(f[2], 1, 31, NULL, 0, &bits, &c->dom_star))
        return false;
    c->dom = (uint32_t)(bits >> 1); /* bit d-1 for day d */
    if (!field(f[3], 1, 12, month_names, 12, &bits, &star))
        return false;
    c->mon = (uint16_t)(bits >> 1);
    if (!field(f[4], 0, 7, day_names, 7, &bits, &c->dow_star))
        return false;
    c->dow = (uint8_t)((bits | bits >> 7) & 0x7f); /* 7 is Sunday too */
    return true;
}

int64_t em_cron_next(const char *expr, int64_t t)
{
    struct cron c;
    if (!expr || !cron_parse(expr, &c))
        return -1;
    const int64_t day_ms = 24 * EM_HOUR_MS;
    int64_t start = (t / 60000 + 1) * 60000;
    int64_t days = start / day_ms;
    int first_min = (int)(start % day_ms / 60000);
    for (int n = 0; n < 366 * 5; n++, days++, first_min = 0) {
        int64_t y;
        int mo, d;
        nd_civil_from_days(days, &y, &mo, &d);
        int dow = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
        bool dom_ok = c.dom >> (d - 1) & 1, dow_ok = c.dow >> dow & 1;
        bool day_ok = c.dom_star || c.dow_star ? dom_ok && dow_ok : dom_ok || dow_ok;
        if (!(c.mon >> (mo - 1) & 1) || !day_ok)
            continue;
        for (int m = first_min; m < 24 * 60; m++)
            if ((c.hour >> (m / 60) & 1) && (c.min >> (m % 60) & 1))
                return days * day_ms + (int64_t)m * 60000;
    }
    return -1;
}

/* ---- proposing ---- */

static const char *decision_for(const char *mode)
{
    if (!strcmp(mode, "Shadow"))
        return "Shadow";
    return !strcmp(mode, "Auto") ? "Approved" : "Pending";
}

/* An open action of that kind (and target, when given). */
static bool open_action(const json_t *actions, const char *action, const char *target)
{
    size_t i;
    json_t *pa;
    json_array_foreach(actions, i, pa) {
        const char *a = nd_obj_get_string(pa, "spec.action");
        const char *t = nd_obj_get_string(pa, "spec.target");
        const char *d = nd_obj_get_string(pa, "spec.decision");
        if (em_action_open(pa) && a && !strcmp(a, action) && (!d || strcmp(d, "Shadow") != 0) &&
            (!target || (t && !strcmp(t, target))))
            return true;
    }
    return false;
}

static void propose(struct em_ctl *c, const json_t *actions, const char *mode, const char *action,
                    const char *target, const char *key, json_t *params, const char *reason)
{
    const char *decision = decision_for(mode);
    if (strcmp(decision, "Shadow") != 0 && open_action(actions, action, target)) {
        json_decref(params);
        return;
    }
    em_action_create(c->srv, c->obj, action, target, key, params, reason, decision);
}

static void fmt_duration(struct nd_buf *b, int64_t ms)
{
    nd_buf_reset(b);
    nd_duration_format_short(ms, b);
}

static bool any_waiting(const json_t *work)
{
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        if (em_work_waiting(json_string_value(json_array_get(pair, 0)), json_array_get(pair, 1)))
            return true;
    }
    return false;
}

static int64_t host_busy(const json_t *alloc, const char *host)
{
    int64_t n = 0;
    const char *m;
    json_t *v;
    json_object_foreach(json_object_get(alloc, host), m, v) n += json_integer_value(v);
    return n;
}

static void idle_reclaim(struct em_ctl *c, const json_t *pol, const char *mode, const json_t *hosts,
                         const json_t *alloc, const json_t *work, const json_t *actions)
{
    int64_t idle_for = em_json_duration(pol, "idleFor", EM_HOUR_MS);
    if (any_waiting(work))
        return;
    struct nd_buf target = ND_BUF_INIT, key = ND_BUF_INIT, reason = ND_BUF_INIT, d = ND_BUF_INIT;
    fmt_duration(&d, idle_for);
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        const json_t *since = nd_obj_get(h, "status.simulation.idleSince");
        if (!em_host_ready(h) || em_host_cordoned(h) || host_busy(alloc, em_obj_name(h)) ||
            !json_is_integer(since))
            continue;
        int64_t at = json_integer_value(since) + idle_for;
        if (c->now < at) {
            em_ctl_due(c, at);
            continue;
        }
        nd_buf_reset(&target);
        nd_buf_reset(&key);
        nd_buf_reset(&reason);
        nd_buf_addf(&target, "host/%s", em_obj_name(h));
        nd_buf_addf(&key, "%lld", (long long)json_integer_value(since));
        nd_buf_addf(&reason, "host/%s has run no work for %s (idleFor %s): return it",
                    em_obj_name(h), d.data, d.data);
        propose(c, actions, mode, "IdleReclaim", target.data, key.data,
                json_pack("{s:s}", "idleFor", d.data), reason.data);
    }
    nd_buf_release(&target);
    nd_buf_release(&key);
    nd_buf_release(&reason);
    nd_buf_release(&d);
}

static void drain(struct em_ctl *c, size_t index, const json_t *pol, const char *mode,
                  const json_t *actions)
{
    const char *schedule = json_string_value(json_object_get(pol, "schedule"));
    int64_t duration = em_json_duration(pol, "duration", EM_HOUR_MS);
    int64_t from = em_ctl_sim_get(c, "actAt", c->now);
    int64_t t = em_cron_next(schedule, from);
    struct nd_buf target = ND_BUF_INIT, key = ND_BUF_INIT, reason = ND_BUF_INIT, d = ND_BUF_INIT;
    struct nd_buf when = ND_BUF_INIT;
    fmt_duration(&d, duration);
    nd_buf_addf(&target, "pool/%s", em_obj_name(c->obj));
    for (int n = 0; t >= 0 && t <= c->now && n < 4; n++) {
        nd_buf_reset(&key);
        nd_buf_reset(&reason);
        nd_buf_reset(&when);
        nd_time_format(t / 1000, &when);
        nd_buf_addf(&key, "%zu@%lld", index, (long long)t);
        nd_buf_addf(&reason, "the Drain window of schedule \"%s\" opens at %s for %s", schedule,
                    when.data, d.data);
        propose(c, actions, mode, "Drain", target.data, key.data,
                json_pack("{s:s, s:s, s:s}", "schedule", schedule, "duration", d.data,
                          "windowStart", when.data),
                reason.data);
        t = em_cron_next(schedule, t);
    }
    if (t >= 0)
        em_ctl_due(c, t);
    nd_buf_release(&target);
    nd_buf_release(&key);
    nd_buf_release(&reason);
    nd_buf_release(&d);
    nd_buf_release(&when);
}

json_t *em_defrag_plan(struct em_server *srv, const char *ns, const char *pool, const char *host)
{
    json_t *hosts = em_pool_hosts(srv, ns, pool), *alloc = em_pool_allocated(srv, ns, pool);
    json_t *work = em_pool_work(srv, ns, pool), *items = json_array(), *plan = NULL;
    const char *model = NULL;
    size_t i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const char *plural = json_string_value(json_array_get(pair, 0));
        const json_t *o = json_array_get(pair, 1);
        const char *h = nd_obj_get_string(o, "status.placement.host");
        if (!em_work_holds(plural, o) || !h || strcmp(h, host) != 0)
            continue;
        const char *m = nd_obj_get_string(o, "status.placement.gpuModel");
        const char *want;
        int n = em_work_gpus(o, &want);
        if (!n || !m || (model && strcmp(model, m) != 0))
            goto out; /* CPU work, or several models: nothing to free */
        model = m;
        /* largest first, then by kind and name */
        size_t at = json_array_size(items);
        for (size_t j = 0; j < json_array_size(items); j++) {
            json_t *it = json_array_get(items, j);
            if (n > json_integer_value(json_array_get(it, 2))) {
                at = j;
                break;
            }
        }
        json_array_insert_new(items, at, json_pack("[ssi]", plural, em_obj_name(o), n));
    }
    if (!json_array_size(items))
        goto out;
    json_t *room = json_object(); /* busy host -> free devices */
    json_t *h;
    json_array_foreach(hosts, i, h) {
        const char *name = em_obj_name(h);
        int64_t used = em_alloc_of(alloc, name, model);
        if (strcmp(name, host) != 0 && em_host_ready(h) && !em_host_cordoned(h) && used > 0)
            json_object_set_new(room, name, json_integer(em_host_devices(h, model) - used));
    }
    plan = json_array();
    json_t *it;
    json_array_foreach(items, i, it) {
        json_int_t n = json_integer_value(json_array_get(it, 2));
        const char *best = NULL;
        json_int_t best_left = 0;
        const char *name;
        json_t *free_n;
        json_object_foreach(room, name, free_n) {
            json_int_t left = json_integer_value(free_n) - n;
            if (left >= 0 && (!best || left < best_left)) {
                best = name;
                best_left = left;
            }
        }
        if (!best) {
            json_decref(plan);
            plan = NULL;
            break;
        }
        json_object_set_new(room, best, json_integer(best_left));
        json_array_append_new(
            plan, json_pack("[OOs]", json_array_get(it, 0), json_array_get(it, 1), best));
    }
    json_decref(room);
out:
    json_decref(hosts);
    json_decref(alloc);
    json_decref(work);
    json_decref(items);
    return plan;
}

static void defragment(struct em_ctl *c, const char *mode, const json_t *hosts, const json_t *alloc,
                       const json_t *actions)
{
    if (open_action(actions, "Defragment", NULL))
        return;
    json_t *models = json_object();
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        const char *m;
        json_t *v;
        json_object_foreach((json_t *)nd_obj_get(h, "spec.gpus"), m, v)
            json_object_set_new(models, m, json_true());
    }
    const char *model;
    json_t *v;
    json_object_foreach(models, model, v) {
        const json_t *cand = NULL;
        int busy = 0;
        json_array_foreach(hosts, i, h) {
            int64_t used = em_alloc_of(alloc, em_obj_name(h), model);
            if (!em_host_ready(h) || em_host_cordoned(h) || used <= 0)
                continue;
            busy++;
            if (!cand || used <= em_alloc_of(alloc, em_obj_name(cand), model))
                cand = h;
        }
        if (busy < 2)
            continue;
        const char *name = em_obj_name(cand);
        json_t *plan = em_defrag_plan(c->srv, em_obj_ns(c->obj), em_obj_name(c->obj), name);
        if (!plan)
            continue;
        struct nd_buf target = ND_BUF_INIT, key = ND_BUF_INIT, list = ND_BUF_INIT;
        struct nd_buf reason = ND_BUF_INIT;
        nd_buf_addf(&target, "host/%s", name);
        nd_buf_adds(&key, name);
        size_t j;
        json_t *mv;
        json_array_foreach(plan, j, mv) {
            const char *plural = json_string_value(json_array_get(mv, 0));
            const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
            nd_buf_addf(&list, "%s%s/%s", j ? "," : "", k ? k->singular : plural,
                        json_string_value(json_array_get(mv, 1)));
        }
        nd_buf_addf(&key, ":%s", list.data);
        nd_buf_addf(&reason,
                    "host/%s runs %lld of its %lld %s; its work fits on the Pool's other "
                    "busy hosts, which frees the whole host",
                    name, (long long)em_alloc_of(alloc, name, model),
                    (long long)em_host_devices(cand, model), model);
        propose(c, actions, mode, "Defragment", target.data, key.data,
                json_pack("{s:s, s:s}", "gpuModel", model, "work", list.data), reason.data);
        json_decref(plan);
        nd_buf_release(&target);
        nd_buf_release(&key);
        nd_buf_release(&list);
        nd_buf_release(&reason);
        break; /* one host at a time */
    }
    json_decref(models);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void wait_tuning(struct em_ctl *c, const json_t *pol, const char *mode, const json_t *work,
                        const json_t *actions)
{
    int64_t lo = em_json_duration(pol, "minWaitTimeout", 60 * 1000);
    int64_t hi = em_json_duration(pol, "maxWaitTimeout", 24 * EM_HOUR_MS);
    int64_t *waits = calloc(json_array_size(work) + 1, sizeof *waits);
    size_t n = 0, i;
    json_t *pair;
    json_array_foreach(work, i, pair) {
        const json_t *o = json_array_get(pair, 1);
        const json_t *w = nd_obj_get(o, "status.simulation.waitMs");
        const json_t *at = nd_obj_get(o, "status.simulation.placedAt");
        if (json_integer_value(w) > 0 && json_is_integer(at) &&
            json_integer_value(at) >= c->now - 24 * EM_HOUR_MS)
            waits[n++] = json_integer_value(w);
    }
    if (!n) {
        free(waits);
        return;
    }
    qsort(waits, n, sizeof *waits, cmp_i64);
    int64_t p90 = waits[(n * 9 + 9) / 10 - 1];
    free(waits);
    int64_t want = (p90 + 59999) / 60000 * 60000;
    if (want < lo)
        want = lo;
    if (want > hi)
        want = hi;
    int64_t now = em_json_duration(c->obj, "spec.routing.waitTimeout", 30 * 60 * 1000);
    if (want == now)
        return;
    struct nd_buf target = ND_BUF_INIT, key = ND_BUF_INIT, reason = ND_BUF_INIT;
    struct nd_buf from = ND_BUF_INIT, to = ND_BUF_INIT, w = ND_BUF_INIT, l = ND_BUF_INIT;
    struct nd_buf h = ND_BUF_INIT;
    fmt_duration(&from, now);
    fmt_duration(&to, want);
    fmt_duration(&w, p90);
    fmt_duration(&l, lo);
    fmt_duration(&h, hi);
    nd_buf_addf(&target, "pool/%s", em_obj_name(c->obj));
    nd_buf_addf(&key, "%s:%s", to.data, from.data);
    nd_buf_addf(&reason,
                "90 %% of the work placed after waiting in the last 24h waited at most "
                "%s: waitTimeout %s -> %s (bounds %s to %s)",
                w.data, from.data, to.data, l.data, h.data);
    propose(c, actions, mode, "WaitTuning", target.data, key.data,
            json_pack("{s:s, s:s}", "waitTimeout", to.data, "from", from.data), reason.data);
    nd_buf_release(&target);
    nd_buf_release(&key);
    nd_buf_release(&reason);
    nd_buf_release(&from);
    nd_buf_release(&to);
    nd_buf_release(&w);
    nd_buf_release(&l);
    nd_buf_release(&h);
}

void em_pool_act(struct em_ctl *c, const json_t *hosts, const json_t *alloc, const json_t *work,
                 const json_t *actions)
{
    const char *mode = nd_obj_get_string(c->obj, "spec.act.mode");
    if (mode && strcmp(mode, "Off") != 0 && !em_pool_paused(c->obj)) {
        size_t i;
        json_t *pol;
        json_array_foreach(nd_obj_get(c->obj, "spec.act.policies"), i, pol) {
            const char *action = json_string_value(json_object_get(pol, "action"));
            if (!action)
                continue;
            if (!strcmp(action, "IdleReclaim"))
                idle_reclaim(c, pol, mode, hosts, alloc, work, actions);
            else if (!strcmp(action, "Drain"))
                drain(c, i, pol, mode, actions);
            else if (!strcmp(action, "Defragment"))
                defragment(c, mode, hosts, alloc, actions);
            else if (!strcmp(action, "WaitTuning"))
                wait_tuning(c, pol, mode, work, actions);
        }
    }
    /* schedules fire from here on: windows missed while off or paused are not replayed */
    em_ctl_sim_set(c, "actAt", c->now);
}

bool em_pool_burst_preapproved(const json_t *pool, int64_t gpus, int64_t market_gpus, int64_t rate)
{
    const char *mode = nd_obj_get_string(pool, "spec.act.mode");
    if (!mode || strcmp(mode, "Auto") != 0 || em_pool_paused(pool))
        return false;
    size_t i;
    json_t *pol;
    json_array_foreach(nd_obj_get(pool, "spec.act.policies"), i, pol) {
        const char *action = json_string_value(json_object_get(pol, "action"));
        if (!action || strcmp(action, "Burst") != 0)
            continue;
        const json_t *max_gpus = json_object_get(pol, "maxGPUs");
        int64_t max_rate = em_ctl_money(pol, "maxRateUSDPerHour", -1);
        if (json_is_integer(max_gpus) && json_integer_value(max_gpus) < market_gpus + gpus)
            continue;
        if (max_rate >= 0 && rate > max_rate)
            continue;
        return true;
    }
    return false;
}
