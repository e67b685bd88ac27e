/* The start's loader: every object file, from the checkpoint where unchanged, parsed on
 * two threads; see checkpoint.h. */
#include "checkpoint.h"
#include "crash_repair.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events_file.h"
#include "fsutil.h"
#include "namesort.h"
#include "objscan.h"
#include "rec_arena.h"
#include "rec_share.h"
#include "store_ix.h"
#include "util/xmalloc.h"

#ifndef O_NOATIME
/* Linux's (asm-generic/fcntl.h, x86 and arm alike): glibc shows it only under _GNU_SOURCE,
 * which the build does not set (banned.h comes first) */
#define O_NOATIME 01000000
#endif

#define CLUSTER_DIR "_cluster"
#define THREADS 2
#define BLOCK 32

struct job {
    bool done;       /* loaded already (an Event of an hour file) */
    const char *dirpath; /* DIR/objects/<ns dir>/<plural> */
    const char *nsdirname; /* <ns dir>: the project's, or _cluster */
    const struct nd_kind *kind; /* the directory's kind (NULL: none) */
    const struct em_scan_plan *plan; /* its files' one-pass read (NULL: jansson only) */
};

struct work {
    struct em_loaded *items;
    struct job *jobs;
    size_t n;
    const struct em_ckpt *ck; /* NULL: none */
    atomic_size_t next;
    bool make;      /* what the store keeps of each object is made (for the store) */
    bool load;      /* the objects are loaded (else only made: a second pass) */
};

/* A loader thread's: the work, and its run of owner index entries (NULL: none made). */
struct loader {
    struct work *w;
    struct em_owners_run *run;
    size_t made; /* entries made */
    size_t in_dir; /* files opened (or stat-ed) by name in their directory's descriptor */
    const char *dirpath; /* the directory of the last item loaded (NULL: none yet) */
    int dfd;             /* its descriptor (-1: none) */
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

/* Keeps obj's record (copied into the records' arena, its repeated parts shared
 * (rec_share.h): nothing of obj stays, whether it is the object or the part objscan made
 * of it) and drops obj. */
static void keep_rec(struct em_loaded *it, const struct nd_kind *k, json_t *obj,
                     struct em_rec_share *sh)
{
    json_t *rec = em_rec_of(k, obj);
    it->rec = em_rec_keep(sh, rec);
    json_decref(rec);
    json_decref(obj);
}

/* Keeps what the store keeps of obj (its compact bytes and its record) and drops it. */
static void keep_bytes(struct em_loaded *it, const struct nd_kind *k, json_t *obj,
                       struct em_rec_share *sh)
{
    it->json = em_bytes_take(json_dumps(obj, JSON_COMPACT));
    keep_rec(it, k, obj, sh);
}

/* The bytes and record of a file the store wrote, read in one pass (objscan.h); false
 * when the scan refuses it or the object is not where its file is (check_obj, the
 * namespace the directory says): then jansson reads the text and says why. */
static bool load_scanned(struct em_loaded *it, const struct nd_kind *k,
                         const struct em_scan_plan *plan, const char *text, size_t len,
                         struct em_rec_share *sh)
{
    struct em_bytes *json;
    json_t *part;
    /* the values read into the scratch: the record is kept from them (em_rec_keep) */
    em_rec_scratch_begin();
    bool ok = em_scan_object(plan, text, len, &json, &part);
    if (ok) {
        const char *mns = meta_str(part, "namespace");
        ok = !check_obj(part, it->name) && (!*it->ns || (mns && strcmp(mns, it->ns) == 0));
        if (ok) {
            it->json = json;
            json_t *rec = em_rec_of(k, part);
            it->rec = em_rec_keep(sh, rec);
            json_decref(rec);
        } else {
            em_bytes_unref(json);
        }
        json_decref(part);
    }
    em_rec_scratch_end();
    return ok;
}

/* The file's text into data: at once into a buffer of its size and a byte more, a read
 * short of that being its end (no second read to find it: a syscall a file); else (it
 * grew since the fstat, or is not a regular file) what is left as it comes. */
static int read_text(int fd, const struct stat *sb, struct nd_buf *data)
{
    if (S_ISREG(sb->st_mode) && sb->st_size > 0 && nd_buf_grow(data, (size_t)sb->st_size + 1) == 0) {
        size_t want = (size_t)sb->st_size + 1;
        ssize_t n;
        do
            n = read(fd, data->data, want);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return -1;
        data->len = (size_t)n;
        data->data[n] = '\0';
        if ((size_t)n < want)
            return 0;
    }
    return nd_buf_read_fd(data, fd);
}

/* The file at (at, path: openat's) read into it. */
static void load_from_file(struct em_loaded *it, int at, const char *path, const struct nd_kind *k,
                           const struct em_scan_plan *plan, struct em_rec_share *sh)
{
    struct nd_buf data = ND_BUF_INIT;
    /* without updating the file's atime (a first read after a write would dirty every
     * inode): allowed to the files' owner, else read as usual */
    int fd = openat(at, path, O_RDONLY | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM)
        fd = openat(at, path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
        it->why = nd_xstrdup(strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    int rc = read_text(fd, &sb, &data);
    int e = errno;
    close(fd);
    if (rc < 0) {
        it->why = nd_xstrdup(strerror(e));
        nd_buf_release(&data);
        return;
    }
    if (plan && load_scanned(it, k, plan, data.data ? data.data : "", data.len, sh)) {
        nd_buf_release(&data);
        em_stamp_of(&sb, &it->stamp);
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
    keep_bytes(it, k, obj, sh);
    em_stamp_of(&sb, &it->stamp);
}

/* From the checkpoint: the bytes as they are and the record parsed (no tree of the
 * object); false when the record does not name the object where its file is. */
static bool load_checkpointed(struct em_loaded *it, const struct em_ckpt_rec *r,
                              struct em_rec_share *sh)
{
    em_rec_scratch_begin(); /* the parsed record, dropped once kept */
    json_t *rec = em_rec_parse(r->rec, r->rec_len);
    const char *mname = meta_str(rec, "name"), *mns = meta_str(rec, "namespace");
    bool same = mname && !strcmp(mname, it->name) &&
                (*it->ns ? mns && strcmp(mns, it->ns) == 0 : true);
    if (!same || r->len < 2 || r->json[0] != '{') {
        json_decref(rec);
        em_rec_scratch_end();
        return false;
    }
    it->rec = em_rec_keep(sh, rec);
    json_decref(rec);
    em_rec_scratch_end();
    it->json = em_bytes_new(r->json, r->len);
    return true;
}

/* The checkpoint's record of the item when its file (at, path: fstatat's) is exactly as
 * the checkpoint saw it, else NULL. */
static const struct em_ckpt_rec *unchanged(struct em_loaded *it, int at, const char *path,
                                           const struct job *j, const struct em_ckpt *ck)
{
    struct stat sb;
    if (fstatat(at, path, &sb, 0) != 0)
        return NULL;
    em_stamp_of(&sb, &it->stamp);
    const struct em_ckpt_rec *r = em_ckpt_find(ck, it->plural, j->nsdirname, it->name);
    /* a file stamped in the checkpoint's own clock tick could have been edited since
     * without its mtime moving: read it */
    if (r && (!em_stamp_eq(&r->st, &it->stamp) || r->st.mtime_ns >= ck->mtime_ns))
        return NULL;
    return r;
}

/* What the store makes of a loaded object of kind k (set_entry, store.c), made here on
 * the loader thread: its entry, its kind's index entry, its revision, and its owner index
 * entries into run. */
static void make_entry(struct em_loaded *it, const struct nd_kind *k, struct em_owners_run *run)
{
    struct em_entry *e = em_entry_new(it->json, it->rec, NULL);
    e->stamp = it->stamp;
    it->json = NULL;
    it->rec = NULL;
    it->entry = e;
    it->rev = em_store_obj_rv(e->rec);
    char kb[EM_STORE_KEY_MAX];
    it->ent = em_index_ent_new(em_store_ix_key(it->ns, it->name, kb, sizeof kb), e);
    em_owners_run_set(run, k, it->ns, it->name, e->rec);
}

/* The descriptor of the directory j's files are in, kept by the loader thread while its
 * items come from it (they come directory by directory): a file is then opened by its
 * name alone, not a path the kernel walks from the root (a quarter of an open's CPU). -1
 * when it cannot be opened (then by path). */
static int dir_fd(struct loader *ld, const struct job *j)
{
    if (ld->dirpath != j->dirpath) {
        if (ld->dfd >= 0)
            close(ld->dfd);
        ld->dirpath = j->dirpath;
        ld->dfd = open(j->dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    return ld->dfd;
}

/* One item: from the checkpoint when its file is unchanged (the stat done here, on the
 * loader threads, not in the scan), else from its file; then, for the store (run), what
 * it makes of it. */
static void load_one(struct em_loaded *it, const struct job *j, struct loader *ld,
                     struct em_rec_share *sh, struct em_owners_run *run)
{
    if (j->done)
        return;
    const struct em_ckpt *ck = ld->w->ck;
    /* the file: its name in the directory's descriptor, else its path */
    int at = dir_fd(ld, j);
    char buf[4096];
    size_t nlen = strlen(it->name);
    int len = -1;
    if (at >= 0 && nlen + sizeof ".json" <= sizeof buf) { /* (one per file: no printf) */
        memcpy(buf, it->name, nlen);
        memcpy(buf + nlen, ".json", sizeof ".json");
        len = (int)(nlen + 5);
    } else if (at < 0) {
        len = snprintf(buf, sizeof buf, "%s/%s.json", j->dirpath, it->name);
    }
    char *path = buf;
    if (len < 0 || (size_t)len >= sizeof buf) {
        at = -1;
        path = nd_xasprintf("%s/%s.json", j->dirpath, it->name);
    }
    if (at < 0)
        at = AT_FDCWD;
    else
        ld->in_dir++;
    const struct em_ckpt_rec *r = ck ? unchanged(it, at, path, j, ck) : NULL;
    if (r && load_checkpointed(it, r, sh)) {
        it->from_checkpoint = true;
    } else {
        /* none, or not what it should be: the file decides */
        it->stamp.valid = false;
        load_from_file(it, at, path, j->kind, j->plan, sh);
        if (it->why) /* its path, kept only when it is broken (a report names it) */
            it->path = nd_xasprintf("%s/%s.json", j->dirpath, it->name);
    }
    if (path != buf)
        free(path);
    if (run && it->rec && j->kind)
        make_entry(it, j->kind, run);
}

static void *worker(void *arg)
{
    struct loader *ld = arg;
    struct work *w = ld->w;
    struct em_rec_share *sh = em_rec_share_new(); /* this thread's */
    struct em_owners_run *run = w->make ? ld->run : NULL;
    for (;;) {
        size_t at = atomic_fetch_add(&w->next, BLOCK);
        if (at >= w->n)
            break;
        size_t end = at + BLOCK < w->n ? at + BLOCK : w->n;
        for (size_t i = at; i < end; i++) {
            struct em_loaded *it = &w->items[i];
            const struct job *j = &w->jobs[i];
            if (w->load)
                load_one(it, j, ld, sh, run);
            else if (run && !j->done && it->rec && j->kind)
                make_entry(it, j->kind, run);
            ld->made += !j->done && it->entry; /* (not the Events') */
        }
    }
    if (ld->dfd >= 0)
        close(ld->dfd);
    ld->dfd = -1;
    ld->dirpath = NULL;
    if (run) /* the sort on this thread too: the store only merges the runs */
        em_owners_run_sort(run);
    em_rec_share_free(sh);
    em_rec_arena_done();
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

/* What the scan of DIR/objects gathers: the items (out) and, per item, where its bytes
 * come from (jobs). */
struct scan {
    struct em_load *out;
    struct job *jobs;
    size_t cap;
    bool no_plans; /* NODUS_EMULATOR_TEST_JANSSON_LOAD: every file read by jansson */
    struct em_rec_share *share; /* the Events' records (read during the scan) */
    struct em_scan_plan **plans; /* one per kind directory */
    size_t nplans;
    struct em_scan_plan *events_plan; /* the Events' lines (NULL: no_plans) */
    struct em_owners_run *run; /* for the store: the Events' owner index entries */
};

/* A new item and its job at the end of the scan's arrays. */
static struct em_loaded *add_item(struct scan *sc, struct job **j)
{
    struct em_load *out = sc->out;
    if (out->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 256;
        out->items = nd_xrealloc(out->items, sc->cap * sizeof *out->items);
        sc->jobs = nd_xrealloc(sc->jobs, sc->cap * sizeof *sc->jobs);
    }
    struct em_loaded *it = &out->items[out->n];
    *j = &sc->jobs[out->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* Room for n more items (no doubling as they come). */
static void reserve_items(struct scan *sc, size_t n)
{
    struct em_load *out = sc->out;
    if (out->n + n <= sc->cap)
        return;
    sc->cap = out->n + n;
    out->items = nd_xrealloc(out->items, sc->cap * sizeof *out->items);
    sc->jobs = nd_xrealloc(sc->jobs, sc->cap * sizeof *sc->jobs);
}

/* One object file of the kind directory pdir, name (NEW, its name less ".json") taken:
 * its item, loaded later (load_one). */
static void scan_file(struct scan *sc, const char *pdir, char *name, const char *plural,
                      const struct nd_kind *kind, const struct em_scan_plan *plan,
                      const char *nsdirname, const char *ns)
{
    struct job *j;
    struct em_loaded *it = add_item(sc, &j);
    *j = (struct job){.dirpath = pdir, .nsdirname = nsdirname, .kind = kind, .plan = plan};
    it->plural = plural;
    it->ns = ns;
    it->name = name;
}

/* The names (NEW, *n of them, each less ".json") of the object files the kind directory
 * d lists, in its order; the temporary files of interrupted writes are removed (the old
 * file stands). */
static char **list_names(DIR *d, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strstr(e->d_name, ".json.tmp-")) {
            unlinkat(dfd, e->d_name, 0);
            continue;
        }
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            v = nd_xrealloc(v, cap * sizeof *v);
        }
        v[(*n)++] = nd_xstrndup(e->d_name, strlen(e->d_name) - 5);
    }
    return v;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(struct em_loaded *const *)a)->name, (*(struct em_loaded *const *)b)->name);
}

/* Puts the items from `from` on (one directory's) in name order, so the store's indexes
 * are built by appending (index.c: a key past the last costs one comparison) instead of
 * inserting each at a random place. */
static void sort_run(struct scan *sc, size_t from)
{
    struct em_load *out = sc->out;
    size_t n = out->n - from;
    if (n < 2)
        return;
    struct em_loaded **by = nd_xmalloc(n * sizeof *by);
    for (size_t i = 0; i < n; i++)
        by[i] = &out->items[from + i];
    qsort(by, n, sizeof *by, by_name);
    struct em_loaded *items = nd_xmalloc(n * sizeof *items);
    struct job *jobs = nd_xmalloc(n * sizeof *jobs);
    for (size_t i = 0; i < n; i++) {
        items[i] = *by[i];
        jobs[i] = sc->jobs[by[i] - out->items];
    }
    memcpy(&out->items[from], items, n * sizeof *items);
    memcpy(&sc->jobs[from], jobs, n * sizeof *jobs);
    free(jobs);
    free(items);
    free(by);
}

/* What events_file.c found: an item loaded already. */
struct ev_sink {
    struct scan *sc;
    const char *plural, *ns;
};

static void event_item(void *ctx, char *name, json_t *obj, struct em_bytes *json, char *path,
                       char *why)
{
    struct ev_sink *es = ctx;
    struct job *j;
    struct em_loaded *it = add_item(es->sc, &j);
    *j = (struct job){.done = true};
    it->plural = es->plural;
    it->ns = es->ns;
    it->name = name;
    const struct nd_kind *k = nd_kind_by_plural(NULL, es->plural);
    if (json) { /* read in one pass: its bytes, and its record from the scan's part */
        it->json = json;
        keep_rec(it, k, obj, es->sc->share);
    } else if (obj) { /* its bytes and record, as for a file */
        keep_bytes(it, k, obj, es->sc->share);
    }
    if (es->sc->run && it->rec && k) /* for the store, as the loader threads do */
        make_entry(it, k, es->sc->run);
    it->path = path;
    it->why = why;
}

/* The object files of one kind directory DIR/objects/<nsdirname>/<plural>. */
static void scan_kind_dir(struct scan *sc, const char *nsdir, const char *dname,
                          const char *nsdirname, const char *ns)
{
    char *pdir = nd_xasprintf("%s/%s", nsdir, dname);
    if (em_events_kind(nd_kind_by_plural(NULL, dname)) && *ns) {
        /* one file per project and hour (events_file.h) */
        struct ev_sink es = {sc, keep_dir(sc->out, nd_xstrdup(dname)), ns};
        size_t from = sc->out->n;
        if (!sc->no_plans && !sc->events_plan)
            sc->events_plan = em_events_scan_plan();
        struct em_events_read rd = {.report = &sc->out->report};
        em_events_load_dir(pdir, ns, sc->events_plan, event_item, &es, &rd);
        sc->out->event_lines += rd.lines;
        sc->out->event_parsed += rd.parsed;
        sort_run(sc, from);
        free(pdir);
        return;
    }
    DIR *d3 = opendir(pdir);
    if (!d3) {
        free(pdir);
        return;
    }
    keep_dir(sc->out, pdir);
    const char *plural = keep_dir(sc->out, nd_xstrdup(dname));
    /* the edge where a plural (a directory's name) becomes a kind: its records' fields */
    const struct nd_kind *kind = nd_kind_by_plural(NULL, plural);
    struct em_scan_plan *plan = NULL;
    if (!sc->no_plans) {
        plan = em_scan_plan_new(kind);
        sc->plans = nd_xrealloc(sc->plans, (sc->nplans + 1) * sizeof *sc->plans);
        sc->plans[sc->nplans++] = plan;
    }
    size_t n = 0;
    char **names = list_names(d3, &n);
    closedir(d3);
    /* in name order, so the store's indexes are built by appending (index.c: a key past
     * the last costs one comparison) instead of inserting each at a random place */
    em_names_sort(names, n);
    reserve_items(sc, n);
    for (size_t i = 0; i < n; i++)
        scan_file(sc, pdir, names[i], plural, kind, plan, nsdirname, ns);
    free(names);
}

/* Every kind directory of one project directory DIR/objects/<dname>. */
static void scan_project_dir(struct scan *sc, const char *root, const char *dname)
{
    const char *nsdirname = keep_dir(sc->out, nd_xstrdup(dname));
    const char *ns = strcmp(dname, CLUSTER_DIR) == 0 ? "" : nsdirname;
    char *nsdir = nd_xasprintf("%s/%s", root, dname);
    DIR *d2 = opendir(nsdir);
    struct dirent *e2;
    while (d2 && (e2 = readdir(d2))) {
        if (e2->d_name[0] != '.')
            scan_kind_dir(sc, nsdir, e2->d_name, nsdirname, ns);
    }
    if (d2)
        closedir(d2);
    free(nsdir);
}

/* A project directory's name as its objects' index keys begin (store_ix.h): the
 * cluster-scoped objects' is "". */
static const char *ns_of_dir(const char *dname)
{
    return strcmp(dname, CLUSTER_DIR) == 0 ? "" : dname;
}

static int by_ns(const void *a, const void *b)
{
    return strcmp(ns_of_dir(*(char *const *)a), ns_of_dir(*(char *const *)b));
}

/* The project directories of DIR/objects (NEW, *n of them), in the order of their
 * projects: a kind's objects then come in its index's key order, project by project, so
 * the store appends each (index.c: one comparison), whatever order the directory lists
 * them in. */
static char **project_dirs(DIR *d1, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    struct dirent *e1;
    while ((e1 = readdir(d1))) {
        if (e1->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            v = nd_xrealloc(v, cap * sizeof *v);
        }
        v[(*n)++] = nd_xstrdup(e1->d_name);
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, by_ns);
    return v;
}

/* One pass of the workers over the items, on the threads (when there are enough). */
static void run_pass(struct work *w, struct loader *ld)
{
    atomic_init(&w->next, 0);
    pthread_t th[THREADS - 1];
    size_t started = 0;
    if (w->n >= 4 * BLOCK) {
        for (size_t t = 0; t < THREADS - 1; t++) {
            if (pthread_create(&th[started], NULL, worker, &ld[started + 1]) == 0)
                started++;
        }
    }
    worker(&ld[0]);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* Parses the items: separate objects on separate threads; the hash seed is fixed first.
 * For the store (index), the threads make what the store keeps of each object too: as
 * they load it, or, when there is a checkpoint, in a second pass once it is freed (its
 * buffer and all that together would raise the start's peak). */
static void parse_all(struct em_load *out, struct job *jobs, struct em_ckpt *ck, bool index)
{
    json_object_seed(0);
    struct work w = {.items = out->items, .jobs = jobs, .n = out->n, .ck = ck,
                     .make = index && !ck, .load = true};
    struct loader ld[THREADS];
    for (size_t t = 0; t < THREADS; t++)
        ld[t] = (struct loader){.w = &w, .run = index ? &out->runs[t] : NULL, .dfd = -1};
    run_pass(&w, ld);
    if (index && ck) {
        em_ckpt_free(ck);
        w = (struct work){.items = out->items, .jobs = jobs, .n = out->n, .make = true};
        run_pass(&w, ld);
    }
    for (size_t t = 0; t < THREADS; t++) {
        out->made_on_threads += ld[t].made;
        out->opened_in_dir += ld[t].in_dir;
    }
}

/* The checkpoint, read (with its checksum) on a thread of its own while the directories
 * are listed. */
struct ck_read {
    const char *dir;
    struct em_ckpt ck;
    bool ok;
};

static void *read_ck(void *arg)
{
    struct ck_read *cr = arg;
    cr->ok = em_ckpt_read(cr->dir, &cr->ck);
    return NULL;
}

void em_load_objects(const char *dir, struct em_load *out, bool index)
{
    memset(out, 0, sizeof *out);
    nd_buf_init(&out->report, 0);
    struct scan sc = {.out = out, .share = em_rec_share_new()};
    if (index) { /* one run per loader thread, and the scan's (the Events') last */
        out->runs = nd_xcalloc(THREADS + 1, sizeof *out->runs);
        out->nruns = THREADS + 1;
        sc.run = &out->runs[THREADS];
    }
    /* tests only: the files read as before the one-pass scan, to compare what is served */
    const char *slow = getenv("NODUS_EMULATOR_TEST_JANSSON_LOAD");
    sc.no_plans = slow && *slow && strcmp(slow, "0") != 0;
    em_rec_arena_init(); /* before the threads */
    struct ck_read cr = {.dir = dir};
    pthread_t th;
    char *ckpath = nd_xasprintf("%s/history/checkpoint", dir);
    bool threaded = false;
    if (access(ckpath, F_OK) == 0) { /* most starts after a crash or a first have none */
        threaded = pthread_create(&th, NULL, read_ck, &cr) == 0;
        if (!threaded)
            read_ck(&cr);
    }
    free(ckpath);
    char *root = nd_xasprintf("%s/objects", dir);
    DIR *d1 = opendir(root);
    if (d1) {
        size_t n = 0;
        char **projects = project_dirs(d1, &n);
        for (size_t i = 0; i < n; i++) {
            scan_project_dir(&sc, root, projects[i]);
            free(projects[i]);
        }
        free(projects);
        closedir(d1);
    }
    if (sc.run)
        em_owners_run_sort(sc.run);
    if (threaded)
        pthread_join(th, NULL);
    if (d1)
        parse_all(out, sc.jobs, cr.ok ? &cr.ck : NULL, index);
    em_rec_share_free(sc.share);
    em_rec_arena_done(); /* the Events' records (scan_kind_dir) */
    free(root);
    free(sc.jobs);
    for (size_t i = 0; i < sc.nplans; i++)
        em_scan_plan_free(sc.plans[i]);
    free(sc.plans);
    em_scan_plan_free(sc.events_plan);
    if (cr.ok)
        em_ckpt_free(&cr.ck);
}

void em_load_free(struct em_load *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct em_loaded *it = &l->items[i];
        free(it->name);
        free(it->path);
        free(it->why);
        json_decref(it->rec);
        em_bytes_unref(it->json);
        em_index_ent_free(it->ent); /* what the store did not take */
        em_entry_free(it->entry);
    }
    free(l->items);
    for (size_t i = 0; i < l->nruns; i++)
        em_owners_run_free(&l->runs[i]);
    free(l->runs);
    for (size_t i = 0; i < l->ndirs; i++)
        free(l->dirs[i]);
    free(l->dirs);
    nd_buf_release(&l->report);
    memset(l, 0, sizeof *l);
    /* the parse's trees were freed among the bytes kept: the free pages between them go
     * back to the kernel (glibc) */
    malloc_trim(0);
}
