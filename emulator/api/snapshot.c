/* Snapshots: the whole state saved under a name and brought back.
 *
 *   POST /emulator/v1/snapshots/{name}          save (201; 200 replacing one of that name)
 *   POST /emulator/v1/snapshots/{name}/restore  bring it back
 *   GET  /emulator/v1/snapshots                 list them
 *   DELETE /emulator/v1/snapshots/{name}        forget one
 *
 * A snapshot is DIR/snapshots/<name>/: snapshot.json (every object, the clock, the time
 * taken) and copies of the files/ and logs/ trees. A restore writes the differences
 * through objects.c, so watchers see them as ADDED, MODIFIED and DELETED events with
 * new resourceVersions (which only ever grow); the clock goes back to the snapshot's
 * time so the simulation carries on from where it was. The price book is not part of
 * a snapshot (it is configuration, not state).
 */
#include "admin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"
#include "fsutil.h"
#include "json/json.h"
#include "objects.h"
#include "sim.h"
#include "util/time.h"
#include "util/validate.h"
#include "util/xmalloc.h"

static const char *const trees[] = {"files", "logs", NULL};

static int add_object(const struct nd_kind *k, const struct em_entry *e, void *out)
{
    json_array_append_new(out, json_pack("{sssO}", "plural", k->plural, "object", em_entry_obj(e)));
    return 0;
}

/* NEW array of {plural, object}: kind by kind, each in (project, name) order. */
static json_t *all_objects(struct em_server *srv)
{
    json_t *out = json_array();
    em_store_walk(&srv->store, NULL, NULL, add_object, out);
    return out;
}

static int save(struct em_server *srv, const char *name, struct em_resp *resp,
                struct nd_status *st)
{
    char *dir = nd_xasprintf("%s/snapshots/%s", srv->store.dir, name);
    char *tmp = nd_xasprintf("%s/snapshots/.%s.new", srv->store.dir, name);
    int rc = -1;
    struct stat sb;
    bool existed = stat(dir, &sb) == 0;
    em_rm_rf(tmp);
    if (em_mkdir_p(tmp) < 0) {
        em_store_io_status(&srv->store, st, errno, tmp);
        nd_status_prefix(st, "snapshot %s", name);
        goto out;
    }
    for (int i = 0; trees[i]; i++) {
        char *from = nd_xasprintf("%s/%s", srv->store.dir, trees[i]);
        char *to = nd_xasprintf("%s/%s", tmp, trees[i]);
        int c = em_copy_tree(from, to);
        int e = errno;
        free(from);
        free(to);
        if (c < 0) {
            char *what = nd_xasprintf("%s/%s", tmp, trees[i]);
            em_store_io_status(&srv->store, st, e, what);
            free(what);
            nd_status_prefix(st, "snapshot %s", name);
            goto out;
        }
    }
    char now[32];
    em_now_rfc3339(srv, now);
    json_t *objects = all_objects(srv);
    size_t count = json_array_size(objects);
    json_t *snap = json_pack("{sssssIsIso}", "name", name, "time", now, "clockMs",
                             (json_int_t)em_clock_now_ms(&srv->clock), "revision",
                             (json_int_t)srv->store.revision, "objects", objects);
    char *text = json_dumps(snap, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(snap);
    char *file = nd_xasprintf("%s/snapshot.json", tmp);
    int w = em_store_write_file(&srv->store, file, text, strlen(text), st);
    free(file);
    free(text);
    if (w < 0)
        goto out;
    em_rm_rf(dir);
    if (rename(tmp, dir) < 0) {
        em_store_io_status(&srv->store, st, errno, dir);
        nd_status_prefix(st, "snapshot %s", name);
        goto out;
    }
    json_t *answer = json_pack("{sssssI}", "name", name, "time", now, "objects",
                               (json_int_t)count);
    em_resp_json(resp, existed ? 200 : 201, answer);
    json_decref(answer);
    rc = 0;
out:
    if (rc < 0)
        em_rm_rf(tmp);
    free(dir);
    free(tmp);
    return rc;
}

static char *key_of(const char *plural, const json_t *obj)
{
    return nd_xasprintf("%s/%s/%s", plural, em_obj_ns(obj), em_obj_name(obj));
}

/* Makes the store hold exactly the snapshot's objects, through objects.c. */
static void restore_objects(struct em_server *srv, json_t *objects)
{
    json_t *want = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(objects, i, e) {
        const char *plural = json_string_value(json_object_get(e, "plural"));
        json_t *obj = json_object_get(e, "object");
        if (!plural || !json_is_object(obj) || !nd_kind_by_plural(NULL, plural))
            continue;
        char *k = key_of(plural, obj);
        json_object_set(want, k, e);
        free(k);
    }
    struct nd_status st = ND_STATUS_INIT;
    /* what the snapshot does not hold goes (children first does not matter: the owner
     * references of what stays are restored below) */
    json_t *now = all_objects(srv);
    json_array_foreach(now, i, e) {
        const char *plural = json_string_value(json_object_get(e, "plural"));
        json_t *obj = json_object_get(e, "object");
        char *k = key_of(plural, obj);
        bool keep = json_object_get(want, k) != NULL;
        free(k);
        const struct nd_kind *kind = nd_kind_by_plural(NULL, plural);
        json_t *cur = em_store_get(&srv->store, kind, em_obj_ns(obj), em_obj_name(obj));
        if (!keep && kind && cur) {
            json_incref(cur);
            em_obj_remove(srv, kind, cur, &st);
            json_decref(cur);
        }
    }
    json_decref(now);
    const char *k;
    json_object_foreach(want, k, e) {
        const char *plural = json_string_value(json_object_get(e, "plural"));
        const struct nd_kind *kind = nd_kind_by_plural(NULL, plural);
        json_t *obj = json_deep_copy(json_object_get(e, "object"));
        json_t *cur = em_store_get(&srv->store, kind, em_obj_ns(obj), em_obj_name(obj));
        if (!cur) {
            json_object_del(json_object_get(obj, "metadata"), "resourceVersion");
            em_obj_add(srv, kind, obj, &st);
        } else {
            json_t *a = json_deep_copy(cur), *b = json_deep_copy(obj);
            json_object_del(json_object_get(a, "metadata"), "resourceVersion");
            json_object_del(json_object_get(b, "metadata"), "resourceVersion");
            if (!json_equal(a, b)) {
                json_incref(cur);
                em_obj_update(srv, kind, cur, obj, &st);
                json_decref(cur);
            }
            json_decref(a);
            json_decref(b);
        }
        nd_status_release(&st);
        nd_status_init(&st);
        json_decref(obj);
    }
    nd_status_release(&st);
    json_decref(want);
}

static int restore(struct em_server *srv, const char *name, struct em_resp *resp,
                   struct nd_status *st)
{
    char *dir = nd_xasprintf("%s/snapshots/%s", srv->store.dir, name);
    char *file = nd_xasprintf("%s/snapshot.json", dir);
    struct nd_buf b = ND_BUF_INIT;
    json_t *snap = NULL;
    int rc = -1;
    if (nd_buf_read_file(&b, file) < 0) {
        nd_status_set(st, "NotFound", "list them: GET /emulator/v1/snapshots",
                      "no snapshot named %s", name);
        goto out;
    }
    snap = nd_json_load(b.data, b.len, file, st);
    if (!snap)
        goto out;
    json_t *objects = json_object_get(snap, "objects");
    if (!json_is_array(objects)) {
        nd_status_set(st, "InternalError", NULL, "%s: no objects array", file);
        goto out;
    }
    for (int i = 0; trees[i]; i++) {
        char *live = nd_xasprintf("%s/%s", srv->store.dir, trees[i]);
        char *saved = nd_xasprintf("%s/%s", dir, trees[i]);
        em_rm_rf(live);
        int c = em_copy_tree(saved, live);
        free(live);
        free(saved);
        if (c < 0) {
            nd_status_set(st, "InternalError", NULL, "snapshot %s: restoring %s failed", name,
                          trees[i]);
            goto out;
        }
    }
    /* the clock first, so what the controllers do next is timed from the snapshot */
    int64_t was = json_integer_value(json_object_get(snap, "clockMs"));
    if (was > 0)
        em_clock_advance(&srv->clock, was - em_clock_now_ms(&srv->clock));
    restore_objects(srv, objects);
    em_server_save_meta(srv);
    pthread_cond_broadcast(&srv->changed);
    json_t *answer = json_pack("{sssIsI}", "name", name, "objects",
                               (json_int_t)json_array_size(objects), "clockMs",
                               (json_int_t)em_clock_now_ms(&srv->clock));
    em_resp_json(resp, 200, answer);
    json_decref(answer);
    rc = 0;
out:
    json_decref(snap);
    nd_buf_release(&b);
    free(dir);
    free(file);
    return rc;
}

static int list(struct em_server *srv, struct em_resp *resp)
{
    char *dir = nd_xasprintf("%s/snapshots", srv->store.dir);
    json_t *items = json_array();
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char *file = nd_xasprintf("%s/%s/snapshot.json", dir, e->d_name);
            struct nd_buf b = ND_BUF_INIT;
            struct nd_status st = ND_STATUS_INIT;
            json_t *snap = nd_buf_read_file(&b, file) == 0 ? nd_json_load(b.data, b.len, file, &st)
                                                       : NULL;
            if (snap)
                json_array_append_new(
                    items, json_pack("{sssOsI}", "name", e->d_name, "time",
                                     json_object_get(snap, "time"), "objects",
                                     (json_int_t)json_array_size(json_object_get(snap, "objects"))));
            json_decref(snap);
            nd_status_release(&st);
            nd_buf_release(&b);
            free(file);
        }
        closedir(d);
    }
    /* by name, so the answer is stable */
    size_t n = json_array_size(items);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            json_t *a = json_array_get(items, j - 1), *c = json_array_get(items, j);
            if (strcmp(json_string_value(json_object_get(a, "name")),
                       json_string_value(json_object_get(c, "name"))) <= 0)
                break;
            json_incref(a);
            json_array_set(items, j - 1, c);
            json_array_set_new(items, j, a);
        }
    json_t *answer = json_pack("{so}", "items", items);
    em_resp_json(resp, 200, answer);
    json_decref(answer);
    free(dir);
    return 0;
}

int em_snapshot_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                       const char *rest, struct nd_status *st)
{
    const char *m = req->method;
    if (!*rest || !strcmp(rest, "/")) {
        if (strcmp(m, "GET") != 0)
            return nd_status_set(st, "MethodNotAllowed", "save one: POST snapshots/NAME",
                                 "%s is not served on %s", m, req->path);
        return list(srv, resp);
    }
    rest++; /* the '/' */
    const char *slash = strchr(rest, '/');
    char *name = slash ? nd_xstrndup(rest, (size_t)(slash - rest)) : nd_xstrdup(rest);
    int rc = -1;
    if (!nd_is_dns_label(name)) {
        nd_status_set(st, "Invalid", "name it with lower-case letters, digits and '-'",
                      "snapshot name \"%s\": must be a DNS label", name);
    } else if (!slash && !strcmp(m, "POST")) {
        rc = save(srv, name, resp, st);
    } else if (!slash && !strcmp(m, "DELETE")) {
        char *dir = nd_xasprintf("%s/snapshots/%s", srv->store.dir, name);
        struct stat sb;
        if (stat(dir, &sb) < 0) {
            nd_status_set(st, "NotFound", "list them: GET /emulator/v1/snapshots",
                          "no snapshot named %s", name);
        } else {
            em_rm_rf(dir);
            json_t *answer = json_pack("{ssss}", "name", name, "status", "deleted");
            em_resp_json(resp, 200, answer);
            json_decref(answer);
            rc = 0;
        }
        free(dir);
    } else if (slash && !strcmp(slash, "/restore") && !strcmp(m, "POST")) {
        rc = restore(srv, name, resp, st);
    } else {
        nd_status_set(st, slash && strcmp(slash, "/restore") ? "NotFound" : "MethodNotAllowed",
                      "see nodus-emulator(1) for the control endpoints", "%s %s is not served",
                      m, req->path);
    }
    free(name);
    return rc;
}
