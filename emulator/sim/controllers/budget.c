/* The Budget controller and the Block rule at launch.
 *
 * A Budget counts what the billed objects of its project (Jobs, Sandboxes, Functions,
 * Volumes) that its selector matches (no selector: all of them) cost during the current
 * period: Monthly, Weekly (from Monday) and Daily periods start at 00:00 UTC; Total never
 * resets (it starts when the Budget was created). The spending of a period is the cost
 * accrued during it: each object's cost at the start of the period (or when the Budget
 * first saw it, for an object older than the period) is its baseline, kept with its last
 * seen cost in status.simulation.ledger (uid -> {base, cost}), so objects deleted during
 * the period still count. Pipelines cost what their Jobs cost and are counted through
 * them (their Jobs carry their labels).
 *
 * status: spentUSD, remainingUSD, periodStart, periodEnd (none for Total). Conditions
 * ThresholdReached (each of spec.thresholds, percent of the limit, is announced once per
 * period by a Warning Event) and Exceeded (spent >= limit). The controller runs again at
 * the end of the period and at the moment the work running in scope will cross the next
 * threshold, so actions happen at the limit, not a tick later. Actions:
 *   Notify   conditions and Events only.
 *   Suspend  at the limit, Jobs and Pipelines in scope that are not finished get
 *            spec.state Suspended, Sandboxes and Functions spec.state Stopped (a spec
 *            change, with a Warning Event on each naming the Budget); while over the
 *            limit, work resumed in scope is suspended again.
 *   Block    a launch (creating a billed kind or a Pipeline, or spec.state back to
 *            Running) whose first hold would take the spending past the limit fails
 *            BudgetExceeded (em_budget_check_launch, also for a dry run and for the Jobs a
 *            Pipeline creates).
 * The first hold is the price book's holds.firstHoldHours (default 1) at the object's
 * rate, capped at its maxCostUSD: for a Function at max(minReplicas, 1) replicas, for a
 * Volume its storage, for a Pipeline the sum over its first steps (those depending on
 * nothing), capped at the Pipeline's maxCostUSD. A Budget with spec.state Stopped (or
 * being deleted) counts but does nothing. */
#include <string.h>

#include "admit.h"
#include "budget_math.h"
#include "controllers.h"
#include "longrun.h"
#include "objects.h"
#include "pricebook.h"
#include "selector/selector.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* Storage (a Volume): billed by its size, without compute. */
static bool storage(const struct nd_kind *k)
{
    return nd_kind_is(k, ND_KIND_BILLED) && !nd_kind_is(k, ND_KIND_COMPUTE);
}

static const char *spec_str(const json_t *obj, const char *key, const char *def)
{
    const char *s = json_string_value(json_object_get(json_object_get(obj, "spec"), key));
    return s ? s : def;
}

static int64_t time_ms(const json_t *obj, const char *where, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(obj, where), key));
    int64_t sec;
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms = s && nd_time_parse(s, &sec, &st) == 0 ? sec * 1000 : -1;
    nd_status_release(&st);
    return ms;
}

int64_t em_live_cost(struct em_server *srv, const char *plural, const json_t *obj, int64_t now,
                     int64_t *rate)
{
    const json_t *status = json_object_get(obj, "status");
    int64_t r = 0, cost;
    if (storage(nd_kind_by_plural("nodus.dev", plural))) {
        cost = em_volume_cost(srv, obj, now);
        if (json_object_get(json_object_get(status, "simulation"), "segStart"))
            r = em_spec_rate(srv, plural, json_object_get(obj, "spec"));
    } else {
        const struct em_money *m = em_ctl_money_of(srv, obj);
        cost = m->cost;
        const json_t *at = json_object_get(json_object_get(status, "simulation"), "accruedAt");
        int64_t per = m->rate;
        if (json_is_integer(at) && per > 0) {
            cost = em_budget_accrued(cost, per, json_integer_value(at), now);
            r = per;
        }
    }
    if (rate)
        *rate = r;
    return cost;
}

/* ---- periods ---- */

static struct em_budget_period period_of(const json_t *budget, int64_t now)
{
    return em_budget_period_of(spec_str(budget, "period", "Monthly"),
                               time_ms(budget, "metadata", "creationTimestamp"), now);
}

/* ---- spending ---- */

struct spend {
    int64_t spent; /* micro-dollars in the period */
    int64_t rate;  /* what the objects in scope accrue now, per hour */
    json_t *ledger; /* NEW: uid -> {base, cost} */
};

static struct nd_selector *selector_of(const json_t *budget)
{
    const json_t *sel = json_object_get(json_object_get(budget, "spec"), "selector");
    struct nd_status st = ND_STATUS_INIT;
    json_t *empty = json_object();
    struct nd_selector *s = nd_selector_from_json(json_is_object(sel) ? sel : empty, &st);
    json_decref(empty);
    nd_status_release(&st);
    return s;
}

static bool in_scope(const struct nd_selector *sel, const json_t *obj)
{
    return sel && nd_selector_matches(sel, json_object_get(json_object_get(obj, "metadata"),
                                                           "labels"));
}

/* What budget has counted at now, continuing its ledger unless the period changed. */
static void spending(struct em_server *srv, const json_t *budget, const struct em_budget_period *p,
                     int64_t now, struct spend *out)
{
    const json_t *sim = json_object_get(json_object_get(budget, "status"), "simulation");
    const json_t *old = json_object_get(sim, "ledger");
    const json_t *was = json_object_get(sim, "periodStart");
    if (!json_is_integer(was) || json_integer_value(was) != p->start)
        old = NULL; /* a new period: every baseline is taken again */
    struct nd_selector *sel = selector_of(budget);
    json_t *seen = json_object(); /* uid of every billed object of the project */
    out->spent = out->rate = 0;
    out->ledger = json_object();
    for (size_t b = 0; b < nd_kind_count(); b++) {
        const char *billed = nd_kinds[b].plural;
        if (!nd_kind_is(&nd_kinds[b], ND_KIND_BILLED))
            continue;
        json_t *items = em_store_list(&srv->store, &nd_kinds[b], em_obj_ns(budget));
        size_t i;
        json_t *o;
        json_array_foreach(items, i, o) {
            const char *uid = json_string_value(json_object_get(json_object_get(o, "metadata"),
                                                                "uid"));
            if (!uid)
                continue;
            json_object_set_new(seen, uid, json_true());
            if (!in_scope(sel, o))
                continue;
            int64_t rate = 0, cost = em_live_cost(srv, billed, o, now, &rate);
            const json_t *entry = json_object_get(old, uid);
            int64_t created = entry || p->total ? 0 : time_ms(o, "metadata", "creationTimestamp");
            int64_t base = em_budget_baseline(entry != NULL,
                                              json_integer_value(json_object_get(entry, "base")),
                                              p->total, created, p->start, cost);
            out->spent += em_budget_spent(cost, base);
            out->rate += rate;
            json_object_set_new(out->ledger, uid, json_pack("{sIsI}", "base", (json_int_t)base,
                                                            "cost", (json_int_t)cost));
        }
        json_decref(items);
    }
    /* what was spent by objects deleted since still counts */
    const char *uid;
    json_t *entry;
    json_object_foreach((json_t *)old, uid, entry) {
        if (json_object_get(seen, uid))
            continue;
        int64_t base = json_integer_value(json_object_get(entry, "base"));
        int64_t cost = json_integer_value(json_object_get(entry, "cost"));
        out->spent += em_budget_spent(cost, base);
        json_object_set(out->ledger, uid, entry);
    }
    json_decref(seen);
    nd_selector_free(sel);
}

/* ---- first holds ---- */

static int64_t hold_ms(const struct em_server *srv)
{
    return em_budget_hold_ms(
        json_object_get(json_object_get(em_pricebook(srv), "holds"), "firstHoldHours"));
}

static int64_t capped_hold(int64_t rate, int64_t ms, const json_t *spec)
{
    return em_budget_capped_hold(rate, ms, em_ctl_money(spec, "maxCostUSD", -1));
}

static int64_t first_hold(struct em_server *srv, const struct nd_kind *k, const json_t *obj)
{
    const json_t *spec = json_object_get(obj, "spec");
    int64_t ms = hold_ms(srv);
    if (!nd_kind_is(k, ND_KIND_BILLED)) { /* a Pipeline: the Jobs it starts first */
        int64_t sum = 0, max = em_ctl_money(spec, "maxCostUSD", -1);
        size_t i;
        json_t *step;
        json_array_foreach(json_object_get(spec, "steps"), i, step) {
            const json_t *job = json_object_get(step, "job");
            if (!json_array_size(json_object_get(step, "dependsOn")))
                sum += capped_hold(em_spec_rate(srv, "jobs", job), ms, job);
        }
        return max >= 0 && sum > max ? max : sum;
    }
    if (storage(k)) {
        int64_t hold = 0;
        nd_money_mul_rate(em_spec_rate(srv, k->plural, spec), ms, &hold);
        return hold;
    }
    int64_t rate = em_spec_rate(srv, k->plural, spec);
    if (nd_kind_has_subresource(k, "invoke")) { /* a Function: its minimum replicas */
        const json_t *min = json_object_get(json_object_get(spec, "scaling"), "minReplicas");
        json_int_t n = json_is_integer(min) && json_integer_value(min) > 1 ? json_integer_value(min)
                                                                            : 1;
        rate *= n;
    }
    return capped_hold(rate, ms, spec);
}

/* ---- Block ---- */

static bool enforced(const json_t *budget)
{
    return !json_object_get(json_object_get(budget, "metadata"), "deletionTimestamp") &&
           strcmp(spec_str(budget, "state", "Running"), "Stopped") != 0;
}

static void human(int64_t micros, struct nd_buf *b)
{
    nd_buf_reset(b);
    nd_money_human(micros, b);
}

int em_budget_check_launch(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                           struct nd_status *st)
{
    const char *ns = em_obj_ns(obj);
    json_t *budgets = em_store_list(&srv->store, nd_kind_by_plural(NULL, "budgets"), ns);
    int64_t now = em_clock_now_ms(&srv->clock);
    int rc = 0;
    int64_t hold = -1;
    size_t i;
    json_t *b;
    json_array_foreach(budgets, i, b) {
        if (!enforced(b) || strcmp(spec_str(b, "action", "Block"), "Block") != 0)
            continue;
        struct nd_selector *sel = selector_of(b);
        bool scoped = in_scope(sel, obj);
        nd_selector_free(sel);
        if (!scoped)
            continue;
        if (hold < 0)
            hold = first_hold(srv, k, obj);
        struct em_budget_period p = period_of(b, now);
        struct spend s;
        spending(srv, b, &p, now, &s);
        json_decref(s.ledger);
        int64_t limit = em_ctl_money_of(srv, b)->limit;
        if (!em_budget_blocks(s.spent, hold, limit))
            continue;
        struct nd_buf spent = ND_BUF_INIT, lim = ND_BUF_INIT, h = ND_BUF_INIT, end = ND_BUF_INIT;
        human(s.spent, &spent);
        human(limit, &lim);
        human(hold, &h);
        nd_status_set(st, "BudgetExceeded", NULL,
                      "budget \"%s\" would be exceeded: %s of its %s limit is spent %s and "
                      "launching %s \"%s\" holds %s first",
                      em_obj_name(b), spent.data, lim.data, p.total ? "in total" : "this period",
                      k->singular, em_obj_name(obj), h.data);
        if (p.end >= 0) {
            nd_time_format(p.end / 1000, &end);
            nd_status_set_fix(st,
                              "lower this launch's spec.maxCostUSD, wait until the period "
                              "ends at %s, or raise the Budget's spec.limitUSD: nodus edit "
                              "budget %s -n %s",
                              end.data, em_obj_name(b), em_obj_ns(b));
        } else {
            nd_status_set_fix(st,
                              "lower this launch's spec.maxCostUSD, or raise the Budget's "
                              "spec.limitUSD: nodus edit budget %s -n %s",
                              em_obj_name(b), em_obj_ns(b));
        }
        nd_status_set_target(st, em_obj_name(obj), k->group, k->plural);
        nd_buf_release(&spent);
        nd_buf_release(&lim);
        nd_buf_release(&h);
        nd_buf_release(&end);
        rc = -1;
        break;
    }
    json_decref(budgets);
    return rc;
}

static const char *state_or(const json_t *obj, const char *def)
{
    return spec_str(obj, "state", def);
}

int em_budget_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    const char *now_state = state_or(obj, "Running");
    if (strcmp(now_state, "Running") != 0)
        return 0; /* created suspended or stopped: checked when it runs */
    if (old) {
        const char *was = state_or(old, "Running");
        if (strcmp(was, "Suspended") != 0 && strcmp(was, "Stopped") != 0)
            return 0; /* not a launch */
    }
    return em_budget_check_launch(a->srv, a->kind, obj, a->st);
}

/* ---- the controller ---- */

#define MAX_THRESHOLDS EM_BUDGET_MAX_THRESHOLDS

/* spec.thresholds (default 50, 80, 100) into out; their number. */
static size_t thresholds(const json_t *budget, int64_t out[MAX_THRESHOLDS])
{
    return em_budget_thresholds(json_object_get(json_object_get(budget, "spec"), "thresholds"),
                                out);
}

/* Suspends (runs to completion) or stops (long-running) the work in scope that still
 * runs: the objects of every kind that uses compute. */
static void suspend_scope(struct em_ctl *c, int64_t spent, int64_t limit)
{
    struct nd_selector *sel = selector_of(c->obj);
    struct nd_buf names = ND_BUF_INIT, s = ND_BUF_INIT, l = ND_BUF_INIT;
    human(spent, &s);
    human(limit, &l);
    for (size_t w = 0; w < nd_kind_count(); w++) {
        const struct nd_kind *k = &nd_kinds[w];
        if (!nd_kind_is(k, ND_KIND_COMPUTE))
            continue;
        bool run = k->family == ND_FAMILY_RUN;
        json_t *items = em_store_list(&c->srv->store, k, em_obj_ns(c->obj));
        size_t i;
        json_t *o;
        json_array_foreach(items, i, o) {
            const char *phase = json_string_value(json_object_get(json_object_get(o, "status"),
                                                                  "phase"));
            if (!in_scope(sel, o) || strcmp(state_or(o, "Running"), "Running") != 0 ||
                json_object_get(json_object_get(o, "metadata"), "deletionTimestamp") ||
                (phase && nd_phase_terminal(k->family, phase)))
                continue;
            json_t *copy = json_deep_copy(o);
            json_t *spec = json_object_get(copy, "spec");
            if (!json_is_object(spec)) {
                json_decref(copy);
                continue;
            }
            json_object_set_new(spec, "state", json_string(run ? "Suspended" : "Stopped"));
            struct nd_status st = ND_STATUS_INIT;
            if (em_obj_update(c->srv, k, o, copy, &st) == 0) {
                em_event_record(c->srv, k, copy, "Warning", "BudgetExceeded",
                                "%s by budget/%s: %s of its %s limit spent",
                                run ? "suspended" : "stopped", em_obj_name(c->obj), s.data, l.data);
                nd_buf_addf(&names, "%s%s/%s", names.len ? ", " : "", k->singular,
                            em_obj_name(copy));
            }
            nd_status_release(&st);
            json_decref(copy);
        }
        json_decref(items);
    }
    if (names.len)
        em_event_record(c->srv, c->k, c->obj, "Warning", "Suspended",
                        "the limit is reached: suspended or stopped %s", names.data);
    nd_buf_release(&names);
    nd_buf_release(&s);
    nd_buf_release(&l);
    nd_selector_free(sel);
}

/* Conditions, the Events of thresholds crossed, and the Suspend action. */
static void enforce(struct em_ctl *c, int64_t spent, int64_t limit)
{
    int64_t th[MAX_THRESHOLDS];
    size_t n = thresholds(c->obj, th);
    int64_t crossed = em_ctl_sim_get(c, "crossed", 0), level = 0;
    struct nd_buf s = ND_BUF_INIT, l = ND_BUF_INIT, msg = ND_BUF_INIT;
    human(spent, &s);
    human(limit, &l);
    for (size_t i = 0; i < n; i++) {
        int64_t pct = th[i];
        if (!em_budget_reached(spent, limit, pct))
            continue;
        level = pct;
        if (pct > crossed)
            em_event_record(c->srv, c->k, c->obj, "Warning", "ThresholdReached",
                            "%lld%% of the limit reached: %s of %s spent", (long long)pct,
                            s.data, l.data);
    }
    if (level > crossed)
        em_ctl_sim_set(c, "crossed", level);
    if (level) {
        char reason[32];
        snprintf(reason, sizeof reason, "Threshold%lld", (long long)level);
        nd_buf_addf(&msg, "%s of the %s limit spent (threshold %lld%%)", s.data, l.data,
                    (long long)level);
        em_ctl_condition(c, "ThresholdReached", true, reason, msg.data);
    } else {
        em_ctl_condition(c, "ThresholdReached", false, "BelowThresholds", "no threshold reached");
    }
    bool over = spent >= limit;
    if (over && !em_ctl_condition_true(c, "Exceeded"))
        em_event_record(c->srv, c->k, c->obj, "Warning", "Exceeded",
                        "the limit is reached: %s of %s spent (action %s)", s.data, l.data,
                        spec_str(c->obj, "action", "Block"));
    nd_buf_reset(&msg);
    nd_buf_addf(&msg, "%s of the %s limit spent", s.data, l.data);
    em_ctl_condition(c, "Exceeded", over, over ? "LimitReached" : "WithinLimit", msg.data);
    if (over && !strcmp(spec_str(c->obj, "action", "Block"), "Suspend"))
        suspend_scope(c, spent, limit);
    nd_buf_release(&s);
    nd_buf_release(&l);
    nd_buf_release(&msg);
}

/* When the work running now (rate per hour) brings spent to the next threshold or the
 * limit; EM_NEVER when nothing is running or everything is reached. */
static int64_t next_crossing(const json_t *budget, int64_t now, int64_t spent, int64_t limit,
                             int64_t rate)
{
    if (rate <= 0)
        return EM_NEVER;
    int64_t th[MAX_THRESHOLDS];
    size_t n = thresholds(budget, th);
    return em_budget_next_crossing(th, n, now, spent, limit, rate, EM_NEVER);
}

static void status(struct em_ctl *c)
{
    struct em_budget_period p = period_of(c->obj, c->now);
    struct spend s;
    spending(c->srv, c->obj, &p, c->now, &s);
    int64_t limit = c->money->limit;
    int64_t was = em_ctl_sim_get(c, "periodStart", -1);
    if (was >= 0 && was != p.start) {
        em_ctl_sim_del(c, "crossed");
        em_event_record(c->srv, c->k, c->obj, "Normal", "PeriodStarted",
                        "a new %s period: spending counts from zero",
                        spec_str(c->obj, "period", "Monthly"));
    }
    em_ctl_sim_set(c, "periodStart", p.start);
    json_object_set_new(c->sim, "ledger", s.ledger);
    em_ctl_set_money(c->status, "spentUSD", s.spent);
    em_ctl_set_money(c->status, "remainingUSD", limit > s.spent ? limit - s.spent : 0);
    em_ctl_set_time(c, "periodStart", p.start);
    if (p.end >= 0) {
        em_ctl_set_time(c, "periodEnd", p.end);
        em_ctl_due(c, p.end);
    } else {
        json_object_del(c->status, "periodEnd");
    }
    if (enforced(c->obj)) {
        enforce(c, s.spent, limit);
        em_ctl_due(c, next_crossing(c->obj, c->now, s.spent, limit, s.rate));
    } else {
        static const char *const conds[] = {"ThresholdReached", "Exceeded", NULL};
        for (int i = 0; conds[i]; i++)
            if (em_ctl_condition_true(c, conds[i]))
                em_ctl_condition(c, conds[i], false, "Stopped",
                                 "the Budget is stopped (spec.state: Stopped)");
    }
}

static const struct em_longrun_ops ops = {
    .status = status,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

const struct em_controller em_budget_controller = {"budgets", reconcile};
