/* nodus logs: the log of a Job, Sandbox, Function or PoolAction, as kubectl logs prints
 * a pod's.
 *
 * Output is written as it arrives. Without -f, the server's answer is copied byte for
 * byte. With -f, lines are asked for with their times (timestamps=true; the times are
 * cut off again unless --timestamps), so that after a dropped connection, or a stream
 * the server ended while the object still runs, the log is asked for again from the
 * last time printed and the lines already printed are skipped. It ends when the object
 * ends: exit 0 when it Succeeded (or a long-running one Stopped), 1 when it ended
 * Failed or Cancelled or was deleted. With --limit-bytes the stream is not resumed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "logs.h"
#include "resolve.h"
#include "util/time.h"
#include "util/term.h"
#include "util/xmalloc.h"
#include "watchobj.h"
#include "write.h"

struct logs_opts {
    bool follow;
    long long tail;
    bool tail_given;
    int64_t since;
    const char *since_time;
    bool timestamps;
    long long limit_bytes;
    const char *selector;
    bool prefix;
    bool prefix_given;
    long long max_log_requests;
    bool max_log_requests_given;
};

#define TO(f) ND_TO(struct logs_opts, f)
const struct nd_flag cmd_logs_flags[] = {
    {"follow", 'f', ND_BOOL, NULL, "stream new lines until the object ends", NULL, TO(follow)},
    {"tail", 0, ND_INT, "N", "show the last N lines only (-1: all)", NULL, TO(tail),
     TO(tail_given)},
    {"since", 0, ND_DURATION, "DURATION", "only lines newer than this, e.g. 5m or 1h", NULL,
     TO(since)},
    {"since-time", 0, ND_STRING, "TIME", "only lines at or after this RFC 3339 time", NULL,
     TO(since_time)},
    {"timestamps", 0, ND_BOOL, NULL, "start each line with its time (RFC 3339, nanoseconds)", NULL,
     TO(timestamps)},
    {"limit-bytes", 0, ND_INT, "N", "stop after N bytes of log", NULL, TO(limit_bytes)},
    {"selector", 'l', ND_STRING, "SELECTOR",
     "the logs of every object of the kind (Jobs by default) with these labels", NULL,
     TO(selector)},
    {"prefix", 0, ND_BOOL, NULL,
     "start each line with its object, [job/NAME] (default: true with -l)", NULL, TO(prefix),
     TO(prefix_given)},
    {"max-log-requests", 0, ND_INT, "N", "with -l -f, follow at most N logs at once (default 5)",
     NULL, TO(max_log_requests), TO(max_log_requests_given)},
    ND_FLAGS_END(struct logs_opts),
};

#define ACCEPT "text/plain, application/json, */*"
#define MAX_FAILURES 10

/* KIND/NAME, KIND NAME, or NAME (a Job). */
static int target(struct nd_ctx *ctx, const struct nd_opts *o, const struct nd_kind **k,
                  char **name, struct nd_status *st)
{
    if (o->npos == 0)
        return nd_cli_usage(ctx, "name the object: nodus logs KIND/NAME (or NAME for a Job)");
    if (o->npos == 1 && !strchr(o->pos[0], '/')) {
        *k = nd_kind_by_plural(NULL, "jobs");
        *name = nd_xstrdup(o->pos[0]);
    } else {
        struct nd_res_list res = {0};
        if (nd_resolve_args(o->npos, o->pos, &res, st) < 0) {
            nd_res_list_release(&res);
            return nd_cli_error(ctx, st);
        }
        bool one = res.n == 1 && res.by_name && json_array_size(res.v[0].names) == 1;
        if (one) {
            *k = res.v[0].k;
            *name = nd_xstrdup(json_string_value(json_array_get(res.v[0].names, 0)));
        }
        nd_res_list_release(&res);
        if (!one)
            return nd_cli_usage(ctx, "name one object: nodus logs KIND/NAME");
    }
    if (!nd_kind_has_subresource(*k, "log")) {
        free(*name);
        *name = NULL;
        return nd_cli_usage(ctx, "%s have no log (Jobs, Sandboxes, Functions and PoolActions do)",
                            (*k)->plural);
    }
    return 0;
}

/* ---- output ---- */

static int put(const char *data, size_t len)
{
    if (len && fwrite(data, 1, len, stdout) != len)
        return -1;
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

static int on_bytes(void *cls, const char *data, size_t len)
{
    bool *failed = cls;
    if (put(data, len) < 0) {
        *failed = true;
        return 1;
    }
    return 0;
}

struct follow {
    const char *prefix; /* "[job/a] " before each line (logs -l, --prefix), or NULL */
    bool timestamps;    /* the user's --timestamps */
    char last[64];      /* the time of the last line printed ("" before any) */
    int same;           /* lines printed with that time */
    char skip[64];      /* after a reconnect: lines up to this time were printed */
    int skip_same;      /* ...and this many with exactly that time */
    int skipped;
    bool skipping;
    bool failed;        /* stdout failed */
    struct nd_wait_note **note; /* a terminal's `waiting for ...` line until the first line */
};

/* The time at the start of a line of a timestamps=true answer, or 0 bytes. */
static size_t time_len(const char *line, size_t len)
{
    const char *sp = memchr(line, ' ', len);
    size_t n = sp ? (size_t)(sp - line) : len;
    if (n < 20 || n >= 64 || line[4] != '-' || line[10] != 'T' || line[n - 1] != 'Z')
        return 0;
    return n;
}

static int on_line(void *cls, const char *line, size_t len)
{
    struct follow *f = cls;
    size_t tl = time_len(line, len);
    char ts[64];
    memcpy(ts, line, tl);
    ts[tl] = '\0';
    if (f->skipping) {
        /* fixed-width RFC 3339 times order as strings */
        int c = strcmp(ts, f->skip);
        if (c < 0 || (c == 0 && f->skipped < f->skip_same)) {
            f->skipped += c == 0;
            return 0;
        }
        f->skipping = false;
    }
    const char *text = line;
    size_t n = len;
    if (tl && !f->timestamps) {
        text = line + tl + (tl < len);
        n = len - tl - (tl < len);
    }
    if (f->note && *f->note) {
        nd_wait_note_end(*f->note); /* the wait is over: erase its line first */
        *f->note = NULL;
    }
    /* one write per line: lines of streams followed side by side (logs -l -f, one
     * process each) never mix */
    struct nd_buf out = ND_BUF_INIT;
    if (f->prefix)
        nd_buf_adds(&out, f->prefix);
    nd_buf_add(&out, text, n);
    nd_buf_addch(&out, '\n');
    int bad = put(out.data, out.len);
    nd_buf_release(&out);
    if (bad < 0) {
        f->failed = true;
        return 1;
    }
    if (strcmp(ts, f->last) == 0) {
        f->same++;
    } else {
        memcpy(f->last, ts, tl + 1);
        f->same = 1;
    }
    return 0;
}

/* ---- the end ---- */

/* Whether the object has ended: the exit code it ended with (for 1, why goes into
 * msg, to print after the log), or -1 when it goes on. */
static int ended(const struct nd_kind *k, const char *name, const json_t *obj, struct nd_buf *msg)
{
    if (!obj || json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp")) {
        nd_buf_addf(msg, "error: %s/%s was deleted\n", k->singular, name);
        return 1;
    }
    const json_t *status = json_object_get(obj, "status");
    const char *phase = json_string_value(json_object_get(status, "phase"));
    if (!phase)
        return -1;
    if (k->family == ND_FAMILY_LONG)
        return nd_phase_parse(phase) == ND_PHASE_STOPPED ? 0 : -1;
    if (!nd_phase_terminal(k->family, phase))
        return -1;
    if (nd_phase_parse(phase) == ND_PHASE_SUCCEEDED)
        return 0;
    const char *why = json_string_value(json_object_get(status, "message"));
    json_t *code = json_object_get(status, "exitCode");
    nd_buf_addf(msg, "error: %s/%s ended %s", k->singular, name, phase);
    if (why) {
        nd_buf_adds(msg, ": ");
        nd_term_escape(msg, why, strlen(why), 0); /* the server's text */
    }
    if (json_is_integer(code))
        nd_buf_addf(msg, " (exit code %lld)", (long long)json_integer_value(code));
    nd_buf_addch(msg, '\n');
    return 1;
}

/* Prints msg on stderr; returns rc. */
static int finish(int rc, struct nd_buf *msg)
{
    fputs(msg->data, stderr);
    nd_buf_release(msg);
    return rc;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the verb ---- */

/* The log's path and query, in kubectl's order. from: resume at that time. */
static void log_path(const char *ns, const struct nd_kind *k, const char *name,
                     const struct nd_log_query *q, bool follow, bool times, const char *from,
                     struct nd_buf *p)
{
    nd_kind_path(k, ns, name, "log", p);
    char sep = '?';
#define ADD(...)                                                                                   \
    do {                                                                                           \
        nd_buf_addch(p, sep);                                                                      \
        nd_buf_addf(p, __VA_ARGS__);                                                               \
        sep = '&';                                                                                 \
    } while (0)
    if (follow)
        ADD("follow=true");
    if (times)
        ADD("timestamps=true");
    if (from) {
        ADD("sinceTime=");
        nd_buf_add_urlencoded(p, from);
        return; /* a resumed stream: from the last line printed on */
    }
    if (q->tail >= 0)
        ADD("tailLines=%lld", (long long)q->tail);
    if (q->since_ms > 0) /* whole seconds, at least one */
        ADD("sinceSeconds=%lld",
            (long long)(q->since_ms >= 1500 ? (q->since_ms + 500) / 1000 : 1));
    if (q->since_time) {
        ADD("sinceTime=");
        nd_buf_add_urlencoded(p, q->since_time);
    }
    if (q->limit > 0)
        ADD("limitBytes=%lld", (long long)q->limit);
#undef ADD
}

/* An answer worth asking again for: no connection, or a server busy or restarting. */
static bool transient(int code, const struct nd_status *st)
{
    return nd_status_exit_code(st) == 7 || code == 429 || code >= 500;
}

/* The object as it is now: 0 with *obj (NULL when it is gone), or -1 with st and *code
 * (0 when no answer came). */
static int get_object(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns,
                      const char *name, json_t **obj, int *code, struct nd_status *st)
{
    struct nd_buf item = ND_BUF_INIT;
    nd_kind_path(k, ns, name, NULL, &item);
    *code = 0;
    *obj = NULL;
    int rc = nd_call(
        ctx, &(struct nd_call_req){.method = "GET", .path = item.data, .out = obj, .code = code},
        st);
    nd_buf_release(&item);
    if (rc < 0 && *code == 404) {
        nd_status_release(st);
        return 0;
    }
    return rc;
}

/* Copies one answer to stdout (no -f, or -f with --limit-bytes). */
static int once(struct nd_ctx *ctx, struct nd_client *c, const char *path, bool follow,
                const struct nd_kind *k, const char *name, struct nd_status *st)
{
    bool failed = false;
    struct nd_request req = {.method = "GET", .path = path, .accept = ACCEPT};
    if (nd_client_stream_bytes(c, &req, on_bytes, &failed, NULL, st) < 0)
        return nd_cli_error(ctx, st);
    if (failed) {
        fprintf(stderr, "error: cannot write the log to stdout\n");
        return 1;
    }
    if (!follow)
        return 0;
    json_t *obj = NULL;
    int code;
    if (get_object(ctx, k, nd_ctx_project(ctx), name, &obj, &code, st) < 0)
        return nd_cli_error(ctx, st);
    struct nd_buf msg = ND_BUF_INIT;
    int rc = ended(k, name, obj, &msg);
    json_decref(obj);
    return finish(rc < 0 ? 0 : rc, &msg); /* -1: the limit came first */
}

/* The next answer starts at the last line printed: skip up to it. */
static void skip_printed(struct follow *f)
{
    if (!f->last[0])
        return;
    memcpy(f->skip, f->last, sizeof f->skip);
    f->skip_same = f->same;
    f->skipped = 0;
    f->skipping = true;
}

/* The object whose log is followed, and the prefix of its lines (NULL: none). */
struct log_target {
    const struct nd_kind *k;
    const char *ns;
    const char *name;
    const char *prefix;
};

/* Follows until the object ends, resuming after a dropped connection. *last (NEW, may
 * be NULL): the object as it ended. */
static int follow_log(struct nd_ctx *ctx, struct nd_client *c, const struct nd_log_query *q,
                      const struct log_target *t, json_t **last, struct nd_wait_note **note,
                      struct nd_status *st)
{
    const struct nd_kind *k = t->k;
    const char *ns = t->ns, *name = t->name, *prefix = t->prefix;
    struct follow f = {.timestamps = q->timestamps, .prefix = prefix, .note = note};
    int failures = 0;
    for (int round = 0;; round++) {
        struct nd_buf p = ND_BUF_INIT;
        log_path(ns, k, name, q, true, true, f.last[0] ? f.last : NULL, &p);
        skip_printed(&f);
        bool idled = false; /* quiet for --read-idle-timeout: follow again from the last line */
        struct nd_request req = {.method = "GET", .path = p.data, .accept = ACCEPT,
                                 .idled = &idled};
        int code = 0;
        int rc = nd_client_stream(c, &req, on_line, &f, &code, st);
        nd_buf_release(&p);
        if (f.failed) {
            fprintf(stderr, "error: cannot write the log to stdout\n");
            return 1;
        }
        struct nd_buf msg = ND_BUF_INIT;
        if (rc < 0 && code == 404 && round > 0)
            return finish(ended(k, name, NULL, &msg), &msg); /* the object went */
        if (rc < 0 && (!transient(code, st) || ++failures > MAX_FAILURES))
            return nd_cli_error(ctx, st);
        if (rc == 0)
            failures = 0;
        nd_status_release(st);
        /* the stream ended or dropped: has the object ended? */
        json_t *obj = NULL;
        int got = get_object(ctx, k, ns, name, &obj, &code, st);
        int end = got == 0 ? ended(k, name, obj, &msg) : -1;
        if (got < 0 && (!transient(code, st) || ++failures > MAX_FAILURES)) {
            nd_buf_release(&msg);
            return nd_cli_error(ctx, st);
        }
        nd_status_release(st);
        if (end >= 0 && obj) {
            /* it ended: what it printed since the last line seen (the stream may have
             * dropped before its end), then how it ended */
            struct nd_buf p2 = ND_BUF_INIT;
            log_path(ns, k, name, q, false, true, f.last[0] ? f.last : NULL, &p2);
            skip_printed(&f);
            struct nd_request rest = {.method = "GET", .path = p2.data, .accept = ACCEPT};
            struct nd_status lst = ND_STATUS_INIT;
            nd_client_stream(c, &rest, on_line, &f, NULL, &lst);
            nd_status_release(&lst);
            nd_buf_release(&p2);
        }
        if (end >= 0 && last) {
            *last = obj;
            obj = NULL;
        }
        json_decref(obj);
        if (f.failed) {
            nd_buf_release(&msg);
            fprintf(stderr, "error: cannot write the log to stdout\n");
            return 1;
        }
        if (end >= 0)
            return finish(end, &msg);
        nd_buf_release(&msg);
        if (rc < 0 || got < 0)
            pause_ms(500);
    }
}

/* follow_log, saying on a terminal what it waits for until the first line comes (a
 * Queued Job has no log yet): `waiting for job/train-a: its first log line (phase
 * Queued) ...`. One object only: the side-by-side follows of logs -l -f keep quiet. */
static int follow(struct nd_ctx *ctx, struct nd_client *c, const struct nd_log_query *q,
                  const struct log_target *t, json_t **last, struct nd_status *st)
{
    const struct nd_kind *k = t->k;
    const char *ns = t->ns, *name = t->name, *prefix = t->prefix;
    struct nd_wait_note *note = prefix ? NULL : nd_wait_note_start();
    if (note) {
        json_t *obj = NULL;
        int code = 0;
        struct nd_status gst = ND_STATUS_INIT;
        const char *phase = NULL;
        if (get_object(ctx, k, ns, name, &obj, &code, &gst) == 0)
            phase = json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
        char *text = phase ? nd_xasprintf("waiting for %s/%s: its first log line (phase %s) ...",
                                          k->singular, name, phase)
                           : nd_xasprintf("waiting for %s/%s: its first log line ...",
                                          k->singular, name);
        nd_wait_note_set(note, text);
        free(text);
        json_decref(obj);
        nd_status_release(&gst);
    }
    int rc = follow_log(ctx, c, q, t, last, &note, st);
    nd_wait_note_end(note);
    return rc;
}

int nd_logs_follow(struct nd_ctx *ctx, const struct nd_log_query *q, const struct nd_kind *k,
                   const char *ns, const char *name, const char *prefix, json_t **last)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_ctx_client(ctx, &st);
    struct log_target t = {k, ns, name, prefix};
    int rc = c ? follow(ctx, c, q, &t, last, &st) : nd_cli_error(ctx, &st);
    nd_status_release(&st);
    return rc;
}

/* ---- logs -l: every object the selector matches ---- */

struct match {
    char *ns, *name, *prefix;
};

/* The log of one object of many, without -f: its lines, each after its prefix. */
static int print_one(struct nd_ctx *ctx, struct nd_client *c, const struct nd_log_query *q,
                     const struct nd_kind *k, const struct match *m, struct nd_status *st)
{
    struct follow f = {.timestamps = q->timestamps, .prefix = m->prefix};
    struct nd_buf p = ND_BUF_INIT;
    log_path(m->ns, k, m->name, q, false, true, NULL, &p);
    struct nd_request req = {.method = "GET", .path = p.data, .accept = ACCEPT};
    int rc = nd_client_stream(c, &req, on_line, &f, NULL, st);
    nd_buf_release(&p);
    if (f.failed) {
        fprintf(stderr, "error: cannot write the log to stdout\n");
        return 1;
    }
    return rc < 0 ? nd_cli_error(ctx, st) : 0;
}

/* -f: one process per object, side by side; the worst exit code of them. */
static int follow_all(struct nd_ctx *ctx, const struct nd_log_query *q, const struct nd_kind *k,
                      struct match *ms, size_t n)
{
    pid_t *pids = nd_xcalloc(n ? n : 1, sizeof *pids);
    fflush(stdout);
    fflush(stderr);
    for (size_t i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            /* the parent's connection is not ours to use or close: a client of our own */
            ctx->client = NULL;
            int rc = nd_logs_follow(ctx, q, k, ms[i].ns, ms[i].name, ms[i].prefix, NULL);
            fflush(stdout);
            fflush(stderr);
            _exit(rc);
        }
        if (pids[i] < 0)
            fprintf(stderr, "error: cannot follow %s: %s\n", ms[i].prefix, strerror(errno));
    }
    int worst = 0;
    for (size_t i = 0; i < n; i++) {
        int status;
        int rc = 1;
        if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status))
            rc = WEXITSTATUS(status);
        if (rc > worst)
            worst = rc;
    }
    free(pids);
    return worst;
}

static int by_selector(struct nd_ctx *ctx, const struct nd_opts *o, const struct logs_opts *opt,
                       struct nd_log_query *q, const char *selector, struct nd_status *st)
{
    const struct nd_kind *k = nd_kind_by_plural(NULL, "jobs");
    if (o->npos > 1 || (o->npos == 1 && strchr(o->pos[0], '/')))
        return nd_cli_usage(ctx, "with -l, name a kind at most (nodus logs [KIND] -l SELECTOR), "
                                 "not objects");
    if (o->npos == 1 && !(k = nd_resolve_kind(o->pos[0], st)))
        return nd_cli_error(ctx, st);
    if (!nd_kind_has_subresource(k, "log"))
        return nd_cli_usage(ctx, "%s have no log (Jobs, Sandboxes, Functions and PoolActions do)",
                            k->plural);
    long long max = opt->max_log_requests;
    if (max < 1)
        return nd_cli_usage(ctx, "--max-log-requests must be greater than 0");
    if (!opt->tail_given)
        q->tail = 10; /* as kubectl with a selector */
    bool prefix = !opt->prefix_given || opt->prefix;
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return nd_cli_error(ctx, st);
    const char *ns = ctx->all_projects ? "" : nd_ctx_project(ctx);
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, ns, NULL, NULL, &path);
    nd_buf_adds(&path, "?labelSelector=");
    nd_buf_add_urlencoded(&path, selector);
    json_t *list = NULL;
    int rc = nd_client_json(c, "GET", path.data, NULL, &list, st);
    nd_buf_release(&path);
    if (rc < 0)
        return nd_cli_error(ctx, st);
    size_t n = json_array_size(json_object_get(list, "items"));
    struct match *ms = nd_xcalloc(n ? n : 1, sizeof *ms);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item) {
        const json_t *meta = json_object_get(item, "metadata");
        const char *iname = json_string_value(json_object_get(meta, "name"));
        const char *ins = json_string_value(json_object_get(meta, "namespace"));
        ms[i].name = nd_xstrdup(iname ? iname : "");
        ms[i].ns = nd_xstrdup(ins ? ins : ns);
        if (prefix) {
            /* names from the server: escaped for the terminal (the log text is not) */
            char *sns = nd_term_safe(ms[i].ns, 0), *sname = nd_term_safe(ms[i].name, 0);
            ms[i].prefix = ctx->all_projects
                               ? nd_xasprintf("[%s/%s/%s] ", sns, k->singular, sname)
                               : nd_xasprintf("[%s/%s] ", k->singular, sname);
            free(sns);
            free(sname);
        }
    }
    json_decref(list);
    bool follow_it = opt->follow;
    if (n == 0) {
        if (*ns)
            fprintf(stderr, "No resources found in %s namespace.\n", ns);
        else
            fprintf(stderr, "No resources found\n");
    } else if (follow_it && (long long)n > max) {
        rc = nd_cli_usage(ctx,
                          "you are attempting to follow %zu log streams, but maximum allowed "
                          "concurrency is %lld, use --max-log-requests to increase the limit "
                          "(--max-log-requests=%zu), or narrow the selector",
                          n, max, n);
    } else if (follow_it) {
        rc = follow_all(ctx, q, k, ms, n);
    } else {
        /* an object without a log yet (Queued) is an error of its own: the others
         * are printed still */
        for (i = 0; i < n; i++) {
            int one = print_one(ctx, c, q, k, &ms[i], st);
            nd_status_release(st);
            if (one > rc)
                rc = one;
        }
    }
    for (i = 0; i < n; i++) {
        free(ms[i].ns);
        free(ms[i].name);
        free(ms[i].prefix);
    }
    free(ms);
    return rc;
}

int cmd_logs(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct logs_opts opt = {.tail = -1, .max_log_requests = 5};
    struct nd_status st = ND_STATUS_INIT;
    const struct nd_kind *k = NULL;
    char *name = NULL, *prefix = NULL;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    struct nd_log_query q = {
        .tail = opt.tail,
        .since_ms = opt.since,
        .limit = opt.limit_bytes,
        .since_time = opt.since_time,
        .timestamps = opt.timestamps,
    };
    if (q.tail < -1) {
        rc = nd_cli_usage(ctx, "--tail must be greater than or equal to -1");
        goto out;
    }
    if (q.since_ms < 0) {
        rc = nd_cli_usage(ctx, "--since must be greater than 0");
        goto out;
    }
    if (q.limit < 0) {
        rc = nd_cli_usage(ctx, "--limit-bytes must be greater than 0");
        goto out;
    }
    if (q.since_time && q.since_ms) {
        rc = nd_cli_usage(ctx, "at most one of `sinceTime` or `sinceSeconds` may be specified");
        goto out;
    }
    if (q.since_time) {
        int64_t us;
        if (nd_time_parse_micro(q.since_time, &us, &st) < 0) {
            rc = nd_cli_usage(ctx, "invalid argument \"%s\" for \"--since-time\" flag: %s",
                              q.since_time, st.message);
            goto out;
        }
    }
    const char *selector = opt.selector;
    if (selector) {
        rc = by_selector(ctx, &o, &opt, &q, selector, &st);
        goto out;
    }
    if (opt.max_log_requests_given) {
        rc = nd_cli_usage(ctx, "--max-log-requests goes with -l SELECTOR");
        goto out;
    }
    if ((rc = target(ctx, &o, &k, &name, &st)) != 0)
        goto out;
    struct nd_client *c = nd_ctx_client(ctx, &st);
    if (!c) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (opt.prefix) {
        char *sname = nd_term_safe(name, 0);
        prefix = nd_xasprintf("[%s/%s] ", k->singular, sname);
        free(sname);
    }
    bool follow_it = opt.follow;
    if (follow_it && !q.limit) {
        rc = follow(ctx, c, &q, &(struct log_target){k, nd_ctx_project(ctx), name, prefix}, NULL,
                    &st);
        goto out;
    }
    if (prefix) {
        struct match m = {(char *)nd_ctx_project(ctx), name, prefix};
        rc = print_one(ctx, c, &q, k, &m, &st);
        goto out;
    }
    struct nd_buf p = ND_BUF_INIT;
    log_path(nd_ctx_project(ctx), k, name, &q, follow_it, q.timestamps, NULL, &p);
    rc = once(ctx, c, p.data, follow_it, k, name, &st);
    nd_buf_release(&p);
out:
    free(name);
    free(prefix);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
