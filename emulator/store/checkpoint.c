/* The start's loader and the clean stop's checkpoint; see checkpoint.h.
 *
 * The checkpoint file: one header line
 *   nodus-checkpoint 2 <count> <log size> <log mtime ns> <payload bytes> <hash>
 * (fixed width), then per object
 *   <plural> TAB <project or _cluster> TAB <name> TAB <size> TAB <mtime ns> TAB <ctime ns>
 *   TAB <inode> TAB <record bytes> TAB <json bytes> LF <record> LF <compact JSON> LF
 * where the record is the object's (entry.h) as compact JSON. The hash covers the payload
 * (every byte after the header). A checkpoint of another version (1 carried no records)
 * is not sound. The loader is load.c. */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "events_file.h"
#include "fsutil.h"
#include "util/xmalloc.h"

#define CLUSTER_DIR "_cluster"
#define MAGIC "nodus-checkpoint 2 "
#define HEADER_FMT "nodus-checkpoint 2 %020llu %020llu %020llu %020llu %016llx\n"
#define HEADER_LEN (sizeof MAGIC - 1 + 4 * 21 + 17)

void em_stamp_of(const struct stat *sb, struct em_stamp *st)
{
    st->valid = true;
    st->size = (int64_t)sb->st_size;
    st->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    st->ctime_ns = (int64_t)sb->st_ctim.tv_sec * 1000000000 + sb->st_ctim.tv_nsec;
    st->ino = (uint64_t)sb->st_ino;
}

bool em_stamp_eq(const struct em_stamp *a, const struct em_stamp *b)
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
        em_stamp_of(&sb, &st);
    *size = st.size;
    *mtime_ns = st.mtime_ns;
    return ok;
}

/* ---- reading the checkpoint ---- */

static uint64_t key_hash(const char *plural, const char *ns, const char *name)
{
    uint64_t h = em_hash64(plural, strlen(plural), 1);
    h = em_hash64(ns, strlen(ns), h);
    return em_hash64(name, strlen(name), h);
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

void em_ckpt_free(struct em_ckpt *ck)
{
    free(ck->buf);
    free(ck->recs);
    free(ck->slots);
    memset(ck, 0, sizeof *ck);
}

/* The next len bytes and their LF, NUL-terminated in place, into *out. */
static bool blob(char **p, char *end, size_t len, const char **out)
{
    if (len >= (size_t)(end - *p) || (*p)[len] != '\n')
        return false;
    *out = *p;
    (*p)[len] = '\0';
    *p += len + 1;
    return true;
}

static bool ck_parse(struct em_ckpt *ck, size_t size, const char *dir)
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
    if (plen != (unsigned long long)(end - p) || em_hash64(p, (size_t)plen, 7) != hash)
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
        struct em_ckpt_rec *r = &ck->recs[i];
        int64_t v[6];
        r->plural = field(&p, end, '\t');
        r->ns = field(&p, end, '\t');
        r->name = field(&p, end, '\t');
        char *f[6];
        for (int k = 0; k < 5; k++)
            f[k] = field(&p, end, '\t');
        f[5] = field(&p, end, '\n');
        if (!r->name)
            return false;
        for (int k = 0; k < 6; k++) {
            if (!num(f[k], &v[k]) || v[k] < 0)
                return false;
        }
        r->st = (struct em_stamp){true, v[0], v[1], v[2], (uint64_t)v[3]};
        if (!blob(&p, end, (size_t)v[4], &r->rec) || !blob(&p, end, (size_t)v[5], &r->json))
            return false;
        r->rec_len = (size_t)v[4];
        r->len = (size_t)v[5];
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
bool em_ckpt_read(const char *dir, struct em_ckpt *ck)
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
        em_stamp_of(&sb, &st);
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
        em_ckpt_free(ck);
    return ok;
}

const struct em_ckpt_rec *em_ckpt_find(const struct em_ckpt *ck, const char *plural,
                                        const char *ns, const char *name)
{
    if (!ck->n)
        return NULL;
    size_t at = key_hash(plural, ns, name) & ck->mask;
    while (ck->slots[at]) {
        const struct em_ckpt_rec *r = &ck->recs[ck->slots[at] - 1];
        if (strcmp(r->name, name) == 0 && strcmp(r->ns, ns) == 0 &&
            strcmp(r->plural, plural) == 0)
            return r;
        at = (at + 1) & ck->mask;
    }
    return NULL;
}

/* ---- writing the checkpoint ---- */

struct ck_write {
    struct em_store *s;
    const char *plural;
    struct nd_buf out;
    size_t count;
    int64_t newest_mtime;
};

/* Whether the file at path holds e's pretty text (what the store wrote: by its hash when
 * the store knows it, else the text made again); its stamp. */
static bool file_holds(const char *path, const struct em_entry *e, struct em_stamp *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    struct nd_buf data = ND_BUF_INIT;
    bool ok = fstat(fd, &sb) == 0 && nd_buf_read_fd(&data, fd) == 0;
    close(fd);
    if (ok && e->text_hash) {
        ok = em_hash64(data.data ? data.data : "", data.len, EM_TEXT_SEED) == e->text_hash;
        em_stamp_of(&sb, st);
    } else if (ok) {
        char *text = json_dumps(em_entry_obj(e), JSON_INDENT(2));
        size_t n = text ? strlen(text) : 0;
        ok = text && data.len == n + 1 && memcmp(data.data, text, n) == 0 &&
             data.data[n] == '\n';
        free(text);
        em_stamp_of(&sb, st);
    }
    nd_buf_release(&data);
    return ok;
}

static int add_entry(const char *key, void *value, void *arg)
{
    struct ck_write *cw = arg;
    struct em_entry *e = value;
    const char *sep = strchr(key, '\x01');
    if (!e || !e->json || !sep)
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
            em_stamp_of(&sb, &st);
        ok = ok && em_stamp_eq(&st, &e->stamp);
    } else {
        /* written while running: the file must hold what the store wrote */
        ok = file_holds(path, e, &st);
    }
    free(path);
    if (!ok)
        return 0;
    struct em_bytes *json = em_store_entry_json(e);
    char *rec = json_dumps(em_entry_rec(e), JSON_COMPACT);
    size_t rec_len = strlen(rec);
    nd_buf_addf(&cw->out, "%s\t%s\t%s\t%lld\t%lld\t%lld\t%llu\t%zu\t%zu\n", cw->plural, nsdir,
                name, (long long)st.size, (long long)st.mtime_ns, (long long)st.ctime_ns,
                (unsigned long long)st.ino, rec_len, json->len);
    nd_buf_add(&cw->out, rec, rec_len);
    nd_buf_addch(&cw->out, '\n');
    free(rec);
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

/* The kind after `after` (NULL: the first) in plural order, or -1: the checkpoint lists
 * kinds in that order, not in the order the store met them, so a stop with nothing
 * changed since the last writes the same bytes. */
static long next_kind(const struct em_store *s, const char *after)
{
    long best = -1;
    for (size_t i = 0; i < s->nkinds; i++) {
        const char *p = s->kinds[i].kind->plural;
        if ((!after || strcmp(p, after) > 0) &&
            (best < 0 || strcmp(p, s->kinds[best].kind->plural) < 0))
            best = (long)i;
    }
    return best;
}

int em_checkpoint_write(struct em_store *s)
{
    struct ck_write cw = {.s = s};
    nd_buf_grow(&cw.out, HEADER_LEN + 4096);
    cw.out.len = HEADER_LEN; /* filled last */
    for (long i = next_kind(s, NULL); i >= 0; i = next_kind(s, s->kinds[i].kind->plural)) {
        cw.plural = s->kinds[i].kind->plural;
        if (strpbrk(cw.plural, "\t\n/") || em_events_kind(s->kinds[i].kind))
            continue; /* Events: a few hour files a start reads whole (events_file.h) */
        em_index_foreach(s->kinds[i].ix, add_entry, &cw);
    }
    int64_t lsize, lmtime;
    log_stamp(s->dir, &lsize, &lmtime);
    char head[HEADER_LEN + 1];
    snprintf(head, sizeof head, HEADER_FMT, (unsigned long long)cw.count,
             (unsigned long long)lsize, (unsigned long long)lmtime,
             (unsigned long long)(cw.out.len - HEADER_LEN),
             (unsigned long long)em_hash64(cw.out.data + HEADER_LEN, cw.out.len - HEADER_LEN, 7));
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
