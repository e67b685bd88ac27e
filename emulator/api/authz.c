/* Authorisation: the token file, the caller's identity, what a request does, and the
 * one decision every request goes through; see authz.h. */
#include "authz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "fsutil.h"
#include "json/json.h"
#include "protobuf.h"
#include "route.h"
#include "util/base64.h"
#include "util/header.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

#define OPERATOR "emulator-user"

static const struct em_identity operator_identity = {OPERATOR, EM_SCOPE_ALL, NULL, false};

const struct em_identity *em_authz_operator(void)
{
    return &operator_identity;
}

/* ---- the token file ---- */

static const struct {
    const char *name;
    unsigned bits;
} scope_names[] = {
    {"read", EM_SCOPE_READ},
    {"write", EM_SCOPE_WRITE},
    {"billing:write", EM_SCOPE_BILLING_WRITE},
    {"admin", EM_SCOPE_ALL}, /* admin holds every scope */
    {"*", EM_SCOPE_ALL},
    {NULL, 0},
};

static unsigned scope_bits(const char *s)
{
    for (int i = 0; s && scope_names[i].name; i++)
        if (strcmp(scope_names[i].name, s) == 0)
            return scope_names[i].bits;
    return 0;
}

static int read_private(const char *file, struct nd_buf *out, struct nd_buf *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        nd_buf_addf(err, "cannot read --token-file %s%s%s", file, fd < 0 ? ": " : "",
                    fd < 0 ? strerror(errno) : ": not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* as ssh does with private keys: tokens are secrets */
    if (sb.st_mode & (S_IRWXG | S_IRWXO)) {
        nd_buf_addf(err,
                    "--token-file %s is open to group or others (mode %04o): it holds secrets; "
                    "make it private with: chmod 600 %s",
                    file, (unsigned)(sb.st_mode & 07777), file);
        close(fd);
        return -1;
    }
    int rc = nd_buf_read_fd(out, fd);
    int saved = errno;
    close(fd);
    if (rc < 0) {
        nd_buf_addf(err, "cannot read --token-file %s: %s", file, strerror(saved));
        return -1;
    }
    return 0;
}

/* A token is printable text: no NUL, no C0 control byte, no DEL (a header cannot carry
 * them, and a NUL would make a C string of it a shorter token). The offset of the first
 * such byte, or -1. */
static long token_bad_byte(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] == 0x7f)
            return (long)i;
    return -1;
}

/* Each entry: {"identity": "...", "projects": ["..."], "scopes": ["..."]}. */
static int check_entry(const json_t *v, struct nd_buf *err)
{
    if (!json_is_object(v) || !json_string_value(json_object_get(v, "identity"))) {
        nd_buf_addf(err, "--token-file: token entries need an \"identity\" string");
        return -1;
    }
    const char *id = json_string_value(json_object_get(v, "identity"));
    const json_t *projects = json_object_get(v, "projects");
    const json_t *scopes = json_object_get(v, "scopes");
    size_t i;
    json_t *s;
    if (projects && !json_is_array(projects)) {
        nd_buf_addf(err, "--token-file: %s: \"projects\" must be a list of project names", id);
        return -1;
    }
    json_array_foreach(projects, i, s) {
        if (!json_is_string(s)) {
            nd_buf_addf(err, "--token-file: %s: \"projects\" must be a list of project names", id);
            return -1;
        }
    }
    if (scopes && !json_is_array(scopes)) {
        nd_buf_addf(err, "--token-file: %s: \"scopes\" must be a list of scopes", id);
        return -1;
    }
    json_array_foreach(scopes, i, s) {
        if (!scope_bits(json_string_value(s))) {
            nd_buf_addf(err,
                        "--token-file: %s: unknown scope %s (the scopes are read, write, "
                        "billing:write, admin and *)",
                        id, json_is_string(s) ? json_string_value(s) : "(not a string)");
            return -1;
        }
    }
    return 0;
}

int em_authz_load(struct em_server *srv, struct nd_buf *err)
{
    if (!srv->opt.token_file)
        return 0;
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    json_t *j = NULL;
    int rc = -1;
    if (read_private(srv->opt.token_file, &b, err) < 0)
        goto out;
    j = nd_json_load(b.data, b.len, srv->opt.token_file, &st);
    if (!j) {
        nd_buf_addf(err, "--token-file: %s", st.message);
        goto out;
    }
    json_t *tokens = json_object_get(j, "tokens") ? json_object_get(j, "tokens") : j;
    if (!json_is_object(tokens)) {
        nd_buf_addf(err, "--token-file: expected an object mapping each token to its entry");
        goto out;
    }
    const char *tok;
    json_t *v;
    json_object_foreach(tokens, tok, v) {
        if (check_entry(v, err) < 0)
            goto out;
        size_t n = json_object_iter_key_len(json_object_key_to_iter(tok));
        long bad = token_bad_byte(tok, n);
        if (!n || bad >= 0) {
            /* the token is a secret: the message names its identity, not it */
            nd_buf_addf(err,
                        "--token-file: the token of %s %s: a token is printable text (no "
                        "control characters)",
                        json_string_value(json_object_get(v, "identity")),
                        !n ? "is empty" : "holds a control character");
            goto out;
        }
    }
    json_decref(srv->tokens);
    srv->tokens = json_incref(tokens);
    rc = 0;
out:
    json_decref(j);
    nd_status_release(&st);
    nd_buf_release(&b);
    return rc;
}

/* ---- who asks ---- */

/* Equal, by length and bytes, in a time that depends on alen only (not on where they
 * differ, nor on which token of the file is compared). */
static bool in_list(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const char *x = json_string_value(v);
        if (x && (strcmp(x, s) == 0 || strcmp(x, "*") == 0))
            return true;
    }
    return false;
}

/* A browser cannot set Authorization on a WebSocket; it offers the token as a
 * subprotocol instead, as kube-apiserver reads it: EM_BEARER_PROTOCOL followed by the
 * token in base64url without padding, beside the protocol it speaks. Only for a
 * WebSocket upgrade without an Authorization header. 1 with the token in out, 0 when
 * none was offered, -1 when one was but cannot be a token (too long, not base64url, two
 * of them): then it is unknown. */
static int protocol_token(const struct em_req *req, struct nd_buf *out)
{
    static const char b64url[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const size_t plen = strlen(EM_BEARER_PROTOCOL);
    if (!nd_http_has_token(em_req_header(req, "upgrade"), "websocket"))
        return 0;
    int found = 0;
    const char *list = em_req_header(req, "sec-websocket-protocol");
    size_t n;
    for (const char *p; (p = nd_http_list_next(&list, &n));) {
        if (n < plen || strncmp(p, EM_BEARER_PROTOCOL, plen) != 0)
            continue;
        const char *enc = p + plen;
        size_t elen = n - plen;
        if (found || elen > EM_BEARER_PROTOCOL_MAX || strspn(enc, b64url) < elen ||
            nd_base64_decode(enc, elen, out) < 0)
            return -1;
        found = 1;
    }
    return found && out->len ? 1 : -found;
}

static void identify(const struct em_server *srv, const struct em_req *req,
                     struct em_identity *who)
{
    if (!srv->tokens) {
        *who = operator_identity;
        return;
    }
    memset(who, 0, sizeof *who);
    const char *auth = em_req_header(req, "authorization");
    struct nd_buf offered = ND_BUF_INIT; /* a secret: released, never logged */
    int in_protocol = auth ? 0 : protocol_token(req, &offered);
    who->token_sent = auth != NULL || in_protocol != 0;
    const char *given = NULL, *token = NULL;
    size_t len = 0;
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
        given = auth + 7;
        len = strlen(given);
    } else if (in_protocol > 0) {
        given = offered.data;
        len = offered.len;
    }
    if (!given || token_bad_byte(given, len) >= 0) {
        nd_buf_release(&offered);
        return; /* none, or not a token this file can hold: unknown */
    }
    const json_t *entry = NULL;
    const char *tok;
    json_t *v;
    /* every token is compared, to the end: no early exit to time */
    json_object_foreach(srv->tokens, tok, v) {
        size_t n = json_object_iter_key_len(json_object_key_to_iter(tok));
        if (nd_http_secret_equal(given, len, tok, n)) {
            entry = v;
            token = tok;
        }
    }
    nd_buf_release(&offered);
    if (!entry)
        return;
    who->token = token;
    who->name = json_string_value(json_object_get(entry, "identity"));
    const json_t *scopes = json_object_get(entry, "scopes");
    who->scopes = scopes ? 0 : EM_SCOPE_ALL;
    size_t i;
    json_array_foreach(scopes, i, v) who->scopes |= scope_bits(json_string_value(v));
    const json_t *projects = json_object_get(entry, "projects");
    who->projects = projects && !in_list(projects, "*") ? projects : NULL;
}

bool em_authz_admin_token(const struct em_server *srv, const struct em_req *req)
{
    if (!srv->tokens)
        return false;
    struct em_identity who;
    identify(srv, req, &who);
    return who.name && (who.scopes & EM_SCOPE_ADMIN);
}

/* ---- what the request does ---- */

/* The name of the Namespace a create's body asks for, as the handler will read it
 * (JSON, YAML or kubectl's protobuf); NULL when the body does not give one. A body past
 * em_body_limits also sets *too_large (moved into it: the answer, as the handler's). */
static char *project_from_body(const struct em_req *req, struct nd_status *too_large)
{
    const char *ct = em_req_header(req, "content-type");
    struct nd_status st = ND_STATUS_INIT;
    json_t *obj = NULL;
    if (!req->body.len) {
        /* nothing to read */
    } else if (ct && strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35) == 0) {
        obj = em_protobuf_namespace((const unsigned char *)req->body.data, req->body.len, &st);
    } else if (ct && strncasecmp(ct, "application/yaml", 16) == 0) {
        obj = nd_yaml_load_limited(req->body.data, req->body.len, "body", &em_body_limits, &st);
    } else {
        obj = nd_json_load_limited(req->body.data, req->body.len, "body", &em_body_limits, &st);
    }
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                                         "name"));
    char *out = name && *name ? nd_xstrdup(name) : NULL;
    json_decref(obj);
    if (nd_status_is(&st, ND_REASON_REQUEST_ENTITY_TOO_LARGE))
        nd_status_move(too_large, &st);
    nd_status_release(&st);
    return out;
}

/* ---- the decision ---- */

bool em_authz_may_see(const struct em_identity *who, const char *project)
{
    return !who->projects || in_list(who->projects, project) || !strcmp(project, "nodus");
}

bool em_authz_sees_object(const struct em_identity *who, const struct nd_kind *k,
                          const json_t *obj)
{
    if (!who->projects)
        return true;
    const json_t *meta = json_object_get(obj, "metadata");
    const char *project = json_string_value(json_object_get(meta, k->namespaced ? "namespace"
                                                                                 : "name"));
    return em_authz_may_see(who, project ? project : "");
}

static int unauthorized(const struct em_identity *who, struct nd_status *st)
{
    return nd_status_set(st, "Unauthorized",
                         "set a token: nodus config set-credentials NAME --token TOKEN",
                         who->token_sent ? "the bearer token is not known"
                                         : "a bearer token is required");
}

/* "exec into", "patch": what the message says the caller tried. */
static const char *action(const struct em_route *rt)
{
    static const struct {
        const char *sub, *words;
    } subs[] = {{"exec", "exec into"},
                {"files", "use the files of"},
                {"invoke", "invoke"},
                {"log", "read the log of"},
                {NULL, NULL}};
    for (int i = 0; rt->sub && subs[i].sub; i++)
        if (!strcmp(rt->sub, subs[i].sub))
            return subs[i].words;
    return rt->verb;
}

static int forbidden_scope(const struct em_identity *who, const char *what, const char *path,
                           const char *scope, struct nd_status *st)
{
    nd_status_set(st, "Forbidden", NULL, "%s may not %s %s: it needs the token scope %s",
                  who->name, what, path, scope);
    nd_status_set_fix(st, "use a token with the %s scope", scope);
    return -1;
}

static int forbidden_project(const struct em_identity *who, const struct em_route *rt,
                             const char *path, struct nd_status *st)
{
    nd_status_set(st, "Forbidden", NULL, "%s may not %s %s: the token is not for project %s",
                  who->name, action(rt), path, rt->project);
    const char *mine = json_string_value(json_array_get(who->projects, 0));
    if (mine)
        nd_status_set_fix(st, "use a token for project %s, or one of this token's projects "
                              "(-n %s)", rt->project, mine);
    else
        nd_status_set_fix(st, "use a token for project %s", rt->project);
    return -1;
}

int em_authz_decide(const struct em_server *srv, const struct em_identity *who,
                    const struct em_route *rt, const char *path, struct nd_status *st)
{
    if (em_route_open(rt))
        return 0;
    if (srv->tokens && !who->name)
        return unauthorized(who, st);
    if (rt->target == EM_TO_CONTROL) {
        if (!(who->scopes & EM_SCOPE_ADMIN))
            return forbidden_scope(who, "use", path, "admin", st);
        return 0;
    }
    if (rt->target != EM_TO_API) /* discovery, reviews, and what is not found */
        return 0;
    if (!rt->verb)
        return 0; /* no verb fits the method: the handler answers MethodNotAllowed */
    const char *sub = rt->sub;
    bool runs = sub && (!strcmp(sub, "exec") || !strcmp(sub, "files") || !strcmp(sub, "invoke"));
    bool reads = !runs && ((sub && !strcmp(sub, "log")) || !rt->is_write);
    const char *what = action(rt);
    if (!reads && rt->project && !strcmp(rt->project, "nodus")) {
        return nd_status_set(st, "Forbidden", "use your own project, e.g. -n default",
                             "the project nodus is read-only");
    }
    if (!(who->scopes & (reads ? EM_SCOPE_READ : EM_SCOPE_WRITE)))
        return forbidden_scope(who, what, path, reads ? "read" : "write", st);
    /* (nodus, readable by all, was refused above to any write) */
    if (rt->project && !em_authz_may_see(who, rt->project))
        return forbidden_project(who, rt, path, st);
    bool namespaces = rt->kind && !rt->kind->namespaced;
    if (namespaces && !strcmp(rt->verb, "deletecollection") && who->projects) {
        nd_status_set(st, "Forbidden", "delete each project by name: nodus delete namespace NAME",
                      "%s may not delete every project at once (%s): that needs a token for "
                      "every project (\"projects\": [\"*\"])",
                      who->name, path);
        return -1;
    }
    if (rt->unnamed && who->projects) {
        nd_status_set(st, "Forbidden", "name the project in metadata.name",
                      "%s may create only its own projects, and the body names none (%s)",
                      who->name, path);
        return -1;
    }
    return 0;
}

int em_authz_check(const struct em_server *srv, const struct em_identity *who,
                   const struct em_req *req, const struct em_route *rt, struct nd_status *st)
{
    /* the identity and its scopes first: an anonymous or read-only caller is refused
     * before a byte of the body is parsed */
    int rc = em_authz_decide(srv, who, rt, req->path, st);
    if (rc == 0 && rt->project_in_body) {
        struct em_route named = *rt; /* borrows rt's path: not released */
        char *project = project_from_body(req, st);
        named.project = project;
        named.unnamed = !project;
        rc = nd_status_failed(st) ? -1 : em_authz_decide(srv, who, &named, req->path, st);
        free(project);
    }
    return rc;
}

int em_authz_request(const struct em_server *srv, const struct em_req *req,
                     const struct em_route *rt, struct em_identity *who, struct nd_status *st)
{
    identify(srv, req, who);
    return em_authz_check(srv, who, req, rt, st);
}
