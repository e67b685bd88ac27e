/* internal.h: helpers shared by the files of pkg/config (not part of the API). */
#ifndef ND_CONFIG_INTERNAL_H
#define ND_CONFIG_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "config/config.h"
#include "util/buf.h"

/* The three named lists of a Config and the key of each entry's body. */
struct cfg_list {
    const char *list;  /* "clusters" */
    const char *inner; /* "cluster" */
};

extern const struct cfg_list cfg_clusters, cfg_users, cfg_contexts;

/* Index of the entry called name in doc[list], or -1. */
long cfg_find(const json_t *doc, const struct cfg_list *l, const char *name);
/* The body (doc[list][i][inner]) of entry i. BORROWED. */
json_t *cfg_body(const json_t *doc, const struct cfg_list *l, size_t i);
/* A string member of obj, or NULL when absent, not a string or empty. BORROWED. */
const char *cfg_str(const json_t *obj, const char *key);

/* Decodes base64 text into PEM text: 0, or -1 when s is not base64 or the decoded
 * bytes hold a NUL (out is then left empty). */
int cfg_decode_pem(const char *s, struct nd_buf *out);

/* Appends path to out, made absolute against dir (when path is relative and dir not
 * NULL) with "." segments dropped. */
void cfg_join(struct nd_buf *out, const char *dir, const char *path);

/* NEW absolute form of path, made so against the working directory (kept relative when
 * that cannot be known), "." segments dropped. */
char *cfg_absolute(const char *path);

#endif
