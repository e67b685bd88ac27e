/* session.c: one MCP client: initialize (the revision), logging, and the dispatch of each
 * method to its handler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp.h"
#include "util/validate.h"

const char *const mcp_revisions[] = {MCP_REVISION_NEWEST, "2025-06-18", "2025-03-26", NULL};

static const char *const levels[] = {"debug", "info",     "notice", "warning",
                                     "error", "critical", "alert",  "emergency"};

int mcp_level_parse(const char *name)
{
    for (int i = 0; name && i < (int)(sizeof levels / sizeof *levels); i++)
        if (!strcmp(levels[i], name))
            return i;
    return -1;
}

const char *mcp_level_name(int level)
{
    return level >= 0 && level < (int)(sizeof levels / sizeof *levels) ? levels[level] : "info";
}

void mcp_session_init(struct mcp_session *s, struct mcp_server *srv, mcp_send_fn send,
                      void *transport)
{
    memset(s, 0, sizeof *s);
    s->srv = srv;
    s->send = send;
    s->transport = transport;
    s->log_level = MCP_INFO;
}

void mcp_session_close(struct mcp_session *s)
{
    s->closing = true;
    for (struct mcp_job *j = s->srv->jobs, *next; j; j = next) {
        next = j->next;
        if (j->sess == s)
            mcp_job_cancel(j);
    }
}

void mcp_session_release(struct mcp_session *s)
{
    mcp_session_close(s);
    json_decref(s->client_info);
    s->client_info = NULL;
}

void mcp_session_log(struct mcp_session *s, int level, const char *logger, const char *text)
{
    if (level < s->log_level || s->closing || !s->initialized)
        return;
    s->send(s, mcp_notification("notifications/message",
                                json_pack("{s:s, s:s, s:s}", "level", mcp_level_name(level),
                                          "logger", logger, "data", text)));
}

static void answer(struct mcp_session *s, const struct mcp_message *m, json_t *result)
{
    if (m->id)
        s->send(s, mcp_response(m->id, result));
    else
        json_decref(result);
}

static void fail(struct mcp_session *s, const struct mcp_message *m, int code, const char *why)
{
    if (m->id)
        s->send(s, mcp_error(m->id, code, why));
}

static const char *instructions =
    "nodus serves a GPU cloud's API (Jobs, Sandboxes, Functions, Volumes, Budgets, Pools, "
    "Pipelines ...) as tools. Start with api_resources and list; describe and events say "
    "why something is not running. Work that costs money is reviewed first: apply answers "
    "an estimate and an etag and launches nothing; call apply again with that etag to "
    "launch exactly what was reviewed. Every error carries a reason and a fix.";

static void on_initialize(struct mcp_session *s, const struct mcp_message *m)
{
    const char *asked = json_string_value(json_object_get(m->params, "protocolVersion"));
    if (!asked) {
        fail(s, m, MCP_INVALID_PARAMS, "initialize needs params.protocolVersion");
        return;
    }
    const char *chosen = MCP_REVISION_NEWEST;
    for (int i = 0; mcp_revisions[i]; i++)
        if (!strcmp(mcp_revisions[i], asked))
            chosen = mcp_revisions[i];
    snprintf(s->revision, sizeof s->revision, "%s", chosen);
    json_decref(s->client_info);
    s->client_info = json_deep_copy(json_object_get(m->params, "clientInfo"));
    s->initialized = true;
    json_t *caps = json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 0, "logging");
    /* resources.c, subscribe.c, prompts.c */
    json_object_set_new(caps, "resources",
                        json_pack("{s:b, s:b}", "subscribe", 1, "listChanged", 0));
    json_object_set_new(caps, "prompts", json_pack("{s:b}", "listChanged", 0));
    answer(s, m,
           json_pack("{s:s, s:o, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", chosen,
                     "capabilities", caps, "serverInfo", "name", "nodus", "title",
                     "nodus (GPU cloud API)", "version", ND_VERSION, "instructions",
                     instructions));
}

static void on_ping(struct mcp_session *s, const struct mcp_message *m)
{
    answer(s, m, json_object());
}

static void on_set_level(struct mcp_session *s, const struct mcp_message *m)
{
    int level = mcp_level_parse(json_string_value(json_object_get(m->params, "level")));
    if (level < 0) {
        fail(s, m, MCP_INVALID_PARAMS,
             "params.level must be one of debug, info, notice, warning, error, critical, "
             "alert, emergency");
        return;
    }
    s->log_level = level;
    answer(s, m, json_object());
}

static void on_tools_list(struct mcp_session *s, const struct mcp_message *m)
{
    json_t *tools = json_array();
    for (const struct mcp_tool *const *t = mcp_tools(); *t; t++)
        if (!mcp_tool_refused(s->srv->cfg, *t))
            json_array_append_new(tools, mcp_tool_entry(*t));
    answer(s, m, json_pack("{s:o}", "tools", tools));
}

/* A tool's refusal before it runs, as its isError answer. */
static void refuse(struct mcp_session *s, const struct mcp_message *m, const char *reason,
                   const char *fix, const char *message)
{
    struct nd_status st = ND_STATUS_INIT;
    nd_status_set(&st, reason, fix, "%s", message);
    answer(s, m, mcp_error_result(s->srv->ctx, &st));
    nd_status_release(&st);
}

/* --projects: a call naming a project outside the list (or every project) is refused. */
static const char *project_refused(struct mcp_session *s, const json_t *args, char *buf,
                                   size_t cap)
{
    const struct mcp_config *cfg = s->srv->cfg;
    if (!cfg->projects.n)
        return NULL;
    if (json_is_true(json_object_get(args, "allProjects"))) {
        snprintf(buf, cap, "every project was asked for, but this server serves only some");
        return buf;
    }
    const char *p = json_string_value(json_object_get(args, "project"));
    if (!p)
        p = nd_ctx_project(s->srv->ctx);
    if (mcp_project_allowed(cfg, p))
        return NULL;
    snprintf(buf, cap, "project \"%s\" is not one this server serves", p);
    return buf;
}

/* Whether w (n bytes of JSON) is a word: no NUL or other control character, no ',' (a
 * field selector's separator). */
static bool word_chars_ok(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)w[i] < 0x20 || w[i] == ',')
            return false;
    return true;
}

const char *mcp_args_refused(const json_t *args, char *buf, size_t cap)
{
    static const char *const words[] = {"kind",    "name",   "field",       "verb", "action",
                                        "what",    "since",  "subresource", "cascade"};
    const char *p = json_string_value(json_object_get(args, "project"));
    if (p && *p && !nd_is_dns_label(p)) { /* ("": the context's, as before) */
        snprintf(buf, cap, "project \"%.80s%s\" is not a project's name (1 to 63 of a-z, 0-9 "
                 "and '-', starting and ending with a letter or digit)", p,
                 strlen(p) > 80 ? "..." : "");
        return buf;
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        const json_t *v = json_object_get(args, words[i]);
        const char *w = json_string_value(v);
        size_t n = json_string_length(v);
        if (w && (n > ND_DNS_SUBDOMAIN_MAX || w[0] == '-' || !word_chars_ok(w, n))) {
            snprintf(buf, cap, "argument \"%s\" (\"%.40s%s\") is not a name: at most %d bytes, "
                     "no control character or ',', not starting with '-'", words[i], w,
                     n > 40 ? "..." : "", ND_DNS_SUBDOMAIN_MAX);
            return buf;
        }
    }
    return NULL;
}

static void on_tools_call(struct mcp_session *s, const struct mcp_message *m)
{
    const char *name = json_string_value(json_object_get(m->params, "name"));
    const struct mcp_tool *t = name ? mcp_tool_find(name) : NULL;
    char why[512];
    if (!t) {
        snprintf(why, sizeof why, "unknown tool \"%s\": tools/list names the tools",
                 name ? name : "(none)");
        fail(s, m, MCP_INVALID_PARAMS, why);
        return;
    }
    json_t *args = json_object_get(m->params, "arguments");
    if (args && !json_is_object(args)) {
        fail(s, m, MCP_INVALID_PARAMS, "params.arguments must be an object");
        return;
    }
    json_t *empty = json_object();
    if (!args)
        args = empty;
    const char *no = mcp_tool_refused(s->srv->cfg, t);
    const char *bad = no ? NULL : mcp_tool_check_args(t, args, why, sizeof why);
    bool word = false;
    if (!no && !bad)
        word = (bad = mcp_args_refused(args, why, sizeof why)) != NULL;
    char pbuf[256];
    const char *outside = no || bad ? NULL : project_refused(s, args, pbuf, sizeof pbuf);
    if (no) {
        refuse(s, m, "Forbidden", "use a tool tools/list names, or restart this server without "
                                  "the flag that keeps this one out", no);
    } else if (bad) {
        snprintf(pbuf, sizeof pbuf, word ? "give the name as `nodus get` shows it (the list "
                                           "tool lists them)"
                                         : "tools/list has %s's inputSchema", t->name);
        refuse(s, m, "BadRequest", pbuf, bad);
    } else if (outside) {
        char list[512] = "";
        for (size_t i = 0; i < s->srv->cfg->projects.n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     s->srv->cfg->projects.v[i]);
        char fix[640];
        snprintf(fix, sizeof fix, "name one of the projects this server was started with "
                                  "(--projects %s)", list);
        refuse(s, m, "Forbidden", fix, outside);
    }
    if ((no || bad || outside) && !(t->flags & MCP_T_READ)) /* a refused write is audited too */
        mcp_audit(s->srv, s, t->name, args, NULL, bad ? "BadRequest" : "Forbidden");
    if (!no && !bad && !outside) {
        json_t *token = json_object_get(json_object_get(m->params, "_meta"), "progressToken");
        if (!mcp_tool_start(s, m->id, t, args, token))
            fail(s, m, MCP_INTERNAL_ERROR, "could not start the call (fork failed)");
    }
    json_decref(empty);
}

static void on_cancelled(struct mcp_session *s, const struct mcp_message *m)
{
    json_t *id = json_object_get(m->params, "requestId");
    struct mcp_job *j = id ? mcp_job_find(s->srv, s, id) : NULL;
    if (j)
        mcp_job_cancel(j);
}

static void on_nothing(struct mcp_session *s, const struct mcp_message *m)
{
    (void)s;
    (void)m;
}

struct method {
    const char *name;
    void (*fn)(struct mcp_session *s, const struct mcp_message *m);
    bool before_initialize;
    bool forks; /* answered by a child (a job): bounded by MCP_MAX_CALLS */
};

static const struct method methods[] = {
    {"initialize", on_initialize, true},
    {"ping", on_ping, true},
    {"notifications/initialized", on_nothing, true},
    {"notifications/cancelled", on_cancelled, true},
    {"logging/setLevel", on_set_level, false},
    {"tools/list", on_tools_list, false},
    {"tools/call", on_tools_call, false, true},
    /* resources and prompts: resources.c, subscribe.c, prompts.c */
    {"resources/list", mcp_on_resources_list, false, true},
    {"resources/read", mcp_on_resources_read, false, true},
    {"resources/templates/list", mcp_on_resources_templates, false},
    {"resources/subscribe", mcp_on_resources_subscribe, false},
    {"resources/unsubscribe", mcp_on_resources_unsubscribe, false},
    {"prompts/list", mcp_on_prompts_list, false},
    {"prompts/get", mcp_on_prompts_get, false, true},
    {NULL, NULL, false},
};

/* Whether a request answered by a child must wait: its id is a running request's (an id
 * is used once), or MCP_MAX_CALLS children answer requests already (of every session).
 * Answers it then. */
static bool busy(struct mcp_session *s, const struct mcp_message *m)
{
    if (!m->id)
        return false;
    if (mcp_job_find(s->srv, s, m->id)) {
        fail(s, m, MCP_INVALID_REQUEST, "this id is a running request's: give each request "
                                        "its own id");
        return true;
    }
    unsigned running = 0;
    for (const struct mcp_job *j = s->srv->jobs; j; j = j->next)
        running += j->id != NULL;
    if (running < MCP_MAX_CALLS)
        return false;
    char why[200];
    snprintf(why, sizeof why, "%u requests are running already, the most this server runs "
             "at once", MCP_MAX_CALLS);
    if (strcmp(m->method, "tools/call")) {
        fail(s, m, MCP_INTERNAL_ERROR, why);
        return true;
    }
    refuse(s, m, "TooManyRequests", "wait for a running call to answer, or cancel one "
                                    "(notifications/cancelled), then call again", why);
    return true;
}

void mcp_session_message(struct mcp_session *s, const struct mcp_message *m)
{
    if (m->error) {
        /* a notification is never answered, not even its error; a message whose id could
         * not be read is answered with id null, as JSON-RPC says */
        if (!m->id && m->method && m->error == MCP_INVALID_PARAMS)
            return;
        fail(s, &(struct mcp_message){.id = m->id ? m->id : json_null()}, m->error, m->why);
        return;
    }
    if (!m->method)
        return; /* a response: we send no requests, so there is nothing to match */
    const struct method *h = methods;
    while (h->name && strcmp(h->name, m->method))
        h++;
    if (!h->name) {
        if (m->id) {
            char why[200];
            snprintf(why, sizeof why, "method not found: %.120s", m->method);
            fail(s, m, MCP_METHOD_NOT_FOUND, why);
        }
        return;
    }
    if (m->id && !strncmp(m->method, "notifications/", 14)) {
        /* a request must be answered, and a notification's handler answers nothing */
        fail(s, m, MCP_INVALID_REQUEST, "a notification has no \"id\": send it without one");
        return;
    }
    if (!s->initialized && !h->before_initialize) {
        fail(s, m, MCP_INVALID_REQUEST, "the session is not initialized: send initialize first");
        return;
    }
    if (!(h->forks && busy(s, m)))
        h->fn(s, m);
}

void mcp_session_line(struct mcp_session *s, const char *line, size_t len)
{
    struct mcp_message m;
    if (!line) {
        m = (struct mcp_message){.error = MCP_INVALID_REQUEST};
        snprintf(m.why, sizeof m.why, "message too large: a message is at most %u bytes",
                 MCP_MAX_MESSAGE);
        mcp_session_message(s, &m);
        return;
    }
    mcp_message_parse(line, len, &m);
    mcp_session_message(s, &m);
    mcp_message_release(&m);
}

/* The objects a call changed, for its audit line: the answer's (apply's objects, or the
 * one object of the others), else the arguments' kind and name. NEW array. */
static json_t *audit_objects(const json_t *args, const json_t *answer)
{
    json_t *objs = json_array();
    const json_t *list = json_object_get(answer, "objects");
    const json_t *one = json_object_get(answer, "name") ? answer : args;
    size_t i;
    json_t *o;
    if (json_is_array(list)) {
        json_array_foreach(list, i, o)
            json_array_append_new(objs, json_pack("{s:O*, s:O*, s:O*}", "kind",
                                                  json_object_get(o, "kind"), "name",
                                                  json_object_get(o, "name"), "project",
                                                  json_object_get(o, "project")));
    } else {
        const json_t *details = json_object_get(json_object_get(answer, "status"), "details");
        if (!json_object_get(one, "name") && json_object_get(details, "name"))
            one = details; /* a failed apply: the object the server named */
        if (json_object_get(one, "name"))
            json_array_append_new(objs, json_pack("{s:O*, s:O*}", "kind",
                                                  json_object_get(one, "kind"), "name",
                                                  json_object_get(one, "name")));
    }
    return objs;
}

void mcp_audit(struct mcp_server *srv, const struct mcp_session *s, const char *tool,
               const json_t *args, const json_t *result, const char *outcome)
{
    if (!srv->audit) /* a call's child: the parent audits */
        return;
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_t *shown = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)args, key, v) {
        if (json_is_string(v) && json_string_length(v) > 200)
            json_object_set_new(shown, key, json_sprintf("(%zu bytes)", json_string_length(v)));
        else
            json_object_set(shown, key, v);
    }
    const char *client =
        s->client_info ? json_string_value(json_object_get(s->client_info, "name")) : NULL;
    const json_t *answer = json_object_get(result, "structuredContent");
    const char *project = json_string_value(json_object_get(args, "project"));
    if (!project)
        project = nd_ctx_project(srv->ctx);
    json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s}", "time", when, "client",
                             client ? client : "", "tool", tool, "project", project ? project : "",
                             "objects", audit_objects(args, answer), "arguments", shown,
                             "outcome", outcome);
    const char *rid = json_string_value(
        json_object_get(json_object_get(answer, "status"), "requestId"));
    if (rid)
        json_object_set_new(line, "requestId", json_string(rid));
    char *text = json_dumps(line, JSON_COMPACT);
    fprintf(srv->audit, "nodus-mcp audit: %s\n", text);
    fflush(srv->audit);
    free(text);
    json_decref(line);
}
