/* Command-line options of nodus-emulator. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontdoor.h"
#include "emulator.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/xmalloc.h"

static const char usage[] =
    "Usage: nodus-emulator [flags]\n"
    "\n"
    "Serves the whole Nodus API (nodus.dev/v1) offline, keeping its state as JSON files.\n"
    "\n"
    "Flags:\n"
    "  --state DIR            state directory (default $NODUS_EMULATOR_STATE or ~/.nodus/emulator)\n"
    "  --listen ADDR:PORT     address to serve on (default 127.0.0.1:8443; port 0 picks a free\n"
    "                         port, printed on the first line of output)\n"
    "  --port-file FILE       also write the port to FILE once ready\n"
    "  --token-file FILE      require bearer tokens (JSON: token -> identity, projects, scopes;\n"
    "                         the file must be private: chmod 600 FILE)\n"
    "  --tls-cert FILE        serve https with this PEM certificate (chain); needs --tls-key\n"
    "  --tls-key FILE         the certificate's PEM private key (unencrypted; keep it chmod 600)\n"
    "  --speed X              run the emulated clock X times faster than real time (default 1;\n                         0: the clock moves only through POST /emulator/v1/clock)\n"
    "  --runtime MODE         simulate (default: simulated Jobs and logs) or local (a Job's\n"
    "                         command runs as a local process)\n"
    "  --fsync MODE           always (default), batch or never\n"
    "  --seed DIR             fill an empty state from DIR before becoming ready: its state\n"
    "                         tree (objects/, files/, logs/, pricebook.json), then its\n"
    "                         manifests (*.yaml, *.yml, *.json) as if posted\n"
    "  --reset                empty the state directory first\n"
    "  --no-simulation        serve the API only: objects keep the phase and status they are\n"
    "                         given (for testing how a client shows particular states)\n"
    "  --exec-keepalive SECS  ping exec sessions every SECS seconds (default 30, 1-3600); a\n"
    "                         client that answers nothing for that long is gone: its command\n"
    "                         is ended\n"
    "  --exec-isolation MODE  bwrap (default): exec and local Jobs run under bubblewrap,\n"
    "                         seeing the object's files at /, its Volumes at their\n"
    "                         mountPath and the host's /usr, /etc read-only; none: they\n"
    "                         run on the host, in the object's files, seeing everything\n"
    "  --max-upload-bytes N   the largest upload to a Sandbox's or Volume's files (a tar\n"
    "                         body, streamed to disk; default 10Gi; suffixes Ki Mi Gi Ti, k\n"
    "                         M G T); a larger one is refused with 413 and nothing written\n"
    "  --log-format FORMAT    text (default) or json: one line per request on stderr\n"
    "  --quiet                no request log\n"
    "  --no-console           do not serve the console (the web page at / and /console/)\n"
    "  --allow-origin ORIGIN  let web pages of ORIGIN (scheme://host:port, exactly; * for any)\n"
    "                         call the API; other origins are refused (repeatable)\n"
    "  --allow-host NAME      also accept Host: NAME on a loopback listener (repeatable;\n"
    "                         default 127.0.0.1, localhost and [::1] only)\n"
    "  --max-connections N    connections served at once (default 256); past it a new\n"
    "                         client gets 503 with Retry-After\n"
    "  --idle-timeout D       close a connection idle for D (default 60s; 0: never); watches\n"
    "                         and followed logs are not idle\n"
    "  --header-timeout D     close a connection whose request line and headers are not all\n"
    "                         in D after its first byte, however they trickle (default 10s;\n"
    "                         0: none); 408 RequestTimeout\n"
    "  --min-body-rate N      close a request whose body brings fewer than N bytes a second\n"
    "                         over a --body-rate-window (default 1Ki; suffixes Ki Mi, k M;\n"
    "                         0: none); 408 RequestTimeout. Answers and streams are not timed\n"
    "  --body-rate-window D   the window of --min-body-rate, and the grace before the first\n"
    "                         (default 10s)\n"
    "  --max-connections-per-client N\n"
    "                         connections one client address may hold (default: none on\n"
    "                         loopback, a quarter of --max-connections elsewhere; 0: none);\n"
    "                         past it 429 with Retry-After. Health checks and admin tokens\n"
    "                         pass any connection limit: 1/16 of --max-connections is kept\n"
    "                         for them\n"
    "  --rate-limit N         requests a second per client address, burst 2N (default: off\n"
    "                         on loopback, 100 elsewhere; 0: off); past it 429\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n";

static int parse_listen(struct em_options *opt, const char *arg)
{
    const char *colon = strrchr(arg, ':');
    if (!colon) {
        fprintf(stderr, "nodus-emulator: --listen wants ADDR:PORT, got %s\n", arg);
        return -1;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || port < 0 || port > 65535) {
        fprintf(stderr, "nodus-emulator: --listen: invalid port in %s (0-65535)\n", arg);
        return -1;
    }
    free(opt->owned[0]);
    opt->owned[0] = colon == arg ? NULL : nd_xstrndup(arg, (size_t)(colon - arg));
    opt->listen_addr = opt->owned[0] ? opt->owned[0] : "127.0.0.1";
    opt->port = (uint16_t)port;
    return 0;
}

/* The front door's flags, past the other flags' values. */
enum { O_ALLOW_ORIGIN = 512, O_ALLOW_HOST, O_MAX_CONN, O_IDLE_TIMEOUT, O_RATE_LIMIT,
       O_HEADER_TIMEOUT, O_MIN_BODY_RATE, O_BODY_WINDOW, O_PER_CLIENT };

static const char **push(const char **list, size_t *n, const char *s)
{
    list = nd_xrealloc(list, (*n + 1) * sizeof *list);
    list[(*n)++] = s;
    return list;
}

/* An origin as browsers send it: scheme://host[:port], nothing after; or * or null. */
static bool origin_ok(const char *s)
{
    if (strcmp(s, "*") == 0 || strcmp(s, "null") == 0)
        return true;
    const char *rest = strncmp(s, "http://", 7) == 0    ? s + 7
                       : strncmp(s, "https://", 8) == 0 ? s + 8
                                                        : NULL;
    return rest && *rest && !strpbrk(rest, "/?#@ ");
}

/* A duration flag: 0 (when zero_ok), or from min_ms to 24h; whole milliseconds. */
static int duration_flag(const char *flag, const char *arg, int64_t min_ms, bool zero_ok,
                         unsigned *out_ms)
{
    int64_t ms = 0;
    struct nd_status st = ND_STATUS_INIT;
    int rc = zero_ok && strcmp(arg, "0") == 0 ? 0 : nd_duration_parse(arg, &ms, &st);
    nd_status_release(&st);
    if (rc < 0 || ms > 24LL * 3600 * 1000 || ms < (zero_ok ? 0 : min_ms) ||
        (ms > 0 && ms < min_ms)) {
        fprintf(stderr, "nodus-emulator: %s wants a duration from %llds to 24h%s, got %s\n",
                flag, (long long)(min_ms / 1000), zero_ok ? " (or 0 for none)" : "", arg);
        return -1;
    }
    *out_ms = (unsigned)ms;
    return 0;
}

/* The slow-client flags (guard.h). */
static int slow_flag(struct em_frontdoor_opts *f, int c, const char *arg)
{
    char *end;
    errno = 0;
    switch (c) {
    case O_HEADER_TIMEOUT:
        return duration_flag("--header-timeout", arg, 1000, true, &f->header_timeout_ms);
    case O_BODY_WINDOW:
        return duration_flag("--body-rate-window", arg, 1000, false, &f->body_window_ms);
    case O_MIN_BODY_RATE: {
        struct nd_quantity q;
        struct nd_status st = ND_STATUS_INIT;
        int64_t v = -1;
        if (strcmp(arg, "0") == 0)
            v = 0;
        else if (nd_quantity_parse(arg, &q, &st) < 0 || nd_quantity_bytes(&q, &v) < 0)
            v = -1;
        nd_status_release(&st);
        if (v < 0 || v > (1LL << 30)) {
            fprintf(stderr, "nodus-emulator: --min-body-rate wants bytes a second from 0 (none) "
                            "to 1Gi, such as 1Ki, got %s\n", arg);
            return -1;
        }
        f->min_body_rate = (uint64_t)v;
        return 0;
    }
    default: {
        long n = strtol(arg, &end, 10);
        if (errno || *end || end == arg || n < 0 || n > EM_MAX_MAX_CONNECTIONS) {
            fprintf(stderr, "nodus-emulator: --max-connections-per-client wants a number from "
                            "0 (no cap) to %d, got %s\n", EM_MAX_MAX_CONNECTIONS, arg);
            return -1;
        }
        f->per_client = (unsigned)n;
        f->per_client_set = true;
        return 0;
    }
    }
}

static int front_flag(struct em_frontdoor_opts *f, int c, const char *arg)
{
    char *end;
    errno = 0;
    switch (c) {
    case O_ALLOW_ORIGIN:
        if (!origin_ok(arg)) {
            fprintf(stderr, "nodus-emulator: --allow-origin wants an origin such as "
                            "http://localhost:3000 (scheme://host:port, no path), or *, got %s\n",
                    arg);
            return -1;
        }
        f->allow_origins = push(f->allow_origins, &f->n_allow_origins, arg);
        return 0;
    case O_ALLOW_HOST:
        if (!*arg || strpbrk(arg, "/?#@ ")) {
            fprintf(stderr, "nodus-emulator: --allow-host wants a host name such as "
                            "emulator.test, got %s\n", arg);
            return -1;
        }
        f->allow_hosts = push(f->allow_hosts, &f->n_allow_hosts, arg);
        return 0;
    case O_MAX_CONN: {
        long n = strtol(arg, &end, 10);
        if (errno || *end || end == arg || n < 1 || n > EM_MAX_MAX_CONNECTIONS) {
            fprintf(stderr, "nodus-emulator: --max-connections wants a number from 1 to %d, "
                            "got %s\n", EM_MAX_MAX_CONNECTIONS, arg);
            return -1;
        }
        f->max_connections = (unsigned)n;
        return 0;
    }
    case O_IDLE_TIMEOUT: {
        int64_t ms = 0;
        struct nd_status st = ND_STATUS_INIT;
        int rc = strcmp(arg, "0") == 0 ? 0 : nd_duration_parse(arg, &ms, &st);
        nd_status_release(&st);
        if (rc < 0 || ms < 0 || ms > 24LL * 3600 * 1000 || (ms > 0 && ms < 1000)) {
            fprintf(stderr, "nodus-emulator: --idle-timeout wants a duration from 1s to 24h "
                            "(or 0 for none), got %s\n", arg);
            return -1;
        }
        f->idle_timeout_s = (unsigned)((ms + 999) / 1000);
        return 0;
    }
    default: {
        long n = strtol(arg, &end, 10);
        if (errno || *end || end == arg || n < 0 || n > 1000000) {
            fprintf(stderr, "nodus-emulator: --rate-limit wants requests a second from 0 (off) "
                            "to 1000000, got %s\n", arg);
            return -1;
        }
        f->rate_limit = (double)n;
        f->rate_limit_set = true;
        return 0;
    }
    }
}

enum { O_STATE = 256, O_LISTEN, O_PORT_FILE, O_TOKEN_FILE, O_SPEED, O_RUNTIME, O_FSYNC,
       O_SEED, O_RESET, O_LOG_FORMAT, O_QUIET, O_VERSION, O_NO_SIM, O_NO_CONSOLE,
       O_EXEC_KEEPALIVE, O_TLS_CERT, O_TLS_KEY, O_MAX_UPLOAD, O_EXEC_ISOLATION };
static const struct option longopts[] = {
    {"state", required_argument, NULL, O_STATE},
    {"listen", required_argument, NULL, O_LISTEN},
    {"port-file", required_argument, NULL, O_PORT_FILE},
    {"token-file", required_argument, NULL, O_TOKEN_FILE},
    {"tls-cert", required_argument, NULL, O_TLS_CERT},
    {"tls-key", required_argument, NULL, O_TLS_KEY},
    {"speed", required_argument, NULL, O_SPEED},
    {"runtime", required_argument, NULL, O_RUNTIME},
    {"fsync", required_argument, NULL, O_FSYNC},
    {"seed", required_argument, NULL, O_SEED},
    {"reset", no_argument, NULL, O_RESET},
    {"log-format", required_argument, NULL, O_LOG_FORMAT},
    {"quiet", no_argument, NULL, O_QUIET},
    {"no-simulation", no_argument, NULL, O_NO_SIM},
    {"no-console", no_argument, NULL, O_NO_CONSOLE},
    {"allow-origin", required_argument, NULL, O_ALLOW_ORIGIN},
    {"allow-host", required_argument, NULL, O_ALLOW_HOST},
    {"max-connections", required_argument, NULL, O_MAX_CONN},
    {"idle-timeout", required_argument, NULL, O_IDLE_TIMEOUT},
    {"rate-limit", required_argument, NULL, O_RATE_LIMIT},
    {"header-timeout", required_argument, NULL, O_HEADER_TIMEOUT},
    {"min-body-rate", required_argument, NULL, O_MIN_BODY_RATE},
    {"body-rate-window", required_argument, NULL, O_BODY_WINDOW},
    {"max-connections-per-client", required_argument, NULL, O_PER_CLIENT},
    {"exec-keepalive", required_argument, NULL, O_EXEC_KEEPALIVE},
    {"max-upload-bytes", required_argument, NULL, O_MAX_UPLOAD},
    {"exec-isolation", required_argument, NULL, O_EXEC_ISOLATION},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, O_VERSION},
    {NULL, 0, NULL, 0},
};

static void set_defaults(struct em_options *opt)
{
    opt->listen_addr = "127.0.0.1";
    opt->port = 8443;
    opt->speed = 1.0;
    opt->runtime = "simulate";
    opt->fsync_mode = EM_FSYNC_ALWAYS;
    opt->front.max_connections = EM_DEFAULT_MAX_CONNECTIONS;
    opt->front.idle_timeout_s = EM_DEFAULT_IDLE_TIMEOUT_S;
    opt->front.header_timeout_ms = EM_DEFAULT_HEADER_TIMEOUT_MS;
    opt->front.min_body_rate = EM_DEFAULT_MIN_BODY_RATE;
    opt->front.body_window_ms = EM_DEFAULT_BODY_WINDOW_MS;
    opt->exec_keepalive_s = 30;
    opt->exec_isolation = "bwrap";
    opt->max_upload_bytes = EM_DEFAULT_MAX_UPLOAD;
}

/* How the server runs: --speed, --runtime, --fsync, --log-format. */
static int run_flag(struct em_options *opt, int c, const char *arg)
{
    switch (c) {
    case O_SPEED: {
        char *end;
        opt->speed = strtod(arg, &end);
        if (*end || end == arg || !(opt->speed >= 0) || opt->speed > 1e6) {
            fprintf(stderr,
                    "nodus-emulator: --speed wants a number from 0 (a clock that moves only "
                    "when advanced) to 1000000, got %s\n",
                    arg);
            return -1;
        }
        return 0;
    }
    case O_RUNTIME:
        if (strcmp(arg, "simulate") != 0 && strcmp(arg, "local") != 0) {
            fprintf(stderr, "nodus-emulator: --runtime is simulate or local, got %s\n", arg);
            return -1;
        }
        opt->runtime = arg;
        return 0;
    case O_FSYNC:
        if (strcmp(arg, "always") == 0)
            opt->fsync_mode = EM_FSYNC_ALWAYS;
        else if (strcmp(arg, "batch") == 0)
            opt->fsync_mode = EM_FSYNC_BATCH;
        else if (strcmp(arg, "never") == 0)
            opt->fsync_mode = EM_FSYNC_NEVER;
        else {
            fprintf(stderr, "nodus-emulator: --fsync is always, batch or never, got %s\n", arg);
            return -1;
        }
        return 0;
    default: /* O_LOG_FORMAT */
        if (strcmp(arg, "text") != 0 && strcmp(arg, "json") != 0) {
            fprintf(stderr, "nodus-emulator: --log-format is text or json, got %s\n", arg);
            return -1;
        }
        opt->log_json = strcmp(arg, "json") == 0;
        return 0;
    }
}

/* What commands and uploads may do: --exec-keepalive, --exec-isolation,
 * --max-upload-bytes. */
static int exec_flag(struct em_options *opt, int c, const char *arg)
{
    switch (c) {
    case O_EXEC_KEEPALIVE: {
        char *end;
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (errno || *end || end == arg || v < 1 || v > 3600) {
            fprintf(stderr,
                    "nodus-emulator: --exec-keepalive wants whole seconds from 1 to 3600, "
                    "got %s\n",
                    arg);
            return -1;
        }
        opt->exec_keepalive_s = (unsigned)v;
        return 0;
    }
    case O_EXEC_ISOLATION:
        if (strcmp(arg, "bwrap") != 0 && strcmp(arg, "none") != 0) {
            fprintf(stderr,
                    "nodus-emulator: --exec-isolation is bwrap (commands see only the "
                    "object's files) or none (commands run on the host), got %s\n",
                    arg);
            return -1;
        }
        opt->exec_isolation = arg;
        return 0;
    default: { /* O_MAX_UPLOAD */
        struct nd_quantity q;
        struct nd_status st = ND_STATUS_INIT;
        int64_t v = -1;
        if (nd_quantity_parse(arg, &q, &st) < 0 || nd_quantity_bytes(&q, &v) < 0 || v < 1) {
            fprintf(stderr,
                    "nodus-emulator: --max-upload-bytes wants a size of at least 1 byte, "
                    "such as 10Gi or 500Mi, got %s\n",
                    arg);
            nd_status_release(&st);
            return -1;
        }
        nd_status_release(&st);
        opt->max_upload_bytes = (uint64_t)v;
        return 0;
    }
    }
}

/* One flag getopt_long returned: 0, 1 when the program should exit 0 (--help,
 * --version), -1 after a message on stderr. */
static int one_flag(struct em_options *opt, int c, const char *arg, char **argv)
{
    switch (c) {
    case O_STATE: opt->state_dir = arg; return 0;
    case O_LISTEN: return parse_listen(opt, arg);
    case O_PORT_FILE: opt->port_file = arg; return 0;
    case O_TOKEN_FILE: opt->token_file = arg; return 0;
    case O_TLS_CERT: opt->tls_cert = arg; return 0;
    case O_TLS_KEY: opt->tls_key = arg; return 0;
    case O_SEED: opt->seed_dir = arg; return 0;
    case O_NO_SIM: opt->no_simulation = true; return 0;
    case O_NO_CONSOLE: opt->no_console = true; return 0;
    case O_RESET: opt->reset = true; return 0;
    case O_QUIET: opt->quiet = true; return 0;
    case O_SPEED:
    case O_RUNTIME:
    case O_FSYNC:
    case O_LOG_FORMAT: return run_flag(opt, c, arg);
    case O_EXEC_KEEPALIVE:
    case O_EXEC_ISOLATION:
    case O_MAX_UPLOAD: return exec_flag(opt, c, arg);
    case O_ALLOW_ORIGIN:
    case O_ALLOW_HOST:
    case O_MAX_CONN:
    case O_IDLE_TIMEOUT:
    case O_RATE_LIMIT: return front_flag(&opt->front, c, arg);
    case O_HEADER_TIMEOUT:
    case O_MIN_BODY_RATE:
    case O_BODY_WINDOW:
    case O_PER_CLIENT: return slow_flag(&opt->front, c, arg);
    case 'h': fputs(usage, stdout); return 1;
    case O_VERSION: printf("nodus-emulator %s\n", ND_VERSION); return 1;
    case ':':
        fprintf(stderr, "nodus-emulator: %s needs a value\n", argv[optind - 1]);
        return -1;
    default:
        fprintf(stderr, "nodus-emulator: unknown flag %s\nRun 'nodus-emulator --help'.\n",
                argv[optind - 1]);
        return -1;
    }
}

/* What the flags mean together: the state directory's default, the limits a loopback
 * address lifts, a token file and TLS off loopback, the certificate with its key. */
static int settle_options(struct em_options *opt)
{
    if (!opt->state_dir) {
        const char *env = getenv("NODUS_EMULATOR_STATE");
        const char *home = getenv("HOME");
        if (env && *env)
            opt->state_dir = env;
        else
            opt->state_dir = opt->owned[1] =
                nd_xasprintf("%s/.nodus/emulator", home && *home ? home : ".");
    }
    bool loopback = strncmp(opt->listen_addr, "127.", 4) == 0;
    if (!opt->front.rate_limit_set)
        opt->front.rate_limit = loopback ? 0 : EM_DEFAULT_RATE_LIMIT;
    if (!opt->front.per_client_set) {
        unsigned cap = opt->front.max_connections / EM_DEFAULT_PER_CLIENT_DIVISOR;
        opt->front.per_client = loopback ? 0 : cap ? cap : 1;
    }
    if (!loopback && !opt->token_file) {
        fprintf(stderr, "nodus-emulator: listening on %s (not loopback) needs --token-file\n",
                opt->listen_addr);
        return -1;
    }
    if (!opt->tls_cert != !opt->tls_key) {
        fprintf(stderr, "nodus-emulator: %s needs %s too (the certificate and its key)\n",
                opt->tls_cert ? "--tls-cert" : "--tls-key",
                opt->tls_cert ? "--tls-key" : "--tls-cert");
        return -1;
    }
    if (!loopback && !opt->tls_cert)
        fprintf(stderr,
                "nodus-emulator: warning: listening on %s without TLS: bearer tokens and "
                "everything else cross the network in clear; add --tls-cert and --tls-key\n",
                opt->listen_addr);
    return 0;
}

int em_options_parse(struct em_options *opt, int argc, char **argv)
{
    set_defaults(opt);
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc = one_flag(opt, c, optarg, argv);
        if (rc != 0)
            return rc;
    }
    if (optind < argc) {
        fprintf(stderr, "nodus-emulator: unexpected argument %s\nRun 'nodus-emulator --help'.\n",
                argv[optind]);
        return -1;
    }
    return settle_options(opt);
}

void em_options_release(struct em_options *opt)
{
    free(opt->owned[0]);
    free(opt->owned[1]);
    opt->owned[0] = opt->owned[1] = NULL;
    free(opt->front.allow_origins);
    free(opt->front.allow_hosts);
    opt->front.allow_origins = opt->front.allow_hosts = NULL;
    opt->front.n_allow_origins = opt->front.n_allow_hosts = 0;
}
