/* A running Job's minute from its stored bytes, without a tree; see job.h.
 *
 * Every emulated minute a running Job's reconcile (job.c) accrues its cost and writes
 * four values: metadata.resourceVersion, status.costUSD, status.simulation.accruedAt and
 * .runMs; nothing else moves while it runs on (no phase, condition, Event or spec
 * change). Building its tree from the bytes, copying it and dumping it again for that
 * was most of the minute once the kept trees' bound (store/entry.h) was passed. Here the
 * new compact JSON is the stored bytes with those four values replaced in place (their
 * spans found by a scan of the bytes), the new record the stored one with its
 * resourceVersion and costUSD replaced, and the inputs of the decision read from the
 * bytes (the annotations, spec.maxDuration, the simulation's times) and from the Job's
 * money (money.h): its rate, its limit, its last price check.
 *
 * It is the tree path's result only when the stored bytes are what the simulation itself
 * wrote last (the money's resourceVersion is the stored one, so they are normalized and
 * its money current) and the reconcile would take the plain path; anything else (a
 * phase or state that is not Running, a condition Suspended or Unpriced, a deletion, a
 * Pool, Volumes, a price book taken since the last price check, the end, the first
 * minute that adds runMs, a value the scan does not know) goes to reconcile. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kinds/phase.h"
#include "objects.h"
#include "pricebook.h"
#include "runtime.h"
#include "splice.h"
#include "util/money.h"
#include "util/xmalloc.h"

/* The most members of an object of the Job the scan reads (more: reconcile). */
#define MEMBERS 64

/* What the minute reads of the bytes, and the spans of the values it replaces. */
struct scan {
    const struct em_json_member *rv, *cost, *accrued, *ran; /* in the arrays below */
    int64_t generation, observed;                           /* -1: absent */
    int64_t accrued_at, run_ms, priced_rate;
    char duration[32], fail_at[32], max_duration[32]; /* "" when absent */
    struct em_json_member top[MEMBERS], meta[MEMBERS], status[MEMBERS], sim[MEMBERS];
};

static const struct em_json_member *get(const struct em_json_member *m, int n, const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; i < n; i++) {
        if (m[i].klen == len && memcmp(m[i].key, key, len) == 0)
            return &m[i];
    }
    return NULL;
}

/* The members of v's value (an object) into m: their count, or -1. */
static int members(const struct em_json_member *v, struct em_json_member *m)
{
    return v ? em_json_members(v->val, v->val + v->vlen, m, MEMBERS) : -1;
}

/* An integer as jansson writes one (an optional minus, digits without a leading zero). */
static bool int_of(const struct em_json_member *v, int64_t *out)
{
    if (!v)
        return false;
    const char *p = v->val, *end = v->val + v->vlen;
    bool neg = p < end && *p == '-';
    p += neg;
    if (p == end || end - p > 18 || (*p == '0' && end - p > 1))
        return false;
    int64_t n = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return false;
        n = n * 10 + (*p - '0');
    }
    *out = neg ? -n : n;
    return true;
}

/* A string without escapes into buf ("" when v is NULL): false when it is not one or is
 * longer than buf holds. */
static bool str_of(const struct em_json_member *v, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!v)
        return true;
    if (v->vlen < 2 || v->val[0] != '"' || v->val[v->vlen - 1] != '"' || v->vlen - 2 >= cap ||
        memchr(v->val, '\\', v->vlen))
        return false;
    memcpy(buf, v->val + 1, v->vlen - 2);
    buf[v->vlen - 2] = '\0';
    return true;
}

static bool has(const struct em_json_member *v, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; v && i + n <= v->vlen; i++) {
        if (memcmp(v->val + i, text, n) == 0)
            return true;
    }
    return false;
}

/* metadata: the resourceVersion, the generation, the annotations the run reads. */
static bool scan_meta(struct scan *sc, int nmeta)
{
    struct em_json_member ann[MEMBERS];
    const struct em_json_member *a = get(sc->meta, nmeta, "annotations");
    int nann = a ? members(a, ann) : 0;
    sc->rv = get(sc->meta, nmeta, "resourceVersion");
    const struct em_json_member *gen = get(sc->meta, nmeta, "generation");
    sc->generation = -1;
    return nann >= 0 && sc->rv && sc->rv->vlen >= 2 && sc->rv->val[0] == '"' &&
           (!gen || int_of(gen, &sc->generation)) &&
           str_of(get(ann, nann, "emulator.nodus.dev/duration"), sc->duration,
                  sizeof sc->duration) &&
           str_of(get(ann, nann, "emulator.nodus.dev/fail-at"), sc->fail_at, sizeof sc->fail_at);
}

/* status: the cost, the conditions (none that the run changes), observedGeneration, the
 * simulation's times. */
static bool scan_status(struct scan *sc, int nstatus)
{
    const struct em_json_member *conds = get(sc->status, nstatus, "conditions");
    const struct em_json_member *obs = get(sc->status, nstatus, "observedGeneration");
    sc->cost = get(sc->status, nstatus, "costUSD");
    sc->observed = -1;
    if (!sc->cost || sc->cost->val[0] != '"' || has(conds, "\"Suspended\"") ||
        has(conds, "\"Unpriced\"") || (obs && !int_of(obs, &sc->observed)))
        return false;
    int nsim = members(get(sc->status, nstatus, "simulation"), sc->sim);
    sc->accrued = get(sc->sim, nsim, "accruedAt");
    sc->ran = get(sc->sim, nsim, "runMs");
    return nsim >= 0 && int_of(sc->accrued, &sc->accrued_at) && int_of(sc->ran, &sc->run_ms) &&
           int_of(get(sc->sim, nsim, "pricedRate"), &sc->priced_rate);
}

/* Reads a Job's compact JSON: false when it is not what the minute knows how to write. */
static bool scan(const struct em_bytes *b, struct scan *sc)
{
    int ntop = em_json_members(b->data, b->data + b->len, sc->top, MEMBERS);
    if (ntop < 0)
        return false;
    struct em_json_member spec[MEMBERS];
    int nmeta = members(get(sc->top, ntop, "metadata"), sc->meta);
    int nspec = members(get(sc->top, ntop, "spec"), spec);
    int nstatus = members(get(sc->top, ntop, "status"), sc->status);
    /* a Pool's or a Volume's: their objects are looked at when it is written (sim.c) */
    return nmeta >= 0 && nspec >= 0 && nstatus >= 0 && !get(spec, nspec, "pool") &&
           !get(spec, nspec, "volumes") &&
           str_of(get(spec, nspec, "maxDuration"), sc->max_duration, sizeof sc->max_duration) &&
           scan_meta(sc, nmeta) && scan_status(sc, nstatus);
}

static const char *rec_str(const json_t *rec, const char *part, const char *key)
{
    return json_string_value(json_object_get(json_object_get(rec, part), key));
}

/* The Job's money when its record and money say the minute may be made from the bytes:
 * running, not deleting, spec.state Running, no Pool; its money current at the stored
 * revision, which the simulation wrote; priced under this price book. */
static struct em_money *money_of(struct em_server *srv, const json_t *rec)
{
    const char *state = rec_str(rec, "spec", "state");
    if (nd_phase_of(rec) != ND_PHASE_RUNNING || (state && strcmp(state, "Running") != 0) ||
        json_object_get(json_object_get(rec, "metadata"), "deletionTimestamp") ||
        json_object_get(json_object_get(json_object_get(rec, "spec"), "placement"), "pool"))
        return NULL;
    struct em_money *m = em_money_find(srv->sim_money, rec_str(rec, "metadata", "uid"));
    const char *rv = rec_str(rec, "metadata", "resourceVersion");
    if (!m || !m->written || !m->rv || !rv || strcmp(m->rv, rv) != 0 || m->rate < 0 ||
        !m->priced_ok || m->priced_book != em_pricebook_serial(srv))
        return NULL;
    return m;
}

/* A value of the new bytes: the old span [at, at + len) replaced by text. */
struct repl {
    const char *at;
    size_t len;
    char text[48];
};

/* NEW bytes: b with the spans of r (n, not overlapping) replaced. */
static struct em_bytes *replaced(const struct em_bytes *b, struct repl *r, int n)
{
    for (int i = 1; i < n; i++) { /* in the order of the text */
        for (int j = i; j > 0 && r[j].at < r[j - 1].at; j--) {
            struct repl t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    }
    size_t len = b->len;
    for (int i = 0; i < n; i++)
        len = len - r[i].len + strlen(r[i].text);
    struct em_bytes *nb = em_bytes_alloc(len);
    char *out = nb->data;
    const char *p = b->data;
    for (int i = 0; i < n; i++) {
        size_t keep = (size_t)(r[i].at - p), tlen = strlen(r[i].text);
        memcpy(out, p, keep);
        memcpy(out + keep, r[i].text, tlen);
        out += keep + tlen;
        p = r[i].at + r[i].len;
    }
    memcpy(out, p, (size_t)(b->data + b->len - p));
    return nb;
}

/* NEW record: rec's with resourceVersion rv and status.costUSD cost (a record is never
 * changed in place: its other values are shared). */
static json_t *next_rec(const json_t *rec, const char *rv, const char *cost)
{
    json_t *n = json_copy((json_t *)rec);
    json_t *meta = json_copy(json_object_get(rec, "metadata"));
    json_object_set_new(meta, "resourceVersion", json_string(rv));
    json_object_set_new(n, "metadata", meta);
    json_t *status = json_copy(json_object_get(rec, "status"));
    json_object_set_new(status, "costUSD", json_string(cost));
    json_object_set_new(n, "status", status);
    return n;
}

/* NODUS_EMULATOR_TEST_TREE_MINUTE (tests): never (the old path); with
 * NODUS_EMULATOR_TEST_CHECK_DUMP, reconcile makes each minute too and a difference
 * aborts. 0 off, 1 on, 2 checked. */
static int mode(void)
{
    static int m = -1;
    if (m < 0) {
        const char *off = getenv("NODUS_EMULATOR_TEST_TREE_MINUTE");
        const char *check = getenv("NODUS_EMULATOR_TEST_CHECK_DUMP");
        m = off && *off && strcmp(off, "0") != 0         ? 0
            : check && *check && strcmp(check, "0") != 0 ? 2
                                                         : 1;
    }
    return m;
}

/* The check: reconcile runs the minute on the tree (and writes it); what it stored and
 * its due time must be json, rec and due. */
static int64_t check(struct em_server *srv, const struct nd_kind *k, const struct em_entry *e,
                     int64_t now, struct em_bytes *json, json_t *rec, int64_t due)
{
    char *ns = nd_xstrdup(em_obj_ns(em_entry_rec(e))), *name = nd_xstrdup(em_obj_name(rec));
    json_t *obj = json_incref(em_entry_obj(e));
    int64_t tree_due = em_job_reconcile(srv, k, obj, now);
    json_decref(obj);
    const struct em_entry *ne = em_store_entry(&srv->store, k, ns, name);
    const struct em_bytes *nb = ne ? em_store_entry_json(ne) : NULL;
    if (!nb || nb->len != json->len || memcmp(nb->data, json->data, json->len) != 0 ||
        !json_equal(rec, (json_t *)em_entry_rec(ne)) || tree_due != due) {
        char *r = json_dumps(rec, JSON_COMPACT);
        fprintf(stderr,
                "nodus-emulator: the minute made from the bytes differs from reconcile's:\n"
                "%s\n%s\n%s\ndue %lld against %lld\n",
                json->data, nb ? nb->data : "(none)", r ? r : "", (long long)due,
                (long long)tree_due);
        abort();
    }
    free(ns);
    free(name);
    em_bytes_unref(json);
    json_decref(rec);
    return tree_due;
}

/* The minute's clock from the scan and the money, the cost accrued to now. */
static struct em_job_clock clock_of(struct em_server *srv, const struct scan *sc,
                                    const struct em_money *m, int64_t now)
{
    int64_t add = 0, sum;
    nd_money_mul_rate(m->rate, now - sc->accrued_at, &add);
    if (nd_money_add(m->cost, add, &sum) < 0)
        sum = m->cost;
    return (struct em_job_clock){
        .now = now,
        .cost = sum,
        .max_cost = m->max_cost,
        .rate = m->rate,
        .ran = sc->run_ms + (now - sc->accrued_at),
        .duration = em_job_ms(sc->duration[0] ? sc->duration : NULL, em_delay_ms(srv, "jobRun")),
        .fail_at = em_job_ms(sc->fail_at[0] ? sc->fail_at : NULL, -1),
        .deadline = em_job_ms(sc->max_duration[0] ? sc->max_duration : NULL, -1),
    };
}

bool em_job_minute(struct em_server *srv, const struct nd_kind *k, const struct em_entry *e,
                   int64_t now, int64_t *due)
{
    int md = mode();
    if (!md || em_runtime_local(srv) || !srv->sim_money)
        return false;
    const json_t *rec = em_entry_rec(e);
    struct em_money *m = money_of(srv, rec);
    if (!m)
        return false;
    struct scan scanned, *sc = &scanned; /* (8 KB of spans, on the stack) */
    const struct em_bytes *b = em_store_entry_json(e);
    bool ok = scan(b, sc) && sc->generation == m->generation && sc->priced_rate == m->priced_rate &&
              (sc->generation < 0 || sc->observed == sc->generation) && now > sc->accrued_at &&
              sc->accrued_at >= 0;
    struct em_job_clock jc = ok ? clock_of(srv, sc, m, now) : (struct em_job_clock){0};
    if (!ok || em_job_end_of(&jc) != EM_JOB_RUNS)
        return false; /* the end (and its Events) is reconcile's */
    int64_t rev = md == 2 ? srv->store.revision + 1 : em_store_next_revision(&srv->store);
    struct nd_buf cost = ND_BUF_INIT;
    nd_money_format(jc.cost, &cost);
    struct repl r[4] = {{sc->rv->val, sc->rv->vlen, ""},
                        {sc->cost->val, sc->cost->vlen, ""},
                        {sc->accrued->val, sc->accrued->vlen, ""},
                        {sc->ran->val, sc->ran->vlen, ""}};
    snprintf(r[0].text, sizeof r[0].text, "\"%lld\"", (long long)rev);
    snprintf(r[1].text, sizeof r[1].text, "\"%s\"", cost.data);
    snprintf(r[2].text, sizeof r[2].text, "%lld", (long long)now);
    snprintf(r[3].text, sizeof r[3].text, "%lld", (long long)jc.ran);
    struct em_bytes *json = replaced(b, r, 4);
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)rev);
    json_t *nrec = next_rec(rec, rv, cost.data);
    nd_buf_release(&cost);
    *due = em_job_next(&jc);
    if (md == 2) {
        *due = check(srv, k, e, now, json, nrec, *due);
        return true;
    }
    struct nd_status st = ND_STATUS_INIT;
    bool wrote = em_obj_update_bytes(srv, k, e, rev, json, nrec, &st) == 0;
    nd_status_release(&st);
    m->cost = jc.cost; /* (em_ctl_set_cost, em_money_wrote) */
    free(m->rv);
    m->rv = wrote ? nd_xstrdup(rv) : NULL;
    m->written = wrote;
    return true;
}
