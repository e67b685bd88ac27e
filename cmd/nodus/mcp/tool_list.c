/* tool_list.c: list, one page of a kind's objects with the columns of `nodus get`.
 *
 * The server is asked for a Table (as `nodus get` asks), one page of `limit` rows: the
 * text is the table `nodus get` prints for those rows, the structured content the rows
 * as small objects (name, project and each cell by its column's name) or, with full,
 * the objects themselves. A page that is not the last says how to ask for the next.
 * events (tool_events.c) reads its page here too. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "get.h"
#include "kinds/registry.h"
#include "mcp.h"
#include "util/xmalloc.h"

#define LIST_DEFAULT_LIMIT 50
#define LIST_MAX_LIMIT 500

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

json_t *mcp_list_page(struct mcp_call *c, const struct nd_kind *k, const struct mcp_page *q)
{
    struct nd_client *cl = nd_ctx_client(c->ctx, &c->st);
    if (!cl)
        return NULL;
    struct get_run g = {.ctx = c->ctx, .label_sel = q->label_sel, .field_sel = q->field_sel};
    struct nd_buf path = ND_BUF_INIT, extra = ND_BUF_INIT;
    const char *ns = k->namespaced && !c->ctx->all_projects ? nd_ctx_project(c->ctx) : NULL;
    nd_kind_path(k, ns, NULL, NULL, &path);
    nd_buf_addf(&extra, "limit=%ld&includeObject=%s", q->limit, q->objects ? "Object" : "Metadata");
    if (q->cont && *q->cont) {
        nd_buf_adds(&extra, "&continue=");
        nd_buf_add_urlencoded(&extra, q->cont);
    }
    get_query(&g, &path, extra.data);
    json_t *answer = NULL;
    struct nd_request req = {.method = "GET", .path = path.data, .accept = ND_TABLE_ACCEPT};
    if (nd_client_json_req(cl, &req, NULL, &answer, &c->st) < 0) {
        json_decref(answer);
        answer = NULL;
    } else if (!answer) {
        nd_status_set(&c->st, "InternalError", NULL, "the server answered GET %s with nothing",
                      path.data);
    }
    nd_buf_release(&path);
    nd_buf_release(&extra);
    return answer;
}

/* The objects of a page: the rows' objects of a Table, or a list's items. BORROWED
 * into a NEW array. */
static json_t *page_objects(const json_t *answer)
{
    json_t *rows = json_object_get(answer, "rows"), *out = json_array();
    size_t i;
    json_t *v;
    if (!json_is_array(rows)) {
        json_array_extend(out, json_object_get(answer, "items"));
        return out;
    }
    json_array_foreach(rows, i, v) json_array_append(out, json_object_get(v, "object"));
    return out;
}

int mcp_list_table(struct mcp_call *c, const struct nd_kind *k, const json_t *answer,
                   struct nd_table *t)
{
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    popts.all_projects = c->ctx->all_projects && k->namespaced;
    int rc;
    const char *kind = json_string_value(json_object_get(answer, "kind"));
    if (kind && !strcmp(kind, "Table")) {
        rc = nd_print_table_from_server(t, answer, k, &popts, &c->st);
    } else { /* a server that serves no Table: the registry's columns */
        json_t *objects = page_objects(answer);
        rc = nd_print_table_from_objects(t, objects, k, nd_ctx_now(c->ctx), &popts, &c->st);
        json_decref(objects);
    }
    nd_print_opts_release(&popts);
    return rc;
}

/* A column's header as a key: "MAX-COST" -> "max-cost". NEW. */
static char *column_key(const char *header)
{
    char *s = nd_xstrdup(header);
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

/* The compact row i: {name, project?, cells by column}. NEW. */
static json_t *compact_row(const struct nd_table *t, size_t i, const json_t *obj)
{
    json_t *row = json_object();
    const char *name = meta_str(obj, "name"), *ns = meta_str(obj, "namespace");
    if (name)
        json_object_set_new(row, "name", json_string(name));
    if (ns)
        json_object_set_new(row, "project", json_string(ns));
    for (size_t col = 0; col < t->ncols; col++) {
        const char *h = t->headers[col];
        if (!strcmp(h, "NAMESPACE") || (!strcmp(h, "NAME") && name))
            continue;
        char *key = column_key(h);
        json_object_set_new(row, key, json_string(nd_table_get(t, i, col)));
        free(key);
    }
    return row;
}

/* The structured items of a page: compact rows, or the objects without managedFields. */
static json_t *page_items(const struct nd_table *t, const json_t *answer, bool full)
{
    json_t *objects = page_objects(answer), *items = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(objects, i, obj) {
        if (full) {
            json_t *copy = json_deep_copy(obj);
            json_object_del(json_object_get(copy, "metadata"), "managedFields");
            json_array_append_new(items, copy);
        } else if (i < t->nrows) {
            json_array_append_new(items, compact_row(t, i, obj));
        }
    }
    json_decref(objects);
    return items;
}

/* The page's text: the table (or kubectl's "No resources found"), then how to go on. */
static void page_text(struct mcp_call *c, const struct nd_kind *k, struct nd_table *t,
                      const char *cont, long long remaining)
{
    if (t->nrows) {
        nd_table_render(t, &c->text);
    } else {
        bool all = c->ctx->all_projects || !k->namespaced;
        nd_print_empty_message(all ? NULL : nd_ctx_project(c->ctx), all, &c->text);
    }
    if (!cont)
        return;
    nd_buf_addf(&c->text, "[%zu shown", t->nrows);
    if (remaining > 0)
        nd_buf_addf(&c->text, ", %lld more", remaining);
    nd_buf_addf(&c->text, "; the next page: call list again with \"continue\": \"%s\"]\n", cont);
}

static void run_list(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    long long limit = mcp_arg_int(c, "limit", LIST_DEFAULT_LIMIT);
    if (limit < 1 || limit > LIST_MAX_LIMIT) {
        nd_status_set(&c->st, "BadRequest", "ask for 1 to 500 rows a page, and page on with "
                      "\"continue\"", "limit %lld is out of range: a page holds 1 to %d rows",
                      limit, LIST_MAX_LIMIT);
        return;
    }
    bool full = mcp_arg_bool(c, "full", false);
    struct mcp_page q = {.label_sel = mcp_arg_str(c, "labelSelector", NULL),
                         .field_sel = mcp_arg_str(c, "fieldSelector", NULL),
                         .cont = mcp_arg_str(c, "continue", NULL),
                         .limit = (long)limit,
                         .objects = full};
    json_t *answer = mcp_list_page(c, k, &q);
    if (!answer)
        return;
    struct nd_table t;
    nd_table_init(&t);
    if (mcp_list_table(c, k, answer, &t) == 0) {
        const json_t *meta = json_object_get(answer, "metadata");
        const char *cont = json_string_value(json_object_get(meta, "continue"));
        json_t *rest = json_object_get(meta, "remainingItemCount");
        if (cont && !*cont)
            cont = NULL;
        page_text(c, k, &t, cont, json_is_integer(rest) ? json_integer_value(rest) : -1);
        c->structured = json_pack("{s:s, s:o}", "kind", k->kind, "items", page_items(&t, answer, full));
        if (k->namespaced && !c->ctx->all_projects)
            json_object_set_new(c->structured, "project", json_string(nd_ctx_project(c->ctx)));
        if (cont)
            json_object_set_new(c->structured, "continue", json_string(cont));
        if (json_is_integer(rest))
            json_object_set(c->structured, "remainingItemCount", rest);
    }
    nd_table_release(&t);
    json_decref(answer);
}

static json_t *list_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, NULL, true);
    mcp_schema_project(s, true);
    mcp_schema_prop(s, "labelSelector", "string", "Only objects with these labels (app=trainer, "
                    "tier in (a,b), !x)", false);
    mcp_schema_prop(s, "fieldSelector", "string",
                    "Only objects with these fields (status.phase=Running, metadata.name=x)", false);
    mcp_schema_prop(s, "limit", "integer", "Rows a page, 1 to 500 (default 50)", false);
    mcp_schema_prop(s, "continue", "string", "The continue token of the page before", false);
    mcp_schema_prop(s, "full", "boolean",
                    "The whole objects instead of the table's rows (costs more context)", false);
    return s;
}

static json_t *list_output(void)
{
    return json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:s, s:{s:s}}, s:{s:s, s:s}, s:{s:s}}, s:[s, s]}",
        "type", "object", "properties", "kind", "type", "string", "project", "type", "string",
        "items", "type", "array", "description",
        "The rows ({name, project, one key per column}), or the objects with full", "items",
        "type", "object", "continue", "type", "string", "description",
        "Pass it back as \"continue\" for the next page", "remainingItemCount", "type",
        "integer", "required", "kind", "items");
}

const struct mcp_tool mcp_tool_list = {
    "list",
    "List objects of a kind",
    "List the objects of one kind with the columns of `nodus get KIND` (a compact table; "
    "full: the whole objects). A page holds `limit` rows (default 50); a longer list "
    "answers a continue token for the next page. Selectors and every project as kubectl "
    "takes them.",
    MCP_T_READ | MCP_T_PROJECT,
    list_input,
    list_output,
    run_list,
};
