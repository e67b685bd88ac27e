/* Unit tests of the store's key (emulator/store/store.h), driven without HTTP: the store
 * takes the registry's row (const struct nd_kind *), not the kind's plural. A view
 * (events.k8s.io's Event, the same plural in another group) reaches the objects of the kind
 * it views, through one index; the walks hand back the registry's own rows; the plural is
 * left to the edges (the object files and the journal's records keep their bytes); a
 * directory on disk that names no kind is reported and left untouched, not loaded. */
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

#include "fsutil.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/buf.h"
#include "util/xmalloc.h"

struct fixture {
    char *dir;
    struct em_store s;
    struct nd_buf report;
    int64_t rv;
};

static void open_store(struct fixture *f)
{
    struct nd_buf err = ND_BUF_INIT;
    nd_buf_release(&f->report);
    if (em_store_open(&f->s, f->dir, EM_FSYNC_NEVER, false, &f->report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
}

static int setup(void **state)
{
    struct fixture *f = nd_xcalloc(1, sizeof *f);
    f->dir = store_tmpdir("kind");
    open_store(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    em_store_close(&f->s);
    em_rm_rf(f->dir);
    free(f->dir);
    nd_buf_release(&f->report);
    free(f);
    return 0;
}

/* Stores an object of kind k named ns/name ("" ns: cluster-scoped); put's answer. */
static int put(struct fixture *f, const struct nd_kind *k, const char *ns, const char *name)
{
    char rv[32];
    snprintf(rv, sizeof rv, "%lld", (long long)++f->rv);
    json_t *obj = json_pack("{ss s{ssss}}", "kind", k ? k->kind : "Thing", "metadata", "name",
                            name, "resourceVersion", rv);
    if (*ns)
        json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(ns));
    struct nd_status st = ND_STATUS_INIT;
    int rc = em_store_put(&f->s, k, obj, "ADDED", 1000, NULL, &st);
    if (rc < 0)
        assert_string_equal(st.reason, "InternalError");
    nd_status_release(&st);
    json_decref(obj);
    return rc;
}

static const struct nd_kind *core_events(void)
{
    const struct nd_kind *k = nd_kind_by_plural("", "events");
    assert_non_null(k);
    assert_null(k->from_stored);
    return k;
}

static const struct nd_kind *view_events(void)
{
    const struct nd_kind *v = nd_kind_by_plural("events.k8s.io", "events");
    assert_non_null(v);
    assert_non_null(v->from_stored); /* the registry's view over core Events */
    assert_string_equal(v->plural, core_events()->plural);
    return v;
}

/* ---- a view reaches the objects of the kind it views, through one index ---- */

static void test_view_reaches_the_stored_kind(void **state)
{
    struct fixture *f = *state;
    const struct nd_kind *core = core_events(), *view = view_events();
    assert_ptr_equal(em_store_kind(view), core);
    assert_ptr_equal(em_store_kind(core), core);
    assert_null(em_store_kind(NULL));
    assert_int_equal(put(f, core, "default", "e1"), 0);
    /* read through the view: the very object stored through the core kind */
    assert_ptr_equal(em_store_get(&f->s, view, "default", "e1"),
                     em_store_get(&f->s, core, "default", "e1"));
    assert_ptr_equal(em_store_entry(&f->s, view, "default", "e1"),
                     em_store_entry(&f->s, core, "default", "e1"));
    /* a write through the view lands in the same index */
    assert_int_equal(put(f, view, "default", "e2"), 0);
    assert_int_equal(em_store_count(&f->s, core), 2);
    assert_int_equal(em_store_count(&f->s, view), 2);
    assert_int_equal(em_store_count_in(&f->s, view, "default"), 2);
    json_t *l = em_store_list(&f->s, view, "default");
    assert_int_equal(json_array_size(l), 2);
    json_decref(l);
    struct em_store_cursor c;
    em_store_seek(&f->s, view, NULL, NULL, NULL, &c);
    assert_int_equal(em_store_remaining(&c), 2);
}

/* ---- the walks hand back the registry's rows ---- */

struct seen {
    const struct nd_kind *kinds[8];
    size_t n, objects;
};

static int see_kind(const struct nd_kind *k, size_t count, void *ctx)
{
    struct seen *w = ctx;
    assert_true(w->n < 8);
    w->kinds[w->n++] = k;
    w->objects += count;
    return 0;
}

static int see_object(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    struct seen *w = ctx;
    assert_ptr_equal(k, core_events()); /* the stored kind, even when walked by the view */
    assert_non_null(em_entry_obj(e));
    w->objects++;
    return 0;
}

static void test_walks_give_the_registry_rows(void **state)
{
    struct fixture *f = *state;
    const struct nd_kind *jobs = nd_kind_by_plural(NULL, "jobs");
    const struct nd_kind *ns = nd_kind_by_plural(NULL, "namespaces");
    assert_int_equal(put(f, jobs, "default", "a"), 0);
    assert_int_equal(put(f, ns, "", "default"), 0);
    assert_int_equal(put(f, view_events(), "default", "e"), 0);
    struct seen w = {0};
    assert_int_equal(em_store_kinds(&f->s, see_kind, &w), 0);
    assert_int_equal(w.n, 3);
    assert_ptr_equal(w.kinds[0], jobs);
    assert_ptr_equal(w.kinds[1], ns);
    assert_ptr_equal(w.kinds[2], core_events()); /* never the view: one kind, one index */
    assert_int_equal(w.objects, 3);
    struct seen o = {0};
    assert_int_equal(em_store_walk(&f->s, view_events(), NULL, see_object, &o), 0);
    assert_int_equal(o.objects, 1);
}

/* ---- no kind, no write ---- */

static void test_a_write_without_a_kind_is_refused(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(put(f, NULL, "default", "x"), -1);
    assert_null(em_store_get(&f->s, NULL, "default", "x"));
    assert_int_equal(em_store_count(&f->s, NULL), 0);
    struct seen w = {0};
    assert_int_equal(em_store_kinds(&f->s, see_kind, &w), 0);
    assert_int_equal(w.n, 0);
}

/* ---- the plural at the edges: file paths and journal records keep their bytes ---- */

static bool file_has(const char *path, const char *needle)
{
    struct nd_buf b = ND_BUF_INIT;
    bool ok = nd_buf_read_file(&b, path) == 0 && b.data && strstr(b.data, needle);
    nd_buf_release(&b);
    return ok;
}

static void test_the_plural_names_files_and_records(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(put(f, view_events(), "default", "e"), 0);
    em_store_commit(&f->s, em_store_ticket(&f->s));
    em_journal_drain(&f->s.journal); /* the answer does not wait for the files */
    /* Events: one file per project and hour (events_file.h; this one has no time) */
    char *file = nd_xasprintf("%s/objects/default/events/undated.ndjson", f->dir);
    char *log = nd_xasprintf("%s/history/journal.ndjson", f->dir);
    assert_true(file_has(file, "\"name\":\"e\""));
    assert_true(file_has(log, "\"type\":\"ADDED\",\"plural\":\"events\",\"object\":{"));
    /* a restart finds it again under the kind the directory names */
    em_store_close(&f->s);
    open_store(f);
    assert_non_null(em_store_get(&f->s, core_events(), "default", "e"));
    free(file);
    free(log);
}

/* ---- a directory that names no kind is reported and left untouched ---- */

static void test_a_directory_of_no_kind_is_left_alone(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(put(f, nd_kind_by_plural(NULL, "jobs"), "default", "a"), 0);
    em_store_commit(&f->s, em_store_ticket(&f->s));
    em_journal_drain(&f->s.journal); /* the answer does not wait for the files */
    em_store_close(&f->s);
    char *dir = nd_xasprintf("%s/objects/default/widgets", f->dir);
    char *file = nd_xasprintf("%s/w.json", dir);
    assert_int_equal(em_mkdir_p(dir), 0);
    const char *text = "{\"kind\": \"Widget\", \"metadata\": {\"name\": \"w\"}}\n";
    assert_int_equal(em_write_atomic(file, text, strlen(text), false), 0);
    open_store(f);
    assert_non_null(strstr(f->report.data ? f->report.data : "", "names no kind"));
    assert_non_null(strstr(f->report.data, file));
    struct seen w = {0};
    assert_int_equal(em_store_kinds(&f->s, see_kind, &w), 0);
    assert_int_equal(w.n, 1); /* jobs only */
    assert_int_equal(w.objects, 1);
    struct stat sb;
    assert_int_equal(stat(file, &sb), 0); /* untouched */
    free(dir);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_view_reaches_the_stored_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_walks_give_the_registry_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_write_without_a_kind_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_plural_names_files_and_records, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_directory_of_no_kind_is_left_alone, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
