/* Following one object; see watchobj.h. */
#include "watchobj.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "write.h"
#include "util/time.h"
#include "util/xmalloc.h"

int64_t nd_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---- the note of a long wait ---- */

#define NOTE_AFTER_MS 1000

struct nd_wait_note {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec due; /* CLOCK_MONOTONIC */
    char *text;          /* what to show */
    char *shown;         /* what the terminal shows; NULL: nothing */
    bool done;
};

/* Shows text on the line, cut to the terminal's width (the line can then be erased). */
static void note_show(const char *text)
{
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
    int n = (int)strlen(text);
    if (n > cols - 1)
        n = cols - 1;
    fprintf(stderr, "\r\033[K%.*s", n, text);
    fflush(stderr);
}

static void *note_main(void *arg)
{
    struct nd_wait_note *n = arg;
    pthread_mutex_lock(&n->mu);
    while (!n->done && pthread_cond_timedwait(&n->cv, &n->mu, &n->due) != ETIMEDOUT)
        ;
    while (!n->done) {
        if (n->text && (!n->shown || strcmp(n->shown, n->text) != 0)) {
            note_show(n->text);
            free(n->shown);
            n->shown = nd_xstrdup(n->text);
        }
        pthread_cond_wait(&n->cv, &n->mu);
    }
    if (n->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

struct nd_wait_note *nd_wait_note_start(void)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    struct nd_wait_note *n = nd_xcalloc(1, sizeof *n);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&n->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&n->mu, NULL);
    clock_gettime(CLOCK_MONOTONIC, &n->due); /* the clock of n->cv */
    nd_timespec_add_ms(&n->due, NOTE_AFTER_MS);
    if (pthread_create(&n->thread, NULL, note_main, n) != 0) {
        pthread_cond_destroy(&n->cv);
        pthread_mutex_destroy(&n->mu);
        free(n);
        return NULL;
    }
    return n;
}

void nd_wait_note_set(struct nd_wait_note *n, const char *text)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->mu);
    if (!n->text || strcmp(n->text, text) != 0) {
        free(n->text);
        n->text = nd_xstrdup(text);
        pthread_cond_signal(&n->cv);
    }
    pthread_mutex_unlock(&n->mu);
}

void nd_wait_note_end(struct nd_wait_note *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->mu);
    n->done = true;
    pthread_cond_signal(&n->cv);
    pthread_mutex_unlock(&n->mu);
    pthread_join(n->thread, NULL);
    pthread_cond_destroy(&n->cv);
    pthread_mutex_destroy(&n->mu);
    free(n->text);
    free(n->shown);
    free(n);
}

/* What a finalizer holds a deletion for, as a person says it. */
static const char *finalizer_meaning(const char *f)
{
    if (!strcmp(f, "nodus.dev/billing"))
        return "the final charge";
    if (!strcmp(f, "nodus.dev/in-use"))
        return "the objects that mount it to end";
    return NULL;
}

/* `waiting for job/train-a: the final charge (finalizer nodus.dev/billing) ...` */
static void note_update(struct nd_wait_note *n, const struct nd_kind *k, const char *name,
                        const char *note, const json_t *obj)
{
    if (!n || !note)
        return;
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "waiting for %s/%s: ", k->singular, name);
    const json_t *md = json_object_get(obj, "metadata");
    const json_t *fins = json_object_get(md, "finalizers");
    const char *phase = json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    if (json_object_get(md, "deletionTimestamp") && json_array_size(fins)) {
        size_t i;
        const json_t *f;
        json_array_foreach(fins, i, f)
        {
            const char *fs = json_string_value(f);
            const char *m = fs ? finalizer_meaning(fs) : NULL;
            if (i)
                nd_buf_adds(&b, ", ");
            if (m)
                nd_buf_addf(&b, "%s (finalizer %s)", m, fs);
            else
                nd_buf_addf(&b, "finalizer %s", fs ? fs : "?");
        }
    } else {
        nd_buf_adds(&b, note);
        if (phase)
            nd_buf_addf(&b, " (phase %s)", phase);
    }
    nd_buf_adds(&b, " ...");
    nd_wait_note_set(n, b.data);
    nd_buf_release(&b);
}

/* ---- following one object ---- */

struct follow {
    struct nd_wait_note *note;
    const struct nd_kind *k;
    const char *name, *note_text;
    nd_watch_fn fn;
    void *cls;
    int result;
    char *rv;
    bool expired;
    struct nd_status *st;
    const char *ns;
    int failures; /* streams that failed without an answer in a row */
};

static int on_line(void *cls, const char *line, size_t len)
{
    struct follow *f = cls;
    json_t *ev = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    int stop = 0;
    if (type && !strcmp(type, "ERROR")) {
        f->expired = json_integer_value(json_object_get(obj, "code")) == 410;
        stop = 1;
    } else if (type && json_is_object(obj)) {
        const char *rv = json_string_value(
            json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
        if (rv) {
            free(f->rv);
            f->rv = nd_xstrdup(rv);
        }
        if (strcmp(type, "BOOKMARK") != 0) {
            f->result = f->fn(f->cls, type, obj, f->st);
            stop = f->result != 0;
            if (!stop)
                note_update(f->note, f->k, f->name, f->note_text, obj);
        }
    }
    json_decref(ev);
    return stop;
}

/* The version of k's collection in ns now: where to watch an absent object from. NEW. */
static char *collection_rv(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns)
{
    struct nd_buf l = ND_BUF_INIT;
    nd_kind_path(k, ns, NULL, NULL, &l);
    nd_buf_adds(&l, "?limit=1");
    json_t *list = NULL;
    struct nd_status lst = ND_STATUS_INIT;
    char *rv = NULL;
    if (nd_call_get(ctx, l.data, &list, &lst) == 0) {
        const char *lrv = json_string_value(
            json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
        rv = lrv ? nd_xstrdup(lrv) : NULL;
    }
    nd_status_release(&lst);
    json_decref(list);
    nd_buf_release(&l);
    return rv;
}

/* Where things stand, and where to watch from: fn's verdict on the object (NULL when
 * absent), with f->rv its version (else the collection's); -1 with f->st when the GET
 * failed otherwise. */
static int look(struct nd_ctx *ctx, struct follow *f)
{
    struct nd_buf item = ND_BUF_INIT;
    nd_kind_path(f->k, f->ns, f->name, NULL, &item);
    json_t *obj = NULL;
    int code = 0;
    struct nd_status gst = ND_STATUS_INIT;
    int got = nd_call(
        ctx, &(struct nd_call_req){.method = "GET", .path = item.data, .out = &obj, .code = &code},
        &gst);
    nd_buf_release(&item);
    if (got < 0 && code != 404) {
        nd_status_move(f->st, &gst);
        json_decref(obj);
        return f->result = -1;
    }
    nd_status_release(&gst);
    const char *rv =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    free(f->rv);
    f->rv = rv ? nd_xstrdup(rv) : NULL;
    f->result = f->fn(f->cls, NULL, got < 0 ? NULL : obj, f->st);
    if (!f->result)
        note_update(f->note, f->k, f->name, f->note_text, got < 0 ? NULL : obj);
    json_decref(obj);
    if (!f->result && !f->rv) /* absent: watch the collection from its current version */
        f->rv = collection_rv(ctx, f->k, f->ns);
    return f->result;
}

/* One watch of the object (from f->rv, for at most left ms, or 300 s without a deadline)
 * until it ends: 0 to watch again (*fresh when its version expired: get first), else
 * f->result (-1 with f->st when the watch failed). */
static int watch_once(struct follow *f, struct nd_client *c, int64_t deadline_ms, int64_t left,
                      bool *fresh)
{
    struct nd_buf w = ND_BUF_INIT;
    nd_kind_path(f->k, f->ns, NULL, NULL, &w);
    nd_buf_adds(&w, "?watch=true&allowWatchBookmarks=true&fieldSelector=metadata.name%3D");
    nd_buf_add_urlencoded(&w, f->name);
    if (f->rv)
        nd_buf_addf(&w, "&resourceVersion=%s", f->rv);
    nd_buf_addf(&w, "&timeoutSeconds=%lld", (long long)(deadline_ms ? (left + 999) / 1000 : 300));
    bool idled = false; /* quiet for --read-idle-timeout: get, then watch again */
    struct nd_request req = {.method = "GET", .path = w.data, .no_retry = true, .idled = &idled};
    struct nd_status sst = ND_STATUS_INIT;
    int code = 0;
    f->expired = false;
    int rc = nd_client_stream(c, &req, on_line, f, &code, &sst);
    nd_buf_release(&w);
    if (f->result) {
        nd_status_release(&sst);
        return f->result;
    }
    if ((rc < 0 && code >= 400 && code != 410) || (rc < 0 && !code && ++f->failures > 10)) {
        nd_status_move(f->st, &sst);
        return f->result = -1;
    }
    nd_status_release(&sst);
    if (f->expired || code == 410)
        *fresh = true; /* list (get) again, then watch */
    if (rc < 0 && !code) {
        struct timespec ts = {0, 200 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int nd_watch_object(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns, const char *name,
                    const struct nd_watch_opts *opts, struct nd_status *st)
{
    int64_t deadline_ms = opts->deadline_ms;
    const char *note = opts->note;
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    struct follow f = {.fn = opts->fn,
                       .cls = opts->cls,
                       .st = st,
                       .k = k,
                       .ns = ns,
                       .name = name,
                       .note_text = note,
                       .note = note ? nd_wait_note_start() : NULL};
    bool fresh = true;
    while (f.result == 0) {
        if (fresh) {
            fresh = false;
            if (look(ctx, &f))
                break;
        }
        int64_t left = deadline_ms ? deadline_ms - nd_now_ms() : 0;
        if (deadline_ms && left <= 0) {
            nd_status_set(st, "Timeout", "wait longer with --timeout", "timed out waiting for %s",
                          opts->what);
            f.result = -1;
            break;
        }
        if (watch_once(&f, c, deadline_ms, left, &fresh))
            break;
    }
    nd_wait_note_end(f.note);
    free(f.rv);
    return f.result;
}
