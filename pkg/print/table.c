/* table.c: aligned tables as kubectl's tabwriter prints them.
 *
 * kubectl writes rows as tab-separated cells through
 * tabwriter.NewWriter(out, 6, 4, 3, ' ', RememberWidths): a cell followed by a tab is
 * padded to its column's width (widest cell + 3, at least 6, never narrower than an
 * earlier flush made it); the last cell of a line is written as it is.
 */
#include "print/print.h"

#include <stdlib.h>
#include <string.h>

#include "util/term.h"
#include "util/xmalloc.h"

#define MIN_WIDTH 6
#define PADDING   3

/* Every empty cell: a table of 1,000 rows has thousands. */
static char empty_cell[1];

/* The cells' text is cut from blocks of ARENA bytes (a malloc and a free each was a
 * third of a table's cost), a longer one in a block of its own; the blocks are freed
 * with the rows, a cell set again leaves its old text there until then. */
#define ARENA 65536

static char *arena_block(struct nd_table *t, size_t n)
{
    t->arena = nd_xrealloc(t->arena, (t->narena + 1) * sizeof *t->arena);
    return t->arena[t->narena++] = nd_xmalloc(n);
}

static char *cell_dup(struct nd_table *t, const char *text)
{
    size_t n = strlen(text) + 1;
    if (n == 1)
        return empty_cell;
    char *c;
    if (n > ARENA / 8) {
        c = arena_block(t, n);
    } else {
        if (n > t->arena_left) {
            t->arena_at = arena_block(t, ARENA);
            t->arena_left = ARENA;
        }
        c = t->arena_at;
        t->arena_at += n;
        t->arena_left -= n;
    }
    memcpy(c, text, n);
    return c;
}

void nd_table_init(struct nd_table *t)
{
    memset(t, 0, sizeof *t);
}

void nd_table_clear_rows(struct nd_table *t)
{
    for (size_t i = 0; i < t->narena; i++)
        free(t->arena[i]);
    free(t->arena);
    t->arena = NULL;
    t->narena = 0;
    t->arena_at = NULL;
    t->arena_left = 0;
    t->nrows = 0;
}

void nd_table_keep_rows(struct nd_table *t, const bool *keep)
{
    size_t out = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        char **row = t->cells + i * t->ncols;
        if (!keep[i])
            continue; /* its text stays in the arena until the rows are cleared */
        if (out != i)
            memmove(t->cells + out * t->ncols, row, t->ncols * sizeof *row);
        out++;
    }
    t->nrows = out;
}

void nd_table_reserve(struct nd_table *t, size_t col, const char *text)
{
    if (col >= t->ncols || !text)
        return;
    size_t w = nd_print_width(text) + PADDING;
    if (w < MIN_WIDTH)
        w = MIN_WIDTH;
    if (w > t->widths[col])
        t->widths[col] = w;
}

void nd_table_release(struct nd_table *t)
{
    nd_table_clear_rows(t);
    for (size_t j = 0; j < t->ncols; j++)
        free(t->headers[j]);
    free(t->headers);
    free(t->cells);
    free(t->widths);
    nd_table_init(t);
}

void nd_table_add_column(struct nd_table *t, const char *header)
{
    if (t->nrows > 0)
        return; /* a contract violation; the shape of existing rows cannot change */
    /* row storage is sized by the column count: start it afresh */
    free(t->cells);
    t->cells = NULL;
    t->rows_cap = 0;
    t->headers = nd_xrealloc(t->headers, (t->ncols + 1) * sizeof *t->headers);
    t->widths = nd_xrealloc(t->widths, (t->ncols + 1) * sizeof *t->widths);
    t->headers[t->ncols] = nd_xstrdup(header ? header : "");
    t->widths[t->ncols] = 0;
    t->ncols++;
}

size_t nd_table_add_row(struct nd_table *t)
{
    if (t->nrows == t->rows_cap) {
        t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 16;
        t->cells =
            nd_xrealloc(t->cells, t->rows_cap * (t->ncols ? t->ncols : 1) * sizeof *t->cells);
    }
    for (size_t j = 0; j < t->ncols; j++)
        t->cells[t->nrows * t->ncols + j] = empty_cell;
    return t->nrows++;
}

void nd_table_set(struct nd_table *t, size_t row, size_t col, const char *text)
{
    if (row >= t->nrows || col >= t->ncols)
        return;
    char **c = &t->cells[row * t->ncols + col];
    *c = cell_dup(t, text ? text : "");
}

const char *nd_table_get(const struct nd_table *t, size_t row, size_t col)
{
    if (row >= t->nrows || col >= t->ncols)
        return NULL;
    return t->cells[row * t->ncols + col];
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when none starts there. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

size_t nd_print_width(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t w = 0;
    while (*p) {
        if (p[0] == 0x1b && p[1] == '[') {
            /* CSI: parameters and intermediates, then one final byte 0x40..0x7e */
            p += 2;
            while (*p && (*p < 0x40 || *p > 0x7e))
                p++;
            if (*p)
                p++;
            continue;
        }
        size_t n = utf8_len(p);
        p += n ? n : 1;
        w++;
    }
    return w;
}

void nd_print_cell_escape(const char *s, struct nd_buf *out)
{
    size_t i = 0; /* printable ASCII alone (most cells) is kept as it is */
    while ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
        i++;
    if (!s[i]) {
        nd_buf_add(out, s, i);
        return;
    }
    size_t n = strcspn(s, "\n\r\f");
    nd_term_escape(out, s, n, ND_TERM_KEEP_TAB);
    if (s[n])
        nd_buf_adds(out, "...");
}

/* A line of cells; cw: each cell's width (NULL: measured here). */
static void add_line(const struct nd_table *t, char *const *cells, const size_t *cw,
                     struct nd_buf *out)
{
    static const char spaces[] = "                                                                ";
    for (size_t j = 0; j < t->ncols; j++) {
        nd_buf_adds(out, cells[j]);
        if (j + 1 == t->ncols)
            break;
        size_t w = cw ? cw[j] : nd_print_width(cells[j]);
        while (w < t->widths[j]) {
            size_t n = t->widths[j] - w < sizeof spaces - 1 ? t->widths[j] - w : sizeof spaces - 1;
            nd_buf_add(out, spaces, n);
            w += n;
        }
    }
    nd_buf_addch(out, '\n');
}

int nd_table_render(struct nd_table *t, struct nd_buf *out)
{
    bool header = !t->no_headers && (t->nrows > 0 || t->header_if_empty);
    if (!header && t->nrows == 0)
        return 0;
    /* each cell measured once: for its column's width, then for its padding */
    size_t *cw = nd_xmalloc((t->nrows * t->ncols + 1) * sizeof *cw);
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        cw[i] = nd_print_width(t->cells[i]);
    for (size_t j = 0; j + 1 < t->ncols; j++) {
        size_t w = MIN_WIDTH;
        if (header && nd_print_width(t->headers[j]) + PADDING > w)
            w = nd_print_width(t->headers[j]) + PADDING;
        for (size_t i = 0; i < t->nrows; i++)
            if (cw[i * t->ncols + j] + PADDING > w)
                w = cw[i * t->ncols + j] + PADDING;
        if (w > t->widths[j])
            t->widths[j] = w;
    }
    size_t start = out->len;
    if (header)
        add_line(t, t->headers, NULL, out);
    for (size_t i = 0; i < t->nrows; i++)
        add_line(t, t->cells + i * t->ncols, cw + i * t->ncols, out);
    free(cw);
    if (out->overflow) {
        nd_buf_truncate(out, start);
        return -1;
    }
    return 0;
}
