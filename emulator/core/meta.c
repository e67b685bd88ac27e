/* The server's own upkeep, below every layer that calls it: emulator.json (the revision
 * counter and the clock), housekeeping, and publishing what is durable to the watches. */
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "spend.h"

/* emulator.json's revision counter (into the store) and clock. A stopped clock
 * (--speed 0) stands where it stood at the stop (clockMs), however long the emulator was
 * down: nothing simulated moves across a restart. A running clock keeps its offset from
 * real time (clockOffsetMs), so the time the emulator was down has passed for it too. */
void em_server_load_meta(struct em_server *srv)
{
    char *path = em_store_path(&srv->store, "emulator.json");
    struct nd_buf b = ND_BUF_INIT;
    int64_t offset = 0;
    json_t *at = NULL;
    json_t *j = NULL;
    if (nd_buf_read_file(&b, path) == 0) {
        j = json_loadb(b.data, b.len, 0, NULL);
        json_int_t rev = json_integer_value(json_object_get(j, "revision"));
        if (rev > srv->store.revision)
            srv->store.revision = rev;
        offset = json_integer_value(json_object_get(j, "clockOffsetMs"));
        at = json_object_get(j, "clockMs");
    }
    if (srv->opt.speed == 0 && json_is_integer(at) && json_integer_value(at) > 0)
        em_clock_init_at(&srv->clock, 0, json_integer_value(at));
    else
        em_clock_init(&srv->clock, srv->opt.speed, offset);
    json_decref(j);
    nd_buf_release(&b);
    free(path);
}

/* emulator.json: format version, revision counter and clock, so a restart continues. */
int em_server_save_meta(struct em_server *srv)
{
    json_t *j = json_pack("{sisIsIsI}", "formatVersion", 1, "revision",
                          (json_int_t)srv->store.revision, "clockOffsetMs",
                          (json_int_t)em_clock_offset_ms(&srv->clock), "clockMs",
                          (json_int_t)em_clock_now_ms(&srv->clock));
    char *s = json_dumps(j, JSON_INDENT(2));
    char *path = em_store_path(&srv->store, "emulator.json");
    struct nd_status st = ND_STATUS_INIT;
    int rc = em_store_write_file(&srv->store, path, s, strlen(s), &st);
    if (rc < 0)
        fprintf(stderr, "nodus-emulator: %s\n", st.message);
    nd_status_release(&st);
    free(path);
    free(s);
    json_decref(j);
    return rc;
}

void em_server_housekeep(struct em_server *srv)
{
    int64_t now = em_clock_now_ms(&srv->clock);
    em_history_trim(&srv->history, now);
    if (now - srv->last_housekeep_ms >= 60 * 1000) {
        if (srv->hooks.expire)
            srv->hooks.expire(srv);
        srv->last_housekeep_ms = now;
    }
}

void em_server_publish(struct em_server *srv)
{
    em_spend_publish(srv);
    /* a request that wrote publishes what is on disk once its own write is, after its
     * answer; until then the watches wait for it (feed.h) */
    if (!srv->writers_publishing)
        em_feed_publish(srv);
    pthread_cond_broadcast(&srv->changed);
}

void em_server_publish_write(struct em_server *srv)
{
    srv->writers_publishing--;
    em_spend_publish(srv);
    em_feed_publish(srv);
    pthread_cond_broadcast(&srv->changed);
}
