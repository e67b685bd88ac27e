/* tool_auth.c: can_i, whether the server lets this token do something, as
 * `nodus auth can-i VERB KIND[/NAME] [--subresource S]` asks it (a
 * SelfSubjectAccessReview: the server's own decision). */
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "util/xmalloc.h"

static void run_can_i(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    const char *verb = mcp_arg_str(c, "verb", "");
    const char *name = mcp_arg_str(c, "name", NULL);
    const char *sub = mcp_arg_str(c, "subresource", NULL);
    char *target = name && *name ? nd_xasprintf("%s/%s", k->plural, name)
                                 : nd_xstrdup(k->plural);
    const char *argv[] = {"auth", "can-i", verb, target, sub ? "--subresource" : NULL, sub, NULL};
    int rc = mcp_call_verb(c, argv);
    free(target);
    /* "no" is exit code 1 without an error: an answer, not a failure */
    bool no = rc == 1 && !strncmp(c->text.data ? c->text.data : "", "no", 2);
    if (no) {
        nd_status_release(&c->st);
        nd_status_init(&c->st);
    } else if (rc != 0) {
        return;
    }
    const char *reason = "";
    if (no && !strncmp(c->text.data, "no - ", 5))
        reason = c->text.data + 5;
    size_t len = strlen(reason);
    while (len && reason[len - 1] == '\n')
        len--;
    c->structured = json_pack("{s:b, s:s%}", "allowed", !no, "reason", reason, len);
}

static json_t *can_i_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_prop(s, "verb", "string",
                    "The API verb: get, list, watch, create, update, patch, delete, "
                    "deletecollection",
                    true);
    mcp_schema_kind(s, NULL, true);
    mcp_schema_prop(s, "name", "string", "One object's name (default: any)", false);
    mcp_schema_project(s, false);
    mcp_schema_prop(s, "subresource", "string", "A subresource: log, exec, files, invoke, status",
                    false);
    return s;
}

static json_t *can_i_output(void)
{
    return json_pack("{s:s, s:{s:{s:s}, s:{s:s, s:s}}, s:[s, s]}", "type", "object",
                     "properties", "allowed", "type", "boolean", "reason", "type", "string",
                     "description", "Why not, when the server says (empty otherwise)",
                     "required", "allowed", "reason");
}

const struct mcp_tool mcp_tool_can_i = {
    "can_i",
    "May I do this?",
    "Whether the server lets this token do VERB on KIND (one object with name, a subresource "
    "such as log or exec): the server's own decision, as `nodus auth can-i create jobs` asks "
    "it.",
    MCP_T_READ | MCP_T_PROJECT,
    can_i_input,
    can_i_output,
    run_can_i,
};
