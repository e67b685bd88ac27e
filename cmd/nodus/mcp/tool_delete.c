/* tool_delete.c: delete one object, as `nodus delete KIND/NAME --wait=false` does it (the
 * call does not wait: work being cancelled may take a while), then says whether it is
 * gone or still finishing. The one tool with destructiveHint (--disable-destructive). */
#include <stdio.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "write.h"

static bool deletable(const struct nd_kind *k)
{
    return !k->read_only;
}

static json_t *delete_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, deletable, true);
    mcp_schema_prop(s, "name", "string", "The object's name", true);
    mcp_schema_project(s, false);
    mcp_schema_prop(s, "cascade", "string",
                    "What happens to the objects it owns: background (the default: deleted "
                    "after it), foreground (deleted before it) or orphan (kept)",
                    false);
    json_object_set_new(json_object_get(json_object_get(s, "properties"), "cascade"), "enum",
                        json_pack("[s, s, s]", "background", "foreground", "orphan"));
    return s;
}

static json_t *delete_output(void)
{
    json_t *props = json_pack(
        "{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s}}", "kind", "type",
        "string", "name", "type", "string", "project", "type", "string", "cascade", "type",
        "string", "gone", "type", "boolean", "description",
        "true: the object no longer exists; false: it is finishing (its phase says how)",
        "phase", "type", "string", "description", "status.phase while it finishes");
    static const char *const req[] = {"kind", "name", "project", "gone", NULL};
    return mcp_schema_output(props, req);
}

/* Whether the object is gone after the delete; else its phase. */
static void after(struct mcp_call *c, const struct nd_kind *k, const char *project,
                  const char *name)
{
    struct nd_buf path = ND_BUF_INIT;
    json_t *obj = NULL;
    struct nd_status st = ND_STATUS_INIT;
    bool gone = false;
    if (nd_kind_path(k, k->namespaced ? project : NULL, name, NULL, &path) == 0 &&
        nd_call_get(c->ctx, path.data, &obj, &st) < 0)
        gone = nd_status_is(&st, ND_REASON_NOT_FOUND);
    json_object_set_new(c->structured, "gone", json_boolean(gone));
    const char *phase =
        json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    if (!gone && phase) {
        json_object_set_new(c->structured, "phase", json_string(phase));
        nd_buf_addf(&c->text, "it is still finishing (phase %s): get or describe shows when it "
                              "is gone\n",
                    phase);
    }
    json_decref(obj);
    nd_status_release(&st);
    nd_buf_release(&path);
}

static void run_delete(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    const char *name = mcp_arg_str(c, "name", "");
    const char *cascade = mcp_arg_str(c, "cascade", "background");
    char target[512], casc[64];
    snprintf(target, sizeof target, "%s/%s", k->plural, name);
    snprintf(casc, sizeof casc, "--cascade=%s", cascade);
    const char *argv[] = {"delete", target, casc, "--wait=false", NULL};
    if (mcp_call_verb(c, argv) != 0)
        return;
    const char *project = k->namespaced ? nd_ctx_project(c->ctx) : "";
    c->structured = json_pack("{s:s, s:s, s:s, s:s}", "kind", k->kind, "name", name, "project",
                              project, "cascade", cascade);
    after(c, k, project, name);
}

const struct mcp_tool mcp_tool_delete = {
    "delete",
    "Delete an object",
    "Delete one object, like `nodus delete KIND NAME` (without waiting): running work is "
    "cancelled first and its owned objects follow the cascade. The answer says whether it "
    "is gone or still finishing.",
    MCP_T_PROJECT | MCP_T_DESTRUCTIVE | MCP_T_IDEMPOTENT,
    delete_input,
    delete_output,
    run_delete,
};
