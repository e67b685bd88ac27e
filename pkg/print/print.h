/* print.h: the output formats of `nodus get` and friends, byte for byte as kubectl 1.32
 * prints them.
 *
 * Nothing here writes to a file descriptor: every function appends to a caller's nd_buf,
 * and the caller writes it (stdout for output, stderr for nd_print_empty_message).
 * Errors are a filled struct nd_status and -1 (or NULL); on error nothing is appended,
 * so a caller never prints half an answer.
 *
 *   -o (none), wide     aligned tables (struct nd_table), built from the server's Table
 *                       answer or, client-side, from the kind registry's printer columns
 *   -o json, yaml       one object as is, several wrapped in a `v1 List`, keys sorted
 *   -o name             `job.nodus.dev/train-a`, `namespace/default`
 *   -o jsonpath=...     kubectl's JSONPath over the object (or the List)
 *   -o custom-columns=  `NAME:.metadata.name,GPU:.spec.resources.gpu.model`
 *
 * Tables follow kubectl's tabwriter (minimum width 6, padding 3, widths remembered from
 * one render to the next as in `get -w`): a column is as wide as its widest cell plus 3
 * spaces, and at least 6; every cell but the last of a line is padded, so a line whose
 * last cell is empty ends in spaces (as kubectl's do). Widths count UTF-8 characters;
 * ANSI colour sequences (ESC [ ... letter) count as nothing.
 */
#ifndef ND_PRINT_H
#define ND_PRINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds/registry.h"
#include "util/buf.h"
#include "util/status.h"

struct nd_jsonpath;
struct nd_custom_columns;

/* ------------------------------------------------------------------------------------ */
/* Aligned tables                                                                        */

struct nd_table {
    size_t ncols;
    char **headers; /* ncols owned strings, printed as they are */
    size_t nrows;
    size_t rows_cap;
    char **cells;         /* nrows * ncols strings, row-major, in arena; never NULL entries */
    size_t *widths;       /* per column, remembered across renders (kubectl's RememberWidths) */
    char **arena;         /* the blocks holding the cells' text (table.c), narena of them, */
    size_t narena;        /* freed with the rows */
    char *arena_at;       /* where the next cell goes, arena_left bytes left there */
    size_t arena_left;
    bool no_headers;      /* render no header line */
    bool header_if_empty; /* render the header line even with no rows (custom-columns);
                           * otherwise a table without rows renders nothing (kubectl) */
};

void nd_table_init(struct nd_table *t);
void nd_table_release(struct nd_table *t);
/* Adds a column (header copied). Only while the table has no rows. */
void nd_table_add_column(struct nd_table *t, const char *header);
/* Adds a row of empty cells and returns its index. */
size_t nd_table_add_row(struct nd_table *t);
/* Sets a cell (text copied verbatim: the caller escapes, see nd_print_cell_escape). */
void nd_table_set(struct nd_table *t, size_t row, size_t col, const char *text);
/* The cell's text, BORROWED; NULL out of range. */
const char *nd_table_get(const struct nd_table *t, size_t row, size_t col);
/* Drops the rows and keeps the columns and remembered widths: `get -w` renders each
 * event's rows this way, after setting no_headers once the header has been printed. */
void nd_table_clear_rows(struct nd_table *t);
/* Drops the rows whose keep[] is false (keep has nrows entries), keeping the order of
 * the others (`get -w` prints only the rows that changed). */
void nd_table_keep_rows(struct nd_table *t, const bool *keep);
/* Makes column col at least as wide as text needs (with the padding): `get -w` reserves
 * the widest value a column can show (every phase) so later rows do not shift it. */
void nd_table_reserve(struct nd_table *t, size_t col, const char *text);
/* Appends the aligned text (header line unless no_headers, then one line per row, each
 * ending in "\n"). Widens t->widths as needed. Returns 0, or -1 when out's cap is hit. */
int nd_table_render(struct nd_table *t, struct nd_buf *out);

/* Display width of s: UTF-8 characters (a byte that starts no valid sequence counts as
 * one, as Go's utf8.RuneCount), ANSI CSI sequences counted as zero. */
size_t nd_print_width(const char *s);
/* Appends a string cell as kubectl writes one: cut at its first '\n', '\r' or '\f'
 * with "..." appended, and ESC shown as "^[" (so a server cannot drive the terminal). */
void nd_print_cell_escape(const char *s, struct nd_buf *out);

/* ------------------------------------------------------------------------------------ */
/* Output options                                                                        */

enum nd_output {
    ND_OUTPUT_TABLE, /* no -o */
    ND_OUTPUT_WIDE,
    ND_OUTPUT_JSON,
    ND_OUTPUT_YAML,
    ND_OUTPUT_NAME,
    ND_OUTPUT_JSONPATH,       /* jsonpath= and jsonpath-file= */
    ND_OUTPUT_CUSTOM_COLUMNS, /* custom-columns= and custom-columns-file= */
};

struct nd_print_opts {
    enum nd_output output;
    bool no_headers;     /* --no-headers (tables, custom-columns=) */
    bool show_labels;    /* --show-labels: a LABELS column, last */
    bool show_kind;      /* --show-kind, `get all`: NAME cells become kind.group/name */
    bool all_projects; /* -A: a NAMESPACE column, first */
    bool color;          /* colour the PHASE column (the caller decides: terminal, NO_COLOR) */
    const char *const *label_columns; /* -L keys, NULL-terminated, BORROWED; may be NULL */
    /* Set by nd_print_parse_output; owned, released by nd_print_opts_release. */
    char *file;                        /* -file formats: the path the caller must read */
    char *template_text;               /* jsonpath text (for messages) */
    struct nd_jsonpath *jsonpath;      /* ND_OUTPUT_JSONPATH, once the template is known */
    struct nd_custom_columns *columns; /* ND_OUTPUT_CUSTOM_COLUMNS, once known */
};

void nd_print_opts_init(struct nd_print_opts *o);
void nd_print_opts_release(struct nd_print_opts *o);

/* Parses the value of -o (NULL or "" is the default table) into opts (its earlier
 * parsed format is released first; the flags above are left alone). As kubectl: json,
 * yaml and name in any case; wide, jsonpath=TEMPLATE, jsonpath-file=PATH,
 * custom-columns=SPEC, custom-columns-file=PATH exactly. Quotes are not special
 * (`jsonpath='{.a}'` prints the quotes, as kubectl does: the shell removes them).
 * For a -file format opts->file is set and the caller reads it and hands the text to
 * nd_print_opts_load_file (or has nd_print_opts_read_file do both); kubectl's messages when reading fails are
 *   error reading --template PATH, open PATH: no such file or directory   (jsonpath-file)
 *   error reading template PATH, open PATH: no such file or directory     (custom-columns-file)
 * Errors (reason "Usage"), kubectl's text:
 *   unable to match a printer suitable for the output format "x", allowed formats are:
 *     custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml
 *   template format specified but no template given
 *   error parsing jsonpath {.a, unclosed action (at character 4)
 *   custom-columns format specified but no custom columns given
 *   unexpected custom-columns spec: X, expected <header>:<json-path-expr>
 *   unexpected path string, expected a 'name1.name2' or ... (ND_JSONPATH_RELAXED_ERROR) */
int nd_print_parse_output(const char *o, struct nd_print_opts *opts, struct nd_status *st);

/* The text of opts->file (len bytes, need not be NUL-terminated): a jsonpath template
 * taken whole (a final newline prints), or a custom-columns template. Errors as above. */
int nd_print_opts_load_file(struct nd_print_opts *opts, const char *text, size_t len,
                            struct nd_status *st);
/* Reads opts->file (nothing to do when it is NULL) and loads it as above; a file that
 * cannot be opened or read gets kubectl's message, with the system's text of the error. */
int nd_print_opts_read_file(struct nd_print_opts *opts, struct nd_status *st);

/* True for the formats printed as a table from Table answers (ND_OUTPUT_TABLE, WIDE). */
bool nd_print_is_table(const struct nd_print_opts *opts);

/* ------------------------------------------------------------------------------------ */
/* Tables of objects                                                                     */

/* Fills t from a server `meta.k8s.io/v1 Table` answer (columnDefinitions, rows[].cells,
 * rows[].object). Columns of priority other than 0 only with ND_OUTPUT_WIDE; headers
 * upper-cased. Decorated as kubectl: NAMESPACE first with all_projects, then the
 * columns, one column per -L key (header: the key's last '/' segment upper-cased; cell:
 * the label's value or empty), LABELS last with show_labels (`k=v,k2=v2` sorted by key,
 * `<none>`). With show_kind and k (may be NULL) given, the column whose format is
 * "name" shows `kind.group/name` (`job.nodus.dev/x`, core kinds `namespace/x`). Labels
 * and the namespace come from each row's object. Cells: strings as nd_print_cell_escape,
 * null empty, numbers, booleans, maps and lists as Go's %v. When t already has columns (a watch
 * adding one event's rows), only rows are added and their shape must match.
 * Returns 0, or -1 with st = BadRequest naming the malformed part (`rows[2].cells`). */
int nd_print_table_from_server(struct nd_table *t, const json_t *answer, const struct nd_kind *k,
                               const struct nd_print_opts *opts, struct nd_status *st);

/* The same in steps, for a reader that finds the rows itself (table_bytes.c):
 * nd_print_table_start reads the columnDefinitions (NEW, or NULL with st filled as
 * above); the cells of a row are the columnDefinitions' (nd_print_table_ndefs of them),
 * of which nd_print_table_shown says which are shown, in order; nd_print_table_headers
 * adds the columns (or checks t's); each nd_print_table_row adds one row from the shown
 * cells as nd_print_table_cell writes them and the row's object (NULL when none). */
struct nd_table_rows;
struct nd_table_rows *nd_print_table_start(struct nd_table *t, const json_t *defs,
                                           const struct nd_kind *k,
                                           const struct nd_print_opts *opts, struct nd_status *st);
size_t nd_print_table_ndefs(const struct nd_table_rows *b);
const size_t *nd_print_table_shown(const struct nd_table_rows *b, size_t *n);
int nd_print_table_headers(struct nd_table_rows *b, struct nd_status *st);
void nd_print_table_row(struct nd_table_rows *b, const json_t *obj, char *const *cells);
void nd_print_table_finish(struct nd_table_rows *b);
/* A cell's value as the row gets it: NEW text (a string as it is, null empty, anything
 * else as Go's %v with ESC and CR made visible). */
char *nd_print_table_cell(const json_t *v);

/* A Table answer's text read without building its tree (table_bytes.c), page by page
 * as get reads a list: the columns from the first page, the rows of each added to t.
 * nd_table_bytes_page returns 0 and *cont (NEW, NULL when none) the page's continue
 * token; or -1 when the text needs the tree path (not a Table, not JSON, a key with an
 * escape, a duplicate key, a malformed row, a cell that is a list or a map ...): the
 * caller then drops t and reads every page with nd_json_load and
 * nd_print_table_from_server, which say what is wrong. Whatever it takes, t ends as the
 * tree path makes it (tests/fuzz/fuzz_table.c). */
struct nd_table_bytes {
    struct nd_table *t;
    const struct nd_kind *k;
    const struct nd_print_opts *opts;
    struct nd_table_rows *b; /* after the first page */
    size_t rows;             /* every page's rows so far */
    bool first_rows;         /* the first page had a list of rows (later ones join it) */
};
int nd_table_bytes_page(struct nd_table_bytes *tb, const char *text, size_t len, char **cont);
void nd_table_bytes_release(struct nd_table_bytes *tb);

/* Fills t from objects (an array, BORROWED) with k's printer columns, rendered by
 * nd_column_render against now_unix: the client-side fallback when the server sends no
 * Table. Decorated as nd_print_table_from_server. Returns 0, or -1 with st filled. */
int nd_print_table_from_objects(struct nd_table *t, const json_t *objects, const struct nd_kind *k,
                                int64_t now_unix, const struct nd_print_opts *opts,
                                struct nd_status *st);

/* kubectl's message when a table got no rows, for stderr, with its newline:
 * "No resources found in NS namespace.\n", or "No resources found\n" when
 * all_projects or ns is NULL or "" (cluster-scoped kinds, or kinds of both scopes).
 * kubectl prints it only for table output: json, yaml, jsonpath and custom-columns print
 * an empty List or header, name prints nothing. */
void nd_print_empty_message(const char *ns, bool all_projects, struct nd_buf *out);

/* ------------------------------------------------------------------------------------ */
/* Colours                                                                               */

#define ND_COLOR_RESET  "\033[0m"
#define ND_COLOR_GREEN  "\033[32m"
#define ND_COLOR_YELLOW "\033[33m"
#define ND_COLOR_RED    "\033[31m"
#define ND_COLOR_GREY   "\033[90m"

/* The colour of a phase: green Running and Succeeded; yellow Queued, Pending,
 * Provisioning and Starting; red Failed; grey Stopped, Cancelled, Cancelling and
 * Terminating. NULL for anything else (no colour). Static string. */
const char *nd_print_phase_color(const char *phase);
/* Appends text wrapped in color and ND_COLOR_RESET, or text alone when color is NULL. */
void nd_print_add_colored(struct nd_buf *out, const char *text, const char *color);

/* ------------------------------------------------------------------------------------ */
/* json, yaml, name, jsonpath, custom-columns                                            */

/* kubectl's wrapper of several objects: {"apiVersion": "v1", "items": [...], "kind":
 * "List", "metadata": {"resourceVersion": ""}}. NEW; the items are the objects of the
 * array (references, not copies). */
json_t *nd_print_list_new(const json_t *objects);

/* Prints objects (an array, BORROWED) in a format other than a table: `single` is
 * kubectl's "single item implied" (one name asked for, and one object got): the object
 * is printed alone; otherwise a List of all of them is (empty too). json: 4-space
 * indent, keys sorted, <>& escaped as Go does, newline. yaml: sorted keys. name: one
 * line per object. jsonpath: the template's text, no newline added. custom-columns: a
 * table (header even with no objects). Returns 0, or -1 with st filled: BadRequest for
 * a jsonpath that fails (`error executing jsonpath "{.a[5]}": Error executing template:
 * array index out of bounds: index 5, length 2`), Usage when opts is a table format. */
int nd_print_objects(const json_t *objects, bool single, const struct nd_print_opts *opts,
                     struct nd_buf *out, struct nd_status *st);

/* kubectl's name printer: `kind.group/name` (`namespace/default` for the core group),
 * then " operation" when operation is not NULL or "" (`job.nodus.dev/x created`), and a
 * newline. A List (kind ending in "List" with items) prints each item. Group and kind
 * come from apiVersion and kind; a missing name shows as <unknown>. -1 with st =
 * BadRequest ("missing apiVersion or kind") when the object says neither. */
int nd_print_name(const json_t *obj, const char *operation, struct nd_buf *out,
                  struct nd_status *st);

/* Custom columns. A spec is `HEADER:PATH[,HEADER:PATH...]` split at every ',' (as
 * kubectl: a path with a ',' cannot be given), each PATH relaxed as kubectl does
 * (`.a.b`, `a.b`, `{.a.b}`). A template file is a line of headers and a line of paths,
 * separated by white space (further lines ignored); kubectl prints its header even with
 * --no-headers, and so does this. NEW, or NULL with st = Usage (kubectl's messages:
 * `invalid template, missing header line. Expected format is one line of space
 * separated headers, one line of space separated column specs.`, `... missing spec
 * line ...`, `number of headers (2) and field specifications (1) don't match`). */
struct nd_custom_columns *nd_custom_columns_parse(const char *spec, struct nd_status *st);
struct nd_custom_columns *nd_custom_columns_parse_file(const char *text, size_t len,
                                                       struct nd_status *st);
void nd_custom_columns_free(struct nd_custom_columns *cc);
/* Adds cc's columns (headers as written, not upper-cased) to an empty table and sets
 * header_if_empty (and no_headers unless cc came from a file). */
void nd_custom_columns_table(const struct nd_custom_columns *cc, bool no_headers,
                             struct nd_table *t);
/* Adds one row for obj: per column every value the path finds, as Go's %v, joined by
 * ","; `<none>` when it finds nothing. Missing keys are not errors; other JSONPath
 * errors are (-1, st BadRequest, no row added). */
int nd_custom_columns_add_row(const struct nd_custom_columns *cc, const json_t *obj,
                              struct nd_table *t, struct nd_status *st);

/* ------------------------------------------------------------------------------------ */
/* --sort-by                                                                             */

/* Sorts objects (an array, changed in place) by the value at jsonpath (relaxed as
 * kubectl: `.spec.x`, `spec.x`, `{.spec.x}`), comparing the first value found as
 * kubectl's sorter does: integers and reals numerically, strings that both read as
 * quantities by value ("500m" < "2" < "100Mi" < "1Gi"), other strings byte by byte
 * (RFC 3339 times sort in time order). Objects without the value come first, then
 * those where it is null. Stable: ties keep their order (kubectl's sort is not stable,
 * its order of ties is unspecified). Errors (st Invalid, nothing moved):
 *   unexpected path string, ... (ND_JSONPATH_RELAXED_ERROR), or a parse error
 *   couldn't find any field with path "{.spec.x}" in the list of objects
 *   Field {.spec.x} is an unsortable type: boolean (also object, array, and values of
 *   different types: "integer and string") -- kubectl exits with this at compare time. */
int nd_print_sort(json_t *objects, const char *jsonpath, struct nd_status *st);
/* The same for the rows of a Table answer (changed in place), by each row's object (the
 * server must have been asked for includeObject=Object). */
int nd_print_sort_table(json_t *table, const char *jsonpath, struct nd_status *st);

#endif
