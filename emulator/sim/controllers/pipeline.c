/* The Pipeline controller: runs spec.steps, a graph of Jobs, in dependency order.
 *
 * Each step gets a Job <pipeline>-<step>, created once every step it depends on has
 * Succeeded, owned by the Pipeline (ownerReferences, controller and blockOwnerDeletion
 * true, so deleting the Pipeline deletes it unless orphaned), with the Pipeline's labels
 * (those outside nodus.dev/) plus nodus.dev/pipeline=<pipeline> and
 * nodus.dev/pipeline-step=<step>. The Pipeline's emulator.nodus.dev/<key> annotations
 * go to every step's Job, and emulator.nodus.dev/<step>.<key> to that step's only (as
 * emulator.nodus.dev/<key>), so a test can make one step fail or last longer.
 *
 * Phases: Queued (nothing created yet, or suspended), Provisioning (Jobs created, none
 * running yet), Running (a step has run), then Succeeded (every step did), Failed (a
 * step failed or was cancelled or deleted, reason StepFailed; the cost passed
 * spec.maxCostUSD, reason MaxCostReached; a Budget refused a step, reason
 * BudgetExceeded) or Cancelled (spec.state). When it ends, the steps still running are
 * cancelled (spec.state Cancelled) and the steps never created show phase Cancelled.
 * spec.state Suspended suspends its running Jobs and starts no new step; Running again
 * resumes them. status.costUSD is the sum of its Jobs' costs.
 *
 * status.simulation: stepCosts (the last cost seen of each step's Job, kept when a Job
 * is gone), suspended (1 while the Pipeline holds its Jobs suspended). */
#include <string.h>

#include "kinds/schema.h"
#include "controllers.h"
#include "objects.h"
#include "util/id.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define EMU_PREFIX "emulator.nodus.dev/"

struct step {
    const char *name;  /* borrowed from spec */
    const json_t *def; /* the step in spec.steps */
    char *job_name;
    json_t *job;       /* the stored Job (borrowed), or NULL */
    const char *phase; /* the Job's phase; "Pending" before it exists */
    bool created;      /* a Job was created for it (status.steps[].job) */
    bool foreign;      /* a Job of that name exists that the Pipeline does not own */
};

struct run {
    struct em_ctl *c;
    const struct nd_kind *jobs;
    struct step *v;
    size_t n;
};

static const char *uid_of(const json_t *obj)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
}

static bool owned(const json_t *job, const char *uid)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(json_object_get(job, "metadata"), "ownerReferences"), i,
                       r) {
        const char *u = json_string_value(json_object_get(r, "uid"));
        if (u && uid && !strcmp(u, uid))
            return true;
    }
    return false;
}

static bool terminal(const char *phase)
{
    return nd_phase_ended(nd_phase_parse(phase));
}

static const char *state_of(const json_t *obj)
{
    const char *s = json_string_value(json_object_get(json_object_get(obj, "spec"), "state"));
    return s ? s : "Running";
}

static const json_t *prev_step(struct em_ctl *c, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(c->status, "steps"), i, s) {
        const char *n = json_string_value(json_object_get(s, "name"));
        if (n && !strcmp(n, name))
            return s;
    }
    return NULL;
}

/* Reads each step's Job from the store. */
static void load(struct run *r)
{
    struct em_ctl *c = r->c;
    const json_t *steps = json_object_get(json_object_get(c->obj, "spec"), "steps");
    r->n = json_array_size(steps);
    r->v = nd_xcalloc(r->n ? r->n : 1, sizeof *r->v);
    const char *uid = uid_of(c->obj), *ns = em_obj_ns(c->obj);
    for (size_t i = 0; i < r->n; i++) {
        struct step *s = &r->v[i];
        s->def = json_array_get(steps, i);
        s->name = json_string_value(json_object_get(s->def, "name"));
        if (!s->name)
            s->name = "";
        s->job_name = nd_xasprintf("%s-%s", em_obj_name(c->obj), s->name);
        const json_t *prev = prev_step(c, s->name);
        s->created = json_object_get(prev, "job") != NULL;
        json_t *job =
            em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "jobs"), ns, s->job_name);
        if (job && !owned(job, uid)) {
            s->foreign = !s->created;
            job = NULL;
        }
        s->job = job;
        if (job) {
            s->created = true;
            const char *p = json_string_value(json_object_get(json_object_get(job, "status"),
                                                              "phase"));
            s->phase = p ? p : "Queued";
        } else if (s->created) {
            /* its Job is gone: what it reached stays; anything else did not finish */
            const char *p = json_string_value(json_object_get(prev, "phase"));
            s->phase = p && terminal(p) ? p : "Cancelled";
        } else {
            const char *p = json_string_value(json_object_get(prev, "phase"));
            s->phase = nd_phase_parse(p) == ND_PHASE_CANCELLED ? "Cancelled" : "Pending";
        }
    }
}

static void release(struct run *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].job_name);
    free(r->v);
}

/* status.steps and status.costUSD from the steps; the live cost and rate of its Jobs. */
static int64_t report(struct run *r, int64_t *rate)
{
    struct em_ctl *c = r->c;
    json_t *costs = json_object_get(c->sim, "stepCosts");
    if (!json_is_object(costs)) {
        costs = json_object();
        json_object_set_new(c->sim, "stepCosts", costs);
    }
    json_t *steps = json_array();
    int64_t total = 0, live = 0;
    *rate = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct step *s = &r->v[i];
        json_t *st = json_pack("{ss}", "name", s->name);
        if (s->created)
            json_object_set_new(st, "job", json_string(s->job_name));
        json_object_set_new(st, "phase", json_string(s->phase));
        json_array_append_new(steps, st);
        if (s->job) {
            int64_t jr = 0;
            int64_t cost = em_ctl_money_of(c->srv, s->job)->cost;
            json_object_set_new(costs, s->name, json_integer(cost));
            live += em_live_cost(c->srv, "jobs", s->job, c->now, &jr);
            *rate += jr;
            total += cost;
        } else {
            int64_t cost = json_integer_value(json_object_get(costs, s->name));
            total += cost;
            live += cost;
        }
    }
    if (!json_object_size(costs))
        json_object_del(c->sim, "stepCosts");
    json_object_set_new(c->status, "steps", steps);
    em_ctl_set_cost(c, total);
    return live;
}

/* Sets a step Job's spec.state (a spec change, with an Event on the Job). */
static void set_job_state(struct run *r, struct step *s, const char *state, const char *why)
{
    if (!s->job || !strcmp(state_of(s->job), state) || terminal(s->phase) ||
        json_object_get(json_object_get(s->job, "metadata"), "deletionTimestamp"))
        return;
    json_t *copy = json_deep_copy(s->job);
    json_object_set_new(json_object_get(copy, "spec"), "state", json_string(state));
    struct nd_status st = ND_STATUS_INIT;
    if (em_obj_update(r->c->srv, r->jobs, s->job, copy, &st) == 0)
        em_event_record(r->c->srv, r->jobs, copy, "Normal", state, "%s by pipeline/%s", why,
                        em_obj_name(r->c->obj));
    nd_status_release(&st);
    json_decref(copy);
    s->job = em_store_get(&r->c->srv->store, nd_kind_by_plural(NULL, "jobs"), em_obj_ns(r->c->obj),
                          s->job_name);
}

/* Ends the Pipeline: its unfinished steps are cancelled. */
static void end(struct run *r, const char *phase, const char *reason, const char *message)
{
    struct em_ctl *c = r->c;
    for (size_t i = 0; i < r->n; i++) {
        struct step *s = &r->v[i];
        if (s->job && !terminal(s->phase))
            set_job_state(r, s, "Cancelled", "cancelled");
        else if (!s->created)
            s->phase = "Cancelled";
    }
    em_ctl_set_time(c, "completionTime", c->now);
    if (nd_phase_parse(phase) != ND_PHASE_SUCCEEDED)
        json_object_set_new(c->status, "reason", json_string(reason));
    json_object_set_new(c->status, "message", json_string(message));
    em_ctl_sim_del(c, "suspended");
    if (em_ctl_condition_true(c, "Suspended"))
        em_ctl_condition(c, "Suspended", false, reason, message);
    em_ctl_condition(c, "Ready", false, reason, message);
    em_ctl_set_phase(c, phase, reason, "%s", message);
}

/* The step Job's manifest, as the API would have stored it. NEW. */
static json_t *step_job(struct run *r, const struct step *s)
{
    struct em_ctl *c = r->c;
    const json_t *pmeta = json_object_get(c->obj, "metadata");
    json_t *labels = json_object(), *ann = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(pmeta, "labels"), key, v) {
        if (strncmp(key, "nodus.dev/", 10) != 0)
            json_object_set(labels, key, v);
    }
    static const char *const keep[] = {"nodus.dev/created-by", "nodus.dev/launched-by", NULL};
    for (int i = 0; keep[i]; i++)
        if (json_object_get(json_object_get(pmeta, "labels"), keep[i]))
            json_object_set(labels, keep[i],
                            json_object_get(json_object_get(pmeta, "labels"), keep[i]));
    json_object_set_new(labels, "nodus.dev/pipeline", json_string(em_obj_name(c->obj)));
    json_object_set_new(labels, "nodus.dev/pipeline-step", json_string(s->name));
    size_t plen = strlen(EMU_PREFIX), slen = strlen(s->name);
    json_object_foreach(json_object_get(pmeta, "annotations"), key, v) {
        if (strncmp(key, EMU_PREFIX, plen) == 0 && !strchr(key + plen, '.'))
            json_object_set(ann, key, v);
    }
    json_object_foreach(json_object_get(pmeta, "annotations"), key, v) {
        const char *rest = key + plen;
        if (strncmp(key, EMU_PREFIX, plen) == 0 && !strncmp(rest, s->name, slen) &&
            rest[slen] == '.' && rest[slen + 1]) {
            char *k = nd_xasprintf("%s%s", EMU_PREFIX, rest + slen + 1);
            json_object_set(ann, k, v);
            free(k);
        }
    }
    struct nd_buf now = ND_BUF_INIT;
    nd_time_format(c->now / 1000, &now);
    char *uid = nd_uid_new(r->jobs->uid_prefix);
    json_t *ref = json_pack("{ss ss ss ss sb sb}", "apiVersion", c->k->api_version, "kind",
                            c->k->kind, "name", em_obj_name(c->obj), "uid", uid_of(c->obj),
                            "controller", 1, "blockOwnerDeletion", 1);
    json_t *job = json_pack("{ss ss s{ss ss ss ss sI so so s[o] s[s]} sO s{ss}}", "apiVersion",
                            r->jobs->api_version, "kind", r->jobs->kind, "metadata", "name",
                            s->job_name, "namespace", em_obj_ns(c->obj), "uid", uid,
                            "creationTimestamp", now.data, "generation", (json_int_t)1, "labels",
                            labels, "annotations", ann, "ownerReferences", ref, "finalizers",
                            EM_FINALIZER_BILLING, "spec", json_object_get(s->def, "job"),
                            "status", "phase", "Queued");
    free(uid);
    nd_buf_release(&now);
    if (!job)
        return NULL;
    /* the step's spec is the Pipeline's: copy it before defaults touch it */
    json_object_set_new(job, "spec", json_deep_copy(json_object_get(job, "spec")));
    nd_kind_default(r->jobs, job);
    return job;
}

/* Creates the Jobs of the steps whose dependencies have all succeeded. -1 when the
 * Pipeline ended (a Budget refused a step). */
static int launch_ready(struct run *r)
{
    struct em_ctl *c = r->c;
    for (size_t i = 0; i < r->n; i++) {
        struct step *s = &r->v[i];
        if (s->created)
            continue;
        bool ready = true;
        size_t j;
        json_t *d;
        json_array_foreach(json_object_get(s->def, "dependsOn"), j, d) {
            for (size_t k = 0; k < r->n; k++)
                if (json_string_value(d) && !strcmp(r->v[k].name, json_string_value(d)) &&
                    nd_phase_parse(r->v[k].phase) != ND_PHASE_SUCCEEDED)
                    ready = false;
        }
        if (!ready)
            continue;
        json_t *job = step_job(r, s);
        if (!job)
            continue;
        struct nd_status st = ND_STATUS_INIT;
        int rc = em_budget_check_launch(c->srv, r->jobs, job, &st);
        if (rc < 0) {
            char *msg = nd_xasprintf("step %s was not started: %s", s->name, st.message);
            end(r, "Failed", "BudgetExceeded", msg);
            free(msg);
        } else if (em_obj_add(c->srv, r->jobs, job, &st) == 0) {
            em_event_record(c->srv, r->jobs, job, "Normal", "Created",
                            "created by pipeline/%s for step %s", em_obj_name(c->obj), s->name);
            em_event_record(c->srv, c->k, c->obj, "Normal", "StepStarted",
                            "step %s: created job/%s", s->name, s->job_name);
            s->created = true;
            s->job = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "jobs"),
                                  em_obj_ns(c->obj), s->job_name);
            s->phase = "Queued";
        }
        nd_status_release(&st);
        json_decref(job);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The first step that failed, with why; NULL when none did. */
static const struct step *failed_step(const struct run *r, char **why)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct step *s = &r->v[i];
        if (s->foreign) {
            *why = nd_xasprintf("step %s: a Job named %s exists and does not belong to this "
                                "Pipeline",
                                s->name, s->job_name);
            return s;
        }
        enum nd_phase phase = nd_phase_parse(s->phase);
        if (!s->created || (phase != ND_PHASE_FAILED && phase != ND_PHASE_CANCELLED))
            continue;
        const json_t *js = json_object_get(s->job, "status");
        const char *msg = json_string_value(json_object_get(js, "message"));
        if (!s->job)
            *why = nd_xasprintf("step %s: its Job %s was deleted", s->name, s->job_name);
        else
            *why = nd_xasprintf("step %s %s: %s", s->name,
                                phase == ND_PHASE_FAILED ? "failed" : "was cancelled",
                                msg ? msg : s->phase);
        return s;
    }
    return NULL;
}

static void progress_phase(struct run *r)
{
    struct em_ctl *c = r->c;
    bool started = false, any = false;
    for (size_t i = 0; i < r->n; i++) {
        const struct step *s = &r->v[i];
        any |= s->created;
        enum nd_phase phase = nd_phase_parse(s->phase);
        started |= phase == ND_PHASE_RUNNING || phase == ND_PHASE_SUCCEEDED;
    }
    if (started) {
        if (!json_object_get(c->status, "startTime"))
            em_ctl_set_time(c, "startTime", c->now);
        em_ctl_condition(c, "Ready", true, "Running", "steps are running");
        em_ctl_set_phase(c, "Running", "Running", "a step is running");
    } else if (any) {
        em_ctl_condition(c, "Ready", false, "Provisioning", "the first steps are being placed");
        em_ctl_set_phase(c, "Provisioning", "Provisioning", "created the first steps' Jobs");
    } else {
        em_ctl_condition(c, "Ready", false, "Queued", "no step has started");
        if (!*em_ctl_phase(c))
            json_object_set_new(c->status, "phase", json_string("Queued"));
    }
}

static void suspend(struct run *r)
{
    struct em_ctl *c = r->c;
    for (size_t i = 0; i < r->n; i++)
        set_job_state(r, &r->v[i], "Suspended", "suspended");
    em_ctl_sim_set(c, "suspended", 1);
    if (!em_ctl_condition_true(c, "Suspended"))
        em_ctl_condition(c, "Suspended", true, "Suspended", "spec.state is Suspended");
    em_ctl_condition(c, "Ready", false, "Suspended", "suspended");
    em_ctl_set_phase(c, "Queued", "Suspended", "suspended: its running steps are suspended");
}

static void resume(struct run *r)
{
    struct em_ctl *c = r->c;
    for (size_t i = 0; i < r->n; i++) {
        struct step *s = &r->v[i];
        if (s->job && !strcmp(state_of(s->job), "Suspended"))
            set_job_state(r, s, "Running", "resumed");
    }
    em_ctl_sim_del(c, "suspended");
    em_ctl_condition(c, "Suspended", false, "Resumed", "spec.state is Running");
}

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    struct em_ctl c;
    em_ctl_begin(&c, srv, k, obj, now);
    struct run r = {.c = &c, .jobs = nd_kind_by_plural("nodus.dev", "jobs")};
    load(&r);
    int64_t rate;
    const char *phase = em_ctl_phase(&c);
    bool deleting = json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;
    if (deleting || nd_phase_terminal(k->family, phase)) {
        report(&r, &rate);
        goto out;
    }
    const char *state = state_of(c.obj);
    char *why = NULL;
    int64_t max = c.money->max_cost;
    int64_t live = report(&r, &rate);
    if (!strcmp(state, "Cancelled")) {
        end(&r, "Cancelled", "Cancelled", "cancelled: spec.state is Cancelled");
    } else if (failed_step(&r, &why)) {
        end(&r, "Failed", "StepFailed", why);
    } else if (max >= 0 && live >= max) {
        end(&r, "Failed", "MaxCostReached", "stopped: the cost of its steps reached maxCostUSD");
    } else {
        size_t done = 0;
        for (size_t i = 0; i < r.n; i++)
            done += nd_phase_parse(r.v[i].phase) == ND_PHASE_SUCCEEDED;
        if (r.n && done == r.n) {
            end(&r, "Succeeded", "Succeeded", "every step succeeded");
        } else if (!strcmp(state, "Suspended")) {
            suspend(&r);
        } else {
            if (em_ctl_sim_get(&c, "suspended", 0))
                resume(&r);
            if (launch_ready(&r) == 0)
                progress_phase(&r);
        }
    }
    free(why);
    live = report(&r, &rate);
    /* the moment the running steps will have spent maxCostUSD */
    if (!nd_phase_terminal(k->family, em_ctl_phase(&c)) && max >= 0 && rate > 0 && live < max) {
        __int128 ms = ((__int128)(max - live) * 3600000 + rate - 1) / rate;
        em_ctl_due(&c, now + (ms > 0 ? (int64_t)ms : 1));
    }
out:
    release(&r);
    return em_ctl_commit(&c);
}

const struct em_controller em_pipeline_controller = {"pipelines", reconcile};
