/* Unit tests of pkg/kinds/registry: the kind table, lookups, phases and printer columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "util/buf.h"
#include "util/time.h"

static const char *kind_of(const struct nd_kind *k)
{
    return k ? k->kind : NULL;
}

static void assert_kind(const struct nd_kind *k, const char *want)
{
    if (!want) {
        assert_null(k);
        return;
    }
    assert_non_null(k);
    assert_string_equal(kind_of(k), want);
}

static void test_lookup_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *kind;
    } rows[] = {
        {"jobs", "Job"},
        {"job", "Job"},
        {"nj", "Job"},
        {"Job", "Job"},
        {"JOBS", "Job"},
        {"jobs.nodus.dev", "Job"},
        {"job.nodus.dev", "Job"},
        {"Job.nodus.dev", "Job"},
        {"jobs.v1.nodus.dev", "Job"},
        {"nj.nodus.dev", "Job"},
        {"pipelines", "Pipeline"},
        {"pipe", "Pipeline"},
        {"poolactions", "PoolAction"},
        {"poolaction", "PoolAction"},
        {"pact", "PoolAction"},
        {"PoolAction", "PoolAction"},
        {"sandboxes", "Sandbox"},
        {"sandbox", "Sandbox"},
        {"sbx", "Sandbox"},
        {"functions", "Function"},
        {"fn", "Function"},
        {"volumes", "Volume"},
        {"vol", "Volume"},
        {"budgets", "Budget"},
        {"bgt", "Budget"},
        {"pools", "Pool"},
        {"pl", "Pool"},
        {"pools.nodus.dev", "Pool"},
        {"hosts", "Host"},
        {"host", "Host"},
        {"images", "Image"},
        {"img", "Image"},
        {"namespaces", "Namespace"},
        {"namespace", "Namespace"},
        {"ns", "Namespace"},
        {"project", "Namespace"},
        {"projects", "Namespace"},
        {"Projects", "Namespace"},
        {"events", "Event"},
        {"event", "Event"},
        {"ev", "Event"},
        /* unknown */
        {"", NULL},
        {"foo", NULL},
        {"jobs.batch", NULL},
        {"jobs.v2.nodus.dev", NULL},
        {"jobs.nodus.dev.", NULL},
        {".nodus.dev", NULL},
        {"namespaces.nodus.dev", NULL},
        {"projects.nodus.dev", NULL},
        {"job s", NULL},
        {"jo", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("lookup %s\n", rows[i].name);
        assert_kind(nd_kind_lookup(rows[i].name), rows[i].kind);
    }
    assert_null(nd_kind_lookup(NULL));
}

static void test_kind_path(void **state)
{
    (void)state;
    static const struct {
        const char *kind, *ns, *name, *sub, *want;
    } rows[] = {
        {"jobs", "default", NULL, NULL, "/apis/nodus.dev/v1/namespaces/default/jobs"},
        {"jobs", NULL, NULL, NULL, "/apis/nodus.dev/v1/jobs"},
        {"jobs", "", NULL, NULL, "/apis/nodus.dev/v1/jobs"},
        {"sbx", "team", "dev", "log", "/apis/nodus.dev/v1/namespaces/team/sandboxes/dev/log"},
        {"pool", "default", "lab", NULL, "/apis/nodus.dev/v1/namespaces/default/pools/lab"},
        {"ns", "ignored", "default", NULL, "/api/v1/namespaces/default"},
        {"ns", NULL, NULL, NULL, "/api/v1/namespaces"},
        {"events", "default", NULL, NULL, "/api/v1/namespaces/default/events"},
        {"jobs", "a b", "x/y", NULL, "/apis/nodus.dev/v1/namespaces/a%20b/jobs/x%2Fy"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf b = ND_BUF_INIT;
        const struct nd_kind *k = nd_kind_lookup(rows[i].kind);
        assert_non_null(k);
        assert_int_equal(nd_kind_path(k, rows[i].ns, rows[i].name, rows[i].sub, &b), 0);
        assert_string_equal(b.data, rows[i].want);
        nd_buf_release(&b);
    }
}

static void test_lookup_exact(void **state)
{
    (void)state;
    assert_kind(nd_kind_by_kind("nodus.dev", "Job"), "Job");
    assert_kind(nd_kind_by_kind(NULL, "Event"), "Event");
    assert_kind(nd_kind_by_kind("", "Namespace"), "Namespace");
    assert_kind(nd_kind_by_kind("nodus.dev", "Namespace"), NULL);
    assert_kind(nd_kind_by_kind("nodus.dev", "job"), NULL); /* Kind is exact */
    assert_kind(nd_kind_by_kind("nodus.dev", NULL), NULL);
    assert_kind(nd_kind_by_plural("nodus.dev", "sandboxes"), "Sandbox");
    assert_kind(nd_kind_by_plural("", "events"), "Event");
    assert_kind(nd_kind_by_plural(NULL, "pools"), "Pool");
    assert_kind(nd_kind_by_plural("nodus.dev", "Pools"), NULL);
    assert_kind(nd_kind_by_plural("", "jobs"), NULL);
    assert_kind(nd_kind_by_api_version("nodus.dev/v1", "Pool"), "Pool");
    assert_kind(nd_kind_by_api_version("v1", "Namespace"), "Namespace");
    assert_kind(nd_kind_by_api_version("v1", "Pool"), NULL);
    assert_kind(nd_kind_by_api_version("nodus.dev/v2", "Pool"), NULL);
    assert_kind(nd_kind_by_api_version(NULL, "Pool"), NULL);
}

/* Invariants of every row of the table. */
static void test_table_shape(void **state)
{
    (void)state;
    assert_int_equal(nd_kind_count(), 12);
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        char buf[128];
        print_message("kind %s\n", k->kind);
        snprintf(buf, sizeof buf, "%s%s%s", k->group, *k->group ? "/" : "", k->version);
        assert_string_equal(k->api_version, buf);
        snprintf(buf, sizeof buf, "%sList", k->kind);
        assert_string_equal(k->list_kind, buf);
        for (size_t j = 0; k->kind[j]; j++)
            buf[j] = (char)(k->kind[j] | 0x20);
        buf[strlen(k->kind)] = '\0';
        assert_string_equal(k->singular, buf);
        assert_non_null(k->plural);
        assert_non_null(k->short_names);
        assert_non_null(k->categories);
        assert_non_null(k->subresources);
        assert_non_null(k->mutable_fields);
        assert_non_null(k->columns);
        assert_non_null(k->field_selectors);
        assert_non_null(k->schema_file);
        assert_true(strlen(k->description) > 10);
        assert_true(nd_kind_field_selectable(k, "metadata.name"));
        /* every name form finds this kind again */
        assert_ptr_equal(nd_kind_lookup(k->plural), k);
        assert_ptr_equal(nd_kind_lookup(k->singular), k);
        assert_ptr_equal(nd_kind_lookup(k->kind), k);
        for (const char *const *s = k->short_names; *s; s++)
            assert_ptr_equal(nd_kind_lookup(*s), k);
        if (*k->group) {
            assert_string_equal(k->group, "nodus.dev");
            assert_true(nd_kind_in_category(k, "nodus"));
            assert_true(nd_kind_has_subresource(k, "status"));
            assert_true(k->namespaced);
        } else {
            assert_false(nd_kind_in_category(k, "nodus"));
        }
    }
}

/* A fact of the kind table as this test expects it; a difference fails saying where the
 * fact lives. (These pin the wire names users type and scripts parse: a change to one is
 * a change of the API, so the test asks for it to be made twice, on purpose.) */
static void expect_fact(const char *kind, const char *what, const char *got, const char *want)
{
    if (got && want ? strcmp(got, want) != 0 : got != want)
        fail_msg("%s's %s is %s in pkg/kinds/kinds.c, this test expects %s: it mirrors kinds.c "
                 "(update its row in test_kinds_md when you change the kind there)",
                 kind, what, got ? got : "(none)", want ? want : "(none)");
}

static void test_kinds_md(void **state)
{
    (void)state;
    /* kinds.md's table: plural, short name, uid prefix, family */
    static const struct {
        const char *kind, *plural, *shortname, *prefix;
        enum nd_family family;
        bool all;
        const char *subresources;
    } rows[] = {
        {"Job", "jobs", "nj", "job", ND_FAMILY_RUN, true, "status,log,exec"},
        {"Pipeline", "pipelines", "pipe", "pipe", ND_FAMILY_RUN, true, "status"},
        {"PoolAction", "poolactions", "pact", "pact", ND_FAMILY_RUN, false, "status,log"},
        {"Sandbox", "sandboxes", "sbx", "sbx", ND_FAMILY_LONG, true, "status,log,exec,files"},
        {"Function", "functions", "fn", "fn", ND_FAMILY_LONG, true, "status,log,invoke"},
        {"Volume", "volumes", "vol", "vol", ND_FAMILY_LONG, true, "status,files"},
        {"Budget", "budgets", "bgt", "bgt", ND_FAMILY_LONG, false, "status"},
        {"Pool", "pools", "pl", "pool", ND_FAMILY_LONG, false, "status"},
        {"Host", "hosts", NULL, "host", ND_FAMILY_LONG, false, "status"},
        {"Image", "images", "img", "img", ND_FAMILY_CATALOGUE, false, "status"},
        {"Namespace", "namespaces", "ns", "ns", ND_FAMILY_NONE, false, ""},
        {"Event", "events", "ev", "evt", ND_FAMILY_NONE, false, ""},
    };
    if (sizeof rows / sizeof rows[0] != nd_kind_count())
        fail_msg("pkg/kinds/kinds.c has %zu kinds, this test's rows %zu: add the new kind's row",
                 nd_kind_count(), sizeof rows / sizeof rows[0]);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct nd_kind *k = &nd_kinds[i];
        char subs[128] = "", fam[8], want_fam[8], all[8], want_all[8];
        for (const char *const *s = k->subresources; *s; s++) {
            if (*subs)
                memcpy(subs + strlen(subs), ",", 2);
            memcpy(subs + strlen(subs), *s, strlen(*s) + 1);
        }
        snprintf(fam, sizeof fam, "%d", (int)k->family);
        snprintf(want_fam, sizeof want_fam, "%d", (int)rows[i].family);
        snprintf(all, sizeof all, "%d", nd_kind_in_category(k, "all"));
        snprintf(want_all, sizeof want_all, "%d", rows[i].all);
        expect_fact(rows[i].kind, "kind", k->kind, rows[i].kind);
        expect_fact(k->kind, "plural", k->plural, rows[i].plural);
        expect_fact(k->kind, "short name", k->short_names[0], rows[i].shortname);
        expect_fact(k->kind, "second short name", k->short_names[0] ? k->short_names[1] : NULL,
                    NULL);
        expect_fact(k->kind, "uid prefix", k->uid_prefix, rows[i].prefix);
        expect_fact(k->kind, "family", fam, want_fam);
        expect_fact(k->kind, "category all", all, want_all);
        if (strcmp(k->kind, "Namespace") != 0)
            expect_fact(k->kind, "subresources", subs, rows[i].subresources);
    }
    assert_false(nd_kind_lookup("namespaces")->namespaced);
    assert_true(nd_kind_lookup("events")->namespaced);
    assert_false(nd_kind_in_category(nd_kind_lookup("pools"), "al"));
    assert_false(nd_kind_has_subresource(nd_kind_lookup("pools"), "log"));
    assert_false(nd_kind_has_subresource(nd_kind_lookup("pools"), NULL));
}

/* The flags as a word list ("billed,compute"), so a failure names what differs. */
static void flag_words(unsigned flags, char *out, size_t cap)
{
    static const struct {
        unsigned flag;
        const char *word;
    } words[] = {{ND_KIND_BILLED, "billed"},
                 {ND_KIND_COMPUTE, "compute"},
                 {ND_KIND_OWNER, "owner"},
                 {ND_KIND_OWNED, "owned"},
                 {ND_KIND_PROJECT, "project"},
                 {ND_KIND_HOUR_FILES, "hour-files"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (!(flags & words[i].flag))
            continue;
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", n ? "," : "", words[i].word);
        flags &= ~words[i].flag;
    }
    assert_int_equal(flags, 0); /* no bit without a name */
}

/* Every kind's facts, one row per kind in table order: a kind added without its row (or
 * with flags nobody decided) fails here. */
static void test_kind_flags(void **state)
{
    (void)state;
    static const struct {
        const char *kind, *flags;
        enum nd_family family;
        bool costs;        /* what Budgets count */
        const char *alias; /* alias_plural/alias_singular, or NULL */
    } rows[] = {
        {"Job", "billed,compute,owned", ND_FAMILY_RUN, true, NULL},
        {"Pipeline", "compute,owner", ND_FAMILY_RUN, true, NULL},
        {"PoolAction", "owned", ND_FAMILY_RUN, false, NULL},
        {"Sandbox", "billed,compute", ND_FAMILY_LONG, true, NULL},
        {"Function", "billed,compute", ND_FAMILY_LONG, true, NULL},
        {"Volume", "billed", ND_FAMILY_LONG, true, NULL},
        {"Budget", "", ND_FAMILY_LONG, false, NULL},
        {"Pool", "owner", ND_FAMILY_LONG, false, NULL},
        {"Host", "", ND_FAMILY_LONG, false, NULL},
        {"Image", "", ND_FAMILY_CATALOGUE, false, NULL},
        {"Namespace", "project", ND_FAMILY_NONE, false, "projects/project"},
        {"Event", "hour-files", ND_FAMILY_NONE, false, NULL},
    };
    assert_int_equal(sizeof rows / sizeof rows[0], nd_kind_count());
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        char got[128];
        print_message("kind %s\n", k->kind);
        assert_string_equal(k->kind, rows[i].kind);
        flag_words(k->flags, got, sizeof got);
        assert_string_equal(got, rows[i].flags);
        assert_int_equal(k->family, rows[i].family);
        assert_int_equal(nd_kind_costs(k), rows[i].costs);
        if (rows[i].alias) {
            snprintf(got, sizeof got, "%s/%s", k->alias_plural, k->alias_singular);
            assert_string_equal(got, rows[i].alias);
        } else {
            assert_null(k->alias_plural);
            assert_null(k->alias_singular);
        }
        /* what the flags must agree with */
        assert_true(nd_kind_is(k, 0));
        assert_int_equal(nd_kind_is(k, ND_KIND_BILLED | ND_KIND_COMPUTE),
                         (k->flags & ND_KIND_BILLED) && (k->flags & ND_KIND_COMPUTE));
        if (k->flags & (ND_KIND_BILLED | ND_KIND_COMPUTE | ND_KIND_OWNER | ND_KIND_OWNED))
            assert_string_equal(k->group, "nodus.dev");
        if (k->flags & ND_KIND_PROJECT) /* a project holds objects; it is in none */
            assert_false(k->namespaced);
        if (k->flags & ND_KIND_COMPUTE) /* what runs can be paused: spec.state */
            assert_non_null(nd_kind_state_default(k));
        if (nd_kind_is(k, ND_KIND_BILLED) && !nd_kind_is(k, ND_KIND_COMPUTE))
            assert_int_equal(k->family, ND_FAMILY_LONG); /* storage lives on */
    }
    /* the questions the emulator and the CLI ask, answered from the flags */
    const struct nd_kind *job = nd_kind_lookup("jobs"), *fn = nd_kind_lookup("functions");
    assert_true(nd_kind_is(job, ND_KIND_BILLED | ND_KIND_COMPUTE));
    assert_false(nd_kind_is(nd_kind_lookup("pipelines"), ND_KIND_BILLED | ND_KIND_COMPUTE));
    assert_false(nd_kind_is(nd_kind_lookup("volumes"), ND_KIND_COMPUTE));
    assert_true(nd_kind_has_subresource(fn, "invoke"));
    assert_false(nd_kind_is(NULL, ND_KIND_BILLED));
    assert_false(nd_kind_costs(NULL));
}

/* singular.group and plural.group, the core group without a dot. */
static void test_kind_names(void **state)
{
    (void)state;
    static const struct {
        const char *kind, *display, *resource;
    } rows[] = {
        {"Job", "job.nodus.dev", "jobs.nodus.dev"},
        {"Pipeline", "pipeline.nodus.dev", "pipelines.nodus.dev"},
        {"PoolAction", "poolaction.nodus.dev", "poolactions.nodus.dev"},
        {"Sandbox", "sandbox.nodus.dev", "sandboxes.nodus.dev"},
        {"Function", "function.nodus.dev", "functions.nodus.dev"},
        {"Volume", "volume.nodus.dev", "volumes.nodus.dev"},
        {"Budget", "budget.nodus.dev", "budgets.nodus.dev"},
        {"Pool", "pool.nodus.dev", "pools.nodus.dev"},
        {"Host", "host.nodus.dev", "hosts.nodus.dev"},
        {"Image", "image.nodus.dev", "images.nodus.dev"},
        {"Namespace", "namespace", "namespaces"},
        {"Event", "event", "events"},
    };
    assert_int_equal(sizeof rows / sizeof rows[0], nd_kind_count());
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        char buf[ND_KIND_NAME_MAX];
        assert_string_equal(k->kind, rows[i].kind);
        assert_ptr_equal(nd_kind_display_name(k, buf, sizeof buf), buf);
        assert_string_equal(buf, rows[i].display);
        assert_ptr_equal(nd_kind_resource_name(k, buf, sizeof buf), buf);
        assert_string_equal(buf, rows[i].resource);
        /* both name the kind again */
        assert_ptr_equal(nd_kind_lookup(rows[i].display), k);
        assert_ptr_equal(nd_kind_lookup(rows[i].resource), k);
    }
    /* a short buffer is cut, never overrun */
    char small[6] = "xxxxx";
    nd_kind_display_name(nd_kind_lookup("jobs"), small, 4);
    assert_string_equal(small, "job");
    assert_int_equal(small[4], 'x');

    /* nd_kind_named: exactly plural, singular, short names or aliases */
    static const struct {
        const char *plural, *name;
        bool named;
    } names[] = {
        {"pools", "pools", true},
        {"pools", "pool", true},
        {"pools", "pl", true},
        {"pools", "Pool", false},
        {"pools", "POOLS", false},
        {"pools", "pools.nodus.dev", false},
        {"pools", "jobs", false},
        {"pools", "", false},
        {"jobs", "nj", true},
        {"jobs", "job", true},
        {"jobs", "jobs", true},
        {"jobs", "pl", false},
        {"namespaces", "projects", true},
        {"namespaces", "project", true},
        {"namespaces", "ns", true},
        {"hosts", "host", true},
        {"hosts", "", false},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        print_message("%s named %s\n", names[i].plural, names[i].name);
        assert_int_equal(nd_kind_named(nd_kind_by_plural(NULL, names[i].plural), names[i].name),
                         names[i].named);
    }
    assert_false(nd_kind_named(NULL, "jobs"));
    assert_false(nd_kind_named(nd_kind_lookup("jobs"), NULL));
}

static void test_verbs_states_selectors(void **state)
{
    (void)state;
    const char *const *v = nd_kind_verbs(nd_kind_lookup("images"));
    assert_string_equal(v[0], "get");
    assert_string_equal(v[1], "list");
    assert_string_equal(v[2], "watch");
    assert_null(v[3]);
    assert_true(nd_kind_lookup("events")->read_only);
    v = nd_kind_verbs(nd_kind_lookup("jobs"));
    size_t n = 0;
    while (v[n])
        n++;
    assert_int_equal(n, 8);
    assert_string_equal(v[0], "create");
    assert_string_equal(v[7], "watch");
    /* the subresources' verbs: what the router serves and discovery lists */
    static const struct {
        const char *kind, *sub, *verbs;
    } subs[] = {
        {"jobs", "status", "get patch update"},   {"jobs", "log", "get"},
        {"sandboxes", "exec", "create get"},      {"volumes", "files", "create get update"},
        {"functions", "invoke", "create"},        {"images", "status", "get"},
        {"jobs", "invoke", ""},                   {"jobs", "", "create delete deletecollection get "
                                                               "list patch update watch"},
        {"events", NULL, "get list watch"},
    };
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const struct nd_kind *k = nd_kind_lookup(subs[i].kind);
        char got[128] = "";
        size_t len = 0;
        for (const char *const *s = nd_kind_sub_verbs(k, subs[i].sub); *s; s++)
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", len ? " " : "", *s);
        assert_string_equal(got, subs[i].verbs);
    }
    assert_true(nd_kind_serves(nd_kind_lookup("sandboxes"), "files", "update"));
    assert_false(nd_kind_serves(nd_kind_lookup("functions"), "invoke", "get"));
    assert_false(nd_kind_serves(nd_kind_lookup("events"), NULL, "create"));

    static const struct {
        const char *kind, *def, *values;
    } states[] = {
        {"Job", "Running", "Running Suspended Cancelled"},
        {"Pipeline", "Running", "Running Suspended Cancelled"},
        {"Sandbox", "Running", "Running Stopped"},
        {"Function", "Running", "Running Stopped"},
        {"Budget", "Running", "Running Stopped"},
        {"Pool", NULL, ""},
        {"PoolAction", NULL, ""},
        {"Volume", NULL, ""},
        {"Host", NULL, ""},
    };
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        const struct nd_kind *k = nd_kind_by_kind(NULL, states[i].kind);
        const char *def = nd_kind_state_default(k);
        if (states[i].def)
            assert_string_equal(def, states[i].def);
        else
            assert_null(def);
        char all[128] = "";
        for (const char *const *s = k->state_values; s && *s; s++) {
            if (*all)
                memcpy(all + strlen(all), " ", 2);
            memcpy(all + strlen(all), *s, strlen(*s) + 1);
            assert_true(nd_kind_state_valid(k, *s));
        }
        assert_string_equal(all, states[i].values);
        assert_false(nd_kind_state_valid(k, "Paused"));
        assert_false(nd_kind_state_valid(k, NULL));
        /* spec.state is selectable exactly when the kind has a state */
        assert_int_equal(nd_kind_field_selectable(k, "spec.state"), states[i].def != NULL);
        assert_true(nd_kind_field_selectable(k, "status.phase"));
        assert_true(nd_kind_field_selectable(k, "metadata.namespace"));
    }
    assert_false(nd_kind_field_selectable(nd_kind_lookup("jobs"), "spec.image"));
    assert_true(nd_kind_field_selectable(nd_kind_lookup("hosts"), "spec.pool"));
    assert_true(nd_kind_field_selectable(nd_kind_lookup("events"), "involvedObject.name"));
}

static void test_mutable(void **state)
{
    (void)state;
    static const struct {
        const char *kind, *path;
        int rule; /* -1: immutable */
        const char *matched;
    } rows[] = {
        {"Job", "spec.state", ND_MUT_ANY, "spec.state"},
        {"Job", "spec.maxCostUSD", ND_MUT_RAISE_ONLY, "spec.maxCostUSD"},
        {"Job", "spec.maxDuration", ND_MUT_RAISE_ONLY, "spec.maxDuration"},
        {"Job", "spec.image", -1, NULL},
        {"Job", "spec.stateful", -1, NULL},
        {"Job", "spec", -1, NULL},
        {"Pipeline", "spec.state", ND_MUT_ANY, "spec.state"},
        {"Pipeline", "spec.maxCostUSD", ND_MUT_RAISE_ONLY, "spec.maxCostUSD"},
        {"Pipeline", "spec.steps[0].name", -1, NULL},
        {"PoolAction", "spec.decision", ND_MUT_WHILE, "spec.decision"},
        {"PoolAction", "spec.action", -1, NULL},
        {"Sandbox", "spec.idleTimeout", ND_MUT_ANY, "spec.idleTimeout"},
        {"Sandbox", "spec.maxCostUSD", ND_MUT_RAISE_ONLY, "spec.maxCostUSD"},
        {"Sandbox", "spec.image", -1, NULL},
        {"Function", "spec.scaling.minReplicas", ND_MUT_ANY, "spec.scaling"},
        {"Function", "spec.scaling", ND_MUT_ANY, "spec.scaling"},
        {"Function", "spec.state", ND_MUT_ANY, "spec.state"},
        {"Function", "spec.env[0].value", -1, NULL},
        {"Volume", "spec.size", ND_MUT_RAISE_ONLY, "spec.size"},
        {"Volume", "spec.accessMode", -1, NULL},
        {"Budget", "spec.limitUSD", ND_MUT_ANY, "spec"},
        {"Budget", "spec", ND_MUT_ANY, "spec"},
        {"Pool", "spec.act.policies[3].action", ND_MUT_ANY, "spec"},
        {"Host", "spec.cordoned", ND_MUT_ANY, "spec.cordoned"},
        {"Host", "spec.pool", -1, NULL},
        {"Image", "spec.tags", -1, NULL},
        {"Namespace", "spec.finalizers", -1, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("%s %s\n", rows[i].kind, rows[i].path);
        const struct nd_mutable *m =
            nd_kind_mutable(nd_kind_by_kind(NULL, rows[i].kind), rows[i].path);
        if (rows[i].rule < 0) {
            assert_null(m);
            continue;
        }
        assert_non_null(m);
        assert_int_equal(m->rule, rows[i].rule);
        assert_string_equal(m->path, rows[i].matched);
    }
    assert_string_equal(nd_kind_mutable(nd_kind_lookup("pact"), "spec.decision")->while_value,
                        "Pending");
    assert_null(nd_kind_mutable(nd_kind_lookup("jobs"), NULL));
}

static void test_phases(void **state)
{
    (void)state;
    const char *const *p = nd_phases(ND_FAMILY_RUN);
    const char *run[] = {"Queued", "Provisioning", "Running",   "Succeeded",
                         "Failed", "Cancelled",    "Cancelling"};
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(p[i], run[i]);
    assert_null(p[7]);
    p = nd_phases(ND_FAMILY_LONG);
    const char *lng[] = {"Pending", "Starting", "Running", "Stopped", "Terminating"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(p[i], lng[i]);
    assert_null(p[5]);
    assert_null(nd_phases(ND_FAMILY_CATALOGUE)[0]);
    assert_null(nd_phases(ND_FAMILY_NONE)[0]);

    assert_string_equal(nd_phase_initial(ND_FAMILY_RUN), "Queued");
    assert_string_equal(nd_phase_initial(ND_FAMILY_LONG), "Pending");
    assert_null(nd_phase_initial(ND_FAMILY_NONE));
    assert_string_equal(nd_phase_deleting(ND_FAMILY_RUN), "Cancelling");
    assert_string_equal(nd_phase_deleting(ND_FAMILY_LONG), "Terminating");
    assert_null(nd_phase_deleting(ND_FAMILY_CATALOGUE));

    assert_true(nd_phase_valid(ND_FAMILY_RUN, "Provisioning"));
    assert_false(nd_phase_valid(ND_FAMILY_RUN, "Pending"));
    assert_true(nd_phase_valid(ND_FAMILY_LONG, "Stopped"));
    assert_false(nd_phase_valid(ND_FAMILY_LONG, "Succeeded"));
    assert_false(nd_phase_valid(ND_FAMILY_LONG, NULL));

    static const struct {
        enum nd_family f;
        const char *phase;
        bool terminal;
    } rows[] = {
        {ND_FAMILY_RUN, "Succeeded", true},   {ND_FAMILY_RUN, "Failed", true},
        {ND_FAMILY_RUN, "Cancelled", true},   {ND_FAMILY_RUN, "Running", false},
        {ND_FAMILY_RUN, "Cancelling", false}, {ND_FAMILY_RUN, "Queued", false},
        {ND_FAMILY_RUN, NULL, false},         {ND_FAMILY_LONG, "Stopped", false},
        {ND_FAMILY_LONG, "Succeeded", false}, {ND_FAMILY_NONE, "Failed", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(nd_phase_terminal(rows[i].f, rows[i].phase), rows[i].terminal);
}

/* Every kind's columns have the shape the tables and docs rely on (whatever the columns
 * are: the headers themselves live in pkg/kinds/kinds.c alone, docs/kinds.md is generated
 * from them): a JSONPath, a description, priority 0 or 1 with the wide ones last, NAME
 * first and AGE last of the narrow ones on every nodus.dev kind. */
static void test_column_shape(void **state)
{
    (void)state;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        size_t narrow = 0, all = 0;
        const struct nd_column *last_narrow = NULL;
        for (const struct nd_column *c = k->columns; c->name; c++, all++) {
            print_message("%s column %s\n", k->kind, c->name);
            assert_true(c->jsonpath[0] == '.');
            assert_true(strlen(c->description) > 5);
            assert_true(c->priority == 0 || c->priority == 1);
            if (c->priority == 0) {
                /* wide columns come after every narrow one */
                assert_int_equal(all, narrow);
                narrow++;
                last_narrow = c;
            }
        }
        assert_int_equal(nd_kind_column_count(k, false), narrow);
        assert_int_equal(nd_kind_column_count(k, true), all);
        if (*k->group) {
            assert_string_equal(k->columns[0].name, "NAME");
            assert_string_equal(k->columns[0].format, "name");
            assert_string_equal(last_narrow->name, "AGE");
        }
    }
}

/* The column of k named name; fails naming what the test expected of kinds.c. */
static const struct nd_column *column_named(const struct nd_kind *k, const char *name)
{
    for (const struct nd_column *c = k->columns; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    fail_msg("%s has no column %s: this test mirrors pkg/kinds/kinds.c's %s columns; update it "
             "when you rename or drop a column there",
             k->kind, name, k->kind);
    return NULL;
}

struct render_row {
    const char *kind;
    const char *object;
    /* HEADER=cell of the columns the row checks (wide ones too), joined by '|': a column
     * added to the kind is not checked here, one renamed or dropped fails naming it */
    const char *cells;
};

static const struct render_row renders[] = {
    {"Job",
     "{\"metadata\":{\"name\":\"train-a\",\"creationTimestamp\":\"2026-11-29T16:00:00Z\"},"
     "\"spec\":{\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"state\":\"Running\","
     "\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":1}},\"maxCostUSD\":\"40\"},"
     "\"status\":{\"phase\":\"Running\",\"costUSD\":\"12.4\",\"rateUSDPerHour\":\"2.49\","
     "\"placement\":{\"target\":\"pool/lab\"}}}",
     "NAME=train-a|STATE=Running|PHASE=Running|GPU=1xH100|COST=$12.40|AGE=5m|PLACEMENT=pool/"
     "lab|RATE=$2.49/h|MAX-COST=$40.00|IMAGE=nodus/pytorch:2.8-cuda12.8"},
    {"Job",
     "{\"metadata\":{\"name\":\"cpu\",\"creationTimestamp\":\"2026-11-27T13:00:00Z\"},"
     "\"spec\":{\"image\":\"nodus/base:1\",\"maxCostUSD\":\"0.004999\"}}",
     "NAME=cpu|STATE=<none>|PHASE=<none>|GPU=-|COST=-|AGE=2d3h|PLACEMENT=<none>|RATE=-|MAX-COST=$0."
     "00|IMAGE=nodus/base:1"},
    {"Pipeline",
     "{\"metadata\":{\"name\":\"nightly\",\"creationTimestamp\":\"2026-11-29T15:00:00Z\"},"
     "\"spec\":{\"state\":\"Running\",\"steps\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":"
     "\"c\"}]},\"status\":{\"phase\":\"Running\",\"costUSD\":\"3.005\",\"steps\":["
     "{\"name\":\"a\",\"phase\":\"Succeeded\"},{\"name\":\"b\",\"phase\":\"Running\"}]}}",
     "NAME=nightly|STATE=Running|PHASE=Running|STEPS=1/3|COST=$3.01|AGE=65m"},
    {"PoolAction",
     "{\"metadata\":{\"name\":\"lab-burst-1\",\"creationTimestamp\":\"2026-11-29T16:04:30Z\"},"
     "\"spec\":{\"pool\":\"lab\",\"action\":\"Burst\",\"decision\":\"Pending\"},"
     "\"status\":{\"phase\":\"Cancelled\",\"decision\":\"Cancelled\"}}",
     "NAME=lab-burst-1|POOL=lab|ACTION=Burst|DECISION=Cancelled|PHASE=Cancelled|AGE=30s"},
    {"Sandbox",
     "{\"metadata\":{\"name\":\"dev\",\"creationTimestamp\":\"2026-11-29T12:55:00Z\"},"
     "\"spec\":{\"state\":\"Stopped\",\"resources\":{\"gpu\":{\"model\":\"L4\",\"count\":2}}},"
     "\"status\":{\"phase\":\"Stopped\",\"costUSD\":\"1.5\"}}",
     "NAME=dev|STATE=Stopped|PHASE=Stopped|GPU=2xL4|COST=$1.50|AGE=3h10m"},
    {"Function",
     "{\"metadata\":{\"name\":\"embed\",\"creationTimestamp\":\"2026-11-20T16:05:00Z\"},"
     "\"spec\":{\"state\":\"Running\"},\"status\":{\"phase\":\"Running\",\"replicas\":2,"
     "\"readyReplicas\":1,\"url\":\"http://127.0.0.1:8443/fn/embed\"}}",
     "NAME=embed|STATE=Running|PHASE=Running|REPLICAS=1/2|URL=http://127.0.0.1:8443/fn/"
     "embed|AGE=9d"},
    {"Function", "{\"metadata\":{\"name\":\"idle\"},\"spec\":{}}",
     "NAME=idle|STATE=<none>|PHASE=<none>|REPLICAS=0/0|URL=<none>|AGE=<unknown>"},
    {"Volume",
     "{\"metadata\":{\"name\":\"datasets\",\"creationTimestamp\":\"2026-11-29T16:04:59Z\"},"
     "\"spec\":{\"size\":\"100Gi\"},\"status\":{\"phase\":\"Running\",\"usedBytes\":1610612736}}",
     "NAME=datasets|PHASE=Running|SIZE=100Gi|USED=1536Mi|AGE=1s"},
    {"Volume", "{\"metadata\":{\"name\":\"new\"},\"spec\":{\"size\":\"1Gi\"}}",
     "NAME=new|PHASE=<none>|SIZE=1Gi|USED=-|AGE=<unknown>"},
    {"Budget",
     "{\"metadata\":{\"name\":\"team\",\"creationTimestamp\":\"2024-11-29T16:05:00Z\"},"
     "\"spec\":{\"limitUSD\":\"500.00\",\"action\":\"Suspend\"},"
     "\"status\":{\"spentUSD\":\"12.3449\",\"remainingUSD\":\"487.6551\"}}",
     "NAME=team|LIMIT=$500.00|SPENT=$12.34|REMAINING=$487.66|ACTION=Suspend|AGE=2y"},
    {"Pool",
     "{\"metadata\":{\"name\":\"lab\",\"creationTimestamp\":\"2026-11-29T16:03:00Z\"},"
     "\"spec\":{\"act\":{\"mode\":\"Propose\"}},\"status\":{\"phase\":\"Running\","
     "\"capacity\":{\"nodes\":2,\"readyNodes\":2,\"gpus\":{\"H100\":{\"free\":4,\"total\":8},"
     "\"L4\":{\"free\":2,\"total\":2}}},\"utilization\":{\"gpuPercent\":75}}}",
     "NAME=lab|PHASE=Running|NODES=2|GPUS=6/10|ACT=Propose|UTIL=75%|AGE=2m"},
    {"Pool", "{\"metadata\":{\"name\":\"empty\"},\"spec\":{}}",
     "NAME=empty|PHASE=<none>|NODES=0|GPUS=0/0|ACT=<none>|UTIL=-|AGE=<unknown>"},
    {"Host",
     "{\"metadata\":{\"name\":\"rack1-node01\",\"creationTimestamp\":\"2026-11-29T16:00:00Z\"},"
     "\"spec\":{\"pool\":\"lab\",\"gpus\":{\"H100\":8,\"L4\":2,\"A100\":0},\"cordoned\":false},"
     "\"status\":{\"phase\":\"Running\"}}",
     "NAME=rack1-node01|POOL=lab|PHASE=Running|GPUS=8xH100,2xL4|CORDONED=false|AGE=5m"},
    {"Host", "{\"metadata\":{\"name\":\"cpu-only\"},\"spec\":{\"pool\":\"lab\",\"gpus\":{}}}",
     "NAME=cpu-only|POOL=lab|PHASE=<none>|GPUS=-|CORDONED=<none>|AGE=<unknown>"},
    {"Image",
     "{\"metadata\":{\"name\":\"pytorch\",\"creationTimestamp\":\"2026-11-29T16:05:00Z\"},"
     "\"spec\":{\"tags\":[{\"tag\":\"2.8-cuda12.8\"},{\"tag\":\"2.7-cuda12.4\"}]}}",
     "NAME=pytorch|TAGS=2.8-cuda12.8,2.7-cuda12.4|AGE=0s"},
    {"Namespace",
     "{\"metadata\":{\"name\":\"default\",\"creationTimestamp\":\"2026-11-29T16:05:02Z\"},"
     "\"status\":{\"phase\":\"Active\"}}",
     "NAME=default|STATUS=Active|AGE=<invalid>"},
    {"Event",
     "{\"metadata\":{\"name\":\"train-a.1\"},\"lastTimestamp\":\"2026-11-29T16:03:00Z\","
     "\"type\":\"Normal\",\"reason\":\"Scheduled\",\"involvedObject\":{\"kind\":\"Job\","
     "\"name\":\"train-a\"},\"message\":\"placed on market H100 at $2.49/h\"}",
     "LAST SEEN=2m|TYPE=Normal|REASON=Scheduled|OBJECT=job/train-a|MESSAGE=placed on market H100 "
     "at $2.49/h"},
};

/* Renders the columns a row names, as "HEADER=cell|...". */
static void render_named(const struct render_row *row, const json_t *obj, int64_t now,
                         struct nd_buf *b, unsigned *renders_seen)
{
    const struct nd_kind *k = nd_kind_by_kind(NULL, row->kind);
    assert_non_null(k);
    for (const char *p = row->cells; *p;) {
        size_t len = strcspn(p, "=");
        char name[32];
        assert_true(len < sizeof name);
        memcpy(name, p, len);
        name[len] = '\0';
        const struct nd_column *c = column_named(k, name);
        nd_buf_addf(b, "%s%s=", b->len ? "|" : "", name);
        assert_int_equal(nd_column_render(c, obj, now, b), 0);
        *renders_seen |= 1u << c->render;
        p += strcspn(p, "|");
        p += *p == '|';
    }
}

static void test_render(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    int64_t now;
    unsigned seen = 0, used = 0;
    assert_int_equal(nd_time_parse("2026-11-29T16:05:00Z", &now, &st), 0);
    for (size_t i = 0; i < sizeof renders / sizeof renders[0]; i++) {
        json_error_t err;
        json_t *obj = json_loads(renders[i].object, 0, &err);
        assert_non_null(obj);
        struct nd_buf b = ND_BUF_INIT;
        render_named(&renders[i], obj, now, &b, &seen);
        print_message("%s: %s\n", renders[i].kind, b.data);
        assert_string_equal(b.data, renders[i].cells);
        nd_buf_release(&b);
        json_decref(obj);
    }
    /* every way a registry column renders is checked by a row above */
    for (size_t i = 0; i < nd_kind_count(); i++)
        for (const struct nd_column *c = nd_kinds[i].columns; c->name; c++)
            used |= 1u << c->render;
    if (used & ~seen)
        fail_msg("a column of pkg/kinds/kinds.c renders with an enum nd_render no row of "
                 "renders[] checks (bits %#x): add a row with that column",
                 used & ~seen);
}

static void test_render_edges(void **state)
{
    (void)state;
    static const struct nd_column raw = {"X", "string", "", ".spec.x", 0, ND_RENDER_RAW, "x"};
    static const struct nd_column list = {"X", "string",       "", ".spec.items[*].n",
                                          0,   ND_RENDER_LIST, "x"};
    static const struct nd_column first = {"X", "string",      "", ".spec.items[1].n",
                                           0,   ND_RENDER_RAW, "x"};
    static const struct nd_column money = {"X", "string", "", ".spec.x", 0, ND_RENDER_MONEY, "x"};
    static const struct nd_column pct = {"X", "string", "", ".spec.x", 0, ND_RENDER_PERCENT, "x"};
    static const struct nd_column count = {"X", "integer", "", ".spec.x", 0, ND_RENDER_COUNT, "x"};
    static const struct {
        const struct nd_column *c;
        const char *obj, *cell;
    } rows[] = {
        {&raw, "{\"spec\":{\"x\":\"text\"}}", "text"},
        {&raw, "{\"spec\":{\"x\":42}}", "42"},
        {&raw, "{\"spec\":{\"x\":true}}", "true"},
        {&raw, "{\"spec\":{\"x\":1.5}}", "1.5"},
        {&raw, "{\"spec\":{\"x\":null}}", "<none>"},
        {&raw, "{\"spec\":{\"x\":[1,\"a\"]}}", "[1,\"a\"]"},
        {&raw, "{\"spec\":7}", "<none>"},
        {&raw, "[]", "<none>"},
        {&list, "{\"spec\":{\"items\":[{\"n\":\"a\"},{\"m\":1},{\"n\":\"c\"}]}}", "a,c"},
        {&list, "{\"spec\":{\"items\":[]}}", "<none>"},
        {&list, "{\"spec\":{\"items\":{\"n\":1}}}", "<none>"},
        {&first, "{\"spec\":{\"items\":[{\"n\":\"a\"},{\"n\":\"b\"}]}}", "b"},
        {&first, "{\"spec\":{\"items\":[{\"n\":\"a\"}]}}", "<none>"},
        {&money, "{\"spec\":{\"x\":\"0.005\"}}", "$0.01"},
        {&money, "{\"spec\":{\"x\":\"1234567.891\"}}", "$1234567.89"},
        {&money, "{\"spec\":{\"x\":\"lots\"}}", "lots"},
        {&money, "{\"spec\":{\"x\":3}}", "3"},
        {&pct, "{\"spec\":{\"x\":0}}", "0%"},
        {&pct, "{\"spec\":{\"x\":99.6}}", "100%"},
        {&pct, "{\"spec\":{\"x\":\"75\"}}", "-"},
        {&count, "{\"spec\":{\"x\":\"3\"}}", "0"},
        {&count, "{\"spec\":{\"x\":12}}", "12"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_error_t err;
        json_t *obj = json_loads(rows[i].obj, 0, &err);
        assert_non_null(obj);
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_column_render(rows[i].c, obj, 0, &b), 0);
        assert_string_equal(b.data, rows[i].cell);
        nd_buf_release(&b);
        json_decref(obj);
    }
    /* a capped buffer that fills up reports it */
    struct nd_buf small;
    nd_buf_init(&small, 3);
    json_t *obj = json_pack("{s:{s:s}}", "spec", "x", "longer than three");
    assert_int_equal(nd_column_render(&raw, obj, 0, &small), -1);
    assert_true(small.overflow);
    nd_buf_release(&small);
    json_decref(obj);
}

static void test_column_definition(void **state)
{
    (void)state;
    const struct nd_kind *k = nd_kind_lookup("jobs");
    json_t *d = nd_column_definition(&k->columns[0]);
    char *s = json_dumps(d, JSON_COMPACT);
    assert_string_equal(s, "{\"name\":\"NAME\",\"type\":\"string\",\"format\":\"name\","
                           "\"description\":\"Name of the object, unique within its project "
                           "and kind.\",\"priority\":0}");
    free(s);
    json_decref(d);
    d = nd_column_definition(column_named(k, "MAX-COST"));
    assert_string_equal(json_string_value(json_object_get(d, "name")), "MAX-COST");
    assert_int_equal(json_integer_value(json_object_get(d, "priority")), 1);
    json_decref(d);
    d = nd_column_definition(column_named(k, "AGE"));
    assert_string_equal(json_string_value(json_object_get(d, "type")), "date");
    json_decref(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_names), cmocka_unit_test(test_lookup_exact),
        cmocka_unit_test(test_kind_path),    cmocka_unit_test(test_table_shape),
        cmocka_unit_test(test_kinds_md),     cmocka_unit_test(test_kind_flags),
        cmocka_unit_test(test_kind_names),   cmocka_unit_test(test_verbs_states_selectors),
        cmocka_unit_test(test_mutable),      cmocka_unit_test(test_phases),
        cmocka_unit_test(test_column_shape), cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_edges), cmocka_unit_test(test_column_definition),
    };
    return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
