/* Unit tests of pkg/kinds/phase.h: the one table of phases, enum <-> wire string. A
 * broken table (a phase without a string, a string twice, two strings swapped, a
 * family's phase the enum does not know) fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kinds/phase.h"
#include "kinds/registry.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The wire spelling of every phase (kinds.md, "Phases"; Active is a Project's). */
static const struct {
    enum nd_phase p;
    const char *wire;
} spelled[] = {
    {ND_PHASE_QUEUED, "Queued"},           {ND_PHASE_PROVISIONING, "Provisioning"},
    {ND_PHASE_RUNNING, "Running"},         {ND_PHASE_SUCCEEDED, "Succeeded"},
    {ND_PHASE_FAILED, "Failed"},           {ND_PHASE_CANCELLED, "Cancelled"},
    {ND_PHASE_CANCELLING, "Cancelling"},   {ND_PHASE_PENDING, "Pending"},
    {ND_PHASE_STARTING, "Starting"},       {ND_PHASE_STOPPED, "Stopped"},
    {ND_PHASE_TERMINATING, "Terminating"}, {ND_PHASE_ACTIVE, "Active"},
};

/* Every phase has a string, which parses back to it; no string is there twice. */
static void test_table_complete(void **state)
{
    (void)state;
    for (int p = ND_PHASE_NONE + 1; p < ND_PHASE_UNKNOWN; p++) {
        const char *name = nd_phase_name((enum nd_phase)p);
        if (!name || !*name)
            fail_msg("phase %d has no string", p);
        if (nd_phase_parse(name) != (enum nd_phase)p)
            fail_msg("\"%s\" parses to %d, not %d", name, nd_phase_parse(name), p);
        for (int q = ND_PHASE_NONE; q < p; q++)
            if (!strcmp(nd_phase_name((enum nd_phase)q), name))
                fail_msg("\"%s\" is the string of phases %d and %d", name, q, p);
    }
    /* each phase spelled as the wire spells it, and none left out */
    assert_int_equal(N(spelled), ND_PHASE_UNKNOWN - 1);
    for (size_t i = 0; i < N(spelled); i++) {
        assert_string_equal(nd_phase_name(spelled[i].p), spelled[i].wire);
        assert_int_equal(nd_phase_parse(spelled[i].wire), spelled[i].p);
    }
}

/* No phase, an unknown one, and values outside the enum. */
static void test_edges(void **state)
{
    (void)state;
    assert_int_equal(nd_phase_parse(NULL), ND_PHASE_NONE);
    assert_int_equal(nd_phase_parse(""), ND_PHASE_NONE);
    assert_string_equal(nd_phase_name(ND_PHASE_NONE), "");
    assert_int_equal(nd_phase_parse("running"), ND_PHASE_UNKNOWN); /* the wire is exact */
    assert_int_equal(nd_phase_parse("Running "), ND_PHASE_UNKNOWN);
    assert_int_equal(nd_phase_parse("Exploded"), ND_PHASE_UNKNOWN);
    assert_null(nd_phase_name(ND_PHASE_UNKNOWN));
    assert_null(nd_phase_name(ND_PHASE_COUNT));
    assert_null(nd_phase_name((enum nd_phase) - 1));
}

/* Every phase of every family (the registry's lists) is one the enum knows. */
static void test_families(void **state)
{
    (void)state;
    const enum nd_family fams[] = {ND_FAMILY_RUN, ND_FAMILY_LONG};
    for (size_t f = 0; f < N(fams); f++) {
        const char *const *list = nd_phases(fams[f]);
        assert_non_null(list[0]);
        for (; *list; list++) {
            enum nd_phase p = nd_phase_parse(*list);
            if (p == ND_PHASE_NONE || p == ND_PHASE_UNKNOWN)
                fail_msg("phase \"%s\" of family %d is not in the enum", *list, (int)fams[f]);
            assert_int_equal(nd_phase_ended(p), nd_phase_terminal(fams[f], *list));
        }
        assert_int_not_equal(nd_phase_parse(nd_phase_deleting(fams[f])), ND_PHASE_UNKNOWN);
    }
}

static void test_of_and_ended(void **state)
{
    (void)state;
    json_t *o = json_pack("{s{ss}}", "status", "phase", "Succeeded");
    assert_int_equal(nd_phase_of(o), ND_PHASE_SUCCEEDED);
    json_object_set_new(json_object_get(o, "status"), "phase", json_integer(3));
    assert_int_equal(nd_phase_of(o), ND_PHASE_NONE);
    json_object_del(o, "status");
    assert_int_equal(nd_phase_of(o), ND_PHASE_NONE);
    assert_int_equal(nd_phase_of(NULL), ND_PHASE_NONE);
    json_decref(o);
    int ended = 0;
    for (int p = 0; p < ND_PHASE_COUNT; p++)
        ended += nd_phase_ended((enum nd_phase)p);
    assert_int_equal(ended, 3);
    assert_true(nd_phase_ended(ND_PHASE_SUCCEEDED));
    assert_true(nd_phase_ended(ND_PHASE_FAILED));
    assert_true(nd_phase_ended(ND_PHASE_CANCELLED));
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_families),
        cmocka_unit_test(test_of_and_ended),
    };
    return cmocka_run_group_tests_name("phase", tests, NULL, NULL);
}
