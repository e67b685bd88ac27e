/* The log subresource: options, a whole answer, and followed streams; see logs.h.
 *
 * A request reads the log "from a cursor": the run it last saw and how far into it. The
 * simulated log is generated again on each read (it is small and deterministic) and the
 * lines past the cursor are the new ones; a local log file is read from the byte offset
 * reached, whole lines only (runtime.c appends whole lines). A new run (a resumed Job)
 * starts the cursor over.
 *
 * A followed stream waits on srv->changed, which every commit of writes to the store, every clock
 * jump, the local runtime's output and shutdown broadcast, at most a second at a time
 * (to notice a client that went away). It never holds the lock while blocked.
 */
#include "logs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "objects.h"
#include "runtime.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* "2026-01-02T03:04:05.123456789Z text": the time (-1 when the line has none). */
static int64_t parse_time(const char *line, size_t len, size_t *text_at)
{
    *text_at = 0;
    if (len < 21 || line[19] != '.')
        return -1;
    size_t i = 20;
    int64_t frac = 0;
    int digits = 0;
    while (i < len && line[i] >= '0' && line[i] <= '9') {
        if (digits < 9) {
            frac = frac * 10 + (line[i] - '0');
            digits++;
        }
        i++;
    }
    if (!digits || i >= len || line[i] != 'Z')
        return -1;
    while (digits++ < 9)
        frac *= 10;
    char whole[21];
    memcpy(whole, line, 19);
    whole[19] = 'Z';
    whole[20] = '\0';
    int64_t sec;
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_time_parse(whole, &sec, &st);
    nd_status_release(&st);
    if (rc < 0)
        return -1;
    i++;
    if (i < len && line[i] == ' ')
        i++;
    *text_at = i;
    return sec * 1000000000 + frac;
}

/* Whole lines of a local log file from *offset on. */
static void read_file(const char *path, int64_t *offset, struct em_log_lines *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct nd_buf b = ND_BUF_INIT;
    char chunk[65536];
    off_t at = (off_t)*offset;
    for (;;) {
        ssize_t n = pread(fd, chunk, sizeof chunk, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        nd_buf_add(&b, chunk, (size_t)n);
        at += n;
    }
    close(fd);
    size_t p = 0;
    int64_t last = 0;
    while (p < b.len) {
        char *nl = memchr(b.data + p, '\n', b.len - p);
        if (!nl)
            break; /* a line still being written */
        size_t len = (size_t)(nl - (b.data + p)), text_at;
        int64_t ns = parse_time(b.data + p, len, &text_at);
        if (ns < 0)
            ns = last; /* a line a person added: keep it, at the time before it */
        last = ns;
        em_log_addn(out, ns, b.data + p + text_at, len - text_at);
        p += len + 1;
    }
    *offset += (int64_t)p;
    nd_buf_release(&b);
}

struct cursor {
    int64_t run;    /* the run read so far; -2 before the first read */
    size_t line;    /* lines of it seen (simulated) */
    int64_t offset; /* bytes of its file read (local) */
};

/* The lines of obj's log past the cursor, at the current emulated time (lock held). */
static void read_log(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                     struct cursor *cur, struct em_log_lines *out, struct em_log_state *state)
{
    const json_t *sim = json_object_get(json_object_get(obj, "status"), "simulation");
    /* --runtime local runs the containers of runs to completion (Jobs) */
    bool local = nd_kind_is(k, ND_KIND_BILLED | ND_KIND_COMPUTE) && k->family == ND_FAMILY_RUN &&
                 json_integer_value(json_object_get(sim, "local")) == 1;
    if (local) {
        state->local = true;
        state->run = em_logsim_run(k, obj, &state->ended);
        if (state->ended && em_runtime_busy(srv, em_obj_ns(obj), em_obj_name(obj)))
            state->ended = false; /* its last output is still coming */
        if (state->run != cur->run) {
            cur->run = state->run;
            cur->offset = 0;
            cur->line = 0;
        }
        if (state->run < 0)
            return;
        char *path = em_runtime_log_path(srv, k, em_obj_ns(obj), em_obj_name(obj));
        read_file(path, &cur->offset, out);
        free(path);
        return;
    }
    struct em_log_lines all = {0};
    em_logsim_read(srv, k, obj, em_clock_now_ms(&srv->clock), &all, state);
    if (state->run != cur->run) {
        cur->run = state->run;
        cur->offset = 0;
        cur->line = 0;
    }
    for (size_t i = cur->line; i < all.len; i++)
        em_log_addn(out, all.v[i].ns, all.v[i].text, strlen(all.v[i].text));
    if (all.len > cur->line)
        cur->line = all.len;
    em_log_lines_release(&all);
}

/* ---- options ---- */

struct log_opts {
    bool follow, timestamps;
    int64_t tail;     /* -1: every line */
    int64_t since_ns; /* INT64_MIN: from the start */
    int64_t limit;    /* -1: no limit */
};

/* Booleans and integers as the table of query.h reads them (it has checked them). */
static int parse_bool(struct em_api *a, const char *name, bool *out)
{
    return em_api_query_bool(a, name, out);
}

static int parse_int(struct em_api *a, const char *name, int64_t *out, bool *set)
{
    return em_api_query_int(a, name, out, set);
}

static int invalid(struct em_api *a, const char *field, long long value, const char *why,
                   const char *fix)
{
    nd_status_set(&a->st, "Invalid", fix, "%s: Invalid value: %lld: %s", field, value, why);
    nd_status_add_cause(&a->st, "FieldValueInvalid", field, "Invalid value: %lld: %s", value,
                        why);
    return -1;
}

static int parse_opts(struct em_api *a, struct log_opts *o)
{
    bool previous, set_tail, set_limit, set_since;
    int64_t since = 0;
    o->tail = -1;
    o->limit = -1;
    o->since_ns = INT64_MIN;
    if (parse_bool(a, "follow", &o->follow) < 0 ||
        parse_bool(a, "timestamps", &o->timestamps) < 0 ||
        parse_bool(a, "previous", &previous) < 0 ||
        parse_int(a, "tailLines", &o->tail, &set_tail) < 0 ||
        parse_int(a, "limitBytes", &o->limit, &set_limit) < 0 ||
        parse_int(a, "sinceSeconds", &since, &set_since) < 0)
        return -1;
    if (previous)
        return nd_status_set(&a->st, "BadRequest", "leave out previous=true",
                             "previous: a %s keeps the log of its last run only",
                             a->kind->singular);
    if (set_tail && o->tail < 0)
        return invalid(a, "tailLines", (long long)o->tail, "must be greater than or equal to 0",
                       "use tailLines=0 or more, or leave it out for the whole log");
    if (set_limit && o->limit < 1)
        return invalid(a, "limitBytes", (long long)o->limit, "must be greater than 0",
                       "use limitBytes=1 or more, or leave it out");
    const char *since_time = em_req_query(a->req, "sinceTime");
    if (set_since && since_time && *since_time) {
        nd_status_set(&a->st, "Invalid", "give sinceSeconds or sinceTime, not both",
                      "at most one of `sinceTime` or `sinceSeconds` may be specified");
        nd_status_add_cause(&a->st, "FieldValueForbidden", "sinceSeconds",
                            "at most one of `sinceTime` or `sinceSeconds` may be specified");
        return -1;
    }
    if (set_since) {
        if (since < 1)
            return invalid(a, "sinceSeconds", (long long)since, "must be greater than 0",
                           "use sinceSeconds=1 or more");
        int64_t now = em_clock_now_ms(&a->srv->clock);
        o->since_ns = since > INT64_MAX / 1000000000 ? INT64_MIN
                                                     : (now - since * 1000) * 1000000;
    } else if (since_time && *since_time) {
        int64_t us;
        if (nd_time_parse_micro(since_time, &us, &a->st) < 0) {
            free(a->st.reason);
            a->st.reason = nd_xstrdup("BadRequest");
            a->st.code = 400;
            nd_status_prefix(&a->st, "sinceTime");
            return -1;
        }
        /* nanoseconds reach to 2262: later is "nothing yet", earlier "everything" */
        o->since_ns = us > INT64_MAX / 1000   ? INT64_MAX
                      : us < INT64_MIN / 1000 ? INT64_MIN
                                              : us * 1000;
    }
    return 0;
}

/* Appends lines past the since filter (the tail of them when tail >= 0) to out, as the
 * options say, never past the byte limit (*sent counts bytes so far); true once the
 * limit is reached. */
static bool format_lines(const struct log_opts *o, const struct em_log_lines *l, int64_t tail,
                         int64_t *sent, struct nd_buf *out)
{
    size_t first = 0;
    while (first < l->len && l->v[first].ns < o->since_ns)
        first++;
    if (tail >= 0 && (int64_t)(l->len - first) > tail)
        first = l->len - (size_t)tail;
    struct nd_buf line = ND_BUF_INIT;
    for (size_t i = first; i < l->len; i++) {
        if (l->v[i].ns < o->since_ns)
            continue;
        nd_buf_reset(&line);
        if (o->timestamps) {
            em_log_format_time(l->v[i].ns, &line);
            nd_buf_addch(&line, ' ');
        }
        nd_buf_adds(&line, l->v[i].text);
        nd_buf_addch(&line, '\n');
        size_t n = line.len;
        if (o->limit >= 0 && *sent + (int64_t)n >= o->limit) {
            nd_buf_add(out, line.data, (size_t)(o->limit - *sent));
            *sent = o->limit;
            nd_buf_release(&line);
            return true;
        }
        nd_buf_add(out, line.data, n);
        *sent += (int64_t)n;
    }
    nd_buf_release(&line);
    return false;
}

/* ---- following ---- */

struct follow {
    struct em_server *srv;
    const struct nd_kind *k;
    char *ns, *name, *uid;
    struct log_opts o;
    struct cursor cur;
    int64_t sent;
    bool first; /* the tail applies to the lines there when it began */
    bool done;
    struct nd_buf pending;
    size_t off;
    struct em_stream *stream;
};

static const char *uid_of(const json_t *obj)
{
    const char *u = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    return u ? u : "";
}

/* Moves what is new into pending (lock held). */
static void collect(struct follow *f)
{
    json_t *obj = em_store_get(&f->srv->store, f->k, f->ns, f->name);
    if (!obj || strcmp(uid_of(obj), f->uid) != 0) {
        f->done = true; /* deleted (or replaced by another object of that name) */
        return;
    }
    struct em_log_lines l = {0};
    struct em_log_state state = {0};
    read_log(f->srv, f->k, obj, &f->cur, &l, &state);
    bool full = format_lines(&f->o, &l, f->first ? f->o.tail : -1, &f->sent, &f->pending);
    f->first = false;
    em_log_lines_release(&l);
    if (full || state.ended)
        f->done = true;
}

static bool client_gone(struct follow *f)
{
    return em_stream_gone(f->stream);
}

static ssize_t follow_read(void *cls, char *buf, size_t max)
{
    struct follow *f = cls;
    struct em_server *srv = f->srv;
    ssize_t n = 0;
    pthread_mutex_lock(&srv->lock);
    for (;;) {
        if ((n = (ssize_t)nd_buf_take(&f->pending, &f->off, buf, max)) > 0)
            break;
        if (f->done || srv->stopping)
            break;
        collect(f);
        if (f->pending.len || f->done)
            continue;
        if (client_gone(f))
            break;
        struct timespec ts;
        nd_time_deadline(&ts, 1000);
        pthread_cond_timedwait(&srv->changed, &srv->lock, &ts);
    }
    pthread_mutex_unlock(&srv->lock);
    return n;
}

static void follow_free(void *cls)
{
    struct follow *f = cls;
    nd_buf_release(&f->pending);
    free(f->ns);
    free(f->name);
    free(f->uid);
    free(f);
}

/* ---- the handler ---- */

static int not_started(struct em_api *a, const json_t *obj)
{
    const char *phase =
        json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    const char *name = em_obj_name(obj);
    nd_status_set(&a->st, "BadRequest", NULL,
                  "%s \"%s\" has not started yet (phase %s): there is no log until it runs",
                  a->kind->singular, name, phase ? phase : "unknown");
    nd_status_set_fix(&a->st, "follow it to see the log once it runs: nodus logs -f %s/%s%s%s",
                      a->kind->singular, name, strcmp(a->ns, "default") ? " -n " : "",
                      strcmp(a->ns, "default") ? a->ns : "");
    nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
    return -1;
}

int em_logs_serve(struct em_api *a, const char *verb)
{
    (void)verb; /* get: the router serves only nd_kind_sub_verbs (route.c) */
    struct log_opts o;
    if (parse_opts(a, &o) < 0)
        return -1;
    json_t *obj = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!obj)
        return em_api_not_found(a, a->path.name);
    if (!o.follow) {
        struct cursor cur = {.run = -2};
        struct em_log_lines l = {0};
        struct em_log_state state = {0};
        read_log(a->srv, a->kind, obj, &cur, &l, &state);
        if (state.run < 0 && !state.ended) {
            em_log_lines_release(&l);
            return not_started(a, obj);
        }
        /* one that ended without running (cancelled while queued) has an empty log */
        int64_t sent = 0;
        nd_buf_reset(&a->resp->body);
        format_lines(&o, &l, o.tail, &sent, &a->resp->body);
        em_log_lines_release(&l);
        a->resp->code = 200;
        em_resp_set_type(a->resp, "text/plain");
        return 0;
    }
    struct follow *f = nd_xcalloc(1, sizeof *f);
    f->srv = a->srv;
    f->k = a->kind;
    f->ns = nd_xstrdup(a->ns);
    f->name = nd_xstrdup(a->path.name);
    f->uid = nd_xstrdup(uid_of(obj));
    f->o = o;
    f->cur.run = -2;
    f->first = true;
    nd_buf_init(&f->pending, 0);
    collect(f); /* what is there now goes out with the headers */
    f->stream = em_resp_stream(a->resp, "text/plain", follow_read, follow_free, f);
    return 0;
}
