/* table_build.c: tables of objects, from a server Table answer or from the registry's
 * printer columns, decorated as kubectl's table printer decorates them (NAMESPACE first,
 * -L columns, LABELS last, kind.group/ before names). */
#include "print/print.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath/jsonpath.h"
#include "util/term.h"
#include "util/xmalloc.h"

/* One column of the source (a Table's columnDefinition or a registry column). */
struct src_col {
    const char *name;
    bool is_name;  /* the column kind.group/ goes in front of, with show_kind */
    bool is_phase; /* coloured */
};

struct deco {
    const struct nd_print_opts *o;
    char *kind_prefix; /* "job.nodus.dev", or NULL when names stay as they are */
    struct src_col *cols;
    size_t ncols;
};

static void upper(struct nd_buf *b, const char *s)
{
    for (; *s; s++)
        nd_buf_addch(b, (char)toupper((unsigned char)*s));
}

static size_t count_labels(const struct nd_print_opts *o)
{
    size_t n = 0;
    while (o->label_columns && o->label_columns[n])
        n++;
    return n;
}

static void deco_init(struct deco *d, const struct nd_print_opts *o, const struct nd_kind *k)
{
    memset(d, 0, sizeof *d);
    d->o = o;
    if (o->show_kind && k) {
        char kn[ND_KIND_NAME_MAX];
        d->kind_prefix = nd_xstrdup(nd_kind_display_name(k, kn, sizeof kn));
    }
}

static void deco_release(struct deco *d)
{
    free(d->kind_prefix);
    free(d->cols);
}

static void deco_add_col(struct deco *d, const char *name, const char *format, const char *type)
{
    d->cols = nd_xrealloc(d->cols, (d->ncols + 1) * sizeof *d->cols);
    struct src_col *c = &d->cols[d->ncols++];
    c->name = name;
    c->is_name = false;
    if (d->kind_prefix && format && strcmp(format, "name") == 0 &&
        (!type || strcmp(type, "string") == 0)) {
        bool seen = false;
        for (size_t i = 0; i + 1 < d->ncols; i++)
            seen = seen || d->cols[i].is_name;
        c->is_name = !seen; /* kubectl decorates the first such column only */
    }
    struct nd_buf u = ND_BUF_INIT;
    upper(&u, name);
    c->is_phase = d->o->color && strcmp(u.data, "PHASE") == 0;
    nd_buf_release(&u);
}

/* The headers of the decorated table; only checked against an existing table's shape. */
static int set_headers(const struct deco *d, struct nd_table *t, struct nd_status *st)
{
    size_t nlabels = count_labels(d->o);
    size_t want = d->ncols + nlabels + (d->o->all_projects ? 1 : 0) + (d->o->show_labels ? 1 : 0);
    if (t->ncols > 0) {
        if (t->ncols != want)
            return nd_status_set(st, "BadRequest", NULL,
                                 "malformed Table answer: %zu columns where the table printed "
                                 "so far has %zu",
                                 want, t->ncols);
        return 0;
    }
    struct nd_buf b = ND_BUF_INIT;
    if (d->o->all_projects)
        nd_table_add_column(t, "NAMESPACE");
    for (size_t i = 0; i < d->ncols; i++) {
        nd_buf_reset(&b);
        upper(&b, d->cols[i].name);
        char *safe = nd_term_safe(b.data, 0); /* a server's column name */
        nd_table_add_column(t, safe);
        free(safe);
    }
    for (size_t i = 0; i < nlabels; i++) {
        const char *key = d->o->label_columns[i];
        const char *slash = strrchr(key, '/');
        nd_buf_reset(&b);
        upper(&b, slash ? slash + 1 : key);
        nd_table_add_column(t, b.data);
    }
    if (d->o->show_labels)
        nd_table_add_column(t, "LABELS");
    nd_buf_release(&b);
    return 0;
}

/* labels.FormatLabels: k=v sorted by key, joined by ","; <none> when there are none. */
static void format_labels(const json_t *labels, struct nd_buf *out)
{
    size_t n = json_object_size(labels);
    if (n == 0) {
        nd_buf_adds(out, "<none>");
        return;
    }
    const char **keys = nd_xmalloc(n * sizeof *keys);
    size_t i = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)labels, key, v) keys[i++] = key;
    for (size_t a = 1; a < n; a++) /* insertion sort: label maps are small */
        for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
            const char *tmp = keys[b];
            keys[b] = keys[b - 1];
            keys[b - 1] = tmp;
        }
    for (i = 0; i < n; i++) {
        const char *val = json_string_value(json_object_get(labels, keys[i]));
        nd_buf_addf(out, "%s%s=%s", i ? "," : "", keys[i], val ? val : "");
    }
    free(keys);
}

/* Appends a row: ns and label cells from obj (NULL: left empty, as kubectl does when a
 * row has no object), the source cells from cells[] (raw text, escaped here). */
static void add_row(const struct deco *d, struct nd_table *t, const json_t *obj, char *const *cells)
{
    size_t r = nd_table_add_row(t);
    size_t col = 0;
    struct nd_buf b = ND_BUF_INIT;
    const json_t *meta = obj ? json_object_get(obj, "metadata") : NULL;
    const json_t *labels = json_object_get(meta, "labels");
    if (d->o->all_projects) {
        const char *ns = json_string_value(json_object_get(meta, "namespace"));
        nd_print_cell_escape(ns ? ns : "", &b);
        nd_table_set(t, r, col++, b.data);
    }
    struct nd_buf esc = ND_BUF_INIT;
    for (size_t i = 0; i < d->ncols; i++) {
        const char *text = cells[i];
        if (d->cols[i].is_name) {
            nd_buf_reset(&b);
            nd_buf_addf(&b, "%s/", d->kind_prefix);
            nd_buf_adds(&b, cells[i]);
            text = b.data;
        }
        nd_buf_reset(&esc);
        nd_print_cell_escape(text, &esc);
        if (d->cols[i].is_phase && nd_print_phase_color(esc.data)) {
            nd_buf_reset(&b);
            nd_print_add_colored(&b, esc.data, nd_print_phase_color(esc.data));
            nd_table_set(t, r, col++, b.data);
        } else {
            nd_table_set(t, r, col++, esc.data);
        }
    }
    nd_buf_release(&esc);
    for (size_t i = 0; d->o->label_columns && d->o->label_columns[i]; i++, col++) {
        const char *v = json_string_value(json_object_get(labels, d->o->label_columns[i]));
        nd_buf_reset(&b);
        nd_print_cell_escape(v ? v : "", &b);
        nd_table_set(t, r, col, b.data);
    }
    if (d->o->show_labels && obj) {
        struct nd_buf l = ND_BUF_INIT;
        format_labels(labels, &l);
        nd_buf_reset(&b);
        nd_print_cell_escape(l.data, &b);
        nd_table_set(t, r, col, b.data);
        nd_buf_release(&l);
    }
    nd_buf_release(&b);
}

/* A non-string cell as kubectl prints it: fmt's %v, with ESC and CR made visible. */
static char *go_cell(const json_t *v)
{
    if (json_is_null(v))
        return nd_xstrdup("");
    if (json_is_string(v))
        return nd_xstrdup(json_string_value(v));
    struct nd_buf raw = ND_BUF_INIT, b = ND_BUF_INIT;
    nd_jsonpath_format_go(v, &raw);
    nd_term_escape(&b, raw.data, raw.len, ND_TERM_KEEP_TAB);
    nd_buf_release(&raw);
    return nd_buf_detach(&b);
}

/* A server Table's columns while its rows are added (print.h, nd_print_table_start). */
struct nd_table_rows {
    struct deco d;
    struct nd_table *t;
    size_t ndefs;
    size_t *keep, nkeep;
};

struct nd_table_rows *nd_print_table_start(struct nd_table *t, const json_t *defs,
                                           const struct nd_kind *k,
                                           const struct nd_print_opts *opts, struct nd_status *st)
{
    bool wide = opts->output == ND_OUTPUT_WIDE;
    if (!json_is_array(defs)) {
        nd_status_set(st, "BadRequest", NULL,
                      "malformed Table answer: columnDefinitions is not a list");
        return NULL;
    }
    struct nd_table_rows *b = nd_xcalloc(1, sizeof *b);
    deco_init(&b->d, opts, k);
    b->t = t;
    b->ndefs = json_array_size(defs);
    b->keep = nd_xmalloc((b->ndefs + 1) * sizeof *b->keep);
    for (size_t i = 0; i < b->ndefs; i++) {
        const json_t *def = json_array_get(defs, i);
        const char *name = json_string_value(json_object_get(def, "name"));
        if (!name) {
            nd_status_set(st, "BadRequest", NULL,
                          "malformed Table answer: columnDefinitions[%zu].name is not a string", i);
            nd_print_table_finish(b);
            return NULL;
        }
        json_int_t prio = json_integer_value(json_object_get(def, "priority"));
        if (!wide && prio != 0)
            continue;
        b->keep[b->nkeep++] = i;
        deco_add_col(&b->d, name, json_string_value(json_object_get(def, "format")),
                     json_string_value(json_object_get(def, "type")));
    }
    return b;
}

size_t nd_print_table_ndefs(const struct nd_table_rows *b)
{
    return b->ndefs;
}

const size_t *nd_print_table_shown(const struct nd_table_rows *b, size_t *n)
{
    *n = b->nkeep;
    return b->keep;
}

int nd_print_table_headers(struct nd_table_rows *b, struct nd_status *st)
{
    return set_headers(&b->d, b->t, st);
}

void nd_print_table_row(struct nd_table_rows *b, const json_t *obj, char *const *cells)
{
    add_row(&b->d, b->t, json_is_object(obj) ? obj : NULL, cells);
}

void nd_print_table_finish(struct nd_table_rows *b)
{
    if (!b)
        return;
    free(b->keep);
    deco_release(&b->d);
    free(b);
}

char *nd_print_table_cell(const json_t *v)
{
    return go_cell(v);
}

int nd_print_table_from_server(struct nd_table *t, const json_t *answer, const struct nd_kind *k,
                               const struct nd_print_opts *opts, struct nd_status *st)
{
    const json_t *defs = json_object_get(answer, "columnDefinitions");
    const json_t *rows = json_object_get(answer, "rows");
    char **cells = NULL;
    int rc = -1;
    if (!json_is_object(answer) || !json_is_array(defs))
        return nd_status_set(st, "BadRequest", NULL,
                             "malformed Table answer: columnDefinitions is not a list");
    if (rows && !json_is_null(rows) && !json_is_array(rows))
        return nd_status_set(st, "BadRequest", NULL, "malformed Table answer: rows is not a list");
    struct nd_table_rows *b = nd_print_table_start(t, defs, k, opts, st);
    if (!b)
        return -1;
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *cs = json_object_get(json_array_get(rows, r), "cells");
        if (!json_is_array(cs) || json_array_size(cs) < b->ndefs) {
            nd_status_set(st, "BadRequest", NULL,
                          "malformed Table answer: rows[%zu].cells must be a list of %zu cells, "
                          "one per columnDefinition",
                          r, b->ndefs);
            goto out;
        }
    }
    if (nd_print_table_headers(b, st) < 0)
        goto out;
    cells = nd_xcalloc(b->nkeep + 1, sizeof *cells);
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *row = json_array_get(rows, r);
        const json_t *cs = json_object_get(row, "cells");
        for (size_t i = 0; i < b->nkeep; i++) {
            free(cells[i]);
            cells[i] = go_cell(json_array_get(cs, b->keep[i]));
        }
        nd_print_table_row(b, json_object_get(row, "object"), cells);
    }
    rc = 0;
out:
    for (size_t i = 0; cells && i < b->nkeep; i++)
        free(cells[i]);
    free(cells);
    nd_print_table_finish(b);
    return rc;
}

int nd_print_table_from_objects(struct nd_table *t, const json_t *objects, const struct nd_kind *k,
                                int64_t now_unix, const struct nd_print_opts *opts,
                                struct nd_status *st)
{
    if (!k || !json_is_array(objects))
        return nd_status_set(st, "BadRequest", NULL, "a table needs a kind and a list of objects");
    bool wide = opts->output == ND_OUTPUT_WIDE;
    struct deco d;
    deco_init(&d, opts, k);
    const struct nd_column **cols = NULL;
    size_t ncols = 0;
    for (const struct nd_column *c = k->columns; c && c->name; c++) {
        if (!wide && c->priority != 0)
            continue;
        cols = nd_xrealloc(cols, (ncols + 1) * sizeof *cols);
        cols[ncols++] = c;
        deco_add_col(&d, c->name, c->format, c->type);
    }
    int rc = set_headers(&d, t, st);
    char **cells = nd_xcalloc(ncols + 1, sizeof *cells);
    for (size_t r = 0; rc == 0 && r < json_array_size(objects); r++) {
        const json_t *obj = json_array_get(objects, r);
        for (size_t i = 0; i < ncols; i++) {
            struct nd_buf b = ND_BUF_INIT;
            nd_column_render(cols[i], obj, now_unix, &b);
            free(cells[i]);
            cells[i] = nd_buf_detach(&b);
        }
        add_row(&d, t, json_is_object(obj) ? obj : NULL, cells);
    }
    for (size_t i = 0; i < ncols; i++)
        free(cells[i]);
    free(cells);
    free(cols);
    deco_release(&d);
    return rc;
}

void nd_print_empty_message(const char *ns, bool all_projects, struct nd_buf *out)
{
    if (all_projects || !ns || !ns[0])
        nd_buf_adds(out, "No resources found\n");
    else
        nd_buf_addf(out, "No resources found in %s namespace.\n", ns);
}
