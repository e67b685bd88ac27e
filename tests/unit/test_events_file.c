/* Unit tests of the Events' hour files (emulator/store/events_file.h), through the store:
 * the newest resourceVersion of a name wins (on a tie the later line), a deletion line
 * removes, a line that does not parse is reported and its file left as it is, a torn last
 * line is cut off (its bytes kept aside), an Event the journal holds is appended at a start whatever its hour
 * file's mtime says, an Event spread over two files is tidied into its hour's file, and a
 * delete appends a deletion line or, for a file's last live Event, removes the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events_file.h"
#include "fsutil.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define H1 "2026-12-01T10"
#define H2 "2026-12-01T11"

struct fixture {
    char *dir, *evdir;
    struct em_store s;
    struct nd_buf report;
    bool open;
};

static const struct nd_kind *events(void)
{
    return nd_kind_by_plural("", "events");
}

static void open_store(struct fixture *f)
{
    struct nd_buf err = ND_BUF_INIT;
    nd_buf_release(&f->report);
    if (em_store_open(&f->s, f->dir, EM_FSYNC_NEVER, false, &f->report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
    f->open = true;
}

static int setup(void **state)
{
    struct fixture *f = nd_xcalloc(1, sizeof *f);
    f->dir = store_tmpdir("events");
    f->evdir = nd_xasprintf("%s/objects/default/events", f->dir);
    assert_int_equal(em_mkdir_p(f->evdir), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    if (f->open)
        em_store_close(&f->s);
    em_rm_rf(f->dir);
    nd_buf_release(&f->report);
    free(f->evdir);
    free(f->dir);
    free(f);
    return 0;
}

/* An Event's line: name, resourceVersion, the hour of its creationTimestamp, message. */
static char *ev_line(const char *name, int rv, const char *hour, const char *msg)
{
    return nd_xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"%s\","
                        "\"namespace\":\"default\",\"resourceVersion\":\"%d\","
                        "\"creationTimestamp\":\"%s:00:00Z\"},\"message\":\"%s\"}\n",
                        name, rv, hour, msg);
}

static char *hour_path(struct fixture *f, const char *hour)
{
    return nd_xasprintf("%s/%s.ndjson", f->evdir, hour);
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static char *read_text(const char *path)
{
    struct nd_buf b = ND_BUF_INIT;
    if (nd_buf_read_file(&b, path) < 0) {
        nd_buf_release(&b);
        return NULL;
    }
    nd_buf_addch(&b, '\0');
    return b.data;
}

static const char *message(struct fixture *f, const char *name)
{
    json_t *e = em_store_get(&f->s, events(), "default", name);
    return e ? json_string_value(json_object_get(e, "message")) : NULL;
}

static void test_the_newest_line_of_a_name_wins(void **state)
{
    struct fixture *f = *state;
    char *l[5] = {ev_line("a", 1, H1, "one"), ev_line("b", 2, H1, "b"),
                  ev_line("a", 3, H1, "three"), nd_xstrdup("{\"deleted\":\"b\",\"resourceVersion\":\"4\"}\n"),
                  ev_line("a", 3, H1, "edited")};
    struct nd_buf text = ND_BUF_INIT;
    for (int i = 0; i < 5; i++) {
        nd_buf_add(&text, l[i], strlen(l[i]));
        free(l[i]);
    }
    nd_buf_addch(&text, '\0');
    char *path = hour_path(f, H1);
    write_text(path, text.data);
    open_store(f);
    assert_string_equal(message(f, "a"), "edited"); /* a tie: the later line */
    assert_null(em_store_get(&f->s, events(), "default", "b"));
    assert_int_equal(em_store_count(&f->s, events()), 1);
    assert_null(strstr(f->report.data ? f->report.data : "", "line"));
    free(path);
    nd_buf_release(&text);
}

static void test_a_broken_line_is_reported_and_its_file_left_alone(void **state)
{
    struct fixture *f = *state;
    char *a = ev_line("a", 1, H1, "a"), *b = ev_line("b", 2, H1, "b");
    char *text = nd_xasprintf("%s{\"not json\n%s%s", a, b, a); /* a superseded line too */
    char *path = hour_path(f, H1);
    write_text(path, text);
    open_store(f);
    assert_non_null(strstr(f->report.data, "line 2"));
    assert_non_null(strstr(f->report.data, path));
    assert_string_equal(message(f, "a"), "a");
    assert_string_equal(message(f, "b"), "b");
    char *now = read_text(path);
    assert_string_equal(now, text);
    free(now);
    free(path);
    free(text);
    free(a);
    free(b);
}

static void test_a_torn_last_line_is_cut_off(void **state)
{
    struct fixture *f = *state;
    char *a = ev_line("a", 1, H1, "a");
    char *text = nd_xasprintf("%s{\"apiVersion\":\"v1\",\"ki", a);
    char *path = hour_path(f, H1);
    write_text(path, text);
    open_store(f);
    assert_string_equal(message(f, "a"), "a");
    char *now = read_text(path);
    assert_string_equal(now, a);
    free(now);
    /* its bytes are kept aside, where the report says */
    char *want = nd_xasprintf("state: %s: cut 22 bytes of a torn last line (a write the last "
                              "stop interrupted); they are kept as %s/broken/default/events/"
                              H1 ".ndjson.",
                              path, f->dir);
    const char *at = strstr(f->report.data, want);
    assert_non_null(at);
    const char *kept = strstr(at, " are kept as ") + strlen(" are kept as ");
    char *aside = nd_xstrndup(kept, strcspn(kept, "\n"));
    char *cut = read_text(aside);
    assert_non_null(cut);
    assert_string_equal(cut, "{\"apiVersion\":\"v1\",\"ki");
    free(cut);
    free(aside);
    free(want);
    free(path);
    free(text);
    free(a);
}

/* A journal record of an Event (its line without the newline, rev its revision). */
static char *ev_record(int rev, const char *line)
{
    return nd_xasprintf("{\"rev\":%d,\"time\":1000,\"type\":\"ADDED\",\"plural\":\"events\","
                        "\"object\":%.*s}\n", rev, (int)strlen(line) - 1, line);
}

static void test_an_event_the_journal_holds_is_appended_though_its_file_changed(void **state)
{
    struct fixture *f = *state;
    char *a = ev_line("a", 1, H1, "a"), *b = ev_line("b", 2, H1, "b");
    char *ra = ev_record(1, a), *rb = ev_record(2, b);
    /* both acknowledged; b's append was still to come when the emulator was killed. The
     * hour file changed after b's record all the same: an append of another Event, or
     * (on a full disk) b's own failed append and its cut back */
    char *log = nd_xasprintf("{\"wall\":1000000,\"applied\":0}\n%s%s", ra, rb);
    char *jdir = nd_xasprintf("%s/history", f->dir), *jpath = nd_xasprintf("%s/journal.ndjson", jdir);
    assert_int_equal(em_mkdir_p(jdir), 0);
    write_text(jpath, log);
    char *path = hour_path(f, H1);
    write_text(path, a); /* now: after the record's marker */
    open_store(f);
    assert_non_null(message(f, "b"));
    assert_string_equal(message(f, "b"), "b");
    char *now = read_text(path);
    char *both = nd_xasprintf("%s%s", a, b);
    assert_string_equal(now, both);
    free(both);
    free(now);
    free(path);
    free(jpath);
    free(jdir);
    free(log);
    free(rb);
    free(ra);
    free(b);
    free(a);
}

static void test_an_event_spread_over_files_is_tidied_into_its_hour(void **state)
{
    struct fixture *f = *state;
    char *p1 = hour_path(f, H1), *p2 = hour_path(f, H2);
    char *a1 = ev_line("a", 1, H1, "old"), *a2 = ev_line("a", 5, H1, "new");
    char *b = ev_line("b", 2, H2, "b");
    char *t2 = nd_xasprintf("%s%s", b, a2); /* a's newest line, outside its hour */
    write_text(p1, a1);
    write_text(p2, t2);
    open_store(f);
    assert_string_equal(message(f, "a"), "new");
    char *n1 = read_text(p1), *n2 = read_text(p2);
    assert_string_equal(n1, a2);
    assert_string_equal(n2, b);
    free(n1);
    free(n2);
    free(t2);
    free(a1);
    free(a2);
    free(b);
    free(p1);
    free(p2);
}

static json_t *event(const char *name, int rv)
{
    char rvs[16];
    snprintf(rvs, sizeof rvs, "%d", rv);
    return json_pack("{ss ss s{ss ss ss ss} ss}", "apiVersion", "v1", "kind", "Event", "metadata",
                     "name", name, "namespace", "default", "resourceVersion", rvs,
                     "creationTimestamp", H1 ":30:00Z", "message", name);
}

static void change(struct fixture *f, json_t *obj, bool gone)
{
    struct nd_status st = ND_STATUS_INIT;
    int rc = gone ? em_store_delete(&f->s, events(), obj, 1000, NULL, &st)
                  : em_store_put(&f->s, events(), obj, "ADDED", 1000, NULL, &st);
    assert_int_equal(rc, 0);
    assert_int_equal(em_store_commit(&f->s, em_store_ticket(&f->s)), 0);
    em_journal_drain(&f->s.journal); /* the hour file written too */
    json_decref(obj);
}

static void test_a_delete_appends_a_line_and_the_last_removes_the_file(void **state)
{
    struct fixture *f = *state;
    open_store(f);
    change(f, event("a", 1), false);
    change(f, event("b", 2), false);
    char *path = hour_path(f, H1);
    char *text = read_text(path);
    assert_non_null(strstr(text, "\"name\":\"a\""));
    assert_non_null(strstr(text, "\"name\":\"b\""));
    free(text);
    change(f, event("a", 3), true);
    text = read_text(path);
    assert_non_null(strstr(text, "{\"deleted\":\"a\",\"resourceVersion\":\"3\"}\n"));
    free(text);
    change(f, event("b", 4), true);
    struct stat sb;
    assert_int_equal(stat(path, &sb), -1); /* its last live Event gone: the file goes */
    /* a restart finds none */
    em_store_close(&f->s);
    f->open = false;
    open_store(f);
    assert_int_equal(em_store_count(&f->s, events()), 0);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_the_newest_line_of_a_name_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_broken_line_is_reported_and_its_file_left_alone,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_torn_last_line_is_cut_off, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_an_event_the_journal_holds_is_appended_though_its_file_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_event_spread_over_files_is_tidied_into_its_hour,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_delete_appends_a_line_and_the_last_removes_the_file,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
