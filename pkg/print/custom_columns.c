/* custom_columns.c: -o custom-columns and custom-columns-file, as kubectl's
 * CustomColumnsPrinter (k8s.io/kubectl/pkg/cmd/get/customcolumn.go). */
#include "print/print.h"

#include <stdlib.h>
#include <string.h>

#include "jsonpath/jsonpath.h"
#include "util/term.h"
#include "util/xmalloc.h"

struct nd_custom_columns {
    size_t n;
    char **headers;
    struct nd_jsonpath **paths;
    bool from_file; /* kubectl prints a template file's header even with --no-headers */
};

#define TEMPLATE_FORMAT                                                                            \
    "Expected format is one line of space separated headers, one line of space separated "         \
    "column specs."

void nd_custom_columns_free(struct nd_custom_columns *cc)
{
    if (!cc)
        return;
    for (size_t i = 0; i < cc->n; i++) {
        free(cc->headers[i]);
        nd_jsonpath_free(cc->paths[i]);
    }
    free(cc->headers);
    free(cc->paths);
    free(cc);
}

/* Adds a column: header (n bytes) and expr (relaxed first). -1 with st = Usage. */
static int add_column(struct nd_custom_columns *cc, const char *header, size_t n, const char *expr,
                      struct nd_status *st)
{
    char *relaxed = nd_jsonpath_relaxed(expr);
    if (!relaxed)
        return nd_status_set(st, "Usage", NULL, "%s", ND_JSONPATH_RELAXED_ERROR);
    struct nd_status pst = ND_STATUS_INIT;
    struct nd_jsonpath *jp = nd_jsonpath_parse(relaxed, &pst);
    free(relaxed);
    if (!jp) {
        nd_status_set(st, "Usage", NULL, "%s", pst.message);
        nd_status_release(&pst);
        return -1;
    }
    cc->headers = nd_xrealloc(cc->headers, (cc->n + 1) * sizeof *cc->headers);
    cc->paths = nd_xrealloc(cc->paths, (cc->n + 1) * sizeof *cc->paths);
    cc->headers[cc->n] = nd_xstrndup(header, n);
    cc->paths[cc->n] = jp;
    cc->n++;
    return 0;
}

struct nd_custom_columns *nd_custom_columns_parse(const char *spec, struct nd_status *st)
{
    if (!spec || !*spec) {
        nd_status_set(st, "Usage", NULL,
                      "custom-columns format specified but no custom columns given");
        return NULL;
    }
    struct nd_custom_columns *cc = nd_xcalloc(1, sizeof *cc);
    const char *part = spec;
    for (;;) {
        size_t len = strcspn(part, ",");
        char *one = nd_xstrndup(part, len);
        char *colon = strchr(one, ':');
        int rc;
        if (!colon)
            rc = nd_status_set(st, "Usage", NULL,
                               "unexpected custom-columns spec: %s, expected "
                               "<header>:<json-path-expr>",
                               one);
        else
            rc = add_column(cc, one, (size_t)(colon - one), colon + 1, st);
        free(one);
        if (rc < 0) {
            nd_custom_columns_free(cc);
            return NULL;
        }
        if (!part[len])
            break;
        part += len + 1;
    }
    return cc;
}

/* Go's bufio.ScanLines: the next line of [*p, end) without "\n" or "\r\n"; false at the
 * end (a last line without a newline still counts when it is not empty). */
static bool next_line(const char **p, const char *end, const char **line, size_t *n)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *stop = nl ? nl : end;
    *line = *p;
    *n = (size_t)(stop - *p);
    if (*n > 0 && (*line)[*n - 1] == '\r')
        (*n)--;
    *p = nl ? nl + 1 : end;
    return true;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The words of a line (bufio.ScanWords on ASCII white space), as a NEW array of strings. */
static json_t *words(const char *s, size_t n)
{
    json_t *out = json_array();
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        size_t start = i;
        while (i < n && !is_space(s[i]))
            i++;
        if (i > start)
            json_array_append_new(out, json_stringn(s + start, i - start));
    }
    return out;
}

struct nd_custom_columns *nd_custom_columns_parse_file(const char *text, size_t len,
                                                       struct nd_status *st)
{
    const char *p = text, *end = text + len, *line;
    size_t n;
    if (!next_line(&p, end, &line, &n)) {
        nd_status_set(st, "Usage", NULL, "invalid template, missing header line. %s",
                      TEMPLATE_FORMAT);
        return NULL;
    }
    json_t *headers = words(line, n);
    if (!next_line(&p, end, &line, &n)) {
        json_decref(headers);
        nd_status_set(st, "Usage", NULL, "invalid template, missing spec line. %s",
                      TEMPLATE_FORMAT);
        return NULL;
    }
    json_t *specs = words(line, n);
    struct nd_custom_columns *cc = NULL;
    if (json_array_size(headers) != json_array_size(specs)) {
        nd_status_set(st, "Usage", NULL,
                      "number of headers (%zu) and field specifications (%zu) don't match",
                      json_array_size(headers), json_array_size(specs));
        goto out;
    }
    cc = nd_xcalloc(1, sizeof *cc);
    cc->from_file = true;
    for (size_t i = 0; i < json_array_size(headers); i++) {
        const json_t *h = json_array_get(headers, i);
        if (add_column(cc, json_string_value(h), json_string_length(h),
                       json_string_value(json_array_get(specs, i)), st) < 0) {
            nd_custom_columns_free(cc);
            cc = NULL;
            goto out;
        }
    }
out:
    json_decref(headers);
    json_decref(specs);
    return cc;
}

void nd_custom_columns_table(const struct nd_custom_columns *cc, bool no_headers,
                             struct nd_table *t)
{
    for (size_t i = 0; i < cc->n; i++)
        nd_table_add_column(t, cc->headers[i]);
    t->header_if_empty = true;
    t->no_headers = no_headers && !cc->from_file;
}

int nd_custom_columns_add_row(const struct nd_custom_columns *cc, const json_t *obj,
                              struct nd_table *t, struct nd_status *st)
{
    char **cells = nd_xcalloc(cc->n + 1, sizeof *cells);
    int rc = 0;
    for (size_t i = 0; i < cc->n; i++) {
        json_t *found = nd_jsonpath_eval(cc->paths[i], obj, true, st);
        if (!found) {
            rc = -1;
            break;
        }
        struct nd_buf b = ND_BUF_INIT;
        if (json_array_size(found) == 0 || json_array_size(json_array_get(found, 0)) == 0)
            nd_buf_adds(&b, "<none>");
        size_t a, k;
        json_t *piece, *v;
        bool first = b.len == 0; /* kubectl keeps "<none>" before later pieces */
        json_array_foreach(found, a, piece)
        {
            json_array_foreach(piece, k, v)
            {
                if (!first)
                    nd_buf_addch(&b, ',');
                first = false;
                nd_jsonpath_format_go(v, &b);
            }
        }
        json_decref(found);
        cells[i] = nd_term_safe(b.data, ND_TERM_KEEP_TAB); /* a table: a server's strings */
        nd_buf_release(&b);
    }
    if (rc == 0) {
        size_t r = nd_table_add_row(t);
        for (size_t i = 0; i < cc->n; i++)
            nd_table_set(t, r, i, cells[i]);
    }
    for (size_t i = 0; i < cc->n; i++)
        free(cells[i]);
    free(cells);
    return rc;
}
