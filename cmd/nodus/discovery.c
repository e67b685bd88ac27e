/* The discovery cache of the CLI; see discovery.h. */
#include "discovery.h"
#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kinds/registry.h"
#include "client/client.h"
#include "json/json.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* A cache file larger than this is not read (the OpenAPI document is ~250 KiB). */
#define MAX_CACHE_BYTES (64u << 20)
/* Longer escaped paths are not cached (file names stop at 255 bytes). */
#define MAX_NAME 200

static bool plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-';
}

/* NEW name of the cache file of path on server, or NULL when there is no cache. */
static char *cache_file(const char *server, const char *path)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "%s/.nodus/cache/discovery/", home);
    const char *host = strstr(server, "://");
    host = host ? host + 3 : server;
    size_t n = strlen(host);
    while (n > 0 && host[n - 1] == '/')
        n--;
    for (size_t i = 0; i < n; i++)
        nd_buf_addch(&b, plain_char(host[i]) ? host[i] : '_');
    nd_buf_addch(&b, '/');
    size_t start = b.len;
    const char *p = path;
    while (*p == '/')
        p++;
    if (!*p)
        nd_buf_addch(&b, '_');
    for (; *p; p++) {
        if (plain_char(*p))
            nd_buf_addch(&b, *p);
        else if (*p == '/')
            nd_buf_addch(&b, '_');
        else
            nd_buf_addf(&b, "%%%02X", (unsigned char)*p);
    }
    if (b.len - start > MAX_NAME) {
        nd_buf_release(&b);
        return NULL;
    }
    nd_buf_adds(&b, ".json");
    return nd_buf_detach(&b);
}

/* The cached entry, or NULL when there is none or it is not one ({fetched: integer,
 * body: object or array, etag: string when present}). NEW. */
static json_t *read_cache(const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    json_t *entry = NULL;
    struct nd_buf data;
    nd_buf_init(&data, MAX_CACHE_BYTES);
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > MAX_CACHE_BYTES)
        goto out;
    nd_buf_grow(&data, (size_t)sb.st_size);
    if (nd_buf_read_fd(&data, fd) < 0)
        goto out;
    struct nd_status st = ND_STATUS_INIT;
    entry = nd_json_load(data.data, data.len, file, &st);
    if (!entry)
        nd_log(6, "ignoring the discovery cache %s: %s", file, st.message);
    nd_status_release(&st);
    if (entry) {
        json_t *body = json_object_get(entry, "body");
        json_t *etag = json_object_get(entry, "etag");
        if (!json_is_object(entry) || !json_is_integer(json_object_get(entry, "fetched")) ||
            !(json_is_object(body) || json_is_array(body)) || (etag && !json_is_string(etag))) {
            nd_log(6, "ignoring the discovery cache %s: not a cache entry", file);
            json_decref(entry);
            entry = NULL;
        }
    }
out:
    nd_buf_release(&data);
    close(fd);
    return entry;
}

/* Creates the directories of file (mode 0700) below and including $HOME/.nodus. */
static int make_dirs(const char *file)
{
    char *dir = nd_xstrdup(file);
    const char *home = getenv("HOME");
    size_t skip = home ? strlen(home) : 0;
    int rc = 0;
    for (char *p = dir + skip + 1; *p && rc == 0; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    free(dir);
    return rc;
}

/* Writes entry to file through a temporary file and a rename, so a reader never sees
 * half of it. Failing is not an error: the cache is only a cache. */
static void write_cache(const char *file, const json_t *entry)
{
    struct nd_buf text = ND_BUF_INIT;
    char *tmp = nd_xasprintf("%s.tmp.%ld", file, (long)getpid());
    int fd = -1;
    if (make_dirs(file) < 0 || nd_json_dump(entry, &text, ND_JSON_COMPACT) < 0)
        goto fail;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        goto fail;
    for (size_t off = 0; off < text.len;) {
        ssize_t w = write(fd, text.data + off, text.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto fail;
        off += (size_t)w;
    }
    if (close(fd) < 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, file) < 0)
        goto fail;
    goto out;
fail:
    nd_log(6, "cannot write the discovery cache %s: %s", file, strerror(errno));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
out:
    free(tmp);
    nd_buf_release(&text);
}

static bool is_fresh(const json_t *entry, int flags, int64_t now)
{
    if (flags & ND_DISCOVERY_STALE_OK || json_is_true(json_object_get(entry, "immutable")))
        return true;
    int64_t fetched = json_integer_value(json_object_get(entry, "fetched"));
    return now >= fetched && now - fetched < ND_DISCOVERY_TTL;
}

int nd_discovery_get(struct nd_ctx *ctx, const char *path, json_t **out, struct nd_status *st)
{
    return nd_discovery_get_flags(ctx, path, 0, out, st);
}

int nd_discovery_get_flags(struct nd_ctx *ctx, const char *path, int flags, json_t **out,
                           struct nd_status *st)
{
    *out = NULL;
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    char *file = cache_file(nd_client_server(c), path);
    json_t *entry = file ? read_cache(file) : NULL;
    int64_t now = (int64_t)time(NULL);
    int rc = -1;
    char *inm = NULL;
    struct nd_response resp;
    nd_response_init(&resp);
    if (entry && is_fresh(entry, flags, now)) {
        nd_log(7, "GET %s answered from the discovery cache %s", path, file);
        *out = json_incref(json_object_get(entry, "body"));
        rc = 0;
        goto out;
    }
    const char *etag = json_string_value(json_object_get(entry, "etag"));
    if (etag && *etag && !strpbrk(etag, "\r\n"))
        inm = nd_xasprintf("If-None-Match: %s", etag);
    const char *headers[] = {inm, NULL};
    struct nd_request req = {
        .method = "GET",
        .path = path,
        .accept = "application/json",
        .headers = headers,
        .no_retry = (flags & ND_DISCOVERY_NO_RETRY) != 0,
    };
    if (nd_client_do(c, &req, &resp, st) < 0)
        goto out;
    nd_cli_warnings(resp.headers);
    if (resp.code == 304 && entry) {
        json_object_set_new(entry, "fetched", json_integer(now));
    } else if (resp.code >= 200 && resp.code <= 299) {
        json_t *body = nd_json_load(resp.body.data, resp.body.len, NULL, st);
        if (!body || !(json_is_object(body) || json_is_array(body))) {
            char *why = nd_xstrdup(body ? "not an object" : st->message);
            nd_status_set(st, "InternalError", NULL,
                          "malformed answer from the server to GET %s: %s", path, why);
            free(why);
            json_decref(body);
            goto out;
        }
        json_decref(entry);
        entry = json_object();
        const char *new_etag = nd_response_header(&resp, "etag");
        if (new_etag && *new_etag)
            json_object_set_new(entry, "etag", json_string(new_etag));
        json_object_set_new(entry, "fetched", json_integer(now));
        const char *cc = nd_response_header(&resp, "cache-control");
        if (cc && strstr(cc, "immutable"))
            json_object_set_new(entry, "immutable", json_true());
        json_object_set_new(entry, "body", body);
    } else {
        nd_response_status(&resp, st);
        if (resp.code == 304)
            nd_status_set(st, "InternalError", NULL,
                          "the server answered GET %s with 304 Not Modified to no If-None-Match",
                          path);
        goto out;
    }
    if (file)
        write_cache(file, entry);
    *out = json_incref(json_object_get(entry, "body"));
    rc = 0;
out:
    nd_response_release(&resp);
    json_decref(entry);
    free(inm);
    free(file);
    return rc;
}

/* ---- resources and versions ---- */

static int malformed(struct nd_status *st, const char *path, const char *what)
{
    return nd_status_set(st, "InternalError", NULL,
                         "malformed discovery document from the server at %s: %s", path, what);
}

/* The groups of /api (the core group: its versions, the first preferred) and /apis.
 * NEW array of {name, versions, preferred} objects. */
static json_t *groups(struct nd_ctx *ctx, int flags, struct nd_status *st)
{
    json_t *api = NULL, *apis = NULL, *out = NULL;
    if (nd_discovery_get_flags(ctx, "/api", flags, &api, st) < 0)
        goto out;
    json_t *versions = json_object_get(api, "versions");
    if (!json_is_array(versions)) {
        malformed(st, "/api", "versions is not a list");
        goto out;
    }
    if (nd_discovery_get_flags(ctx, "/apis", flags, &apis, st) < 0)
        goto out;
    json_t *list = json_object_get(apis, "groups");
    if (!json_is_array(list)) {
        malformed(st, "/apis", "groups is not a list");
        goto out;
    }
    out = json_array();
    json_t *core = json_pack("{s:s, s:[]}", "name", "", "versions");
    size_t i;
    json_t *v;
    json_array_foreach(versions, i, v)
    {
        if (!json_is_string(v) || !*json_string_value(v)) {
            malformed(st, "/api", "versions holds something other than a version");
            json_decref(core);
            goto fail;
        }
        json_array_append(json_object_get(core, "versions"), v);
    }
    if (json_array_size(versions))
        json_object_set(core, "preferred", json_array_get(versions, 0));
    json_array_append_new(out, core);
    json_t *g;
    json_array_foreach(list, i, g)
    {
        const char *name = json_string_value(json_object_get(g, "name"));
        json_t *gv = json_object_get(g, "versions");
        if (!name || !*name || !json_is_array(gv)) {
            malformed(st, "/apis", "a group without a name or versions");
            goto fail;
        }
        json_t *entry = json_pack("{s:s, s:[]}", "name", name, "versions");
        size_t j;
        json_t *ver;
        json_array_foreach(gv, j, ver)
        {
            const char *vs = json_string_value(json_object_get(ver, "version"));
            if (vs && *vs)
                json_array_append_new(json_object_get(entry, "versions"), json_string(vs));
        }
        const char *pref =
            json_string_value(json_object_get(json_object_get(g, "preferredVersion"), "version"));
        if (!pref)
            pref = json_string_value(json_array_get(json_object_get(entry, "versions"), 0));
        if (pref)
            json_object_set_new(entry, "preferred", json_string(pref));
        json_array_append_new(out, entry);
    }
    goto out;
fail:
    json_decref(out);
    out = NULL;
out:
    json_decref(api);
    json_decref(apis);
    return out;
}

json_t *nd_discovery_resources(struct nd_ctx *ctx, int flags, struct nd_status *st)
{
    json_t *gs = groups(ctx, flags, st);
    if (!gs)
        return NULL;
    json_t *out = json_array();
    json_t *index = json_object(); /* "group/resource" -> position in out */
    size_t i;
    json_t *g;
    json_array_foreach(gs, i, g)
    {
        const char *group = json_string_value(json_object_get(g, "name"));
        const char *pref = json_string_value(json_object_get(g, "preferred"));
        size_t j;
        json_t *ver;
        json_array_foreach(json_object_get(g, "versions"), j, ver)
        {
            const char *version = json_string_value(ver);
            struct nd_buf path = ND_BUF_INIT, gvs = ND_BUF_INIT;
            if (*group) {
                nd_buf_adds(&path, "/apis/");
                nd_buf_add_urlencoded(&path, group);
                nd_buf_addf(&gvs, "%s/%s", group, version);
            } else {
                nd_buf_adds(&path, "/api");
                nd_buf_adds(&gvs, version);
            }
            nd_buf_addch(&path, '/');
            nd_buf_add_urlencoded(&path, version);
            json_t *list = NULL;
            int rc = nd_discovery_get_flags(ctx, path.data, flags, &list, st);
            json_t *resources = json_object_get(list, "resources");
            if (rc == 0 && !json_is_array(resources))
                rc = malformed(st, path.data, "resources is not a list");
            size_t k;
            json_t *r;
            json_array_foreach(resources, k, r)
            {
                const char *name = json_string_value(json_object_get(r, "name"));
                if (rc < 0)
                    break;
                if (!json_is_object(r) || !name || !*name ||
                    !json_is_string(json_object_get(r, "kind"))) {
                    rc = malformed(st, path.data, "a resource without a name or kind");
                    break;
                }
                if (strchr(name, '/'))
                    continue; /* a subresource */
                char *key = nd_xasprintf("%s/%s", group, name);
                json_t *at = json_object_get(index, key);
                bool preferred = pref && strcmp(pref, version) == 0;
                if (!at || preferred) {
                    json_t *copy = json_deep_copy(r);
                    json_object_set_new(copy, "group", json_string(group));
                    json_object_set_new(copy, "version", json_string(version));
                    json_object_set_new(copy, "groupVersion", json_string(gvs.data));
                    if (at) {
                        json_array_set_new(out, (size_t)json_integer_value(at), copy);
                    } else {
                        json_object_set_new(index, key,
                                            json_integer((json_int_t)json_array_size(out)));
                        json_array_append_new(out, copy);
                    }
                }
                free(key);
            }
            json_decref(list);
            nd_buf_release(&path);
            nd_buf_release(&gvs);
            if (rc < 0) {
                json_decref(out);
                out = NULL;
                goto out;
            }
        }
    }
out:
    json_decref(index);
    json_decref(gs);
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *nd_discovery_group_versions(struct nd_ctx *ctx, int flags, struct nd_status *st)
{
    json_t *gs = groups(ctx, flags, st);
    if (!gs)
        return NULL;
    json_t *names = json_array();
    size_t i;
    json_t *g;
    json_array_foreach(gs, i, g)
    {
        const char *group = json_string_value(json_object_get(g, "name"));
        size_t j;
        json_t *ver;
        json_array_foreach(json_object_get(g, "versions"), j, ver)
        {
            if (*group)
                json_array_append_new(names, json_sprintf("%s/%s", group, json_string_value(ver)));
            else
                json_array_append(names, ver);
        }
    }
    size_t n = json_array_size(names);
    const char **v = nd_xcalloc(n ? n : 1, sizeof *v);
    for (i = 0; i < n; i++)
        v[i] = json_string_value(json_array_get(names, i));
    qsort(v, n, sizeof *v, cmp_str);
    json_t *out = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(out, json_string(v[i]));
    free(v);
    json_decref(names);
    json_decref(gs);
    return out;
}

/* ---- the resource an argument names ---- */

/* s split at every '.' (Go's strings.Split). NEW strings in a NEW array. */
static char **split_dots(const char *s, size_t *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == '.';
    char **v = nd_xcalloc(cap, sizeof *v);
    *n = 0;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        v[(*n)++] = nd_xstrndup(s, len);
        if (!dot)
            break;
        s = dot + 1;
    }
    return v;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* A string member, or "". BORROWED. */
static const char *member(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static bool same_name(const json_t *r, const char *key, const char *name)
{
    const char *s = json_string_value(json_object_get(r, key));
    return s && *s && !strcasecmp(s, name);
}

/* As kubectl's RESTMapper: the plural, the singular, a short name or the Kind, in any
 * case. */
static bool matches(const json_t *r, const char *name)
{
    if (same_name(r, "name", name) || same_name(r, "singularName", name) ||
        same_name(r, "kind", name))
        return true;
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(r, "shortNames"), i, s)
    {
        if (json_is_string(s) && !strcasecmp(json_string_value(s), name))
            return true;
    }
    return false;
}

json_t *nd_discovery_builtin_resources(void)
{
    json_t *out = json_array();
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        json_t *shorts = json_array();
        for (const char *const *s = k->short_names; s && *s; s++)
            json_array_append_new(shorts, json_string(*s));
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "name", k->plural,
                                        "singularName", k->singular, "kind", k->kind, "shortNames",
                                        shorts, "group", k->group, "version", k->version));
    }
    return out;
}

int nd_discovery_resolve(const json_t *resources, const char *arg, bool plain,
                         struct nd_resource_ref *g, struct nd_status *st)
{
    memset(g, 0, sizeof *g);
    char *input = nd_xstrdup(arg);
    size_t len = strlen(input);
    if (len && input[len - 1] == '.')
        input[--len] = '\0';
    size_t nparts;
    char **parts = split_dots(input, &nparts);
    json_t *cands = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(resources, i, r)
    {
        if (matches(r, parts[0]))
            json_array_append(cands, r);
    }
    const struct nd_kind *k = json_array_size(cands) ? NULL : nd_kind_lookup(parts[0]);
    json_array_foreach(resources, i, r)
    {
        if (!k)
            break;
        const char *group = json_string_value(json_object_get(r, "group"));
        if (group && !strcmp(group, k->group) && same_name(r, "name", k->plural))
            json_array_append(cands, r);
    }
    int rc = -1;
    if (!json_array_size(cands)) {
        nd_resolve_unknown_served(resources, parts[0], st);
        goto out;
    }
    const json_t *chosen = NULL;
    const char *suffix = NULL;
    json_array_foreach(cands, i, r)
    {
        if (plain)
            break;
        const char *group = member(r, "group");
        char *gr = *group ? nd_xasprintf("%s.%s", member(r, "name"), group)
                          : nd_xstrdup(member(r, "name"));
        bool prefix = !strncmp(input, gr, strlen(gr));
        if (prefix)
            suffix = input + strlen(gr);
        free(gr);
        if (prefix) {
            chosen = r;
            break;
        }
    }
    if (chosen && *suffix) {
        size_t ns;
        char **sp = split_dots(suffix, &ns);
        free(sp[0]);
        memmove(sp, sp + 1, (ns - 1) * sizeof *sp);
        g->fields = sp;
        g->nfields = ns - 1;
    } else if (!chosen) {
        chosen = json_array_get(cands, 0);
        g->fields = nd_xcalloc(nparts, sizeof *g->fields);
        for (size_t j = 1; j < nparts; j++)
            g->fields[g->nfields++] = nd_xstrdup(parts[j]);
    }
    g->group = nd_xstrdup(member(chosen, "group"));
    g->version = nd_xstrdup(member(chosen, "version"));
    g->resource = nd_xstrdup(member(chosen, "name"));
    rc = 0;
out:
    json_decref(cands);
    free_strings(parts, nparts);
    free(input);
    return rc;
}

void nd_resource_ref_release(struct nd_resource_ref *r)
{
    free(r->group);
    free(r->version);
    free(r->resource);
    free_strings(r->fields, r->nfields);
    memset(r, 0, sizeof *r);
}
