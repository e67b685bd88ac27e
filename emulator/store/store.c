/* The flat-JSON object store; see store.h. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "util/xmalloc.h"

#define CLUSTER_DIR "_cluster"

char *em_store_path(const struct em_store *s, const char *rel)
{
    return nd_xasprintf("%s/%s", s->dir, rel);
}

static void fsync_dir(const char *file_path)
{
    char *dir = nd_xstrdup(file_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

static char *obj_key(const char *ns, const char *name)
{
    return nd_xasprintf("%s/%s", ns, name);
}

static char *obj_file(const struct em_store *s, const char *plural, const char *ns,
                      const char *name)
{
    return nd_xasprintf("%s/objects/%s/%s/%s.json", s->dir, *ns ? ns : CLUSTER_DIR, plural, name);
}

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

static int64_t obj_rv(const json_t *obj)
{
    const char *rv = meta_str(obj, "resourceVersion");
    return rv ? strtoll(rv, NULL, 10) : 0;
}

/* --fsync batch: a flusher thread flushes and renames what requests wrote. */
static void flush_pending(struct em_store *s)
{
    pthread_mutex_lock(&s->batch_lock);
    json_t *pending = s->pending;
    s->pending = json_array();
    pthread_mutex_unlock(&s->batch_lock);
    size_t i;
    json_t *row;
    json_t *dirs = json_object();
    json_array_foreach(pending, i, row) {
        const char *tmp = json_string_value(json_array_get(row, 0));
        const char *dst = json_string_value(json_array_get(row, 1));
        int fd = open(tmp, O_WRONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
        if (rename(tmp, dst) == 0)
            json_object_set_new(dirs, dst, json_true());
    }
    const char *dst;
    json_t *v;
    json_object_foreach(dirs, dst, v) fsync_dir(dst);
    json_decref(dirs);
    json_decref(pending);
}

void em_store_flush(struct em_store *s)
{
    if (s->fsync_mode == EM_FSYNC_BATCH)
        flush_pending(s);
}

static void *flusher_main(void *arg)
{
    struct em_store *s = arg;
    for (;;) {
        struct timespec ts = {0, 20 * 1000 * 1000}; /* writes reach the disk within ~20 ms */
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&s->batch_lock);
        bool stop = s->stopping;
        bool any = json_array_size(s->pending) > 0;
        pthread_mutex_unlock(&s->batch_lock);
        if (any)
            flush_pending(s);
        if (stop)
            return NULL;
    }
}

int em_store_write_file(struct em_store *s, const char *path, const char *data, size_t len,
                        struct nd_status *st)
{
    static unsigned long seq;
    char *tmp = nd_xasprintf("%s.tmp-%ld-%lu", path, (long)getpid(), ++seq);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 && errno == ENOENT) {
        char *dir = nd_xstrdup(path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        em_mkdir_p(dir);
        free(dir);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    if (fd < 0)
        goto fail;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            goto fail;
        }
        off += (size_t)n;
    }
    if (s->fsync_mode == EM_FSYNC_BATCH) {
        close(fd);
        json_t *row = json_pack("[ss]", tmp, path);
        pthread_mutex_lock(&s->batch_lock);
        /* A newer write of the same file replaces the older pending one. */
        size_t i;
        json_t *r;
        json_array_foreach(s->pending, i, r) {
            if (strcmp(json_string_value(json_array_get(r, 1)), path) == 0) {
                unlink(json_string_value(json_array_get(r, 0)));
                json_array_remove(s->pending, i);
                break;
            }
        }
        json_array_append_new(s->pending, row);
        pthread_mutex_unlock(&s->batch_lock);
        free(tmp);
        return 0;
    }
    if (s->fsync_mode == EM_FSYNC_ALWAYS && fsync(fd) < 0) {
        close(fd);
        unlink(tmp);
        goto fail;
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        unlink(tmp);
        goto fail;
    }
    if (s->fsync_mode == EM_FSYNC_ALWAYS)
        fsync_dir(path);
    free(tmp);
    return 0;
fail:
    free(tmp);
    return nd_status_set(st, "InternalError", "check the state directory's disk space and permissions",
                         "cannot write %s: %s", path, strerror(errno));
}

static void add_loaded(struct em_store *s, const char *plural, const char *ns, const char *name,
                       json_t *obj)
{
    json_t *bucket = json_object_get(s->by_plural, plural);
    if (!bucket) {
        bucket = json_object();
        json_object_set_new(s->by_plural, plural, bucket);
    }
    char *key = obj_key(ns, name);
    json_object_set_new(bucket, key, obj);
    free(key);
    int64_t rv = obj_rv(obj);
    if (rv > s->revision)
        s->revision = rv;
}

static void report_broken(struct em_store *s, struct nd_buf *report, const char *plural,
                          const char *ns, const char *name, const char *path, const char *why)
{
    char *key = nd_xasprintf("%s/%s/%s", plural, ns, name);
    json_object_set_new(s->broken, key, json_string(path));
    free(key);
    nd_buf_addf(report, "state: %s: %s (left untouched; fix or remove it)\n", path, why);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void load_file(struct em_store *s, const char *plural, const char *ns, const char *fname,
                      const char *path, struct nd_buf *report)
{
    char *name = nd_xstrndup(fname, strlen(fname) - 5);
    struct nd_buf data = ND_BUF_INIT;
    json_error_t jerr;
    json_t *obj = NULL;
    if (em_read_file(path, &data) < 0) {
        report_broken(s, report, plural, ns, name, path, strerror(errno));
        goto out;
    }
    obj = json_loadb(data.data, data.len, JSON_REJECT_DUPLICATES, &jerr);
    if (!obj) {
        char *why = nd_xasprintf("line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
        report_broken(s, report, plural, ns, name, path, why);
        free(why);
        goto out;
    }
    const char *mname = meta_str(obj, "name");
    if (!json_is_object(obj) || !json_is_object(json_object_get(obj, "metadata")) ||
        !json_string_value(json_object_get(obj, "kind"))) {
        report_broken(s, report, plural, ns, name, path, "not an object with kind and metadata");
        goto out;
    }
    if (!mname || strcmp(mname, name) != 0) {
        report_broken(s, report, plural, ns, name, path,
                      "metadata.name does not match the file name");
        goto out;
    }
    /* A hand-edited file may omit the namespace: the directory says it. */
    if (*ns)
        json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(ns));
    add_loaded(s, plural, ns, name, obj);
    obj = NULL;
out:
    json_decref(obj);
    nd_buf_release(&data);
    free(name);
}

static int load_all(struct em_store *s, struct nd_buf *report)
{
    char *root = em_store_path(s, "objects");
    DIR *d1 = opendir(root);
    if (!d1) {
        free(root);
        return 0;
    }
    struct dirent *e1;
    while ((e1 = readdir(d1))) {
        if (e1->d_name[0] == '.')
            continue;
        const char *ns = strcmp(e1->d_name, CLUSTER_DIR) == 0 ? "" : e1->d_name;
        char *nsdir = nd_xasprintf("%s/%s", root, e1->d_name);
        DIR *d2 = opendir(nsdir);
        struct dirent *e2;
        while (d2 && (e2 = readdir(d2))) {
            if (e2->d_name[0] == '.')
                continue;
            char *pdir = nd_xasprintf("%s/%s", nsdir, e2->d_name);
            DIR *d3 = opendir(pdir);
            struct dirent *e3;
            while (d3 && (e3 = readdir(d3))) {
                char *path = nd_xasprintf("%s/%s", pdir, e3->d_name);
                if (strstr(e3->d_name, ".json.tmp-"))
                    unlink(path); /* an interrupted write: the old file stands */
                else if (e3->d_name[0] != '.' && ends_with(e3->d_name, ".json"))
                    load_file(s, e2->d_name, ns, e3->d_name, path, report);
                free(path);
            }
            if (d3)
                closedir(d3);
            free(pdir);
        }
        if (d2)
            closedir(d2);
        free(nsdir);
    }
    closedir(d1);
    free(root);
    return 0;
}

static int reset_dir(struct em_store *s, struct nd_buf *err)
{
    static const char *const parts[] = {"objects", "history", "idempotency", "logs",
                                        "files",   "snapshots", "emulator.json", NULL};
    for (int i = 0; parts[i]; i++) {
        char *p = em_store_path(s, parts[i]);
        int rc = em_rm_rf(p);
        if (rc < 0)
            nd_buf_addf(err, "cannot empty %s: %s", p, strerror(errno));
        free(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int em_store_open(struct em_store *s, const char *dir, enum em_fsync mode, bool reset,
                  struct nd_buf *report, struct nd_buf *err)
{
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
    s->dir = nd_xstrdup(dir);
    s->fsync_mode = mode;
    s->by_plural = json_object();
    s->broken = json_object();
    s->pending = json_array();
    pthread_mutex_init(&s->batch_lock, NULL);
    if (em_mkdir_p(dir) < 0) {
        nd_buf_addf(err, "cannot create state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char *lock = em_store_path(s, "emulator.lock");
    s->lock_fd = open(lock, O_RDWR | O_CREAT, 0644);
    if (s->lock_fd < 0) {
        nd_buf_addf(err, "cannot open %s: %s", lock, strerror(errno));
        free(lock);
        return -1;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(s->lock_fd, F_SETLK, &fl) < 0) {
        nd_buf_addf(err,
                    "state directory %s is in use by another emulator (lock %s held); stop it "
                    "or pass another --state",
                    dir, lock);
        free(lock);
        return -1;
    }
    free(lock);
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(s->lock_fd, 0) == 0)
        (void)!pwrite(s->lock_fd, pid, (size_t)n, 0);
    if (reset && reset_dir(s, err) < 0)
        return -1;
    char *objects = em_store_path(s, "objects");
    em_mkdir_p(objects);
    free(objects);
    load_all(s, report);
    if (mode == EM_FSYNC_BATCH) {
        if (pthread_create(&s->flusher, NULL, flusher_main, s) == 0)
            s->flusher_running = true;
        else
            s->fsync_mode = EM_FSYNC_ALWAYS;
    }
    return 0;
}

void em_store_close(struct em_store *s)
{
    if (s->flusher_running) {
        pthread_mutex_lock(&s->batch_lock);
        s->stopping = true;
        pthread_mutex_unlock(&s->batch_lock);
        pthread_join(s->flusher, NULL);
    }
    if (s->pending)
        flush_pending(s);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    json_decref(s->by_plural);
    json_decref(s->broken);
    json_decref(s->pending);
    pthread_mutex_destroy(&s->batch_lock);
    free(s->dir);
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
}

int64_t em_store_next_revision(struct em_store *s)
{
    return ++s->revision;
}

json_t *em_store_get(struct em_store *s, const char *plural, const char *ns, const char *name)
{
    json_t *bucket = json_object_get(s->by_plural, plural);
    if (!bucket)
        return NULL;
    char *key = obj_key(ns, name);
    json_t *obj = json_object_get(bucket, key);
    free(key);
    return obj;
}

static int check_broken(struct em_store *s, const char *plural, const char *ns, const char *name,
                        struct nd_status *st)
{
    char *key = nd_xasprintf("%s/%s/%s", plural, ns, name);
    const char *path = json_string_value(json_object_get(s->broken, key));
    free(key);
    if (!path)
        return 0;
    return nd_status_set(st, "InternalError", "fix or remove the file, then restart the emulator",
                         "the state file %s is broken and was left untouched", path);
}

int em_store_put(struct em_store *s, const char *plural, json_t *obj, struct nd_status *st)
{
    const char *name = meta_str(obj, "name");
    const char *ns = meta_str(obj, "namespace");
    if (!ns)
        ns = "";
    if (!name)
        return nd_status_set(st, "InternalError", NULL, "object without metadata.name");
    if (check_broken(s, plural, ns, name, st) < 0)
        return -1;
    char *text = json_dumps(obj, JSON_INDENT(2));
    size_t len = strlen(text);
    text = nd_xrealloc(text, len + 2);
    text[len] = '\n';
    text[len + 1] = '\0';
    char *path = obj_file(s, plural, ns, name);
    int rc = em_store_write_file(s, path, text, len + 1, st);
    free(path);
    free(text);
    if (rc < 0)
        return -1;
    json_t *bucket = json_object_get(s->by_plural, plural);
    if (!bucket) {
        bucket = json_object();
        json_object_set_new(s->by_plural, plural, bucket);
    }
    char *key = obj_key(ns, name);
    json_object_set(bucket, key, obj);
    free(key);
    return 0;
}

int em_store_delete(struct em_store *s, const char *plural, const char *ns, const char *name,
                    struct nd_status *st)
{
    if (check_broken(s, plural, ns, name, st) < 0)
        return -1;
    json_t *bucket = json_object_get(s->by_plural, plural);
    char *key = obj_key(ns, name);
    if (bucket)
        json_object_del(bucket, key);
    free(key);
    char *path = obj_file(s, plural, ns, name);
    if (s->fsync_mode == EM_FSYNC_BATCH)
        flush_pending(s); /* a pending write of this file must not land after the unlink */
    int rc = unlink(path);
    if (rc < 0 && errno != ENOENT) {
        nd_status_set(st, "InternalError", NULL, "cannot remove %s: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    if (rc == 0 && s->fsync_mode == EM_FSYNC_ALWAYS)
        fsync_dir(path);
    free(path);
    return 0;
}

static int cmp_by_key(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *nx = meta_str(x, "namespace"), *ny = meta_str(y, "namespace");
    int c = strcmp(nx ? nx : "", ny ? ny : "");
    if (c)
        return c;
    return strcmp(meta_str(x, "name"), meta_str(y, "name"));
}

json_t *em_store_list(struct em_store *s, const char *plural, const char *ns)
{
    json_t *bucket = json_object_get(s->by_plural, plural);
    size_t n = json_object_size(bucket), k = 0;
    json_t **items = nd_xcalloc(n ? n : 1, sizeof *items);
    const char *key;
    json_t *obj;
    json_object_foreach(bucket, key, obj) {
        if (ns) {
            const char *ons = meta_str(obj, "namespace");
            if (strcmp(ons ? ons : "", ns) != 0)
                continue;
        }
        items[k++] = obj;
    }
    qsort(items, k, sizeof *items, cmp_by_key);
    json_t *arr = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append(arr, items[i]);
    free(items);
    return arr;
}

size_t em_store_count(struct em_store *s, const char *plural)
{
    return json_object_size(json_object_get(s->by_plural, plural));
}

int em_store_clear(struct em_store *s, struct nd_status *st)
{
    /* Collect first: deleting while iterating a bucket would invalidate the iteration. */
    json_t *victims = json_array();
    const char *plural;
    json_t *bucket;
    json_object_foreach(s->by_plural, plural, bucket) {
        const char *key;
        json_t *obj;
        json_object_foreach(bucket, key, obj) {
            const char *ns = meta_str(obj, "namespace");
            json_array_append_new(victims,
                                  json_pack("[sss]", plural, ns ? ns : "", meta_str(obj, "name")));
        }
    }
    size_t i;
    json_t *v;
    int rc = 0;
    json_array_foreach(victims, i, v) {
        if (em_store_delete(s, json_string_value(json_array_get(v, 0)),
                            json_string_value(json_array_get(v, 1)),
                            json_string_value(json_array_get(v, 2)), st) < 0)
            rc = -1;
    }
    json_decref(victims);
    return rc;
}
