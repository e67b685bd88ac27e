/* nodus get: list or show objects in any output format, and watch them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "commands.h"
#include "get.h"
#include "json/json.h"
#include "util/xmalloc.h"

#define TO(f) ND_TO(struct get_opts, f)
const struct nd_flag cmd_get_flags[] = {
    {"output", 'o', ND_STRING, "FORMAT",
     "json, yaml, wide, name, jsonpath=..., jsonpath-file=..., custom-columns=..., "
     "custom-columns-file=...",
     "=json yaml wide name jsonpath= custom-columns=", TO(output)},
    {"selector", 'l', ND_STRING, "SELECTOR", "label selector (app=trainer, tier in (a,b), !x)",
     NULL, TO(selector)},
    {"field-selector", 0, ND_STRING, "SELECTOR",
     "field selector (status.phase=Running, metadata.name=x)", NULL, TO(field_selector)},
    {"watch", 'w', ND_BOOL, NULL,
     "after listing, watch for changes (a row only when what it shows changes)", NULL, TO(watch)},
    {"watch-only", 0, ND_BOOL, NULL, "watch for changes without listing first", NULL,
     TO(watch_only)},
    {"output-watch-events", 0, ND_BOOL, NULL, "show the event type of each watched change", NULL,
     TO(output_watch_events)},
    {"sort-by", 0, ND_STRING, "JSONPATH", "sort by a field (e.g. .metadata.creationTimestamp)",
     NULL, TO(sort_by)},
    {"show-labels", 0, ND_BOOL, NULL, "show every label as the last column", NULL, TO(show_labels)},
    {"label-columns", 'L', ND_STRINGS, "KEY", "show the value of label KEY as a column", NULL,
     TO(label_columns)},
    {"no-headers", 0, ND_BOOL, NULL, "leave the header line out", NULL, TO(no_headers)},
    {"chunk-size", 0, ND_INT, "N", "list N objects per request (default 500; 0: no limit)", NULL,
     TO(chunk_size)},
    {"show-kind", 0, ND_BOOL, NULL, "show the kind with each name", NULL, TO(show_kind)},
    {"ignore-not-found", 0, ND_BOOL, NULL, "a missing object is not an error", NULL,
     TO(ignore_not_found)},
    {"raw", 0, ND_STRING, "PATH", "GET an API path and print the answer as it comes", NULL,
     TO(raw)},
    {"show-managed-fields", 0, ND_BOOL, NULL, "keep metadata.managedFields in json and yaml", NULL,
     TO(show_managed_fields)},
    ND_FLAGS_END(struct get_opts),
};

void get_query(const struct get_run *g, struct nd_buf *path, const char *extra)
{
    char sep = strchr(path->data, '?') ? '&' : '?';
    if (g->label_sel && *g->label_sel) {
        nd_buf_addf(path, "%clabelSelector=", sep);
        nd_buf_add_urlencoded(path, g->label_sel);
        sep = '&';
    }
    if (g->field_sel && *g->field_sel) {
        nd_buf_addf(path, "%cfieldSelector=", sep);
        nd_buf_add_urlencoded(path, g->field_sel);
        sep = '&';
    }
    if (extra && *extra)
        nd_buf_addf(path, "%c%s", sep, extra);
}

int get_fetch(struct get_run *g, const char *path, struct nd_response *resp,
              struct nd_status *st)
{
    struct nd_request req = {.method = "GET", .path = path,
                             .accept = g->table ? ND_TABLE_ACCEPT : "application/json"};
    if (nd_client_do(g->client, &req, resp, st) < 0)
        return -1;
    nd_cli_warnings(resp->headers);
    if (resp->code < 200 || resp->code > 299) {
        nd_status_parse(st, resp->body.data, resp->body.len, resp->code);
        return -1;
    }
    return 0;
}

/* One GET; a non-2xx answer becomes st. NEW answer in *out; *bytes (may be NULL) gets
 * the size of its body added. */
static int fetch_sized(struct get_run *g, const char *path, json_t **out, size_t *bytes,
                       struct nd_status *st)
{
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = -1;
    *out = NULL;
    if (get_fetch(g, path, &resp, st) < 0)
        goto out;
    if (bytes)
        *bytes += resp.body.len;
    *out = nd_json_load(resp.body.data, resp.body.len, "answer", st);
    rc = *out ? 0 : -1;
out:
    nd_response_release(&resp);
    return rc;
}

static int fetch(struct get_run *g, const char *path, json_t **out, struct nd_status *st)
{
    return fetch_sized(g, path, out, NULL, st);
}

static bool is_table(const json_t *answer)
{
    const char *kind = json_string_value(json_object_get(answer, "kind"));
    return kind && strcmp(kind, "Table") == 0;
}

void get_collect(json_t **table, json_t *objects, json_t *answer)
{
    if (is_table(answer)) {
        if (!*table) {
            *table = json_incref(answer);
            return;
        }
        json_array_extend(json_object_get(*table, "rows"), json_object_get(answer, "rows"));
        return;
    }
    json_t *items = json_object_get(answer, "items");
    if (json_is_array(items))
        json_array_extend(objects, items);
    else
        json_array_append(objects, answer);
}

void get_list_path(const struct get_run *g, const struct nd_kind *k, const char *cont,
                   struct nd_buf *path)
{
    nd_kind_path(k, k->namespaced ? g->ns : NULL, NULL, NULL, path);
    struct nd_buf extra = ND_BUF_INIT;
    if (g->chunk > 0)
        nd_buf_addf(&extra, "limit=%ld", g->chunk);
    if (cont) {
        nd_buf_addf(&extra, "%scontinue=", extra.len ? "&" : "");
        nd_buf_add_urlencoded(&extra, cont);
    }
    if (g->table && g->opt->sort_by)
        nd_buf_addf(&extra, "%sincludeObject=Object", extra.len ? "&" : "");
    else if (g->table && !g->popts.show_labels && !g->popts.label_columns &&
             !g->ctx->all_projects)
        /* the rows' objects serve only labels and projects: leave them out */
        nd_buf_addf(&extra, "%sincludeObject=None", extra.len ? "&" : "");
    get_query(g, path, extra.data);
    nd_buf_release(&extra);
}

int get_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
             char **rv, struct nd_status *st)
{
    return get_list_from(g, k, NULL, 0, table, objects, rv, st);
}

int get_list_from(struct get_run *g, const struct nd_kind *k, const char *from, size_t bytes,
                  json_t **table, json_t *objects, char **rv, struct nd_status *st)
{
    char *cont = from ? nd_xstrdup(from) : NULL;
    int rc = 0;
    do {
        if (bytes > nd_client_max_response(g->client)) {
            rc = nd_client_too_large("the list (all its pages)", g->client, st);
            break;
        }
        struct nd_buf path = ND_BUF_INIT;
        get_list_path(g, k, cont, &path);
        json_t *answer = NULL;
        rc = fetch_sized(g, path.data, &answer, &bytes, st);
        nd_buf_release(&path);
        if (rc < 0)
            break;
        get_collect(table, objects, answer);
        json_t *meta = json_object_get(answer, "metadata");
        free(cont);
        cont = NULL;
        const char *c = json_string_value(json_object_get(meta, "continue"));
        if (c && *c)
            cont = nd_xstrdup(c);
        const char *r = json_string_value(json_object_get(meta, "resourceVersion"));
        if (r) {
            free(*rv);
            *rv = nd_xstrdup(r);
        }
        json_decref(answer);
    } while (cont);
    free(cont);
    return rc;
}

/* Prints an error about one object, keeps going; remembers the worst exit code. */
static void report(struct get_run *g, struct nd_status *st, int *worst)
{
    if (g->opt && g->opt->ignore_not_found && nd_status_is(st, ND_REASON_NOT_FOUND)) {
        nd_status_release(st);
        return;
    }
    int rc = nd_cli_error(g->ctx, st);
    if (!*worst)
        *worst = rc;
    nd_status_release(st);
}

/* An error of this side (sorting, a template that fails on the objects): kubectl's
 * `error: ...`, exit code 1, never "Error from server". */
static void report_local(struct nd_status *st, int *worst)
{
    fflush(stdout);
    fprintf(stderr, "error: %s\n", st->message ? st->message : "unknown error");
    if (st->fix && *st->fix)
        fprintf(stderr, "fix: %s\n", st->fix);
    if (!*worst)
        *worst = 1;
    nd_status_release(st);
}

/* Renders a collected Table answer (or objects) of one kind. */
static int render_table(struct get_run *g, const struct nd_kind *k, json_t *answer,
                        json_t *objects, struct nd_table *t, struct nd_buf *out,
                        struct nd_status *st)
{
    /* -A adds the NAMESPACE column to namespaced kinds only (as kubectl) */
    g->popts.all_projects = g->ctx->all_projects && k->namespaced;
    if (answer) {
        if (nd_print_table_from_server(t, answer, k, &g->popts, st) < 0)
            return -1;
    } else {
        if (nd_print_table_from_objects(t, objects, k, nd_ctx_now(g->ctx), &g->popts, st) < 0)
            return -1;
    }
    t->no_headers = g->popts.no_headers;
    return nd_table_render(t, out) < 0 ? -1 : 0;
}

/* --sort-by over what a list collected (a Table's rows, or objects). */
static int sort_collected(struct get_run *g, json_t *answer, json_t *objects,
                          struct nd_status *st)
{
    const char *sort = g->opt->sort_by;
    if (!sort)
        return 0;
    if (answer)
        return nd_print_sort_table(answer, sort, st);
    return nd_print_sort(objects, sort, st);
}

/* The object of a name, GET by name: the server's own NotFound when it is not there. */
static int fetch_one(struct get_run *g, const struct nd_kind *k, const char *name, json_t **out,
                     struct nd_status *st)
{
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? (g->ns ? g->ns : nd_ctx_project(g->ctx)) : NULL, name,
                 NULL, &path);
    int rc = fetch(g, path.data, out, st);
    nd_buf_release(&path);
    return rc;
}

/* get -w, --watch-only: list (for the version to watch from, and to print unless
 * --watch-only), then watch. One kind; at most one name (watched with a field selector
 * on metadata.name, as kubectl). */
static int run_watch(struct get_run *g, const struct nd_res *r)
{
    struct nd_status st = ND_STATUS_INIT;
    const struct nd_kind *k = r->k;
    size_t nn = json_array_size(r->names);
    json_t *answer = NULL, *objects = json_array();
    char *rv = NULL, *sel = NULL;
    const char *field_sel = g->field_sel;
    int rc = 0;
    if (nn > 1) {
        rc = nd_cli_usage(g->ctx, "watch is only supported on individual resources and resource "
                                  "collections, but %zu resources were found",
                          nn);
        goto out;
    }
    if (nn == 1) {
        const char *name = json_string_value(json_array_get(r->names, 0));
        bool more = g->field_sel && *g->field_sel;
        sel = nd_xasprintf("metadata.name=%s%s%s", name, more ? "," : "",
                           more ? g->field_sel : "");
        g->field_sel = sel;
        if (!g->ns)
            g->ns = nd_ctx_project(g->ctx);
    }
    if (get_list(g, k, &answer, objects, &rv, &st) < 0) {
        report(g, &st, &rc);
        goto out;
    }
    size_t found = answer ? json_array_size(json_object_get(answer, "rows"))
                          : json_array_size(objects);
    if (nn == 1 && !found) {
        json_t *one = NULL;
        if (fetch_one(g, k, json_string_value(json_array_get(r->names, 0)), &one, &st) < 0) {
            report(g, &st, &rc);
            if (rc)
                goto out;
        }
        json_decref(one);
    }
    if (sort_collected(g, answer, objects, &st) < 0) {
        report_local(&st, &rc);
        goto out;
    }
    rc = get_watch(g, k, rv, answer, objects);
out:
    g->field_sel = field_sel;
    free(sel);
    free(rv);
    json_decref(answer);
    json_decref(objects);
    nd_status_release(&st);
    return rc;
}

/* What gather found of one resource argument: the answer collected (a Table, or NULL),
 * its objects, and the table built from the answers' bytes when built. */
struct gathered {
    json_t *answer, *objects;
    struct nd_table fast;
    bool built;
};

/* The objects of one resource argument into o: each name fetched (a missing one
 * reported), or the list of its kind; -1 (reported) when the list failed. A list of JSON
 * written from the answer's bytes goes to out (printed then set). */
static int gather(struct get_run *g, const struct nd_res *r, struct gathered *o, int *worst,
                  struct nd_buf *out, bool *printed)
{
    json_t **answer = &o->answer, *objects = o->objects;
    struct nd_status st = ND_STATUS_INIT;
    size_t nn = json_array_size(r->names);
    for (size_t j = 0; j < nn; j++) {
        json_t *one = NULL;
        if (fetch_one(g, r->k, json_string_value(json_array_get(r->names, j)), &one, &st) < 0)
            report(g, &st, worst);
        else
            get_collect(answer, objects, one);
        json_decref(one);
    }
    if (nn)
        return 0;
    char *rv = NULL;
    int lrc = g->json_bytes    ? get_json_list(g, r->k, answer, objects, out, printed, &st)
              : g->table_bytes ? get_table_list(g, r->k, answer, objects, &o->fast, &o->built, &st)
                               : get_list(g, r->k, answer, objects, &rv, &st);
    free(rv);
    if (lrc < 0)
        report(g, &st, worst);
    return lrc < 0 ? -1 : 0;
}

/* Appends the table of one kind's objects to out (after a blank line when another table
 * came before: printed rows so far); the rows it printed. fast: the table already built
 * from the answers' bytes (get_table_list), or NULL. */
static size_t add_table(struct get_run *g, const struct nd_kind *k, json_t *answer, json_t *objects,
                        struct nd_table *fast, size_t printed, struct nd_buf *out, int *worst)
{
    if (!fast && !answer && !json_array_size(objects))
        return 0;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_table t;
    nd_table_init(&t);
    size_t before = out->len;
    /* kubectl separates the tables of several kinds by a blank line before
     * each header after the first; without headers, nothing */
    if (printed && !g->popts.no_headers &&
        (fast     ? fast->nrows
         : answer ? json_array_size(json_object_get(answer, "rows"))
                  : 1))
        nd_buf_addch(out, '\n');
    if (fast) {
        fast->no_headers = g->popts.no_headers; /* as render_table */
        if (nd_table_render(fast, out) < 0) {
            nd_buf_truncate(out, before);
            report(g, &st, worst);
        }
    } else if (sort_collected(g, answer, objects, &st) < 0) {
        nd_buf_truncate(out, before);
        report_local(&st, worst);
    } else if (render_table(g, k, answer, objects, &t, out, &st) < 0) {
        nd_buf_truncate(out, before);
        report(g, &st, worst);
    }
    size_t rows = fast ? fast->nrows : t.nrows;
    nd_table_release(&t);
    nd_status_release(&st);
    return rows;
}

/* The objects of a collected answer into all: a server that answered a Table while asked
 * for JSON gives them in its rows. */
static void add_objects(json_t *answer, json_t *objects, json_t *all)
{
    if (answer) {
        json_t *rows = json_object_get(answer, "rows");
        size_t r;
        json_t *row;
        json_array_foreach(rows, r, row) json_array_append(objects, json_object_get(row, "object"));
    }
    json_array_extend(all, objects);
}

/* The objects of every kind in a format of objects (json, yaml, name, templates): sorted,
 * without managedFields unless asked for; a single object not as a List. */
static void print_all_objects(struct get_run *g, const struct nd_res_list *res, size_t total_names,
                              json_t *all, struct nd_buf *out, int *worst)
{
    struct nd_status st = ND_STATUS_INIT;
    const char *sort = g->opt->sort_by;
    if (!g->opt->show_managed_fields) {
        /* as kubectl: ownership bookkeeping is noise unless asked for */
        size_t i;
        json_t *obj;
        json_array_foreach(all, i, obj)
        {
            json_t *meta = json_object_get(obj, "metadata");
            if (!json_object_get(meta, "managedFields"))
                continue;
            if (obj->refcount == 1) { /* only all holds it (the answers are gone) */
                json_object_del(meta, "managedFields");
                continue;
            }
            json_t *copy = json_deep_copy(obj);
            json_object_del(json_object_get(copy, "metadata"), "managedFields");
            json_array_set_new(all, i, copy);
        }
    }
    bool single = res->by_name && total_names == 1 && json_array_size(all) == 1;
    /* as kubectl: one name asked for and not got, or nothing with --ignore-not-found,
     * prints nothing (not an empty List) */
    bool none = !json_array_size(all) &&
                ((res->by_name && total_names == 1) || g->opt->ignore_not_found);
    if (none)
        ;
    else if (sort && nd_print_sort(all, sort, &st) < 0)
        report_local(&st, worst);
    else if (nd_print_objects(all, single, &g->popts, out, &st) < 0)
        report_local(&st, worst);
    nd_status_release(&st);
}

/* "No resources found in PROJECT namespace." on stderr, as kubectl. */
static void say_empty(const struct get_run *g, const struct nd_res_list *res)
{
    struct nd_buf msg = ND_BUF_INIT;
    bool cluster = !res->v[0].k->namespaced;
    nd_print_empty_message(cluster ? NULL : g->ns, g->ns == NULL, &msg);
    fputs(msg.data, stderr);
    nd_buf_release(&msg);
}

/* Lists or shows the objects of every resource argument: a table per kind, or all of
 * them in one document. */
static int get_all(struct get_run *g, const struct nd_res_list *res)
{
    int worst = 0;
    json_t *all_objects = json_array();
    size_t total_names = 0, printed = 0;
    bool json_printed = false;
    struct nd_buf out = ND_BUF_INIT;
    /* NODUS_GET_TREE=1: every list read as a tree (the oracle of the bytes paths' tests) */
    const char *tree = getenv("NODUS_GET_TREE");
    /* kubectl -o json of one list, as it comes: written from the answer's bytes */
    g->json_bytes = !g->table && g->popts.output == ND_OUTPUT_JSON && !g->opt->sort_by &&
                    res->n == 1 && !json_array_size(res->v[0].names) && !(tree && *tree);
    /* a table of lists, as it comes: read from the Table answers' bytes */
    g->table_bytes = g->table && !g->opt->sort_by && !(tree && *tree);
    for (size_t i = 0; i < res->n; i++) {
        struct gathered o = {.answer = NULL, .objects = json_array(), .built = false};
        nd_table_init(&o.fast);
        total_names += json_array_size(res->v[i].names);
        int rc = gather(g, &res->v[i], &o, &worst, &out, &json_printed);
        if (rc == 0 && g->table)
            printed += add_table(g, res->v[i].k, o.answer, o.objects, o.built ? &o.fast : NULL,
                                 printed, &out, &worst);
        else if (rc == 0)
            add_objects(o.answer, o.objects, all_objects);
        nd_table_release(&o.fast);
        json_decref(o.answer);
        json_decref(o.objects);
        if (rc < 0)
            goto done; /* nothing printed */
    }
    if (!g->table && !json_printed)
        print_all_objects(g, res, total_names, all_objects, &out, &worst);
    nd_out(&out);
    fflush(stdout);
    if (g->table && !printed && !res->by_name && !worst)
        say_empty(g, res);
done:
    nd_buf_release(&out);
    json_decref(all_objects);
    return worst;
}

static int run_get(struct get_run *g, int npos, char **pos)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res;
    int worst = 0;
    bool watch = g->opt->watch || g->opt->watch_only;
    if (npos == 0) {
        worst = nd_cli_usage(g->ctx, "You must specify the type of resource to get. Use \"nodus "
                                     "api-resources\" for a complete list of supported "
                                     "resources.");
        memset(&res, 0, sizeof res);
        goto out;
    }
    if (nd_resolve_args(npos, pos, &res, &st) < 0) {
        worst = nd_cli_error(g->ctx, &st);
        goto out;
    }
    if (watch && res.n != 1) {
        worst = nd_cli_usage(g->ctx, "you may only specify a single resource type to watch");
        goto out;
    }
    if (watch) {
        worst = run_watch(g, &res.v[0]);
        goto out;
    }
    if (res.several)
        g->popts.show_kind = true;
    worst = get_all(g, &res);
out:
    nd_res_list_release(&res);
    nd_status_release(&st);
    return worst;
}

static int raw_get(struct get_run *g, const char *path)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_request req = {.method = "GET", .path = path};
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = 0;
    if (nd_client_do(g->client, &req, &resp, &st) < 0) {
        rc = nd_cli_error(g->ctx, &st);
    } else if (resp.code < 200 || resp.code > 299) {
        nd_status_parse(&st, resp.body.data, resp.body.len, resp.code);
        rc = nd_cli_error(g->ctx, &st);
    } else {
        nd_out(&resp.body);
    }
    nd_response_release(&resp);
    nd_status_release(&st);
    return rc;
}

int cmd_get(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct get_opts opt = {.chunk_size = 500};
    struct nd_status st = ND_STATUS_INIT;
    struct get_run g = {.ctx = ctx, .opt = &opt};
    nd_print_opts_init(&g.popts);
    int rc;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_print_parse_output(opt.output, &g.popts, &st) < 0 ||
        nd_print_opts_read_file(&g.popts, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    g.client = nd_ctx_client(ctx, &st);
    if (!g.client) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (opt.raw) {
        rc = raw_get(&g, opt.raw);
        goto out;
    }
    g.ns = ctx->all_projects ? NULL : nd_ctx_project(ctx);
    g.label_sel = opt.selector;
    g.field_sel = opt.field_selector;
    g.chunk = (long)opt.chunk_size;
    g.table = nd_print_is_table(&g.popts);
    g.events = opt.output_watch_events;
    g.popts.no_headers = opt.no_headers;
    g.popts.show_labels = opt.show_labels;
    g.popts.show_kind = opt.show_kind;
    g.popts.all_projects = ctx->all_projects;
    g.popts.color = nd_ctx_color(ctx);
    const struct nd_strings *lc = &opt.label_columns;
    if (lc->n) {
        g.label_columns = nd_xcalloc(lc->n + 1, sizeof *g.label_columns);
        for (size_t i = 0; i < lc->n; i++)
            g.label_columns[i] = lc->v[i];
        g.popts.label_columns = g.label_columns;
    }
    rc = run_get(&g, o.npos, o.pos);
out:
    free(g.label_columns);
    nd_print_opts_release(&g.popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
