/* Unit tests of the CLI's typed flags (cmd/nodus/flags.c): a command line parsed into a
 * verb's options struct, and every flag table of the command table bound to its struct
 * (each row's field inside it and of the row's type). A wrong binding fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A verb with a flag of every type. */
struct demo_opts {
    bool all;
    const char *output;
    long long tail;
    bool tail_given;
    int64_t since;
    int64_t max_bytes;
    struct nd_strings file;
    bool quiet;
};

#define DEMO(f) ND_TO(struct demo_opts, f)
static const struct nd_flag demo_flags[] = {
    {"all", 0, ND_BOOL, NULL, "every object", NULL, DEMO(all)},
    {"output", 'o', ND_STRING, "FORMAT", "the format", NULL, DEMO(output)},
    {"tail", 0, ND_INT, "N", "the last N", NULL, DEMO(tail), DEMO(tail_given)},
    {"since", 0, ND_DURATION, "DURATION", "newer than", NULL, DEMO(since)},
    {"max-bytes", 0, ND_BYTES, "SIZE", "at most", NULL, DEMO(max_bytes)},
    {"filename", 'f', ND_STRINGS, "FILE", "files", NULL, DEMO(file)},
    {"quiet", 'q', ND_BOOL, NULL, "say nothing", NULL, DEMO(quiet)},
    ND_FLAGS_END(struct demo_opts),
};
static const struct nd_command demo_cmd = {"demo",   NULL,   demo_flags, NULL,
                                           "a demo", "demo", NULL,       NULL};

static int parse(struct nd_ctx *ctx, char **argv, struct nd_opts *o, struct demo_opts *d,
                 struct nd_status *st)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(ctx, 0, sizeof *ctx);
    ctx->cmd = &demo_cmd;
    return nd_cli_parse(ctx, argc, argv, o, d, sizeof *d, st);
}

static void test_parse_into_struct(void **state)
{
    (void)state;
    char *argv[] = {"demo",
                    "pos1",
                    "-qo",
                    "json",
                    "--tail=5",
                    "-f",
                    "a.yaml,b.yaml",
                    "--since",
                    "2m",
                    "--max-bytes=2Mi",
                    "-n",
                    "team",
                    "--filename",
                    "c.yaml",
                    "--all=false",
                    "pos2",
                    "--",
                    "-x",
                    NULL};
    struct nd_ctx ctx;
    struct nd_opts o;
    struct demo_opts d = {.all = true, .tail = -1};
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(parse(&ctx, argv, &o, &d, &st), 0);
    assert_false(d.all);
    assert_true(d.quiet);
    assert_string_equal(d.output, "json");
    assert_int_equal(d.tail, 5);
    assert_true(d.tail_given);
    assert_int_equal(d.since, 120000);
    assert_int_equal(d.max_bytes, 2 << 20);
    assert_int_equal(d.file.n, 3);
    assert_string_equal(d.file.v[0], "a.yaml");
    assert_string_equal(d.file.v[1], "b.yaml");
    assert_string_equal(d.file.v[2], "c.yaml");
    assert_null(d.file.v[3]);
    /* global flags land in the context */
    assert_string_equal(ctx.project_flag, "team");
    assert_int_equal(o.npos, 2);
    assert_string_equal(o.pos[0], "pos1");
    assert_string_equal(o.pos[1], "pos2");
    assert_int_equal(o.ndash, 1);
    assert_string_equal(o.dash[0], "-x");
    /* the verb's rows given, in the order first given */
    const char *want[] = {"quiet", "output", "tail", "filename", "since", "max-bytes", "all"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_non_null(o.given[i]);
        assert_string_equal(o.given[i]->name, want[i]);
    }
    assert_null(o.given[sizeof want / sizeof want[0]]);
    nd_opts_release(&o);
    assert_int_equal(d.file.n, 0);
    assert_null(d.file.v);
    nd_status_release(&st);
}

/* A flag not given keeps the value the verb put there; an empty list given is told from
 * none (v set, n 0). */
static void test_defaults_kept(void **state)
{
    (void)state;
    char *argv[] = {"demo", "-f", ",", "--read-idle-timeout=0", NULL};
    struct nd_ctx ctx;
    struct nd_opts o;
    struct demo_opts d = {.tail = -1, .output = "yaml"};
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(parse(&ctx, argv, &o, &d, &st), 0);
    assert_int_equal(d.tail, -1);
    assert_false(d.tail_given);
    assert_string_equal(d.output, "yaml");
    assert_non_null(d.file.v);
    assert_int_equal(d.file.n, 0);
    assert_int_equal(ctx.read_idle_ms, -1); /* 0: no limit */
    nd_opts_release(&o);
    nd_status_release(&st);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *arg, *message;
    } rows[] = {
        {"--tail=x", "invalid argument \"x\" for \"--tail\" flag: not an integer"},
        {"--all=maybe", "invalid argument \"maybe\" for \"--all\" flag: want true or false"},
        {"--max-bytes=1Ki",
         "invalid argument \"1Ki\" for \"--max-bytes\" flag: want a size such as 512Mi or 1Gi, "
         "at least 1Mi"},
        {"--outptu=json", "unknown flag: --outptu"},
        {"-z", "unknown shorthand flag: 'z' in -z"},
        {"--since", "flag needs an argument: --since"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *argv[] = {"demo", (char *)rows[i].arg, NULL};
        struct nd_ctx ctx;
        struct nd_opts o;
        struct demo_opts d = {0};
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(parse(&ctx, argv, &o, &d, &st), -1);
        assert_string_equal(st.reason, "Usage");
        assert_string_equal(st.message, rows[i].message);
        nd_opts_release(&o);
        nd_status_release(&st);
    }
}

/* Every table of the command table, and the global flags, bound to their structs. */
static void test_every_table_bound(void **state)
{
    (void)state;
    const char *why;
    const struct nd_flag *bad = nd_flags_check(nd_global_flags, sizeof(struct nd_ctx), &why);
    if (bad)
        fail_msg("global flag --%s %s", bad->name, why);
    for (size_t i = 0; i < nd_command_count; i++) {
        const struct nd_command *c = &nd_commands[i];
        size_t size = nd_flags_size(c->flags);
        for (const struct nd_flag *f = c->flags; f && f->name; f++)
            if (f->to.kind == ND_FIELD_NONE)
                fail_msg("%s: flag --%s is bound to no field", c->name, f->name);
        if ((bad = nd_flags_check(c->flags, size, &why)))
            fail_msg("%s: flag --%s %s", c->name, bad->name ? bad->name : "(end)", why);
        if (c->flags && c->flags->name && size == 0)
            fail_msg("%s: its table ends without its struct's size (ND_FLAGS_END)", c->name);
    }
}

/* Wrong bindings: each is found by nd_flags_check, and a parse refuses its table. */
struct small_opts {
    bool yes;
};
struct other_opts {
    const char *name;
    long long count;
    bool flag;
};
#define OTHER(f) ND_TO(struct other_opts, f)
static const struct nd_flag wrong_type[] = {
    {"name", 0, ND_STRING, "NAME", "a name", NULL, OTHER(flag)}, /* a bool field */
    ND_FLAGS_END(struct other_opts),
};
static const struct nd_flag wrong_struct[] = {
    {"count", 0, ND_INT, "N", "how many", NULL, OTHER(count)}, /* not in small_opts */
    ND_FLAGS_END(struct small_opts),
};
static const struct nd_flag shared_field[] = {
    {"name", 0, ND_STRING, "NAME", "a name", NULL, OTHER(name)},
    {"flag", 0, ND_BOOL, NULL, "a flag", NULL, {offsetof(struct other_opts, name), ND_FIELD_BOOL}},
    ND_FLAGS_END(struct other_opts),
};
static const struct nd_flag given_not_bool[] = {
    {"count", 0, ND_INT, "N", "how many", NULL, OTHER(count), OTHER(name)},
    ND_FLAGS_END(struct other_opts),
};
static const struct nd_flag twice[] = {
    {"name", 'n', ND_STRING, "NAME", "a name", NULL, OTHER(name)},
    {"name", 0, ND_STRING, "NAME", "a name", NULL, OTHER(name)},
    ND_FLAGS_END(struct other_opts),
};

static void test_wrong_binding_fails(void **state)
{
    (void)state;
    static const struct {
        const struct nd_flag *t;
        size_t size;
        const char *bad, *why;
    } rows[] = {
        {wrong_type, sizeof(struct other_opts), "name", "is bound to a field of another type"},
        {wrong_struct, sizeof(struct small_opts), "count", "is bound outside its struct"},
        {shared_field, sizeof(struct other_opts), "flag", "shares its field with another flag"},
        {given_not_bool, sizeof(struct other_opts), "count",
         "has a given field that is not a bool of its struct"},
        {twice, sizeof(struct other_opts), "name", "is in the table twice"},
        {demo_flags, sizeof(struct other_opts), "all",
         "ends with another struct's size (ND_FLAGS_END)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *why;
        const struct nd_flag *bad = nd_flags_check(rows[i].t, rows[i].size, &why);
        assert_non_null(bad);
        assert_string_equal(bad->name, rows[i].bad);
        assert_string_equal(why, rows[i].why);
    }
    /* a verb that parses into another struct than its table's */
    char *argv[] = {"demo", "--all", NULL};
    struct nd_ctx ctx;
    struct nd_opts o;
    struct other_opts other = {0};
    struct nd_status st = ND_STATUS_INIT;
    memset(&ctx, 0, sizeof ctx);
    ctx.cmd = &demo_cmd;
    assert_int_equal(nd_cli_parse(&ctx, 2, argv, &o, &other, sizeof other, &st), -1);
    assert_string_equal(st.reason, "InternalError");
    assert_false(other.flag);
    nd_opts_release(&o);
    nd_status_release(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_into_struct),   cmocka_unit_test(test_defaults_kept),
        cmocka_unit_test(test_parse_errors),        cmocka_unit_test(test_every_table_bound),
        cmocka_unit_test(test_wrong_binding_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
