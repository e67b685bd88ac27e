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
#include "journal.h"
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
    struct em_frontdoor_opts front; /* origins, hosts, connection and rate limits */
    unsigned exec_keepalive_s; /* --exec-keepalive: seconds between exec sessions' pings */
    const char *exec_isolation; /* --exec-isolation: "bwrap" (default) or "none" */
    uint64_t max_upload_bytes; /* --max-upload-bytes: one upload's body (files) */
    char *owned[2]; /* strings the parser allocated (freed by em_options_release) */
};

struct em_faults;
struct em_runtime;
struct em_feed;
struct em_due;

struct em_stats {
    uint64_t requests;
    uint64_t watches_open;
    uint64_t watches_total;
    uint64_t reads_waiting; /* gets and lists waiting for a resourceVersion (api_fresh.c) */
};

struct em_server {
    struct em_options opt;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct em_store store;
    struct em_journal journal;
    struct em_clock clock;
    struct em_stats stats;
    json_t *idempotency; /* key -> saved first response (see idempotency.h) */
    struct em_faults *faults; /* injected faults (admin.c) */
    json_t *tokens;      /* token -> identity (when --token-file) */
    struct em_http *http;
    struct em_http_tls tls; /* the PEM files of --tls-cert and --tls-key (tls.h) */
    struct em_runtime *runtime; /* --runtime local's processes (runtime.h) */
    struct em_frontdoor *frontdoor; /* rate limiter state (frontdoor.h) */
    struct em_feed *feed; /* durable changes for watch streams (feed.h) */
    char base_url[80];
    /* the simulation (sim.h) */
    struct em_due *sim_due; /* what is due when (sim/due.h); NULL before em_sim_init */
    int64_t sim_seen_rev; /* the journal's changes up to this the scheduler has read */
    int64_t sim_jump_to; /* during a clock jump (em_sim_advance), where it ends; else 0 */
    pthread_cond_t sim_wake;
    pthread_t sim_thread;
    bool sim_running;
    bool ready;
    bool seed_wanted; /* --seed applies: the state directory was empty, or seeded_tree */
    bool seeded_tree; /* --seed brought a state tree in at this start */
    int64_t last_housekeep_ms;
    volatile sig_atomic_t stopping;
};

/* Parses argv into opt; prints usage/version and returns 1 when the program should exit
 * 0, -1 (after a message on stderr) for a usage error, 0 to run. */
int em_options_parse(struct em_options *opt, int argc, char **argv);
/* Moves the emulated clock forward by ms, running what falls due on the way (history
 * expiry, key expiry; the controllers' timers), and wakes every waiting stream.
 * Called with the lock held. */
void em_server_advance(struct em_server *srv, int64_t ms);
/* Writes emulator.json (revision counter, clock offset). Lock held. */
int em_server_save_meta(struct em_server *srv);
/* Housekeeping due at the current time (history and idempotency expiry). Lock held. */
void em_server_housekeep(struct em_server *srv);
void em_options_release(struct em_options *opt);
/* Runs until SIGTERM/SIGINT; returns the exit status. */
int em_server_run(struct em_server *srv);

#endif
