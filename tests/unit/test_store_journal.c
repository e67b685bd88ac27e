/* Unit tests of the store layer (emulator/store/), driven without HTTP: the write-ahead
 * log and its group commit, and what a start repairs: a crash between the journal's
 * flush and the file write, a torn journal tail, a file edited by hand after the record,
 * a broken file (left alone; or moved aside and written from the journal's tail), a
 * DELETED record whose file stayed, an old journal without markers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "history.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

/* the kind these tests store (the store takes the registry's row) */
#define VOLUMES nd_kind_by_plural(NULL, "volumes")

/* ---- helpers ---- */

static char *tmpdir(void)
{
    return store_tmpdir("store");
}

static void open_store(struct em_store *s, const char *dir, enum em_fsync mode,
                       struct nd_buf *report)
{
    struct nd_buf err = ND_BUF_INIT;
    int rc = em_store_open(s, dir, mode, false, report, &err);
    if (rc != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
}

static json_t *volume(const char *name, int64_t rv, const char *size)
{
    char rvs[24];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    return json_pack("{ss ss s{ss ss ss} s{ss}}", "apiVersion", "nodus.dev/v1", "kind", "Volume",
                     "metadata", "name", name, "namespace", "default", "resourceVersion", rvs,
                     "spec", "size", size);
}

static void put(struct em_store *s, json_t *obj, const char *type)
{
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, VOLUMES, obj, type, 1000, NULL, &st), 0);
    nd_status_release(&st);
}

static char *path_of(const char *dir, const char *name)
{
    return nd_xasprintf("%s/objects/default/volumes/%s.json", dir, name);
}

/* The resourceVersion in a volume's file, 0 when absent, -1 when it does not parse. */
static long long file_rv(const char *dir, const char *name)
{
    char *p = path_of(dir, name);
    json_t *j = json_load_file(p, 0, NULL);
    free(p);
    if (!j)
        return errno == ENOENT ? 0 : -1;
    const char *rv =
        json_string_value(json_object_get(json_object_get(j, "metadata"), "resourceVersion"));
    long long v = rv ? atoll(rv) : -1;
    json_decref(j);
    return v;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Sets a file's modification time to us (microseconds since the epoch). */
static void set_mtime(const char *path, int64_t us)
{
    struct timeval tv[2] = {{us / 1000000, us % 1000000}, {us / 1000000, us % 1000000}};
    assert_int_equal(utimes(path, tv), 0);
}

static void write_text(const char *path, const char *text)
{
    char *dir = nd_xstrdup(path);
    *strrchr(dir, '/') = '\0';
    em_mkdir_p(dir);
    free(dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void write_obj_file(const char *dir, json_t *obj)
{
    char *p = path_of(dir, json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                                             "name")));
    char *text = json_dumps(obj, JSON_INDENT(2));
    write_text(p, text);
    free(text);
    free(p);
}

/* A journal as a crash leaves it: a marker (written at wall), then records. */
static void write_journal(const char *dir, const char *text)
{
    char *p = nd_xasprintf("%s/history/journal.ndjson", dir);
    write_text(p, text);
    free(p);
}

static char *record(int64_t rev, const char *type, json_t *obj)
{
    size_t len;
    char *line = em_store_record_line(rev, 1000, type, "volumes", obj, &len);
    char *out = nd_xasprintf("%s\n", line);
    free(line);
    return out;
}

static void rm_rf_free(char *dir)
{
    em_rm_rf(dir);
    free(dir);
}

/* ---- writing ---- */

static void test_put_is_logged_then_written(void **state)
{
    (void)state;
    char *dir = tmpdir();
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    json_t *v = volume("a", 1, "1Gi");
    put(&s, v, "ADDED");
    uint64_t t = em_store_ticket(&s);
    assert_int_equal(t, 1);
    assert_int_equal(em_store_commit(&s, t), 0);
    em_journal_drain(&s.journal); /* its files written too */
    assert_int_equal(file_rv(dir, "a"), 1);
    assert_int_equal(s.journal.count.fsyncs, 1);
    /* the record is on disk before the file: the journal holds it */
    char *log = nd_xasprintf("%s/history/journal.ndjson", dir);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, log), 0);
    assert_non_null(strstr(b.data, "\"rev\":1,"));
    assert_non_null(strstr(b.data, "\"wall\":"));
    nd_buf_release(&b);
    free(log);
    em_store_close(&s);
    /* a restart loads it, repairing nothing */
    nd_buf_reset(&report);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_non_null(em_store_get(&s, VOLUMES, "default", "a"));
    assert_int_equal(s.repaired, 0);
    assert_int_equal(s.revision, 1);
    em_store_close(&s);
    json_decref(v);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_group_commit_one_flush(void **state)
{
    (void)state;
    char *dir = tmpdir();
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    json_t *a = volume("a", 1, "1Gi"), *b = volume("b", 2, "1Gi"), *c = volume("c", 3, "1Gi");
    put(&s, a, "ADDED");
    put(&s, b, "ADDED");
    put(&s, c, "ADDED");
    /* three changes, one commit: one write, one fdatasync, three files */
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_journal_drain(&s.journal); /* its files written too */
    assert_int_equal(s.journal.count.flushes, 1);
    assert_int_equal(s.journal.count.fsyncs, 1);
    assert_int_equal(s.journal.count.records, 3);
    assert_int_equal(file_rv(dir, "a"), 1);
    assert_int_equal(file_rv(dir, "b"), 2);
    assert_int_equal(file_rv(dir, "c"), 3);
    /* a commit of what is already durable does nothing */
    assert_int_equal(em_store_commit(&s, 2), 0);
    em_journal_drain(&s.journal); /* its files written too */
    assert_int_equal(s.journal.count.flushes, 1);
    em_store_close(&s);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_never_does_not_flush(void **state)
{
    (void)state;
    char *dir = tmpdir();
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_NEVER, &report);
    json_t *a = volume("a", 1, "1Gi");
    put(&s, a, "ADDED");
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_journal_drain(&s.journal); /* its files written too */
    assert_int_equal(s.journal.count.fsyncs, 0);
    assert_int_equal(s.journal.count.records, 1);
    assert_int_equal(file_rv(dir, "a"), 1);
    em_store_close(&s);
    json_decref(a);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

struct writer {
    struct em_store *s;
    pthread_mutex_t *lock; /* the server's lock */
    int id, n;
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    for (int i = 0; i < w->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "w%d-%d", w->id, i);
        pthread_mutex_lock(w->lock);
        int64_t rev = em_store_next_revision(w->s);
        json_t *v = volume(name, rev, "1Gi");
        struct nd_status st = ND_STATUS_INIT;
        em_store_put(w->s, VOLUMES, v, "ADDED", 1000, NULL, &st);
        nd_status_release(&st);
        uint64_t t = em_store_ticket(w->s);
        pthread_mutex_unlock(w->lock);
        json_decref(v);
        if (em_store_commit(w->s, t) != 0)
            return (void *)1;
        /* acknowledged: its record is on disk (its file may still be on its way) */
        if (!em_store_settled(w->s, t))
            return (void *)2;
    }
    return NULL;
}

static void test_concurrent_commits_share_flushes(void **state)
{
    (void)state;
    char *dir = tmpdir();
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    for (int mode = EM_FSYNC_ALWAYS; mode <= EM_FSYNC_BATCH; mode++) {
        em_rm_rf(dir);
        open_store(&s, dir, (enum em_fsync)mode, &report);
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        enum { W = 8, N = 40 };
        pthread_t th[W];
        struct writer ws[W];
        for (int i = 0; i < W; i++) {
            ws[i] = (struct writer){&s, &lock, i, N};
            assert_int_equal(pthread_create(&th[i], NULL, writer_main, &ws[i]), 0);
        }
        for (int i = 0; i < W; i++) {
            void *r;
            pthread_join(th[i], &r);
            assert_null(r);
        }
        /* the file writer catches up: every file is there */
        em_journal_drain(&s.journal);
        for (int i = 0; i < W; i++) {
            for (int j = 0; j < N; j++) {
                char name[32];
                snprintf(name, sizeof name, "w%d-%d", i, j);
                char *p = path_of(s.dir, name);
                assert_true(exists(p));
                free(p);
            }
        }
        /* every change is in the journal; never more flushes than changes */
        assert_int_equal(s.journal.count.records, W * N);
        assert_true(s.journal.count.fsyncs <= W * N);
        assert_true(s.journal.count.fsyncs >= 1);
        em_store_close(&s);
        /* and a restart finds every one */
        open_store(&s, dir, (enum em_fsync)mode, &report);
        assert_int_equal(em_store_count(&s, VOLUMES), W * N);
        assert_int_equal(s.repaired, 0);
        em_store_close(&s);
    }
    nd_buf_release(&report);
    rm_rf_free(dir);
}

/* ---- what a start repairs ---- */

static void test_crash_between_flush_and_file(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us();
    /* a: the file holds rv 1 (written before the batch), the journal rv 2;
     * b: created in the batch, its file never written */
    json_t *a1 = volume("a", 1, "1Gi"), *a2 = volume("a", 2, "5Gi"), *b3 = volume("b", 3, "1Gi");
    write_obj_file(dir, a1);
    char *pa = path_of(dir, "a");
    set_mtime(pa, wall - 1000000);
    char *r1 = record(1, "ADDED", a1), *r2 = record(2, "MODIFIED", a2), *r3 = record(3, "ADDED", b3);
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":0}\n%s{\"wall\":%lld,\"applied\":1}\n%s%s",
                             (long long)(wall - 2000000), r1, (long long)wall, r2, r3);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 2);
    assert_int_equal(file_rv(dir, "a"), 2);
    assert_int_equal(file_rv(dir, "b"), 3);
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(em_store_get(&s, VOLUMES, "default", "a"), "spec"), "size")),
        "5Gi");
    assert_non_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_int_equal(s.revision, 3);
    assert_non_null(strstr(report.data, "brought up to revision 2 from the journal"));
    /* the journal hands every record to the watch history */
    struct em_history j;
    struct nd_buf err = ND_BUF_INIT;
    assert_int_equal(em_history_open(&j, &s, s.revision, 1000, &err), 0);
    assert_int_equal(j.len, 3);
    assert_ptr_equal(j.ev[2].json, /* shared */
                     em_store_entry_json(em_store_entry(&s, VOLUMES, "default", "b")));
    em_history_close(&j);
    em_store_close(&s);
    /* the next start has nothing to do */
    nd_buf_reset(&report);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 0);
    em_store_close(&s);
    json_decref(a1);
    json_decref(a2);
    json_decref(b3);
    free(r1);
    free(r2);
    free(r3);
    free(log);
    free(pa);
    nd_buf_release(&err);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_torn_tail_is_cut(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us();
    json_t *a = volume("a", 1, "1Gi");
    char *r1 = record(1, "ADDED", a);
    char *whole = nd_xasprintf("{\"wall\":%lld,\"applied\":0}\n%s", (long long)wall, r1);
    char *log = nd_xasprintf("%s{\"rev\":2,\"time\":1000,\"type\":\"ADD", whole);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    char *want = nd_xasprintf("cut %zu bytes of a torn last record", strlen(log) - strlen(whole));
    assert_non_null(strstr(report.data, want));
    free(want);
    assert_non_null(em_store_get(&s, VOLUMES, "default", "a")); /* rev 1 repaired */
    assert_int_equal(s.revision, 1);
    /* the file now ends at the last whole record, and appends follow it */
    char *p = nd_xasprintf("%s/history/journal.ndjson", dir);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, p), 0);
    assert_int_equal(b.len, strlen(whole));
    assert_memory_equal(b.data, whole, b.len);
    json_t *a2 = volume("a", 2, "2Gi");
    put(&s, a2, "MODIFIED");
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_journal_drain(&s.journal); /* its files written too */
    em_store_close(&s);
    nd_buf_reset(&report);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_null(strstr(report.data, "torn"));
    assert_null(strstr(report.data, "skipped"));
    assert_int_equal(file_rv(dir, "a"), 2);
    em_store_close(&s);
    json_decref(a);
    json_decref(a2);
    free(r1);
    free(whole);
    free(log);
    free(p);
    nd_buf_release(&b);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_hand_edit_wins(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us() - 5000000;
    json_t *a2 = volume("a", 2, "5Gi");
    /* the person's edit: no resourceVersion at all, written after the record */
    json_t *hand = volume("a", 1, "9Gi");
    json_object_del(json_object_get(hand, "metadata"), "resourceVersion");
    write_obj_file(dir, hand);
    char *r2 = record(2, "MODIFIED", a2);
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":1}\n%s", (long long)wall, r2);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 0);
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(em_store_get(&s, VOLUMES, "default", "a"), "spec"), "size")),
        "9Gi");
    assert_int_equal(file_rv(dir, "a"), -1); /* untouched: still no resourceVersion */
    em_store_close(&s);
    /* the same file older than the record is repaired (so the rule can fail) */
    char *pa = path_of(dir, "a");
    set_mtime(pa, wall - 1000000);
    write_journal(dir, log);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 1);
    assert_int_equal(file_rv(dir, "a"), 2);
    em_store_close(&s);
    json_decref(a2);
    json_decref(hand);
    free(r2);
    free(log);
    free(pa);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_broken_file_left_alone(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us() + 60 * 1000000LL; /* the record is "newer" than the file */
    char *pa = path_of(dir, "a");
    write_text(pa, "{\"apiVersion\": ");
    json_t *a2 = volume("a", 2, "5Gi");
    char *r2 = record(2, "MODIFIED", a2);
    /* its record is before the last marker: its file was written and flushed since, so
     * what broke it is no crash of the emulator's (a hand edit, older damage) */
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":1}\n%s{\"wall\":%lld,\"applied\":2}\n",
                             (long long)wall, r2, (long long)wall);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 0);
    char *want = nd_xasprintf("state: %s: line 1", pa); /* where it is */
    assert_non_null(strstr(report.data, want));
    free(want);
    assert_non_null(strstr(report.data, "left untouched"));
    assert_null(em_store_get(&s, VOLUMES, "default", "a"));
    char *aside = nd_xasprintf("%s/broken", dir);
    assert_false(exists(aside));
    free(aside);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, pa), 0);
    assert_string_equal(b.data, "{\"apiVersion\": ");
    /* and writes to it are refused */
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(&s, VOLUMES, a2, "MODIFIED", 1000, NULL, &st), -1);
    assert_string_equal(st.reason, "InternalError");
    nd_status_release(&st);
    em_store_close(&s);
    json_decref(a2);
    free(r2);
    free(log);
    free(pa);
    nd_buf_release(&b);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

/* The path of the one file under dir/broken/default/volumes/ whose name starts with
 * name (NEW), or NULL when there is none or more than one. */
static char *aside_of(const char *dir, const char *name)
{
    char *d = nd_xasprintf("%s/broken/default/volumes", dir);
    DIR *dh = opendir(d);
    char *found = NULL;
    int n = 0;
    struct dirent *e;
    while (dh && (e = readdir(dh))) {
        if (strncmp(e->d_name, name, strlen(name)) == 0 && n++ == 0)
            found = nd_xasprintf("%s/%s", d, e->d_name);
    }
    if (dh)
        closedir(dh);
    free(d);
    if (n > 1) {
        free(found);
        found = NULL;
    }
    return found;
}

/* The broken copy of the file at pa, kept aside below dir/broken/: it holds the len bytes
 * of broken, and the report says so after what the start did ("brought up to revision 3
 * from the journal"). The copy's path (NEW). */
static char *kept_aside(const char *dir, const char *pa, const char *broken, size_t len,
                        const char *what, const struct nd_buf *report)
{
    char *aside = aside_of(dir, "a.json.");
    assert_non_null(aside);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, aside), 0);
    assert_int_equal(b.len, len);
    assert_memory_equal(b.data, broken, len); /* the broken bytes, as they were */
    char *want = nd_xasprintf("state: %s: %s (a write the last stop interrupted left it "
                              "broken; the broken file is kept as %s)\n",
                              pa, what, aside);
    assert_non_null(strstr(report->data, want));
    free(want);
    nd_buf_release(&b);
    return aside;
}

/* The journal's tail (after the last marker) holds the object's newest changes: its file,
 * torn by the crash that cut their writes off, is moved aside and written from the newest
 * (several records: the last wins), and writes to it are taken again. */
static void test_torn_file_of_the_tail_is_written_from_the_journal(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us() - 60 * 1000000LL; /* the file is newer than the records */
    char *pa = path_of(dir, "a");
    const char *torn = "{\n  \"apiVersion\": \"nodus.dev/v1\",\n  \"ki";
    write_text(pa, torn);
    json_t *a1 = volume("a", 1, "1Gi"), *a2 = volume("a", 2, "2Gi"), *a3 = volume("a", 3, "3Gi");
    char *r1 = record(1, "ADDED", a1), *r2 = record(2, "MODIFIED", a2),
         *r3 = record(3, "MODIFIED", a3);
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":0}\n%s%s%s", (long long)wall, r1, r2, r3);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 1);
    assert_int_equal(file_rv(dir, "a"), 3);
    json_t *got = em_store_get(&s, VOLUMES, "default", "a");
    assert_non_null(got);
    assert_true(json_equal(got, a3));
    char *aside = kept_aside(dir, pa, torn, strlen(torn),
                             "brought up to revision 3 from the journal", &report);
    assert_null(strstr(report.data, "left untouched"));
    json_t *a4 = volume("a", 4, "4Gi");
    put(&s, a4, "MODIFIED"); /* no longer refused */
    em_store_close(&s);
    /* the next start has nothing to do, and keeps the broken copy */
    nd_buf_reset(&report);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 0);
    assert_int_equal(file_rv(dir, "a"), 4);
    assert_true(exists(aside));
    em_store_close(&s);
    json_decref(a1);
    json_decref(a2);
    json_decref(a3);
    json_decref(a4);
    free(r1);
    free(r2);
    free(r3);
    free(log);
    free(aside);
    free(pa);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

/* A torn file whose newest record of the tail is its deletion: moved aside, not served,
 * and the name free again. */
static void test_torn_file_of_a_deletion_in_the_tail_is_moved_aside(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us();
    char *pa = path_of(dir, "a");
    write_text(pa, ""); /* (its directory) */
    FILE *fp = fopen(pa, "w");
    assert_non_null(fp);
    fwrite("{\0\0\0", 1, 4, fp); /* a power loss's zeros */
    fclose(fp);
    json_t *a1 = volume("a", 1, "1Gi"), *gone = volume("a", 2, "1Gi");
    char *r1 = record(1, "ADDED", a1), *r2 = record(2, "DELETED", gone);
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":0}\n%s%s", (long long)wall, r1, r2);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 1);
    assert_false(exists(pa));
    assert_null(em_store_get(&s, VOLUMES, "default", "a"));
    char *aside =
        kept_aside(dir, pa, "{\0\0\0", 4, "removed, as revision 2 of the journal says", &report);
    json_t *a3 = volume("a", 3, "3Gi");
    put(&s, a3, "ADDED"); /* the name is free */
    em_store_close(&s);
    json_decref(a1);
    json_decref(gone);
    json_decref(a3);
    free(r1);
    free(r2);
    free(log);
    free(aside);
    free(pa);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

/* em_move_aside and em_write_aside: below DIR/broken/, never over a copy kept before. */
static void test_aside_never_overwrites(void **state)
{
    (void)state;
    char *dir = tmpdir();
    char *pa = path_of(dir, "a");
    write_text(pa, "one");
    char *first = em_move_aside(pa);
    assert_non_null(first);
    char *prefix = nd_xasprintf("%s/broken/default/volumes/a.json.", dir);
    assert_memory_equal(first, prefix, strlen(prefix));
    assert_false(exists(pa));
    write_text(pa, "two");
    char *second = em_move_aside(pa);
    char *third = em_write_aside(pa, "three", 5); /* (pa is gone: only its name counts) */
    assert_non_null(second);
    assert_non_null(third);
    assert_string_not_equal(first, second);
    assert_string_not_equal(second, third);
    const char *const paths[] = {first, second, third}, *const texts[] = {"one", "two", "three"};
    for (int i = 0; i < 3; i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_buf_read_file(&b, paths[i]), 0);
        assert_string_equal(b.data, texts[i]);
        nd_buf_release(&b);
    }
    /* a path outside a state directory's objects: beside it */
    char *other = nd_xasprintf("%s/loose.json", dir);
    write_text(other, "x");
    char *fourth = em_move_aside(other);
    assert_non_null(fourth);
    char *beside = nd_xasprintf("%s.broken.", other);
    assert_memory_equal(fourth, beside, strlen(beside));
    free(beside);
    free(fourth);
    free(other);
    free(first);
    free(second);
    free(third);
    free(prefix);
    free(pa);
    rm_rf_free(dir);
}

static void test_deleted_record_removes_stale_file(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us();
    json_t *a1 = volume("a", 1, "1Gi"), *gone = volume("a", 2, "1Gi");
    write_obj_file(dir, a1);
    char *pa = path_of(dir, "a");
    set_mtime(pa, wall - 1000000);
    char *r2 = record(2, "DELETED", gone);
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":1}\n%s", (long long)wall, r2);
    write_journal(dir, log);
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(s.repaired, 1);
    assert_false(exists(pa));
    assert_null(em_store_get(&s, VOLUMES, "default", "a"));
    em_store_close(&s);
    json_decref(a1);
    json_decref(gone);
    free(r2);
    free(log);
    free(pa);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

static void test_records_before_last_applied_are_not_replayed(void **state)
{
    (void)state;
    char *dir = tmpdir();
    int64_t wall = now_us();
    json_t *a1 = volume("a", 1, "1Gi");
    char *r1 = record(1, "ADDED", a1);
    /* rev 1 is applied (a later marker says so) and its file was removed by hand;
     * a journal of an older emulator has no markers at all */
    char *log = nd_xasprintf("{\"wall\":%lld,\"applied\":0}\n%s{\"wall\":%lld,\"applied\":1}\n",
                             (long long)wall, r1, (long long)wall);
    const char *const logs[] = {log, r1};
    for (int i = 0; i < 2; i++) {
        write_journal(dir, logs[i]);
        struct em_store s;
        struct nd_buf report = ND_BUF_INIT;
        open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
        assert_int_equal(s.repaired, 0);
        assert_null(em_store_get(&s, VOLUMES, "default", "a"));
        assert_int_equal(file_rv(dir, "a"), 0);
        assert_int_equal(s.revision, 1); /* the counter still continues past it */
        em_store_close(&s);
        nd_buf_release(&report);
    }
    json_decref(a1);
    free(r1);
    free(log);
    rm_rf_free(dir);
}

static void test_clear_empties_journal_first(void **state)
{
    (void)state;
    char *dir = tmpdir();
    struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    json_t *a = volume("a", 1, "1Gi");
    put(&s, a, "ADDED");
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_journal_drain(&s.journal); /* its files written too */
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_clear(&s, &st), 0);
    nd_status_release(&st);
    assert_int_equal(file_rv(dir, "a"), 0);
    em_store_close(&s);
    open_store(&s, dir, EM_FSYNC_ALWAYS, &report);
    assert_int_equal(em_store_count(&s, VOLUMES), 0);
    assert_int_equal(s.repaired, 0);
    em_store_close(&s);
    json_decref(a);
    nd_buf_release(&report);
    rm_rf_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_is_logged_then_written),
        cmocka_unit_test(test_group_commit_one_flush),
        cmocka_unit_test(test_never_does_not_flush),
        cmocka_unit_test(test_concurrent_commits_share_flushes),
        cmocka_unit_test(test_crash_between_flush_and_file),
        cmocka_unit_test(test_torn_tail_is_cut),
        cmocka_unit_test(test_hand_edit_wins),
        cmocka_unit_test(test_broken_file_left_alone),
        cmocka_unit_test(test_torn_file_of_the_tail_is_written_from_the_journal),
        cmocka_unit_test(test_torn_file_of_a_deletion_in_the_tail_is_moved_aside),
        cmocka_unit_test(test_aside_never_overwrites),
        cmocka_unit_test(test_deleted_record_removes_stale_file),
        cmocka_unit_test(test_records_before_last_applied_are_not_replayed),
        cmocka_unit_test(test_clear_empties_journal_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
