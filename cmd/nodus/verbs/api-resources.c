/* nodus api-resources: the kinds the server serves, from discovery (cached
 * as kubectl caches it, see discovery.h), printed as kubectl prints it. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "discovery.h"
#include "print/print.h"
#include "util/term.h"
#include "util/xmalloc.h"

struct api_resources_opts {
    const char *output;
    bool namespaced;
    bool namespaced_given;
    const char *api_group;
    struct nd_strings verbs;
    struct nd_strings categories;
    const char *sort_by;
    bool no_headers;
    bool cached;
};

#define TO(f) ND_TO(struct api_resources_opts, f)
const struct nd_flag cmd_api_resources_flags[] = {
    {"output", 'o', ND_STRING, "FORMAT", "wide (adds verbs and categories) or name", "=wide name",
     TO(output)},
    {"namespaced", 0, ND_BOOL, NULL,
     "=true: only kinds that live in projects; =false: only cluster-wide kinds", NULL,
     TO(namespaced), TO(namespaced_given)},
    {"api-group", 0, ND_STRING, "GROUP", "only the kinds of this API group (\"\": the core group)",
     "=nodus.dev", TO(api_group)},
    {"verbs", 0, ND_STRINGS, "VERB", "only kinds that support every one of these verbs",
     "=create delete deletecollection get list patch update watch", TO(verbs)},
    {"categories", 0, ND_STRINGS, "CATEGORY", "only kinds in every one of these categories",
     "=all nodus", TO(categories)},
    {"sort-by", 0, ND_STRING, "FIELD", "sort by name or kind (default: by group, then name)",
     "=name kind", TO(sort_by)},
    {"no-headers", 0, ND_BOOL, NULL, "leave the header line out", NULL, TO(no_headers)},
    {"cached", 0, ND_BOOL, NULL, "use the cached discovery documents whatever their age", NULL,
     TO(cached)},
    ND_FLAGS_END(struct api_resources_opts),
};

static const char *str(const json_t *r, const char *key)
{
    const char *s = json_string_value(json_object_get(r, key));
    return s ? s : "";
}

/* The strings of a list joined by ",", sorted and without repeats when sort is set. */
static void join(const json_t *list, bool sort, struct nd_buf *out)
{
    size_t n = json_array_size(list), k = 0;
    const char **v = nd_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(list, i));
        if (s)
            v[k++] = s;
    }
    for (size_t i = 1; sort && i < k; i++) /* insertion sort: a handful of verbs */
        for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (size_t i = 0; i < k; i++) {
        if (sort && i > 0 && strcmp(v[i], v[i - 1]) == 0)
            continue;
        if (out->len)
            nd_buf_addch(out, ',');
        nd_buf_adds(out, v[i]);
    }
    free(v);
}

static bool has_all(const json_t *have, const struct nd_strings *want)
{
    for (size_t i = 0; i < want->n; i++) {
        const char *w = want->v[i];
        bool found = false;
        size_t j;
        const json_t *h;
        json_array_foreach(have, j, h)
        {
            if (json_is_string(h) && !strcmp(json_string_value(h), w)) {
                found = true;
                break;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

static const char *sort_key; /* "group", "name" or "kind": the qsort comparator's field */

/* kubectl's order: by the field, then by name (sort.Stable, so ties keep their order;
 * the index breaks them here). */
static int cmp_res(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    int c = strcmp(str(x, sort_key), str(y, sort_key));
    if (!c)
        c = strcmp(str(x, "name"), str(y, "name"));
    if (!c)
        c = (int)json_integer_value(json_object_get(x, "_i")) -
            (int)json_integer_value(json_object_get(y, "_i"));
    return c;
}

/* The filters of --api-group, --namespaced, --verbs and --categories. */
struct filter {
    const char *group;
    bool by_group, by_scope, namespaced;
    const struct nd_strings *verbs, *cats;
};

static bool wanted(const struct filter *f, const json_t *r)
{
    if (f->by_group && strcmp(str(r, "group"), f->group ? f->group : ""))
        return false;
    if (f->by_scope && json_is_true(json_object_get(r, "namespaced")) != f->namespaced)
        return false;
    if (f->verbs && !has_all(json_object_get(r, "verbs"), f->verbs))
        return false;
    if (f->cats && !has_all(json_object_get(r, "categories"), f->cats))
        return false;
    return true;
}

/* Into rows (sized for all of them) the resources f wants, each marked with its index;
 * returns how many. */
static size_t select_rows(json_t *all, const struct filter *f, const json_t **rows)
{
    size_t n = 0, i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        if (!wanted(f, r))
            continue;
        json_object_set_new(r, "_i", json_integer((json_int_t)i));
        rows[n++] = r;
    }
    return n;
}

/* -o name: NAME.GROUP a line. */
static void print_names(const json_t **rows, size_t n, struct nd_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        const char *g = str(rows[i], "group");
        nd_buf_addf(out, "%s%s%s\n", str(rows[i], "name"), *g ? "." : "", g);
    }
}

static void add_row(struct nd_table *t, const json_t *x, bool wide)
{
    size_t row = nd_table_add_row(t);
    struct nd_buf cell = ND_BUF_INIT;
    nd_table_set(t, row, 0, str(x, "name"));
    join(json_object_get(x, "shortNames"), false, &cell);
    nd_table_set(t, row, 1, cell.data);
    nd_table_set(t, row, 2, str(x, "groupVersion"));
    nd_table_set(t, row, 3, json_is_true(json_object_get(x, "namespaced")) ? "true" : "false");
    nd_table_set(t, row, 4, str(x, "kind"));
    if (wide) {
        nd_buf_reset(&cell);
        join(json_object_get(x, "verbs"), true, &cell);
        nd_table_set(t, row, 5, cell.data);
        nd_buf_reset(&cell);
        join(json_object_get(x, "categories"), false, &cell);
        nd_table_set(t, row, 6, cell.data);
    }
    nd_buf_release(&cell);
}

/* The table, with verbs and categories when wide. */
static void print_table(const json_t **rows, size_t n, bool wide, bool no_headers,
                        struct nd_buf *out)
{
    static const char *const headers[] = {"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED",
                                          "KIND", "VERBS",      "CATEGORIES"};
    struct nd_table t;
    nd_table_init(&t);
    for (size_t c = 0; c < (wide ? 7u : 5u); c++)
        nd_table_add_column(&t, headers[c]);
    t.no_headers = no_headers;
    t.header_if_empty = true;
    for (size_t i = 0; i < n; i++)
        add_row(&t, rows[i], wide);
    nd_table_render(&t, out);
    nd_table_release(&t);
}

int cmd_api_resources(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct api_resources_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    json_t *all = NULL;
    const json_t **rows = NULL;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos > 0) {
        rc = nd_cli_unexpected_args(ctx, o.npos, o.pos);
        goto out;
    }
    const char *fmt = opt.output;
    bool wide = fmt && !strcmp(fmt, "wide"), name_only = fmt && !strcmp(fmt, "name");
    if (fmt && *fmt && !wide && !name_only) {
        rc = nd_cli_usage(ctx, "--output %s is not available", fmt);
        goto out;
    }
    const char *sort_by = opt.sort_by;
    if (sort_by && *sort_by && strcmp(sort_by, "name") && strcmp(sort_by, "kind")) {
        rc = nd_cli_usage(ctx, "--sort-by accepts only name or kind");
        goto out;
    }
    all = nd_discovery_resources(ctx, opt.cached ? ND_DISCOVERY_STALE_OK : 0, &st);
    if (!all) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    json_t *safe = nd_term_safe_json(all, 0); /* a server's names, for a terminal */
    json_decref(all);
    all = safe;
    struct filter f = {.group = opt.api_group,
                       .by_group = opt.api_group != NULL,
                       .by_scope = opt.namespaced_given,
                       .namespaced = opt.namespaced,
                       .verbs = &opt.verbs,
                       .cats = &opt.categories};
    rows = nd_xcalloc(json_array_size(all) + 1, sizeof *rows);
    size_t n = select_rows(all, &f, rows);
    sort_key = sort_by && *sort_by ? sort_by : "group";
    qsort(rows, n, sizeof *rows, cmp_res);
    if (name_only)
        print_names(rows, n, &out);
    else
        print_table(rows, n, wide, opt.no_headers, &out);
    nd_out(&out);
out:
    free(rows);
    json_decref(all);
    nd_buf_release(&out);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
