/* top pools|jobs: utilization and cost at a glance, from the objects' status.
 *
 *   top pools   one row per Pool: hosts ready, GPUs in use of the total, utilization,
 *               work waiting, bursts and actions waiting for a decision
 *   top jobs    the Jobs that cost or hold something (Provisioning, Running), the most
 *               expensive first: rate, cost so far, share of maxCostUSD; then a total
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "client/client.h"
#include "commands.h"
#include "print/print.h"
#include "util/money.h"
#include "util/xmalloc.h"

struct top_opts {
    bool no_headers;
};

#define TO(f) ND_TO(struct top_opts, f)
const struct nd_flag cmd_top_flags[] = {
    {"no-headers", 0, ND_BOOL, NULL, "leave the header line (and the total of top jobs) out", NULL,
     TO(no_headers)},
    ND_FLAGS_END(struct top_opts),
};

static int64_t money(const json_t *o, const char *key)
{
    return nd_money_or(json_string_value(json_object_get(o, key)), 0);
}

static void dollars(int64_t micros, const char *suffix, struct nd_buf *out)
{
    /* cents, rounded half up: what a person reads */
    int64_t cents = (micros + 5000) / 10000;
    nd_buf_addf(out, "$%lld.%02lld%s", (long long)(cents / 100), (long long)(cents % 100),
                suffix);
}

/* GET the list of a kind in the context's project (or every project with -A). NEW. */
static json_t *list(struct nd_ctx *ctx, const char *plural, struct nd_status *st)
{
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return NULL;
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(k, ctx->all_projects ? NULL : nd_ctx_project(ctx), NULL, NULL, &p);
    json_t *out = NULL;
    if (nd_client_json(c, "GET", p.data, NULL, &out, st) < 0)
        out = NULL;
    nd_buf_release(&p);
    return out;
}

static void row_ns(json_t *row, struct nd_ctx *ctx, const json_t *obj)
{
    if (ctx->all_projects)
        json_array_append_new(row, json_string(json_string_value(
                                       json_object_get(json_object_get(obj, "metadata"),
                                                       "namespace"))));
}

static void header(json_t *rows, struct nd_ctx *ctx, const char *const *cols)
{
    json_t *h = json_array();
    if (ctx->all_projects)
        json_array_append_new(h, json_string("NAMESPACE"));
    for (int i = 0; cols[i]; i++)
        json_array_append_new(h, json_string(cols[i]));
    json_array_append_new(rows, h);
}

/* rows[0] is the header; every row the same length. */
static void print_rows(const json_t *rows, bool no_headers)
{
    struct nd_table t;
    nd_table_init(&t);
    t.no_headers = no_headers;
    size_t i, j;
    json_t *row, *cell;
    json_array_foreach(json_array_get(rows, 0), j, cell)
        nd_table_add_column(&t, json_string_value(cell));
    json_array_foreach(rows, i, row) {
        if (i == 0)
            continue;
        size_t r = nd_table_add_row(&t);
        json_array_foreach(row, j, cell) {
            struct nd_buf b = ND_BUF_INIT; /* names from the server: escaped */
            nd_print_cell_escape(json_string_value(cell) ? json_string_value(cell) : "", &b);
            nd_table_set(&t, r, j, b.data);
            nd_buf_release(&b);
        }
    }
    struct nd_buf out = ND_BUF_INIT;
    nd_table_render(&t, &out);
    nd_out(&out);
    nd_buf_release(&out);
    nd_table_release(&t);
}

static int top_pools(struct nd_ctx *ctx, bool no_headers, struct nd_status *st)
{
    json_t *l = list(ctx, "pools", st);
    if (!l)
        return -1;
    static const char *const cols[] = {"NAME", "HOSTS", "GPUS-USED", "UTIL", "WAITING",
                                       "BURSTS", "ACTIONS", NULL};
    json_t *rows = json_array();
    header(rows, ctx, cols);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(l, "items"), i, p) {
        const json_t *s = json_object_get(p, "status");
        const json_t *cap = json_object_get(s, "capacity");
        long long used = 0, total = 0;
        const char *model;
        json_t *g;
        json_object_foreach(json_object_get(cap, "gpus"), model, g) {
            long long t = json_integer_value(json_object_get(g, "total"));
            total += t;
            used += t - json_integer_value(json_object_get(g, "free"));
        }
        json_t *row = json_array();
        row_ns(row, ctx, p);
        json_array_append_new(row, json_string(json_string_value(
                                       json_object_get(json_object_get(p, "metadata"), "name"))));
        json_array_append_new(
            row, json_sprintf("%lld/%lld",
                              (long long)json_integer_value(json_object_get(cap, "readyNodes")),
                              (long long)json_integer_value(json_object_get(cap, "nodes"))));
        json_array_append_new(row, json_sprintf("%lld/%lld", used, total));
        const json_t *util = json_object_get(json_object_get(s, "utilization"), "gpuPercent");
        json_array_append_new(row, util ? json_sprintf("%lld%%", (long long)json_integer_value(util))
                                        : json_string("-"));
        const json_t *routing = json_object_get(s, "routing");
        json_array_append_new(row, json_sprintf("%lld", (long long)json_integer_value(
                                                            json_object_get(routing, "waiting"))));
        json_array_append_new(row, json_sprintf("%lld", (long long)json_integer_value(json_object_get(
                                                            routing, "burstPending"))));
        json_array_append_new(row, json_sprintf("%lld", (long long)json_integer_value(json_object_get(
                                                            json_object_get(s, "act"), "pending"))));
        json_array_append_new(rows, row);
    }
    if (json_array_size(rows) == 1)
        fprintf(stderr, "No Pools found.\n");
    else
        print_rows(rows, no_headers);
    json_decref(rows);
    json_decref(l);
    return 0;
}

static int by_rate(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    int64_t rx = money(json_object_get(x, "status"), "rateUSDPerHour");
    int64_t ry = money(json_object_get(y, "status"), "rateUSDPerHour");
    if (rx != ry)
        return rx < ry ? 1 : -1;
    return strcmp(json_string_value(json_object_get(json_object_get(x, "metadata"), "name")),
                  json_string_value(json_object_get(json_object_get(y, "metadata"), "name")));
}

static int top_jobs(struct nd_ctx *ctx, bool no_headers, struct nd_status *st)
{
    json_t *l = list(ctx, "jobs", st);
    if (!l)
        return -1;
    json_t *items = json_object_get(l, "items");
    size_t n = 0, i;
    const json_t **v = nd_xcalloc(json_array_size(items) + 1, sizeof *v);
    json_t *j;
    json_array_foreach(items, i, j) {
        enum nd_phase phase = nd_phase_of(j);
        if (phase == ND_PHASE_RUNNING || phase == ND_PHASE_PROVISIONING)
            v[n++] = j;
    }
    qsort(v, n, sizeof *v, by_rate);
    static const char *const cols[] = {"NAME", "PHASE", "GPU", "PLACEMENT", "RATE", "COST",
                                       "OF-MAX", NULL};
    json_t *rows = json_array();
    header(rows, ctx, cols);
    int64_t rate_sum = 0, cost_sum = 0;
    for (i = 0; i < n; i++) {
        const json_t *s = json_object_get(v[i], "status");
        const json_t *spec = json_object_get(v[i], "spec");
        const json_t *gpu = json_object_get(json_object_get(spec, "resources"), "gpu");
        int64_t rate = money(s, "rateUSDPerHour"), cost = money(s, "costUSD");
        int64_t max = money(spec, "maxCostUSD");
        rate_sum += rate;
        cost_sum += cost;
        json_t *row = json_array();
        row_ns(row, ctx, v[i]);
        json_array_append_new(row, json_string(json_string_value(
                                       json_object_get(json_object_get(v[i], "metadata"), "name"))));
        json_array_append_new(row, json_string(json_string_value(json_object_get(s, "phase"))));
        json_array_append_new(
            row, gpu ? json_sprintf("%lldx%s", (long long)json_integer_value(json_object_get(gpu, "count")),
                                    json_string_value(json_object_get(gpu, "model")))
                     : json_string("-"));
        const char *target =
            json_string_value(json_object_get(json_object_get(s, "placement"), "target"));
        json_array_append_new(row, json_string(target ? target : "-"));
        struct nd_buf b = ND_BUF_INIT;
        dollars(rate, "/h", &b);
        json_array_append_new(row, json_string(b.data));
        nd_buf_reset(&b);
        dollars(cost, "", &b);
        json_array_append_new(row, json_string(b.data));
        nd_buf_release(&b);
        json_array_append_new(row, max > 0 ? json_sprintf("%lld%%", (long long)(cost * 100 / max))
                                           : json_string("-"));
        json_array_append_new(rows, row);
    }
    if (n == 0) {
        fprintf(stderr, "No running Jobs.\n");
    } else {
        print_rows(rows, no_headers);
    }
    if (n > 0 && !no_headers) { /* the total: left out with the header, rows only */
        struct nd_buf b = ND_BUF_INIT, c = ND_BUF_INIT;
        dollars(rate_sum, "/h", &b);
        dollars(cost_sum, "", &c);
        printf("%zu running, %s, %s so far\n", n, b.data, c.data);
        nd_buf_release(&b);
        nd_buf_release(&c);
    }
    free(v);
    json_decref(rows);
    json_decref(l);
    return 0;
}

int cmd_top(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct top_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *what = o.npos == 1 ? o.pos[0] : "";
    bool no_headers = opt.no_headers;
    /* each view answers to its kind's plural, singular and short names */
    static const struct {
        const char *plural;
        int (*show)(struct nd_ctx *ctx, bool no_headers, struct nd_status *st);
    } views[] = {{"pools", top_pools}, {"jobs", top_jobs}};
    size_t v = 0;
    while (v < sizeof views / sizeof views[0] &&
           !nd_kind_named(nd_kind_by_plural("nodus.dev", views[v].plural), what))
        v++;
    if (v == sizeof views / sizeof views[0]) {
        rc = nd_cli_usage(ctx, "nodus top pools|jobs");
        goto out;
    }
    if (views[v].show(ctx, no_headers, &st) < 0)
        rc = nd_cli_error(ctx, &st);
out:
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
