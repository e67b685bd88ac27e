/* The exec subresource: checks, the WebSocket handshake and the session registry. The
 * session itself (the process and the channel protocol) is exec_session.c's. */
#include "exec.h"
#include "exec_session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "authz.h"
#include "clock.h"
#include "controllers/controllers.h"
#include "files.h"
#include "objects.h"
#include "client/ws.h"
#include "json/json.h"
#include "kinds/phase.h"
#include "util/header.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* ---- the registry: open sessions per object uid (server lock held) ---- */

/* One server's sessions (srv->exec), made at the first. */
struct em_exec_registry {
    json_t *open_sessions;       /* uid -> count */
    int live;                    /* sessions from their request to their end */
    pthread_cond_t live_changed; /* (with the server lock) */
};

static struct em_exec_registry *registry(struct em_server *srv)
{
    if (!srv->exec) {
        srv->exec = nd_xcalloc(1, sizeof *srv->exec);
        pthread_cond_init(&srv->exec->live_changed, NULL);
    }
    return srv->exec;
}

void em_exec_release(struct em_server *srv)
{
    if (!srv->exec)
        return;
    json_decref(srv->exec->open_sessions);
    pthread_cond_destroy(&srv->exec->live_changed);
    free(srv->exec);
    srv->exec = NULL;
}

int em_sandbox_sessions(struct em_server *srv, const json_t *sandbox)
{
    const char *uid =
        json_string_value(json_object_get(json_object_get(sandbox, "metadata"), "uid"));
    const json_t *open = srv->exec ? srv->exec->open_sessions : NULL;
    return uid && open ? (int)json_integer_value(json_object_get(open, uid)) : 0;
}

static void session_count(struct em_exec_registry *r, const char *uid, int delta)
{
    if (!r->open_sessions)
        r->open_sessions = json_object();
    json_int_t n = json_integer_value(json_object_get(r->open_sessions, uid)) + delta;
    if (n > 0)
        json_object_set_new(r->open_sessions, uid, json_integer(n));
    else
        json_object_del(r->open_sessions, uid);
    if (!json_object_size(r->open_sessions)) {
        json_decref(r->open_sessions);
        r->open_sessions = NULL;
    }
}

void em_exec_session_open(struct em_exec_session *s)
{
    struct em_exec_registry *r = registry(s->srv);
    session_count(r, s->uid, +1);
    r->live++;
}

void em_exec_session_closed(struct em_exec_session *s)
{
    struct em_exec_registry *r = registry(s->srv);
    session_count(r, s->uid, -1);
    r->live--;
    pthread_cond_broadcast(&r->live_changed);
    const struct nd_kind *k = s->kind;
    if (!k || k->family != ND_FAMILY_LONG)
        return; /* a run to completion (a Job) keeps no idle clock; a Sandbox does */
    json_t *obj = em_store_get(&s->srv->store, s->kind, s->ns, s->name);
    const char *uid = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    if (obj && uid && strcmp(uid, s->uid) == 0)
        em_sandbox_session_ended(s->srv, obj);
}

bool em_exec_target_running(struct em_server *srv, const struct nd_kind *k, const char *ns,
                            const char *name, const char *uid)
{
    const struct em_entry *e = em_store_entry(&srv->store, k, ns, name);
    if (!e)
        return false;
    const json_t *obj = em_entry_rec(e); /* uid, phase and deletion: the record holds them */
    const json_t *meta = json_object_get(obj, "metadata");
    const char *u = json_string_value(json_object_get(meta, "uid"));
    return u && strcmp(u, uid) == 0 && nd_phase_of(obj) == ND_PHASE_RUNNING &&
           !json_object_get(meta, "deletionTimestamp");
}

void em_exec_shutdown(struct em_server *srv)
{
    struct timespec until;
    nd_time_deadline(&until, 5000);
    pthread_mutex_lock(&srv->lock);
    struct em_exec_registry *r = registry(srv);
    while (r->live > 0 && pthread_cond_timedwait(&r->live_changed, &srv->lock, &until) == 0)
        ;
    pthread_mutex_unlock(&srv->lock);
}

/* ---- the request ---- */

/* RFC 6455 4.1: the base64 of 16 bytes, so 22 characters of the alphabet then "==". */
static bool ws_key_valid(const char *key)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    return strlen(key) == 24 && strspn(key, b64) == 22 && strcmp(key + 22, "==") == 0;
}

/* The subprotocols offered, as a message may show them: without a browser's token
 * (EM_BEARER_PROTOCOL), which is a secret. */
static void shown_protocols(const char *offered, struct nd_buf *out)
{
    const size_t plen = strlen(EM_BEARER_PROTOCOL);
    size_t n;
    for (const char *p; (p = nd_http_list_next(&offered, &n));)
        if (n < plen || strncmp(p, EM_BEARER_PROTOCOL, plen) != 0)
            nd_buf_addf(out, "%s%.*s", out->len ? ", " : "", (int)n, p);
}

static int websocket_request(struct em_api *a, const char **protocol)
{
    const char *conn = em_req_header(a->req, "connection");
    const char *up = em_req_header(a->req, "upgrade");
    const char *key = em_req_header(a->req, "sec-websocket-key");
    const char *ver = em_req_header(a->req, "sec-websocket-version");
    const char *FIX = "connect with a WebSocket client, e.g.: nodus exec sandbox/NAME -- COMMAND";
    if (!conn || !nd_http_has_token(conn, "upgrade") || !up ||
        !nd_http_has_token(up, "websocket") || !key || !*key)
        return nd_status_set(&a->st, "BadRequest", FIX,
                             "exec needs a WebSocket upgrade (Connection: Upgrade, Upgrade: "
                             "websocket, Sec-WebSocket-Key)");
    if (!ws_key_valid(key))
        return nd_status_set(&a->st, "BadRequest", FIX,
                             "Sec-WebSocket-Key must be 16 bytes in base64 (24 characters, "
                             "RFC 6455)");
    if (!ver || strcmp(ver, "13") != 0)
        return nd_status_set(&a->st, "BadRequest", FIX,
                             "unsupported Sec-WebSocket-Version \"%s\" (this server speaks 13)",
                             ver ? ver : "");
    const char *offered = em_req_header(a->req, "sec-websocket-protocol");
    if (nd_http_has_token(offered, "v5.channel.k8s.io"))
        *protocol = "v5.channel.k8s.io";
    else if (nd_http_has_token(offered, "v4.channel.k8s.io"))
        *protocol = "v4.channel.k8s.io";
    else {
        struct nd_buf shown = ND_BUF_INIT;
        shown_protocols(offered, &shown);
        nd_status_set(&a->st, "BadRequest", "offer Sec-WebSocket-Protocol: v5.channel.k8s.io",
                      "no supported subprotocol in \"%s\": this server speaks "
                      "v5.channel.k8s.io and v4.channel.k8s.io",
                      shown.len ? shown.data : "");
        nd_buf_release(&shown);
        return -1;
    }
    return 0;
}

/* Not Running: a refusal whose fix depends on where the object is. */
static int not_running(struct em_api *a, const json_t *obj)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *phase = json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    if (!phase || !*phase)
        phase = "Pending";
    const char *kind = a->kind->singular, *name = a->path.name;
    bool deleting = json_object_get(meta, "deletionTimestamp") != NULL;
    nd_status_set(&a->st, "BadRequest", NULL,
                  "cannot exec into %s \"%s\": it is %s%s, and exec needs it Running", kind, name,
                  deleting ? "being deleted, " : "", phase);
    if (deleting)
        nd_status_set_fix(&a->st, "create it again once it is gone: nodus apply -f FILE");
    else if (nd_phase_of(obj) == ND_PHASE_STOPPED)
        nd_status_set_fix(&a->st, "start it: nodus start %s/%s -n %s", kind, name, a->ns);
    else if (nd_phase_ended(nd_phase_of(obj)))
        nd_status_set_fix(&a->st, "it has ended; read its output: nodus logs %s/%s -n %s", kind,
                          name, a->ns);
    else
        nd_status_set_fix(&a->st,
                          "wait until it runs: nodus wait %s/%s -n %s "
                          "--for=jsonpath='{.status.phase}'=Running",
                          kind, name, a->ns);
    nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
    return -1;
}

/* The process's environment: the emulator's, then TERM for a terminal and HOME=/ (the top
 * of the files) when isolated, then spec.env. */
extern char **environ;
static char **environment(const json_t *obj, bool tty, bool isolated)
{
    json_t *env = json_object();
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char *k = nd_xstrndup(*e, (size_t)(eq - *e));
        json_object_set_new(env, k, json_string(eq + 1));
        free(k);
    }
    if (tty)
        json_object_set_new(env, "TERM", json_string("xterm"));
    if (isolated)
        json_object_set_new(env, "HOME", json_string("/"));
    size_t i;
    json_t *kv;
    json_array_foreach(json_object_get(json_object_get(obj, "spec"), "env"), i, kv)
    {
        const char *k = json_string_value(json_object_get(kv, "name"));
        const char *v = json_string_value(json_object_get(kv, "value"));
        if (k && *k)
            json_object_set_new(env, k, json_string(v ? v : ""));
    }
    char **out = nd_xcalloc(json_object_size(env) + 1, sizeof *out);
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(env, k, v) out[n++] = nd_xasprintf("%s=%s", k, json_string_value(v));
    json_decref(env);
    return out;
}

static void session_run(void *cls, int fd, const char *extra, size_t extra_len)
{
    em_exec_session_run(cls, fd, extra, extra_len);
}

static void session_abandon(void *cls)
{
    /* the upgrade never happened: nothing ran */
    struct em_exec_session *s = cls;
    pthread_mutex_lock(&s->srv->lock);
    em_exec_session_closed(s);
    pthread_mutex_unlock(&s->srv->lock);
    em_exec_session_free(s);
}

int em_exec_handle(struct em_api *a, const char *verb)
{
    (void)verb; /* get or create: the router serves only nd_kind_sub_verbs (route.c) */
    json_t *obj = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!obj)
        return em_api_not_found(a, a->path.name);
    json_t *command = json_object_get(a->req->query, "command");
    if (!json_array_size(command) || !*json_string_value(json_array_get(command, 0)))
        return nd_status_set(&a->st, "BadRequest",
                             "add the command: nodus exec sandbox/NAME -- COMMAND",
                             "you must specify at least 1 command (query parameter command, "
                             "once per argument)");
    bool in, out, err, tty;
    if (em_api_query_bool(a, "stdin", &in) < 0 || em_api_query_bool(a, "stdout", &out) < 0 ||
        em_api_query_bool(a, "stderr", &err) < 0 || em_api_query_bool(a, "tty", &tty) < 0)
        return -1;
    if (!in && !out && !err)
        return nd_status_set(&a->st, "BadRequest", "add stdout=true (and stderr=true, stdin=true)",
                             "you must specify at least one of stdin, stdout, stderr");
    const char *protocol = NULL;
    if (websocket_request(a, &protocol) < 0)
        return -1;
    if (nd_phase_of(obj) != ND_PHASE_RUNNING ||
        json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp"))
        return not_running(a, obj);
    struct em_view view;
    if (em_view_open(a->srv, a->kind, obj, &view, &a->st) < 0) {
        em_view_release(&view);
        nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
        return -1;
    }

    struct em_exec_session *s = nd_xcalloc(1, sizeof *s);
    s->srv = a->srv;
    s->kind = a->kind;
    s->ns = nd_xstrdup(a->ns);
    s->name = nd_xstrdup(a->path.name);
    s->uid =
        nd_xstrdup(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")));
    s->view = view;
    s->argv = nd_json_strv(command);
    s->envp = environment(obj, tty, view.isolated);
    s->want_in = in;
    s->want_out = out;
    s->want_err = err;
    s->tty = tty;
    s->v5 = strcmp(protocol, "v5.channel.k8s.io") == 0;
    s->tcp_fd = em_req_socket(a->req);
    em_exec_session_open(s);

    char accept[29];
    nd_ws_accept(em_req_header(a->req, "sec-websocket-key"), accept);
    em_resp_set_header(a->resp, "Upgrade", "websocket");
    em_resp_set_header(a->resp, "Sec-WebSocket-Accept", accept);
    em_resp_set_header(a->resp, "Sec-WebSocket-Protocol", protocol);
    a->resp->code = 101;
    a->resp->upgrade = session_run;
    a->resp->upgrade_cls = s;
    a->resp->upgrade_free = session_abandon;
    return 0;
}
