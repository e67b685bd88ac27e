/* tool_explain.c: explain, a kind's or a field's schema as `nodus explain` prints it. */
#include <string.h>

#include "mcp.h"

static void run_explain(struct mcp_call *c)
{
    const char *field = mcp_arg_str(c, "field", "");
    bool recursive = mcp_arg_bool(c, "recursive", false);
    const char *argv[] = {"explain", field, recursive ? "--recursive" : NULL, NULL};
    if (mcp_call_verb(c, argv) == 0)
        c->structured = json_pack("{s:s}", "field", field);
    else /* a kind or field that is not there (with its did-you-mean) */
        mcp_call_usage_as(c, "NotFound");
}

static json_t *explain_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_prop(s, "field", "string",
                    "A kind, or a field of one: \"job\", \"job.spec.resources\", "
                    "\"pool.spec.scaling\"",
                    true);
    mcp_schema_prop(s, "recursive", "boolean",
                    "Every field below, without descriptions (kubectl's --recursive)", false);
    return s;
}

static json_t *explain_output(void)
{
    return json_pack("{s:s, s:{s:{s:s, s:s}}, s:[s]}", "type", "object", "properties", "field",
                     "type", "string", "description",
                     "The field explained; the explanation is the text", "required", "field");
}

const struct mcp_tool mcp_tool_explain = {
    "explain",
    "Explain a kind or a field",
    "The schema of a kind or of one of its fields (type, description, its fields, enums), as "
    "`nodus explain job.spec.resources` prints it. A misspelt field is answered with what it "
    "may have meant.",
    MCP_T_READ,
    explain_input,
    explain_output,
    run_explain,
};
