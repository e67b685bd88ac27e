/* resolve.c: from a context to what the client needs (server, credentials, TLS).
 *
 * Precedence, highest first: flags (struct nd_overrides), then NODUS_SERVER and
 * NODUS_TOKEN, then the file. An empty string counts as not given, as kubectl's
 * overrides do. Relative paths in the file are relative to the file's directory
 * (kubectl's ResolvePaths) and come out absolute; paths given as flags are the
 * caller's, passed on as they are.
 */
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/internal.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define NO_SERVER                                                                                  \
    "no server configured: run nodus emulator start, or nodus config set-cluster NAME "            \
    "--server URL, or set NODUS_SERVER"

/* A token file larger than this is not a token. */
#define MAX_TOKEN_BYTES (64u << 10)

static const char *given(const char *s)
{
    return s && *s ? s : NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? nd_xstrdup(s) : NULL;
}

/* NEW absolute directory of the configuration file (kubectl resolves the file's
 * relative paths against filepath.Abs(filepath.Dir(file))). */
static char *config_dir(const struct nd_config *cfg)
{
    const char *slash = cfg->path ? strrchr(cfg->path, '/') : NULL;
    if (!slash)
        return cfg_absolute(".");
    if (slash == cfg->path)
        return nd_xstrdup("/");
    char *dir = nd_xstrndup(cfg->path, (size_t)(slash - cfg->path));
    char *abs = cfg_absolute(dir);
    free(dir);
    return abs;
}

/* NEW path of a file named in the configuration, or NULL when the field is not set. */
static char *file_field(const json_t *body, const char *key, const char *dir)
{
    const char *v = cfg_str(body, key);
    if (!v)
        return NULL;
    struct nd_buf b = ND_BUF_INIT;
    cfg_join(&b, dir, v);
    return nd_buf_detach(&b);
}

/* Decodes a *-data field into *out (NEW, or NULL when the field is not set). */
static int data_field(const json_t *body, const char *key, const char *at, char **out,
                      struct nd_status *st)
{
    const char *v = cfg_str(body, key);
    *out = NULL;
    if (!v)
        return 0;
    struct nd_buf pem = ND_BUF_INIT;
    if (cfg_decode_pem(v, &pem) < 0) {
        nd_buf_release(&pem);
        char *field = nd_xasprintf("%s.%s", at, key);
        nd_status_set(st, "Usage", NULL, "%s: invalid base64 (or not PEM text)", field);
        nd_status_add_cause(st, "FieldValueInvalid", field, "invalid base64 (or not PEM text)");
        free(field);
        return -1;
    }
    *out = nd_buf_detach(&pem);
    return 0;
}

/* NEW contents of a token file without the white space around them (NULL when that
 * leaves nothing), or -1 with st naming the file. */
static int read_token(const char *path, const char *user, char **out, struct nd_status *st)
{
    struct nd_buf b;
    nd_buf_init(&b, MAX_TOKEN_BYTES);
    int err = 0;
    *out = NULL;
    if (nd_buf_read_file(&b, path) < 0) {
        err = errno;
        goto fail;
    }
    size_t start = 0, end = b.len;
    while (start < end && strchr(" \t\r\n", b.data[start]))
        start++;
    while (end > start && strchr(" \t\r\n", b.data[end - 1]))
        end--;
    if (end > start)
        *out = nd_xstrndup(b.data + start, end - start);
    nd_buf_release(&b);
    return 0;
fail:
    nd_buf_release(&b);
    nd_status_set(st, "Usage", NULL, "user \"%s\": cannot read tokenFile \"%s\": %s", user, path,
                  strerror(err));
    return -1;
}

/* Finds the entry a context names; -1 with st when it names one that does not exist. */
static int lookup(const json_t *doc, const struct cfg_list *l, const char *name, const char *ctx,
                  const json_t **body, long *index, struct nd_status *st)
{
    *body = NULL;
    *index = -1;
    if (!name)
        return 0;
    *index = cfg_find(doc, l, name);
    if (*index < 0) {
        return nd_status_set(st, "Usage", NULL, "context \"%s\": %s \"%s\" does not exist", ctx,
                             l->inner, name);
    }
    *body = cfg_body(doc, l, (size_t)*index);
    return 0;
}

/* The entries the chosen context names, with their indexes (-1: none). */
struct entries {
    const json_t *ctx, *cluster, *user;
    long ci, ui;
};

/* The context of --context, else the current one (a stale current-context skipped when
 * the server is named otherwise), and the cluster and user it names, into out and e. */
static int resolve_context(const struct nd_config *cfg, const struct nd_overrides *ov,
                           struct nd_target *out, struct entries *e, struct nd_status *st)
{
    const json_t *doc = cfg->doc;
    const char *ctx_name = given(ov->context) ? ov->context : nd_config_current_context(cfg);
    /* A stale current-context does not stop a script that names its server itself
     * (NODUS_SERVER, --server); a context named with --context must exist. */
    if (ctx_name && !given(ov->context) && cfg_find(doc, &cfg_contexts, ctx_name) < 0 &&
        (given(ov->server) || given(getenv("NODUS_SERVER"))))
        ctx_name = NULL;
    if (!ctx_name)
        return 0;
    long i = cfg_find(doc, &cfg_contexts, ctx_name);
    if (i < 0)
        return nd_status_set(st, "Usage", "list the contexts: nodus config get-contexts",
                             "context \"%s\" does not exist", ctx_name);
    e->ctx = cfg_body(doc, &cfg_contexts, (size_t)i);
    out->context = nd_xstrdup(ctx_name);
    out->cluster = dup_or_null(cfg_str(e->ctx, "cluster"));
    out->user = dup_or_null(cfg_str(e->ctx, "user"));
    if (lookup(doc, &cfg_clusters, out->cluster, ctx_name, &e->cluster, &e->ci, st) < 0) {
        nd_status_set_fix(st, "set its server: nodus config set-cluster %s --server URL",
                          out->cluster);
        return -1;
    }
    if (lookup(doc, &cfg_users, out->user, ctx_name, &e->user, &e->ui, st) < 0) {
        nd_status_set_fix(st, "set its token: nodus config set-credentials %s --token TOKEN",
                          out->user);
        return -1;
    }
    return 0;
}

/* --server, else NODUS_SERVER, else the cluster's. */
static int resolve_server(const struct nd_overrides *ov, const json_t *cluster,
                          struct nd_target *out, struct nd_status *st)
{
    const char *server = given(ov->server);
    if (!server)
        server = given(getenv("NODUS_SERVER"));
    if (!server)
        server = cfg_str(cluster, "server");
    if (!server) {
        if (cluster)
            return nd_status_set(st, "Usage", NULL,
                                 "cluster \"%s\" has no server: run nodus config set-cluster %s "
                                 "--server URL, or set NODUS_SERVER",
                                 out->cluster, out->cluster);
        return nd_status_set(st, "Usage", NULL, NO_SERVER);
    }
    out->server = nd_xstrdup(server);
    return 0;
}

/* Credentials: a token wins over a token file; client certificates go alongside. */
static int resolve_credentials(const struct nd_overrides *ov, const struct entries *e,
                               const char *dir, struct nd_target *out, struct nd_status *st)
{
    const json_t *user = e->user;
    const char *token = given(ov->token);
    if (!token)
        token = given(getenv("NODUS_TOKEN"));
    if (!token)
        token = cfg_str(user, "token");
    if (token) {
        out->token = nd_xstrdup(token);
    } else if (cfg_str(user, "tokenFile")) {
        char *path = file_field(user, "tokenFile", dir);
        int r = read_token(path, out->user, &out->token, st);
        free(path);
        if (r < 0)
            return -1;
    }
    out->cert_file = file_field(user, "client-certificate", dir);
    out->key_file = file_field(user, "client-key", dir);
    if (!user)
        return 0;
    char *at = nd_xasprintf("users[%ld].user", e->ui);
    int rc = data_field(user, "client-certificate-data", at, &out->cert_data, st) < 0 ||
                     data_field(user, "client-key-data", at, &out->key_data, st) < 0
                 ? -1
                 : 0;
    free(at);
    return rc;
}

/* TLS: --insecure-skip-tls-verify or --certificate-authority replace all three of the
 * file's settings, as kubectl's client config does. */
static int resolve_tls(const struct nd_overrides *ov, const struct entries *e, const char *dir,
                       struct nd_target *out, struct nd_status *st)
{
    if (ov->insecure || given(ov->ca_file)) {
        out->insecure = ov->insecure;
        out->ca_file = dup_or_null(given(ov->ca_file));
        return 0;
    }
    if (!e->cluster)
        return 0;
    out->insecure = json_is_true(json_object_get(e->cluster, "insecure-skip-tls-verify"));
    out->ca_file = file_field(e->cluster, "certificate-authority", dir);
    char *at = nd_xasprintf("clusters[%ld].cluster", e->ci);
    int rc = data_field(e->cluster, "certificate-authority-data", at, &out->ca_data, st);
    free(at);
    return rc;
}

int nd_config_resolve(const struct nd_config *cfg, const struct nd_overrides *ov,
                      struct nd_target *out, struct nd_status *st)
{
    static const struct nd_overrides none;
    struct entries e = {.ci = -1, .ui = -1};
    char *dir = config_dir(cfg);
    int rc = -1;

    if (!ov)
        ov = &none;
    memset(out, 0, sizeof *out);
    if (resolve_context(cfg, ov, out, &e, st) < 0 || resolve_server(ov, e.cluster, out, st) < 0 ||
        resolve_credentials(ov, &e, dir, out, st) < 0 || resolve_tls(ov, &e, dir, out, st) < 0)
        goto out;
    const char *ns = given(ov->namespace);
    if (!ns)
        ns = cfg_str(e.ctx, "namespace");
    out->namespace = nd_xstrdup(ns ? ns : "default");
    rc = 0;
out:
    if (rc < 0)
        nd_target_release(out);
    free(dir);
    return rc;
}

void nd_target_release(struct nd_target *t)
{
    free(t->context);
    free(t->cluster);
    free(t->user);
    free(t->server);
    free(t->token);
    free(t->ca_file);
    free(t->ca_data);
    free(t->cert_file);
    free(t->key_file);
    free(t->cert_data);
    free(t->key_data);
    free(t->namespace);
    memset(t, 0, sizeof *t);
}
