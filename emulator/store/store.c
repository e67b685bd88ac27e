/* The flat-JSON object store; see store.h. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "crash_repair.h"
#include "events_file.h"
#include "fsutil.h"
#include "index.h"
#include "pretty.h"
#include "rec_share.h"
#include "splice.h"
#include "store_ix.h"
#include "torture.h"
#include "util/xmalloc.h"

#define CLUSTER_DIR "_cluster"

char *em_store_path(const struct em_store *s, const char *rel)
{
    return nd_xasprintf("%s/%s", s->dir, rel);
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

int64_t em_store_obj_rv(const json_t *obj)
{
    const char *rv = meta_str(obj, "resourceVersion");
    return rv ? strtoll(rv, NULL, 10) : 0;
}

/* space the journal keeps allocated ahead of a write (a bigger write is undone if it fails) */
#define EM_STORE_RESERVE (64u << 10)

int em_store_io_status(const struct em_store *s, struct nd_status *st, int err,
                       const char *path)
{
    bool full = err == ENOSPC || err == EDQUOT;
    char *fix = nd_xasprintf(full ? "free space on the disk that holds %s, then retry"
                                  : "check the disk and the permissions of %s, then retry",
                             s->dir);
    nd_status_set(st, full ? "StorageFull" : "StorageError", fix,
                  "the change was not made: cannot write %s: %s", path, strerror(err));
    free(fix);
    return -1;
}

void em_store_note_error(struct em_store *s, const char *path, int err)
{
    if (!s->journal.path)
        return;
    pthread_mutex_lock(&s->journal.lock);
    em_journal_note_error(&s->journal, path, err);
    pthread_mutex_unlock(&s->journal.lock);
}

int em_store_write_file(struct em_store *s, const char *path, const char *data, size_t len,
                        struct nd_status *st)
{
    if (em_write_atomic(path, data, len, s->fsync_mode != EM_FSYNC_NEVER) == 0)
        return 0;
    int e = errno ? errno : EIO;
    em_store_note_error(s, path, e);
    return em_store_io_status(s, st, e, path);
}

int em_store_reserve(struct em_store *s, struct nd_status *st)
{
    if (!s->journal.path)
        return 0;
    int e = em_journal_reserve(&s->journal, EM_STORE_RESERVE);
    return e ? em_store_io_status(s, st, e, s->journal.path) : 0;
}

/* The pretty text of an object's file: NEW, with its length. */
static char *file_text(const json_t *obj, size_t *len)
{
    char *text = json_dumps(obj, JSON_INDENT(2));
    size_t n = strlen(text);
    text = nd_xrealloc(text, n + 2);
    text[n] = '\n';
    text[n + 1] = '\0';
    *len = n + 1;
    return text;
}

const char *em_store_ix_key(const char *ns, const char *name, char *buf, size_t cap)
{
    size_t a = strlen(ns), b = strlen(name);
    if (a + 1 + b < cap) { /* (a start makes one per object: no printf) */
        memcpy(buf, ns, a);
        buf[a] = '\x01';
        memcpy(buf + a + 1, name, b + 1);
    } else {
        snprintf(buf, cap, "%s\x01%s", ns, name);
    }
    return buf;
}

const struct nd_kind *em_store_kind(const struct nd_kind *k)
{
    return k && k->from_stored ? nd_kind_by_plural(NULL, k->plural) : k;
}

struct em_index *em_store_index(struct em_store *s, const struct nd_kind *k, bool create)
{
    for (size_t i = 0; i < s->nkinds; i++) {
        if (s->kinds[i].kind == k)
            return s->kinds[i].ix;
    }
    if (!create || !k)
        return NULL;
    s->kinds = nd_xrealloc(s->kinds, (s->nkinds + 1) * sizeof *s->kinds);
    s->kinds[s->nkinds].kind = k;
    s->kinds[s->nkinds].ix = em_index_new();
    return s->kinds[s->nkinds++].ix;
}

static void entry_free(void *v)
{
    em_entry_free(v);
}

/* Sets (e, taken) or removes (e NULL) an object in the kind's index. */
static void set_entry(struct em_store *s, const struct nd_kind *k, const char *ns, const char *name,
                      struct em_entry *e)
{
    char kb[EM_STORE_KEY_MAX];
    em_store_ix_key(ns, name, kb, sizeof kb);
    struct em_index *ix = em_store_index(s, k, true);
    struct em_entry *old = e ? em_index_put(ix, kb, e) : em_index_del(ix, kb);
    em_owners_set(&s->owners, k, ns, name, e ? e->rec : NULL); /* the record holds both */
    if (em_events_kind(k))
        em_events_count(s->events_live, ns, old ? old->rec : NULL, e ? e->rec : NULL);
    em_entry_retire(old); /* its tree borrowed (em_store_get) stays until the safe point */
}

static void note_rev(struct em_store *s, const json_t *rec)
{
    int64_t rv = em_store_obj_rv(rec);
    if (rv > s->revision)
        s->revision = rv;
}

/* Notes a broken file; its line waits in lines ("plural/ns/name" -> line) for the start's
 * report, as the journal may yet show it a power loss's leftover (crash_repair.h). */
static void report_broken(struct em_store *s, json_t *lines, const char *plural,
                          const char *ns, const char *name, const char *path, const char *why)
{
    char *key = nd_xasprintf("%s/%s/%s", plural, ns, name);
    json_object_set_new(s->broken, key, json_string(path));
    char *line = nd_xasprintf("state: %s: %s (left untouched; fix or remove it)\n", path, why);
    json_object_set_new(lines, key, json_string(line));
    free(line);
    free(key);
}

/* The broken files' lines that no repair took back, in load order. */
static void report_still_broken(struct em_store *s, json_t *lines, struct nd_buf *report)
{
    const char *key;
    json_t *line;
    json_object_foreach(lines, key, line) {
        if (json_object_get(s->broken, key))
            nd_buf_addf(report, "%s", json_string_value(line));
    }
}

/* An object the loader threads made an entry of (checkpoint.h): linked into its kind's
 * index ix (what set_entry does, but the owner index: em_owners_take, after). */
static void link_entry(struct em_store *s, const struct nd_kind *k, struct em_index *ix,
                       struct em_loaded *it)
{
    struct em_entry *old = em_index_put_ent(ix, it->ent);
    if (em_events_kind(k))
        em_events_count(s->events_live, it->ns, old ? old->rec : NULL, it->entry->rec);
    entry_free(old);
    if (it->rev > s->revision)
        s->revision = it->rev;
    it->ent = NULL;
    it->entry = NULL;
}

/* Every object file (checkpoint.h: from the last clean stop's checkpoint where the file
 * is unchanged, parsed on two threads, which make each object's entry and index entries
 * too), by directory and in name order within each. */
static void load_all(struct em_store *s, json_t *broken_lines, struct nd_buf *report)
{
    struct em_load l;
    em_load_objects(s->dir, &l, true);
    struct em_owners_taking taking; /* the runs the threads sorted, merged meanwhile */
    em_owners_take_begin(&taking, &s->owners, l.runs, l.nruns, true);
    const char *plural = NULL; /* the last item's (shared per directory), its kind, index */
    const struct nd_kind *k = NULL;
    struct em_index *ix = NULL;
    for (size_t i = 0; i < l.n; i++) {
        struct em_loaded *it = &l.items[i];
        if (it->plural != plural) {
            /* the edge where a plural (a directory's name) becomes a kind */
            plural = it->plural;
            k = nd_kind_by_plural(NULL, plural);
            ix = NULL;
        }
        if (it->entry) {
            if (!ix)
                ix = em_store_index(s, k, true);
            link_entry(s, k, ix, it);
        } else { /* (every object of a kind has its entry made) */
            char *path = it->path ? NULL : obj_file(s, it->plural, it->ns, it->name);
            char *why = it->rec ? nd_xasprintf("the directory %s names no kind", it->plural) : NULL;
            report_broken(s, broken_lines, it->plural, it->ns, it->name, path ? path : it->path,
                          why ? why : it->why);
            free(path);
            free(why);
            continue;
        }
        if (it->from_checkpoint)
            s->loaded_checkpoint++;
        else
            s->loaded_files++;
    }
    em_owners_take_end(&taking);
    s->indexed_on_loaders = l.made_on_threads;
    s->opened_in_dir = l.opened_in_dir;
    s->event_lines = l.event_lines;
    s->event_parsed = l.event_parsed;
    nd_buf_add(report, l.report.data, l.report.len);
    em_load_free(&l);
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

int em_store_bring_up(struct em_store *s, const struct nd_kind *k,
                      const struct em_journal_record *r, const char *why, struct nd_buf *report)
{
    json_t *obj = json_loadb(r->json->data, r->json->len, 0, NULL);
    size_t len = 0;
    char *text = obj ? file_text(obj, &len) : NULL;
    char *path = obj_file(s, r->plural, r->ns, r->name);
    int rc = text ? em_store_bring_up_write(s, path, text, len) : -1;
    if (rc == 0) {
        struct em_entry *e = em_entry_new(em_bytes_ref(r->json), em_rec_of(k, obj), NULL);
        e->text_hash = em_hash64(text, len, EM_TEXT_SEED);
        note_rev(s, e->rec);
        set_entry(s, k, r->ns, r->name, e);
        nd_buf_addf(report, "state: %s: brought up to revision %lld from the journal (%s)\n",
                    path, (long long)r->rev, why);
        s->repaired++;
    }
    free(path);
    free(text);
    json_decref(obj);
    return rc == 0 ? 0 : -1;
}

/* The newest record of each object among the log's tail (the records whose file
 * write a crash may have cut off) brings its file up to date: a missing or older file
 * is written (or, for DELETED, removed) unless it changed after the record was written
 * and is not a revision the journal itself wrote (a hand edit wins); a broken file is
 * moved aside and written (em_store_torn: the journal is the truth for its tail). An
 * Event older than its record, or missing, is appended to its hour file whenever that
 * file changed. */
static void repair(struct em_store *s, struct nd_buf *report)
{
    json_t *newest = json_object(); /* "plural\nns/name" -> index into history */
    for (size_t i = 0; i < s->nhistory; i++) {
        const struct em_journal_record *r = &s->history[i];
        if (!r->tail || !r->name)
            continue;
        char *key = nd_xasprintf("%s\n%s/%s", r->plural, r->ns, r->name);
        json_object_set_new(newest, key, json_integer((json_int_t)i));
        free(key);
    }
    const char *key;
    json_t *iv;
    json_object_foreach(newest, key, iv) {
        const struct em_journal_record *r = &s->history[json_integer_value(iv)];
        const char *plural = r->plural, *ns = r->ns, *name = r->name;
        const struct nd_kind *k = nd_kind_by_plural(NULL, plural);
        int64_t rev = r->rev;
        if (!k)
            continue; /* a record of no kind: nothing would load its file */
        char *bkey = nd_xasprintf("%s/%s/%s", plural, ns, name);
        const char *bpath = json_string_value(json_object_get(s->broken, bkey));
        /* (a broken line of an hour file is "<hour>:<line>", no Event's name) */
        char *broken = bpath ? nd_xstrdup(bpath) : NULL;
        free(bkey);
        if (broken) {
            em_store_torn(s, k, r, broken, report);
            free(broken);
            continue;
        }
        bool events = em_events_kind(k);
        json_t *robj = events ? json_loadb(r->json->data, r->json->len, 0, NULL) : NULL;
        char *path = events ? em_events_path(s->dir, ns, robj) : obj_file(s, plural, ns, name);
        struct stat sb;
        bool present = stat(path, &sb) == 0;
        int64_t mtime_us = present ? (int64_t)sb.st_mtim.tv_sec * 1000000 +
                                         sb.st_mtim.tv_nsec / 1000
                                   : 0;
        const struct em_entry *cur = em_store_entry(s, k, ns, name);
        bool deleted = strcmp(r->type, "DELETED") == 0;
        bool stale = !present ? !deleted
                              : em_store_obj_rv(cur ? cur->rec : NULL) < rev &&
                                    (mtime_us < r->wall_us ||
                                     (cur && em_store_journal_wrote(s, em_entry_obj(cur), r)));
        /* an hour file holds many Events: its mtime moves with any of them, and with a
         * failed append's cut back (a full disk), so it says nothing of this one, which is
         * owed when the file does not hold it at this revision */
        if (events)
            stale = em_store_obj_rv(cur ? cur->rec : NULL) < rev && !(deleted && !cur);
        if (stale && events) {
            if (em_events_repair(s->dir, s->events_live, r, cur ? cur->rec : NULL, robj,
                                 report) == 0) {
                struct em_entry *e =
                    deleted ? NULL : em_entry_new(em_bytes_ref(r->json), em_rec_of(k, robj), NULL);
                if (e)
                    note_rev(s, e->rec);
                set_entry(s, k, ns, name, e);
                s->repaired++;
            }
        } else if (stale && deleted) {
            if (unlink(path) == 0) {
                set_entry(s, k, ns, name, NULL);
                nd_buf_addf(report, "state: %s: removed, as revision %lld of the journal says "
                                    "(a write the last stop interrupted)\n",
                            path, (long long)rev);
                s->repaired++;
            }
        } else if (stale) {
            em_store_bring_up(s, k, r, "a write the last stop interrupted", report);
        }
        json_decref(robj);
        free(path);
    }
    json_decref(newest);
}

/* A start refused before anything was loaded (no directory, the lock held by another
 * emulator): give back what em_store_open took so far. */
static int open_refused(struct em_store *s)
{
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    s->lock_fd = -1;
    json_decref(s->broken);
    s->broken = NULL;
    json_decref(s->events_live);
    s->events_live = NULL;
    free(s->dir);
    s->dir = NULL;
    return -1;
}

int em_store_open(struct em_store *s, const char *dir, enum em_fsync mode, bool reset,
                  struct nd_buf *report, struct nd_buf *err)
{
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
    s->journal.fd = -1;
    s->dir = nd_xstrdup(dir);
    s->fsync_mode = mode;
    s->broken = json_object();
    s->events_live = json_object();
    if (em_mkdir_p(dir) < 0) {
        nd_buf_addf(err, "cannot create state directory %s: %s", dir, strerror(errno));
        return open_refused(s);
    }
    char *lock = em_store_path(s, "emulator.lock");
    s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->lock_fd < 0) {
        nd_buf_addf(err, "cannot open %s: %s", lock, strerror(errno));
        free(lock);
        return open_refused(s);
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(s->lock_fd, F_SETLK, &fl) < 0) {
        nd_buf_addf(err,
                    "state directory %s is in use by another emulator (lock %s held); stop it "
                    "or pass another --state",
                    dir, lock);
        free(lock);
        return open_refused(s);
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
    json_t *broken_lines = json_object();
    load_all(s, broken_lines, report);
    char *log = em_store_path(s, "history/journal.ndjson");
    size_t bad = 0, torn = 0;
    int64_t applied = 0;
    int rc = em_journal_read(log, &s->history, &s->nhistory, &bad, &s->journal_parsed, &torn,
                             &applied, err);
    s->journal_records = s->nhistory;
    if (rc == 0) {
        if (torn)
            nd_buf_addf(report, "state: %s: cut %zu bytes of a torn last record (a write the "
                                "last stop interrupted)\n",
                        log, torn);
        if (bad)
            nd_buf_addf(report, "state: %s: skipped %zu lines that are not records\n", log,
                        bad);
        repair(s, report);
        em_crash_repair(s, report);
        bool tail = false;
        for (size_t i = 0; i < s->nhistory; i++) {
            if (s->history[i].rev > s->revision)
                s->revision = s->history[i].rev;
            tail |= s->history[i].tail;
        }
        /* the tail's files (written by the last run behind its journal, or just now by
         * the repairs) on the disk before the journal's next marker counts them */
        bool unsynced = (tail || s->repaired) && mode != EM_FSYNC_NEVER &&
                        em_syncfs_dir(s->dir) < 0;
        rc = em_journal_open(&s->journal, log, mode, s->revision, err);
        s->journal.spare_seq = s->open_spares; /* (the repairs' spares: flushed, or not) */
        if (unsynced)
            s->journal.applied_rev = applied; /* the next start looks at them again */
    }
    if (rc == 0 && em_journal_start_thread(&s->journal) < 0) {
        nd_buf_addf(err, "cannot start the journal's thread");
        rc = -1;
    }
    report_still_broken(s, broken_lines, report);
    json_decref(broken_lines);
    free(log);
    return rc;
}

/* Whether every change is on disk with its file written (a checkpoint may vouch for the
 * files then). */
static bool all_applied(struct em_store *s)
{
    em_journal_drain(&s->journal);
    pthread_mutex_lock(&s->journal.lock);
    bool ok = !s->journal.nretry && s->journal.applied_rev == s->journal.appended_rev &&
              s->journal.durable == s->journal.appended;
    pthread_mutex_unlock(&s->journal.lock);
    return ok;
}

int em_store_stop(struct em_store *s, struct nd_buf *err)
{
    int rc = 0;
    if (s->journal.path)
        em_store_rollback(s); /* what failed is not written by the checkpoint either */
    bool clean = s->journal.path && s->lock_fd >= 0 && all_applied(s);
    if (s->journal.path && em_journal_close(&s->journal, err) < 0)
        rc = -1;
    /* a clean stop: the next start takes unchanged files' objects from the checkpoint
     * (one that cannot be written leaves the previous one whole: it is renamed over it) */
    if (clean && em_checkpoint_write(s) < 0) {
        nd_buf_addf(err, "%scannot write the checkpoint %s/history/checkpoint: %s (the next "
                    "start reads the object files)", rc ? "; " : "", s->dir, strerror(errno));
        rc = -1;
    }
    em_journal_records_free(s->history, s->nhistory);
    s->history = NULL;
    s->nhistory = 0;
    em_store_undo_clear(s);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    s->lock_fd = -1;
    return rc;
}

void em_store_close(struct em_store *s)
{
    struct nd_buf err = ND_BUF_INIT;
    em_store_stop(s, &err);
    nd_buf_release(&err);
    for (size_t i = 0; i < s->nkinds; i++)
        em_index_free(s->kinds[i].ix, entry_free);
    free(s->kinds);
    em_owners_clear(&s->owners);
    json_decref(s->broken);
    json_decref(s->events_live);
    em_rec_share_free(s->rec_share);
    em_entry_trim(); /* the trees its writes retired */
    free(s->dir);
    memset(s, 0, sizeof *s);
    s->lock_fd = -1;
}

uint64_t em_store_ticket(struct em_store *s)
{
    return s->journal.path ? em_journal_ticket(&s->journal) : 0;
}

int64_t em_store_durable_rev(struct em_store *s)
{
    if (EM_TORTURE_WATCH_EARLY)
        return s->revision;
    return s->journal.path ? em_journal_durable_rev(&s->journal) : s->revision;
}

void em_store_hold(struct em_store *s)
{
    if (s->journal.path)
        em_journal_hold(&s->journal);
}

void em_store_unhold(struct em_store *s)
{
    if (s->journal.path)
        em_journal_unhold(&s->journal);
}

int em_store_commit(struct em_store *s, uint64_t ticket)
{
    return s->journal.path ? em_journal_commit(&s->journal, ticket) : 0;
}

bool em_store_settled(struct em_store *s, uint64_t ticket)
{
    return !s->journal.path || em_journal_settled(&s->journal, ticket);
}

int64_t em_store_rollback(struct em_store *s)
{
    uint64_t from = s->journal.path ? em_journal_recover(&s->journal) : 0;
    if (!from)
        return -1;
    int64_t rev = -1;
    while (s->nundo && s->undo[s->nundo - 1].ticket >= from) {
        struct em_undo *u = &s->undo[--s->nundo];
        set_entry(s, u->kind, u->ns, u->name, u->prev); /* taken */
        u->prev = NULL;
        rev = u->rev - 1;
        em_store_undo_release(u);
    }
    if (rev >= 0 && rev < s->revision)
        s->revision = rev;
    return rev >= 0 ? rev : s->revision;
}

int64_t em_store_next_revision(struct em_store *s)
{
    if (EM_TORTURE_RV_LOW && !s->torture_lowered) {
        s->torture_lowered = true; /* the first revision of this run: 100 too low */
        s->revision = s->revision > 100 ? s->revision - 100 : 0;
    }
    return ++s->revision;
}

const struct em_entry *em_store_entry(struct em_store *s, const struct nd_kind *k, const char *ns,
                                      const char *name)
{
    struct em_index *ix = em_store_index(s, em_store_kind(k), false);
    if (!ix || !name)
        return NULL;
    char kb[EM_STORE_KEY_MAX];
    return em_index_get(ix, em_store_ix_key(ns ? ns : "", name, kb, sizeof kb));
}

json_t *em_store_get(struct em_store *s, const struct nd_kind *k, const char *ns, const char *name)
{
    const struct em_entry *e = em_store_entry(s, k, ns, name);
    return e ? em_entry_obj(e) : NULL;
}

struct em_bytes *em_store_entry_json(const struct em_entry *e)
{
    return e->json;
}

void em_store_trim(struct em_store *s)
{
    (void)s;
    em_entry_trim();
}

static int check_broken(struct em_store *s, const struct nd_kind *k, const char *ns,
                        const char *name, struct nd_status *st)
{
    char *key = nd_xasprintf("%s/%s/%s", k->plural, ns, name);
    const char *path = json_string_value(json_object_get(s->broken, key));
    free(key);
    if (!path)
        return 0;
    return nd_status_set(st, "InternalError", "fix or remove the file, then restart the emulator",
                         "the state file %s is broken and was left untouched", path);
}

/* A change the store logs: of which object, what, when, at which revision. */
struct change {
    const struct nd_kind *k; /* the stored kind */
    const char *ns, *name, *type;
    int64_t time_ms, rev;
};

/* Logs a change of the object json (its compact JSON, taken: given back) and queues its
 * file write (the file goes when text_hash is NULL, else *text_hash is the hash of the
 * text written). obj is its tree (an Event's hour file reads it). */
static struct em_bytes *log_change(struct em_store *s, const struct change *ch, const json_t *obj,
                                   struct em_bytes *json, uint64_t *text_hash)
{
    const struct nd_kind *k = ch->k;
    const char *ns = ch->ns, *name = ch->name, *type = ch->type;
    int64_t time_ms = ch->time_ms, rev = ch->rev;
    const char *plural = k->plural; /* the log's and the file's name of the kind */
    bool remove = text_hash == NULL; /* a deletion: no file text */
    const struct em_entry *cur = em_store_entry(s, k, ns, name);
    size_t llen;
    char *line = em_store_record_line_bytes(rev, time_ms, type, plural, json->data, &llen);
    struct em_journal_op op = {0};
    if (em_events_kind(k)) {
        em_events_op(s->dir, s->events_live, ns, cur ? cur->rec : NULL, obj, json, remove, &op);
    } else {
        op.path = obj_file(s, plural, ns, name);
        if (!remove) {
            op.data = em_pretty_from_compact(json->data, json->len, &op.len);
            *text_hash = em_hash64(op.data, op.len, EM_TEXT_SEED);
        }
    }
    if (s->journal.path) {
        uint64_t ticket = em_journal_append(&s->journal, rev, line, llen, &op);
        em_store_undo_push(s, ticket, rev, k, ns, name, cur);
    } else {
        free(op.path);
        free(op.data);
    }
    free(line);
    return json;
}

/* obj's compact JSON, NEW: what it shares with the stored tree it replaces comes from
 * that tree's bytes (splice.h). */
static struct em_bytes *dump_of(struct em_store *s, const struct nd_kind *k, const char *ns,
                                const char *name, const json_t *obj, bool remove)
{
    const struct em_entry *cur = em_store_entry(s, k, ns, name);
    const json_t *was = cur && !remove ? cur->tree : NULL;
    return em_dump_next(obj, was, em_entry_bytes_of(cur, was));
}

/* The stored kind of a write (em_store_kind), or NULL with InternalError in st. */
static const struct nd_kind *write_kind(const struct nd_kind *k, struct nd_status *st)
{
    const struct nd_kind *sk = em_store_kind(k);
    if (!sk)
        nd_status_set(st, "InternalError", NULL, "no kind stores %s",
                      k ? k->plural : "an object without a kind");
    return sk;
}

int em_store_put(struct em_store *s, const struct nd_kind *k, json_t *obj, const char *type,
                 int64_t time_ms, struct em_bytes **json, struct nd_status *st)
{
    const char *name = meta_str(obj, "name");
    const char *ns = meta_str(obj, "namespace");
    if (!ns)
        ns = "";
    if (!name)
        return nd_status_set(st, "InternalError", NULL, "object without metadata.name");
    if (!(k = write_kind(k, st)) || check_broken(s, k, ns, name, st) < 0)
        return -1;
    uint64_t text_hash = 0;
    struct change ch = {k, ns, name, type, time_ms, em_store_obj_rv(obj)};
    struct em_bytes *b = log_change(s, &ch, obj, dump_of(s, k, ns, name, obj, false), &text_hash);
    /* the record through the writes' cache of shared values (rec_share.h): a running
     * state's records share their namespace, phase, labels and finalizers, and keep
     * no pieces of the trees they were made from */
    if (!s->rec_share)
        s->rec_share = em_rec_share_new();
    json_t *rec = em_rec_of(k, obj);
    struct em_entry *e = em_entry_new(em_bytes_ref(b), em_rec_keep_heap(s->rec_share, rec), obj);
    json_decref(rec);
    e->text_hash = text_hash;
    set_entry(s, k, ns, name, e);
    if (json)
        *json = b;
    else
        em_bytes_unref(b);
    return 0;
}

int em_store_put_bytes(struct em_store *s, const struct nd_kind *k, int64_t rev, int64_t time_ms,
                       struct em_bytes *json, json_t *rec, struct nd_status *st)
{
    const char *name = meta_str(rec, "name");
    const char *ns = meta_str(rec, "namespace");
    if (!ns)
        ns = "";
    if (!name || !(k = write_kind(k, st)) || em_events_kind(k) ||
        check_broken(s, k, ns, name, st) < 0) {
        if (!name || (k && em_events_kind(k)))
            nd_status_set(st, "InternalError", NULL, "not a write by bytes: %s",
                          name ? "an Event's (its hour file is written from its tree)"
                               : "a record without metadata.name");
        em_bytes_unref(json);
        json_decref(rec);
        return -1;
    }
    uint64_t text_hash = 0;
    struct change ch = {k, ns, name, "MODIFIED", time_ms, rev};
    log_change(s, &ch, NULL, json, &text_hash);
    struct em_entry *e = em_entry_new(json, rec, NULL);
    e->text_hash = text_hash;
    set_entry(s, k, ns, name, e);
    return 0;
}

int em_store_delete(struct em_store *s, const struct nd_kind *k, const json_t *gone,
                    int64_t time_ms, struct em_bytes **json, struct nd_status *st)
{
    const char *name = meta_str(gone, "name");
    const char *ns = meta_str(gone, "namespace");
    if (!ns)
        ns = "";
    if (!name)
        return nd_status_set(st, "InternalError", NULL, "object without metadata.name");
    if (!(k = write_kind(k, st)) || check_broken(s, k, ns, name, st) < 0)
        return -1;
    if (!em_store_entry(s, k, ns, name))
        return 0;
    struct change ch = {k, ns, name, "DELETED", time_ms, em_store_obj_rv(gone)};
    struct em_bytes *b = log_change(s, &ch, gone, dump_of(s, k, ns, name, gone, true), NULL);
    set_entry(s, k, ns, name, NULL);
    if (json)
        *json = b;
    else
        em_bytes_unref(b);
    return 0;
}


int em_store_clear(struct em_store *s, struct nd_status *st)
{
    /* the log is emptied first: a crash half-way leaves objects, never a log that
     * would bring removed ones back */
    if (s->journal.path && em_journal_rewrite(&s->journal, "", 0) < 0)
        return em_store_io_status(s, st, s->journal.error ? s->journal.error : EIO, s->journal.path);
    int rc = 0;
    for (size_t i = 0; i < s->nkinds; i++) {
        struct em_store_cursor c;
        em_store_seek(s, s->kinds[i].kind, NULL, NULL, NULL, &c);
        const struct em_entry *e;
        while ((e = em_store_next(&c))) {
            const char *ns = meta_str(e->rec, "namespace");
            char *path =
                em_events_kind(s->kinds[i].kind)
                    ? em_events_path(s->dir, ns ? ns : "", e->rec)
                    : obj_file(s, s->kinds[i].kind->plural, ns ? ns : "", meta_str(e->rec, "name"));
            if (unlink(path) < 0 && errno != ENOENT && rc == 0)
                rc = nd_status_set(st, "InternalError", NULL, "cannot remove %s: %s", path,
                                   strerror(errno));
            free(path);
        }
    }
    em_store_undo_clear(s); /* the log was rewritten: every change before is settled */
    json_object_clear(s->events_live);
    /* the kinds go too: their order (em_store_kinds) starts again */
    for (size_t i = 0; i < s->nkinds; i++)
        em_index_free(s->kinds[i].ix, entry_free);
    free(s->kinds);
    em_owners_clear(&s->owners);
    s->kinds = NULL;
    s->nkinds = 0;
    return rc;
}
