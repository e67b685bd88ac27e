/* prompts.c: prompts/list and prompts/get. A prompt's messages carry the real, current
 * data: prompts/get runs the CLI's verbs (describe, get events, logs, top, get) in a
 * job's child, as a tool call does, and puts what they print in the messages.
 *
 *   why-failed   {kind? (job), name, project?}  describe, the events and the log's tail
 *   spend-review {project?}   what runs and costs (top jobs, the costing kinds' tables) and
 *                             the Budgets (describe budgets) */
#include <stdio.h>
#include <string.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "resolve.h"

/* The most of one verb's text a message carries. */
#define SECTION_MAX (16 * 1024)
/* The log lines why-failed shows. */
#define LOG_TAIL "50"

struct prompt_arg {
    const char *name, *description;
    bool required;
};

struct prompt {
    const char *name, *title, *description;
    const struct prompt_arg *args; /* ends with a NULL name */
    void (*run)(int fd, void *cls);
};

/* What a prompt's child works with. */
struct prompt_body {
    struct mcp_server *srv;
    const json_t *args; /* params.arguments (strings), checked */
    int log_level;
};

/* ---- the child's side ---- */

/* Runs a CLI verb (argv ends with NULL) and adds "TITLE:\n" and what it printed (or its
 * error, as the CLI prints it) to msgs as one user message. 0, or the verb's code; st
 * (may be NULL) takes its error. */
static int section(struct prompt_body *b, int fd, const char *title, const char *const *argv,
                   json_t *msgs, struct nd_status *st)
{
    struct mcp_call c;
    memset(&c, 0, sizeof c);
    c.ctx = b->srv->ctx;
    c.cfg = b->srv->cfg;
    c.fd = fd;
    c.log_level = b->log_level;
    nd_buf_init(&c.text, 0);
    nd_buf_init(&c.notes, 0);
    nd_status_init(&c.st);
    int rc = mcp_call_verb(&c, argv);
    struct nd_buf t = ND_BUF_INIT;
    nd_buf_addf(&t, "%s:\n", title);
    if (nd_status_failed(&c.st))
        nd_cli_render(c.ctx, &c.st, &t);
    else if (!c.text.len && !c.notes.len)
        nd_buf_adds(&t, "(nothing)\n");
    nd_buf_add(&t, c.text.data, c.text.len < SECTION_MAX ? c.text.len : SECTION_MAX);
    if (c.text.len > SECTION_MAX)
        nd_buf_addf(&t, "\n[cut: %d of %zu bytes shown]\n", SECTION_MAX, c.text.len);
    nd_buf_add(&t, c.notes.data, c.notes.len);
    json_array_append_new(msgs, json_pack("{s:s, s:{s:s, s:s}}", "role", "user", "content", "type",
                                          "text", "text", t.data));
    if (st && nd_status_failed(&c.st))
        nd_status_move(st, &c.st);
    nd_buf_release(&t);
    nd_buf_release(&c.text);
    nd_buf_release(&c.notes);
    nd_status_release(&c.st);
    return rc;
}

static const char *arg(const struct prompt_body *b, const char *key, const char *def)
{
    const char *v = json_string_value(json_object_get(b->args, key));
    return v && *v ? v : def;
}

/* The call's project, in the child's copy of the context (as a tool call's). */
static void use_project(struct prompt_body *b)
{
    const char *p = arg(b, "project", NULL);
    if (p)
        b->srv->ctx->project_flag = p;
}

static void answer(int fd, const char *description, json_t *msgs)
{
    mcp_child_write(
        fd, json_pack("{s:{s:s, s:o}}", "result", "description", description, "messages", msgs));
}

static void fail(int fd, int code, const struct nd_status *st)
{
    json_t *e = mcp_status_error(json_null(), code, NULL, st);
    mcp_child_write(fd, json_pack("{s:O}", "error", json_object_get(e, "error")));
    json_decref(e);
}

static void run_why_failed(int fd, void *cls)
{
    struct prompt_body *b = cls;
    use_project(b);
    struct nd_status st = ND_STATUS_INIT;
    const struct nd_kind *k = nd_resolve_kind(arg(b, "kind", "job"), &st);
    if (!k) {
        fail(fd, MCP_INVALID_PARAMS, &st);
        nd_status_release(&st);
        return;
    }
    const char *name = arg(b, "name", "");
    const char *project = nd_ctx_project(b->srv->ctx);
    char target[600], intro[1400], fsel[800], tail[] = "--tail=" LOG_TAIL;
    snprintf(target, sizeof target, "%s/%s", k->plural, name);
    snprintf(intro, sizeof intro,
             "%s %s in project %s did not do what was asked of it. Below are its description "
             "(state, conditions, cost), its events and the last " LOG_TAIL " lines of its "
             "log, as nodus shows them now. Say why it failed, quoting the condition, event "
             "or log line that shows it, and what to change (in its spec, its quota or its "
             "Budget) so that a new run succeeds.",
             k->kind, name, k->namespaced ? project : "(none)");
    json_t *msgs = json_pack("[{s:s, s:{s:s, s:s}}]", "role", "user", "content", "type", "text",
                             "text", intro);
    const char *describe[] = {"describe", target, NULL};
    if (section(b, fd, "nodus describe", describe, msgs, &st) != 0) {
        /* no such object (or no server): the prompt cannot be made */
        fail(fd, MCP_INVALID_PARAMS, &st);
        json_decref(msgs);
        nd_status_release(&st);
        return;
    }
    snprintf(fsel, sizeof fsel, "--field-selector=involvedObject.kind=%s,involvedObject.name=%s",
             k->kind, name);
    const char *events[] = {"get", "events", fsel, NULL};
    section(b, fd, "its events (nodus get events)", events, msgs, NULL);
    if (nd_kind_has_subresource(k, "log")) {
        const char *logs[] = {"logs", target, tail, NULL};
        section(b, fd, "the tail of its log (nodus logs --tail=" LOG_TAIL ")", logs, msgs, NULL);
    }
    char desc[700];
    snprintf(desc, sizeof desc, "Why %s/%s failed", k->singular, name);
    answer(fd, desc, msgs);
    nd_status_release(&st);
}

static void run_spend_review(int fd, void *cls)
{
    struct prompt_body *b = cls;
    use_project(b);
    const char *project = nd_ctx_project(b->srv->ctx);
    char intro[1200], kinds[512] = "";
    snprintf(intro, sizeof intro,
             "Review what project %s spends. Below is what runs now with its rate and its cost "
             "so far (nodus top jobs), every object that costs money, and the project's "
             "Budgets: their limits, what is spent and what they hold for running work. Say "
             "what costs the most, what could be suspended, stopped or deleted to save money, "
             "and whether a Budget will stop or refuse work soon.",
             project);
    json_t *msgs = json_pack("[{s:s, s:{s:s, s:s}}]", "role", "user", "content", "type", "text",
                             "text", intro);
    const char *top[] = {"top", "jobs", NULL};
    section(b, fd, "what runs and its cost (nodus top jobs)", top, msgs, NULL);
    for (size_t i = 0; i < nd_kind_count(); i++)
        if (nd_kind_costs(&nd_kinds[i]) && nd_kinds[i].namespaced)
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s",
                     kinds[0] ? "," : "", nd_kinds[i].plural);
    char title[600];
    snprintf(title, sizeof title, "what costs money (nodus get %s)", kinds);
    const char *get[] = {"get", kinds, NULL};
    section(b, fd, title, get, msgs, NULL);
    const char *budgets[] = {"describe", "budgets", NULL};
    section(b, fd, "the Budgets (nodus describe budgets)", budgets, msgs, NULL);
    char desc[300];
    snprintf(desc, sizeof desc, "What project %s spends, and what its Budgets hold", project);
    answer(fd, desc, msgs);
}

/* ---- the table ---- */

static const struct prompt_arg why_failed_args[] = {
    {"kind", "The kind (job, pipeline, sandbox, function, ...); job when absent", false},
    {"name", "The object's name", true},
    {"project", "The project; the context's when absent", false},
    {NULL, NULL, false},
};

static const struct prompt_arg spend_review_args[] = {
    {"project", "The project; the context's when absent", false},
    {NULL, NULL, false},
};

static const struct prompt prompts[] = {
    {"why-failed", "Why did it fail?",
     "Why a Job (or another object) failed: its description, events and the tail of its "
     "log, read now, with the question",
     why_failed_args, run_why_failed},
    {"spend-review", "Review spending",
     "What runs in a project, what it costs (rates, cost so far) and what its Budgets hold, "
     "read now, with the question",
     spend_review_args, run_spend_review},
    {NULL, NULL, NULL, NULL, NULL},
};

void mcp_on_prompts_list(struct mcp_session *s, const struct mcp_message *m)
{
    json_t *out = json_array();
    for (const struct prompt *p = prompts; p->name; p++) {
        json_t *args = json_array();
        for (const struct prompt_arg *a = p->args; a->name; a++)
            json_array_append_new(args, json_pack("{s:s, s:s, s:b}", "name", a->name, "description",
                                                  a->description, "required", a->required));
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:s, s:o}", "name", p->name, "title", p->title,
                                        "description", p->description, "arguments", args));
    }
    if (m->id)
        s->send(s, mcp_response(m->id, json_pack("{s:o}", "prompts", out)));
    else
        json_decref(out);
}

/* Checks params.arguments against p's: NULL, or the message of the -32602 error. */
static const char *check_args(const struct prompt *p, const json_t *args, char *buf, size_t cap)
{
    if (args && !json_is_object(args))
        return "params.arguments must be an object of strings";
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)args, key, v)
    {
        const struct prompt_arg *a = p->args;
        while (a->name && strcmp(a->name, key))
            a++;
        if (!a->name) {
            snprintf(buf, cap, "prompt %s takes no argument \"%s\"", p->name, key);
            return buf;
        }
        if (!json_is_string(v)) {
            snprintf(buf, cap, "argument \"%s\" must be a string", key);
            return buf;
        }
    }
    for (const struct prompt_arg *a = p->args; a->name; a++)
        if (a->required && !json_string_length(json_object_get(args, a->name))) {
            snprintf(buf, cap, "prompt %s needs the argument \"%s\"", p->name, a->name);
            return buf;
        }
    return NULL;
}

void mcp_on_prompts_get(struct mcp_session *s, const struct mcp_message *m)
{
    const char *name = json_string_value(json_object_get(m->params, "name"));
    const struct prompt *p = prompts;
    while (name && p->name && strcmp(p->name, name))
        p++;
    char why[512];
    const json_t *args = json_object_get(m->params, "arguments");
    const char *bad = NULL;
    if (!name || !p->name) {
        snprintf(why, sizeof why,
                 "unknown prompt \"%.200s\": prompts/list names the prompts "
                 "(why-failed, spend-review)",
                 name ? name : "(none)");
        bad = why;
    } else {
        bad = check_args(p, args, why, sizeof why);
    }
    if (!bad)
        bad = mcp_args_refused(args, why, sizeof why);
    const char *project = json_string_value(json_object_get(args, "project"));
    if (!bad &&
        !mcp_project_allowed(s->srv->cfg, project ? project : nd_ctx_project(s->srv->ctx))) {
        snprintf(why, sizeof why, "project \"%.200s\" is not one this server serves (--projects)",
                 project ? project : nd_ctx_project(s->srv->ctx));
        bad = why;
    }
    if (bad) {
        if (m->id)
            s->send(s, mcp_error(m->id, MCP_INVALID_PARAMS, bad));
        return;
    }
    struct prompt_body b = {s->srv, args, s->log_level};
    if (m->id && !mcp_job_start(s, m->id, NULL, p->run, &b))
        s->send(s,
                mcp_error(m->id, MCP_INTERNAL_ERROR, "could not start the prompt (fork failed)"));
}
