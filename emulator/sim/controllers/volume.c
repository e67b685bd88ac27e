/* The Volume controller: the long-running lifecycle of a disk. Storage is billed per
 * GiB-month of spec.size (the price book's storageGiBMonthUSD; a month is 730 hours)
 * while the Volume is Running, computed exactly from the time at each size (a raise
 * starts a new segment) rather than summed from rounded hourly ticks. status.usedBytes
 * is what its file tree (files/<project>/volumes/<name>/) holds; status.mountedBy lists
 * the Jobs and Sandboxes that mount it now, and while there are any the Volume keeps
 * the finalizer nodus.dev/in-use, so a deleted Volume stays Terminating until they stop.
 *
 * status.simulation: segStart (when the current size began to be billed), segBase
 * (micro-dollars billed before that), segBytes (the size billed in this segment),
 * costAt (when costUSD last moved). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "controllers.h"
#include "longrun.h"
#include "objects.h"
#include "pricebook.h"
#include "util/quantity.h"
#include "util/xmalloc.h"

#define MONTH_MS (730LL * 3600 * 1000)
#define REFRESH_MS (60 * 1000) /* usedBytes and mountedBy are looked at this often (em_sim_every) */
#define COST_EVERY_MS (3600 * 1000) /* the cost shown moves this often (and at any change) */

static int64_t size_bytes(const json_t *spec)
{
    const char *s = json_string_value(json_object_get(spec, "size"));
    struct nd_quantity q;
    struct nd_status st = ND_STATUS_INIT;
    int64_t out = 0;
    if (s && nd_quantity_parse(s, &q, &st) == 0 && nd_quantity_bytes(&q, &out) < 0)
        out = 0;
    nd_status_release(&st);
    return out;
}

static int64_t month_price(const struct em_server *srv)
{
    return em_book_rate(srv, EM_RATE_STORAGE_MONTH);
}

/* bytes stored for ms at price per GiB-month, rounded to the micro-dollar */
static int64_t storage_cost(int64_t bytes, int64_t ms, int64_t price)
{
    __int128 num = (__int128)bytes * ms * price;
    __int128 den = (__int128)MONTH_MS << 30;
    return (int64_t)((num + den / 2) / den);
}

int64_t em_volume_cost(struct em_server *srv, const json_t *vol, int64_t now)
{
    const json_t *status = json_object_get(vol, "status");
    const json_t *sim = json_object_get(status, "simulation");
    int64_t cost = em_ctl_money_of(srv, vol)->cost;
    const json_t *start = json_object_get(sim, "segStart");
    if (!json_is_integer(start) || now <= json_integer_value(start))
        return cost;
    int64_t base = json_integer_value(json_object_get(sim, "segBase"));
    int64_t bytes = json_integer_value(json_object_get(sim, "segBytes"));
    return base + storage_cost(bytes, now - json_integer_value(start), month_price(srv));
}

/* Moves costUSD to now (when forced, the size changed or an hour passed since it last
 * moved: storage costs little, and every write is a watch event); a changed size closes
 * the segment and opens one at now. */
static void bill(struct em_ctl *c, bool force)
{
    if (em_ctl_sim_get(c, "segStart", -1) < 0)
        return;
    int64_t bytes = size_bytes(json_object_get(c->obj, "spec"));
    bool resized = bytes != em_ctl_sim_get(c, "segBytes", 0);
    int64_t shown = em_ctl_sim_get(c, "costAt", em_ctl_sim_get(c, "segStart", c->now));
    if (!force && !resized && c->now - shown < COST_EVERY_MS) {
        em_ctl_due(c, shown + COST_EVERY_MS);
        return;
    }
    int64_t cost = em_volume_cost(c->srv, c->obj, c->now);
    em_ctl_set_cost(c, cost);
    em_ctl_sim_set(c, "costAt", c->now);
    em_ctl_due(c, c->now + COST_EVERY_MS);
    if (resized) {
        em_ctl_sim_set(c, "segStart", c->now);
        em_ctl_sim_set(c, "segBase", cost);
        em_ctl_sim_set(c, "segBytes", bytes);
    }
}

static void started(struct em_ctl *c)
{
    if (!json_object_get(c->status, "costUSD"))
        em_ctl_set_cost(c, 0);
    em_ctl_sim_set(c, "segStart", c->now);
    em_ctl_sim_set(c, "segBase", c->money->cost);
    em_ctl_sim_set(c, "segBytes", size_bytes(json_object_get(c->obj, "spec")));
}

static void ended(struct em_ctl *c)
{
    bill(c, true);
    em_ctl_sim_del(c, "costAt");
    em_ctl_sim_del(c, "segStart");
    em_ctl_sim_del(c, "segBase");
    em_ctl_sim_del(c, "segBytes");
}

/* Bytes of the regular files under path (symbolic links are not followed). */
static int64_t tree_bytes(const char *path, int depth)
{
    struct stat sb;
    if (lstat(path, &sb) < 0)
        return 0;
    if (S_ISREG(sb.st_mode))
        return (int64_t)sb.st_size;
    if (!S_ISDIR(sb.st_mode) || depth > 64)
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int64_t sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *child = nd_xasprintf("%s/%s", path, e->d_name);
        sum += tree_bytes(child, depth + 1);
        free(child);
    }
    closedir(d);
    return sum;
}

static bool mounts(const json_t *obj, const char *volume)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(json_object_get(obj, "spec"), "volumes"), i, v) {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (n && !strcmp(n, volume))
            return true;
    }
    return false;
}

/* "job/a", "sandbox/b": the work that holds the Volume now (placed or running). */
static json_t *mounted_by(struct em_ctl *c)
{
    static const char *const users[] = {"jobs", "sandboxes"}; /* the kinds with spec.volumes */
    json_t *out = json_array();
    const char *ns = em_obj_ns(c->obj), *name = em_obj_name(c->obj);
    for (size_t u = 0; u < sizeof users / sizeof users[0]; u++) {
        const struct nd_kind *k = nd_kind_by_plural("nodus.dev", users[u]);
        /* placed (Provisioning, Starting) or Running: the phases after the first */
        const char *const *phases = nd_phases(k->family);
        json_t *items = em_store_list(&c->srv->store, k, ns);
        size_t i;
        json_t *o;
        json_array_foreach(items, i, o) {
            const char *phase = json_string_value(json_object_get(json_object_get(o, "status"),
                                                                  "phase"));
            if (!phase || !mounts(o, name))
                continue;
            if (strcmp(phase, phases[1]) != 0 && strcmp(phase, phases[2]) != 0)
                continue;
            char *ref = nd_xasprintf("%s/%s", k->singular, em_obj_name(o));
            json_array_append_new(out, json_string(ref));
            free(ref);
        }
        json_decref(items);
    }
    return out;
}

static void set_in_use(struct em_ctl *c, bool in_use)
{
    if (!in_use) {
        em_obj_drop_finalizer(c->obj, EM_FINALIZER_IN_USE);
        return;
    }
    if (em_obj_has_finalizer(c->obj, EM_FINALIZER_IN_USE))
        return;
    json_t *meta = em_obj_meta(c->obj);
    json_t *fins = json_object_get(meta, "finalizers");
    if (!json_is_array(fins)) {
        fins = json_array();
        json_object_set_new(meta, "finalizers", fins);
    }
    json_array_append_new(fins, json_string(EM_FINALIZER_IN_USE));
}

static void status(struct em_ctl *c)
{
    const char *phase = em_ctl_phase(c);
    if (nd_phase_parse(phase) == ND_PHASE_RUNNING)
        bill(c, false);
    char *rel = nd_xasprintf("files/%s/volumes/%s", em_obj_ns(c->obj), em_obj_name(c->obj));
    char *dir = em_store_path(&c->srv->store, rel);
    json_object_set_new(c->status, "usedBytes", json_integer(tree_bytes(dir, 0)));
    free(dir);
    free(rel);
    json_t *users = mounted_by(c);
    set_in_use(c, json_array_size(users) > 0);
    if (json_array_size(users))
        json_object_set_new(c->status, "mountedBy", users);
    else {
        json_object_del(c->status, "mountedBy");
        json_decref(users);
    }
    if (nd_phase_parse(phase) == ND_PHASE_RUNNING || nd_phase_parse(phase) == ND_PHASE_TERMINATING)
        em_ctl_due(c, em_sim_every(c->srv, c->now, REFRESH_MS));
}

static bool can_go(struct em_ctl *c)
{
    return !em_obj_has_finalizer(c->obj, EM_FINALIZER_IN_USE);
}

static const struct em_longrun_ops ops = {
    .started = started,
    .ended = ended,
    .status = status,
    .can_go = can_go,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

const struct em_controller em_volume_controller = {"volumes", reconcile};
