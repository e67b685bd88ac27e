/* Unit tests of the owner index (emulator/store/owners.h) alone and as the store keeps it
 * (em_store_dependents, em_store_by_uid): an object added, replaced with other owners,
 * deleted; the store cleared, reopened (files, then the checkpoint of a clean stop) and
 * rolled back after a failed commit; answers in em_store_walk's order; a uid that holds
 * the separator passes for no other; a lookup looks at what it finds, not the project. */
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
#include <unistd.h>

#include "fsutil.h"
#include "owners.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define VOLUMES nd_kind_by_plural(NULL, "volumes")
#define JOBS    nd_kind_by_plural(NULL, "jobs")

/* NEW object name in ns with uid (NULL: none) and owner uids (NULL-terminated). */
static json_t *obj_of(const char *ns, const char *name, const char *uid, const char *const *owners)
{
    json_t *meta = json_pack("{ss ss ss}", "name", name, "namespace", ns, "resourceVersion", "1");
    if (uid)
        json_object_set_new(meta, "uid", json_string(uid));
    json_t *refs = json_array();
    for (size_t i = 0; owners && owners[i]; i++)
        json_array_append_new(refs, json_pack("{ss ss ss}", "kind", "Volume", "name", "x", "uid",
                                              owners[i]));
    if (json_array_size(refs))
        json_object_set(meta, "ownerReferences", refs);
    json_decref(refs);
    return json_pack("{ss ss so}", "apiVersion", "nodus.dev/v1", "kind", "Volume", "metadata", meta);
}

/* What a lookup found, as "plural/name,plural/name". */
static int collect(const struct em_owned *found, void *ctx)
{
    struct nd_buf *b = ctx;
    nd_buf_addf(b, "%s%.*s/%s", b->len ? "," : "", (int)found->plural_len, found->plural,
                found->name);
    return 0;
}

static char *deps(struct em_owners *o, const char *ns, const char *uid)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    em_owners_dependents(o, ns, uid, collect, &b);
    return nd_buf_detach(&b);
}

static char *holders(struct em_owners *o, const char *ns, const char *uid)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    em_owners_holders(o, ns, uid, collect, &b);
    return nd_buf_detach(&b);
}

#define ASSERT_FOUND(call, want)                                                               \
    do {                                                                                       \
        char *got_ = (call);                                                                   \
        assert_string_equal(got_, want);                                                       \
        free(got_);                                                                            \
    } while (0)

static void set(struct em_owners *o, const struct nd_kind *k, const char *ns, const char *name,
                const char *uid, const char *const *owners)
{
    json_t *obj = obj_of(ns, name, uid, owners);
    em_owners_set(o, k, ns, name, obj);
    json_decref(obj);
}

static void test_add_replace_delete_clear(void **state)
{
    (void)state;
    struct em_owners o = {0};
    ASSERT_FOUND(deps(&o, "p", "u-owner"), ""); /* empty: nothing made yet */
    set(&o, VOLUMES, "p", "owner", "u-owner", NULL);
    set(&o, VOLUMES, "p", "d1", "u-d1", (const char *const[]){"u-owner", NULL});
    set(&o, JOBS, "p", "d2", "u-d2", (const char *const[]){"u-other", "u-owner", NULL});
    set(&o, VOLUMES, "q", "d3", "u-d3", (const char *const[]){"u-owner", NULL});
    ASSERT_FOUND(deps(&o, "p", "u-owner"), "jobs/d2,volumes/d1");
    ASSERT_FOUND(deps(&o, "q", "u-owner"), "volumes/d3"); /* a project's own only */
    ASSERT_FOUND(deps(&o, "", "u-owner"), "");
    ASSERT_FOUND(holders(&o, "p", "u-owner"), "volumes/owner");
    ASSERT_FOUND(holders(&o, "q", "u-owner"), "");
    assert_int_equal(em_owners_objects(&o), 4);
    assert_int_equal(em_owners_references(&o), 4);

    /* d1 now names another owner, and a new uid: the old ones find it no more */
    set(&o, VOLUMES, "p", "d1", "u-d1b", (const char *const[]){"u-other", NULL});
    ASSERT_FOUND(deps(&o, "p", "u-owner"), "jobs/d2");
    ASSERT_FOUND(deps(&o, "p", "u-other"), "jobs/d2,volumes/d1");
    ASSERT_FOUND(holders(&o, "p", "u-d1"), "");
    ASSERT_FOUND(holders(&o, "p", "u-d1b"), "volumes/d1");
    /* the same again changes nothing */
    set(&o, VOLUMES, "p", "d1", "u-d1b", (const char *const[]){"u-other", NULL});
    assert_int_equal(em_owners_references(&o), 4);
    /* its owners gone (an orphan): still found by its uid */
    set(&o, VOLUMES, "p", "d1", "u-d1b", NULL);
    ASSERT_FOUND(deps(&o, "p", "u-other"), "jobs/d2");
    ASSERT_FOUND(holders(&o, "p", "u-d1b"), "volumes/d1");
    assert_int_equal(em_owners_references(&o), 3);

    /* deleted */
    em_owners_set(&o, JOBS, "p", "d2", NULL);
    ASSERT_FOUND(deps(&o, "p", "u-owner"), "");
    ASSERT_FOUND(holders(&o, "p", "u-d2"), "");
    assert_int_equal(em_owners_objects(&o), 3);
    assert_int_equal(em_owners_references(&o), 1);
    em_owners_set(&o, JOBS, "p", "never-there", NULL);

    /* cleared: nothing left, and usable again */
    em_owners_clear(&o);
    assert_int_equal(em_owners_objects(&o), 0);
    ASSERT_FOUND(deps(&o, "q", "u-owner"), "");
    ASSERT_FOUND(holders(&o, "p", "u-owner"), "");
    set(&o, VOLUMES, "q", "d3", "u-d3", (const char *const[]){"u-owner", NULL});
    ASSERT_FOUND(deps(&o, "q", "u-owner"), "volumes/d3");
    em_owners_clear(&o);
}

/* A client writes owner uids: one holding the separator passes for no other uid or
 * project; a reference without a string uid names nothing; an object with no uid is
 * found by none. */
static void test_uids_are_exact(void **state)
{
    (void)state;
    struct em_owners o = {0};
    set(&o, VOLUMES, "p", "a", NULL, (const char *const[]){"u\x01p", "u", "", NULL});
    set(&o, VOLUMES, "p", "b", NULL, (const char *const[]){"u\x01p\x01p", NULL});
    ASSERT_FOUND(deps(&o, "p", "u"), "volumes/a");
    ASSERT_FOUND(deps(&o, "p", "u\x01p"), "volumes/a");
    ASSERT_FOUND(deps(&o, "p", ""), "volumes/a");
    ASSERT_FOUND(deps(&o, "p", "u\x01"), "");
    ASSERT_FOUND(deps(&o, "p", "u\x01p\x01p"), "volumes/b");
    ASSERT_FOUND(holders(&o, "p", ""), "");
    json_t *odd = json_pack("{s{ss s[{si}]}}", "metadata", "name", "c", "ownerReferences", "uid", 7);
    em_owners_set(&o, VOLUMES, "p", "c", odd);
    json_decref(odd);
    assert_int_equal(em_owners_objects(&o), 2);
    em_owners_clear(&o);
}

/* From the fields alone (em_owners_put), as from the tree; more owners than fit on the
 * stack. */
static void test_put_from_fields(void **state)
{
    (void)state;
    struct em_owners o = {0};
    const char *owners[12];
    char uids[12][16];
    for (int i = 0; i < 12; i++) {
        snprintf(uids[i], sizeof uids[i], "o%02d", i);
        owners[i] = uids[i];
    }
    em_owners_put(&o, &(struct em_owners_obj){.kind = JOBS, .ns = "p", .name = "j",
                                               .present = true, .uid = "u-j",
                                               .owners = owners, .nowners = 12});
    ASSERT_FOUND(deps(&o, "p", "o11"), "jobs/j");
    ASSERT_FOUND(holders(&o, "p", "u-j"), "jobs/j");
    /* the same object from its tree: nothing changes */
    json_t *refs = json_array();
    for (int i = 0; i < 12; i++)
        json_array_append_new(refs, json_pack("{ss}", "uid", uids[i]));
    json_t *obj = json_pack("{s{ss ss so}}", "metadata", "name", "j", "uid", "u-j",
                            "ownerReferences", refs);
    em_owners_set(&o, JOBS, "p", "j", obj);
    json_decref(obj);
    assert_int_equal(em_owners_references(&o), 12);
    em_owners_put(&o, &(struct em_owners_obj){.kind = JOBS, .ns = "p", .name = "j"});
    ASSERT_FOUND(deps(&o, "p", "o00"), "");
    assert_int_equal(em_owners_objects(&o), 0);
    em_owners_clear(&o);
}

/* ---- as the store keeps it ---- */

static void open_store(struct em_store *s, const char *dir)
{
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    if (em_store_open(s, dir, EM_FSYNC_NEVER, false, &report, &err) != 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&err);
    nd_buf_release(&report);
}

static void put(struct em_store *s, const struct nd_kind *k, const char *name, const char *uid,
                const char *const *owners)
{
    json_t *obj = obj_of("default", name, uid, owners);
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)em_store_next_revision(s));
    json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv));
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_put(s, k, obj, "ADDED", 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(obj);
}

static void del(struct em_store *s, const struct nd_kind *k, const char *name)
{
    json_t *gone = json_deep_copy(em_store_get(s, k, "default", name));
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_delete(s, k, gone, 1000, NULL, &st), 0);
    nd_status_release(&st);
    json_decref(gone);
}

static int name_of(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    struct nd_buf *b = ctx;
    nd_buf_addf(b, "%s%s/%s", b->len ? "," : "", k->plural,
                json_string_value(json_object_get(json_object_get(em_entry_rec(e), "metadata"), "name")));
    return 0;
}

/* "plural/name,..." of the store's dependents of uid in default */
static char *store_deps(struct em_store *s, const char *uid)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    em_store_dependents(s, "default", uid, name_of, &b);
    return nd_buf_detach(&b);
}

static char *store_holder(struct em_store *s, const char *uid)
{
    const struct nd_kind *k = NULL;
    const struct em_entry *e = em_store_by_uid(s, "default", uid, &k);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "");
    if (e)
        name_of(k, e, &b);
    return nd_buf_detach(&b);
}

static void test_store_keeps_it(void **state)
{
    (void)state;
    char *dir = store_tmpdir("owners");
    struct em_store s;
    open_store(&s, dir);
    /* volumes met first: a walk gives them before jobs, and so do the lookups */
    put(&s, VOLUMES, "owner", "u-owner", NULL);
    put(&s, VOLUMES, "v2", "u-v2", (const char *const[]){"u-owner", NULL});
    put(&s, JOBS, "j1", "u-j1", (const char *const[]){"u-owner", NULL});
    put(&s, VOLUMES, "v1", "u-v1", (const char *const[]){"u-owner", NULL});
    ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/v1,volumes/v2,jobs/j1");
    ASSERT_FOUND(store_holder(&s, "u-owner"), "volumes/owner");
    /* a duplicate uid (a file edited by hand): the first in a walk's order */
    put(&s, JOBS, "a-copy", "u-owner", NULL);
    ASSERT_FOUND(store_holder(&s, "u-owner"), "volumes/owner");
    del(&s, JOBS, "a-copy");
    /* v2 moves to another owner; j1 is deleted */
    put(&s, VOLUMES, "v2", "u-v2", (const char *const[]){"u-v1", NULL});
    del(&s, JOBS, "j1");
    ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/v1");
    ASSERT_FOUND(store_deps(&s, "u-v1"), "volumes/v2");
    ASSERT_FOUND(store_holder(&s, "u-j1"), "");
    em_store_close(&s);

    /* from the checkpoint of that clean stop, then (the checkpoint gone) from the files */
    char *checkpoint = nd_xasprintf("%s/history/checkpoint", dir);
    for (int i = 0; i < 2; i++) {
        if (i)
            assert_int_equal(unlink(checkpoint), 0);
        open_store(&s, dir);
        /* (a file stamped within the checkpoint's clock tick is read from the file) */
        assert_int_equal(i ? s.loaded_files : s.loaded_files + s.loaded_checkpoint, 3);
        /* each object's owner index entries made on the loader threads */
        assert_int_equal(s.indexed_on_loaders, 3);
        ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/v1");
        ASSERT_FOUND(store_deps(&s, "u-v1"), "volumes/v2");
        ASSERT_FOUND(store_holder(&s, "u-v2"), "volumes/v2");
        em_store_close(&s);
    }
    free(checkpoint);

    /* cleared: nothing is found, until stored again */
    open_store(&s, dir);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_store_clear(&s, &st), 0);
    ASSERT_FOUND(store_deps(&s, "u-owner"), "");
    ASSERT_FOUND(store_holder(&s, "u-owner"), "");
    assert_int_equal(em_owners_objects(&s.owners), 0);
    put(&s, VOLUMES, "v9", "u-v9", (const char *const[]){"u-owner", NULL});
    ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/v9");
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

/* A commit the disk refused is undone in memory: the index goes back with the objects. */
static void test_rollback_restores_it(void **state)
{
    (void)state;
    char *dir = store_tmpdir("owners-full");
    struct em_store s;
    open_store(&s, dir);
    put(&s, VOLUMES, "owner", "u-owner", NULL);
    put(&s, VOLUMES, "d1", "u-d1", (const char *const[]){"u-owner", NULL});
    put(&s, VOLUMES, "d2", "u-d2", (const char *const[]){"u-owner", NULL});
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), 0);

    int saved = dup(s.journal.fd), full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    assert_true(saved >= 0 && full >= 0);
    assert_true(dup2(full, s.journal.fd) >= 0);
    put(&s, VOLUMES, "d1", "u-d1", (const char *const[]){"u-other", NULL}); /* moved */
    del(&s, VOLUMES, "d2");                                                /* gone */
    put(&s, VOLUMES, "d3", "u-d3", (const char *const[]){"u-owner", NULL}); /* new */
    ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/d3");
    assert_int_equal(em_store_commit(&s, em_store_ticket(&s)), -1);
    assert_true(em_store_rollback(&s) >= 0);
    ASSERT_FOUND(store_deps(&s, "u-owner"), "volumes/d1,volumes/d2");
    ASSERT_FOUND(store_deps(&s, "u-other"), "");
    ASSERT_FOUND(store_holder(&s, "u-d3"), "");
    ASSERT_FOUND(store_holder(&s, "u-d2"), "volumes/d2");
    assert_true(dup2(saved, s.journal.fd) >= 0);
    close(saved);
    close(full);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

/* A lookup looks at the objects it finds, whatever else the project holds. */
static void test_lookup_does_not_walk(void **state)
{
    (void)state;
    char *dir = store_tmpdir("owners-walk");
    struct em_store s;
    open_store(&s, dir);
    put(&s, VOLUMES, "owner", "u-owner", NULL);
    char name[32], uid[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "other-%04d", i);
        snprintf(uid, sizeof uid, "u-other-%04d", i);
        put(&s, VOLUMES, name, uid, (const char *const[]){i % 2 ? "u-x" : "u-y", NULL});
    }
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "dep-%d", i);
        snprintf(uid, sizeof uid, "u-dep-%d", i);
        put(&s, JOBS, name, uid, (const char *const[]){"u-owner", NULL});
    }
    uint64_t before = s.owners.visited;
    ASSERT_FOUND(store_deps(&s, "u-owner"), "jobs/dep-0,jobs/dep-1,jobs/dep-2");
    ASSERT_FOUND(store_holder(&s, "u-owner"), "volumes/owner");
    assert_int_equal(s.owners.visited - before, 4);
    em_store_close(&s);
    em_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_replace_delete_clear),
        cmocka_unit_test(test_uids_are_exact),
        cmocka_unit_test(test_put_from_fields),
        cmocka_unit_test(test_store_keeps_it),
        cmocka_unit_test(test_rollback_restores_it),
        cmocka_unit_test(test_lookup_does_not_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
