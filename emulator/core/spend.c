/* Spend per project and kind over the emulator's clock; see spend.h. */
#include "spend.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "objects.h"
#include "server.h"
#include "util/buf.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct series {
    char *project;
    const char *plural; /* the registry's */
    int64_t cost;       /* micro-dollars */
};

struct sample {
    uint64_t seq;
    int64_t t_ms;
    size_t n;   /* values of series 0 .. n-1 */
    int64_t *v;
};

struct em_spend {
    bool ready;        /* the store was counted (after a start or a reset) */
    bool dirty;        /* the totals moved since the last sample */
    int64_t seen_rev;  /* the history's changes up to this are counted */
    struct series series[EM_SPEND_SERIES];
    size_t nseries;
    struct sample ring[EM_SPEND_SAMPLES];
    uint64_t first, next; /* kept samples by position: first .. next-1 */
    uint64_t seq;         /* the last seq given (seqs start at 1, never reused) */
    uint64_t dropped;     /* the newest seq the ring dropped as the oldest (0: none) */
};

static struct em_spend *spend_of(struct em_server *srv)
{
    if (!srv->spend) {
        srv->spend = nd_xcalloc(1, sizeof *srv->spend);
    }
    return srv->spend;
}

static int64_t cost_of(const json_t *obj)
{
    const char *c = json_string_value(json_object_get(json_object_get(obj, "status"), "costUSD"));
    return nd_money_or(c, 0);
}

/* The series of (project, plural), made when new; past the cap, EM_SPEND_OTHER's (room
 * for one per kind is kept). */
static struct series *series_of(struct em_spend *sp, const char *project, const char *plural)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sp->nseries; i++)
            if (sp->series[i].plural == plural && strcmp(sp->series[i].project, project) == 0)
                return &sp->series[i];
        if (pass == 0 && sp->nseries >= EM_SPEND_SERIES - nd_kind_count())
            project = EM_SPEND_OTHER;
        else if (sp->nseries < EM_SPEND_SERIES)
            break;
    }
    struct series *s = &sp->series[sp->nseries++];
    s->project = nd_xstrdup(project);
    s->plural = plural;
    s->cost = 0;
    return s;
}

static void add(struct em_spend *sp, const struct nd_kind *k, const json_t *obj, int64_t delta)
{
    if (delta == 0)
        return;
    struct series *s = series_of(sp, em_obj_ns(obj), k->plural);
    s->cost += delta;
    sp->dirty = true;
}

static void drop_samples(struct em_spend *sp)
{
    for (uint64_t s = sp->first; s < sp->next; s++) {
        free(sp->ring[s % EM_SPEND_SAMPLES].v);
        sp->ring[s % EM_SPEND_SAMPLES].v = NULL;
    }
    sp->first = sp->next;
}

static void drop_series(struct em_spend *sp)
{
    for (size_t i = 0; i < sp->nseries; i++)
        free(sp->series[i].project);
    sp->nseries = 0;
}

/* Counts what the store holds now (a start, a reset). */
static void count_store(struct em_server *srv, struct em_spend *sp)
{
    drop_series(sp);
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!nd_kind_is(k, ND_KIND_BILLED))
            continue;
        struct em_store_cursor c;
        em_store_seek(&srv->store, k, NULL, NULL, NULL, &c);
        const struct em_entry *e;
        while ((e = em_store_next(&c)))
            add(sp, k, em_entry_rec(e), cost_of(em_entry_rec(e))); /* the record holds both */
    }
    sp->seen_rev = srv->store.revision;
    sp->ready = true;
    sp->dirty = true; /* the first sample: where the chart starts */
}

/* A new sample of the totals at now; one at the same time (the clock has not moved) is
 * replaced by it (a new seq). */
static void take_sample(struct em_spend *sp, int64_t now)
{
    struct sample *last = sp->next > sp->first ? &sp->ring[(sp->next - 1) % EM_SPEND_SAMPLES] : NULL;
    if (last && last->t_ms >= now) {
        free(last->v);
        sp->next--;
    } else if (sp->next - sp->first == EM_SPEND_SAMPLES) {
        struct sample *old = &sp->ring[sp->first % EM_SPEND_SAMPLES];
        sp->dropped = old->seq;
        free(old->v);
        old->v = NULL;
        sp->first++;
    }
    struct sample *s = &sp->ring[sp->next++ % EM_SPEND_SAMPLES];
    s->seq = ++sp->seq;
    s->t_ms = last && last->t_ms > now ? last->t_ms : now;
    s->n = sp->nseries;
    s->v = nd_xcalloc(s->n ? s->n : 1, sizeof *s->v);
    for (size_t i = 0; i < s->n; i++)
        s->v[i] = sp->series[i].cost;
    sp->dirty = false;
}

void em_spend_publish(struct em_server *srv)
{
    struct em_spend *sp = spend_of(srv);
    if (!sp->ready)
        count_store(srv, sp);
    struct em_history *h = &srv->history;
    int64_t upto = em_store_durable_rev(&srv->store);
    for (size_t i = em_history_after(h, sp->seen_rev); i < h->len && h->ev[i].rev <= upto; i++) {
        struct em_change *e = &h->ev[i];
        sp->seen_rev = e->rev;
        const struct nd_kind *k = nd_kind_by_plural(NULL, e->plural);
        if (!k || !nd_kind_is(k, ND_KIND_BILLED) || strcmp(e->type, "DELETED") == 0)
            continue; /* a deleted object's cost stays counted */
        /* trees the change does not keep: a clock jump's thousands of old changes (the
         * records of one written without a tree hold its cost: entry.h) */
        json_t *obj = e->rec ? json_incref(e->rec) : em_change_obj_new(e);
        json_t *prev = e->rec ? json_incref(e->prev_rec) : em_change_prev_new(e);
        add(sp, k, obj, cost_of(obj) - (prev ? cost_of(prev) : 0));
        json_decref(obj);
        json_decref(prev);
    }
    if (upto > sp->seen_rev)
        sp->seen_rev = upto;
    if (sp->dirty)
        take_sample(sp, em_clock_now_ms(&srv->clock));
}

void em_spend_reset(struct em_server *srv)
{
    struct em_spend *sp = spend_of(srv);
    drop_samples(sp);
    drop_series(sp);
    /* every stream open now holds samples of the old state, sent or not: each ends with
     * an Expired and reads again (a seq of its own, so one that had sent everything ends
     * too; a stream started after the reset begins at it) */
    sp->dropped = ++sp->seq;
    sp->ready = false;
}

void em_spend_free(struct em_server *srv)
{
    if (!srv->spend)
        return;
    drop_samples(srv->spend);
    drop_series(srv->spend);
    free(srv->spend);
    srv->spend = NULL;
}

static json_t *money_json(int64_t micros)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_money_format(micros, &b);
    json_t *j = json_string(b.data);
    nd_buf_release(&b);
    return j;
}

static json_t *time_json(int64_t ms)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_time_format(ms / 1000, &b);
    json_t *j = json_string(b.data);
    nd_buf_release(&b);
    return j;
}

/* NEW JSON of the kept sample at ring position pos. */
static json_t *sample_json(struct em_spend *sp, uint64_t pos)
{
    const struct sample *s = &sp->ring[pos % EM_SPEND_SAMPLES];
    json_t *by = json_object();
    int64_t total = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct series *se = &sp->series[i];
        json_t *p = json_object_get(by, se->project);
        if (!p)
            json_object_set_new(by, se->project, p = json_object());
        json_object_set_new(p, se->plural, money_json(s->v[i]));
        total += s->v[i];
    }
    return json_pack("{sIsosIsoso}", "seq", (json_int_t)s->seq, "time", time_json(s->t_ms),
                     "timeMs", (json_int_t)s->t_ms, "totalUSD", money_json(total), "costUSD", by);
}

json_t *em_spend_after(struct em_server *srv, uint64_t after, bool *expired)
{
    struct em_spend *sp = spend_of(srv);
    *expired = after < sp->dropped;
    json_t *out = json_array();
    for (uint64_t pos = sp->first; !*expired && pos < sp->next; pos++)
        if (sp->ring[pos % EM_SPEND_SAMPLES].seq > after)
            json_array_append_new(out, sample_json(sp, pos));
    return out;
}

uint64_t em_spend_start(const struct em_server *srv)
{
    const struct em_spend *sp = srv->spend;
    if (!sp)
        return 0;
    return sp->next > sp->first ? sp->ring[(sp->next - 1) % EM_SPEND_SAMPLES].seq - 1 : sp->seq;
}

static int by_series(const void *a, const void *b)
{
    const struct series *x = *(const struct series *const *)a;
    const struct series *y = *(const struct series *const *)b;
    int c = strcmp(x->project, y->project);
    return c ? c : strcmp(x->plural, y->plural);
}

json_t *em_spend_json(struct em_server *srv)
{
    em_spend_publish(srv);
    struct em_spend *sp = srv->spend;
    const struct series *order[EM_SPEND_SERIES];
    for (size_t i = 0; i < sp->nseries; i++)
        order[i] = &sp->series[i];
    qsort(order, sp->nseries, sizeof *order, by_series);
    json_t *totals = json_array(), *samples = json_array();
    int64_t total = 0;
    for (size_t i = 0; i < sp->nseries; i++) {
        json_array_append_new(totals, json_pack("{ssssso}", "project", order[i]->project,
                                                "kind", order[i]->plural, "costUSD",
                                                money_json(order[i]->cost)));
        total += order[i]->cost;
    }
    for (uint64_t pos = sp->first; pos < sp->next; pos++)
        json_array_append_new(samples, sample_json(sp, pos));
    char now[32];
    return json_pack("{sssssosssososI}", "kind", "Spend", "time", em_now_rfc3339(srv, now),
                     "totalUSD", money_json(total), "currency", "USD", "totals", totals,
                     "samples", samples, "maxSamples", (json_int_t)EM_SPEND_SAMPLES);
}
