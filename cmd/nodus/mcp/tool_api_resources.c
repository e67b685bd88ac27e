/* tool_api_resources.c: api_resources, the kinds the server serves with their verbs,
 * short names and subresources: the text of `nodus api-resources -o wide`, and each kind
 * from discovery (its subresources and one line about it from the kind registry). */
#include <string.h>

#include "discovery.h"
#include "kinds/registry.h"
#include "mcp.h"

static json_t *strings(const char *const *v)
{
    json_t *a = json_array();
    for (size_t i = 0; v && v[i]; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* One kind of discovery, for an agent. NEW. */
static json_t *resource(const json_t *r)
{
    const char *name = json_string_value(json_object_get(r, "name"));
    const char *group = json_string_value(json_object_get(r, "group"));
    json_t *out = json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", name ? name : "", "kind",
                            json_string_value(json_object_get(r, "kind")) ?: "", "group",
                            group ? group : "", "version",
                            json_string_value(json_object_get(r, "version")) ?: "", "namespaced",
                            json_is_true(json_object_get(r, "namespaced")));
    const char *keys[] = {"shortNames", "verbs", "categories"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(r, keys[i]);
        json_object_set_new(out, keys[i], json_is_array(v) ? json_incref(v) : json_array());
    }
    const struct nd_kind *k = name ? nd_kind_by_plural(group, name) : NULL;
    json_object_set_new(out, "subresources", strings(k ? k->subresources : NULL));
    if (k && k->description)
        json_object_set_new(out, "description", json_string(k->description));
    return out;
}

static void run_api_resources(struct mcp_call *c)
{
    const char *argv[] = {"api-resources", "-o", "wide", NULL};
    if (mcp_call_verb(c, argv) != 0)
        return;
    json_t *all = nd_discovery_resources(c->ctx, 0, &c->st); /* the verb's, cached */
    if (!all)
        return;
    json_t *list = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r) json_array_append_new(list, resource(r));
    c->structured = json_pack("{s:o}", "resources", list);
    json_decref(all);
}

static json_t *api_resources_input(void)
{
    return mcp_schema_object();
}

static json_t *api_resources_output(void)
{
    return json_pack(
        "{s:s, s:{s:{s:s, s:{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, "
        "s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}}}}}, s:[s]}",
        "type", "object", "properties", "resources", "type", "array", "items", "type", "object",
        "properties", "name", "type", "string", "kind", "type", "string", "group", "type",
        "string", "version", "type", "string", "namespaced", "type", "boolean", "shortNames",
        "type", "array", "verbs", "type", "array", "categories", "type", "array",
        "subresources", "type", "array", "description", "type", "string", "required",
        "resources");
}

const struct mcp_tool mcp_tool_api_resources = {
    "api_resources",
    "The kinds and their verbs",
    "Every kind the server serves (what `nodus api-resources -o wide` prints): its plural "
    "name, short names, group, whether it lives in a project, the verbs it takes and its "
    "subresources (log, exec, files, invoke, status). Use the names in the other tools' "
    "\"kind\".",
    MCP_T_READ,
    api_resources_input,
    api_resources_output,
    run_api_resources,
};
