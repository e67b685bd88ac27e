/* Following one object; see watchobj.h. */
#include "watchobj.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/client.h"
#include "write.h"
#include "util/xmalloc.h"

int64_t nd_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

struct follow {
    nd_watch_fn fn;
    void *cls;
    int result;
    char *rv;
    bool expired;
    struct nd_status *st;
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
        }
    }
    json_decref(ev);
    return stop;
}

int nd_watch_object(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns,
                    const char *name, int64_t deadline_ms, nd_watch_fn fn, void *cls,
                    const char *what, struct nd_status *st)
{
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    struct follow f = {.fn = fn, .cls = cls, .st = st};
    int failures = 0;
    bool fresh = true;
    while (f.result == 0) {
        if (fresh) {
            /* where things stand, and where to watch from */
            struct nd_buf item = ND_BUF_INIT;
            nd_kind_path(k, ns, name, NULL, &item);
            json_t *obj = NULL;
            int code = 0;
            struct nd_status gst = ND_STATUS_INIT;
            int got = nd_write(ctx, "GET", item.data, NULL, NULL, &obj, &code, &gst);
            nd_buf_release(&item);
            if (got < 0 && code != 404) {
                nd_status_move(st, &gst);
                json_decref(obj);
                f.result = -1;
                break;
            }
            nd_status_release(&gst);
            const char *rv = json_string_value(
                json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
            free(f.rv);
            f.rv = rv ? nd_xstrdup(rv) : NULL;
            f.result = fn(cls, NULL, got < 0 ? NULL : obj, st);
            json_decref(obj);
            fresh = false;
            if (f.result)
                break;
            if (!f.rv) {
                /* absent: watch the collection from its current version */
                struct nd_buf l = ND_BUF_INIT;
                nd_kind_path(k, ns, NULL, NULL, &l);
                nd_buf_adds(&l, "?limit=1");
                json_t *list = NULL;
                struct nd_status lst = ND_STATUS_INIT;
                if (nd_write(ctx, "GET", l.data, NULL, NULL, &list, &code, &lst) == 0) {
                    const char *lrv = json_string_value(
                        json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
                    f.rv = lrv ? nd_xstrdup(lrv) : NULL;
                }
                nd_status_release(&lst);
                json_decref(list);
                nd_buf_release(&l);
            }
        }
        int64_t left = deadline_ms ? deadline_ms - nd_now_ms() : 0;
        if (deadline_ms && left <= 0) {
            nd_status_set(st, "Timeout", "wait longer with --timeout",
                          "timed out waiting for %s", what);
            f.result = -1;
            break;
        }
        struct nd_buf w = ND_BUF_INIT;
        nd_kind_path(k, ns, NULL, NULL, &w);
        nd_buf_adds(&w, "?watch=true&allowWatchBookmarks=true&fieldSelector=metadata.name%3D");
        nd_buf_add_urlencoded(&w, name);
        if (f.rv)
            nd_buf_addf(&w, "&resourceVersion=%s", f.rv);
        nd_buf_addf(&w, "&timeoutSeconds=%lld",
                    (long long)(deadline_ms ? (left + 999) / 1000 : 300));
        struct nd_request req = {.method = "GET", .path = w.data, .no_retry = true};
        struct nd_status sst = ND_STATUS_INIT;
        int code = 0;
        f.expired = false;
        int rc = nd_client_stream(c, &req, on_line, &f, &code, &sst);
        nd_buf_release(&w);
        if (f.result) {
            nd_status_release(&sst);
            break;
        }
        if (rc < 0 && code >= 400 && code != 410) {
            nd_status_move(st, &sst);
            f.result = -1;
            break;
        }
        if (rc < 0 && !code && ++failures > 10) {
            nd_status_move(st, &sst);
            f.result = -1;
            break;
        }
        nd_status_release(&sst);
        if (f.expired || code == 410)
            fresh = true; /* list (get) again, then watch */
        if (rc < 0 && !code) {
            struct timespec ts = {0, 200 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    free(f.rv);
    return f.result;
}
