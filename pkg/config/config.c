/* config.c: choosing, reading, checking and writing the configuration file.
 *
 * The document is checked once, when it is read, so that every other function can trust
 * its shape: the three lists are arrays of {name, <body>} with unique non-empty names,
 * the bodies are mappings and the fields nodus reads have their types (base64 fields
 * decode). Fields nodus does not know are kept as they are and written back.
 */
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/internal.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

/* A configuration file larger than this is refused rather than read. */
#define MAX_CONFIG_BYTES (16u << 20)

const struct cfg_list cfg_clusters = {"clusters", "cluster"};
const struct cfg_list cfg_users = {"users", "user"};
const struct cfg_list cfg_contexts = {"contexts", "context"};

/* ---- small helpers shared with resolve.c and edit.c ---- */

const char *cfg_str(const json_t *obj, const char *key)
{
    const char *s = obj ? json_string_value(json_object_get(obj, key)) : NULL;
    return s && *s ? s : NULL;
}

long cfg_find(const json_t *doc, const struct cfg_list *l, const char *name)
{
    const json_t *arr = json_object_get(doc, l->list);
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && strcmp(n, name) == 0)
            return (long)i;
    }
    return -1;
}

json_t *cfg_body(const json_t *doc, const struct cfg_list *l, size_t i)
{
    return json_object_get(json_array_get(json_object_get(doc, l->list), i), l->inner);
}

int cfg_decode_pem(const char *s, struct nd_buf *out)
{
    if (nd_base64_decode(s, strlen(s), out) < 0 || memchr(out->data, '\0', out->len)) {
        nd_buf_reset(out);
        return -1;
    }
    return 0;
}

void cfg_join(struct nd_buf *out, const char *dir, const char *path)
{
    size_t start = out->len;
    if (path[0] != '/' && dir && *dir) {
        nd_buf_adds(out, dir);
        if (out->len > start && out->data[out->len - 1] != '/')
            nd_buf_addch(out, '/');
    }
    /* Copy path without its "." segments and repeated slashes ("./ca.pem" -> "ca.pem"). */
    const char *p = path;
    if (*p == '/' && out->len == start) {
        nd_buf_addch(out, '/');
    }
    while (*p) {
        while (*p == '/')
            p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && !(n == 1 && p[0] == '.')) {
            if (out->len > start && out->data[out->len - 1] != '/')
                nd_buf_addch(out, '/');
            nd_buf_add(out, p, n);
        }
        p += n;
    }
    if (out->len == start)
        nd_buf_addch(out, '.');
}

char *cfg_absolute(const char *path)
{
    struct nd_buf cwd = ND_BUF_INIT, out = ND_BUF_INIT;
    if (path[0] != '/') {
        for (size_t n = 256; n <= (1u << 20); n *= 2) {
            nd_buf_reset(&cwd);
            nd_buf_grow(&cwd, n);
            if (getcwd(cwd.data, n)) {
                cwd.len = strlen(cwd.data);
                break;
            }
            cwd.data[0] = '\0';
            if (errno != ERANGE)
                break; /* keep the path relative: nothing better to do */
        }
    }
    cfg_join(&out, cwd.len ? cwd.data : NULL, path);
    nd_buf_release(&cwd);
    return nd_buf_detach(&out);
}

/* ---- choosing the file ---- */

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The first non-empty entry of $KUBECONFIG, NEW, or NULL. */
static char *kubeconfig_first(void)
{
    const char *list = getenv("KUBECONFIG");
    if (!list)
        return NULL;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0)
            return nd_xstrndup(p, n);
        p += n + (end ? 1 : 0);
    }
    return NULL;
}

/* NEW path of the file to use, or NULL with st when there is no home to put it in. */
static char *choose_path(const char *explicit_path, struct nd_status *st)
{
    if (explicit_path && *explicit_path)
        return nd_xstrdup(explicit_path);
    const char *env = getenv("NODUS_CONFIG");
    if (env && *env)
        return nd_xstrdup(env);
    const char *home = getenv("HOME");
    char *own = home && *home ? nd_xasprintf("%s/.nodus/config", home) : NULL;
    if (own && is_file(own))
        return own;
    char *kube = kubeconfig_first();
    if (kube && (is_file(kube) || !own)) {
        free(own);
        return kube;
    }
    free(kube);
    (void)st;
    return own; /* NULL without HOME: an empty configuration, which cannot be saved */
}

/* ---- checking the document ---- */

enum ftype { F_STR, F_BOOL, F_B64 };

struct frule {
    const char *key;
    enum ftype type;
};

static const struct frule cluster_rules[] = {
    {"server", F_STR},
    {"certificate-authority", F_STR},
    {"certificate-authority-data", F_B64},
    {"insecure-skip-tls-verify", F_BOOL},
    {"tls-server-name", F_STR},
    {"proxy-url", F_STR},
    {NULL, F_STR},
};

static const struct frule user_rules[] = {
    {"token", F_STR},
    {"tokenFile", F_STR},
    {"client-certificate", F_STR},
    {"client-key", F_STR},
    {"client-certificate-data", F_B64},
    {"client-key-data", F_B64},
    {"username", F_STR},
    {"password", F_STR},
    {NULL, F_STR},
};

static const struct frule context_rules[] = {
    {"cluster", F_STR},
    {"user", F_STR},
    {"namespace", F_STR},
    {NULL, F_STR},
};

/* What is wrong and where: field is a path such as "clusters[1].name". */
struct problem {
    struct nd_buf field;
    const char *reason;
    const char *msg;
};

static int bad(struct problem *p, const char *reason, const char *msg, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(struct problem *p, const char *reason, const char *msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&p->field, fmt, ap);
    va_end(ap);
    p->reason = reason;
    p->msg = msg;
    return -1;
}

static int check_fields(const json_t *body, const struct frule *rules, const char *at,
                        struct problem *p)
{
    for (const struct frule *r = rules; r->key; r++) {
        const json_t *v = json_object_get(body, r->key);
        if (!v || json_is_null(v))
            continue;
        if (r->type == F_BOOL && !json_is_boolean(v))
            return bad(p, "FieldValueInvalid", "must be a boolean", "%s.%s", at, r->key);
        if (r->type != F_BOOL && !json_is_string(v))
            return bad(p, "FieldValueInvalid", "must be a string", "%s.%s", at, r->key);
        if (r->type == F_B64) {
            struct nd_buf pem = ND_BUF_INIT;
            int rc = cfg_decode_pem(json_string_value(v), &pem);
            nd_buf_release(&pem);
            if (rc < 0)
                return bad(p, "FieldValueInvalid", "invalid base64 (or not PEM text)", "%s.%s", at,
                           r->key);
        }
    }
    return 0;
}

/* Checks doc[l->list]; a missing or null list becomes []. */
static int check_list(json_t *doc, const struct cfg_list *l, const struct frule *rules,
                      struct problem *p)
{
    json_t *arr = json_object_get(doc, l->list);
    if (!arr || json_is_null(arr)) {
        json_object_set_new(doc, l->list, json_array());
        return 0;
    }
    if (!json_is_array(arr))
        return bad(p, "FieldValueInvalid", "must be a list", "%s", l->list);
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (!json_is_object(e))
            return bad(p, "FieldValueInvalid", "must be a mapping", "%s[%zu]", l->list, i);
        const json_t *name = json_object_get(e, "name");
        if (name && !json_is_null(name) && !json_is_string(name))
            return bad(p, "FieldValueInvalid", "must be a string", "%s[%zu].name", l->list, i);
        const char *n = json_string_value(name);
        if (!n || !*n)
            return bad(p, "FieldValueRequired", "required", "%s[%zu].name", l->list, i);
        if (cfg_find(doc, l, n) != (long)i)
            return bad(p, "FieldValueDuplicate", "duplicate name", "%s[%zu].name", l->list, i);
        const json_t *body = json_object_get(e, l->inner);
        if (!body || json_is_null(body))
            return bad(p, "FieldValueRequired", "required", "%s[%zu].%s", l->list, i, l->inner);
        if (!json_is_object(body))
            return bad(p, "FieldValueInvalid", "must be a mapping", "%s[%zu].%s", l->list, i,
                       l->inner);
        char *at = nd_xasprintf("%s[%zu].%s", l->list, i, l->inner);
        int rc = check_fields(body, rules, at, p);
        free(at);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Checks a whole document and fills in what a Config always has. */
static int check_doc(json_t *doc, struct problem *p)
{
    const json_t *v = json_object_get(doc, "apiVersion");
    if (v && !json_is_null(v) && !(json_is_string(v) && strcmp(json_string_value(v), "v1") == 0))
        return bad(p, "FieldValueNotSupported", "must be \"v1\"", "apiVersion");
    v = json_object_get(doc, "kind");
    if (v && !json_is_null(v) &&
        !(json_is_string(v) && strcmp(json_string_value(v), "Config") == 0))
        return bad(p, "FieldValueNotSupported", "must be \"Config\"", "kind");
    v = json_object_get(doc, "current-context");
    if (v && !json_is_null(v) && !json_is_string(v))
        return bad(p, "FieldValueInvalid", "must be a string", "current-context");
    v = json_object_get(doc, "preferences");
    if (v && !json_is_null(v) && !json_is_object(v))
        return bad(p, "FieldValueInvalid", "must be a mapping", "preferences");
    if (check_list(doc, &cfg_clusters, cluster_rules, p) < 0 ||
        check_list(doc, &cfg_users, user_rules, p) < 0 ||
        check_list(doc, &cfg_contexts, context_rules, p) < 0)
        return -1;
    if (!json_is_string(json_object_get(doc, "apiVersion")))
        json_object_set_new(doc, "apiVersion", json_string("v1"));
    if (!json_is_string(json_object_get(doc, "kind")))
        json_object_set_new(doc, "kind", json_string("Config"));
    if (!json_is_object(json_object_get(doc, "preferences")))
        json_object_set_new(doc, "preferences", json_object());
    if (json_is_null(json_object_get(doc, "current-context")))
        json_object_del(doc, "current-context");
    return 0;
}

/* ---- reading ---- */

/* Reads the whole file into b: 0, 1 when it does not exist, -1 with *err set. */
static int read_file(const char *path, struct nd_buf *b, int *err)
{
    /* MAX_CONFIG_BYTES itself is already too many */
    nd_buf_init(b, MAX_CONFIG_BYTES - 1);
    if (nd_buf_read_file(b, path) == 0)
        return 0;
    *err = errno;
    return errno == ENOENT ? 1 : -1;
}

static json_t *empty_doc(void)
{
    json_t *doc = json_object();
    struct problem p = {ND_BUF_INIT, NULL, NULL};
    check_doc(doc, &p); /* cannot fail on {}: it only fills in */
    nd_buf_release(&p.field);
    return doc;
}

int nd_config_load(struct nd_config *cfg, const char *explicit_path, struct nd_status *st)
{
    struct nd_buf text = ND_BUF_INIT;
    struct nd_status yst = ND_STATUS_INIT;
    struct problem p = {ND_BUF_INIT, NULL, NULL};
    json_t *docs = NULL;
    int rc = -1, err = 0;

    memset(cfg, 0, sizeof *cfg);
    cfg->path = choose_path(explicit_path, st);
    if (!cfg->path) {
        /* no HOME and no file named: flags and NODUS_SERVER may still say everything */
        cfg->doc = empty_doc();
        rc = 0;
        goto out;
    }
    int r = read_file(cfg->path, &text, &err);
    if (r < 0) {
        nd_status_set(st, "Usage", NULL, "error loading config file \"%s\": %s", cfg->path,
                      strerror(err));
        goto out;
    }
    if (r == 1) {
        cfg->doc = empty_doc();
        rc = 0;
        goto out;
    }
    cfg->exists = true;
    docs = nd_yaml_load_all(text.data, text.len, NULL, &yst);
    if (!docs) {
        nd_status_set(st, "Usage", NULL, "error loading config file \"%s\": %s", cfg->path,
                      yst.message ? yst.message : "malformed YAML");
        goto out;
    }
    if (json_array_size(docs) > 1) {
        nd_status_set(st, "Usage", NULL,
                      "error loading config file \"%s\": %zu YAML documents, expected one",
                      cfg->path, json_array_size(docs));
        goto out;
    }
    json_t *doc = json_array_get(docs, 0);
    if (!doc || json_is_null(doc)) {
        cfg->doc = empty_doc();
        rc = 0;
        goto out;
    }
    if (!json_is_object(doc)) {
        nd_status_set(st, "Usage", NULL,
                      "error loading config file \"%s\": the document is not a mapping", cfg->path);
        goto out;
    }
    if (check_doc(doc, &p) < 0) {
        nd_status_set(st, "Usage", NULL, "error loading config file \"%s\": %s: %s", cfg->path,
                      p.field.data, p.msg);
        nd_status_add_cause(st, p.reason, p.field.data, "%s", p.msg);
        goto out;
    }
    cfg->doc = json_incref(doc);
    rc = 0;
out:
    if (rc < 0) {
        if (cfg->path) /* the file's fault, not the choice's */
            nd_status_set_fix(st, "correct the file, or name another with --kubeconfig or "
                                  "NODUS_CONFIG");
        nd_config_release(cfg);
    }
    json_decref(docs);
    nd_buf_release(&text);
    nd_buf_release(&p.field);
    nd_status_release(&yst);
    return rc;
}

void nd_config_release(struct nd_config *cfg)
{
    free(cfg->path);
    json_decref(cfg->doc);
    cfg->path = NULL;
    cfg->doc = NULL;
    cfg->exists = false;
}

/* ---- writing ---- */

/* Creates every missing directory of dir with mode 0700 (mkdir -p). */
static int make_dirs(const char *dir, int *err)
{
    char *d = nd_xstrdup(dir);
    int rc = 0;
    for (char *p = d + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(d, 0700) < 0 && errno != EEXIST) {
            *err = errno;
            rc = -1;
            break;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    free(d);
    return rc;
}

/* NEW path of the file a chain of symbolic links ends at (path itself when it is not a
 * link), so that saving replaces the file and keeps the link, as an editor does. */
static char *follow_links(const char *path)
{
    char *cur = nd_xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat sb;
        if (lstat(cur, &sb) < 0 || !S_ISLNK(sb.st_mode))
            break;
        size_t cap = (size_t)sb.st_size + 1 > 256 ? (size_t)sb.st_size + 1 : 256;
        char *link = nd_xmalloc(cap + 1);
        ssize_t n = readlink(cur, link, cap);
        if (n < 0 || (size_t)n >= cap) {
            free(link);
            break;
        }
        link[n] = '\0';
        struct nd_buf next = ND_BUF_INIT;
        const char *slash = strrchr(cur, '/');
        if (link[0] != '/' && slash)
            nd_buf_add(&next, cur, (size_t)(slash - cur) + 1);
        nd_buf_adds(&next, link);
        free(link);
        free(cur);
        cur = nd_buf_detach(&next);
    }
    return cur;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int nd_config_save(const struct nd_config *cfg, struct nd_status *st)
{
    struct nd_buf text = ND_BUF_INIT, tmp = ND_BUF_INIT;
    char *target = NULL;
    int rc = -1, fd = -1, err = 0;
    const char *what = "write";
    bool made_tmp = false;

    if (!cfg->path) {
        nd_status_set(st, "Usage", "set HOME, or name a file with --kubeconfig or NODUS_CONFIG",
                      "no configuration file: HOME is not set");
        goto out;
    }
    if (nd_yaml_dump_flags(cfg->doc, &text, ND_YAML_SORT_KEYS, st) < 0)
        goto out;
    target = follow_links(cfg->path);
    const char *slash = strrchr(target, '/');
    if (slash && slash != target) {
        char *dir = nd_xstrndup(target, (size_t)(slash - target));
        int mrc = make_dirs(dir, &err);
        free(dir);
        if (mrc < 0) {
            what = "create the directory of";
            goto fail;
        }
    }
    nd_buf_addf(&tmp, "%s.XXXXXX", target);
    fd = mkstemp(tmp.data);
    if (fd < 0) {
        err = errno;
        goto fail;
    }
    made_tmp = true;
    if (fchmod(fd, 0600) < 0 || write_all(fd, text.data, text.len) < 0 || fsync(fd) < 0) {
        err = errno;
        goto fail;
    }
    int cfd = fd;
    fd = -1;
    if (close(cfd) < 0 || rename(tmp.data, target) < 0) {
        err = errno;
        goto fail;
    }
    rc = 0;
    goto out;
fail:
    nd_status_set(st, "Usage", NULL, "cannot %s config file \"%s\": %s", what, target,
                  strerror(err));
    if (made_tmp)
        unlink(tmp.data);
out:
    if (fd >= 0)
        close(fd);
    free(target);
    nd_buf_release(&tmp);
    nd_buf_release(&text);
    return rc;
}

/* ---- reading the document ---- */

const char *nd_config_current_context(const struct nd_config *cfg)
{
    return cfg_str(cfg->doc, "current-context");
}

json_t *nd_config_context_names(const struct nd_config *cfg)
{
    json_t *names = json_array();
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(cfg->doc, "contexts"), i, e)
        json_array_append(names, json_object_get(e, "name"));
    return names;
}

json_t *nd_config_get(const struct nd_config *cfg, const char *list, const char *name)
{
    const struct cfg_list *all[] = {&cfg_clusters, &cfg_users, &cfg_contexts};
    for (size_t k = 0; k < 3; k++) {
        if (strcmp(all[k]->list, list) != 0)
            continue;
        long i = cfg_find(cfg->doc, all[k], name);
        return i < 0 ? NULL : cfg_body(cfg->doc, all[k], (size_t)i);
    }
    return NULL;
}
