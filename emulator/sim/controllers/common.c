/* Shared controller plumbing; see common.h. */
#include "common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "objects.h"
#include "pricebook.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

static json_t *member(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(parent, key, v);
    }
    return v;
}

/* NODUS_EMULATOR_TEST_DEEP_COPY (tests): every working copy a deep copy (the old path). */
static bool deep_copies(void)
{
    static int deep = -1;
    if (deep < 0) {
        const char *v = getenv("NODUS_EMULATOR_TEST_DEEP_COPY");
        deep = v && *v && strcmp(v, "0") != 0;
    }
    return deep;
}

/* A copy of the object v whose members are v's (shared) but those named in keys, copies
 * of their own (with v's members: a member of those is replaced, never changed). */
static json_t *copy_but(const json_t *v, const char *const *keys)
{
    json_t *c = json_copy((json_t *)v); /* the same members, in the same order */
    for (; *keys; keys++) {
        json_t *m = json_object_get(v, *keys);
        if (m)
            json_object_set_new(c, *keys, json_copy(m));
    }
    return c;
}

/* A deep copy of old but its metadata.managedFields, shared: no controller changes them
 * (a request's write shares them with the stored object the same way, api_write.c), and
 * of an object made through the API they are a large part of the tree (a running Job's
 * minute copied them for nothing). With `light` (em_ctl_begin_light) only what its
 * controller may change in place is copied: metadata, status, metadata.finalizers (an
 * array of strings) and status.simulation (of integers) as objects of their own, with
 * old's members; status.conditions and .billing deep, once changed (own); the rest is
 * old's. NODUS_EMULATOR_TEST_DEEP_COPY (tests): all copied. */
static json_t *working_copy(const json_t *old, bool light)
{
    const json_t *meta = json_object_get(old, "metadata");
    if (deep_copies() || !json_is_object(old) ||
        (!light && !json_object_get(meta, "managedFields")))
        return json_deep_copy(old);
    static const char *const meta_own[] = {"finalizers", NULL};
    static const char *const status_own[] = {"simulation", NULL};
    json_t *obj = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)old, key, v) {
        if (light && json_is_object(v) && (v == meta || !strcmp(key, "status"))) {
            json_object_set_new(obj, key, copy_but(v, v == meta ? meta_own : status_own));
            continue;
        }
        if (light) {
            json_object_set(obj, key, v);
            continue;
        }
        if (v != meta) {
            json_object_set_new(obj, key, json_deep_copy(v));
            continue;
        }
        json_t *m = json_object();
        const char *mk;
        json_t *mv;
        json_object_foreach((json_t *)meta, mk, mv) {
            if (strcmp(mk, "managedFields") == 0)
                json_object_set(m, mk, mv);
            else
                json_object_set_new(m, mk, json_deep_copy(mv));
        }
        json_object_set_new(obj, key, m);
    }
    return obj;
}

/* c->status's member key to change in place: copied first when it is still old's (a
 * working copy of em_ctl_begin_light shares it); NULL when there is none. */
static json_t *own(struct em_ctl *c, const char *key)
{
    json_t *v = json_object_get(c->status, key);
    if (v && v == json_object_get(json_object_get(c->old, "status"), key)) {
        v = json_deep_copy(v);
        json_object_set_new(c->status, key, v);
    }
    return v;
}

static void begin(struct em_ctl *c, struct em_server *srv, const struct nd_kind *k, json_t *old,
                  int64_t now, bool light)
{
    memset(c, 0, sizeof *c);
    c->srv = srv;
    c->k = k;
    c->old = old;
    c->obj = working_copy(old, light);
    c->status = member(c->obj, "status");
    c->sim = member(c->status, "simulation");
    c->money = em_ctl_money_of(srv, old);
    c->now = now;
    c->next = EM_NEVER;
}

void em_ctl_begin(struct em_ctl *c, struct em_server *srv, const struct nd_kind *k, json_t *old,
                  int64_t now)
{
    begin(c, srv, k, old, now, false);
}

void em_ctl_begin_light(struct em_ctl *c, struct em_server *srv, const struct nd_kind *k,
                        json_t *old, int64_t now)
{
    begin(c, srv, k, old, now, true);
}

static void end_condition(struct em_ctl *c);

int64_t em_ctl_commit(struct em_ctl *c)
{
    end_condition(c);
    if (!json_object_size(c->sim))
        json_object_del(c->status, "simulation");
    json_t *gen = json_object_get(json_object_get(c->obj, "metadata"), "generation");
    if (gen && json_object_size(c->status))
        json_object_set(c->status, "observedGeneration", gen);
    if (!nd_json_equal(c->old, c->obj)) {
        struct nd_status st = ND_STATUS_INIT;
        bool ok = em_obj_update(c->srv, c->k, c->old, c->obj, &st) == 0;
        nd_status_release(&st);
        if (ok && json_object_get(json_object_get(c->obj, "metadata"), "deletionTimestamp"))
            em_money_forget(c->srv->sim_money, c->obj); /* gone, or soon: read afresh */
        else
            em_money_wrote(c->money, c->obj, ok);
    }
    json_decref(c->obj);
    return c->next;
}

void em_ctl_due(struct em_ctl *c, int64_t t)
{
    if (t < c->next)
        c->next = t;
}

const char *em_ctl_phase(const struct em_ctl *c)
{
    const char *p = json_string_value(json_object_get(c->status, "phase"));
    return p ? p : "";
}

enum nd_phase em_ctl_phase_id(const struct em_ctl *c)
{
    return nd_phase_parse(em_ctl_phase(c));
}

int64_t em_ctl_created(const struct em_ctl *c)
{
    const char *ts = json_string_value(
        json_object_get(json_object_get(c->obj, "metadata"), "creationTimestamp"));
    int64_t s;
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms = ts && nd_time_parse(ts, &s, &st) == 0 ? s * 1000 : c->now;
    nd_status_release(&st);
    return ms;
}

int64_t em_ctl_phase_time(const struct em_ctl *c)
{
    return em_ctl_sim_get(c, "phaseTime", em_ctl_created(c));
}

void em_ctl_set_phase(struct em_ctl *c, const char *phase, const char *reason, const char *fmt,
                      ...)
{
    if (!strcmp(em_ctl_phase(c), phase))
        return;
    json_object_set_new(c->status, "phase", json_string(phase));
    em_ctl_sim_set(c, "phaseTime", c->now);
    struct nd_buf msg = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    em_event_record(c->srv, c->k, c->obj,
                    nd_phase_parse(phase) == ND_PHASE_FAILED ? "Warning" : "Normal", reason, "%s",
                    msg.data);
    nd_buf_release(&msg);
}

/* em_ctl_condition, its lastTransitionTime (when the status changes) at ms. */
static void condition_at(struct em_ctl *c, const char *type, bool status, const char *reason,
                         const char *message, int64_t ms)
{
    json_t *conds = own(c, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(c->status, "conditions", conds);
    }
    json_t *cond = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(conds, i, x) {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (t && !strcmp(t, type))
            cond = x;
    }
    const char *want = status ? "True" : "False";
    if (!cond) {
        cond = json_object();
        json_object_set_new(cond, "type", json_string(type));
        json_array_append_new(conds, cond);
    }
    const char *was = json_string_value(json_object_get(cond, "status"));
    if (!was || strcmp(was, want) != 0) {
        struct nd_buf t = ND_BUF_INIT;
        nd_time_format(ms / 1000, &t);
        json_object_set_new(cond, "lastTransitionTime", json_string(t.data));
        nd_buf_release(&t);
    }
    json_object_set_new(cond, "status", json_string(want));
    json_object_set_new(cond, "reason", json_string(reason));
    json_object_set_new(cond, "message", json_string(message ? message : ""));
    json_t *gen = json_object_get(json_object_get(c->obj, "metadata"), "generation");
    if (gen)
        json_object_set(cond, "observedGeneration", gen);
}

void em_ctl_condition(struct em_ctl *c, const char *type, bool status, const char *reason,
                      const char *message)
{
    condition_at(c, type, status, reason, message, c->now);
}

static const json_t *find_condition(const json_t *obj, const char *type)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "conditions"), i, x) {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (t && !strcmp(t, type))
            return x;
    }
    return NULL;
}

bool em_ctl_condition_true(const struct em_ctl *c, const char *type)
{
    const char *s = json_string_value(json_object_get(find_condition(c->obj, type), "status"));
    return s && !strcmp(s, "True");
}

bool em_ctl_lacks_end_condition(const struct nd_kind *k, const json_t *obj)
{
    const char *phase = json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    return k->family == ND_FAMILY_RUN && phase && nd_phase_terminal(k->family, phase) &&
           !find_condition(obj, "Complete") && !find_condition(obj, "Failed");
}

/* A run-to-completion object that ended carries the condition a Kubernetes Job carries:
 * Complete=True when it Succeeded, Failed=True when it Failed or was Cancelled, with the
 * reason and message its end wrote (the Ready condition's, which every controller sets
 * False at the end) and completionTime as its lastTransitionTime. */
static void end_condition(struct em_ctl *c)
{
    if (!em_ctl_lacks_end_condition(c->k, c->obj))
        return;
    const char *phase = em_ctl_phase(c);
    const json_t *ready = find_condition(c->obj, "Ready");
    const char *reason = json_string_value(json_object_get(c->status, "reason"));
    if (!reason)
        reason = json_string_value(json_object_get(ready, "reason"));
    const char *msg = json_string_value(json_object_get(c->status, "message"));
    if (!msg)
        msg = json_string_value(json_object_get(ready, "message"));
    int64_t at = em_ctl_time(c, "completionTime");
    bool ok = em_ctl_phase_id(c) == ND_PHASE_SUCCEEDED;
    condition_at(c, ok ? "Complete" : "Failed", true, reason ? reason : phase, msg ? msg : "",
                 at >= 0 ? at : c->now);
}

int64_t em_ctl_sim_get(const struct em_ctl *c, const char *key, int64_t def)
{
    json_t *v = json_object_get(c->sim, key);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

void em_ctl_sim_set(struct em_ctl *c, const char *key, int64_t v)
{
    json_object_set_new(c->sim, key, json_integer(v));
}

void em_ctl_sim_del(struct em_ctl *c, const char *key)
{
    json_object_del(c->sim, key);
}

void em_ctl_set_time(struct em_ctl *c, const char *field, int64_t ms)
{
    struct nd_buf t = ND_BUF_INIT;
    nd_time_format(ms / 1000, &t);
    json_object_set_new(c->status, field, json_string(t.data));
    nd_buf_release(&t);
}

int64_t em_ctl_time(const struct em_ctl *c, const char *field)
{
    return em_ctl_time_in(c->status, field);
}

int64_t em_ctl_time_in(const json_t *status, const char *field)
{
    const char *ts = json_string_value(json_object_get(status, field));
    int64_t s;
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms = ts && nd_time_parse(ts, &s, &st) == 0 ? s * 1000 : -1;
    nd_status_release(&st);
    return ms;
}

int64_t em_ctl_money(const json_t *obj, const char *field, int64_t def)
{
    return nd_money_or(json_string_value(json_object_get(obj, field)), def);
}

void em_ctl_set_money(json_t *obj, const char *field, int64_t micros)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_money_format(micros, &b);
    json_object_set_new(obj, field, json_string(b.data));
    nd_buf_release(&b);
}

struct em_money *em_ctl_money_of(struct em_server *srv, const json_t *obj)
{
    if (!srv->sim_money)
        srv->sim_money = em_money_index_new();
    return em_money_of(srv->sim_money, obj);
}

void em_ctl_set_cost(struct em_ctl *c, int64_t micros)
{
    c->money->cost = micros;
    em_ctl_set_money(c->status, "costUSD", micros);
}

void em_ctl_set_rate(struct em_ctl *c, int64_t micros)
{
    c->money->rate = micros;
    em_ctl_set_money(c->status, "rateUSDPerHour", micros);
}

void em_ctl_clear_rate(struct em_ctl *c)
{
    c->money->rate = -1;
    json_object_del(c->status, "rateUSDPerHour");
}

void em_ctl_accrue(struct em_ctl *c, int64_t rate)
{
    int64_t since = em_ctl_sim_get(c, "accruedAt", -1);
    if (since < 0 || c->now <= since)
        return;
    int64_t add = 0, cost = c->money->cost, sum;
    nd_money_mul_rate(rate, c->now - since, &add);
    if (nd_money_add(cost, add, &sum) < 0)
        sum = cost;
    em_ctl_set_cost(c, sum);
    em_ctl_sim_set(c, "runMs", em_ctl_sim_get(c, "runMs", 0) + (c->now - since));
    em_ctl_sim_set(c, "accruedAt", c->now);
}

void em_ctl_accrue_start(struct em_ctl *c)
{
    if (em_ctl_sim_get(c, "accruedAt", -1) < 0)
        em_ctl_sim_set(c, "accruedAt", c->now);
    if (!json_object_get(c->status, "costUSD"))
        em_ctl_set_cost(c, 0);
}

void em_ctl_accrue_stop(struct em_ctl *c, int64_t rate)
{
    em_ctl_accrue(c, rate);
    em_ctl_sim_del(c, "accruedAt");
}

int64_t em_ctl_annotation_ms(const struct em_ctl *c, const char *name, int64_t def)
{
    char key[96];
    snprintf(key, sizeof key, "emulator.nodus.dev/%s", name);
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(c->obj, "metadata"), "annotations"), key));
    int64_t ms;
    struct nd_status st = ND_STATUS_INIT;
    if (!v || nd_duration_parse(v, &ms, &st) < 0)
        ms = def;
    nd_status_release(&st);
    return ms;
}

long em_ctl_annotation_int(const struct em_ctl *c, const char *name, long def)
{
    char key[96];
    snprintf(key, sizeof key, "emulator.nodus.dev/%s", name);
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(c->obj, "metadata"), "annotations"), key));
    if (!v)
        return def;
    char *end;
    long n = strtol(v, &end, 10);
    return *v && !*end ? n : def;
}

void em_ctl_settle(struct em_ctl *c, int64_t ended)
{
    own(c, "billing");
    json_t *billing = member(c->status, "billing");
    bool ran = json_object_get(c->status, "startTime") != NULL;
    int64_t at = ran ? ended + em_delay_ms(c->srv, "finalCharge") : c->now;
    if (c->now < at) {
        em_ctl_due(c, at);
        return;
    }
    if (!json_is_true(json_object_get(billing, "settled"))) {
        json_object_set_new(billing, "settled", json_true());
        struct nd_buf t = ND_BUF_INIT;
        nd_time_format(at / 1000, &t);
        json_object_set_new(billing, "finalChargeTime", json_string(t.data));
        nd_buf_release(&t);
        if (ran)
            em_event_record(c->srv, c->k, c->obj, "Normal", "Charged",
                            "final charge posted: %s",
                            json_string_value(json_object_get(c->status, "costUSD"))
                                ? json_string_value(json_object_get(c->status, "costUSD"))
                                : "0.00");
    }
    if (json_object_get(json_object_get(c->obj, "metadata"), "deletionTimestamp"))
        em_obj_drop_finalizer(c->obj, EM_FINALIZER_BILLING);
}
