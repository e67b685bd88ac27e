/* kinds-doc.c: regenerates the tables of docs/kinds.md from the kind registry.
 *
 *   build/scripts/kinds-doc < docs/kinds.md > new.md     (make docs-kinds)
 *
 * Copies the page from stdin to stdout, replacing what lies between a marker line
 *   <!-- generated: overview -->           the table of every kind (nd_kinds[])
 *   <!-- generated: columns KIND -->       KIND's printer columns
 * and the next `<!-- end generated -->` with the table the registry holds today; the
 * prose around the markers is left as it is. A marker naming no kind, a section left open,
 * or a kind of the registry without its columns section is an error (exit 1): the page
 * must describe every kind. The field tables are written by hand (their prose says more
 * than the schemas' descriptions), and checked: each nodus.dev kind's section has a row
 * for every field right below spec and status in its schema (pkg/kinds/schemas/, embedded),
 * and none for a field the schema lacks. tests/cli/41-docs-kinds.bats runs it against
 * docs/kinds.md and fails on any difference or complaint.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "kinds/schema.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define MARK_BEGIN "<!-- generated: "
#define MARK_END   "<!-- end generated -->"

/* A list as "`a`, `b`", or "" when empty. */
static void add_code_list(struct nd_buf *b, const char *const *list)
{
    for (const char *const *s = list; s && *s; s++)
        nd_buf_addf(b, "%s`%s`", s == list ? "" : ", ", *s);
}

/* Prose in a table cell: <, > and | written so markdown shows them as they are. */
static void add_prose(struct nd_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            nd_buf_adds(b, "&lt;");
        else if (*s == '>')
            nd_buf_adds(b, "&gt;");
        else if (*s == '|')
            nd_buf_adds(b, "\\|");
        else
            nd_buf_addch(b, *s);
    }
}

/* One row: "| a | b |", an empty cell as "| |". */
static void add_row(struct nd_buf *out, const char *const *cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nd_buf_addf(out, *cells[i] ? "| %s " : "| ", cells[i]);
    nd_buf_adds(out, "|\n");
}

static const char *family_words(const struct nd_kind *k)
{
    switch (k->family) {
    case ND_FAMILY_RUN:
        return "run to completion";
    case ND_FAMILY_LONG:
        return "long-running";
    case ND_FAMILY_CATALOGUE:
        return "catalogue (read-only)";
    case ND_FAMILY_NONE:
        break;
    }
    return k->read_only ? "(read-only)" : "";
}

static void gen_overview(struct nd_buf *out)
{
    nd_buf_adds(out, "| kind | plural | singular | short name | categories | uid prefix | "
                     "family | subresources |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        struct nd_buf plural = ND_BUF_INIT, singular = ND_BUF_INIT, shorts = ND_BUF_INIT,
                      cats = ND_BUF_INIT, prefix = ND_BUF_INIT, subs = ND_BUF_INIT;
        nd_buf_addf(&plural, "`%s`", k->plural);
        if (!*k->group)
            nd_buf_addf(&plural, " (core `%s`)", k->version);
        nd_buf_addf(&singular, "`%s`", k->singular);
        add_code_list(&shorts, k->short_names);
        add_code_list(&cats, k->categories);
        nd_buf_addf(&prefix, "`%s`", k->uid_prefix);
        add_code_list(&subs, k->subresources);
        const char *cells[] = {k->kind,
                               plural.data,
                               singular.data,
                               shorts.len ? shorts.data : "",
                               cats.len ? cats.data : "",
                               prefix.data,
                               family_words(k),
                               subs.len ? subs.data : ""};
        add_row(out, cells, sizeof cells / sizeof cells[0]);
        struct nd_buf *bufs[] = {&plural, &singular, &shorts, &cats, &prefix, &subs};
        for (size_t j = 0; j < sizeof bufs / sizeof bufs[0]; j++)
            nd_buf_release(bufs[j]);
    }
}

/* What a cell looks like, by how the column renders. */
static const char *render_example(enum nd_render r)
{
    switch (r) {
    case ND_RENDER_RAW:
        return "as is; `<none>` when absent";
    case ND_RENDER_AGE:
        return "`5m`, `2d3h`";
    case ND_RENDER_MONEY:
        return "`$12.40`; `-` when absent";
    case ND_RENDER_RATE:
        return "`$2.49/h`; `-` when absent";
    case ND_RENDER_GPU:
        return "`2xH100`; `-` without a GPU";
    case ND_RENDER_GPU_MAP:
        return "`8xH100,2xL4`; `-` when empty";
    case ND_RENDER_GPUS_FREE_TOTAL:
        return "`6/8` (free/total); `0/0` when absent";
    case ND_RENDER_PERCENT:
        return "`75%`; `-` when absent";
    case ND_RENDER_BYTES:
        return "`1.5Gi`; `-` when absent";
    case ND_RENDER_COUNT:
        return "`3`; `0` when absent";
    case ND_RENDER_READY:
        return "`1/4` (ready/replicas); `0/0` when absent";
    case ND_RENDER_STEPS:
        return "`1/3` (succeeded/steps)";
    case ND_RENDER_LIST:
        return "values joined by `,`";
    case ND_RENDER_OBJECT_REF:
        return "`job/train-a`";
    }
    return "";
}

static void gen_columns(struct nd_buf *out, const struct nd_kind *k)
{
    nd_buf_adds(out, "| column | from | shown | cell | meaning |\n"
                     "| --- | --- | --- | --- | --- |\n");
    for (const struct nd_column *c = k->columns; c->name; c++) {
        struct nd_buf from = ND_BUF_INIT, meaning = ND_BUF_INIT;
        nd_buf_addf(&from, "`%s`", c->jsonpath + (c->jsonpath[0] == '.'));
        add_prose(&meaning, c->description);
        const char *cells[] = {c->name, from.data, c->priority ? "wide" : "always",
                               render_example(c->render), meaning.data};
        add_row(out, cells, sizeof cells / sizeof cells[0]);
        nd_buf_release(&from);
        nd_buf_release(&meaning);
    }
}

/* The kind a marker's argument names, or NULL (with a message). */
static const struct nd_kind *marker_kind(const char *name, size_t len, int lineno)
{
    char kind[64];
    if (len == 0 || len >= sizeof kind) {
        fprintf(stderr, "kinds-doc: line %d: the marker names no kind\n", lineno);
        return NULL;
    }
    memcpy(kind, name, len);
    kind[len] = '\0';
    const struct nd_kind *k = nd_kind_by_kind(NULL, kind);
    if (!k)
        fprintf(stderr, "kinds-doc: line %d: no kind %s in the registry (pkg/kinds/kinds.c)\n",
                lineno, kind);
    return k;
}

/* Writes the section a marker line asks for into out; -1 if the marker is not known. */
static int gen_section(struct nd_buf *out, const char *what, int lineno, bool *seen)
{
    size_t len = strcspn(what, " -\n");
    if (len == strlen("overview") && strncmp(what, "overview", len) == 0) {
        gen_overview(out);
        return 0;
    }
    if (len == strlen("columns") && strncmp(what, "columns", len) == 0) {
        const char *arg = what + len + (what[len] == ' ');
        const struct nd_kind *k = marker_kind(arg, strcspn(arg, " -\n"), lineno);
        if (!k)
            return -1;
        seen[k - nd_kinds] = true;
        gen_columns(out, k);
        return 0;
    }
    fprintf(stderr, "kinds-doc: line %d: unknown section \"%.*s\" (overview, columns KIND)\n",
            lineno, (int)len, what);
    return -1;
}

/* Every kind has its columns section. */
static int check_seen(const bool *seen)
{
    int rc = 0;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        if (!seen[i]) {
            fprintf(stderr,
                    "kinds-doc: docs/kinds.md has no section %scolumns %s -->: add one "
                    "under \"### %s columns\"\n",
                    MARK_BEGIN, nd_kinds[i].kind, nd_kinds[i].kind);
            rc = -1;
        }
    }
    return rc;
}

/* The fields the page's tables list, per kind: {"Job": {"spec.image": true, ...}}, the
 * first level below spec and status of the rows in the kind's "## Kind" section. */
struct listed {
    json_t *kinds;
    const struct nd_kind *in; /* the section the page is in; NULL outside a kind's */
};

static void note_line(struct listed *l, const char *line)
{
    if (strncmp(line, "## ", 3) == 0) {
        char kind[64];
        size_t len = strcspn(line + 3, " \n");
        l->in = NULL;
        if (len < sizeof kind) {
            memcpy(kind, line + 3, len);
            kind[len] = '\0';
            l->in = nd_kind_by_kind(NULL, kind);
        }
        return;
    }
    if (!l->in || (strncmp(line, "| `spec.", 8) != 0 && strncmp(line, "| `status.", 10) != 0))
        return;
    const char *f = line + 3;
    size_t part = strcspn(f, ".");
    size_t len = part + 1 + strcspn(f + part + 1, ".[`");
    char field[128];
    if (len >= sizeof field)
        return;
    memcpy(field, f, len);
    field[len] = '\0';
    json_t *set = json_object_get(l->kinds, l->in->kind);
    if (!set) {
        set = json_object();
        json_object_set_new(l->kinds, l->in->kind, set);
    }
    json_object_set_new(set, field, json_true());
}

/* Every field of the kind's schema below part (spec, status) has its row, and every row
 * names a field of the schema. */
static int check_part(const struct nd_kind *k, const char *part, const json_t *set)
{
    const json_t *props = json_object_get(nd_schema_at(nd_kind_schema(k), part), "properties");
    const char *name;
    const json_t *v;
    char field[128];
    int rc = 0;
    json_object_foreach((json_t *)props, name, v)
    {
        snprintf(field, sizeof field, "%s.%s", part, name);
        if (!json_object_get(set, field)) {
            fprintf(stderr,
                    "kinds-doc: docs/kinds.md's %s %s table has no row for %s, which "
                    "pkg/kinds/schemas/%s has: add one\n",
                    k->kind, part, field, k->schema_file);
            rc = -1;
        }
    }
    json_object_foreach((json_t *)set, name, v)
    {
        if (strncmp(name, part, strlen(part)) == 0 && name[strlen(part)] == '.' &&
            !json_object_get(props, name + strlen(part) + 1)) {
            fprintf(stderr,
                    "kinds-doc: docs/kinds.md's %s %s table lists %s, which "
                    "pkg/kinds/schemas/%s does not have: remove its row\n",
                    k->kind, part, name, k->schema_file);
            rc = -1;
        }
    }
    return rc;
}

static int check_fields(const struct listed *l)
{
    int rc = 0;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!*k->group)
            continue; /* core kinds: Kubernetes' own fields, not listed */
        const json_t *set = json_object_get(l->kinds, k->kind);
        if (check_part(k, "spec", set) < 0 || check_part(k, "status", set) < 0)
            rc = -1;
    }
    return rc;
}

static int rewrite(FILE *in, struct nd_buf *out)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0, open_at = 0;
    bool *seen = nd_xcalloc(nd_kind_count(), sizeof *seen);
    struct listed listed = {json_object(), NULL};
    while (rc == 0 && getline(&line, &cap, in) >= 0) {
        lineno++;
        note_line(&listed, line);
        if (open_at) {
            if (strncmp(line, MARK_END, strlen(MARK_END)) == 0) {
                nd_buf_adds(out, line);
                open_at = 0;
            }
            continue;
        }
        nd_buf_adds(out, line);
        if (strncmp(line, MARK_BEGIN, strlen(MARK_BEGIN)) == 0) {
            rc = gen_section(out, line + strlen(MARK_BEGIN), lineno, seen);
            open_at = lineno;
        }
    }
    free(line);
    if (rc == 0 && open_at) {
        fprintf(stderr, "kinds-doc: line %d: the section has no %s\n", open_at, MARK_END);
        rc = -1;
    }
    if (rc == 0)
        rc = check_seen(seen);
    free(seen);
    if (rc == 0)
        rc = check_fields(&listed);
    json_decref(listed.kinds);
    return rc;
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: kinds-doc < docs/kinds.md > new.md (make docs-kinds)\n");
        return 2;
    }
    struct nd_buf out = ND_BUF_INIT;
    int rc = rewrite(stdin, &out);
    if (rc == 0)
        fwrite(out.data, 1, out.len, stdout);
    nd_buf_release(&out);
    return rc == 0 ? 0 : 1;
}
