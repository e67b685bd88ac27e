/* nodus get -w: print every change as it happens; resume after a dropped stream, list
 * again when the server says the point to resume from is too old (410 Expired). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/client.h"
#include "get.h"
#include "util/xmalloc.h"

#define EVENT_WIDTH 11 /* "MODIFIED" and kubectl's three spaces */

struct watch_state {
    struct get_run *g;
    const struct nd_kind *k;
    struct nd_table *table;
    char *rv;
    bool expired;
    bool failed;
    struct nd_status st;
};

static const char *event_rv(const json_t *obj)
{
    const json_t *o = obj;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, "Table") == 0)
        o = json_object_get(json_array_get(json_object_get(obj, "rows"), 0), "object");
    return json_string_value(json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
}

/* Prefixes each line of text (from `from` on) with the event type, kubectl's EVENT column. */
static void prefix_events(struct nd_buf *out, size_t from, const char *type, bool header)
{
    struct nd_buf b = ND_BUF_INIT;
    const char *p = out->data + from;
    bool first = true;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        nd_buf_addf(&b, "%-*s", EVENT_WIDTH, header && first ? "EVENT" : type);
        nd_buf_add(&b, p, n);
        p += n;
        first = false;
    }
    nd_buf_truncate(out, from);
    nd_buf_add(out, b.data, b.len);
    nd_buf_release(&b);
}

static void print_event(struct watch_state *w, const char *type, json_t *obj)
{
    struct get_run *g = w->g;
    struct nd_buf out = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    if (g->table) {
        bool header = w->table->ncols == 0 && !g->popts.no_headers;
        if (w->table->ncols) {
            nd_table_clear_rows(w->table);
            w->table->no_headers = true;
        }
        if (nd_print_table_from_server(w->table, obj, w->k, &g->popts, &st) == 0 &&
            nd_table_render(w->table, &out) == 0 && g->events)
            prefix_events(&out, 0, type, header);
    } else {
        json_t *one;
        if (g->events)
            one = json_pack("[{sssO}]", "type", type, "object", obj);
        else
            one = json_pack("[O]", obj);
        nd_print_objects(one, true, &g->popts, &out, &st);
        json_decref(one);
    }
    if (nd_status_failed(&st))
        nd_cli_error(g->ctx, &st);
    nd_out(&out);
    fflush(stdout);
    nd_buf_release(&out);
    nd_status_release(&st);
}

static int on_line(void *cls, const char *line, size_t len)
{
    struct watch_state *w = cls;
    json_t *ev = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    int stop = 0;
    if (!type || !json_is_object(obj)) {
        stop = 0; /* an empty keep-alive line */
    } else if (strcmp(type, "ERROR") == 0) {
        if (json_integer_value(json_object_get(obj, "code")) == 410) {
            w->expired = true;
        } else {
            nd_status_from_json(&w->st, obj, 500);
            w->failed = true;
        }
        stop = 1;
    } else {
        const char *rv = event_rv(obj);
        if (rv) {
            free(w->rv);
            w->rv = nd_xstrdup(rv);
        }
        if (strcmp(type, "BOOKMARK") != 0)
            print_event(w, type, obj);
    }
    json_decref(ev);
    return stop;
}

/* Lists again after 410 Expired and prints everything as ADDED. */
static int relist(struct watch_state *w)
{
    json_t *table = NULL, *objects = json_array();
    char *rv = NULL;
    struct nd_status st = ND_STATUS_INIT;
    int rc = get_list(w->g, w->k, &table, objects, &rv, &st);
    if (rc == 0) {
        free(w->rv);
        w->rv = rv ? rv : nd_xstrdup("");
        rv = NULL;
        if (table) {
            print_event(w, "ADDED", table);
        } else {
            size_t i;
            json_t *o;
            json_array_foreach(objects, i, o) print_event(w, "ADDED", o);
        }
    } else {
        nd_status_move(&w->st, &st);
    }
    free(rv);
    json_decref(table);
    json_decref(objects);
    nd_status_release(&st);
    return rc;
}

int get_watch(struct get_run *g, const struct nd_kind *k, const char *rv, struct nd_table *table)
{
    struct nd_table own;
    nd_table_init(&own);
    struct watch_state w = {.g = g, .k = k, .table = table ? table : &own, .rv = nd_xstrdup(rv)};
    nd_status_init(&w.st);
    int failures = 0, rc = 0;
    for (;;) {
        struct nd_buf path = ND_BUF_INIT;
        nd_kind_path(k, k->namespaced ? g->ns : NULL, NULL, NULL, &path);
        struct nd_buf extra = ND_BUF_INIT;
        nd_buf_adds(&extra, "watch=true&allowWatchBookmarks=true");
        if (*w.rv) {
            nd_buf_adds(&extra, "&resourceVersion=");
            nd_buf_add_urlencoded(&extra, w.rv);
        }
        get_query(g, &path, extra.data);
        nd_buf_release(&extra);
        struct nd_request req = {.method = "GET", .path = path.data, .no_retry = true,
                                 .accept = g->table ? ND_TABLE_ACCEPT : "application/json"};
        int code = 0;
        struct nd_status st = ND_STATUS_INIT;
        w.expired = false;
        int src = nd_client_stream(g->client, &req, on_line, &w, &code, &st);
        nd_buf_release(&path);
        if (w.failed) {
            rc = nd_cli_error(g->ctx, &w.st);
            nd_status_release(&st);
            break;
        }
        if (src < 0 && code >= 400) {
            rc = nd_cli_error(g->ctx, &st); /* the server refused the watch */
            nd_status_release(&st);
            break;
        }
        if (w.expired) {
            nd_status_release(&st);
            if (relist(&w) < 0) {
                rc = nd_cli_error(g->ctx, &w.st);
                break;
            }
            continue;
        }
        if (src < 0) {
            /* the stream dropped: resume from the last version seen, with backoff */
            if (++failures > 10) {
                rc = nd_cli_error(g->ctx, &st);
                nd_status_release(&st);
                break;
            }
            long ms = failures < 5 ? 200L << failures : 2000;
            struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        } else {
            failures = 0; /* the server ended the stream cleanly: watch again */
        }
        nd_status_release(&st);
    }
    free(w.rv);
    nd_status_release(&w.st);
    nd_table_release(&own);
    return rc;
}
