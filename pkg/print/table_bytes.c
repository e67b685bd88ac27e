/* table_bytes.c: a server's Table answer read from its bytes (print.h, nd_table_bytes_page).
 *
 * The tree path loads the whole answer with jansson (a node and a malloc per cell and
 * per key), then reads each row's cells: at 1,000 Jobs most of `get jobs`'s CPU. Here
 * the answer's members are found by their extents; the small ones (kind, metadata,
 * columnDefinitions) and each row's object, when the server sent one, are read by
 * jansson, and the rows' cells straight from the bytes: a string without an escape as
 * it is, anything else (an escape, a number, true, false, null) by jansson alone. Every
 * byte is checked as the tree's loader would check it (UTF-8, control bytes, duplicate
 * keys, depth); what this does not do alone (a key with an escape, a cell that is a list
 * or a map, a row that is not an object, rows merged oddly across pages) returns -1 and
 * the caller takes the tree path, which prints what is wrong. The decoration (NAMESPACE,
 * -L, LABELS, kind.group/, escapes, colour) is table_build.c's, shared by both paths. */
#include "print/print.h"

#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/xmalloc.h"

/* A cell of a row as written: a string without an escape (its bytes), or any other
 * value's text (read by jansson). */
struct cell {
    struct nd_json_span s;
    bool raw; /* s is a string's bytes */
};

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* After an item: the next one's start (*more 1), past close (*more 0), or NULL. */
static const char *next_item(const char *p, const char *e, char close, int *more)
{
    p = ws(p, e);
    if (p < e && *p == ',') {
        *more = 1;
        return ws(p + 1, e);
    }
    if (p < e && *p == close) {
        *more = 0;
        return p + 1;
    }
    return NULL;
}

static bool span_is(const struct nd_json_span *s, const char *word)
{
    size_t n = strlen(word);
    return s->n == n && memcmp(s->p, word, n) == 0;
}

/* A value read by jansson as the tree's loader reads it, nested at depth in the answer:
 * NEW, or NULL when it is refused or nests past the loader's bound. */
static json_t *load_at_depth(const char *p, size_t n, size_t depth)
{
    json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (v && nd_json_depth(v) + depth > ND_JSON_MAX_DEPTH) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* The cells array at p: the first max of them into c[], *n how many there are. */
static const char *scan_cells(const char *p, const char *e, struct cell *c, size_t max,
                              size_t *n)
{
    *n = 0;
    if (p >= e || *p != '[')
        return NULL;
    p = ws(p + 1, e);
    if (p < e && *p == ']')
        return p + 1;
    for (;;) {
        struct cell x = {.raw = false};
        if (p >= e)
            return NULL;
        if (*p == '"') {
            int esc;
            const char *q = nd_json_scan_string(p, e, &x.s, &esc);
            if (!q)
                return NULL;
            if (esc) { /* the whole string, quotes and all, for jansson */
                x.s.p = p;
                x.s.n = (size_t)(q - p);
            } else {
                x.raw = true;
            }
            p = q;
        } else if (*p == '[' || *p == '{') {
            return NULL; /* a list or a map: the tree's */
        } else {
            const char *q = nd_json_skip_value(p, e, 0);
            if (!q)
                return NULL;
            x.s.p = p;
            x.s.n = (size_t)(q - p);
            p = q;
        }
        if (!x.raw) { /* checked as the loader would, shown or not */
            json_t *v = json_loadb(x.s.p, x.s.n, JSON_DECODE_ANY, NULL);
            if (!v)
                return NULL;
            json_decref(v);
        }
        if (*n < max)
            c[*n] = x;
        (*n)++;
        int more;
        if (!(p = next_item(p, e, ']', &more)))
            return NULL;
        if (!more)
            return p;
    }
}

/* A cell's text for the row: NEW, or NULL when jansson refuses it. */
static char *cell_text(const struct cell *c)
{
    if (c->raw)
        return nd_xstrndup(c->s.p, c->s.n);
    json_t *v = load_at_depth(c->s.p, c->s.n, 4); /* answer, rows, row, cells */
    if (!v)
        return NULL;
    char *s = nd_print_table_cell(v);
    json_decref(v);
    return s;
}

#define ROW_KEYS 8
#define PAGE_KEYS 16

static bool key_seen(const struct nd_json_span *keys, size_t n, const struct nd_json_span *k)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i].n == k->n && memcmp(keys[i].p, k->p, k->n) == 0)
            return true;
    return false;
}

/* The key of a member at p (its quote) and the ':' after it: *key set, keys[] (*n of
 * them, at most max) checked for a duplicate and added to; the value's start, or NULL. */
static const char *member_key(const char *p, const char *e, struct nd_json_span *keys, size_t *n,
                              size_t max, struct nd_json_span *key)
{
    int esc;
    if (!(p = nd_json_scan_string(p, e, key, &esc)) || esc || *n == max ||
        key_seen(keys, *n, key)) /* a duplicate: the loader refuses it */
        return NULL;
    keys[(*n)++] = *key;
    p = ws(p, e);
    if (p >= e || *p != ':')
        return NULL;
    return ws(p + 1, e);
}

/* The shown cells of a row as text, one after another in row (each NUL-terminated),
 * cells[] pointing into it. -1 when jansson refuses one. */
static int row_texts(const size_t *shown, size_t nshown, const struct cell *c,
                     struct nd_buf *row, char **cells)
{
    size_t off[64], *o = nshown <= 64 ? off : nd_xmalloc(nshown * sizeof *o);
    int rc = -1;
    nd_buf_reset(row);
    for (size_t i = 0; i < nshown; i++) {
        const struct cell *x = &c[shown[i]];
        o[i] = row->len;
        if (x->raw) {
            nd_buf_add(row, x->s.p, x->s.n);
        } else {
            char *t = cell_text(x);
            if (!t)
                goto out;
            nd_buf_adds(row, t);
            free(t);
        }
        nd_buf_addch(row, '\0');
    }
    for (size_t i = 0; i < nshown; i++)
        cells[i] = row->data + o[i];
    rc = 0;
out:
    if (o != off)
        free(o);
    return rc;
}

/* One row (an object) at p, added to the table. NULL: the tree's. */
static const char *scan_row(struct nd_table_bytes *tb, const char *p, const char *e,
                            struct cell *c, struct nd_buf *row, char **cells)
{
    size_t ndefs = nd_print_table_ndefs(tb->b), nshown;
    const size_t *shown = nd_print_table_shown(tb->b, &nshown);
    struct nd_json_span keys[ROW_KEYS];
    size_t nkeys = 0, ncells = 0;
    bool have_cells = false;
    json_t *obj = NULL;
    if (p >= e || *p != '{')
        return NULL;
    p = ws(p + 1, e);
    if (p < e && *p == '}')
        return NULL; /* no cells */
    for (;;) {
        struct nd_json_span key;
        if (!(p = member_key(p, e, keys, &nkeys, ROW_KEYS, &key)))
            goto fail;
        if (span_is(&key, "cells")) {
            if (!(p = scan_cells(p, e, c, ndefs, &ncells)))
                goto fail;
            have_cells = true;
        } else {
            const char *v = p;
            if (!(p = nd_json_skip_value(p, e, 3)))
                goto fail;
            json_t *x = load_at_depth(v, (size_t)(p - v), 3); /* answer, rows, row */
            if (!x)
                goto fail;
            if (span_is(&key, "object"))
                obj = x;
            else
                json_decref(x);
        }
        int more;
        if (!(p = next_item(p, e, '}', &more)))
            goto fail;
        if (!more)
            break;
    }
    if (!have_cells || ncells < ndefs || row_texts(shown, nshown, c, row, cells) < 0)
        goto fail;
    nd_print_table_row(tb->b, obj, cells);
    json_decref(obj);
    tb->rows++;
    return p;
fail:
    json_decref(obj);
    return NULL;
}

/* The rows array at p (its '['), each row added to the table; past its ']', or NULL. */
static const char *scan_rows(struct nd_table_bytes *tb, const char *p, const char *e)
{
    size_t ndefs = nd_print_table_ndefs(tb->b), nshown;
    nd_print_table_shown(tb->b, &nshown);
    struct cell *c = nd_xcalloc(ndefs + 1, sizeof *c);
    char **cells = nd_xcalloc(nshown + 1, sizeof *cells);
    struct nd_buf row = ND_BUF_INIT;
    p = ws(p + 1, e);
    if (p < e && *p == ']') {
        p++;
    } else {
        for (;;) {
            int more;
            if (!(p = scan_row(tb, p, e, c, &row, cells)) || !(p = next_item(p, e, ']', &more)))
                break;
            if (!more)
                break;
        }
    }
    nd_buf_release(&row);
    free(cells);
    free(c);
    return p;
}

/* The table's columns from the first page's columnDefinitions (defs); 0 when they are
 * already set. */
static int begin(struct nd_table_bytes *tb, const json_t *defs)
{
    if (tb->b)
        return 0;
    struct nd_status st = ND_STATUS_INIT;
    tb->b = nd_print_table_start(tb->t, defs, tb->k, tb->opts, &st);
    if (tb->b && nd_print_table_headers(tb->b, &st) < 0) {
        nd_print_table_finish(tb->b);
        tb->b = NULL;
    }
    nd_status_release(&st);
    return tb->b ? 0 : -1;
}

int nd_table_bytes_page(struct nd_table_bytes *tb, const char *text, size_t len, char **cont)
{
    const char *p = text, *e = text + len, *rows_at = NULL;
    struct nd_json_span keys[PAGE_KEYS];
    size_t nkeys = 0;
    json_t *meta = NULL, *defs = NULL;
    bool first = !tb->b, table = false, rows = false, rows_done = false, defs_seen = false;
    int rc = -1;
    *cont = NULL;
    p = ws(p, e);
    if (p >= e || *p != '{')
        goto out;
    p = ws(p + 1, e);
    if (p < e && *p == '}')
        goto out; /* not a Table */
    for (;;) {
        struct nd_json_span key;
        if (!(p = member_key(p, e, keys, &nkeys, PAGE_KEYS, &key)))
            goto out;
        if (span_is(&key, "rows") && p < e && *p == '[') {
            rows = true;
            /* read now when the columns are known (the order a server writes), else
             * skipped and read once they are */
            if (table && (defs_seen || !first)) {
                if (begin(tb, defs) < 0 || !(p = scan_rows(tb, p, e)))
                    goto out;
                rows_done = true;
            } else {
                rows_at = p;
                if (!(p = nd_json_skip_value(p, e, 1)))
                    goto out;
            }
        } else {
            const char *v = p;
            if (!(p = nd_json_skip_value(p, e, 1)))
                goto out;
            json_t *x = load_at_depth(v, (size_t)(p - v), 1);
            if (!x)
                goto out;
            if (span_is(&key, "rows") && !json_is_null(x)) { /* rows is not a list */
                json_decref(x);
                goto out;
            }
            if (span_is(&key, "kind")) {
                const char *s = json_string_value(x);
                table = s && strcmp(s, "Table") == 0;
            }
            if (span_is(&key, "metadata")) {
                meta = x;
            } else if (span_is(&key, "columnDefinitions")) {
                defs = x;
                defs_seen = true;
            } else {
                json_decref(x);
            }
        }
        int more;
        if (!(p = next_item(p, e, '}', &more)))
            goto out;
        if (!more)
            break;
    }
    if (ws(p, e) != e || !table || begin(tb, defs) < 0)
        goto out;
    if (first)
        tb->first_rows = rows;
    else if (!tb->first_rows || !rows)
        goto out; /* the tree path adds a page's rows to the first page's list only */
    if (rows_at && !rows_done && !scan_rows(tb, rows_at, e))
        goto out;
    const char *c = json_string_value(json_object_get(meta, "continue"));
    if (c && *c)
        *cont = nd_xstrdup(c);
    rc = 0;
out:
    json_decref(meta);
    json_decref(defs);
    return rc;
}

void nd_table_bytes_release(struct nd_table_bytes *tb)
{
    nd_print_table_finish(tb->b);
    tb->b = NULL;
}
