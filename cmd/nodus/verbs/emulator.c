/* emulator start|stop|status|reset|logs|clock|env: run and drive a local nodus-emulator.
 *
 * `start` runs nodus-emulator in the background on a free loopback port with its state
 * in --state (without it: the emulator of --context, else of $NODUS_EMULATOR_STATE,
 * else of the current context, else ~/.nodus/emulator; see find_emulator), waits until
 * it is ready, and writes a context for it into the CLI's configuration, recording the
 * state directory with its cluster, and makes it current: "emulator" for the default
 * directory, "emulator-NAME" for another (emulator_ctx.h; a context that reaches another
 * running emulator is never pointed elsewhere). The other subcommands act on the
 * emulator of the current context (or --context; --state names a directory instead),
 * found through two files in its state directory: emulator.pid and emulator.port (its
 * request log goes to emulator.log). Flags after `--` go to nodus-emulator as they are
 * (`nodus emulator start -- --no-simulation --fsync never`), but those start sets
 * itself (--state: use ours, --listen, --port-file) and TLS (the context it writes is
 * http://).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "config/config.h"
#include "emulator_ctx.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct emulator_opts {
    const char *state;
    const char *speed;
    const char *seed;
    bool reset;
    const char *max_upload_bytes;
    const char *runtime;
};

#define TO(f) ND_TO(struct emulator_opts, f)
const struct nd_flag cmd_emulator_flags[] = {
    {"state", 0, ND_STRING, "DIR",
     "the emulator's state directory (start; the others: instead of the context's)", "dirs",
     TO(state)},
    {"speed", 0, ND_STRING, "X", "start: run its clock X times faster than real time (0: stopped)",
     NULL, TO(speed)},
    {"seed", 0, ND_STRING, "DIR", "start: fill an empty state from DIR", "dirs", TO(seed)},
    {"reset", 0, ND_BOOL, NULL, "start: empty the state directory first", NULL, TO(reset)},
    {"max-upload-bytes", 0, ND_STRING, "SIZE",
     "start: the largest upload to files (nodus cp; default 10Gi)", NULL, TO(max_upload_bytes)},
    {"runtime", 0, ND_STRING, "MODE", "start: simulate (default) or local", "=simulate local",
     TO(runtime)},
    ND_FLAGS_END(struct emulator_opts),
};

/* The emulator a subcommand acts on: --state's directory; else the one --context's
 * context records; else, for start, $NODUS_EMULATOR_STATE's; else the one the current
 * context records; else (a context nodus did not write, or none) $NODUS_EMULATOR_STATE
 * or ~/.nodus/emulator. -1 with st when --context names a context that does not exist
 * or records no emulator. */
static int find_emulator(struct nd_ctx *ctx, const struct nd_opts *o,
                         const struct emulator_opts *opt, struct nd_emu *e, struct nd_status *st)
{
    const char *flag = opt->state;
    if (flag && *flag) {
        e->dir = nd_emu_absolute(flag);
        return 0;
    }
    struct nd_config *cfg = nd_ctx_config(ctx, st);
    if (!cfg)
        return -1;
    const char *name = ctx->context && *ctx->context ? ctx->context : NULL;
    if (name && !nd_config_get(cfg, "contexts", name))
        return nd_status_set(st, "Usage", "list the contexts: nodus config get-contexts",
                             "context \"%s\" does not exist", name);
    const char *env = getenv("NODUS_EMULATOR_STATE");
    bool start = o->npos && !strcmp(o->pos[0], "start");
    const char *rec = nd_config_context_emulator(cfg, name ? name : nd_config_current_context(cfg));
    if (rec && !(start && !name && env && *env)) {
        e->dir = nd_xstrdup(rec);
        return 0;
    }
    if (name) {
        char *fix = nd_xasprintf("name its state directory instead: nodus emulator %s --state "
                                 "DIR; or give a context nodus emulator start wrote (nodus config "
                                 "get-contexts)",
                                 o->npos ? o->pos[0] : "status");
        nd_status_set(st, "Usage", fix,
                      "context \"%s\" records no emulator: nodus emulator start did not write it",
                      name);
        free(fix);
        return -1;
    }
    e->dir = nd_emu_env_dir();
    return 0;
}

/* No emulator runs on e->dir: what is true instead (another context's runs, or how to
 * start this one). */
static int not_running(struct nd_ctx *ctx, const struct nd_emu *e)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_status ignore = ND_STATUS_INIT;
    struct nd_config *cfg = nd_ctx_config(ctx, &ignore);
    const char *other_dir = NULL;
    const char *other = cfg ? nd_emu_live_context(cfg, NULL, &other_dir) : NULL;
    char *fix, *start = nd_emu_start_command(cfg, e->dir);
    if (other && !nd_emu_same_dir(other_dir, e->dir))
        fix = nd_xasprintf("the context \"%s\" reaches a running emulator (state %s): nodus "
                           "config use-context %s (or add --context %s); to start this one "
                           "instead: %s",
                           other, other_dir, other, other, start);
    else
        fix = nd_xasprintf("start it: %s", start);
    free(start);
    nd_status_set(&st, "Unreachable", fix, "no emulator is running on %s", e->dir);
    free(fix);
    int rc = nd_cli_error(ctx, &st);
    nd_status_release(&st);
    nd_status_release(&ignore);
    return rc;
}

static char *file_in(const struct nd_emu *e, const char *name)
{
    return nd_xasprintf("%s/%s", e->dir, name);
}

/* nodus-emulator beside this executable, else the one on PATH. NEW. */
static char *emulator_binary(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            char *p = nd_xasprintf("%s/nodus-emulator", self);
            if (access(p, X_OK) == 0)
                return p;
            free(p);
        }
    }
    return nd_xstrdup("nodus-emulator");
}

static int mkdir_p(const char *path)
{
    char *p = nd_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0700) < 0 && errno != EEXIST) {
                free(p);
                return -1;
            }
            *s = '/';
        }
    }
    int rc = mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* The context name (cluster and user of that name) for url, recording dir, made current. */
static int write_context(struct nd_ctx *ctx, const char *name, const struct nd_emu *e,
                         struct nd_status *st)
{
    struct nd_config *cfg = nd_ctx_config(ctx, st);
    if (!cfg)
        return -1;
    if (nd_config_set_cluster(cfg, name, e->url, NULL, -1, st) < 0 ||
        nd_config_set_cluster_emulator(cfg, name, e->dir, st) < 0 ||
        nd_config_set_credentials(cfg, name, NULL, NULL, NULL, NULL, st) < 0 ||
        nd_config_set_context(cfg, name, name, name, NULL, st) < 0 ||
        nd_config_use_context(cfg, name, st) < 0)
        return -1;
    return nd_config_save(cfg, st);
}

/* After start made name current: the context current until then, when it reaches
 * another emulator that runs, still does; say how to go back to it. */
static void say_previous(const char *prev, const char *name, struct nd_ctx *ctx)
{
    struct nd_status ignore = ND_STATUS_INIT;
    struct nd_config *cfg = nd_ctx_config(ctx, &ignore);
    nd_status_release(&ignore);
    if (!prev || !cfg || !strcmp(prev, name))
        return;
    const char *dir = nd_config_context_emulator(cfg, prev);
    struct nd_emu other = {.dir = dir ? nd_xstrdup(dir) : NULL};
    if (dir && nd_emu_running(&other))
        printf("the context \"%s\" still reaches the emulator of %s (nodus config use-context "
               "%s)\n",
               prev, dir, prev);
    nd_emu_release(&other);
}

/* NODUS_SERVER and NODUS_TOKEN win over the context just made current: say so (#11). */
static void warn_env_overrides(const char *url, const char *name)
{
    const char *server = getenv("NODUS_SERVER"), *token = getenv("NODUS_TOKEN");
    if (server && *server && strcmp(server, url))
        fprintf(stderr,
                "warning: NODUS_SERVER=%s overrides the context \"%s\" for every command; "
                "unset NODUS_SERVER to use it\n",
                server, name);
    if (token && *token)
        fprintf(stderr,
                "warning: NODUS_TOKEN overrides the credentials of the context \"%s\"; "
                "unset NODUS_TOKEN to use them\n",
                name);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The first line (at most 512 bytes) of a file past byte off: what the emulator said
 * when it exited at start. NEW; NULL when none. */
static char *first_line_from(const char *path, long off)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char buf[512], *line = NULL;
    if (fseek(f, off, SEEK_SET) == 0)
        while (!line && fgets(buf, sizeof buf, f)) {
            size_t n = strcspn(buf, "\n");
            buf[n] = '\0';
            if (n)
                line = nd_xstrdup(buf);
        }
    fclose(f);
    return line;
}

/* Flags after "--" that start sets itself: -1 (usage printed) for one of them. */
static int check_passthrough(struct nd_ctx *ctx, const struct nd_opts *o, int *rc)
{
    static const char *const own[] = {"--state", "--listen", "--port-file", "--tls-cert",
                                      "--tls-key"};
    for (int i = 0; i < o->ndash; i++)
        for (size_t j = 0; j < sizeof own / sizeof own[0]; j++) {
            size_t l = strlen(own[j]);
            if (strncmp(o->dash[i], own[j], l) == 0 &&
                (o->dash[i][l] == '\0' || o->dash[i][l] == '=')) {
                *rc = nd_cli_usage(ctx,
                                   "%s cannot be passed to the emulator: nodus emulator start "
                                   "sets it%s",
                                   own[j], j == 0 ? " (use nodus emulator start --state DIR)"
                                           : j >= 3 ? " (the context it writes is http://; run "
                                                      "nodus-emulator yourself for TLS)"
                                                    : "");
                return -1;
            }
        }
    return 0;
}

/* After start: where the console is, unless it was turned off (-- --no-console). */
static void say_console(const struct nd_opts *o, const struct nd_emu *e)
{
    for (int i = 0; i < o->ndash; i++)
        if (strcmp(o->dash[i], "--no-console") == 0)
            return;
    printf("console: %s/ (open it in a browser)\n", e->url);
    fflush(stdout);
}

/* After start: name is the current context; the one current until then may still reach
 * its emulator, and the environment may override name. */
static void announce(struct nd_ctx *ctx, const struct nd_emu *e, const char *name, const char *prev)
{
    printf("context \"%s\" is current\n", name);
    say_previous(prev, name, ctx);
    fflush(stdout);
    warn_env_overrides(e->url, name);
}

/* start when e runs already: point the context at it; the flags cannot apply. */
static int start_running(struct nd_ctx *ctx, const struct nd_opts *o,
                         const struct emulator_opts *opt, struct nd_emu *e, const char *name,
                         const char *prev)
{
    struct nd_status st = ND_STATUS_INIT;
    if (write_context(ctx, name, e, &st) < 0) {
        int rc = nd_cli_error(ctx, &st);
        nd_status_release(&st);
        return rc;
    }
    printf("emulator already running: %s (pid %ld, state %s)\n", e->url, (long)e->pid, e->dir);
    if (o->ndash || opt->max_upload_bytes || opt->runtime || opt->speed || opt->seed ||
        opt->reset)
        fprintf(stderr, "warning: the flags were not applied: the emulator runs already "
                        "(nodus emulator stop, then start it again)\n");
    announce(ctx, e, name, prev);
    return 0;
}

/* The files of a starting emulator, in its state directory, and its binary. */
struct start_files {
    char *port, *log, *pid, *bin;
};

/* nodus-emulator's command line: our state, listen and port file, the flags start passes
 * on, then those after "--". */
static const char **emulator_argv(const struct nd_opts *o, const struct emulator_opts *opt,
                                  const struct nd_emu *e, const struct start_files *f)
{
    const char **argv = nd_xmalloc(((size_t)o->ndash + 20) * sizeof *argv);
    int n = 0;
    argv[n++] = f->bin;
    argv[n++] = "--state";
    argv[n++] = e->dir;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--port-file";
    argv[n++] = f->port;
    const struct {
        const char *flag, *value;
    } pairs[] = {{"--speed", opt->speed},
                 {"--seed", opt->seed},
                 {"--max-upload-bytes", opt->max_upload_bytes},
                 {"--runtime", opt->runtime}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (pairs[i].value) {
            argv[n++] = pairs[i].flag;
            argv[n++] = pairs[i].value;
        }
    }
    if (opt->reset)
        argv[n++] = "--reset";
    for (int i = 0; i < o->ndash; i++)
        argv[n++] = o->dash[i];
    argv[n] = NULL;
    return argv;
}

/* Runs argv as a daemon (its own session, stdin /dev/null, output to the log file);
 * its pid, or -1. */
static pid_t spawn(const struct start_files *f, const char **argv)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setsid();
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int log = open(f->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null >= 0)
        dup2(null, 0);
    if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
    }
    for (int fd = 3; fd < 1024; fd++) /* nothing of ours stays open in the daemon */
        close(fd);
    execvp(f->bin, (char *const *)argv);
    fprintf(stderr, "nodus: cannot run %s: %s\n", f->bin, strerror(errno));
    _exit(127);
}

/* The port pid listens on once it has written its port file, or -1 with st when it
 * exited first (what it logged past log_off) or took over 15 seconds. */
static long wait_ready(pid_t pid, const struct start_files *f, long log_off, struct nd_status *st)
{
    /* ready when it has written its port file; gone when it exited */
    for (int i = 0; i < 300 && nd_emu_read_number(f->port) <= 0; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            char *why = first_line_from(f->log, log_off);
            nd_status_set(st, "Usage", "see its log: nodus emulator logs",
                          "the emulator exited at start (status %d)%s%s; its log is %s",
                          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                          why ? ": " : "", why ? why : "", f->log);
            free(why);
            return -1;
        }
        sleep_ms(50);
    }
    long port = nd_emu_read_number(f->port);
    if (port <= 0) {
        kill(pid, SIGTERM);
        return nd_status_set(st, "Timeout", "see its log: nodus emulator logs",
                             "the emulator did not become ready within 15 seconds");
    }
    return port;
}

/* Starts nodus-emulator on e->dir, waits until it is ready and records its pid; e gets
 * its pid and url. */
static int launch(const struct nd_opts *o, const struct emulator_opts *opt, struct nd_emu *e,
                  struct nd_status *st)
{
    if (mkdir_p(e->dir) < 0)
        return nd_status_set(st, "Usage", NULL, "cannot create %s: %s", e->dir, strerror(errno));
    struct start_files f = {file_in(e, "emulator.port"), file_in(e, "emulator.log"),
                            file_in(e, "emulator.pid"), emulator_binary()};
    unlink(f.port);
    const char **argv = emulator_argv(o, opt, e, &f);
    struct stat lsb;
    long log_off = stat(f.log, &lsb) == 0 ? (long)lsb.st_size : 0;
    pid_t pid = spawn(&f, argv);
    long port = -1;
    if (pid < 0)
        nd_status_set(st, "InternalError", NULL, "cannot start the emulator: %s", strerror(errno));
    else
        port = wait_ready(pid, &f, log_off, st);
    if (port > 0) {
        FILE *pf = fopen(f.pid, "we");
        if (pf) {
            fprintf(pf, "%ld\n", (long)pid);
            fclose(pf);
        }
        e->pid = pid;
        e->url = nd_xasprintf("http://127.0.0.1:%ld", port);
    }
    free(argv);
    free(f.port);
    free(f.log);
    free(f.pid);
    free(f.bin);
    return port > 0 ? 0 : -1;
}

static int start(struct nd_ctx *ctx, const struct nd_opts *o, const struct emulator_opts *opt,
                 struct nd_emu *e)
{
    int urc = 0;
    if (check_passthrough(ctx, o, &urc) < 0)
        return urc;
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0;
    char *name = NULL, *prev = NULL;
    struct nd_config *cfg = nd_ctx_config(ctx, &st);
    if (!cfg || !(name = nd_emu_context_for(cfg, e->dir, &st))) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (nd_config_current_context(cfg))
        prev = nd_xstrdup(nd_config_current_context(cfg));
    if (nd_emu_running(e)) {
        rc = start_running(ctx, o, opt, e, name, prev);
        goto out;
    }
    if (launch(o, opt, e, &st) < 0 || write_context(ctx, name, e, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    printf("emulator started: %s (pid %ld, state %s)\n", e->url, (long)e->pid, e->dir);
    announce(ctx, e, name, prev);
    say_console(o, e);
out:
    free(name);
    free(prev);
    nd_status_release(&st);
    return rc;
}

/* After stop: the contexts that point at the stopped emulator stay, reaching nothing
 * until it starts again; say so, with the command that starts it. */
static void say_stopped_contexts(struct nd_ctx *ctx, const struct nd_emu *e)
{
    struct nd_status ignore = ND_STATUS_INIT;
    struct nd_config *cfg = nd_ctx_config(ctx, &ignore);
    nd_status_release(&ignore);
    if (!cfg)
        return;
    struct nd_buf names = ND_BUF_INIT;
    int n = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(cfg->doc, "contexts"), i, c)
    {
        const char *cn = json_string_value(json_object_get(c, "name"));
        const char *rec = cn ? nd_config_context_emulator(cfg, cn) : NULL;
        if (rec && nd_emu_same_dir(rec, e->dir))
            nd_buf_addf(&names, "%s\"%s\"", n++ ? ", " : "", cn);
    }
    if (n) {
        char *again = nd_emu_start_command(cfg, e->dir);
        printf("the context%s %s reach%s no emulator now; start it again: %s\n", n > 1 ? "s" : "",
               names.data, n > 1 ? "" : "es", again);
        free(again);
    }
    nd_buf_release(&names);
}

static int stop(struct nd_ctx *ctx, struct nd_emu *e)
{
    if (!nd_emu_running(e)) {
        printf("emulator is not running (state %s)\n", e->dir);
        return 0;
    }
    kill(e->pid, SIGTERM);
    for (int i = 0; i < 200 && kill(e->pid, 0) == 0; i++) {
        waitpid(e->pid, NULL, WNOHANG); /* our own child when started by this process */
        sleep_ms(50);
    }
    if (kill(e->pid, 0) == 0)
        kill(e->pid, SIGKILL);
    char *pidf = file_in(e, "emulator.pid"), *portf = file_in(e, "emulator.port");
    unlink(pidf);
    unlink(portf);
    free(pidf);
    free(portf);
    printf("emulator stopped (pid %ld)\n", (long)e->pid);
    say_stopped_contexts(ctx, e);
    return 0;
}

/* One JSON call to the running emulator. */
static int call(struct nd_ctx *ctx, const struct nd_emu *e, const char *method, const char *path,
                const json_t *body, json_t **out)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&(struct nd_client_opts){.server = e->url,
                                                                 .timeout_ms = 60000},
                                        &st);
    int rc = 0;
    if (!c || nd_client_json(c, method, path, body, out, &st) < 0)
        rc = nd_cli_error(ctx, &st);
    nd_client_free(c);
    nd_status_release(&st);
    return rc;
}

static void print_clock(const json_t *clock)
{
    printf("%s (speed %g)\n", json_string_value(json_object_get(clock, "now")),
           json_number_value(json_object_get(clock, "speed")));
}

static int clock_cmd(struct nd_ctx *ctx, const struct nd_opts *o, struct nd_emu *e)
{
    json_t *body = NULL, *out = NULL;
    const char *method = "GET";
    if (o->npos >= 2) {
        const char *what = o->pos[1];
        if (o->npos != 3 || (strcmp(what, "advance") && strcmp(what, "speed")))
            return nd_cli_usage(ctx, "nodus emulator clock [advance DURATION | speed X]");
        method = "POST";
        if (!strcmp(what, "advance")) {
            body = json_pack("{ss}", "advance", o->pos[2]);
        } else {
            char *end;
            double x = strtod(o->pos[2], &end);
            if (*end || end == o->pos[2])
                return nd_cli_usage(ctx, "speed: want a number, got %s", o->pos[2]);
            body = json_pack("{sf}", "speed", x);
        }
    }
    int rc = call(ctx, e, method, "/emulator/v1/clock", body, &out);
    if (rc == 0)
        print_clock(out);
    json_decref(body);
    json_decref(out);
    return rc;
}

static int status(struct nd_ctx *ctx, struct nd_emu *e)
{
    json_t *clock = NULL, *stats = NULL;
    int rc = call(ctx, e, "GET", "/emulator/v1/clock", NULL, &clock);
    if (rc == 0)
        rc = call(ctx, e, "GET", "/emulator/v1/stats", NULL, &stats);
    if (rc == 0) {
        printf("running: %s (pid %ld, state %s)\n", e->url, (long)e->pid, e->dir);
        printf("clock:   ");
        print_clock(clock);
        long long objects = 0;
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(stats, "objects"), k, v) objects +=
            json_integer_value(v);
        printf("objects: %lld\n", objects);
    }
    json_decref(clock);
    json_decref(stats);
    return rc;
}

static int logs(struct nd_emu *e)
{
    char *logf = file_in(e, "emulator.log");
    FILE *f = fopen(logf, "re");
    free(logf);
    if (!f)
        return 0;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}

int cmd_emulator(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct emulator_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        int rc = nd_cli_error(ctx, &st);
        nd_status_release(&st);
        return rc;
    }
    struct nd_emu e = {0};
    const char *sub = o.npos ? o.pos[0] : "";
    int rc;
    static const char *const subs[] = {"start", "stop", "status", "reset", "logs", "env", "clock"};
    bool known = false;
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        known = known || !strcmp(sub, subs[i]);
    if (!known) {
        rc = nd_cli_usage(ctx, "nodus emulator start|stop|status|reset|logs|env|clock");
    } else if (o.npos != 1 && strcmp(sub, "clock")) {
        rc = nd_cli_usage(ctx, "nodus emulator %s takes no arguments", sub);
    } else if (find_emulator(ctx, &o, &opt, &e, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
    } else if (!strcmp(sub, "start")) {
        rc = start(ctx, &o, &opt, &e);
    } else if (!strcmp(sub, "stop")) {
        rc = stop(ctx, &e);
    } else if (!strcmp(sub, "logs")) {
        rc = logs(&e);
    } else if (!nd_emu_running(&e)) {
        if (!strcmp(sub, "status"))
            printf("not running (state %s)\n", e.dir);
        rc = !strcmp(sub, "status") ? 1 : not_running(ctx, &e);
    } else if (!strcmp(sub, "status")) {
        rc = status(ctx, &e);
    } else if (!strcmp(sub, "reset")) {
        /* a JSON body, {}: the control endpoints take nothing else (415) */
        json_t *empty = json_object();
        rc = call(ctx, &e, "POST", "/emulator/v1/reset", empty, NULL);
        json_decref(empty);
        if (rc == 0)
            printf("emulator reset: objects, history and keys emptied\n");
    } else if (!strcmp(sub, "env")) {
        printf("export NODUS_SERVER=%s\n", e.url);
        rc = 0;
    } else {
        rc = clock_cmd(ctx, &o, &e);
    }
    nd_emu_release(&e);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
