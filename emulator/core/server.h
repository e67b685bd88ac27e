/* server.h: one running emulator: its options, state and the lock that guards it.
 *
 * Every request handler, controller tick and stream read takes `lock`; `changed` is
 * broadcast after every write to the store (watch streams wait on it) and at shutdown.
 */
#ifndef EM_SERVER_H
#define EM_SERVER_H

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "http.h"
#include "history.h"
#include "store.h"

/* The front door's flags (frontdoor.h); the strings are borrowed from argv. */
struct em_frontdoor_opts {
    const char **allow_origins; /* --allow-origin, repeatable ("*": every origin) */
    size_t n_allow_origins;
    const char **allow_hosts; /* --allow-host, repeatable */
    size_t n_allow_hosts;
    unsigned max_connections; /* --max-connections */
    unsigned idle_timeout_s;  /* --idle-timeout, whole seconds (0: none) */
    unsigned header_timeout_ms; /* --header-timeout (0: none) */
    uint64_t min_body_rate;     /* --min-body-rate, bytes a second (0: none) */
    unsigned body_window_ms;    /* --body-rate-window */
    unsigned per_client;        /* --max-connections-per-client (0: no cap) */
    bool per_client_set;        /* given on the command line */
    double rate_limit;        /* --rate-limit, requests a second per client (0: off) */
    bool rate_limit_set;      /* given on the command line */
};

#define EM_DEFAULT_MAX_UPLOAD (10ull << 30) /* --max-upload-bytes: 10Gi */

struct em_options {
    const char *state_dir;
    const char *listen_addr;
    uint16_t port;
    const char *port_file;
    const char *token_file;
    const char *tls_cert, *tls_key; /* --tls-cert, --tls-key: both or neither */
    double speed;
    const char *runtime; /* "simulate" or "local" */
    enum em_fsync fsync_mode;
    const char *seed_dir;
    bool reset;
    bool log_json;
    bool quiet;
    bool no_simulation; /* --no-simulation: no controller runs */
    bool no_console;    /* --no-console: / and /console/ are NotFound */
    struct em_frontdoor_opts front; /* origins, hosts, connection and rate limits */
    unsigned exec_keepalive_s; /* --exec-keepalive: seconds between exec sessions' pings */
    const char *exec_isolation; /* --exec-isolation: "bwrap" (default) or "none" */
    uint64_t max_upload_bytes; /* --max-upload-bytes: one upload's body (files) */
    char *owned[2]; /* strings the parser allocated (freed by em_options_release) */
};

struct em_faults;
struct em_runtime;
struct em_feed;
struct em_spend;
struct em_prices;
struct em_money_index;
struct em_discovery;
struct em_exec_registry;
struct em_table_cells;
struct em_server;
struct em_due;
struct em_sim_round;

struct em_stats {
    uint64_t requests;
    uint64_t watches_open;
    uint64_t watches_total;
    uint64_t reads_waiting; /* gets and lists waiting for a resourceVersion (api_fresh.c) */
    /* the simulation's runs of a controller over a due object (sim/sim.c): all of them,
     * those its record answered without a tree (em_controller.idle), the trees built
     * from stored bytes while they ran (store/entry.h), and the steps written from the
     * bytes without a tree (em_controller.minute) */
    uint64_t reconciles, reconciles_idle, reconcile_trees, reconciles_bytes;
};

/* What a layer above adds to what a lower one does, set by the top (server.c) at start:
 * a lower layer calls up only through these (NULL: not set, nothing to do). */
struct em_server_hooks {
    void (*expire)(struct em_server *srv); /* once a minute of emulated time (api/: keys) */
    /* exec sessions open into a Sandbox (api/exec.c), asked by its controller (sim/) */
    int (*sandbox_sessions)(struct em_server *srv, const json_t *sandbox);
};

struct em_server {
    struct em_options opt;
    struct em_server_hooks hooks;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct em_store store;
    struct em_history history;
    struct em_clock clock;
    struct em_stats stats;
    /* requests that wrote and will publish once on disk (router.c): other publishes
     * (the journal's thread, the simulation) leave the feed to them, so that the watches
     * wake after the writers' answers */
    unsigned writers_publishing;
    json_t *idempotency; /* key -> saved first response (see idempotency.h) */
    struct em_faults *faults; /* injected faults (admin.c) */
    json_t *tokens;      /* token -> identity (when --token-file) */
    struct em_http *http;
    struct em_http_tls tls; /* the PEM files of --tls-cert and --tls-key (tls.h) */
    struct em_runtime *runtime; /* --runtime local's processes (runtime.h) */
    struct em_frontdoor *frontdoor; /* rate limiter state (frontdoor.h) */
    struct em_feed *feed; /* durable changes for watch streams (feed.h) */
    struct em_spend *spend; /* spend per project and kind over the clock (spend.h) */
    struct em_prices *prices; /* the price book (sim/pricebook.c) */
    struct em_discovery *discovery; /* discovery and OpenAPI documents (api/discovery.c) */
    struct em_exec_registry *exec;  /* open exec sessions (api/exec.c) */
    struct em_table_cells *table_cells; /* each revision's Table row (api/table_cells.h) */
    bool upload_stage_ready; /* files/.uploads emptied of a previous run's (api/files.c) */
    char base_url[80];
    /* the simulation (sim.h) */
    struct em_due *sim_due; /* what is due when (sim/due.h); NULL before em_sim_init */
    struct em_money_index *sim_money; /* each object's money (sim/controllers/money.h) */
    int64_t sim_seen_rev; /* the history's changes up to this the scheduler has read */
    int64_t sim_jump_to; /* during a clock jump (em_sim_advance), where it ends; else 0 */
    struct em_sim_round *sim_round; /* the round the scheduler is running (sim/sim.c) */
    pthread_cond_t sim_wake;
    pthread_t sim_thread;
    bool sim_running;
    bool ready;
    bool seed_wanted; /* --seed applies: the state directory was empty, or seeded_tree */
    bool seeded_tree; /* --seed brought a state tree in at this start */
    int64_t last_housekeep_ms;
    volatile sig_atomic_t stopping;
};

/* emulator.json: reads it at the start (revision counter, clock: core/meta.c) and writes
 * it (lock held); save returns -1 after a message on stderr when it cannot. */
void em_server_load_meta(struct em_server *srv);
int em_server_save_meta(struct em_server *srv);
/* Housekeeping due at the current time: the history's expiry, and once a minute the
 * hooks' (idempotency keys). Lock held. */
void em_server_housekeep(struct em_server *srv);
/* Publishes the journal's durable events to the feed and wakes every waiting stream;
 * the feed is left alone while a request that wrote is due to publish (writers_publishing).
 * Lock held. */
void em_server_publish(struct em_server *srv);
/* The same by a request that wrote (router.c), once its write is on disk: it was counted
 * in writers_publishing, and it publishes whatever is on disk now. Lock held. */
void em_server_publish_write(struct em_server *srv);

#endif
