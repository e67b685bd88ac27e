/* config.h: kubeconfig-format configuration of the nodus CLI.
 *
 * The file is chosen as: an explicit path (--kubeconfig), else $NODUS_CONFIG, else
 * ~/.nodus/config, else $KUBECONFIG (its first path when it lists several, as kubectl
 * writes to the first). A missing file is an empty configuration (not an error).
 * Format: kubectl's (apiVersion v1, kind Config, clusters, users, contexts,
 * current-context), read and written as YAML with key order kept.
 */
#ifndef ND_CONFIG_H
#define ND_CONFIG_H

#include <jansson.h>
#include <stdbool.h>

#include "util/status.h"

struct nd_config {
    char *path;  /* the file read (and written by nd_config_save) */
    json_t *doc; /* the whole document (owned) */
    bool exists; /* the file existed */
};

/* What one context resolves to, after flags and environment overrides. Strings owned. */
struct nd_target {
    char *context;   /* the context used, or NULL */
    char *cluster;
    char *user;
    char *server;    /* required to talk to anything */
    char *token;     /* from the user's token or tokenFile */
    char *ca_file;
    char *ca_data;   /* decoded PEM text */
    bool insecure;
    char *cert_file, *key_file;
    char *cert_data, *key_data; /* decoded PEM text */
    char *namespace; /* the context's namespace, or "default" */
};

/* Overrides, highest first: flags, then NODUS_SERVER / NODUS_TOKEN, then the file. */
struct nd_overrides {
    const char *context;
    const char *server;
    const char *token;
    const char *namespace;
    const char *ca_file;
    bool insecure;
};

/* Picks and reads the file. -1 with st (Usage, naming the file and the YAML position)
 * when it exists but does not parse or is not a Config. */
int nd_config_load(struct nd_config *cfg, const char *explicit_path, struct nd_status *st);
void nd_config_release(struct nd_config *cfg);
/* Writes the document back atomically (creating ~/.nodus with mode 0700, file 0600). */
int nd_config_save(const struct nd_config *cfg, struct nd_status *st);

/* Resolves the current (or overridden) context. -1 with st (Usage) when a named context,
 * cluster or user is missing, or when no server is known ("no server: set one with
 * nodus config set-cluster ... or NODUS_SERVER"). */
int nd_config_resolve(const struct nd_config *cfg, const struct nd_overrides *ov,
                      struct nd_target *out, struct nd_status *st);
void nd_target_release(struct nd_target *t);

/* Edits, for `nodus config`: each fills a field only when given (NULL leaves it). */
const char *nd_config_current_context(const struct nd_config *cfg); /* BORROWED or NULL */
int nd_config_use_context(struct nd_config *cfg, const char *name, struct nd_status *st);
int nd_config_set_context(struct nd_config *cfg, const char *name, const char *cluster,
                          const char *user, const char *namespace, struct nd_status *st);
int nd_config_set_cluster(struct nd_config *cfg, const char *name, const char *server,
                          const char *ca_file, int insecure /* -1 leave */, struct nd_status *st);
int nd_config_set_credentials(struct nd_config *cfg, const char *name, const char *token,
                              const char *token_file, const char *cert_file,
                              const char *key_file, struct nd_status *st);
int nd_config_delete_context(struct nd_config *cfg, const char *name, struct nd_status *st);
/* NEW array of context names, in file order. */
json_t *nd_config_context_names(const struct nd_config *cfg);

#endif
