/* tool_events.c: events, the Events of one object (what `nodus describe` shows at its
 * end, or `kubectl events --for KIND/NAME`): the table of `nodus get events` for them
 * and each Event in a few fields. */
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "print/print.h"
#include "write.h"

/* The most Events read for one object (the newest are the server's last). */
#define EVENTS_MAX 500

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* One Event, compact: NEW. */
static json_t *compact_event(const json_t *e)
{
    json_t *out = json_object();
    const char *last = str(e, "lastTimestamp");
    if (!last)
        last = str(e, "eventTime");
    const char *keys[][2] = {{"type", str(e, "type")},
                             {"reason", str(e, "reason")},
                             {"message", str(e, "message")},
                             {"lastSeen", last},
                             {"from", str(json_object_get(e, "source"), "component")}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i][1])
            json_object_set_new(out, keys[i][0], json_string(keys[i][1]));
    json_t *count = json_object_get(e, "count");
    json_object_set_new(out, "count", json_integer(json_is_integer(count)
                                                       ? json_integer_value(count) : 1));
    return out;
}

/* No Events: the object may not be there at all (a misspelt name): say so then. */
static void no_events(struct mcp_call *c, const struct nd_kind *k, const char *name)
{
    struct nd_buf path = ND_BUF_INIT;
    json_t *obj = NULL;
    nd_kind_path(k, k->namespaced ? nd_ctx_project(c->ctx) : NULL, name, NULL, &path);
    if (nd_call_get(c->ctx, path.data, &obj, &c->st) == 0)
        nd_buf_addf(&c->text, "No events for %s/%s.\n", k->singular, name);
    json_decref(obj);
    nd_buf_release(&path);
}

static void run_events(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    const char *name = mcp_arg_str(c, "name", "");
    const struct nd_kind *ev = nd_kind_by_kind("", "Event");
    struct nd_buf sel = ND_BUF_INIT;
    nd_buf_addf(&sel, "involvedObject.name=%s,involvedObject.kind=%s", name, k->kind);
    c->ctx->all_projects = false; /* an object's Events live in its project */
    struct mcp_page q = {.field_sel = sel.data, .limit = EVENTS_MAX, .objects = true};
    json_t *answer = mcp_list_page(c, ev, &q);
    struct nd_table t;
    nd_table_init(&t);
    if (answer && mcp_list_table(c, ev, answer, &t) == 0) {
        json_t *events = json_array();
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(answer, "rows"), i, row)
            json_array_append_new(events, compact_event(json_object_get(row, "object")));
        json_array_foreach(json_object_get(answer, "items"), i, row)
            json_array_append_new(events, compact_event(row));
        if (t.nrows)
            nd_table_render(&t, &c->text);
        else
            no_events(c, k, name);
        if (!nd_status_failed(&c->st))
            c->structured = json_pack("{s:s, s:s, s:o}", "kind", k->kind, "name", name, "events",
                                      events);
        else
            json_decref(events);
    }
    nd_table_release(&t);
    json_decref(answer);
    nd_buf_release(&sel);
}

static json_t *events_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, NULL, true);
    mcp_schema_prop(s, "name", "string", "The object's name", true);
    mcp_schema_project(s, false);
    return s;
}

static json_t *events_output(void)
{
    return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:s, s:{s:s, s:{s:{s:s}, s:{s:s}, "
                     "s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}}}}}, s:[s, s, s]}",
                     "type", "object", "properties", "kind", "type", "string", "name", "type",
                     "string", "events", "type", "array", "description",
                     "The object's Events, oldest first", "items", "type", "object",
                     "properties", "type", "type", "string", "reason", "type", "string",
                     "message", "type", "string", "lastSeen", "type", "string", "from", "type",
                     "string", "count", "type", "integer", "required", "kind", "name", "events");
}

const struct mcp_tool mcp_tool_events = {
    "events",
    "Events of an object",
    "The Events of one object (why it is queued, placed, failed, stopped ...), as the end of "
    "`nodus describe` or `kubectl events --for KIND/NAME` shows them.",
    MCP_T_READ | MCP_T_PROJECT,
    events_input,
    events_output,
    run_events,
};
