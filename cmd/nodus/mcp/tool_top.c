/* tool_top.c: top, what is costing money now. The text is `nodus top pools|jobs`, then
 * the spend: per project and billed kind (the registry's ND_KIND_BILLED kinds), how many
 * objects accrue at an hourly rate now, their rate, and what the kind's objects have
 * cost so far (status.costUSD), with the total. */
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "print/print.h"
#include "util/money.h"
#include "util/xmalloc.h"
#include "write.h"

/* One row of the spend: a project's objects of one kind. */
struct spend {
    const char *project; /* BORROWED from the list */
    const struct nd_kind *k;
    long long running;
    int64_t rate, cost; /* micro-dollars */
};

struct spends {
    struct spend *v;
    size_t n, cap;
};

static struct spend *spend_row(struct spends *s, const char *project, const struct nd_kind *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].k == k && !strcmp(s->v[i].project, project))
            return &s->v[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->v = nd_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n] = (struct spend){.project = project, .k = k};
    return &s->v[s->n++];
}

static int64_t money_at(const json_t *status, const char *key)
{
    return nd_money_or(json_string_value(json_object_get(status, key)), 0);
}

/* Adds the objects of one list to the spend. */
static void add_list(struct spends *s, const struct nd_kind *k, const json_t *list)
{
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(list, "items"), i, obj) {
        const json_t *status = json_object_get(obj, "status");
        const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                                           "namespace"));
        int64_t rate = money_at(status, "rateUSDPerHour"), cost = money_at(status, "costUSD");
        if (rate <= 0 && cost <= 0)
            continue;
        struct spend *r = spend_row(s, ns ? ns : "", k);
        enum nd_phase phase = nd_phase_of(obj);
        if (rate > 0 && (phase == ND_PHASE_RUNNING || phase == ND_PHASE_PROVISIONING)) {
            r->running++;
            nd_money_add(r->rate, rate, &r->rate);
        }
        nd_money_add(r->cost, cost, &r->cost);
    }
}

/* The objects of the billed kinds, in the call's project or every project: lists kept
 * in lists (they own the projects' names). */
static int read_spend(struct mcp_call *c, struct spends *s, json_t *lists)
{
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!nd_kind_is(k, ND_KIND_BILLED))
            continue;
        struct nd_buf path = ND_BUF_INIT;
        nd_kind_path(k, c->ctx->all_projects ? NULL : nd_ctx_project(c->ctx), NULL, NULL, &path);
        json_t *list = NULL;
        int rc = nd_call_get(c->ctx, path.data, &list, &c->st);
        nd_buf_release(&path);
        if (rc < 0) {
            json_decref(list);
            return -1;
        }
        add_list(s, k, list);
        json_array_append_new(lists, list);
    }
    return 0;
}

static json_t *money_json(int64_t micros)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_money_format(micros, &b);
    json_t *v = json_string(b.data);
    nd_buf_release(&b);
    return v;
}

static void cell_money(struct nd_table *t, size_t row, size_t col, int64_t micros,
                       const char *suffix)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_money_human(micros, &b);
    nd_buf_adds(&b, suffix);
    nd_table_set(t, row, col, b.data);
    nd_buf_release(&b);
}

/* The spend's text (a table and its total) and structured rows. NEW. */
static json_t *spend_answer(struct mcp_call *c, const struct spends *s)
{
    static const char *const heads[] = {"PROJECT", "KIND", "RUNNING", "RATE", "COST"};
    struct nd_table t;
    nd_table_init(&t);
    for (size_t i = 0; i < 5; i++)
        nd_table_add_column(&t, heads[i]);
    json_t *rows = json_array();
    int64_t rate = 0, cost = 0;
    long long running = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct spend *r = &s->v[i];
        size_t row = nd_table_add_row(&t);
        struct nd_buf p = ND_BUF_INIT;
        nd_print_cell_escape(*r->project ? r->project : "-", &p);
        nd_table_set(&t, row, 0, p.data);
        nd_buf_release(&p);
        nd_table_set(&t, row, 1, r->k->kind);
        char n[32];
        snprintf(n, sizeof n, "%lld", r->running);
        nd_table_set(&t, row, 2, n);
        cell_money(&t, row, 3, r->rate, "/h");
        cell_money(&t, row, 4, r->cost, "");
        json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:o, s:o}", "project", r->project,
                                              "kind", r->k->kind, "running",
                                              (json_int_t)r->running, "rateUSDPerHour",
                                              money_json(r->rate), "costUSD", money_json(r->cost)));
        nd_money_add(rate, r->rate, &rate);
        nd_money_add(cost, r->cost, &cost);
        running += r->running;
    }
    nd_buf_adds(&c->text, c->text.len ? "\nSpend, per project and kind:\n" : "Spend, per project "
                                                                               "and kind:\n");
    if (s->n)
        nd_table_render(&t, &c->text);
    else
        nd_buf_adds(&c->text, "Nothing has cost money yet.\n");
    struct nd_buf r = ND_BUF_INIT, k = ND_BUF_INIT;
    nd_money_human(rate, &r);
    nd_money_human(cost, &k);
    nd_buf_addf(&c->text, "total: %lld running, %s/h now, %s so far\n", running, r.data, k.data);
    nd_buf_release(&r);
    nd_buf_release(&k);
    nd_table_release(&t);
    return json_pack("{s:o, s:{s:I, s:o, s:o}}", "spend", rows, "total", "running",
                     (json_int_t)running, "rateUSDPerHour", money_json(rate), "costUSD",
                     money_json(cost));
}

static void run_top(struct mcp_call *c)
{
    const char *what = mcp_arg_str(c, "what", "jobs");
    const char *argv[] = {"top", what, NULL}; /* the verb reads allProjects from the context */
    if (mcp_call_verb(c, argv) != 0)
        return;
    /* "No running Jobs." is said on stderr: part of the answer here */
    nd_buf_add(&c->text, c->notes.data, c->notes.len);
    nd_buf_reset(&c->notes);
    struct spends s = {0};
    json_t *lists = json_array();
    if (read_spend(c, &s, lists) == 0) {
        c->structured = spend_answer(c, &s);
        json_object_set_new(c->structured, "what", json_string(what));
        if (!c->ctx->all_projects)
            json_object_set_new(c->structured, "project", json_string(nd_ctx_project(c->ctx)));
    }
    free(s.v);
    json_decref(lists);
}

static json_t *top_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_prop(s, "what", "string",
                    "pools: each Pool's hosts, GPUs in use, utilization, work waiting; jobs "
                    "(default): the running Jobs, the most expensive first",
                    false);
    json_object_set_new(json_object_get(json_object_get(s, "properties"), "what"), "enum",
                        json_pack("[s, s]", "pools", "jobs"));
    mcp_schema_project(s, true);
    return s;
}

static json_t *top_output(void)
{
    return json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:s, s:{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, "
        "s:{s:s}, s:{s:s}}}}, s:{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}}}, s:[s, s, s]}",
        "type", "object", "properties", "what", "type", "string", "project", "type", "string",
        "spend", "type", "array", "description",
        "Per project and billed kind: objects running at an hourly rate now, their rate, and "
        "what the kind's objects have cost so far (US dollars, decimal strings)",
        "items", "type", "object", "properties", "project", "type", "string", "kind", "type",
        "string", "running", "type", "integer", "rateUSDPerHour", "type", "string", "costUSD",
        "type", "string", "total", "type", "object", "properties", "running", "type", "integer",
        "rateUSDPerHour", "type", "string", "costUSD", "type", "string", "required", "what",
        "spend", "total");
}

const struct mcp_tool mcp_tool_top = {
    "top",
    "What is costing money now",
    "`nodus top pools|jobs` (utilization, or the running Jobs with rate, cost and share of "
    "their cap), then the spend per project and billed kind: what runs now, its rate per "
    "hour and what it has cost so far, with the total.",
    MCP_T_READ | MCP_T_PROJECT,
    top_input,
    top_output,
    run_top,
};
