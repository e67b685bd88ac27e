/* edit.c: the edits of `nodus config`, with kubectl config's semantics.
 *
 * An entry is created at the end of its list or updated in place, so other fields and
 * the order of entries stay as they were. File paths given to an edit are made
 * absolute against the working directory (kubectl's filepath.Abs), so the file reads
 * the same from anywhere.
 */
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

#include "config/internal.h"
#include "util/buf.h"
#include "util/xmalloc.h"

static int need_name(const char *name, const char *what, struct nd_status *st)
{
    if (name && *name)
        return 0;
    return nd_status_set(st, "Usage", NULL, "a %s name is required", what);
}

/* The body of the entry called name, appended as {name, inner: {}} when missing.
 * BORROWED. */
static json_t *upsert(json_t *doc, const struct cfg_list *l, const char *name)
{
    long i = cfg_find(doc, l, name);
    if (i >= 0)
        return cfg_body(doc, l, (size_t)i);
    json_t *arr = json_object_get(doc, l->list);
    if (!json_is_array(arr)) {
        arr = json_array();
        json_object_set_new(doc, l->list, arr);
    }
    json_t *body = json_object();
    json_array_append_new(arr, json_pack("{s:s, s:o}", "name", name, l->inner, body));
    return body;
}

/* Sets key to v; NULL leaves it, "" removes it. */
static void set_str(json_t *body, const char *key, const char *v)
{
    if (!v)
        return;
    if (*v)
        json_object_set_new(body, key, json_string(v));
    else
        json_object_del(body, key);
}

/* Sets a file field to the absolute form of path; NULL leaves it, "" removes it. */
static void set_path(json_t *body, const char *key, const char *path)
{
    if (!path || !*path) {
        set_str(body, key, path);
        return;
    }
    char *abs = cfg_absolute(path);
    json_object_set_new(body, key, json_string(abs));
    free(abs);
}

int nd_config_use_context(struct nd_config *cfg, const char *name, struct nd_status *st)
{
    if (need_name(name, "context", st) < 0)
        return -1;
    if (cfg_find(cfg->doc, &cfg_contexts, name) < 0)
        return nd_status_set(st, "Usage", "list the contexts: nodus config get-contexts",
                             "context \"%s\" does not exist", name);
    json_object_set_new(cfg->doc, "current-context", json_string(name));
    return 0;
}

int nd_config_set_context(struct nd_config *cfg, const char *name, const char *cluster,
                          const char *user, const char *namespace, struct nd_status *st)
{
    if (need_name(name, "context", st) < 0)
        return -1;
    json_t *body = upsert(cfg->doc, &cfg_contexts, name);
    set_str(body, "cluster", cluster);
    set_str(body, "user", user);
    set_str(body, "namespace", namespace);
    return 0;
}

int nd_config_set_cluster(struct nd_config *cfg, const char *name, const char *server,
                          const char *ca_file, int insecure, struct nd_status *st)
{
    if (need_name(name, "cluster", st) < 0)
        return -1;
    json_t *body = upsert(cfg->doc, &cfg_clusters, name);
    set_str(body, "server", server);
    /* In kubectl's order: insecure mode clears the CA, then a CA file clears the CA data
     * and insecure mode. */
    if (insecure > 0) {
        json_object_set_new(body, "insecure-skip-tls-verify", json_true());
        json_object_del(body, "certificate-authority");
        json_object_del(body, "certificate-authority-data");
    } else if (insecure == 0) {
        json_object_del(body, "insecure-skip-tls-verify");
    }
    set_path(body, "certificate-authority", ca_file);
    if (ca_file && *ca_file) {
        json_object_del(body, "certificate-authority-data");
        json_object_del(body, "insecure-skip-tls-verify");
    }
    return 0;
}

int nd_config_set_credentials(struct nd_config *cfg, const char *name, const char *token,
                              const char *token_file, const char *cert_file, const char *key_file,
                              struct nd_status *st)
{
    if (need_name(name, "user", st) < 0)
        return -1;
    json_t *body = upsert(cfg->doc, &cfg_users, name);
    set_path(body, "client-certificate", cert_file);
    if (cert_file && *cert_file)
        json_object_del(body, "client-certificate-data");
    set_path(body, "client-key", key_file);
    if (key_file && *key_file)
        json_object_del(body, "client-key-data");
    /* A token hides a token file: setting one removes the other (both given: keep both,
     * the token wins when resolved). */
    set_path(body, "tokenFile", token_file);
    if (token_file && *token_file && !token)
        json_object_del(body, "token");
    set_str(body, "token", token);
    if (token && *token && !token_file)
        json_object_del(body, "tokenFile");
    return 0;
}

int nd_config_delete_context(struct nd_config *cfg, const char *name, struct nd_status *st)
{
    if (need_name(name, "context", st) < 0)
        return -1;
    long i = cfg_find(cfg->doc, &cfg_contexts, name);
    if (i < 0)
        return nd_status_set(st, "Usage", "list the contexts: nodus config get-contexts",
                             "context \"%s\" does not exist", name);
    json_array_remove(json_object_get(cfg->doc, "contexts"), (size_t)i);
    const char *cur = nd_config_current_context(cfg);
    if (cur && strcmp(cur, name) == 0) {
        json_object_del(cfg->doc, "current-context");
        return 1;
    }
    return 0;
}
