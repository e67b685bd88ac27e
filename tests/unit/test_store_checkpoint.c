/* Unit tests of the start's checkpoint (emulator/store/checkpoint.h), driven without HTTP:
 * a clean stop lets the next start take unchanged objects from the checkpoint; the files
 * stay the truth (a hand edit after the stop, or while running, wins; new files are
 * loaded; removed ones are gone; broken ones are reported and left alone); a torn or
 * garbage checkpoint, or one written for another log (a crash after a later start), is
 * ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "entry.h"
#include "fsutil.h"
#include "rec_arena.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

/* the kind these tests store (the store takes the registry's row) */
#define VOLUMES nd_kind_by_plural(NULL, "volumes")

#define N 40

static char *tmpdir(void)
{
    return store_tmpdir("ckpt");
}

static void open_store(struct em_store *s, const char *dir, struct nd_buf *report)
{
    struct nd_buf err = ND_BUF_INIT;
    int rc = em_store_open(s, dir, EM_FSYNC_NEVER, false, report, &err);
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

static void put(struct em_store *s, json_t *obj)
{
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, VOLUMES, obj, "ADDED", 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(obj);
}

static char *path_of(const char *dir, const char *name)
{
    return nd_xasprintf("%s/objects/default/volumes/%s.json", dir, name);
}

static const char *size_of(struct em_store *s, const char *name)
{
    json_t *o = em_store_get(s, VOLUMES, "default", name);
    return o ? json_string_value(json_object_get(json_object_get(o, "spec"), "size")) : NULL;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static char *read_all(const char *path)
{
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, path), 0);
    return nd_buf_detach(&b);
}

static void write_text(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
}

/* A state directory with N volumes vol-00 ... (size 1Gi), stopped cleanly. */
static char *stopped_state(void)
{
    char *dir = tmpdir();
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "vol-%02d", i);
        put(&s, volume(name, em_store_next_revision(&s), "1Gi"));
    }
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_store_close(&s);
    nd_buf_release(&report);
    return dir;
}

static char *ckpt_path(const char *dir)
{
    return nd_xasprintf("%s/history/checkpoint", dir);
}

static void done(char *dir)
{
    em_rm_rf(dir);
    free(dir);
}

/* A clean stop, then a start: every object comes from the checkpoint, the same as the
 * files say, and the checkpoint is used once. */
static void test_clean_stop_loads_from_checkpoint(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *ck = ckpt_path(dir);
    assert_true(exists(ck));
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    assert_int_equal(s.loaded_checkpoint, N);
    assert_int_equal(s.loaded_files, 0);
    assert_int_equal(em_store_count(&s, VOLUMES), N);
    assert_false(exists(ck));
    /* what the checkpoint gave is what the file holds */
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "vol-%02d", i);
        char *p = path_of(dir, name);
        json_t *f = json_load_file(p, 0, NULL);
        assert_non_null(f);
        assert_true(json_equal(f, em_store_get(&s, VOLUMES, "default", name)));
        /* and its compact bytes are the object's */
        const struct em_entry *e = em_store_entry(&s, VOLUMES, "default", name);
        char *c = json_dumps(em_entry_obj(e), JSON_COMPACT);
        assert_string_equal(em_store_entry_json(e)->data, c);
        free(c);
        json_decref(f);
        free(p);
    }
    assert_int_equal(s.revision, N);
    assert_int_equal(report.len, 0);
    em_store_close(&s);
    /* the next clean stop writes it again, and the start after uses it again */
    open_store(&s, dir, &report);
    assert_int_equal(s.loaded_checkpoint, N);
    em_store_close(&s);
    nd_buf_release(&report);
    free(ck);
    done(dir);
}

/* The records a start loads, from the files or from the checkpoint, are carved from the
 * records' arena (rec_arena.h), and its blocks go back once their records are gone. */
static void test_loaded_records_in_arena(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *ck = ckpt_path(dir);
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    for (int from_files = 0; from_files < 2; from_files++) {
        if (from_files)
            unlink(ck);
        struct em_rec_arena_stats a, b, c;
        em_rec_arena_stats(&a);
        open_store(&s, dir, &report);
        assert_int_equal(from_files ? s.loaded_files : s.loaded_checkpoint, N);
        em_rec_arena_stats(&b);
        /* every record is several allocations (its objects, keys, strings) */
        assert_true(b.allocs - a.allocs >= 5 * N);
        assert_true(b.blocks > a.blocks);
        /* a record reads as the object reads */
        const struct em_entry *e = em_store_entry(&s, VOLUMES, "default", "vol-07");
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(em_entry_rec(e), "metadata"), "name")),
                            "vol-07");
        em_store_close(&s);
        em_rec_arena_stats(&c);
        /* the store is closed: every block the load took is back */
        assert_int_equal(c.released - b.released, b.blocks - a.blocks);
    }
    nd_buf_release(&report);
    free(ck);
    done(dir);
}

/* The start's items come in name order within each directory, whatever order the
 * directory lists them in (the store then builds its indexes by appending), from the
 * checkpoint and from the files. */
static void test_load_in_name_order(void **state)
{
    (void)state;
    char *dir = tmpdir();
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    for (int i = 0; i < N; i++) { /* created out of order: 17 is prime to N */
        char name[16];
        snprintf(name, sizeof name, "vol-%02d", i * 17 % N);
        put(&s, volume(name, em_store_next_revision(&s), "1Gi"));
    }
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_store_close(&s);
    char *ck = ckpt_path(dir);
    for (int from_files = 0; from_files < 2; from_files++) {
        assert_int_equal(exists(ck), !from_files);
        struct em_load l;
        em_load_objects(dir, &l, false);
        const char *last = NULL;
        int seen = 0;
        for (size_t i = 0; i < l.n; i++) {
            if (strcmp(l.items[i].plural, "volumes") != 0)
                continue;
            assert_non_null(l.items[i].rec);
            assert_int_equal(l.items[i].from_checkpoint, !from_files);
            if (last)
                assert_true(strcmp(last, l.items[i].name) < 0);
            last = l.items[i].name;
            seen++;
        }
        assert_int_equal(seen, N);
        em_load_free(&l);
    }
    nd_buf_release(&report);
    free(ck);
    done(dir);
}

/* A record's text reads as jansson reads it, on the fast path (ASCII, integers) and off
 * it (escapes, UTF-8, reals, blanks, big integers); what jansson refuses (broken text, a
 * repeated key) is refused. */
static void test_rec_parse_as_jansson(void **state)
{
    (void)state;
    static const char *const good[] = {
        "{}", "[]", "\"x\"", "0", "-0", "-12", "123456789012345678", "1234567890123456789",
        "true", "false", "null", "1.5", "2e3",
        "{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"uid\":\"u-1\","
        "\"resourceVersion\":\"42\",\"labels\":{\"app\":\"x\",\"tier\":\"\"},"
        "\"ownerReferences\":[{\"uid\":\"o\",\"controller\":true,\"n\":-3}],"
        "\"finalizers\":[]},\"status\":{\"phase\":\"Running\",\"costUSD\":null}}",
        "{\"a\":\"tab\\there\",\"b\":\"\\u00e9\\ud83d\\ude00\"}", "{\"a\":\"caf\xc3\xa9\"}",
        "{\"a\": 1}", " {\"a\":1}", "{\"a\":[1,[2,[3,{\"b\":{}}]]]}", "{\"a\":0.25}",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        json_t *want = json_loads(good[i], JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
        json_t *got = em_rec_parse(good[i], strlen(good[i]));
        assert_non_null(want);
        if (!got || !json_equal(want, got))
            fail_msg("em_rec_parse(%s) differs from jansson", good[i]);
        json_decref(want);
        json_decref(got);
    }
    static const char *const bad[] = {
        "", "{", "{\"a\":1,\"a\":2}", "{\"a\":1}x", "{\"a\":01}", "{\"a\":-}", "{\"a\":1,}",
        "[1,]", "{\"a\" 1}", "{\"a\":tru}", "\"x", "{\"a\":\"\x01\"}", "{'a':1}",
        "{\"a\":{\"b\":1,\"b\":1}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *got = em_rec_parse(bad[i], strlen(bad[i]));
        if (got)
            fail_msg("em_rec_parse(%s) took it", bad[i]);
    }
    /* deep nesting is jansson's to judge */
    char deep[2 * 100 + 1];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    deep[200] = '\0';
    json_t *d = em_rec_parse(deep, 200);
    assert_non_null(d);
    json_decref(d);
}

/* Files changed by hand after the stop win: another size, or the same size with the old
 * mtime put back (the ctime moved). */
static void test_hand_edit_after_stop_wins(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *p3 = path_of(dir, "vol-03"), *p7 = path_of(dir, "vol-07");
    /* another size */
    json_t *v = volume("vol-03", 3, "500Gi");
    char *text = json_dumps(v, JSON_INDENT(2));
    write_text(p3, text, strlen(text));
    free(text);
    json_decref(v);
    /* the same size, mtime restored */
    struct stat before;
    assert_int_equal(stat(p7, &before), 0);
    char *old = read_all(p7);
    char *at = strstr(old, "\"1Gi\"");
    assert_non_null(at);
    at[1] = '7';
    write_text(p7, old, strlen(old));
    free(old);
    struct timespec ts[2] = {before.st_atim, before.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, p7, ts, 0), 0);

    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    assert_string_equal(size_of(&s, "vol-03"), "500Gi");
    assert_string_equal(size_of(&s, "vol-07"), "7Gi");
    assert_string_equal(size_of(&s, "vol-08"), "1Gi");
    assert_int_equal(s.loaded_files, 2);
    assert_int_equal(s.loaded_checkpoint, N - 2);
    em_store_close(&s);
    nd_buf_release(&report);
    free(p3);
    free(p7);
    done(dir);
}

/* A file added after the stop is loaded; a file removed is gone. */
static void test_added_and_removed_files(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *gone = path_of(dir, "vol-05"), *added = path_of(dir, "extra");
    assert_int_equal(unlink(gone), 0);
    json_t *v = volume("extra", 77, "9Gi");
    char *text = json_dumps(v, JSON_INDENT(2));
    write_text(added, text, strlen(text));
    free(text);
    json_decref(v);

    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    assert_null(em_store_get(&s, VOLUMES, "default", "vol-05"));
    assert_string_equal(size_of(&s, "extra"), "9Gi");
    assert_int_equal(em_store_count(&s, VOLUMES), N);
    assert_int_equal(s.loaded_files, 1);
    assert_int_equal(s.loaded_checkpoint, N - 1);
    assert_int_equal(s.revision, 77);
    em_store_close(&s);
    nd_buf_release(&report);
    free(gone);
    free(added);
    done(dir);
}

/* A file broken after the stop is reported by path and left untouched, not taken from
 * the checkpoint; writes to it are refused. */
static void test_broken_file_still_reported(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *p = path_of(dir, "vol-02");
    const char *bad = "{\"apiVersion\": \"nodus.dev/v1\", \"kind\": \"Volume\", \"metadata\": {\n";
    write_text(p, bad, strlen(bad));
    char *q = path_of(dir, "vol-04"); /* parses, but names another object */
    json_t *v = volume("someone-else", 4, "1Gi");
    char *text = json_dumps(v, JSON_INDENT(2));
    write_text(q, text, strlen(text));
    free(text);
    json_decref(v);

    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    assert_null(em_store_get(&s, VOLUMES, "default", "vol-02"));
    assert_null(em_store_get(&s, VOLUMES, "default", "vol-04"));
    assert_non_null(strstr(report.data, p));
    assert_non_null(strstr(report.data, "left untouched"));
    assert_non_null(strstr(report.data, "metadata.name does not match the file name"));
    assert_int_equal(s.loaded_checkpoint, N - 2);
    struct nd_status st = ND_STATUS_INIT;
    json_t *w = volume("vol-02", em_store_next_revision(&s), "2Gi");
    assert_int_equal(em_store_put(&s, VOLUMES, w, "MODIFIED", 1000, NULL, &st), -1);
    assert_string_equal(st.reason, "InternalError");
    nd_status_release(&st);
    json_decref(w);
    em_store_close(&s);
    char *now = read_all(p);
    assert_string_equal(now, bad);
    free(now);
    nd_buf_release(&report);
    free(p);
    free(q);
    done(dir);
}

/* A checkpoint cut short, with a byte changed, or garbage, is ignored (and deleted):
 * every object comes from its file. */
static void test_broken_checkpoint_ignored(void **state)
{
    (void)state;
    for (int how = 0; how < 3; how++) {
        char *dir = stopped_state();
        char *ck = ckpt_path(dir);
        char *data = read_all(ck);
        size_t len = strlen(data);
        if (how == 0) {
            write_text(ck, data, len / 2);
        } else if (how == 1) {
            /* a size in the first record, changed: the checksum no longer holds */
            char *at = strstr(data, "\"1Gi\"");
            assert_non_null(at);
            at[1] = '5';
            write_text(ck, data, len);
        } else {
            write_text(ck, "nodus-checkpoint 1 garbage\n\x01\x02", 29);
        }
        free(data);
        static struct em_store s;
        struct nd_buf report = ND_BUF_INIT;
        open_store(&s, dir, &report);
        assert_int_equal(s.loaded_checkpoint, 0);
        assert_int_equal(s.loaded_files, N);
        assert_string_equal(size_of(&s, "vol-00"), "1Gi");
        assert_int_equal(em_store_count(&s, VOLUMES), N);
        assert_false(exists(ck));
        em_store_close(&s);
        nd_buf_release(&report);
        free(ck);
        done(dir);
    }
}

/* A process that opens the store, changes vol-01 and dies without a stop. */
static void crash_run(const char *dir, const char *size)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static struct em_store s;
        struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
        if (em_store_open(&s, dir, EM_FSYNC_NEVER, false, &report, &err) != 0)
            _exit(2);
        json_t *v = volume("vol-01", em_store_next_revision(&s), size);
        struct nd_status st = ND_STATUS_INIT;
        if (em_store_put(&s, VOLUMES, v, "MODIFIED", 1000, NULL, &st) != 0 ||
            em_store_commit(&s, em_store_ticket(&s)) != 0)
            _exit(3);
        _exit(s.loaded_checkpoint == N ? 0 : 4);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A crash (no clean stop) after a start that used the checkpoint: the next start finds
 * none; the last stop's checkpoint put back is refused, as it was written for an older
 * log. The files (and the log's repairs) are the truth. */
static void test_crash_means_files(void **state)
{
    (void)state;
    char *dir = stopped_state();
    char *ck = ckpt_path(dir);
    crash_run(dir, "3Gi");
    assert_false(exists(ck));
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    assert_int_equal(s.loaded_checkpoint, 0);
    assert_int_equal(s.loaded_files, N);
    assert_string_equal(size_of(&s, "vol-01"), "3Gi");
    em_store_close(&s);

    /* again, with the checkpoint of the stop before the crash put back */
    char *saved = read_all(ck);
    size_t saved_len = strlen(saved);
    crash_run(dir, "5Gi");
    write_text(ck, saved, saved_len);
    open_store(&s, dir, &report);
    assert_int_equal(s.loaded_checkpoint, 0);
    assert_int_equal(s.loaded_files, N);
    assert_string_equal(size_of(&s, "vol-01"), "5Gi");
    assert_false(exists(ck));
    em_store_close(&s);

    nd_buf_release(&report);
    free(saved);
    free(ck);
    done(dir);
}

/* A file changed by hand while the emulator ran (after its own write) is left out of the
 * checkpoint: the next start reads it. */
static void test_edit_while_running_is_read_next_start(void **state)
{
    (void)state;
    char *dir = stopped_state();
    static struct em_store s;
    struct nd_buf report = ND_BUF_INIT;
    open_store(&s, dir, &report);
    put(&s, volume("vol-09", em_store_next_revision(&s), "4Gi"));
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);
    em_journal_drain(&s.journal); /* its file written (the answer does not wait for it) */
    /* the same size as the store's text, another content */
    char *p9 = path_of(dir, "vol-09"), *p1 = path_of(dir, "vol-01");
    char *text = read_all(p9);
    char *at = strstr(text, "\"4Gi\"");
    assert_non_null(at);
    at[1] = '6';
    write_text(p9, text, strlen(text));
    free(text);
    /* and one the start loaded */
    json_t *v = volume("vol-01", 1, "11Gi");
    text = json_dumps(v, JSON_INDENT(2));
    write_text(p1, text, strlen(text));
    free(text);
    json_decref(v);
    em_store_close(&s);

    open_store(&s, dir, &report);
    assert_string_equal(size_of(&s, "vol-09"), "6Gi");
    assert_string_equal(size_of(&s, "vol-01"), "11Gi");
    assert_int_equal(s.loaded_files, 2);
    assert_int_equal(s.loaded_checkpoint, N - 2);
    em_store_close(&s);
    nd_buf_release(&report);
    free(p9);
    free(p1);
    done(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_stop_loads_from_checkpoint),
        cmocka_unit_test(test_loaded_records_in_arena),
        cmocka_unit_test(test_load_in_name_order),
        cmocka_unit_test(test_rec_parse_as_jansson),
        cmocka_unit_test(test_hand_edit_after_stop_wins),
        cmocka_unit_test(test_added_and_removed_files),
        cmocka_unit_test(test_broken_file_still_reported),
        cmocka_unit_test(test_broken_checkpoint_ignored),
        cmocka_unit_test(test_crash_means_files),
        cmocka_unit_test(test_edit_while_running_is_read_next_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
