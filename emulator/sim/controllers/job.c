/* The Job controller: Queued -> Provisioning -> Running -> Succeeded | Failed |
 * Cancelled, with spec.state (Suspended goes back to Queued and stops the cost; Cancelled
 * ends it), costs accrued per emulated second at the Job's rate, maxCostUSD
 * (MaxCostReached), maxDuration (DeadlineExceeded), the annotations
 * emulator.nodus.dev/duration, /exit-code and /fail-at, and the final charge after the
 * end (or after a delete stopped it). Under --runtime local the command really runs
 * (runtime.h): its exit decides the end instead of the simulated duration. */
#include <string.h>

#include "common.h"
#include "controllers.h"
#include "job.h"
#include "objects.h"
#include "pricebook.h"
#include "priced.h"
#include "runtime.h"
#include "util/money.h"
#include "util/time.h"

static const char *state_of(const json_t *obj)
{
    const char *s = json_string_value(json_object_get(json_object_get(obj, "spec"), "state"));
    return s ? s : "Running";
}

static int64_t rate_of(struct em_ctl *c)
{
    int64_t r = c->money->rate;
    int64_t spec = em_ctl_spec_rate(c, r);
    return r >= 0 ? r : spec;
}

/* Ends the Job: the cost stops, completionTime, reason and message, the phase. */
static void finish(struct em_ctl *c, const char *phase, const char *reason, int exit_code,
                   const char *fmt_msg)
{
    em_runtime_run_stop(c, fmt_msg);
    em_ctl_accrue_stop(c, rate_of(c));
    em_ctl_set_time(c, "completionTime", c->now);
    if (strcmp(reason, "Succeeded") != 0)
        json_object_set_new(c->status, "reason", json_string(reason));
    if (exit_code >= 0)
        json_object_set_new(c->status, "exitCode", json_integer(exit_code));
    json_object_set_new(c->status, "message", json_string(fmt_msg));
    em_ctl_condition(c, "Ready", false, reason, fmt_msg);
    em_ctl_set_phase(c, phase, reason, "%s", fmt_msg);
}

/* How long until a threshold is crossed while running at rate. */
static int64_t ms_until_cost(int64_t cost, int64_t max, int64_t rate)
{
    if (rate <= 0)
        return EM_NEVER;
    if (cost >= max)
        return 0;
    __int128 ms = ((__int128)(max - cost) * 3600000 + rate - 1) / rate;
    return ms > (__int128)EM_NEVER / 2 ? EM_NEVER / 2 : (int64_t)ms;
}

int64_t em_job_ms(const char *text, int64_t def)
{
    int64_t ms;
    struct nd_status st = ND_STATUS_INIT;
    if (!text || nd_duration_parse(text, &ms, &st) < 0)
        ms = def;
    nd_status_release(&st);
    return ms;
}

enum em_job_end em_job_end_of(const struct em_job_clock *jc)
{
    if (jc->max_cost >= 0 && jc->cost >= jc->max_cost)
        return EM_JOB_MAX_COST;
    if (jc->deadline >= 0 && jc->ran >= jc->deadline)
        return EM_JOB_DEADLINE;
    if (jc->fail_at >= 0 && jc->ran >= jc->fail_at)
        return EM_JOB_FAILS;
    return jc->ran >= jc->duration ? EM_JOB_DONE : EM_JOB_RUNS;
}

int64_t em_job_next(const struct em_job_clock *jc)
{
    int64_t now = jc->now, ran = jc->ran;
    int64_t next = now + (jc->duration - ran);
    if (jc->fail_at >= 0 && now + (jc->fail_at - ran) < next)
        next = now + (jc->fail_at - ran);
    if (jc->deadline >= 0 && now + (jc->deadline - ran) < next)
        next = now + (jc->deadline - ran);
    if (jc->max_cost >= 0) {
        int64_t t = ms_until_cost(jc->cost, jc->max_cost, jc->rate);
        if (t != EM_NEVER && now + t < next)
            next = now + t;
    }
    if (jc->rate > 0 && now + EM_ACCRUE_EVERY_MS < next)
        next = now + EM_ACCRUE_EVERY_MS;
    return next;
}

static void run(struct em_ctl *c)
{
    const json_t *spec = json_object_get(c->obj, "spec");
    int64_t rate = rate_of(c);
    em_ctl_accrue(c, rate);
    bool local = em_runtime_local(c->srv);
    struct em_job_clock jc = {
        .now = c->now,
        .cost = c->money->cost,
        .max_cost = c->money->max_cost,
        .rate = rate,
        .ran = em_ctl_sim_get(c, "runMs", 0),
        .duration = local ? EM_NEVER / 4
                          : em_ctl_annotation_ms(c, "duration", em_delay_ms(c->srv, "jobRun")),
        .fail_at = local ? -1 : em_ctl_annotation_ms(c, "fail-at", -1),
        .deadline = em_job_ms(json_string_value(json_object_get(spec, "maxDuration")), -1),
    };
    enum em_job_end end = em_job_end_of(&jc);
    if (end == EM_JOB_MAX_COST) {
        em_ctl_set_cost(c, jc.max_cost);
        finish(c, "Failed", "MaxCostReached", -1, "stopped: the cost reached maxCostUSD");
        return;
    }
    if (end == EM_JOB_DEADLINE) {
        finish(c, "Failed", "DeadlineExceeded", -1, "stopped: the run reached maxDuration");
        return;
    }
    int exit_code = 0;
    int ran_local = local ? em_runtime_run_poll(c, &exit_code) : 0;
    if (ran_local < 0)
        em_runtime_run_start(c); /* the emulator restarted while it ran: run it again */
    if (ran_local > 0) {
        if (exit_code == 0)
            finish(c, "Succeeded", "Succeeded", 0, "the command exited 0");
        else
            finish(c, "Failed", "Error", exit_code, "the command exited with an error");
        return;
    }
    if (end == EM_JOB_FAILS) {
        int code = (int)em_ctl_annotation_int(c, "exit-code", 1);
        finish(c, "Failed", "Error", code ? code : 1, "the command failed");
        return;
    }
    if (end == EM_JOB_DONE) {
        int code = (int)em_ctl_annotation_int(c, "exit-code", 0);
        if (code == 0)
            finish(c, "Succeeded", "Succeeded", 0, "the command exited 0");
        else
            finish(c, "Failed", "Error", code, "the command exited with an error");
        return;
    }
    em_ctl_due(c, em_job_next(&jc));
}

/* The highest hourly rate the Job may start at: spec.placement.maxRateUSDPerHour, else
 * the reviewed rate + 10 % recorded at create (status.maxRateUSDPerHour); -1: none. */
static int64_t rate_cap(const struct em_ctl *c)
{
    int64_t cap = c->money->max_rate;
    return cap >= 0 ? cap : c->money->capped;
}

/* While the market is above the cap the Job waits, PriceAboveEstimate=True; the price
 * book changing makes it look again. */
static bool price_ok(struct em_ctl *c)
{
    int64_t cap = rate_cap(c);
    int64_t r = em_ctl_spec_rate(c, -1); /* also says when its GPU model lost its price */
    if (cap < 0)
        return true;
    struct nd_buf msg = ND_BUF_INIT, a = ND_BUF_INIT, b = ND_BUF_INIT;
    nd_money_format(r, &a);
    nd_money_format(cap, &b);
    bool ok = r <= cap;
    if (!ok) {
        nd_buf_addf(&msg, "waiting: the rate $%s/h is above the most this Job may pay, $%s/h",
                    a.data, b.data);
        if (!em_ctl_condition_true(c, "PriceAboveEstimate"))
            em_event_record(c->srv, c->k, c->obj, "Warning", "PriceAboveEstimate", "%s",
                            msg.data);
        em_ctl_condition(c, "PriceAboveEstimate", true, "PriceAboveEstimate", msg.data);
    } else if (em_ctl_condition_true(c, "PriceAboveEstimate")) {
        nd_buf_addf(&msg, "the rate $%s/h is within $%s/h again", a.data, b.data);
        em_ctl_condition(c, "PriceAboveEstimate", false, "PriceWithinEstimate", msg.data);
    }
    nd_buf_release(&msg);
    nd_buf_release(&a);
    nd_buf_release(&b);
    return ok;
}

static void start_provisioning(struct em_ctl *c)
{
    const json_t *spec = json_object_get(c->obj, "spec");
    /* a placement decided by a Pool's routing sets the rate it pays; the market's else */
    if (!json_object_get(c->status, "rateUSDPerHour"))
        em_ctl_set_rate(c, em_ctl_spec_rate(c, -1));
    const json_t *gpu = json_object_get(json_object_get(spec, "resources"), "gpu");
    json_t *placement = json_object();
    json_object_set_new(placement, "target", json_string("market"));
    if (json_string_value(json_object_get(gpu, "model")))
        json_object_set(placement, "gpuModel", json_object_get(gpu, "model"));
    if (!json_object_get(c->status, "placement"))
        json_object_set_new(c->status, "placement", placement);
    else
        json_decref(placement);
    json_object_set_new(c->status, "attempts",
                        json_integer(json_integer_value(json_object_get(c->status, "attempts")) + 1));
    em_ctl_set_phase(c, "Provisioning", "Provisioning", "placed on %s; provisioning",
                     json_string_value(json_object_get(json_object_get(c->status, "placement"),
                                                       "target")));
}

int64_t em_job_reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    struct em_ctl c;
    em_ctl_begin_light(&c, srv, k, obj, now); /* changes status members by replacing them */
    const char *phase = em_ctl_phase(&c);
    bool deleting = json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;
    const char *state = state_of(obj);

    if (nd_phase_terminal(k->family, phase)) {
        int64_t ended = em_ctl_time(&c, "completionTime");
        em_ctl_settle(&c, ended >= 0 ? ended : now);
        return em_ctl_commit(&c);
    }
    if (deleting) {
        /* a delete stops the work; the object goes once the final charge has posted */
        if (em_ctl_sim_get(&c, "accruedAt", -1) >= 0 || em_ctl_time(&c, "completionTime") < 0) {
            em_runtime_run_stop(&c, "the Job is being deleted");
            em_ctl_accrue_stop(&c, rate_of(&c));
            em_ctl_set_time(&c, "completionTime", now);
            json_object_set_new(c.status, "reason", json_string("Cancelled"));
            em_ctl_condition(&c, "Ready", false, "Cancelled", "the Job is being deleted");
        }
        em_ctl_settle(&c, em_ctl_time(&c, "completionTime"));
        return em_ctl_commit(&c);
    }
    if (!strcmp(state, "Cancelled")) {
        finish(&c, "Cancelled", "Cancelled", -1, "cancelled: spec.state is Cancelled");
        em_ctl_settle(&c, em_ctl_time(&c, "completionTime"));
        return em_ctl_commit(&c);
    }
    if (!strcmp(state, "Suspended")) {
        enum nd_phase was = nd_phase_parse(phase);
        if (was == ND_PHASE_PROVISIONING || was == ND_PHASE_RUNNING) {
            em_runtime_run_stop(&c, "suspended: spec.state is Suspended");
            em_ctl_accrue_stop(&c, rate_of(&c));
            em_ctl_set_phase(&c, "Queued", "Suspended", "suspended: back in the queue, no cost");
        }
        /* the devices go back (also those a Pool's routing held for it while queued) */
        json_object_del(c.status, "placement");
        em_ctl_clear_rate(&c);
        if (!em_ctl_condition_true(&c, "Suspended"))
            em_ctl_condition(&c, "Suspended", true, "Suspended", "spec.state is Suspended");
        em_ctl_condition(&c, "Ready", false, "Suspended", "suspended");
        return em_ctl_commit(&c);
    }
    /* spec.state Running */
    if (em_ctl_condition_true(&c, "Suspended")) {
        em_ctl_condition(&c, "Suspended", false, "Resumed", "spec.state is Running");
        em_ctl_sim_set(&c, "phaseTime", now); /* queued again from now */
    }
    if (!*phase || nd_phase_parse(phase) == ND_PHASE_QUEUED) {
        if (!*phase)
            json_object_set_new(c.status, "phase", json_string("Queued"));
        int64_t wait = 0;
        if (!price_ok(&c)) {
            /* looked at again when the price book changes */
        } else if (em_job_can_start(&c, &wait)) {
            int64_t at = em_ctl_phase_time(&c) + em_delay_ms(srv, "queued");
            if (now >= at)
                start_provisioning(&c);
            else
                em_ctl_due(&c, at);
        } else if (wait != EM_NEVER) {
            em_ctl_due(&c, wait);
        }
        if (em_ctl_phase_id(&c) != ND_PHASE_PROVISIONING) {
            em_ctl_condition(&c, "Ready", false, "Queued", "waiting to be placed");
            return em_ctl_commit(&c);
        }
    }
    if (em_ctl_phase_id(&c) == ND_PHASE_PROVISIONING) {
        int64_t at = em_ctl_phase_time(&c) + em_delay_ms(srv, "provisioning");
        if (now < at) {
            em_ctl_due(&c, at);
            return em_ctl_commit(&c);
        }
        if (!json_object_get(c.status, "startTime"))
            em_ctl_set_time(&c, "startTime", now);
        em_ctl_accrue_start(&c);
        em_ctl_condition(&c, "Ready", true, "Running", "the command is running");
        em_ctl_set_phase(&c, "Running", "Running", "the command is running");
        em_runtime_run_start(&c);
    }
    if (em_ctl_phase_id(&c) == ND_PHASE_RUNNING)
        run(&c);
    if (nd_phase_terminal(k->family, em_ctl_phase(&c)))
        em_ctl_settle(&c, em_ctl_time(&c, "completionTime")); /* the final charge's timer */
    return em_ctl_commit(&c);
}

/* What reconcile does with an ended Job whose final charge has posted, not being deleted,
 * with its end condition and its status at its generation: nothing, but wait for the
 * final charge's time when that is still ahead (em_ctl_settle; the delay grew since).
 * Read from the record (store/entry.h), which holds those fields of an ended Job; a
 * record without them (of another kind of end, or of an older emulator) sends the Job to
 * reconcile. */
static bool idle(struct em_server *srv, const struct nd_kind *k, const json_t *rec, int64_t now,
                 int64_t *due)
{
    const json_t *meta = json_object_get(rec, "metadata");
    const json_t *status = json_object_get(rec, "status");
    if (!nd_phase_terminal(k->family, json_string_value(json_object_get(status, "phase"))) ||
        json_object_get(meta, "deletionTimestamp") || em_ctl_lacks_end_condition(k, rec) ||
        !json_is_true(json_object_get(json_object_get(status, "billing"), "settled")) ||
        !json_object_get(json_object_get(status, "simulation"), "phaseTime"))
        return false; /* phaseTime: status.simulation is not empty (em_ctl_commit drops it) */
    const json_t *gen = json_object_get(meta, "generation");
    if (gen && !json_equal((json_t *)gen, json_object_get(status, "observedGeneration")))
        return false;
    int64_t ended = em_ctl_time_in(status, "completionTime");
    if (ended < 0)
        ended = now;
    bool ran = json_object_get(status, "startTime") != NULL;
    int64_t at = ran ? ended + em_delay_ms(srv, "finalCharge") : now;
    *due = now < at ? at : EM_NEVER;
    return true;
}

const struct em_controller em_job_controller = {"jobs", em_job_reconcile, NULL, idle, em_job_minute};
