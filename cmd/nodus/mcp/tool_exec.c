/* tool_exec.c: run a command in a Running workload, as `nodus exec KIND/NAME -- CMD`
 * without -i or -t (verbs/exec.c's session, its output kept): not interactive, bounded
 * in time (timeoutSeconds) and in output (each stream past half of --max-output is cut
 * and counted). Listed and callable only with --allow-exec (MCP_T_EXEC). */
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "kinds/registry.h"
#include "mcp.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#define EXEC_DEFAULT_TIMEOUT 30
#define EXEC_MAX_TIMEOUT 600

static bool runs_commands(const struct nd_kind *k)
{
    return nd_kind_has_subresource(k, "exec");
}

static json_t *exec_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_kind(s, runs_commands, false);
    json_t *kind = json_object_get(json_object_get(s, "properties"), "kind");
    char *desc = nd_xasprintf("%s (default: sandbox)",
                              json_string_value(json_object_get(kind, "description")));
    json_object_set_new(kind, "description", json_string(desc));
    free(desc);
    mcp_schema_prop(s, "name", "string", "The workload's name (it must be Running)", true);
    mcp_schema_prop(s, "command", "array",
                    "The command and its arguments, one word each (no shell unless you name "
                    "one: [\"sh\", \"-c\", \"ls | wc -l\"])",
                    true);
    mcp_schema_project(s, false);
    mcp_schema_prop(s, "timeoutSeconds", "integer",
                    "End the command after this many seconds (default 30, at most 600)", false);
    return s;
}

static json_t *exec_output(void)
{
    json_t *props = json_pack(
        "{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s},"
        " s:{s:s, s:s}, s:{s:s, s:s}}",
        "kind", "type", "string", "name", "type", "string", "project", "type", "string",
        "stdout", "type", "string", "stderr", "type", "string", "exitCode", "type", "integer",
        "description", "the command's exit code (-1 when it timed out)", "timedOut", "type",
        "boolean", "description", "true: timeoutSeconds passed and the command was ended",
        "stdoutBytes", "type", "integer", "description",
        "bytes the command wrote on stdout (more than stdout holds when it was cut)",
        "stderrBytes", "type", "integer", "description", "the same for stderr");
    static const char *const req[] = {"kind", "name", "project", "stdout", "stderr", "exitCode",
                                      "timedOut", NULL};
    return mcp_schema_output(props, req);
}

/* The command's words (checked by the schema: an array of strings). NEW array of
 * borrowed strings, NULL-terminated; NULL when empty. */
static const char **words(const struct mcp_call *c)
{
    const json_t *cmd = json_object_get(c->args, "command");
    size_t n = json_array_size(cmd);
    if (!n)
        return NULL;
    const char **v = nd_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_string_value(json_array_get(cmd, i));
    return v;
}

/* Bytes that are not UTF-8 (a binary output, a sequence cut at the bound) become '?':
 * a JSON string holds text only. */
static void make_text(struct nd_buf *b)
{
    unsigned char *p = (unsigned char *)b->data;
    for (size_t i = 0; i < b->len;) {
        size_t n = p[i] < 0x80 ? 1 : nd_utf8_seq_len(p + i, b->len - i);
        if (!n) {
            p[i++] = '?';
            continue;
        }
        i += n;
    }
}

static void stream_text(struct nd_buf *text, const char *name, const struct nd_buf *b,
                        size_t total)
{
    if (!total)
        return;
    nd_buf_addf(text, "%s:\n", name);
    nd_buf_add(text, b->data, b->len);
    if (b->len && b->data[b->len - 1] != '\n')
        nd_buf_addch(text, '\n');
    if (total > b->len)
        nd_buf_addf(text, "[%s cut: %zu of %zu bytes shown]\n", name, b->len, total);
}

static void run_exec(struct mcp_call *c)
{
    const struct nd_kind *k = json_object_get(c->args, "kind")
                                  ? mcp_arg_kind(c, "kind")
                                  : nd_kind_by_plural(NULL, "sandboxes");
    if (!k)
        return;
    if (!runs_commands(k)) {
        nd_status_set(&c->st, "BadRequest", "exec in a Sandbox or a Job (the kind argument)",
                      "exec runs in sandboxes and jobs, not in %s", k->plural);
        return;
    }
    long long timeout = mcp_arg_int(c, "timeoutSeconds", EXEC_DEFAULT_TIMEOUT);
    if (timeout < 1 || timeout > EXEC_MAX_TIMEOUT) {
        nd_status_set(&c->st, "BadRequest", "give timeoutSeconds from 1 to 600",
                      "timeoutSeconds %lld is out of range", timeout);
        return;
    }
    const char **cmd = words(c);
    if (!cmd) {
        nd_status_set(&c->st, "BadRequest", "for example: \"command\": [\"nvidia-smi\"]",
                      "command is empty: name the program to run and its arguments");
        return;
    }
    const char *name = mcp_arg_str(c, "name", "");
    struct nd_exec_result res = {.exit_code = -1};
    nd_buf_init(&res.out, 0);
    nd_buf_init(&res.err, 0);
    struct nd_exec_req req = {k, name, cmd, (int)timeout * 1000, (size_t)c->cfg->max_output / 2};
    mcp_call_progress(c, 0, 0, "running");
    if (nd_exec_capture(c->ctx, &req, &res, &c->st) == 0) {
        make_text(&res.out);
        make_text(&res.err);
        stream_text(&c->text, "stdout", &res.out, res.out_total);
        stream_text(&c->text, "stderr", &res.err, res.err_total);
        if (res.timed_out)
            nd_buf_addf(&c->text, "timed out after %lld s: the command was ended (give a "
                                  "larger timeoutSeconds, up to 600)\n",
                        timeout);
        else
            nd_buf_addf(&c->text, "exit code %d\n", res.exit_code);
        c->structured = json_pack(
            "{s:s, s:s, s:s, s:s%, s:s%, s:i, s:b, s:I, s:I}", "kind", k->kind, "name", name,
            "project", k->namespaced ? nd_ctx_project(c->ctx) : "", "stdout", res.out.data,
            res.out.len, "stderr", res.err.data, res.err.len, "exitCode", res.exit_code,
            "timedOut", res.timed_out, "stdoutBytes", (json_int_t)res.out_total, "stderrBytes",
            (json_int_t)res.err_total);
    }
    nd_buf_release(&res.out);
    nd_buf_release(&res.err);
    free(cmd);
}

const struct mcp_tool mcp_tool_exec = {
    "exec",
    "Run a command in a workload",
    "Run a command in a Running Sandbox (or Job), like `nodus exec NAME -- COMMAND`: not "
    "interactive (no stdin, no terminal), ended after timeoutSeconds; the answer holds its "
    "stdout, stderr and exit code, each stream cut past half of --max-output.",
    MCP_T_PROJECT | MCP_T_EXEC | MCP_T_DESTRUCTIVE, /* any command: it may remove anything */
    exec_input,
    exec_output,
    run_exec,
};
