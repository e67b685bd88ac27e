/* tool_get.c: the tools that read one object: get and describe. */
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "write.h"
#include "yaml/yaml.h"

/* {kind, name, project} of the one-object tools. */
static json_t *one_object_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, NULL, true);
    mcp_schema_prop(s, "name", "string", "The object's name", true);
    mcp_schema_project(s, false);
    return s;
}

static json_t *get_input(void)
{
    json_t *s = one_object_input();
    mcp_schema_prop(s, "format", "string", "How the text shows the object: yaml (default) or json",
                    false);
    json_object_set_new(json_object_get(json_object_get(s, "properties"), "format"), "enum",
                        json_pack("[s, s]", "yaml", "json"));
    return s;
}

static json_t *get_output(void)
{
    return json_pack("{s:s, s:{s:{s:s, s:s}}, s:[s]}", "type", "object", "properties", "object",
                     "type", "object", "description", "The object as the server answered it",
                     "required", "object");
}

/* The path of the call's object: its kind, the call's project, its name. An empty name
 * would be the path of the whole list: refused. */
static int object_path(struct mcp_call *c, const struct nd_kind *k, struct nd_buf *path)
{
    const char *name = mcp_arg_str(c, "name", "");
    if (!*name)
        return nd_status_set(&c->st, "BadRequest", "name the object, or list them all with list",
                             "the argument \"name\" is empty");
    return nd_kind_path(k, k->namespaced ? nd_ctx_project(c->ctx) : NULL, name, NULL, path);
}

static void run_get(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    struct nd_buf path = ND_BUF_INIT;
    json_t *obj = NULL;
    if (object_path(c, k, &path) == 0 && nd_call_get(c->ctx, path.data, &obj, &c->st) == 0) {
        /* managedFields is bookkeeping an agent never needs: it costs context */
        json_object_del(json_object_get(obj, "metadata"), "managedFields");
        const char *format = mcp_arg_str(c, "format", "yaml");
        if (!strcmp(format, "json")) {
            char *s = json_dumps(obj, JSON_INDENT(2));
            nd_buf_adds(&c->text, s);
            nd_buf_addch(&c->text, '\n');
            free(s);
        } else {
            nd_yaml_dump_flags(obj, &c->text, ND_YAML_SORT_KEYS, &c->st);
        }
        c->structured = json_pack("{s:o}", "object", obj);
    }
    nd_buf_release(&path);
}

const struct mcp_tool mcp_tool_get = {
    "get",
    "Get one object",
    "Read one object (its spec and status) as YAML or JSON, like `nodus get KIND NAME -o yaml`.",
    MCP_T_READ | MCP_T_PROJECT,
    get_input,
    get_output,
    run_get,
};

static json_t *describe_output(void)
{
    return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}, s:[s, s]}", "type", "object",
                     "properties", "kind", "type", "string", "name", "type", "string", "project",
                     "type", "string", "required", "kind", "name");
}

static void run_describe(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    const char *name = mcp_arg_str(c, "name", "");
    if (!*name) {
        nd_status_set(&c->st, "BadRequest", "name the object, or list them all with list",
                      "the argument \"name\" is empty");
        return;
    }
    char target[512];
    snprintf(target, sizeof target, "%s/%s", k->plural, name);
    const char *argv[] = {"describe", target, NULL};
    if (mcp_call_verb(c, argv) == 0)
        c->structured = json_pack("{s:s, s:s, s:s}", "kind", k->kind, "name", name, "project",
                                  k->namespaced ? nd_ctx_project(c->ctx) : "");
}

const struct mcp_tool mcp_tool_describe = {
    "describe",
    "Describe one object",
    "What `nodus describe KIND NAME` prints: the object's state, conditions, cost and its "
    "recent events. Start here to learn why something is not running.",
    MCP_T_READ | MCP_T_PROJECT,
    one_object_input,
    describe_output,
    run_describe,
};
