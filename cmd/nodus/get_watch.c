/* nodus get -w: print what the list found, then every change as it happens; resume after
 * a dropped stream, list again when the server says the point to resume from is too
 * old (410 Expired).
 *
 * Printing follows kubectl's watch printers: a table keeps its column widths and prints
 * its header once (Table events after the first of a stream carry no column definitions:
 * the last ones seen are used); json prints each object on its own (no List), yaml
 * separates objects with "---"; with --output-watch-events tables get an EVENT column
 * and json prints one compact {"type":...,"object":...} line per event.
 *
 * Quiet: a table prints an object's row only when what the row shows changed (its cells
 * but AGE, and the EVENT cell with --output-watch-events), so a cost tick that leaves COST
 * as it was prints nothing. Columns whose values are a known set (PHASE, STATE) are as
 * wide as their widest value from the first line on, money columns as "$000.00"; a
 * longer cell widens its column from its row on, and no column narrows. Other formats
 * print every event, except a MODIFIED that would print exactly what the object's
 * previous MODIFIED printed. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/client.h"
#include "get.h"
#include "json/json.h"
#include "util/xmalloc.h"

#define EVENT_WIDTH 11 /* "MODIFIED" and kubectl's three spaces */
#define MAX_FAILURES 10

struct watch_state {
    struct get_run *g;
    const struct nd_kind *k;
    struct nd_table table; /* table formats and custom-columns: widths kept across events */
    bool header_done;      /* a header line was printed */
    json_t *columns;       /* the last non-empty columnDefinitions seen */
    size_t printed;        /* objects printed (yaml's separators) */
    size_t lines;          /* events received on the current stream */
    json_t *last;          /* object key -> what its last event printed (quiet watches) */
    bool reserved;         /* PHASE and STATE widths reserved */
    char *rv;
    bool expired;
    bool failed;
    struct nd_status st;
};

static bool is_table(const json_t *obj)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    return kind && strcmp(kind, "Table") == 0;
}

static const char *event_rv(const json_t *obj)
{
    const json_t *o = obj;
    if (is_table(obj))
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

/* A Table event with the column definitions it left out (watch events after the first
 * carry none, as kube-apiserver sends them). NEW. */
static json_t *with_columns(struct watch_state *w, json_t *table)
{
    json_t *defs = json_object_get(table, "columnDefinitions");
    if (json_array_size(defs)) {
        json_decref(w->columns);
        w->columns = json_incref(defs);
        return json_incref(table);
    }
    if (!w->columns)
        return json_incref(table);
    json_t *copy = json_copy(table);
    json_object_set(copy, "columnDefinitions", w->columns);
    return copy;
}

/* What names an object across events: its uid, else project/name. NEW string or NULL. */
static char *object_key(const json_t *obj)
{
    const json_t *md = json_object_get(obj, "metadata");
    const char *uid = json_string_value(json_object_get(md, "uid"));
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    if (uid && *uid)
        return nd_xstrdup(uid);
    return name ? nd_xasprintf("%s/%s", ns ? ns : "", name) : NULL;
}

/* Sizes the columns whose cells come from a known set to the widest of the set. */
static void reserve_widths(struct watch_state *w)
{
    if (w->reserved || !w->table.ncols)
        return;
    w->reserved = true;
    for (size_t j = 0; j < w->table.ncols; j++) {
        const char *h = w->table.headers[j];
        const char *const *set = NULL;
        if (!strcmp(h, "PHASE"))
            set = nd_phases(w->k->family);
        else if (!strcmp(h, "STATE"))
            set = w->k->state_values;
        for (size_t i = 0; set && set[i]; i++)
            nd_table_reserve(&w->table, j, set[i]);
        for (const struct nd_column *c = w->k->columns; c && c->name; c++)
            if (!strcasecmp(c->name, h) && c->render == ND_RENDER_MONEY)
                nd_table_reserve(&w->table, j, "$000.00"); /* a cost that starts at "-" */
    }
}

/* Keeps what an object's event printed (sig) under key, forgetting it once DELETED;
 * false when it is what the previous event of that object printed. */
static bool remember(struct watch_state *w, const char *key, const char *type, const char *sig)
{
    const char *prev = json_string_value(json_object_get(w->last, key));
    bool changed = !prev || strcmp(prev, sig) != 0;
    if (!strcmp(type, "DELETED"))
        json_object_del(w->last, key);
    else if (changed)
        json_object_set_new(w->last, key, json_string(sig));
    return changed;
}

/* What row i of the table shows, to tell a repeat by: its cells (not their padding,
 * which widens with a longer row of another object) but AGE, which moves with the
 * clock; after the event's type when the types are printed (--output-watch-events). */
static void row_sig(const struct watch_state *w, size_t i, const char *type, struct nd_buf *sig)
{
    const struct nd_table *t = &w->table;
    if (w->g->events)
        nd_buf_addf(sig, "%s\t", type);
    for (size_t j = 0; j < t->ncols; j++)
        if (strcmp(t->headers[j], "AGE") != 0)
            nd_buf_addf(sig, "%s\t", nd_table_get(t, i, j));
}

/* Keeps the rows whose shown cells differ from what their object last printed. Rows are
 * told apart by their NAMESPACE and NAME cells (list answers may carry no objects). */
static void drop_unchanged(struct watch_state *w, const char *type)
{
    struct nd_table *t = &w->table;
    size_t name = t->ncols, ns = t->ncols;
    for (size_t j = 0; j < t->ncols; j++) {
        if (!strcmp(t->headers[j], "NAME") && name == t->ncols)
            name = j;
        else if (!strcmp(t->headers[j], "NAMESPACE"))
            ns = j;
    }
    if (t->nrows == 0 || name == t->ncols)
        return; /* no NAME column: print every row */
    bool *keep = nd_xcalloc(t->nrows, sizeof *keep);
    for (size_t i = 0; i < t->nrows; i++) {
        char *key = nd_xasprintf("%s/%s", ns < t->ncols ? nd_table_get(t, i, ns) : "",
                                 nd_table_get(t, i, name));
        struct nd_buf sig = ND_BUF_INIT;
        row_sig(w, i, type, &sig);
        keep[i] = remember(w, key, type, sig.data);
        nd_buf_release(&sig);
        free(key);
    }
    nd_table_keep_rows(t, keep);
    free(keep);
}

/* Rows of a Table answer (or of objects, when the server sent no Table) as table lines. */
static int print_table(struct watch_state *w, const char *type, json_t *obj, struct nd_buf *out,
                       struct nd_status *st)
{
    struct get_run *g = w->g;
    nd_table_clear_rows(&w->table);
    bool header = !g->popts.no_headers && !w->header_done;
    w->table.no_headers = !header;
    int rc;
    if (is_table(obj)) {
        json_t *t = with_columns(w, obj);
        g->popts.all_projects = g->ctx->all_projects && w->k->namespaced;
        rc = nd_print_table_from_server(&w->table, t, w->k, &g->popts, st);
        json_decref(t);
    } else {
        json_t *objs = json_is_array(obj) ? json_incref(obj) : json_pack("[O]", obj);
        rc = nd_print_table_from_objects(&w->table, objs, w->k, nd_ctx_now(g->ctx), &g->popts,
                                         st);
        json_decref(objs);
    }
    if (rc < 0)
        return -1;
    drop_unchanged(w, type);
    if (w->table.nrows == 0)
        return 0;
    reserve_widths(w);
    if (nd_table_render(&w->table, out) < 0)
        return nd_status_set(st, "InternalError", NULL, "output too large");
    if (header)
        w->header_done = true;
    if (g->events)
        prefix_events(out, 0, type, header);
    return 0;
}

/* The object as printed: without metadata.managedFields unless asked for. NEW. */
static json_t *shown(const struct get_run *g, json_t *obj)
{
    if (g->opt->show_managed_fields ||
        !json_object_get(json_object_get(obj, "metadata"), "managedFields"))
        return json_incref(obj);
    json_t *copy = json_deep_copy(obj);
    json_object_del(json_object_get(copy, "metadata"), "managedFields");
    return copy;
}

static int print_object_now(struct watch_state *w, const char *type, json_t *raw,
                            struct nd_buf *out, struct nd_status *st);

/* One object in a format other than a table; a MODIFIED that prints what the object's
 * previous MODIFIED printed is left out. custom-columns rows are told apart as a
 * table's are (row_sig): a MODIFIED showing the cells of the object's previous event,
 * ADDED included, is left out. */
static int print_object(struct watch_state *w, const char *type, json_t *raw, struct nd_buf *out,
                        struct nd_status *st)
{
    size_t from = out->len, printed = w->printed;
    int rc = print_object_now(w, type, raw, out, st);
    char *key = rc == 0 ? object_key(raw) : NULL;
    if (!key)
        return rc;
    struct nd_buf sig = ND_BUF_INIT;
    if (w->g->popts.output == ND_OUTPUT_CUSTOM_COLUMNS && w->table.nrows == 1) {
        row_sig(w, 0, type, &sig);
    } else {
        nd_buf_addf(&sig, "%s\n", type);
        nd_buf_add(&sig, out->data + from, out->len - from);
    }
    if (!remember(w, key, type, sig.data) && !strcmp(type, "MODIFIED")) {
        nd_buf_truncate(out, from);
        w->printed = printed;
    }
    nd_buf_release(&sig);
    free(key);
    return 0;
}

static int print_object_now(struct watch_state *w, const char *type, json_t *raw,
                            struct nd_buf *out, struct nd_status *st)
{
    struct get_run *g = w->g;
    const struct nd_print_opts *p = &g->popts;
    json_t *obj = shown(g, raw);
    json_t *one = NULL;
    int rc = 0;
    if (p->output == ND_OUTPUT_CUSTOM_COLUMNS) {
        nd_table_clear_rows(&w->table);
        if (!w->table.ncols)
            nd_custom_columns_table(p->columns, p->no_headers, &w->table);
        else
            w->table.no_headers = true;
        w->table.header_if_empty = false;
        rc = nd_custom_columns_add_row(p->columns, obj, &w->table, st);
        if (rc == 0 && nd_table_render(&w->table, out) < 0)
            rc = nd_status_set(st, "InternalError", NULL, "output too large");
    } else if (p->output == ND_OUTPUT_JSON && g->events) {
        /* kubectl: one compact line per event, "type" first */
        nd_buf_addf(out, "{\"type\":\"%s\",\"object\":", type);
        if (nd_json_dump(obj, out, ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML) < 0)
            rc = nd_status_set(st, "InternalError", NULL, "cannot print the object as JSON");
        nd_buf_adds(out, "}\n");
    } else {
        if (g->events && p->output != ND_OUTPUT_NAME)
            one = json_pack("[{sssO}]", "type", type, "object", obj);
        else
            one = json_pack("[O]", obj);
        if (p->output == ND_OUTPUT_YAML && w->printed)
            nd_buf_adds(out, "---\n");
        rc = nd_print_objects(one, true, p, out, st);
    }
    if (rc == 0)
        w->printed++;
    json_decref(one);
    json_decref(obj);
    return rc;
}

/* Prints an event: obj is one object, a (one-row or listed) Table, or an array of
 * objects (a list's, printed as one table when the format is a table). */
static void print_event(struct watch_state *w, const char *type, json_t *obj)
{
    struct get_run *g = w->g;
    struct nd_buf out = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0;
    if (g->table) {
        rc = print_table(w, type, obj, &out, &st);
    } else if (g->popts.output == ND_OUTPUT_CUSTOM_COLUMNS && json_is_array(obj)) {
        /* a list's objects as one block, so their columns line up as kubectl's */
        size_t i;
        json_t *o;
        nd_table_clear_rows(&w->table);
        if (!w->table.ncols)
            nd_custom_columns_table(g->popts.columns, g->popts.no_headers, &w->table);
        w->table.header_if_empty = false;
        json_array_foreach(obj, i, o) {
            json_t *s = shown(g, o);
            rc = nd_custom_columns_add_row(g->popts.columns, s, &w->table, &st);
            json_decref(s);
            if (rc < 0)
                break;
        }
        if (rc == 0 && nd_table_render(&w->table, &out) < 0)
            rc = nd_status_set(&st, "InternalError", NULL, "output too large");
        if (rc == 0 && w->table.nrows) {
            w->table.no_headers = true;
            w->printed += w->table.nrows;
        }
    } else if (json_is_array(obj)) {
        size_t i;
        json_t *o;
        json_array_foreach(obj, i, o) {
            if ((rc = print_object(w, type, o, &out, &st)) < 0)
                break;
        }
    } else {
        rc = print_object(w, type, obj, &out, &st);
    }
    if (rc < 0) {
        nd_buf_reset(&out);
        nd_cli_error(g->ctx, &st);
    }
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
        w->lines++;
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
static int relist(struct watch_state *w, struct nd_status *st)
{
    json_t *table = NULL, *objects = json_array();
    char *rv = NULL;
    int rc = get_list(w->g, w->k, &table, objects, &rv, st);
    if (rc == 0) {
        free(w->rv);
        w->rv = rv ? rv : nd_xstrdup("");
        rv = NULL;
        if (table)
            print_event(w, "ADDED", table);
        else if (json_array_size(objects))
            print_event(w, "ADDED", objects);
    }
    free(rv);
    json_decref(table);
    json_decref(objects);
    return rc;
}

static void backoff(int failures)
{
    long ms = failures < 5 ? 200L << failures : 2000;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Worth waiting out: the server is away, went away in the middle of the stream (code is
 * then the stream's 200), is shutting down or busy. Not a --request-timeout. */
static bool transient(int code, const struct nd_status *st)
{
    if (nd_status_is(st, ND_REASON_UNREACHABLE))
        return true;
    return code == 429 || code >= 500;
}

int get_watch(struct get_run *g, const struct nd_kind *k, const char *rv, json_t *table,
              json_t *objects)
{
    struct watch_state w = {.g = g, .k = k, .rv = nd_xstrdup(rv ? rv : ""),
                            .last = json_object()};
    nd_table_init(&w.table);
    nd_status_init(&w.st);
    bool watch_only = g->opt->watch_only;
    if (table) {
        json_t *defs = json_object_get(table, "columnDefinitions");
        if (json_array_size(defs))
            w.columns = json_incref(defs);
        if (!watch_only)
            print_event(&w, "ADDED", table);
    } else if (!watch_only && json_array_size(objects)) {
        print_event(&w, "ADDED", objects);
    }
    int failures = 0, rc = 0;
    for (;;) {
        struct nd_status st = ND_STATUS_INIT;
        if (w.expired) {
            if (relist(&w, &st) == 0) {
                w.expired = false;
                failures = 0;
                continue;
            }
            if (!transient(st.code, &st) || ++failures > MAX_FAILURES) {
                rc = nd_cli_error(g->ctx, &st);
                nd_status_release(&st);
                break;
            }
            nd_status_release(&st);
            backoff(failures);
            continue;
        }
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
        bool idled = false; /* quiet for --read-idle-timeout: watch again, as kubectl */
        struct nd_request req = {.method = "GET", .path = path.data, .no_retry = true,
                                 .accept = g->table ? ND_TABLE_ACCEPT : "application/json",
                                 .idled = &idled};
        int code = 0;
        w.lines = 0;
        int src = nd_client_stream(g->client, &req, on_line, &w, &code, &st);
        nd_buf_release(&path);
        if (w.failed) {
            rc = nd_cli_error(g->ctx, &w.st);
            nd_status_release(&st);
            break;
        }
        if (w.expired || code == 410) {
            w.expired = true; /* list again, then watch from the new list */
            nd_status_release(&st);
            continue;
        }
        if (src < 0 && !transient(code, &st)) {
            rc = nd_cli_error(g->ctx, &st); /* the server refused the watch */
            nd_status_release(&st);
            break;
        }
        if (src == 0 && (w.lines || idled)) {
            failures = 0; /* the server ended a stream that carried events: watch again */
            nd_status_release(&st);
            continue;
        }
        /* dropped, refused or ended at once: resume from the last version seen */
        if (++failures > MAX_FAILURES) {
            if (src < 0)
                rc = nd_cli_error(g->ctx, &st);
            nd_status_release(&st);
            break; /* a server that keeps ending the stream: done, as kubectl */
        }
        nd_status_release(&st);
        backoff(failures);
    }
    free(w.rv);
    json_decref(w.columns);
    json_decref(w.last);
    nd_status_release(&w.st);
    nd_table_release(&w.table);
    return rc;
}
