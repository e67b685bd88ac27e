/* Whole-state operations behind the control endpoints: stats and reset. */
#include <string.h>

#include "admin.h"
#include "feed.h"
#include "spend.h"
#include "splice.h"
#include "idempotency.h"
#include "router.h"
#include "runtime.h"
#include "table_cells.h"

struct counts {
    json_t *objects;
    size_t total;
};

static int count_kind(const struct nd_kind *k, size_t n, void *ctx)
{
    struct counts *c = ctx;
    json_object_set_new(c->objects, k->plural, json_integer((json_int_t)n));
    c->total += n;
    return 0;
}

json_t *em_stats_json(struct em_server *srv)
{
    struct counts c = {.objects = json_object()};
    em_store_kinds(&srv->store, count_kind, &c);
    json_t *objects = c.objects;
    size_t total = c.total;
    /* how Jobs run: "simulate", "local" (--runtime) or "none" (--no-simulation) */
    const char *runtime = srv->opt.no_simulation ? "none"
                          : em_runtime_local(srv) ? "local"
                                                  : "simulate";
    /* the trees built from stored bytes (store/entry.h), and those kept hot */
    struct em_entry_stats ts;
    em_entry_stats(&ts);
    json_t *trees = json_pack("{sIsIsIsIsIsIsIsI}", "built", (json_int_t)ts.built, "hot",
                              (json_int_t)ts.hot, "bound", (json_int_t)ts.bound, "peak",
                              (json_int_t)ts.peak, "kept", (json_int_t)ts.kept, "keptBytes",
                              (json_int_t)ts.kept_bytes, "spliced",
                              (json_int_t)em_dump_spliced(), "fromHistory",
                              (json_int_t)em_history_inflated());
    /* the watch streams a publish woke: after a writer's answer was on its way (feed.h),
     * or where it was made (the journal's thread, the simulation, a reset) */
    uint64_t after = 0, at_once = 0, behind = 0, skipped = 0;
    if (srv->feed) {
        pthread_mutex_lock(&srv->feed->mu);
        after = srv->feed->woken_after_answer;
        at_once = srv->feed->woken_at_once;
        behind = srv->feed->behind_ring;
        skipped = srv->feed->skipped_ahead;
        pthread_mutex_unlock(&srv->feed->mu);
    }
    /* guardLooked: connections the guard's watchdog looked at (only those waiting for a
     * request's bytes: never the watches) */
    json_t *wakes = json_pack("{sIsIsIsIsI}", "afterAnswer", (json_int_t)after, "atOnce",
                              (json_int_t)at_once, "guardLooked",
                              (json_int_t)em_http_guard_looked(srv->http), "behindRing",
                              (json_int_t)behind, "skippedAhead", (json_int_t)skipped);
    /* the controllers' runs (sim/sim.c): how many, how many the record answered, and the
     * trees they built */
    json_t *reconciles = json_pack("{sIsIsIsI}", "run", (json_int_t)srv->stats.reconciles, "idle",
                                   (json_int_t)srv->stats.reconciles_idle, "treesBuilt",
                                   (json_int_t)srv->stats.reconcile_trees, "fromBytes",
                                   (json_int_t)srv->stats.reconciles_bytes);
    /* what the start read of the journal and of the Events' hour files, and how
     * (store/journal_scan.h, store/events_file.h) */
    json_t *start = json_pack("{sIsIsIsIsIsI}", "journalRecords", (json_int_t)srv->store.journal_records,
                              "journalParsed", (json_int_t)srv->store.journal_parsed,
                              "eventLines", (json_int_t)srv->store.event_lines,
                              "eventLinesParsed", (json_int_t)srv->store.event_parsed,
                              "indexedOnLoaders", (json_int_t)srv->store.indexed_on_loaders,
                              "openedInDir", (json_int_t)srv->store.opened_in_dir);
    return json_pack("{sosIsIsIsIsIsIsIsIs{sIsI}sssososososo}", "objects", objects, "objectsTotal",
                     (json_int_t)total, "watchesOpen", (json_int_t)srv->stats.watches_open,
                     "watchesTotal", (json_int_t)srv->stats.watches_total, "readsWaiting",
                     (json_int_t)srv->stats.reads_waiting, "requests",
                     (json_int_t)srv->stats.requests, "revision", (json_int_t)srv->store.revision,
                     "historyEvents", (json_int_t)srv->history.len, "cascadeVisited",
                     (json_int_t)srv->store.owners.visited, "clock", "nowMs",
                     (json_int_t)em_clock_now_ms(&srv->clock), "speedPermille",
                     (json_int_t)(srv->clock.speed * 1000), "runtime", runtime, "tableRows",
                     em_table_cells_stats(srv->table_cells), "trees", trees, "watchWakes",
                     wakes, "reconciles", reconciles, "start", start);
}

int em_reset_state(struct em_server *srv, struct nd_status *st)
{
    if (em_store_clear(&srv->store, st) < 0)
        return -1;
    /* Watchers resuming from before the reset must list again. */
    em_history_clear(&srv->history, em_store_next_revision(&srv->store));
    em_feed_reset(srv);
    em_spend_reset(srv);
    em_idem_clear(srv);
    srv->clock.gen++; /* a clock watch says the clock again after a reset */
    pthread_cond_broadcast(&srv->changed);
    return em_builtin_ensure(srv, st);
}
