/* tools.c: the tool table, what the safety modes let through, the tools' schemas and
 * the check of a call's arguments against them. */
#include <stdio.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "util/suggest.h"

/* Every tool, in the order tools/list shows them: reads first. Each family's file
 * defines its tools (mcp.h's table names them). */
static const struct mcp_tool *const table[] = {
    /* read (tool_get.c, tool_list.c ...) */
    &mcp_tool_api_resources,
    &mcp_tool_list,
    &mcp_tool_get,
    &mcp_tool_describe,
    &mcp_tool_explain,
    &mcp_tool_events,
    &mcp_tool_top,
    &mcp_tool_can_i,
    &mcp_tool_logs, /* tool_logs.c */
    /* write (tool_apply.c, tool_state.c, tool_delete.c, tool_exec.c) */
    &mcp_tool_apply,
    &mcp_tool_suspend,
    &mcp_tool_resume,
    &mcp_tool_cancel,
    &mcp_tool_stop,
    &mcp_tool_start_state,
    &mcp_tool_request,
    &mcp_tool_approve,
    &mcp_tool_reject,
    &mcp_tool_delete,
    &mcp_tool_exec,
    NULL,
};

const struct mcp_tool *const *mcp_tools(void)
{
    return table;
}

const struct mcp_tool *mcp_tool_find(const char *name)
{
    for (const struct mcp_tool *const *t = table; *t; t++)
        if (!strcmp((*t)->name, name))
            return *t;
    return NULL;
}

const char *mcp_tool_refused(const struct mcp_config *cfg, const struct mcp_tool *t)
{
    if (cfg->read_only && !(t->flags & MCP_T_READ))
        return "nodus mcp runs with --read-only: only the read tools are served";
    if (cfg->disable_destructive && (t->flags & MCP_T_DESTRUCTIVE))
        return "nodus mcp runs with --disable-destructive: tools that delete are not served";
    if ((t->flags & MCP_T_EXEC) && !cfg->allow_exec)
        return "exec runs commands in your workloads: start nodus mcp with --allow-exec to "
               "serve it";
    return NULL;
}

bool mcp_project_allowed(const struct mcp_config *cfg, const char *project)
{
    if (!cfg->projects.n)
        return true;
    for (size_t i = 0; project && i < cfg->projects.n; i++)
        if (!strcmp(cfg->projects.v[i], project))
            return true;
    return false;
}

/* A failed call answers structuredContent {status} (call.c), and a client checks that
 * against the outputSchema too (the TypeScript SDK does, isError or not): every schema
 * takes it, its own required fields or the status. Steals and returns schema. */
static json_t *output_or_status(json_t *schema)
{
    json_t *props = json_object_get(schema, "properties");
    if (!props)
        json_object_set_new(schema, "properties", props = json_object());
    json_object_set_new(props, "status",
                        json_pack("{s:s, s:s}", "type", "object", "description",
                                  "A failed call's Status: reason, message, fix, docs, "
                                  "requestId (isError is true)"));
    json_t *req = json_object_get(schema, "required");
    if (json_array_size(req)) {
        json_object_set_new(schema, "anyOf",
                            json_pack("[{s:O}, {s:[s]}]", "required", req, "required", "status"));
        json_object_del(schema, "required");
    }
    return schema;
}

json_t *mcp_tool_entry(const struct mcp_tool *t)
{
    bool read = t->flags & MCP_T_READ;
    json_t *d = json_pack(
        "{s:s, s:s, s:s, s:o, s:{s:s, s:b, s:b, s:b, s:b}}", "name", t->name, "title", t->title,
        "description", t->description, "inputSchema", t->input_schema(), "annotations", "title",
        t->title, "readOnlyHint", read, "destructiveHint", !!(t->flags & MCP_T_DESTRUCTIVE),
        "idempotentHint", read || (t->flags & MCP_T_IDEMPOTENT), "openWorldHint", 1);
    if (t->output_schema)
        json_object_set_new(d, "outputSchema", output_or_status(t->output_schema()));
    return d;
}

/* ---- schemas ---- */

json_t *mcp_schema_object(void)
{
    return json_pack("{s:s, s:{}, s:[], s:b}", "type", "object", "properties", "required",
                     "additionalProperties", 0);
}

void mcp_schema_prop(json_t *schema, const char *name, const char *type, const char *desc,
                     bool required)
{
    json_t *p = json_pack("{s:s, s:s}", "type", type, "description", desc);
    if (!strcmp(type, "array"))
        json_object_set_new(p, "items", json_pack("{s:s}", "type", "string"));
    json_object_set_new(json_object_get(schema, "properties"), name, p);
    if (required)
        json_array_append_new(json_object_get(schema, "required"), json_string(name));
}

void mcp_schema_kind(json_t *schema, bool (*keep)(const struct nd_kind *k), bool required)
{
    json_t *names = json_array();
    struct nd_buf desc = ND_BUF_INIT;
    nd_buf_adds(&desc, "The kind, as `nodus get` names it (singular, plural or short name): ");
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (keep && !keep(k))
            continue;
        nd_buf_addf(&desc, "%s%s", json_array_size(names) ? ", " : "", k->singular);
        json_array_append_new(names, json_string(k->singular));
    }
    mcp_schema_prop(schema, "kind", "string", desc.data, required);
    json_array_clear(names); /* any name of a kind is taken; the list is in the text */
    json_decref(names);
    nd_buf_release(&desc);
}

void mcp_schema_project(json_t *schema, bool lists)
{
    mcp_schema_prop(schema, "project", "string",
                    "The project (namespace); the context's when absent", false);
    if (lists)
        mcp_schema_prop(schema, "allProjects", "boolean", "Every project (kubectl's -A)", false);
}

json_t *mcp_schema_output(json_t *properties, const char *const *required)
{
    json_t *req = json_array();
    for (size_t i = 0; required && required[i]; i++)
        json_array_append_new(req, json_string(required[i]));
    return json_pack("{s:s, s:o, s:o}", "type", "object", "properties", properties, "required",
                     req);
}

/* ---- argument check ---- */

static bool has_type(const json_t *v, const char *type)
{
    if (!strcmp(type, "string"))
        return json_is_string(v);
    if (!strcmp(type, "integer"))
        return json_is_integer(v);
    if (!strcmp(type, "number"))
        return json_is_number(v);
    if (!strcmp(type, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(type, "array"))
        return json_is_array(v);
    if (!strcmp(type, "object"))
        return json_is_object(v);
    return true;
}

static const char *unknown_key(const json_t *props, const char *key, char *buf, size_t cap)
{
    struct nd_suggest sg;
    nd_suggest_init(&sg, key);
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)props, name, v)
        nd_suggest_add(&sg, name, name);
    const char *best = nd_suggest_count(&sg) ? nd_suggest_at(&sg, 0) : NULL;
    if (best)
        snprintf(buf, cap, "unknown argument \"%s\": did you mean \"%s\"?", key, best);
    else
        snprintf(buf, cap, "unknown argument \"%s\"", key);
    nd_suggest_release(&sg);
    return buf;
}

static const char *check_value(const char *key, const json_t *p, const json_t *v, char *buf,
                               size_t cap)
{
    const char *type = json_string_value(json_object_get(p, "type"));
    if (type && !has_type(v, type)) {
        snprintf(buf, cap, "argument \"%s\" must be %s %s", key,
                 strchr("aeiou", type[0]) ? "an" : "a", type);
        return buf;
    }
    json_t *items = json_object_get(p, "items");
    const char *itype = json_string_value(json_object_get(items, "type"));
    size_t i;
    json_t *e;
    if (itype && json_is_array(v))
        json_array_foreach(v, i, e) if (!has_type(e, itype))
        {
            snprintf(buf, cap, "argument \"%s\" must be an array of %ss", key, itype);
            return buf;
        }
    json_t *en = json_object_get(p, "enum");
    if (!en)
        return NULL;
    json_array_foreach(en, i, e) if (json_equal(e, v)) return NULL;
    struct nd_buf b = ND_BUF_INIT;
    json_array_foreach(en, i, e) nd_buf_addf(&b, "%s%s", i ? ", " : "", json_string_value(e));
    snprintf(buf, cap, "argument \"%s\" must be one of: %s", key, b.data);
    nd_buf_release(&b);
    return buf;
}

const char *mcp_tool_check_args(const struct mcp_tool *t, const json_t *args, char *buf,
                                size_t cap)
{
    json_t *schema = t->input_schema();
    json_t *props = json_object_get(schema, "properties");
    const char *why = NULL;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)args, key, v) {
        json_t *p = json_object_get(props, key);
        why = p ? check_value(key, p, v, buf, cap) : unknown_key(props, key, buf, cap);
        if (why)
            break;
    }
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(schema, "required"), i, r) {
        if (why)
            break;
        if (!json_object_get(args, json_string_value(r))) {
            snprintf(buf, cap, "argument \"%s\" is required", json_string_value(r));
            why = buf;
        }
    }
    json_decref(schema);
    return why;
}
