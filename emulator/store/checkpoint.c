/* The start's loader and the clean stop's checkpoint; see checkpoint.h.
 *
 * The checkpoint file: one header line
 *   nodus-checkpoint 1 <count> <log size> <log mtime ns> <payload bytes> <hash>
 * (fixed width), then per object
 *   <plural> TAB <project or _cluster> TAB <name> TAB <size> TAB <mtime ns> TAB <ctime ns>
 *   TAB <inode> TAB <json bytes> LF <compact JSON> LF
 * The hash covers the payload (every byte after the header). */
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "util/xmalloc.h"

#define CLUSTER_DIR "_cluster"
#define MAGIC "nodus-checkpoint 1 "
#define HEADER_FMT "nodus-checkpoint 1 %020llu %020llu %020llu %020llu %016llx\n"
#define HEADER_LEN (sizeof MAGIC - 1 + 4 * 21 + 17)
#define THREADS 2
#define BLOCK 32

static uint64_t hash64(const char *p, size_t len, uint64_t h)
{
    const uint64_t m = 0x9e3779b97f4a7c15ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h ^ (h >> 31);
}

static void stamp_of(const struct stat *sb, struct em_stamp *st)
{
    st->valid = true;
    st->size = (int64_t)sb->st_size;
    st->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    st->ctime_ns = (int64_t)sb->st_ctim.tv_sec * 1000000000 + sb->st_ctim.tv_nsec;
    st->ino = (uint64_t)sb->st_ino;
}

static bool stamp_eq(const struct em_stamp *a, const struct em_stamp *b)
{
    return a->valid && b->valid && a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->ctime_ns == b->ctime_ns && a->ino == b->ino;
}

static bool log_stamp(const char *dir, int64_t *size, int64_t *mtime_ns)
{
    char *log = nd_xasprintf("%s/history/journal.ndjson", dir);
    struct stat sb;
    bool ok = stat(log, &sb) == 0;
    free(log);
    struct em_stamp st = {0};
    if (ok)
        stamp_of(&sb, &st);
    *size = st.size;
    *mtime_ns = st.mtime_ns;
    return ok;
}

/* ---- reading the checkpoint ---- */

struct ck_rec {
    const char *plural, *ns, *name; /* ns as in the path: "_cluster" for cluster-scoped */
    struct em_stamp st;
    const char *json;
    size_t len;
};

struct ckpt {
    char *buf;
    struct ck_rec *recs;
    size_t n;
    uint32_t *slots; /* index + 1, 0: empty */
    size_t mask;
    int64_t mtime_ns; /* the checkpoint file's own */
};

static uint64_t key_hash(const char *plural, const char *ns, const char *name)
{
    uint64_t h = hash64(plural, strlen(plural), 1);
    h = hash64(ns, strlen(ns), h);
    return hash64(name, strlen(name), h);
}

/* The next field ending at sep, NUL-terminated in place; NULL past end. */
static char *field(char **p, char *end, char sep)
{
    char *start = *p;
    char *at = memchr(start, sep, (size_t)(end - start));
    if (!at)
        return NULL;
    *at = '\0';
    *p = at + 1;
    return start;
}

static bool num(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (*e || errno)
        return false;
    *out = v;
    return true;
}

static void ck_free(struct ckpt *ck)
{
    free(ck->buf);
    free(ck->recs);
    free(ck->slots);
    memset(ck, 0, sizeof *ck);
}

static bool ck_parse(struct ckpt *ck, size_t size, const char *dir)
{
    char *p = ck->buf, *end = ck->buf + size;
    if (size < HEADER_LEN || memcmp(p, MAGIC, sizeof MAGIC - 1) != 0 || p[HEADER_LEN - 1] != '\n')
        return false;
    unsigned long long count, lsize, lmtime, plen, hash;
    char head[HEADER_LEN + 1];
    memcpy(head, p, HEADER_LEN);
    head[HEADER_LEN] = '\0';
    if (sscanf(head + sizeof MAGIC - 1, "%llu %llu %llu %llu %llx", &count, &lsize, &lmtime,
               &plen, &hash) != 5)
        return false;
    p += HEADER_LEN;
    if (plen != (unsigned long long)(end - p) || hash64(p, (size_t)plen, 7) != hash)
        return false;
    int64_t now_size, now_mtime;
    log_stamp(dir, &now_size, &now_mtime);
    if ((unsigned long long)now_size != lsize || (unsigned long long)now_mtime != lmtime)
        return false; /* written for another log: the log changed since */
    if (count > plen / 16)
        return false;
    ck->recs = nd_xcalloc(count ? count : 1, sizeof *ck->recs);
    size_t cap = 16;
    while (cap < count * 2)
        cap *= 2;
    ck->slots = nd_xcalloc(cap, sizeof *ck->slots);
    ck->mask = cap - 1;
    for (size_t i = 0; i < count; i++) {
        struct ck_rec *r = &ck->recs[i];
        int64_t v[5];
        r->plural = field(&p, end, '\t');
        r->ns = field(&p, end, '\t');
        r->name = field(&p, end, '\t');
        char *f[5];
        for (int k = 0; k < 4; k++)
            f[k] = field(&p, end, '\t');
        f[4] = field(&p, end, '\n');
        if (!r->name)
            return false;
        for (int k = 0; k < 5; k++) {
            if (!num(f[k], &v[k]) || v[k] < 0)
                return false;
        }
        r->st = (struct em_stamp){true, v[0], v[1], v[2], (uint64_t)v[3]};
        if ((size_t)v[4] >= (size_t)(end - p) || p[v[4]] != '\n')
            return false;
        r->json = p;
        r->len = (size_t)v[4];
        p[v[4]] = '\0';
        p += v[4] + 1;
        size_t at = key_hash(r->plural, r->ns, r->name) & ck->mask;
        while (ck->slots[at])
            at = (at + 1) & ck->mask;
        ck->slots[at] = (uint32_t)(i + 1);
        ck->n++;
    }
    return p == end;
}

/* Reads and deletes dir/history/checkpoint; false (nothing kept) when there is none or
 * it is not sound. */
static bool ck_read(const char *dir, struct ckpt *ck)
{
    memset(ck, 0, sizeof *ck);
    char *path = nd_xasprintf("%s/history/checkpoint", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool ok = false;
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size < (1ULL << 40)) {
        size_t size = (size_t)sb.st_size;
        ck->buf = nd_xmalloc(size + 1);
        size_t got = 0;
        ssize_t n = 0;
        while (got < size && ((n = read(fd, ck->buf + got, size - got)) > 0 ||
                              (n < 0 && errno == EINTR)))
            got += n > 0 ? (size_t)n : 0;
        ck->buf[got] = '\0';
        struct em_stamp st;
        stamp_of(&sb, &st);
        ck->mtime_ns = st.mtime_ns;
        ok = got == size && ck_parse(ck, size, dir);
    }
    if (fd >= 0) {
        close(fd);
        /* used once: a crash after this start must not find it */
        unlink(path);
    }
    free(path);
    if (!ok)
        ck_free(ck);
    return ok;
}

static const struct ck_rec *ck_find(const struct ckpt *ck, const char *plural, const char *ns,
                                    const char *name)
{
    if (!ck->n)
        return NULL;
    size_t at = key_hash(plural, ns, name) & ck->mask;
    while (ck->slots[at]) {
        const struct ck_rec *r = &ck->recs[ck->slots[at] - 1];
        if (strcmp(r->name, name) == 0 && strcmp(r->ns, ns) == 0 &&
            strcmp(r->plural, plural) == 0)
            return r;
        at = (at + 1) & ck->mask;
    }
    return NULL;
}

/* ---- loading ---- */

struct job {
    const char *src; /* the checkpoint's compact JSON, or NULL: read the file */
    size_t len;
    const char *dirpath; /* DIR/objects/<ns dir>/<plural> */
};

struct work {
    struct em_loaded *items;
    struct job *jobs;
    size_t n;
    atomic_size_t next;
};

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

/* Checks an object as the hand-edit rules say; NULL when it is fine, else why not. */
static const char *check_obj(const json_t *obj, const char *name)
{
    if (!json_is_object(obj) || !json_is_object(json_object_get(obj, "metadata")) ||
        !json_string_value(json_object_get(obj, "kind")))
        return "not an object with kind and metadata";
    const char *mname = meta_str(obj, "name");
    if (!mname || strcmp(mname, name) != 0)
        return "metadata.name does not match the file name";
    return NULL;
}

static void load_from_file(struct em_loaded *it)
{
    struct nd_buf data = ND_BUF_INIT;
    int fd = open(it->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
        it->why = nd_xstrdup(strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0)
        nd_buf_grow(&data, (size_t)sb.st_size + 1);
    int rc = em_read_fd(fd, &data);
    int e = errno;
    close(fd);
    if (rc < 0) {
        it->why = nd_xstrdup(strerror(e));
        nd_buf_release(&data);
        return;
    }
    json_error_t jerr;
    json_t *obj = json_loadb(data.data ? data.data : "", data.len, JSON_REJECT_DUPLICATES, &jerr);
    nd_buf_release(&data);
    if (!obj) {
        it->why = nd_xasprintf("line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
        return;
    }
    const char *bad = check_obj(obj, it->name);
    if (bad) {
        it->why = nd_xstrdup(bad);
        json_decref(obj);
        return;
    }
    /* A hand-edited file may omit the namespace: the directory says it. */
    if (*it->ns)
        json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(it->ns));
    it->obj = obj;
    stamp_of(&sb, &it->stamp);
}

static void load_one(struct em_loaded *it, const struct job *j)
{
    if (j->src) {
        json_t *obj = json_loadb(j->src, j->len, JSON_REJECT_DUPLICATES, NULL);
        if (obj && !check_obj(obj, it->name)) {
            const char *mns = meta_str(obj, "namespace");
            bool same = *it->ns ? mns && strcmp(mns, it->ns) == 0 : true;
            if (!same)
                json_object_set_new(json_object_get(obj, "metadata"), "namespace",
                                    json_string(it->ns));
            else
                it->json = em_bytes_new(j->src, j->len);
            it->obj = obj;
            return;
        }
        json_decref(obj);
        /* not what it should be: the file decides */
        it->from_checkpoint = false;
        it->stamp.valid = false;
        it->path = nd_xasprintf("%s/%s.json", j->dirpath, it->name);
    }
    load_from_file(it);
}

static void *worker(void *arg)
{
    struct work *w = arg;
    for (;;) {
        size_t at = atomic_fetch_add(&w->next, BLOCK);
        if (at >= w->n)
            break;
        size_t end = at + BLOCK < w->n ? at + BLOCK : w->n;
        for (size_t i = at; i < end; i++)
            load_one(&w->items[i], &w->jobs[i]);
    }
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *keep_dir(struct em_load *l, char *s)
{
    l->dirs = nd_xrealloc(l->dirs, (l->ndirs + 1) * sizeof *l->dirs);
    l->dirs[l->ndirs++] = s;
    return s;
}

void em_load_objects(const char *dir, struct em_load *out)
{
    memset(out, 0, sizeof *out);
    struct ckpt ck;
    bool have_ck = ck_read(dir, &ck);
    char *root = nd_xasprintf("%s/objects", dir);
    DIR *d1 = opendir(root);
    if (!d1) {
        free(root);
        if (have_ck)
            ck_free(&ck);
        return;
    }
    size_t cap = 0;
    struct job *jobs = NULL;
    struct dirent *e1;
    while ((e1 = readdir(d1))) {
        if (e1->d_name[0] == '.')
            continue;
        const char *nsdirname = keep_dir(out, nd_xstrdup(e1->d_name));
        const char *ns = strcmp(e1->d_name, CLUSTER_DIR) == 0 ? "" : nsdirname;
        char *nsdir = nd_xasprintf("%s/%s", root, e1->d_name);
        DIR *d2 = opendir(nsdir);
        struct dirent *e2;
        while (d2 && (e2 = readdir(d2))) {
            if (e2->d_name[0] == '.')
                continue;
            char *pdir = nd_xasprintf("%s/%s", nsdir, e2->d_name);
            DIR *d3 = opendir(pdir);
            if (!d3) {
                free(pdir);
                continue;
            }
            keep_dir(out, pdir);
            const char *plural = keep_dir(out, nd_xstrdup(e2->d_name));
            int dfd = dirfd(d3);
            struct dirent *e3;
            while ((e3 = readdir(d3))) {
                if (strstr(e3->d_name, ".json.tmp-")) {
                    unlinkat(dfd, e3->d_name, 0); /* an interrupted write: the old file stands */
                    continue;
                }
                if (e3->d_name[0] == '.' || !ends_with(e3->d_name, ".json"))
                    continue;
                if (out->n == cap) {
                    cap = cap ? cap * 2 : 256;
                    out->items = nd_xrealloc(out->items, cap * sizeof *out->items);
                    jobs = nd_xrealloc(jobs, cap * sizeof *jobs);
                }
                struct em_loaded *it = &out->items[out->n];
                struct job *j = &jobs[out->n++];
                memset(it, 0, sizeof *it);
                *j = (struct job){.dirpath = pdir};
                it->plural = plural;
                it->ns = ns;
                it->name = nd_xstrndup(e3->d_name, strlen(e3->d_name) - 5);
                const struct ck_rec *r = NULL;
                struct stat sb;
                if (have_ck && fstatat(dfd, e3->d_name, &sb, 0) == 0) {
                    stamp_of(&sb, &it->stamp);
                    r = ck_find(&ck, plural, nsdirname, it->name);
                    /* a file stamped in the checkpoint's own clock tick could have been
                     * edited since without its mtime moving: read it */
                    if (r && (!stamp_eq(&r->st, &it->stamp) || r->st.mtime_ns >= ck.mtime_ns))
                        r = NULL;
                }
                if (r) {
                    j->src = r->json;
                    j->len = r->len;
                    it->from_checkpoint = true;
                } else {
                    it->stamp.valid = false;
                    it->path = nd_xasprintf("%s/%s", pdir, e3->d_name);
                }
            }
            closedir(d3);
        }
        if (d2)
            closedir(d2);
        free(nsdir);
    }
    closedir(d1);
    free(root);

    /* parse: separate objects on separate threads; the hash seed is fixed first */
    json_object_seed(0);
    struct work w = {.items = out->items, .jobs = jobs, .n = out->n};
    atomic_init(&w.next, 0);
    pthread_t th[THREADS - 1];
    size_t started = 0;
    if (out->n >= 4 * BLOCK) {
        for (size_t t = 0; t < THREADS - 1; t++) {
            if (pthread_create(&th[t], NULL, worker, &w) == 0)
                started++;
        }
    }
    worker(&w);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(jobs);
    if (have_ck)
        ck_free(&ck);
}

void em_load_free(struct em_load *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct em_loaded *it = &l->items[i];
        free(it->name);
        free(it->path);
        free(it->why);
        json_decref(it->obj);
        em_bytes_unref(it->json);
    }
    free(l->items);
    for (size_t i = 0; i < l->ndirs; i++)
        free(l->dirs[i]);
    free(l->dirs);
    memset(l, 0, sizeof *l);
}

/* ---- writing the checkpoint ---- */

struct ck_write {
    struct em_store *s;
    const char *plural;
    struct nd_buf out;
    size_t count;
    int64_t newest_mtime;
};

/* Whether the file at path holds obj's pretty text (what the store wrote); its stamp. */
static bool file_holds(const char *path, const json_t *obj, struct em_stamp *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    struct nd_buf data = ND_BUF_INIT;
    bool ok = fstat(fd, &sb) == 0 && em_read_fd(fd, &data) == 0;
    close(fd);
    if (ok) {
        char *text = json_dumps(obj, JSON_INDENT(2));
        size_t n = text ? strlen(text) : 0;
        ok = text && data.len == n + 1 && memcmp(data.data, text, n) == 0 &&
             data.data[n] == '\n';
        free(text);
        stamp_of(&sb, st);
    }
    nd_buf_release(&data);
    return ok;
}

static int add_entry(const char *key, void *value, void *arg)
{
    struct ck_write *cw = arg;
    struct em_entry *e = value;
    const char *sep = strchr(key, '\x01');
    if (!e || !e->obj || !sep)
        return 0;
    char ns[EM_STORE_KEY_MAX];
    snprintf(ns, sizeof ns, "%.*s", (int)(sep - key), key);
    const char *name = sep + 1;
    const char *nsdir = *ns ? ns : CLUSTER_DIR;
    if (strpbrk(name, "\t\n/") || strpbrk(nsdir, "\t\n/"))
        return 0; /* such a file is read at the next start */
    char *path = nd_xasprintf("%s/objects/%s/%s/%s.json", cw->s->dir, nsdir, cw->plural, name);
    struct em_stamp st = {0};
    struct stat sb;
    bool ok;
    if (e->stamp.valid) {
        /* loaded at start and unchanged since: the file must be as it was then */
        ok = stat(path, &sb) == 0;
        if (ok)
            stamp_of(&sb, &st);
        ok = ok && stamp_eq(&st, &e->stamp);
    } else {
        /* written while running: the file must hold what the store wrote */
        ok = file_holds(path, e->obj, &st);
    }
    free(path);
    if (!ok)
        return 0;
    struct em_bytes *json = em_store_entry_json(e);
    nd_buf_addf(&cw->out, "%s\t%s\t%s\t%lld\t%lld\t%lld\t%llu\t%zu\n", cw->plural, nsdir, name,
                (long long)st.size, (long long)st.mtime_ns, (long long)st.ctime_ns,
                (unsigned long long)st.ino, json->len);
    nd_buf_add(&cw->out, json->data, json->len);
    nd_buf_addch(&cw->out, '\n');
    cw->count++;
    if (st.mtime_ns > cw->newest_mtime)
        cw->newest_mtime = st.mtime_ns;
    return 0;
}

static int64_t coarse_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int em_checkpoint_write(struct em_store *s)
{
    struct ck_write cw = {.s = s};
    nd_buf_grow(&cw.out, HEADER_LEN + 4096);
    cw.out.len = HEADER_LEN; /* filled last */
    for (size_t i = 0; i < s->nkinds; i++) {
        cw.plural = s->kinds[i].plural;
        if (strpbrk(cw.plural, "\t\n/"))
            continue;
        em_index_foreach(s->kinds[i].ix, add_entry, &cw);
    }
    int64_t lsize, lmtime;
    log_stamp(s->dir, &lsize, &lmtime);
    char head[HEADER_LEN + 1];
    snprintf(head, sizeof head, HEADER_FMT, (unsigned long long)cw.count,
             (unsigned long long)lsize, (unsigned long long)lmtime,
             (unsigned long long)(cw.out.len - HEADER_LEN),
             (unsigned long long)hash64(cw.out.data + HEADER_LEN, cw.out.len - HEADER_LEN, 7));
    memcpy(cw.out.data, head, HEADER_LEN);
    /* the checkpoint's mtime must be past every file's it vouches for (the next start
     * reads files stamped in its tick): wait out the clock's tick, a few ms at most */
    for (int i = 0; i < 50 && coarse_now_ns() <= cw.newest_mtime; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    char *path = em_store_path(s, "history/checkpoint");
    int rc = em_write_atomic(path, cw.out.data, cw.out.len, s->fsync_mode != EM_FSYNC_NEVER);
    free(path);
    nd_buf_release(&cw.out);
    return rc;
}
