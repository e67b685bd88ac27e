/* The simulation's scheduler; see sim.h. */
#include "sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "controllers/common.h"
#include "controllers/money.h"
#include "objects.h"
#include "pricebook.h"
#include "runtime.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define SCHEDULE_FILE "history/schedule"
#define SCHEDULE_MAGIC "nodus-schedule 1"

/* The most objects a slice of a round runs (em_sim_round) */
#define EM_SIM_SLICE 256
/* an object due again within this (emulated ms) keeps its tree (em_entry_keep): a
 * running Job's next cost accrual is a minute away */
#define EM_SIM_KEEP_MS (60 * 1000)

/* A round: the objects due at one time, run (again until none is, bounded) in slices of
 * at most EM_SIM_SLICE objects. Between slices the hot trees are trimmed (entry.h), so a
 * round over tens of thousands of due objects holds the trees of one slice, not of all;
 * and the scheduler's thread commits what the slice wrote and lets go of the lock, so
 * requests and the journal go on while it runs. The objects run, their order and the time
 * they run at are those of one unbroken round: what a round collected stays collected, at
 * its time, until it is over. */
struct em_sim_round {
    bool open;                  /* a round is under way */
    int64_t now;                /* its time */
    int repeats;                /* the collections it has made (at most 64) */
    struct em_due_item **items; /* the current collection */
    size_t n, cap, next;        /* its count, capacity and the next to run */
};

static struct em_sim_round *round_of(struct em_server *srv)
{
    if (!srv->sim_round)
        srv->sim_round = nd_xcalloc(1, sizeof *srv->sim_round);
    return srv->sim_round;
}

void em_sim_touch(struct em_server *srv, const struct nd_kind *k, const json_t *obj)
{
    const char *name = em_obj_name(obj);
    if (!srv->sim_due || srv->opt.no_simulation || !name || !em_controller_find(k))
        return;
    em_due_set(srv->sim_due, k, em_obj_ns(obj), name, 0);
    pthread_cond_signal(&srv->sim_wake);
}

static void touch_name(struct em_server *srv, const struct nd_kind *k, const char *ns,
                       const char *name)
{
    if (!name || !k || !em_controller_find(k))
        return;
    em_due_set(srv->sim_due, k, ns, name, 0);
}

void em_sim_touch_related(struct em_server *srv, const struct nd_kind *k, const json_t *obj)
{
    if (!srv->sim_due || srv->opt.no_simulation)
        return;
    const char *ns = em_obj_ns(obj);
    const json_t *meta = json_object_get(obj, "metadata");
    size_t i;
    json_t *ref;
    json_array_foreach(json_object_get(meta, "ownerReferences"), i, ref) {
        const struct nd_kind *ok =
            nd_kind_by_kind(NULL, json_string_value(json_object_get(ref, "kind")));
        touch_name(srv, ok, ns, json_string_value(json_object_get(ref, "name")));
    }
    const json_t *spec = json_object_get(obj, "spec");
    const struct nd_kind *pools = nd_kind_by_plural(NULL, "pools");
    touch_name(srv, pools, ns, json_string_value(json_object_get(spec, "pool")));
    touch_name(srv, pools, ns,
               json_string_value(json_object_get(json_object_get(spec, "placement"), "pool")));
    const struct nd_kind *volumes = nd_kind_by_plural(NULL, "volumes");
    json_t *vol;
    json_array_foreach(json_object_get(spec, "volumes"), i, vol)
        touch_name(srv, volumes, ns, json_string_value(json_object_get(vol, "name")));
    if (nd_kind_costs(k)) { /* what the project's Budgets count */
        const struct nd_kind *budgets = nd_kind_by_plural(NULL, "budgets");
        struct em_store_cursor c;
        em_store_seek(&srv->store, budgets, ns, NULL, NULL, &c);
        const struct em_entry *b;
        while ((b = em_store_next(&c)))
            touch_name(srv, budgets, ns, em_obj_name(em_entry_rec(b)));
    }
    pthread_cond_signal(&srv->sim_wake);
}

/* What changed since the scheduler last looked, read from the history as a watch reads
 * it: each change makes its object, and the objects it may matter to, due now. */
static void consume(struct em_server *srv)
{
    struct em_history *j = &srv->history;
    for (size_t i = em_history_after(j, srv->sim_seen_rev); i < j->len; i++) {
        struct em_change *e = &j->ev[i];
        const struct nd_kind *k = nd_kind_by_plural(NULL, e->plural);
        json_t *obj = em_change_sel(e); /* (what the touches read: a record will do) */
        if (k) {
            em_sim_touch(srv, k, obj);
            em_sim_touch_related(srv, k, obj);
        }
        srv->sim_seen_rev = e->rev;
    }
}

static int touch_entry(const struct nd_kind *k, const struct em_entry *e, void *srv)
{
    em_sim_touch(srv, k, em_entry_rec(e));
    return 0;
}

/* The objects of kinds with a controller (the others are never due). */
static int touch_kind(const struct nd_kind *k, size_t count, void *srv)
{
    (void)count;
    if (em_controller_find(k))
        em_store_walk(&((struct em_server *)srv)->store, k, NULL, touch_entry, srv);
    return 0;
}

/* An object that ended before the emulator set the end conditions (Complete, Failed) of
 * run-to-completion kinds: due now, so its controller adds them. */
static int touch_ended(const struct nd_kind *k, const struct em_entry *e, void *srv)
{
    if (em_ctl_lacks_end_condition(k, em_entry_rec(e)))
        em_sim_touch(srv, k, em_entry_rec(e));
    return 0;
}

static int touch_ended_kind(const struct nd_kind *k, size_t count, void *srv)
{
    (void)count;
    if (k->family == ND_FAMILY_RUN && em_controller_find(k))
        em_store_walk(&((struct em_server *)srv)->store, k, NULL, touch_ended, srv);
    return 0;
}

void em_sim_touch_all(struct em_server *srv)
{
    if (srv->sim_due && !srv->opt.no_simulation)
        em_store_kinds(&srv->store, touch_kind, srv);
}

/* ---- the schedule across a clean stop ----
 *
 * DIR/history/schedule: a header line
 *   nodus-schedule 1 TAB <address> TAB <price book hash> TAB <count>
 * then one line per object of a kind with a controller, kinds in registry order and
 * objects in (project, name) order:
 *   <plural> TAB <project> TAB <name> TAB <hash of its compact JSON> TAB <due ms or -1>
 */

static uint64_t file_hash(struct em_server *srv, const char *rel)
{
    char *path = em_store_path(&srv->store, rel);
    struct nd_buf b = ND_BUF_INIT;
    uint64_t h = nd_buf_read_file(&b, path) == 0 ? em_hash64(b.data, b.len, 3) : 0;
    nd_buf_release(&b);
    free(path);
    return h;
}

static uint64_t entry_hash(const struct em_entry *e)
{
    const struct em_bytes *b = em_store_entry_json(e);
    return em_hash64(b->data, b->len, 5);
}

struct sched_walk {
    struct em_server *srv;
    struct nd_buf out;   /* saving: the lines */
    size_t count;        /* objects walked */
    json_t *saved;       /* loading: key -> [hash, due] */
    bool differs;        /* an object is not as saved (or cannot be written down) */
};

static int save_entry(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    struct sched_walk *w = ctx;
    const char *ns = em_obj_ns(em_entry_rec(e)), *name = em_obj_name(em_entry_rec(e));
    if (!name || strpbrk(name, "\t\n") || strpbrk(ns, "\t\n")) {
        w->differs = true;
        return 1;
    }
    const struct em_due_item *due = em_due_find(w->srv->sim_due, k, ns, name);
    nd_buf_addf(&w->out, "%s\t%s\t%s\t%016" PRIx64 "\t%lld\n", k->plural, ns, name, entry_hash(e),
                due && due->at != EM_NEVER ? (long long)due->at : -1LL);
    w->count++;
    return 0;
}

static int check_entry(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    struct sched_walk *w = ctx;
    char *key = nd_xasprintf("%s\n%s/%s", k->plural, em_obj_ns(em_entry_rec(e)), em_obj_name(em_entry_rec(e)));
    json_t *rec = json_object_get(w->saved, key);
    free(key);
    w->count++;
    if (!rec || (uint64_t)json_integer_value(json_array_get(rec, 0)) != entry_hash(e)) {
        w->differs = true;
        return 1;
    }
    return 0;
}

/* Walks every object of every kind with a controller, in registry order. */
static int walk_controlled(struct em_server *srv, em_store_walk_fn fn, struct sched_walk *w)
{
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        int rc = em_controller_find(k) ? em_store_walk(&srv->store, k, NULL, fn, w) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

void em_sim_save(struct em_server *srv)
{
    if (!srv->sim_due || srv->opt.no_simulation)
        return;
    struct sched_walk w = {.srv = srv};
    walk_controlled(srv, save_entry, &w);
    char *path = em_store_path(&srv->store, SCHEDULE_FILE);
    if (!w.differs) {
        struct nd_buf all = ND_BUF_INIT;
        nd_buf_addf(&all, SCHEDULE_MAGIC "\t%s\t%016" PRIx64 "\t%zu\n", srv->base_url,
                    file_hash(srv, "pricebook.json"), w.count);
        nd_buf_add(&all, w.out.data ? w.out.data : "", w.out.len);
        struct nd_status st = ND_STATUS_INIT;
        if (em_store_write_file(&srv->store, path, all.data, all.len, &st) < 0)
            unlink(path); /* the next start reconciles every object, as after a crash */
        nd_status_release(&st);
        nd_buf_release(&all);
    }
    free(path);
    nd_buf_release(&w.out);
}

/* The saved lines as key -> [hash, due]; NULL when the header does not match this start
 * (another address, another price book, a broken file). */
static json_t *parse_schedule(struct em_server *srv, char *text, size_t *count)
{
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    char want[160];
    snprintf(want, sizeof want, SCHEDULE_MAGIC "\t%s\t%016" PRIx64 "\t", srv->base_url,
             file_hash(srv, "pricebook.json"));
    if (!line || strncmp(line, want, strlen(want)) != 0)
        return NULL;
    *count = strtoull(line + strlen(want), NULL, 10);
    json_t *saved = json_object();
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[5];
        char *p = line;
        int n = 0;
        for (; n < 5 && p; n++) {
            f[n] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        if (n != 5 || p) {
            json_decref(saved);
            return NULL;
        }
        char *key = nd_xasprintf("%s\n%s/%s", f[0], f[1], f[2]);
        json_object_set_new(saved, key,
                            json_pack("[II]", (json_int_t)strtoull(f[3], NULL, 16),
                                      (json_int_t)strtoll(f[4], NULL, 10)));
        free(key);
    }
    return saved;
}

/* A saved line's object (key "plural\nns/name", as parse_schedule makes it) due at due. */
static void set_saved(struct em_server *srv, const char *key, int64_t due)
{
    const char *nl = strchr(key, '\n');
    const char *slash = nl ? strchr(nl + 1, '/') : NULL;
    if (!slash)
        return;
    char *plural = nd_xstrndup(key, (size_t)(nl - key));
    char *ns = nd_xstrndup(nl + 1, (size_t)(slash - nl - 1));
    const struct nd_kind *k = nd_kind_by_plural(NULL, plural);
    if (k)
        em_due_set(srv->sim_due, k, ns, slash + 1, due);
    free(plural);
    free(ns);
}

/* Takes back the schedule of the last clean stop, and deletes it (a crash later must not
 * find it): true when it holds exactly the objects this start loaded, byte for byte, saved
 * for the same address and price book; each is then due when it was due before the stop,
 * and nothing else runs. Under --runtime local every object runs again (its processes
 * ended with the last run). */
static bool load_schedule(struct em_server *srv)
{
    char *path = em_store_path(&srv->store, SCHEDULE_FILE);
    struct nd_buf b = ND_BUF_INIT;
    bool have = nd_buf_read_file(&b, path) == 0;
    if (have)
        unlink(path);
    free(path);
    size_t count = 0;
    json_t *saved = have && !em_runtime_local(srv) ? parse_schedule(srv, b.data, &count) : NULL;
    nd_buf_release(&b);
    if (!saved)
        return false;
    struct sched_walk w = {.srv = srv, .saved = saved};
    walk_controlled(srv, check_entry, &w);
    bool ok = !w.differs && w.count == count && json_object_size(saved) == count;
    const char *key;
    json_t *rec;
    json_object_foreach(saved, key, rec) {
        json_int_t due = json_integer_value(json_array_get(rec, 1));
        if (ok && due >= 0)
            set_saved(srv, key, due);
    }
    json_decref(saved);
    return ok;
}

void em_sim_init(struct em_server *srv)
{
    srv->sim_seen_rev = em_history_last_rev(&srv->history);
    srv->sim_due = em_due_new();
    pthread_cond_init(&srv->sim_wake, NULL);
    /* after a clean stop, what was due stays due, and nothing else moves; else (a first
     * start, a crash, a hand edit) every object is looked at */
    if (!load_schedule(srv) || srv->opt.no_simulation)
        em_sim_touch_all(srv);
    else if (!srv->opt.no_simulation)
        em_store_kinds(&srv->store, touch_ended_kind, srv); /* a state saved by an older one */
}

void em_sim_release(struct em_server *srv)
{
    em_due_free(srv->sim_due);
    srv->sim_due = NULL;
    if (srv->sim_round)
        free(srv->sim_round->items);
    free(srv->sim_round);
    srv->sim_round = NULL;
    em_money_index_free(srv->sim_money);
    srv->sim_money = NULL;
    pthread_cond_destroy(&srv->sim_wake);
}

/* Whether any object is due at now (what em_sim_run would look at). Lock held. */
static bool any_due(struct em_server *srv, int64_t now)
{
    consume(srv);
    return em_due_next(srv->sim_due) <= now;
}

/* Runs one due object's controller at now: it is parked (EM_NEVER) while it runs, then
 * due when its controller says, unless it is gone. When the controller can tell from the
 * object's record that it would change nothing (em_controller.idle: an ended Job, most of
 * a large state), no tree is built; nor when it writes its common step from the bytes
 * (em_controller.minute: a running Job's minute). */
static void run_item(struct em_server *srv, struct em_due_item *it, int64_t now)
{
    const struct nd_kind *kind = it->kind;
    const struct em_controller *c = em_controller_find(kind);
    const struct em_entry *e = em_store_entry(&srv->store, kind, it->ns, it->name);
    em_due_move(srv->sim_due, it, EM_NEVER);
    if (!e || !c)
        return;
    struct em_entry_stats before, after;
    em_entry_stats(&before);
    srv->stats.reconciles++;
    int64_t due;
    if (c->idle && c->idle(srv, kind, em_entry_rec(e), now, &due)) {
        srv->stats.reconciles_idle++;
    } else if (c->minute && c->minute(srv, kind, e, now, &due)) {
        srv->stats.reconciles_bytes++; /* (e is gone: the write replaced it) */
    } else {
        json_t *obj = em_entry_obj(e);
        if (!obj)
            return; /* bytes that do not parse: never what the store wrote */
        json_incref(obj);
        due = c->reconcile(srv, kind, obj, now);
        json_decref(obj);
    }
    consume(srv); /* what the reconcile wrote */
    /* the reconcile's own writes marked it due now: its answer wins unless the object is
     * gone; one due again soon (a running Job's next minute) keeps its tree, so that run
     * does not build it from the bytes again (store/entry.h: bounded) */
    e = em_store_entry(&srv->store, kind, it->ns, it->name);
    if (e) {
        em_due_move(srv->sim_due, it, due);
        em_entry_keep(e, due != EM_NEVER && due - now <= EM_SIM_KEEP_MS);
    }
    em_entry_stats(&after);
    srv->stats.reconcile_trees += after.built - before.built;
}

/* Runs at most budget objects of the round at now (a round left open runs on at its own
 * time): true when the round is over. Lock held. */
static bool run_slice(struct em_server *srv, int64_t now, size_t budget)
{
    struct em_sim_round *r = round_of(srv);
    if (!r->open) {
        *r = (struct em_sim_round){.open = true, .now = now, .items = r->items, .cap = r->cap};
    }
    /* a controller's write makes its object (and others) due again: repeat, bounded */
    for (size_t ran = 0;;) {
        if (r->next == r->n) {
            if (r->repeats == 64)
                break;
            consume(srv);
            /* the items stay put while the round runs: a touch only moves their times,
             * and what it adds comes after them; none goes before em_due_prune */
            r->n = em_due_collect(srv->sim_due, r->now, &r->items, &r->cap);
            r->next = 0;
            r->repeats++;
            if (!r->n)
                break;
        }
        if (ran++ == budget)
            return false;
        run_item(srv, r->items[r->next++], r->now);
    }
    r->open = false;
    r->n = r->next = 0;
    em_due_prune(srv->sim_due);
    return true;
}

/* Runs the open round to its end, and then one at now, trimming between slices (the lock
 * stays held: a clock jump's rounds). */
int64_t em_sim_run(struct em_server *srv, int64_t now)
{
    struct em_sim_round *r = round_of(srv);
    if (r->open && r->now != now) {
        while (!run_slice(srv, r->now, EM_SIM_SLICE))
            em_store_trim(&srv->store);
    }
    while (!run_slice(srv, now, EM_SIM_SLICE))
        em_store_trim(&srv->store);
    return em_due_next(srv->sim_due);
}

int64_t em_sim_every(const struct em_server *srv, int64_t now, int64_t period)
{
    int64_t end = srv->sim_jump_to;
    if (end - now < period) /* no jump (0), or it ends before the next look */
        return now + period;
    return now + (end - now) / period * period;
}

void em_sim_advance(struct em_server *srv, int64_t ms)
{
    em_pricebook_poll(srv);
    int64_t target = em_clock_now_ms(&srv->clock) + ms;
    srv->sim_jump_to = target;
    for (int steps = 0; steps < 1000000; steps++) {
        int64_t now = em_clock_now_ms(&srv->clock);
        int64_t next = em_sim_run(srv, now);
        if (next > target || next == EM_NEVER)
            break;
        if (next > now)
            em_clock_advance(&srv->clock, next - now);
        em_server_housekeep(srv);
    }
    int64_t now = em_clock_now_ms(&srv->clock);
    if (target > now)
        em_clock_advance(&srv->clock, target - now);
    em_sim_run(srv, em_clock_now_ms(&srv->clock));
    srv->sim_jump_to = 0;
    srv->last_housekeep_ms = 0;
    em_server_housekeep(srv);
    em_server_save_meta(srv); /* a jump survives a crash */
    em_server_publish(srv);   /* and what the jump dropped from the history is Expired */
}

static void *sim_main(void *arg)
{
    struct em_server *srv = arg;
    uint64_t committed = 0;
    pthread_mutex_lock(&srv->lock);
    while (!srv->stopping) {
        em_pricebook_poll(srv); /* a person may edit pricebook.json */
        if (em_obj_rollback(srv) >= 0) /* changes the disk refused are undone */
            em_sim_touch_all(srv);
        /* space is asked for only when a controller may write: a start with nothing due
         * leaves the journal as it was, its times included (the checkpoint records them) */
        /* a round left open by the last slice runs on at its own time */
        struct em_sim_round *r = round_of(srv);
        int64_t now = r->open ? r->now : em_clock_now_ms(&srv->clock);
        bool writable = true;
        if (any_due(srv, now)) {
            struct nd_status full = ND_STATUS_INIT;
            writable = em_store_reserve(&srv->store, &full) == 0;
            nd_status_release(&full);
        }
        /* while the disk is full the controllers wait (a second at a time) */
        int64_t next = now + 1000;
        if (writable)
            next = run_slice(srv, now, EM_SIM_SLICE) ? em_due_next(srv->sim_due) : now;
        em_store_trim(&srv->store); /* a safe point (entry.h): the slice is over */
        uint64_t ticket = em_store_ticket(&srv->store);
        if (ticket != committed) {
            committed = ticket;
            /* what the controllers wrote reaches the disk before they run again */
            pthread_mutex_unlock(&srv->lock);
            em_store_commit(&srv->store, ticket);
            pthread_mutex_lock(&srv->lock);
            em_server_publish(srv); /* news for the watches */
        }
        int64_t wait_ms = next == EM_NEVER ? 1000 : em_clock_real_delay_ms(&srv->clock, next);
        if (wait_ms > 1000)
            wait_ms = 1000;
        if (wait_ms < 1)
            wait_ms = 1;
        struct timespec ts;
        nd_time_deadline(&ts, wait_ms);
        pthread_cond_timedwait(&srv->sim_wake, &srv->lock, &ts);
    }
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

int em_sim_start(struct em_server *srv)
{
    if (pthread_create(&srv->sim_thread, NULL, sim_main, srv) != 0)
        return -1;
    srv->sim_running = true;
    return 0;
}

void em_sim_stop(struct em_server *srv)
{
    if (!srv->sim_running)
        return;
    pthread_mutex_lock(&srv->lock);
    srv->stopping = 1;
    pthread_cond_signal(&srv->sim_wake);
    pthread_mutex_unlock(&srv->lock);
    pthread_join(srv->sim_thread, NULL);
    srv->sim_running = false;
}
