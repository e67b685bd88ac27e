/* Idempotency keys; see idempotency.h. */
#include "idempotency.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "fsutil.h"
#include "route.h"
#include "util/hash.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

#define KEEP_MS (24LL * 3600 * 1000)
/* The map key of an entry saved before keys were scoped (no "scope" in its file). */
#define LEGACY "legacy "

static char *fingerprint(const struct em_req *req)
{
    uint64_t h = ND_FNV64_INIT;
    h = nd_fnv64(h, req->method, strlen(req->method) + 1);
    h = nd_fnv64(h, req->path, strlen(req->path) + 1);
    char *q = json_dumps(req->query, JSON_COMPACT | JSON_SORT_KEYS);
    h = nd_fnv64(h, q, strlen(q) + 1);
    free(q);
    const char *ct = em_req_header(req, "content-type");
    if (ct)
        h = nd_fnv64(h, ct, strlen(ct) + 1);
    h = nd_fnv64(h, req->body.data, req->body.len);
    char hex[17];
    nd_hash_hex(h, hex);
    return nd_xstrdup(hex);
}

/* Who used a key: a digest of the token (never the token: the state directory is not
 * the token file), or "anonymous" without --token-file. */
static void scope_of(const struct em_identity *who, char out[65])
{
    if (!who || !who->token) {
        snprintf(out, 65, "anonymous");
        return;
    }
    char hex[65];
    nd_sha256_hex(who->token, strlen(who->token), hex);
    snprintf(out, 65, "token:%.32s", hex);
}

/* The project a request writes in ("" for cluster-scoped objects). */
static const char *project_of(const struct em_route *rt)
{
    return rt->target == EM_TO_API && rt->api.ns ? rt->api.ns : "";
}

/* The map key: "SCOPE PROJECT KEY" (a scope and a project hold no space). NEW. */
static char *scoped_key(const char *scope, const char *project, const char *key)
{
    return nd_xasprintf("%s %s %s", scope, project, key);
}

/* DIR/idempotency/<digest of the map key>.json; a legacy entry keeps its old name (the
 * FNV-1a of the key alone). NEW. */
static char *key_file(struct em_server *srv, const char *map_key)
{
    char hex[65];
    if (strncmp(map_key, LEGACY, strlen(LEGACY)) == 0) {
        const char *key = map_key + strlen(LEGACY);
        nd_hash_hex(nd_fnv64(ND_FNV64_INIT, key, strlen(key)), hex);
    } else {
        nd_sha256_hex(map_key, strlen(map_key), hex);
        hex[32] = '\0';
    }
    char *rel = nd_xasprintf("idempotency/%s.json", hex);
    char *path = em_store_path(&srv->store, rel);
    free(rel);
    return path;
}

void em_idem_load(struct em_server *srv)
{
    srv->idempotency = json_object();
    char *dir = em_store_path(&srv->store, "idempotency");
    em_mkdir_p(dir);
    DIR *d = opendir(dir);
    struct dirent *e;
    int64_t now = em_clock_now_ms(&srv->clock);
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = nd_xasprintf("%s/%s", dir, e->d_name);
        struct nd_buf b = ND_BUF_INIT;
        json_t *j = NULL;
        if (nd_buf_read_file(&b, path) == 0)
            j = json_loadb(b.data, b.len, 0, NULL);
        const char *key = json_string_value(json_object_get(j, "key"));
        const char *scope = json_string_value(json_object_get(j, "scope"));
        const char *project = json_string_value(json_object_get(j, "project"));
        json_int_t t = json_integer_value(json_object_get(j, "time"));
        if (key && t >= now - KEEP_MS && (!scope || project)) {
            /* an entry from before keys were scoped replays only the very same request
             * (em_idem_check) */
            char *mk = scope ? scoped_key(scope, project, key) : nd_xasprintf(LEGACY "%s", key);
            json_object_set(srv->idempotency, mk, j);
            free(mk);
        } else {
            unlink(path);
        }
        json_decref(j);
        nd_buf_release(&b);
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
}

int em_idem_check(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                  const struct em_identity *who, struct em_resp *resp)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key)
        return 0;
    char scope[65];
    scope_of(who, scope);
    char *mk = scoped_key(scope, project_of(rt), key);
    json_t *saved = json_object_get(srv->idempotency, mk);
    free(mk);
    bool legacy = false;
    if (!saved) {
        char *lk = nd_xasprintf(LEGACY "%s", key);
        saved = json_object_get(srv->idempotency, lk);
        free(lk);
        legacy = saved != NULL;
    }
    if (!saved)
        return 0;
    char *fp = fingerprint(req);
    bool same = strcmp(fp, json_string_value(json_object_get(saved, "fingerprint"))) == 0;
    free(fp);
    if (!same && legacy)
        return 0; /* whose it was is unknown: it tells nothing, and the request runs */
    if (!same) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "IdempotencyKeyReused", NULL,
                      "Idempotency-Key %s was already used for a different request", key);
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return 1;
    }
    resp->code = (int)json_integer_value(json_object_get(saved, "code"));
    nd_buf_reset(&resp->body);
    nd_buf_adds(&resp->body, json_string_value(json_object_get(saved, "body")));
    const char *ct = json_string_value(json_object_get(saved, "contentType"));
    em_resp_set_type(resp, ct ? ct : "application/json");
    const char *name;
    json_t *val;
    json_object_foreach(json_object_get(saved, "headers"), name, val)
        json_object_set(resp->headers, name, val);
    em_resp_set_header(resp, "Idempotent-Replayed", "true");
    return 1;
}

void em_idem_save(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                  const struct em_identity *who, const struct em_resp *resp)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key || resp->code >= 500 || resp->stream || resp->upgrade)
        return;
    char scope[65];
    scope_of(who, scope);
    const char *project = project_of(rt);
    char *mk = scoped_key(scope, project, key);
    if (json_object_get(srv->idempotency, mk)) {
        free(mk);
        return;
    }
    char *fp = fingerprint(req);
    json_t *headers = json_object();
    const char *name;
    json_t *val;
    json_object_foreach(resp->headers, name, val) {
        if (strcmp(name, "X-Request-Id") != 0)
            json_object_set(headers, name, val);
    }
    json_t *j = json_pack("{sssssssssIsisssssO}", "key", key, "scope", scope, "project",
                          project, "fingerprint", fp, "time",
                          (json_int_t)em_clock_now_ms(&srv->clock), "code", resp->code,
                          "contentType", resp->content_type ? resp->content_type : "application/json",
                          "body", resp->body.data, "headers", headers);
    free(fp);
    json_decref(headers);
    if (!j) {
        free(mk);
        return; /* a body that is not UTF-8 text cannot be kept; the request still ran */
    }
    json_object_set_new(srv->idempotency, mk, j);
    char *text = json_dumps(j, JSON_INDENT(2));
    char *path = key_file(srv, mk);
    struct nd_status st = ND_STATUS_INIT;
    em_store_write_file(&srv->store, path, text, strlen(text), &st);
    nd_status_release(&st);
    free(path);
    free(text);
    free(mk);
}

void em_idem_clear(struct em_server *srv)
{
    json_object_clear(srv->idempotency);
    char *dir = em_store_path(&srv->store, "idempotency");
    em_rm_rf(dir);
    em_mkdir_p(dir);
    free(dir);
}

void em_idem_expire(struct em_server *srv)
{
    int64_t now = em_clock_now_ms(&srv->clock);
    const char *key;
    json_t *j, *tmp;
    json_object_foreach_safe(srv->idempotency, tmp, key, j) {
        if (json_integer_value(json_object_get(j, "time")) >= now - KEEP_MS)
            continue;
        char *path = key_file(srv, key);
        unlink(path);
        free(path);
        json_object_del(srv->idempotency, key);
    }
}

void em_idem_forget(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                    const struct em_identity *who)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key)
        return;
    char scope[65];
    scope_of(who, scope);
    char *mk = scoped_key(scope, project_of(rt), key);
    if (json_object_get(srv->idempotency, mk)) {
        json_object_del(srv->idempotency, mk);
        char *path = key_file(srv, mk);
        unlink(path);
        free(path);
    }
    free(mk);
}
