/* Unit tests of the store layer when the disk refuses a write (emulator/store/journal.c,
 * journal_error.c): the journal's descriptor is swapped for /dev/full (every write: ENOSPC),
 * or an object's directory is replaced by a file (its file write fails after the record
 * is on disk), or a test switch of the journal fails its flush and its cut back. A failed commit is -1 every time, not only the first; the store undoes
 * what failed; nothing failed is found by a restart; a file behind the journal is
 * written by a later batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

/* the kind these tests store (the store takes the registry's row) */
#define VOLUMES nd_kind_by_plural(NULL, "volumes")

static void open_store(struct em_store *s, const char *dir)
{
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    if (em_store_open(s, dir, EM_FSYNC_ALWAYS, false, &report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
    nd_buf_release(&report);
}

/* Stores a Volume name at the store's next revision with spec.size size; its ticket. */
static uint64_t put(struct em_store *s, const char *name, const char *size)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)em_store_next_revision(s));
    json_t *obj = json_pack("{ss ss s{ss ss ss} s{ss}}", "apiVersion", "nodus.dev/v1", "kind",
                            "Volume", "metadata", "name", name, "namespace", "default",
                            "resourceVersion", rv, "spec", "size", size);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, VOLUMES, obj, "ADDED", 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(obj);
    return em_store_ticket(s);
}

static const char *size_of(struct em_store *s, const char *name)
{
    json_t *o = em_store_get(s, VOLUMES, "default", name);
    return o ? json_string_value(json_object_get(json_object_get(o, "spec"), "size")) : NULL;
}

static void test_failed_commits_fail_and_are_undone(void **state)
{
    (void)state;
    char *dir = store_tmpdir("full");
    struct em_store s;
    open_store(&s, dir);
    assert_int_equal(em_store_commit(&s, put(&s, "a", "1Gi")), 0);
    assert_int_equal(s.revision, 1);

    /* the disk is full: every journal write fails with ENOSPC */
    int saved = dup(s.journal.fd);
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    assert_true(saved >= 0 && full >= 0);
    assert_true(dup2(full, s.journal.fd) >= 0);
    uint64_t t = put(&s, "b", "2Gi");
    errno = 0;
    assert_int_equal(em_store_commit(&s, t), -1);
    assert_int_equal(errno, ENOSPC);
    /* a second failed commit fails too (the error is not "seen" once and forgotten) */
    t = put(&s, "a", "3Gi");
    assert_int_equal(em_store_commit(&s, t), -1);
    assert_int_equal(em_store_commit(&s, t), -1);
    /* a reader that saw the failed change in memory must not take it as settled (it
     * would answer with what the rollback undoes): it commits, and learns it failed */
    assert_false(em_store_settled(&s, t));
    assert_false(em_store_settled(&s, em_store_ticket(&s)));

    /* memory goes back to the disk: b gone, a as it was, the revision counter too */
    assert_int_equal(em_store_rollback(&s), 1);
    assert_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_string_equal(size_of(&s, "a"), "1Gi");
    assert_int_equal(s.revision, 1);
    assert_int_equal(em_store_count(&s, VOLUMES), 1);
    assert_int_equal(em_store_rollback(&s), -1); /* once */
    assert_true(em_store_settled(&s, em_store_ticket(&s))); /* what is left is on disk */
    assert_int_equal(em_store_durable_rev(&s), 1);

    /* space is back: the next write works without a restart */
    assert_true(dup2(saved, s.journal.fd) >= 0);
    close(saved);
    close(full);
    assert_int_equal(em_store_commit(&s, put(&s, "c", "4Gi")), 0);
    assert_int_equal(em_store_durable_rev(&s), 2);
    em_store_close(&s);

    /* a restart finds what was acknowledged, and nothing that was refused */
    open_store(&s, dir);
    assert_string_equal(size_of(&s, "a"), "1Gi");
    assert_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_string_equal(size_of(&s, "c"), "4Gi");
    assert_int_equal(s.revision, 2);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

static void test_file_behind_the_journal_is_written_later(void **state)
{
    (void)state;
    char *dir = store_tmpdir("full");
    struct em_store s;
    open_store(&s, dir);
    assert_int_equal(em_store_commit(&s, put(&s, "a", "1Gi")), 0);
    em_journal_drain(&s.journal);
    /* the kind's directory becomes a file: object file writes fail (ENOTDIR) */
    char *kdir = nd_xasprintf("%s/objects/default/volumes", dir);
    char *bfile = nd_xasprintf("%s/b.json", kdir);
    assert_int_equal(em_rm_rf(kdir), 0);
    FILE *f = fopen(kdir, "w");
    assert_non_null(f);
    fclose(f);
    /* the record is on disk: the write is acknowledged, its file is owed */
    assert_int_equal(em_store_commit(&s, put(&s, "b", "2Gi")), 0);
    em_journal_drain(&s.journal); /* the file writer has tried */
    assert_int_equal(s.journal.nretry, 1);
    assert_int_equal(s.journal.applied_rev, 1); /* a start repairs b from the journal */
    assert_int_not_equal(s.journal.error, 0);
    /* the directory is back: the next batch writes b's file too */
    assert_int_equal(unlink(kdir), 0);
    assert_int_equal(em_mkdir_p(kdir), 0);
    assert_int_equal(em_store_commit(&s, put(&s, "c", "3Gi")), 0);
    em_journal_drain(&s.journal);
    assert_int_equal(s.journal.nretry, 0);
    assert_int_equal(s.journal.applied_rev, 3);
    assert_int_equal(s.journal.error, 0);
    struct stat sb;
    assert_int_equal(stat(bfile, &sb), 0);
    struct nd_buf err = ND_BUF_INIT;
    assert_int_equal(em_store_stop(&s, &err), 0);
    nd_buf_release(&err);
    em_store_close(&s); /* the objects' memory */
    free(kdir);
    free(bfile);
    em_rm_rf(dir);
    free(dir);
}

/* The names of the records in the store's log, as a start after kill -9 reads them
 * (NEW, each followed by a space); *torn: the bytes it cut off as a torn end. */
static char *logged_names(const char *dir, size_t *torn)
{
    char *log = nd_xasprintf("%s/history/journal.ndjson", dir);
    struct em_journal_record *r;
    size_t n, bad, parsed;
    int64_t applied;
    struct nd_buf err = ND_BUF_INIT, names = ND_BUF_INIT;
    assert_int_equal(em_journal_read(log, &r, &n, &bad, &parsed, torn, &applied, &err), 0);
    assert_int_equal(bad, 0);
    for (size_t i = 0; i < n; i++)
        nd_buf_addf(&names, "%s ", r[i].name);
    nd_buf_addch(&names, '\0');
    em_journal_records_free(r, n);
    nd_buf_release(&err);
    free(log);
    return names.data;
}

/* names: what the log holds for a start, with no torn end */
static void assert_logged(const char *dir, const char *names)
{
    size_t torn;
    char *got = logged_names(dir, &torn);
    assert_string_equal(got, names);
    assert_int_equal(torn, 0);
    free(got);
}

static void test_refused_batch_never_comes_back(void **state)
{
    (void)state;
    char *dir = store_tmpdir("full");
    struct em_store s;
    open_store(&s, dir);
    assert_int_equal(em_store_commit(&s, put(&s, "a", "1Gi")), 0);
    /* the batch reaches the file, its flush fails, and so does the cut back */
    s.journal.test_fail_sync = s.journal.test_fail_cut = true;
    errno = 0;
    assert_int_equal(em_store_commit(&s, put(&s, "b", "2Gi")), -1);
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(em_store_rollback(&s), 1);
    /* a kill -9 now: the next start does not find b */
    assert_logged(dir, "a ");
    /* the disk has room again: the next write is acknowledged, and found */
    s.journal.test_fail_sync = s.journal.test_fail_cut = false;
    assert_int_equal(em_store_commit(&s, put(&s, "c", "3Gi")), 0);
    assert_logged(dir, "a c ");
    /* a later failure is cut back to its own start, not into c */
    s.journal.test_fail_sync = true;
    assert_int_equal(em_store_commit(&s, put(&s, "d", "4Gi")), -1);
    assert_int_equal(em_store_rollback(&s), 2);
    s.journal.test_fail_sync = false;
    assert_logged(dir, "a c ");
    em_store_close(&s);

    open_store(&s, dir);
    assert_string_equal(size_of(&s, "a"), "1Gi");
    assert_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_string_equal(size_of(&s, "c"), "3Gi");
    assert_null(em_store_get(&s, VOLUMES, "default", "d"));
    assert_int_equal(s.revision, 2);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

struct commit_arg {
    struct em_store *s;
    uint64_t ticket;
    int rc;
};

static void *commit_main(void *arg)
{
    struct commit_arg *a = arg;
    a->rc = em_store_commit(a->s, a->ticket);
    return NULL;
}

static void test_a_held_group_is_refused_whole(void **state)
{
    (void)state;
    char *dir = store_tmpdir("full");
    struct em_store s;
    open_store(&s, dir);
    uint64_t ta = put(&s, "a", "1Gi");
    /* a request's two changes (its object and its Event); between them another thread
     * (the journal's, a controller's) commits what came before */
    em_store_hold(&s);
    put(&s, "b", "2Gi");
    struct commit_arg ca = {&s, ta, -1};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, commit_main, &ca), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(ca.rc, 0);
    s.journal.test_fail_sync = true; /* the disk refuses the request's flush */
    uint64_t tb = put(&s, "b-event", "2Gi");
    em_store_unhold(&s);
    assert_int_equal(em_store_commit(&s, tb), -1);
    em_store_rollback(&s);
    s.journal.test_fail_sync = false;
    /* refused whole: b is neither in memory nor in the log */
    assert_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_null(em_store_get(&s, VOLUMES, "default", "b-event"));
    assert_logged(dir, "a ");
    em_store_close(&s);
    open_store(&s, dir);
    assert_null(em_store_get(&s, VOLUMES, "default", "b"));
    assert_string_equal(size_of(&s, "a"), "1Gi");
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_commits_fail_and_are_undone),
        cmocka_unit_test(test_file_behind_the_journal_is_written_later),
        cmocka_unit_test(test_refused_batch_never_comes_back),
        cmocka_unit_test(test_a_held_group_is_refused_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
