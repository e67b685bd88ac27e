/* config.h: kubeconfig-format configuration of the nodus CLI.
 *
 * The file is chosen as: an explicit path (--kubeconfig), else $NODUS_CONFIG, else
 * ~/.nodus/config when it exists, else the first entry of $KUBECONFIG (a ':'-separated
 * list, as kubectl writes to the first) when that file exists, else ~/.nodus/config (so
 * `nodus config set-...` creates it). Empty values count as unset. A missing file is an
 * empty configuration (exists false), not an error; so is an empty file.
 *
 * Format: kubectl's (apiVersion v1, kind Config, clusters, users, contexts,
 * current-context, preferences), read as YAML (or JSON). The document is checked when
 * read: clusters, users and contexts are lists of {name, cluster|user|context} with
 * unique non-empty names and mapping bodies; the fields nodus reads have their types
 * (strings; insecure-skip-tls-verify a boolean; the *-data fields base64 of PEM text).
 * Fields nodus does not know are kept. Missing apiVersion, kind, preferences and lists
 * are filled in (v1, Config, {}, []), so an empty configuration is that document.
 * It is written back with sorted keys, as kubectl writes it.
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
    char *context; /* the context used, or NULL */
    char *cluster;
    char *user;
    char *server; /* required to talk to anything */
    char *token;  /* from the user's token or tokenFile */
    char *ca_file;
    char *ca_data; /* decoded PEM text */
    bool insecure;
    char *cert_file, *key_file;
    char *cert_data, *key_data; /* decoded PEM text */
    char *namespace;            /* ov->namespace, the context's, or "default" */
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

/* Picks and reads the file into cfg (which needs no initialisation). -1 with st (Usage)
 * when the file exists but cannot be read, does not parse or is not a Config:
 *   error loading config file "PATH": line 3, column 5: mapping values are not allowed ...
 *   error loading config file "PATH": clusters[1].name: required
 * (the second also as a cause with the field). cfg is then empty; releasing it is safe.
 * Without HOME and with no file named, the configuration is empty and has no path
 * (flags and NODUS_SERVER may still name a server); nd_config_save then fails. */
int nd_config_load(struct nd_config *cfg, const char *explicit_path, struct nd_status *st);
void nd_config_release(struct nd_config *cfg);
/* Writes the document to cfg->path (through a symbolic link to its target) as YAML with
 * sorted keys, atomically: a temporary file in the same directory, fsync, rename. Missing
 * directories are created with mode 0700, the file gets mode 0600. -1 with st (Usage,
 * naming the file and the system's error). */
int nd_config_save(const struct nd_config *cfg, struct nd_status *st);

/* Resolves the current (or overridden) context into out (which needs no initialisation;
 * on -1 it is left empty). ov may be NULL; empty strings in it count as not given.
 *   context: ov->context, else current-context; none at all is fine when a server is
 *            given by ov->server or NODUS_SERVER.
 *   server:  ov->server, else $NODUS_SERVER, else the cluster's.
 *   token:   ov->token, else $NODUS_TOKEN, else the user's token, else the contents of
 *            its tokenFile without surrounding white space.
 *   TLS:     ov->insecure or ov->ca_file replace the cluster's three settings (kubectl);
 *            else certificate-authority, certificate-authority-data (decoded) and
 *            insecure-skip-tls-verify. Client certificate/key files and -data likewise.
 *   namespace: ov->namespace, else the context's, else "default".
 * Relative paths in the file (certificate-authority, client-certificate, client-key,
 * tokenFile) are relative to the file's directory and come out absolute; paths given in
 * ov are passed on as they are. -1 with st (Usage):
 *   context "x" does not exist
 *   context "x": cluster "c" does not exist          (likewise user "u")
 *   cluster "c" has no server: run nodus config set-cluster c --server URL, or set NODUS_SERVER
 *   no server configured: run nodus emulator start, or nodus config set-cluster NAME
 *     --server URL, or set NODUS_SERVER                (one line; no context and no server)
 *   user "u": cannot read tokenFile "PATH": No such file or directory
 *   clusters[0].cluster.certificate-authority-data: invalid base64 (or not PEM text) */
int nd_config_resolve(const struct nd_config *cfg, const struct nd_overrides *ov,
                      struct nd_target *out, struct nd_status *st);
void nd_target_release(struct nd_target *t);

/* The current context's name, or NULL when unset or empty. BORROWED. */
const char *nd_config_current_context(const struct nd_config *cfg);
/* NEW array of context names, in file order. */
json_t *nd_config_context_names(const struct nd_config *cfg);
/* The body of the entry called name in list ("clusters", "users" or "contexts"): the
 * {server: ...} of a cluster and so on. BORROWED, or NULL when there is none. */
json_t *nd_config_get(const struct nd_config *cfg, const char *list, const char *name);

/* The emulator a cluster stands for: the state directory `nodus emulator start` records
 * with the cluster it writes (the cluster's extension "emulator.nodus.dev", kept by
 * kubectl), or NULL when it records none (a cluster of another server, or one written
 * before nodus recorded it). _context: that of the context's cluster. BORROWED. */
const char *nd_config_cluster_emulator(const struct nd_config *cfg, const char *cluster);
const char *nd_config_context_emulator(const struct nd_config *cfg, const char *context);
/* Records dir as the state directory of the cluster's emulator (the cluster exists:
 * else -1 with st, Usage). */
int nd_config_set_cluster_emulator(struct nd_config *cfg, const char *cluster, const char *dir,
                                   struct nd_status *st);

/* Edits, for `nodus config` (kubectl config's semantics), on cfg->doc only (save after).
 * Each returns 0, or -1 with st (Usage) for an empty name ("a cluster name is
 * required") or a missing context ("context \"x\" does not exist").
 * set-*: create the named entry at the end of its list, or update it in place keeping
 * its other fields and the order of entries. A string argument NULL leaves its field,
 * "" removes it. File paths are stored absolute (made so against the working
 * directory). As kubectl: insecure 1 removes the CA settings, a CA file removes the CA
 * data and insecure mode, a client certificate/key file removes its -data field.
 * A token removes tokenFile and a tokenFile removes token (both given: both are set,
 * the token wins when resolved). */
int nd_config_use_context(struct nd_config *cfg, const char *name, struct nd_status *st);
int nd_config_set_context(struct nd_config *cfg, const char *name, const char *cluster,
                          const char *user, const char *namespace, struct nd_status *st);
int nd_config_set_cluster(struct nd_config *cfg, const char *name, const char *server,
                          const char *ca_file, int insecure /* 1 set, 0 clear, -1 leave */,
                          struct nd_status *st);
int nd_config_set_credentials(struct nd_config *cfg, const char *name, const char *token,
                              const char *token_file, const char *cert_file, const char *key_file,
                              struct nd_status *st);
/* Removes a context: 1 when it was the current one (current-context is then removed,
 * and the caller warns as kubectl does), 0 otherwise, -1 with st when it is missing. */
int nd_config_delete_context(struct nd_config *cfg, const char *name, struct nd_status *st);

#endif
