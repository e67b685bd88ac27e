/* Unit tests of the store's walks (emulator/store/store.h), driven without HTTP: the
 * kinds that hold objects and their counts (em_store_kinds), one kind's or every kind's
 * objects of one project or of all (em_store_walk), per-project counts (em_store_count_in),
 * stopping a walk early, and what a clear and a reopen leave. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "store.h"
#include "util/buf.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

/* the kind these tests store (the store takes the registry's row) */
#define VOLUMES nd_kind_by_plural(NULL, "volumes")

/* ---- helpers ---- */

struct fixture {
    char *dir;
    struct em_store s;
    int64_t rv;
};

static void open_store(struct fixture *f)
{
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    if (em_store_open(&f->s, f->dir, EM_FSYNC_NEVER, false, &report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&report);
    nd_buf_release(&err);
}

static int setup(void **state)
{
    struct fixture *f = nd_xcalloc(1, sizeof *f);
    f->dir = store_tmpdir("walk");
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
    free(f);
    return 0;
}

/* Stores an object of plural named ns/name ("" ns: cluster-scoped). */
static void put(struct fixture *f, const char *plural, const char *ns, const char *name)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)++f->rv);
    json_t *obj = json_pack("{ss ss s{ss ss}}", "apiVersion", "nodus.dev/v1", "kind", "Thing",
                            "metadata", "name", name, "resourceVersion", rv);
    if (*ns)
        json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(ns));
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(
        em_store_put(&f->s, nd_kind_by_plural(NULL, plural), obj, "ADDED", 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(obj);
}

static void del(struct fixture *f, const char *plural, const char *ns, const char *name)
{
    json_t *obj = json_deep_copy(em_store_get(&f->s, nd_kind_by_plural(NULL, plural), ns, name));
    assert_non_null(obj);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_delete(&f->s, nd_kind_by_plural(NULL, plural), obj, 1000, NULL, &st),
                     0);
    nd_status_release(&st);
    json_decref(obj);
}

/* What a walk saw, one "plural:ns/name" or "plural=count" a line, and where to stop. */
struct seen {
    struct nd_buf b;
    int calls;
    int stop_at; /* return 7 at this call (1-based); 0: never */
};

static int see_kind(const struct nd_kind *k, size_t count, void *ctx)
{
    struct seen *w = ctx;
    nd_buf_addf(&w->b, "%s=%zu\n", k->plural, count);
    return ++w->calls == w->stop_at ? 7 : 0;
}

static int see_object(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    struct seen *w = ctx;
    const json_t *meta = json_object_get(em_entry_obj(e), "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    nd_buf_addf(&w->b, "%s:%s/%s\n", k->plural, ns ? ns : "",
                json_string_value(json_object_get(meta, "name")));
    return ++w->calls == w->stop_at ? 7 : 0;
}

/* The kinds walk as text ("" when it calls nothing). */
static char *kinds(struct fixture *f)
{
    struct seen w = {.b = ND_BUF_INIT};
    assert_int_equal(em_store_kinds(&f->s, see_kind, &w), 0);
    return nd_buf_detach(&w.b);
}

static char *walk(struct fixture *f, const char *plural, const char *ns)
{
    struct seen w = {.b = ND_BUF_INIT};
    assert_int_equal(
        em_store_walk(&f->s, plural ? nd_kind_by_plural(NULL, plural) : NULL, ns, see_object, &w),
        0);
    return nd_buf_detach(&w.b);
}

#define assert_text(got, want)                                                                \
    do {                                                                                      \
        char *g_ = (got);                                                                     \
        assert_string_equal(g_, want);                                                        \
        free(g_);                                                                             \
    } while (0)

/* A few kinds across projects whose names are prefixes of each other. */
static void fill(struct fixture *f)
{
    put(f, "volumes", "b", "v2");
    put(f, "volumes", "a", "v9");
    put(f, "namespaces", "", "b");
    put(f, "jobs", "ab", "j1");
    put(f, "volumes", "ab", "v1");
    put(f, "volumes", "a", "v10");
    put(f, "namespaces", "", "a");
    put(f, "jobs", "a", "j2");
}

/* ---- tests ---- */

static void test_kinds_in_first_held_order_with_counts(void **state)
{
    struct fixture *f = *state;
    assert_text(kinds(f), "");
    fill(f);
    assert_text(kinds(f), "volumes=4\nnamespaces=2\njobs=2\n");
    /* a kind that held objects and holds none is not walked */
    del(f, "namespaces", "", "a");
    del(f, "namespaces", "", "b");
    assert_text(kinds(f), "volumes=4\njobs=2\n");
    put(f, "namespaces", "", "c");
    assert_text(kinds(f), "volumes=4\nnamespaces=1\njobs=2\n");
}

static void test_walk_one_kind_in_project_then_name_order(void **state)
{
    struct fixture *f = *state;
    fill(f);
    assert_text(walk(f, "volumes", NULL),
                "volumes:a/v10\nvolumes:a/v9\nvolumes:ab/v1\nvolumes:b/v2\n");
    /* one project: not its prefixes' neighbours */
    assert_text(walk(f, "volumes", "a"), "volumes:a/v10\nvolumes:a/v9\n");
    assert_text(walk(f, "volumes", "ab"), "volumes:ab/v1\n");
    assert_text(walk(f, "volumes", "c"), "");
    /* "" is the cluster scope, not every project */
    assert_text(walk(f, "namespaces", ""), "namespaces:/a\nnamespaces:/b\n");
    assert_text(walk(f, "volumes", ""), "");
    assert_text(walk(f, "pools", NULL), "");
    assert_text(walk(f, "pools", "a"), "");
}

static void test_walk_every_kind(void **state)
{
    struct fixture *f = *state;
    fill(f);
    assert_text(walk(f, NULL, "a"), "volumes:a/v10\nvolumes:a/v9\njobs:a/j2\n");
    assert_text(walk(f, NULL, "ab"), "volumes:ab/v1\njobs:ab/j1\n");
    assert_text(walk(f, NULL, ""), "namespaces:/a\nnamespaces:/b\n");
    assert_text(walk(f, NULL, "zz"), "");
    assert_text(walk(f, NULL, NULL),
                "volumes:a/v10\nvolumes:a/v9\nvolumes:ab/v1\nvolumes:b/v2\n"
                "namespaces:/a\nnamespaces:/b\n"
                "jobs:a/j2\njobs:ab/j1\n");
}

static void test_walks_stop_on_nonzero(void **state)
{
    struct fixture *f = *state;
    fill(f);
    struct seen w = {.b = ND_BUF_INIT, .stop_at = 2};
    assert_int_equal(em_store_walk(&f->s, NULL, NULL, see_object, &w), 7);
    assert_string_equal(w.b.data, "volumes:a/v10\nvolumes:a/v9\n");
    nd_buf_release(&w.b);
    /* stopping in a later kind */
    struct seen w2 = {.b = ND_BUF_INIT, .stop_at = 2};
    assert_int_equal(em_store_walk(&f->s, NULL, "ab", see_object, &w2), 7);
    assert_string_equal(w2.b.data, "volumes:ab/v1\njobs:ab/j1\n");
    nd_buf_release(&w2.b);
    struct seen k = {.b = ND_BUF_INIT, .stop_at = 1};
    assert_int_equal(em_store_kinds(&f->s, see_kind, &k), 7);
    assert_string_equal(k.b.data, "volumes=4\n");
    nd_buf_release(&k.b);
}

static void test_count_in_a_project(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, NULL), 0);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "a"), 0);
    fill(f);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, NULL), 4);
    assert_int_equal(em_store_count(&f->s, VOLUMES), 4);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "a"), 2);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "ab"), 1);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "b"), 1);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "c"), 0);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, ""), 0);
    assert_int_equal(em_store_count_in(&f->s, nd_kind_by_plural(NULL, "namespaces"), ""), 2);
    assert_int_equal(em_store_count_in(&f->s, nd_kind_by_plural(NULL, "pools"), "a"), 0);
    del(f, "volumes", "a", "v9");
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "a"), 1);
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, NULL), 3);
}

static void test_clear_and_reopen(void **state)
{
    struct fixture *f = *state;
    fill(f);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_clear(&f->s, &st), 0);
    nd_status_release(&st);
    assert_text(kinds(f), "");
    assert_text(walk(f, NULL, NULL), "");
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "a"), 0);
    char *file = nd_xasprintf("%s/objects/a/volumes/v9.json", f->dir);
    assert_int_equal(access(file, F_OK), -1);
    free(file);
    /* the kinds' order starts again after a clear */
    put(f, "jobs", "a", "j3");
    put(f, "volumes", "a", "v3");
    assert_text(kinds(f), "jobs=1\nvolumes=1\n");
    /* what a reopen loads is walked alike */
    put(f, "volumes", "b", "v4");
    assert_int_equal(em_store_commit(&f->s, em_store_ticket(&f->s)), 0);
    em_store_close(&f->s);
    open_store(f);
    assert_text(walk(f, "volumes", NULL), "volumes:a/v3\nvolumes:b/v4\n");
    assert_text(walk(f, "jobs", "a"), "jobs:a/j3\n");
    assert_int_equal(em_store_count_in(&f->s, VOLUMES, "b"), 1);
    assert_int_equal(em_store_count_in(&f->s, nd_kind_by_plural(NULL, "jobs"), "a"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kinds_in_first_held_order_with_counts, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_walk_one_kind_in_project_then_name_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_walk_every_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_walks_stop_on_nonzero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_in_a_project, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clear_and_reopen, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
