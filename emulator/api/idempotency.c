/* Idempotency keys; see idempotency.h. */
#include "idempotency.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "fsutil.h"
#include "util/hash.h"
#include "util/xmalloc.h"

#define KEEP_MS (24LL * 3600 * 1000)

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

static char *key_file(struct em_server *srv, const char *key)
{
    char hex[17];
    nd_hash_hex(nd_fnv64(ND_FNV64_INIT, key, strlen(key)), hex);
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
        json_int_t t = json_integer_value(json_object_get(j, "time"));
        if (key && t >= now - KEEP_MS)
            json_object_set(srv->idempotency, key, j);
        else
            unlink(path);
        json_decref(j);
        nd_buf_release(&b);
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
}

int em_idem_check(struct em_server *srv, const struct em_req *req, struct em_resp *resp)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key)
        return 0;
    json_t *saved = json_object_get(srv->idempotency, key);
    if (!saved)
        return 0;
    char *fp = fingerprint(req);
    bool same = strcmp(fp, json_string_value(json_object_get(saved, "fingerprint"))) == 0;
    free(fp);
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

void em_idem_save(struct em_server *srv, const struct em_req *req, const struct em_resp *resp)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key || resp->code >= 500 || resp->stream || resp->upgrade)
        return;
    if (json_object_get(srv->idempotency, key))
        return;
    char *fp = fingerprint(req);
    json_t *headers = json_object();
    const char *name;
    json_t *val;
    json_object_foreach(resp->headers, name, val) {
        if (strcmp(name, "X-Request-Id") != 0)
            json_object_set(headers, name, val);
    }
    json_t *j = json_pack("{sssssIsisssssO}", "key", key, "fingerprint", fp, "time",
                          (json_int_t)em_clock_now_ms(&srv->clock), "code", resp->code,
                          "contentType", resp->content_type ? resp->content_type : "application/json",
                          "body", resp->body.data, "headers", headers);
    free(fp);
    json_decref(headers);
    if (!j)
        return; /* a body that is not UTF-8 text cannot be kept; the request still ran */
    json_object_set_new(srv->idempotency, key, j);
    char *text = json_dumps(j, JSON_INDENT(2));
    char *path = key_file(srv, key);
    struct nd_status st = ND_STATUS_INIT;
    em_store_write_file(&srv->store, path, text, strlen(text), &st);
    nd_status_release(&st);
    free(path);
    free(text);
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

void em_idem_forget(struct em_server *srv, const struct em_req *req)
{
    const char *key = em_req_header(req, "idempotency-key");
    if (!key || !*key || !json_object_get(srv->idempotency, key))
        return;
    json_object_del(srv->idempotency, key);
    char *path = key_file(srv, key);
    unlink(path);
    free(path);
}
