/* Whole-state operations behind the control endpoints: stats and reset. */
#include <string.h>

#include "admin.h"
#include "feed.h"
#include "idempotency.h"
#include "router.h"

json_t *em_stats_json(struct em_server *srv)
{
    json_t *objects = json_object();
    const char *plural;
    json_t *bucket;
    size_t total = 0;
    json_object_foreach(srv->store.by_plural, plural, bucket) {
        if (json_object_size(bucket)) {
            json_object_set_new(objects, plural, json_integer((json_int_t)json_object_size(bucket)));
            total += json_object_size(bucket);
        }
    }
    return json_pack("{sosIsIsIsIsIsIs{sIsI}}", "objects", objects, "objectsTotal",
                     (json_int_t)total, "watchesOpen", (json_int_t)srv->stats.watches_open,
                     "watchesTotal", (json_int_t)srv->stats.watches_total, "requests",
                     (json_int_t)srv->stats.requests, "revision", (json_int_t)srv->store.revision,
                     "historyEvents", (json_int_t)srv->journal.len, "clock", "nowMs",
                     (json_int_t)em_clock_now_ms(&srv->clock), "speedPermille",
                     (json_int_t)(srv->clock.speed * 1000));
}

int em_reset_state(struct em_server *srv, struct nd_status *st)
{
    if (em_store_clear(&srv->store, st) < 0)
        return -1;
    /* Watchers resuming from before the reset must list again. */
    em_journal_clear(&srv->journal, em_store_next_revision(&srv->store));
    em_feed_reset(srv);
    em_idem_clear(srv);
    pthread_cond_broadcast(&srv->changed);
    return em_builtin_ensure(srv, st);
}
