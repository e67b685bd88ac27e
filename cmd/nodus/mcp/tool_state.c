/* tool_state.c: the tools that change what an object should do: suspend, resume, cancel,
 * stop, start (spec.state, as the verbs of state_verbs.c set it), request (a one-off
 * action, verbs/request.c) and approve / reject (a PoolAction's decision, decision.c).
 * Each runs its CLI verb, then reads the object back for its answer. The kinds each tool
 * takes come from the registry (the kinds' spec.state values and requests). */
#include <stdio.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "util/money.h"
#include "write.h"

/* ---- schemas ---- */

static bool can_suspend(const struct nd_kind *k)
{
    return nd_kind_state_valid(k, "Suspended");
}

static bool can_cancel(const struct nd_kind *k)
{
    return nd_kind_state_valid(k, "Cancelled");
}

static bool can_stop(const struct nd_kind *k)
{
    return nd_kind_state_valid(k, "Stopped");
}

static bool takes_requests(const struct nd_kind *k)
{
    return k->requests != NULL;
}

static json_t *state_input(bool (*keep)(const struct nd_kind *k))
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, keep, true);
    mcp_schema_prop(s, "name", "string", "The object's name", true);
    mcp_schema_project(s, false);
    return s;
}

static json_t *suspend_input(void)
{
    return state_input(can_suspend);
}

static json_t *cancel_input(void)
{
    return state_input(can_cancel);
}

static json_t *stop_input(void)
{
    return state_input(can_stop);
}

static json_t *request_input(void)
{
    json_t *s = state_input(takes_requests);
    struct nd_buf desc = ND_BUF_INIT;
    nd_buf_adds(&desc, "The one-off action to ask for: ");
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        for (size_t j = 0; k->requests && k->requests[j]; j++)
            nd_buf_addf(&desc, "%s%s (%s)", desc.data[desc.len - 1] == ' ' ? "" : ", ",
                        k->requests[j], k->plural);
    }
    mcp_schema_prop(s, "action", "string", desc.data, true);
    nd_buf_release(&desc);
    return s;
}

static json_t *decide_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_prop(s, "name", "string", "The PoolAction's name (nodus get poolactions)", true);
    mcp_schema_project(s, false);
    return s;
}

static json_t *state_output(void)
{
    json_t *props = json_pack(
        "{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:s},"
        " s:{s:s, s:s}}",
        "kind", "type", "string", "name", "type", "string", "project", "type", "string", "state",
        "type", "string", "description", "spec.state after the call", "decision", "type",
        "string", "description", "spec.decision after the call (approve, reject)", "action",
        "type", "string", "description", "the action requested (request)", "phase", "type",
        "string", "description", "status.phase after the call", "rateUSDPerHour", "type",
        "string", "description", "status.rateUSDPerHour: what it costs an hour now, when the "
        "server says");
    static const char *const req[] = {"kind", "name", "project", NULL};
    return mcp_schema_output(props, req);
}

/* ---- the calls ---- */

/* The object after the verb: kind, name, project and what the server says of it. */
static void answer_object(struct mcp_call *c, const struct nd_kind *k, const char *name,
                          const char *field, const char *value)
{
    const char *project = k->namespaced ? nd_ctx_project(c->ctx) : "";
    c->structured = json_pack("{s:s, s:s, s:s}", "kind", k->kind, "name", name, "project", project);
    if (value)
        json_object_set_new(c->structured, field, json_string(value));
    struct nd_buf path = ND_BUF_INIT;
    json_t *obj = NULL;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_kind_path(k, k->namespaced ? project : NULL, name, NULL, &path) == 0 &&
        nd_call_get(c->ctx, path.data, &obj, &st) == 0) {
        const json_t *spec = json_object_get(obj, "spec"), *status = json_object_get(obj, "status");
        const char *keys[][3] = {{"state", "spec", "state"},
                                 {"decision", "spec", "decision"},
                                 {"phase", "status", "phase"},
                                 {"rateUSDPerHour", "status", "rateUSDPerHour"}};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
            const json_t *from = !strcmp(keys[i][1], "spec") ? spec : status;
            const char *v = json_string_value(json_object_get(from, keys[i][2]));
            if (v)
                json_object_set_new(c->structured, keys[i][0], json_string(v));
        }
        const char *phase = json_string_value(json_object_get(status, "phase"));
        if (phase)
            nd_buf_addf(&c->text, "phase: %s\n", phase);
        const char *rate = json_string_value(json_object_get(status, "rateUSDPerHour"));
        int64_t micros;
        if (rate && nd_money_parse(rate, &micros, &st) == 0 && micros > 0) {
            nd_buf_adds(&c->text, "it costs ");
            nd_money_human(micros, &c->text);
            nd_buf_adds(&c->text, "/h while it runs\n");
        }
    }
    nd_status_release(&st);
    json_decref(obj);
    nd_buf_release(&path);
}

/* Runs `VERB [ACTION] PLURAL/NAME` (-n is the call's project). */
static void run_verb(struct mcp_call *c, const char *verb, const char *action,
                     const struct nd_kind *k, const char *field, const char *value)
{
    const char *name = mcp_arg_str(c, "name", "");
    char target[512];
    snprintf(target, sizeof target, "%s/%s", k->plural, name);
    const char *with_action[] = {verb, action, target, NULL};
    const char *plain[] = {verb, target, NULL};
    if (mcp_call_verb(c, action ? with_action : plain) == 0)
        answer_object(c, k, name, field, value);
}

static void set_state(struct mcp_call *c, const char *verb, const char *state)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    if (!k)
        return;
    if (nd_kind_state_valid(k, state)) {
        run_verb(c, verb, NULL, k, "state", state);
        return;
    }
    /* said here as an agent needs it: which kinds the tool takes (the registry's) */
    struct nd_buf kinds = ND_BUF_INIT;
    for (size_t i = 0; i < nd_kind_count(); i++)
        if (nd_kind_state_valid(&nd_kinds[i], state))
            nd_buf_addf(&kinds, "%s%s", kinds.len ? ", " : "", nd_kinds[i].singular);
    nd_status_set(&c->st, "BadRequest", NULL, "a %s has no spec.state %s: %s takes %s", k->kind,
                  state, verb, kinds.data);
    nd_status_set_fix(&c->st, "call %s on a %s, or see what a %s does: describe it", verb,
                      kinds.data, k->kind);
    nd_buf_release(&kinds);
}

static void run_suspend(struct mcp_call *c)
{
    set_state(c, "suspend", "Suspended");
}

static void run_resume(struct mcp_call *c)
{
    set_state(c, "resume", "Running");
}

static void run_cancel(struct mcp_call *c)
{
    set_state(c, "cancel", "Cancelled");
}

static void run_stop(struct mcp_call *c)
{
    set_state(c, "stop", "Stopped");
}

static void run_start(struct mcp_call *c)
{
    set_state(c, "start", "Running");
}

static void run_request(struct mcp_call *c)
{
    const struct nd_kind *k = mcp_arg_kind(c, "kind");
    const char *action = mcp_arg_str(c, "action", "");
    if (k)
        run_verb(c, "request", action, k, "action", action);
}

static void decide(struct mcp_call *c, const char *verb, const char *decision)
{
    run_verb(c, verb, NULL, nd_kind_by_plural(NULL, "poolactions"), "decision", decision);
}

static void run_approve(struct mcp_call *c)
{
    decide(c, "approve", "Approved");
}

static void run_reject(struct mcp_call *c)
{
    decide(c, "reject", "Rejected");
}

/* mcp_tool_ID, except start's (mcp_tool_start is call.c's function): mcp_tool_start_state */
#define STATE_TOOL_AS(sym, id, title, desc, input, flags)                                      \
    const struct mcp_tool sym = {#id, title, desc, flags, input, state_output, run_##id}
#define STATE_TOOL(id, title, desc, input, flags)                                              \
    STATE_TOOL_AS(mcp_tool_##id, id, title, desc, input, flags)

STATE_TOOL(suspend, "Suspend work",
           "Suspend work (spec.state: Suspended), like `nodus suspend`: it stops running and "
           "costing money, and resume takes it up again. The kind argument names the kinds.",
           suspend_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL(resume, "Resume suspended work",
           "Resume suspended work (spec.state: Running), like `nodus resume`. "
           "It costs money again once it runs: the answer says the rate when the server has it.",
           suspend_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL(cancel, "Cancel work",
           "Cancel work for good (spec.state: Cancelled), like `nodus cancel`. The kind argument "
           "names the kinds.",
           cancel_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL(stop, "Stop a long-running object",
           "Stop a long-running object (spec.state: Stopped), like `nodus stop`: it stops "
           "costing money. The kind argument names the kinds.",
           stop_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL_AS(mcp_tool_start_state, start, "Start a stopped object",
           "Start a stopped long-running object (spec.state: Running), like `nodus start`. It costs money again once it runs: the answer says "
           "the rate when the server has it.",
           stop_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL(request, "Request a one-off action",
           "Ask for a one-off action on an object, like `nodus request ACTION KIND/NAME`: each "
           "call asks again. The action argument names each kind's actions.",
           request_input, MCP_T_PROJECT);
STATE_TOOL(approve, "Approve a PoolAction",
           "Approve a PoolAction waiting for a decision (spec.decision: Approved), like "
           "`nodus approve NAME`.",
           decide_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
STATE_TOOL(reject, "Reject a PoolAction",
           "Reject a PoolAction waiting for a decision (spec.decision: Rejected), like "
           "`nodus reject NAME`.",
           decide_input, MCP_T_PROJECT | MCP_T_IDEMPOTENT);
