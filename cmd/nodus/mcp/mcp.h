/* mcp.h: nodus mcp, the API as tools for coding agents (the Model Context Protocol).
 *
 * `nodus mcp` is a verb (verbs/mcp.c) that serves MCP over stdio (JSON-RPC 2.0, one
 * message a line) or, with --listen, over Streamable HTTP. It resolves server, context,
 * project and token as every verb does. The files:
 *   jsonrpc.c   reading messages: line framing with a bound, the JSON-RPC envelope check,
 *               the protocol errors (fuzzed: tests/fuzz/fuzz_mcp_message.c)
 *   session.c   one client's state (initialize and its revision, logging level) and the
 *               dispatch of each method to its handler
 *   loop.c      the event loop (poll): transports' fds and the running calls' pipes
 *   call.c      a tool call runs in a forked child: the tool's function fills a struct
 *               mcp_call; the child writes its answer (and progress, log lines) to a pipe
 *               as JSON lines; cancelling the call kills the child (its HTTP work stops)
 *   stdio.c     the stdio transport
 *   tools.c     the tool table: tools/list (filtered by the safety modes), the lookup and
 *               argument check of tools/call
 *   tool_*.c    the tools, one file per family (they run in the child)
 *   resources.c resources/list, read and templates/list (nodus:// URIs)
 *   subscribe.c resources/subscribe: a job whose child watches the object
 *   prompts.c   prompts/list and get: why-failed, spend-review
 *
 * The tools (name: arguments; every namespaced tool takes "project", else the context's):
 *   read (readOnlyHint):
 *     api_resources {}                           kinds, verbs, short names (from the registry)
 *     list     {kind, project?, allProjects?, labelSelector?, fieldSelector?, limit?,
 *               continue?, full?}               the table of `nodus get`; full: objects
 *     get      {kind, name, project?, format?: yaml|json}
 *     describe {kind, name, project?}           the text of `nodus describe`
 *     explain  {field, recursive?}              e.g. "job.spec.resources"
 *     events   {kind, name, project?}
 *     logs     {kind?, name, project?, tail?, since?, follow?, followSeconds?}
 *     top      {what?: pools|jobs, project?, allProjects?}   what costs money now
 *     can_i    {verb, kind, name?, project?, subresource?}
 *   write:
 *     apply    {manifest, project?, etag?}       review before you pay (see tool_apply.c);
 *                                                etag: a string, or {"Kind/name": etag}
 *     suspend, resume, cancel, stop, start {kind, name, project?}
 *     request  {kind, name, action, project?}
 *     approve, reject {name, project?}           PoolActions
 *     delete   {kind, name, project?, cascade?}  destructiveHint
 *     exec     {kind?, name, command[], project?, timeoutSeconds?}   only with --allow-exec
 */
#ifndef ND_MCP_H
#define ND_MCP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "util/buf.h"
#include "util/status.h"

/* The protocol revisions served, newest first. */
extern const char *const mcp_revisions[];
#define MCP_REVISION_NEWEST "2025-11-25"

/* JSON-RPC error codes (protocol errors only; a tool's failure is a result). */
enum {
    MCP_PARSE_ERROR = -32700,
    MCP_INVALID_REQUEST = -32600,
    MCP_METHOD_NOT_FOUND = -32601,
    MCP_INVALID_PARAMS = -32602,
    MCP_INTERNAL_ERROR = -32603,
    MCP_RESOURCE_NOT_FOUND = -32002,
};

/* The largest message read (a longer line is answered -32600 and skipped). */
#define MCP_MAX_MESSAGE (4u << 20)
/* The most requests answered by children (tools/call, resources/list and read,
 * prompts/get) running at once in a server: past it a call is refused (TooManyRequests). */
#define MCP_MAX_CALLS 16u
/* The default bound of a tool's text (--max-output): longer text is cut, with a note. */
#define MCP_DEFAULT_MAX_OUTPUT (64 * 1024)

/* The flags of `nodus mcp` (verbs/mcp.c's table). */
struct mcp_config {
    bool read_only;           /* --read-only: only read tools */
    bool disable_destructive; /* --disable-destructive: no destructiveHint tool */
    bool allow_exec;          /* --allow-exec: list and allow exec */
    struct nd_strings projects; /* --projects: the allowlist; n 0 (v NULL): every project */
    const char *max_cost;     /* --max-cost USD, as given */
    int64_t max_cost_micros;  /* parsed; -1: none */
    const char *audit_file;   /* --audit-file; NULL: audit lines on stderr */
    const char *listen;       /* --listen HOST:PORT: Streamable HTTP; NULL: stdio */
    const char *listen_token; /* --listen-token (or NODUS_MCP_TOKEN): the bearer token */
    long long max_output;     /* --max-output bytes of a tool's text */
};

/* ---- messages (jsonrpc.c) ---- */

/* Collects bytes into lines of at most MCP_MAX_MESSAGE. */
struct mcp_reader {
    struct nd_buf line;
    bool skipping; /* inside a line already found too long */
};
void mcp_reader_init(struct mcp_reader *r);
void mcp_reader_release(struct mcp_reader *r);
/* Feeds len bytes; calls fn for each complete line (without its newline; CR stripped),
 * or with line NULL once for a line over the bound. Stops early when fn returns < 0. */
int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t len,
                    int (*fn)(void *cls, const char *line, size_t len), void *cls);

/* One parsed message, or why it is not one. */
struct mcp_message {
    json_t *msg;        /* the whole object (owned); NULL when error */
    const char *method; /* NULL: a response */
    json_t *id;         /* borrowed from msg; NULL: a notification */
    json_t *params;     /* borrowed; NULL when absent */
    int error;          /* 0, or the JSON-RPC error code */
    char why[256];      /* the error's message */
};
/* Parses and checks one line as a JSON-RPC 2.0 message. 0, or -1 with m->error set (the
 * id, when one could be read, is kept for the answer). Release with mcp_message_release. */
int mcp_message_parse(const char *line, size_t len, struct mcp_message *m);
void mcp_message_release(struct mcp_message *m);
/* A response {"jsonrpc","id","result"} (steals result) / {"jsonrpc","id","error"}. */
json_t *mcp_response(const json_t *id, json_t *result);
json_t *mcp_error(const json_t *id, int code, const char *message);
/* A notification {"jsonrpc","method","params"} (steals params, may be NULL). */
json_t *mcp_notification(const char *method, json_t *params);

/* ---- the server and its sessions (session.c, loop.c) ---- */

struct mcp_server;
struct mcp_session;

/* How a transport sends a message to its client (steals msg). */
typedef void (*mcp_send_fn)(struct mcp_session *s, json_t *msg);

struct mcp_session {
    struct mcp_server *srv;
    mcp_send_fn send;
    void *transport;     /* the transport's state for this session */
    bool initialized;    /* initialize answered */
    char revision[16];   /* the negotiated protocol revision */
    int log_level;       /* notifications/message at or above it (enum mcp_level) */
    json_t *client_info; /* initialize's clientInfo */
    char id[48];         /* Mcp-Session-Id (HTTP) */
    int jobs;            /* calls and subscriptions running for it */
    bool closing;        /* its client went away: answer nothing more */
    const json_t *related; /* while a call's message is sent: the request it belongs to
                              (HTTP sends it on that request's stream); NULL: none */
};

enum mcp_level { MCP_DEBUG, MCP_INFO, MCP_NOTICE, MCP_WARNING, MCP_ERROR, MCP_CRITICAL,
                 MCP_ALERT, MCP_EMERGENCY };
/* "debug" ... "emergency" <-> the enum; -1 for an unknown name. */
int mcp_level_parse(const char *name);
const char *mcp_level_name(int level);

typedef void (*mcp_fd_fn)(void *cls, int fd, short revents);

struct mcp_watch {
    int fd;
    short events;
    mcp_fd_fn fn;
    void *cls;
};

struct mcp_job;

struct mcp_server {
    struct nd_ctx *ctx; /* the verb's: server, token and project resolved as every verb */
    const struct mcp_config *cfg;
    FILE *audit;        /* where audit lines go */
    struct mcp_watch *watches;
    size_t nwatches, capwatches;
    struct mcp_job *jobs;
    bool stopping;      /* no more input: end when the running calls have answered */
    /* a transport's timer (HTTP): the poll timeout it wants (-1: none) and its tick */
    int (*timeout_ms)(void *cls);
    void (*tick)(void *cls);
    void *tick_cls;
    /* in a call's child, right after the fork: closes the transport's sockets (HTTP) */
    void (*at_fork)(void *cls);
    struct mcp_worker *workers; /* the warm workers (worker.c) */
};

void mcp_server_init(struct mcp_server *srv, struct nd_ctx *ctx, const struct mcp_config *cfg);
void mcp_server_release(struct mcp_server *srv);
/* Watches fd in the loop (replacing an earlier watch of it); unwatch removes it. */
void mcp_loop_watch(struct mcp_server *srv, int fd, short events, mcp_fd_fn fn, void *cls);
void mcp_loop_unwatch(struct mcp_server *srv, int fd);
/* Runs until srv->stopping and no call runs. 0, or -1 when poll failed. */
int mcp_loop_run(struct mcp_server *srv);

void mcp_session_init(struct mcp_session *s, struct mcp_server *srv, mcp_send_fn send,
                      void *transport);
/* Ends a session: kills its calls and subscriptions (they answer nothing). */
void mcp_session_close(struct mcp_session *s);
void mcp_session_release(struct mcp_session *s);
/* Handles one line from the client: answers it (now or when its call ends). */
void mcp_session_line(struct mcp_session *s, const char *line, size_t len);
/* The same for a message already parsed (HTTP). Steals nothing. */
void mcp_session_message(struct mcp_session *s, const struct mcp_message *m);
/* A notifications/message to the client when level is at or above its level. */
void mcp_session_log(struct mcp_session *s, int level, const char *logger, const char *text);

/* Serves one session on stdin and stdout until stdin ends (stdio.c). */
int mcp_serve_stdio(struct mcp_server *srv);
/* Serves Streamable HTTP on cfg->listen until interrupted (http.c). */
int mcp_serve_http(struct mcp_server *srv);
/* Checks cfg->listen (HOST:PORT) and the token it needs: NULL, or why not (in buf). */
const char *mcp_http_config_check(const struct mcp_config *cfg, char *buf, size_t cap);

/* ---- calls (call.c) ---- */

/* What a tool's function works with (in the child). */
struct mcp_call {
    struct nd_ctx *ctx;          /* the verb's context; ctx->project_flag is the call's
                                    project, ctx->all_projects its allProjects */
    const struct mcp_config *cfg;
    const struct mcp_tool *tool;
    const json_t *args;          /* the arguments, checked against the inputSchema */
    json_t *progress_token;      /* the request's _meta.progressToken, or NULL */
    int log_level;               /* the session's */
    int fd;                      /* the pipe to the parent */
    /* the answer */
    struct nd_buf text;          /* content[0].text */
    json_t *structured;          /* structuredContent (owned), or NULL */
    struct nd_status st;         /* failed: the answer is isError with this Status */
    struct nd_buf notes;         /* what a verb said on stderr that was not an error */
};

/* An isError result: the Status rendered as text (a client-side error gets the API's
 * reason: NotFound for an unknown kind, BadRequest for a bad argument; a fix naming a CLI
 * command names the tool too) and the Status in structuredContent.status. Changes st so.
 * New reference. */
json_t *mcp_error_result(struct nd_ctx *ctx, struct nd_status *st);
/* Runs a CLI verb in-process: argv[0] is the verb ("describe"), argv ends with NULL. Its
 * stdout is appended to c->text, its first error (nd_cli_error, nd_cli_usage) lands in
 * c->st, other stderr lines in c->notes. Returns the verb's exit code. */
int mcp_call_verb(struct mcp_call *c, const char *const *argv);
/* The same with the verb's stdout on fd out (a pipe the tool reads as the verb writes: a
 * followed log); what it said on stderr is appended to said, its first error lands in c->st. */
int mcp_call_verb_fd(struct mcp_call *c, const char *const *argv, int out, struct nd_buf *said);
/* Writes the call's answer (its text, structuredContent or Status) to the parent: once,
 * by the tool's runner after the tool returned, or by a tool that ends its child early. */
void mcp_call_answer(struct mcp_call *c);
/* notifications/progress for the call (only when the client sent a progressToken). */
void mcp_call_progress(struct mcp_call *c, double progress, double total, const char *message);
/* notifications/message from the call (when at or above the session's level). */
void mcp_call_log(struct mcp_call *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An argument's value: the string, integer or bool of key, or def when absent. */
const char *mcp_arg_str(const struct mcp_call *c, const char *key, const char *def);
long long mcp_arg_int(const struct mcp_call *c, const char *key, long long def);
bool mcp_arg_bool(const struct mcp_call *c, const char *key, bool def);
/* The kind named by the "kind" argument (any name `nodus get` takes), or NULL with c->st
 * (NotFound with a did-you-mean). */
const struct nd_kind *mcp_arg_kind(struct mcp_call *c, const char *key);
/* A verb's usage error (reason Usage, no HTTP code: the CLI's own) as reason, for an
 * agent (a misspelt kind or field is NotFound); its message and fix kept. Nothing else
 * changes. */
void mcp_call_usage_as(struct mcp_call *c, const char *reason);

/* A running child: a tool call, or a subscription's watch. */
struct mcp_job {
    struct mcp_session *sess;
    json_t *id;        /* the request's id (NULL: a subscription) */
    char *uri;         /* a subscription's resource */
    pid_t pid;
    int fd;            /* its pipe */
    struct mcp_reader in; /* what it wrote, not yet a line */
    const struct mcp_tool *tool; /* a tool call's tool (its audit line) */
    json_t *args;      /* and its arguments */
    size_t forwarded;  /* bytes sent on to the client */
    bool answered;
    struct mcp_worker *worker; /* the warm worker running it (worker.c); NULL: a child of
                                  its own, which ends with the job */
    bool worker_free;  /* the worker answered the call and waits for the next */
    struct mcp_job *next;
};

/* The parent's side of a new job: its child pid writes on fd (the job reads and closes
 * it). Links and watches it. */
struct mcp_job *mcp_job_new(struct mcp_session *s, const json_t *id, const char *uri,
                            pid_t pid, int fd);
/* In a child, right after the fork: closes the parent's fds but keep (the transports',
 * the calls' pipes, the warm workers'), stdin and stdout on /dev/null. */
void mcp_child_setup(struct mcp_server *srv, int keep);
/* Runs tool t on args in this process and writes its answer on fd (the body of a call's
 * child or worker). */
void mcp_call_run(struct mcp_server *srv, const struct mcp_tool *t, const json_t *args,
                  json_t *progress_token, int log_level, int fd);

/* ---- warm workers (worker.c) ---- */

/* At most this many workers stay forked between calls; a call past them runs in a child
 * of its own. */
#define MCP_WARM_WORKERS 4

/* A worker: forked once, it runs call after call read from its pipe (keeping its HTTP
 * connection to the server); it is killed when its call is cancelled or breaks a bound. */
struct mcp_worker {
    pid_t pid;
    int in;    /* the parent's end of the pipe it reads calls from */
    int out;   /* the parent's end of the pipe it answers on (the job's fd while busy) */
    bool busy; /* a job runs on it */
    struct mcp_worker *next;
};
/* Starts tools/call of t on an idle warm worker (forked when fewer than MCP_WARM_WORKERS
 * run). NULL when none could take it: the caller forks a child of its own. */
struct mcp_job *mcp_worker_call(struct mcp_session *s, const json_t *id,
                                const struct mcp_tool *t, const json_t *args,
                                json_t *progress_token);
/* A job on w ended. keep: its call was answered and w waits for the next; else w is
 * gone (killed and reaped by the job): its pipes close. */
void mcp_worker_done(struct mcp_server *srv, struct mcp_worker *w, bool keep);
/* In a child: closes the parent's ends of every worker's pipes. */
void mcp_workers_close_fds(struct mcp_server *srv);
/* Ends every idle worker (mcp_server_release). */
void mcp_workers_release(struct mcp_server *srv);

/* Starts body in a forked child for session s; the child writes JSON lines on fd:
 * {"notify": MESSAGE} (sent on as it is) and one {"result": RESULT} (the answer to id).
 * A child that ends without a result is answered with an internal error. NULL when fork
 * failed. */
struct mcp_job *mcp_job_start(struct mcp_session *s, const json_t *id, const char *uri,
                              void (*body)(int fd, void *cls), void *cls);
/* Starts tools/call of t with args (checked) as a job answering id. */
struct mcp_job *mcp_tool_start(struct mcp_session *s, const json_t *id, const struct mcp_tool *t,
                               const json_t *args, json_t *progress_token);
/* Kills a job (a cancelled call answers nothing). */
void mcp_job_cancel(struct mcp_job *j);
struct mcp_job *mcp_job_find(struct mcp_server *srv, const struct mcp_session *s,
                             const json_t *id);
/* The child side: writes one JSON line (steals v). */
void mcp_child_write(int fd, json_t *v);

/* ---- tools (tools.c) ---- */

enum mcp_tool_flags {
    MCP_T_READ = 1 << 0,        /* readOnlyHint; listed with --read-only */
    MCP_T_DESTRUCTIVE = 1 << 1, /* destructiveHint; refused with --disable-destructive */
    MCP_T_IDEMPOTENT = 1 << 2,  /* idempotentHint */
    MCP_T_EXEC = 1 << 3,        /* runs a command: only with --allow-exec */
    MCP_T_PROJECT = 1 << 4,     /* takes "project" (and, for lists, "allProjects") */
};

struct mcp_tool {
    const char *name;
    const char *title;
    const char *description;
    unsigned flags;
    /* inputSchema and outputSchema, built once (the kinds' enums come from the
     * registry): owned by the tool table */
    json_t *(*input_schema)(void);
    json_t *(*output_schema)(void);
    void (*run)(struct mcp_call *c);
};

/* Every tool, in the order tools/list shows them (NULL-terminated). */
const struct mcp_tool *const *mcp_tools(void);
const struct mcp_tool *mcp_tool_find(const char *name);
/* Whether the safety modes list (and allow) tool t; NULL, or why not. */
const char *mcp_tool_refused(const struct mcp_config *cfg, const struct mcp_tool *t);
/* tools/list's entry of t (its schemas, title, annotations). */
json_t *mcp_tool_entry(const struct mcp_tool *t);
/* Checks args against t's inputSchema (types, required, enums, no unknown key): NULL, or
 * the message of the -32602 error (static or in buf). */
const char *mcp_tool_check_args(const struct mcp_tool *t, const json_t *args, char *buf,
                                size_t cap);
/* The arguments that reach a verb's argv as words or a URL as a segment (session.c): a
 * "project" must be a project's name (never "../x" or "a?b"); a word (kind, name, field,
 * verb, action ...) may not start with '-' (a verb would take it as a flag: --server ...),
 * hold a control character or ',' (a field selector's separator), nor be longer than any
 * name. NULL, or why not (in buf). */
const char *mcp_args_refused(const json_t *args, char *buf, size_t cap);
/* Whether project may be used (--projects); NULL for every project (allProjects). */
bool mcp_project_allowed(const struct mcp_config *cfg, const char *project);

/* Schema helpers for tool files: a property of a type with a description. */
json_t *mcp_schema_object(void);
void mcp_schema_prop(json_t *schema, const char *name, const char *type, const char *desc,
                     bool required);
/* The "kind" property: an enum of the kinds' names that pass keep (NULL: every kind). */
void mcp_schema_kind(json_t *schema, bool (*keep)(const struct nd_kind *k), bool required);
/* Adds "project" (and "allProjects" when lists) to a schema. */
void mcp_schema_project(json_t *schema, bool lists);

/* An outputSchema (steals properties): those properties, the success's required ones
 * (a NULL-terminated list). tools/list adds the "status" of an isError answer to every
 * tool's outputSchema (mcp_tool_entry). */
json_t *mcp_schema_output(json_t *properties, const char *const *required);

/* The tool families (tool_*.c): each appends its tools to the table. */
extern const struct mcp_tool mcp_tool_get, mcp_tool_describe;
/* read (tool_list.c, tool_events.c, tool_explain.c, tool_top.c, tool_auth.c,
 * tool_api_resources.c) */
extern const struct mcp_tool mcp_tool_api_resources, mcp_tool_list, mcp_tool_explain,
    mcp_tool_events, mcp_tool_top, mcp_tool_can_i;
extern const struct mcp_tool mcp_tool_logs; /* tool_logs.c */

/* One page of a list (tool_list.c): selectors, the continue token, the rows a page, and
 * whether the rows carry whole objects (else their metadata). */
struct mcp_page {
    const char *label_sel, *field_sel, *cont;
    long limit;
    bool objects;
};
struct nd_table;
/* GET one page of k's objects (the call's project, or every project) as a Table. NEW, or
 * NULL with c->st. */
json_t *mcp_list_page(struct mcp_call *c, const struct nd_kind *k, const struct mcp_page *q);
/* Fills t with the columns of `nodus get` for a page. 0, or -1 with c->st. */
int mcp_list_table(struct mcp_call *c, const struct nd_kind *k, const json_t *answer,
                   struct nd_table *t);

/* write (tool_apply.c, tool_state.c, tool_delete.c, tool_exec.c) */
extern const struct mcp_tool mcp_tool_apply, mcp_tool_suspend, mcp_tool_resume, mcp_tool_cancel,
    mcp_tool_stop, mcp_tool_start_state, mcp_tool_request, mcp_tool_approve, mcp_tool_reject,
    mcp_tool_delete, mcp_tool_exec;

/* ---- resources and prompts (resources.c, subscribe.c, prompts.c) ---- */

/* An object as a resource: nodus://PROJECT/PLURAL/NAME, or nodus:///PLURAL/NAME for a
 * cluster-scoped kind (projects: nodus:///namespaces/NAME); ?format=json reads it as
 * JSON (YAML otherwise). Any name `nodus get` takes is accepted for PLURAL. */
struct mcp_uri {
    const struct nd_kind *k;
    char project[254]; /* "" for a cluster-scoped kind */
    char name[254];
    bool json;
};
/* Parses uri and checks it against --projects: 0, or the JSON-RPC error's code
 * (-32602: not such a URI; -32002: an unknown kind or a project not served) with st. */
int mcp_uri_parse(const struct mcp_config *cfg, const char *uri, struct mcp_uri *u,
                  struct nd_status *st);
/* The JSON-RPC error {code, message, data: {uri, status}} answering id (uri may be NULL). */
json_t *mcp_status_error(const json_t *id, int code, const char *uri, const struct nd_status *st);
/* An object's path from u (nd_kind_path). */
int mcp_uri_path(const struct mcp_uri *u, struct nd_buf *path);

/* The methods (session.c's table). */
void mcp_on_resources_list(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_resources_read(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_resources_templates(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_resources_subscribe(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_resources_unsubscribe(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_prompts_list(struct mcp_session *s, const struct mcp_message *m);
void mcp_on_prompts_get(struct mcp_session *s, const struct mcp_message *m);

/* Sends the audit line of a mutating call (srv->audit): `nodus-mcp audit: {"time",
 * "client", "tool", "project", "objects": [{kind, name[, project]}], "arguments",
 * "outcome"[, "requestId"]}`; the objects and requestId come from the call's result. */
void mcp_audit(struct mcp_server *srv, const struct mcp_session *s, const char *tool,
               const json_t *args, const json_t *result, const char *outcome);

#endif
