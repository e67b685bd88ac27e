/* Unit tests of pkg/yaml, loading: typing, anchors, limits, errors with positions.
 * (Dumping is in test_yaml_dump.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

/* Compact JSON with types visible (1 vs 1.0) and keys in their order. */
static char *show(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

struct load_row {
    const char *in;
    const char *out; /* the documents as a JSON array */
};

static void check_loads(const struct load_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_yaml_load_all(rows[i].in, strlen(rows[i].in), "t.yaml", &st);
        if (!v)
            fail_msg("row %zu: %s: unexpected error: %s", i, rows[i].in, st.message);
        char *got = show(v);
        if (strcmp(got, rows[i].out) != 0)
            fail_msg("row %zu: %s\n  got  %s\n  want %s", i, rows[i].in, got, rows[i].out);
        free(got);
        json_decref(v);
        assert_false(nd_status_failed(&st));
        nd_status_release(&st);
    }
}

static void test_load_scalars(void **state)
{
    (void)state;
    static const struct load_row rows[] = {
        /* null */
        {"- null\n- Null\n- NULL\n- ~\n-\n- ''\n- \"\"", "[[null,null,null,null,null,\"\",\"\"]]"},
        /* booleans: YAML 1.2 only; yes/no/on/off/y/n stay strings */
        {"[true, True, TRUE, false, False, FALSE, tRUE]",
         "[[true,true,true,false,false,false,\"tRUE\"]]"},
        {"[yes, no, on, off, y, n, Yes, NO]",
         "[[\"yes\",\"no\",\"on\",\"off\",\"y\",\"n\",\"Yes\",\"NO\"]]"},
        /* integers as go-yaml reads them */
        {"[0, -0, +12, -17, 0x1F, 0X1f, 0o17, 0b101, -0x10, 0644, 1_000, 00]",
         "[[0,0,12,-17,31,31,15,5,-16,420,1000,0]]"},
        {"[9223372036854775807, -9223372036854775808]",
         "[[9223372036854775807,-9223372036854775808]]"},
        /* reals */
        {"[1.5, -2.25, 1e3, 1E-2, .5, -.5, +1.5e+2, 1., 08, 1_0.5]",
         "[[1.5,-2.25,1000.0,0.01,0.5,-0.5,150.0,1.0,8.0,10.5]]"},
        /* strings that merely look like numbers or keywords */
        {"[0x, 0xZ, 1e, 12e, 1.2.3, -, --, ., _1, 1:20, 2024-01-01, nulls, ~x, .inf1]",
         "[[\"0x\",\"0xZ\",\"1e\",\"12e\",\"1.2.3\",\"-\",\"--\",\".\",\"_1\",\"1:20\","
         "\"2024-01-01\",\"nulls\",\"~x\",\".inf1\"]]"},
        /* quoted and block scalars are strings */
        {"- '1'\n- \"true\"\n- 'null'\n- |\n  12\n- >-\n  a\n  b\n",
         "[[\"1\",\"true\",\"null\",\"12\\n\",\"a b\"]]"},
        /* tags */
        {"[!!str 1, !!str true, ! 12, !!int '12', !!int 0x10, !!float 1, !!float '2.5',"
         " !!bool 'true', !!null '', !!null ~, !!timestamp 2024-01-01]",
         "[[\"1\",\"true\",\"12\",12,16,1.0,2.5,true,null,null,\"2024-01-01\"]]"},
        {"!!map {a: !!seq [1]}", "[{\"a\":[1]}]"},
        /* unicode and escapes */
        {"- \"caf\\u00e9 \\t\\n\"\n- 日本語\n- \"\\U0001F600\"",
         "[[\"café \\t\\n\",\"日本語\",\"😀\"]]"},
    };
    check_loads(rows, sizeof rows / sizeof rows[0]);
}

static void test_load_structure(void **state)
{
    (void)state;
    static const struct load_row rows[] = {
        /* key order kept; keys are their text */
        {"z: 1\na: 2\nm: 3", "[{\"z\":1,\"a\":2,\"m\":3}]"},
        {"1: a\ntrue: b\nnull: c\n~: d\n1.50: e\n'q': f\n\"\": g",
         "[{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\",\"~\":\"d\",\"1.50\":\"e\",\"q\":\"f\","
         "\"\":\"g\"}]"},
        {"a:\n- 1\n- b: [x, {}]\n  c: []\nd: {}",
         "[{\"a\":[1,{\"b\":[\"x\",{}],\"c\":[]}],\"d\":{}}]"},
        {"? long key\n: value", "[{\"long key\":\"value\"}]"},
        /* documents: empty ones skipped, explicit null kept */
        {"", "[]"},
        {"# only\n# comments\n", "[]"},
        {"---\n---\n...\n---\n# nothing\n", "[]"},
        {"a: 1\n---\n---\nb: 2\n", "[{\"a\":1},{\"b\":2}]"},
        {"--- 1\n--- null\n--- ~\n...\n", "[1,null,null]"},
        {"--- |\n  text\n--- >\n  folded\n", "[\"text\\n\",\"folded\\n\"]"},
        /* anchors and aliases (copies), redefinition, merge keys */
        {"a: &x [1, 2]\nb: *x\nc: &x 3\nd: *x", "[{\"a\":[1,2],\"b\":[1,2],\"c\":3,\"d\":3}]"},
        {"base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n  z: 4",
         "[{\"base\":{\"x\":1,\"y\":2},\"d\":{\"x\":1,\"y\":3,\"z\":4}}]"},
        {"a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  w: 0\n  <<: [*a, *b]\n  x: 9",
         "[{\"a\":{\"x\":1},\"b\":{\"x\":2,\"y\":2},\"c\":{\"w\":0,\"x\":9,\"y\":2}}]"},
        {"c:\n  x: 0\n  <<: {x: 1, k: 2}", "[{\"c\":{\"x\":0,\"k\":2}}]"},
        {"'<<': 1\nb: !!str <<", "[{\"<<\":1,\"b\":\"<<\"}]"},
        {"&k key: v\nother: *k\nm: {*k : again}",
         "[{\"key\":\"v\",\"other\":\"key\",\"m\":{\"key\":\"again\"}}]"},
        {"a: &n 5\n*n : five", "[{\"a\":5,\"5\":\"five\"}]"},
        {"a: &f 1.50\nb: {*f : x}", "[{\"a\":1.5,\"b\":{\"1.5\":\"x\"}}]"},
        /* anchors are per document */
        {"a: &x 1\n---\nb: &x 2\nc: *x", "[{\"a\":1},{\"b\":2,\"c\":2}]"},
    };
    check_loads(rows, sizeof rows / sizeof rows[0]);
}

static void test_alias_is_a_copy(void **state)
{
    (void)state;
    const char *in = "a: &x {k: [1]}\nb: *x\n";
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_yaml_load(in, strlen(in), NULL, &st);
    assert_non_null(v);
    json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");
    assert_ptr_not_equal(a, b);
    json_array_append_new(json_object_get(a, "k"), json_integer(2));
    assert_int_equal(json_array_size(json_object_get(b, "k")), 1);
    json_decref(v);
    nd_status_release(&st);
}

struct err_row {
    const char *in;
    size_t len; /* 0: strlen(in) */
    const char *message;
};

static void check_errors(const struct err_row *rows, size_t n, const char *source)
{
    for (size_t i = 0; i < n; i++) {
        struct nd_status st = ND_STATUS_INIT;
        size_t len = rows[i].len ? rows[i].len : strlen(rows[i].in);
        json_t *v = nd_yaml_load_all(rows[i].in, len, source, &st);
        if (v) {
            char *got = show(v);
            fail_msg("row %zu: %s: loaded as %s", i, rows[i].in, got);
        }
        assert_string_equal(st.reason, "BadRequest");
        assert_int_equal(st.code, 400);
        if (strcmp(st.message, rows[i].message) != 0)
            fail_msg("row %zu: %s\n  got  %s\n  want %s", i, rows[i].in, st.message,
                     rows[i].message);
        nd_status_release(&st);
    }
}

static void test_load_errors(void **state)
{
    (void)state;
    static const struct err_row rows[] = {
        {"a: b: c", 0, "job.yaml:1:5: mapping values are not allowed in this context"},
        {"kind: Job\nspec:\n  image: x\n   bad: y", 0,
         "job.yaml:4:7: mapping values are not allowed in this context"},
        /* unterminated quotes */
        {"name: \"abc\nnext: 1", 0,
         "job.yaml:2:8: found unexpected end of stream (while scanning a quoted scalar that "
         "started at 1:7)"},
        {"name: 'abc", 0,
         "job.yaml:1:11: found unexpected end of stream (while scanning a quoted scalar that "
         "started at 1:7)"},
        /* tabs as indentation */
        {"spec:\n\timage: x", 0,
         "job.yaml:2:1: found a tab character where YAML does not allow one (indent with "
         "spaces)"},
        /* structure */
        {"[1, 2", 0,
         "job.yaml:1:6: did not find expected ',' or ']' (while parsing a flow sequence that "
         "started at 1:1)"},
        {"a:\n  - 1\n  b: 2", 0,
         "job.yaml:3:3: did not find expected '-' indicator (while parsing a block collection "
         "that started at 2:3)"},
        {"? [a]\n: b", 0, "job.yaml:1:3: a mapping key must be a scalar, not a sequence"},
        {"? {a: 1}\n: b", 0, "job.yaml:1:3: a mapping key must be a scalar, not a mapping"},
        {"&k key: v\n*k : again", 0, "job.yaml:2:1: duplicate key \"key\" (first at line 1)"},
        {"x: &s [1]\n*s : b", 0,
         "job.yaml:2:1: a mapping key must be a scalar, but this alias is a collection"},
        /* duplicate keys, with the first one's line */
        {"metadata:\n  name: a\n  labels: {}\n  name: b", 0,
         "job.yaml:4:3: duplicate key \"name\" (first at line 2)"},
        {"{a: 1, 'a': 2}", 0, "job.yaml:1:8: duplicate key \"a\" (first at line 1)"},
        {"b: &b {x: 1}\nc:\n  <<: *b\n  <<: *b", 0,
         "job.yaml:4:3: duplicate key \"<<\" (first at line 3)"},
        /* aliases */
        {"a: *nope", 0, "job.yaml:1:4: unknown alias *nope (no anchor &nope before it)"},
        {"a: &r [1, *r]", 0, "job.yaml:1:11: alias *r refers to the node &r that contains it"},
        {"a: [*late, &late 1]", 0, "job.yaml:1:5: unknown alias *late (no anchor &late before it)"},
        /* merge keys */
        {"a:\n  <<: 1", 0,
         "job.yaml:2:3: the value of the merge key << must be a mapping or a sequence of "
         "mappings"},
        {"a:\n  <<: [{x: 1}, 2]", 0,
         "job.yaml:2:3: the merge key << takes mappings, but element 1 is not one"},
        /* values JSON cannot hold */
        {"n: 9223372036854775808", 0,
         "job.yaml:1:4: integer \"9223372036854775808\" does not fit in 64 bits (quote it to "
         "keep it as a string)"},
        {"n: -0x8000000000000001", 0,
         "job.yaml:1:4: integer \"-0x8000000000000001\" does not fit in 64 bits (quote it to "
         "keep it as a string)"},
        {"n: 99999999999999999999999999999999999999999999", 0,
         "job.yaml:1:4: integer \"9999999999999999999999999999999999999999...\" does not fit "
         "in 64 bits (quote it to keep it as a string)"},
        {"x: 1e999", 0, "job.yaml:1:4: number \"1e999\" is out of range"},
        {"- .inf", 0,
         "job.yaml:1:3: \".inf\" (infinity or NaN) cannot be represented in JSON (quote it to "
         "keep it as a string)"},
        {"- -.Inf", 0,
         "job.yaml:1:3: \"-.Inf\" (infinity or NaN) cannot be represented in JSON (quote it to "
         "keep it as a string)"},
        {"- .NaN", 0,
         "job.yaml:1:3: \".NaN\" (infinity or NaN) cannot be represented in JSON (quote it to "
         "keep it as a string)"},
        {"- !!float .nan", 0,
         "job.yaml:1:3: \".nan\" (infinity or NaN) cannot be represented in JSON (quote it to "
         "keep it as a string)"},
        {"- \"a\\0b\"", 0, "job.yaml:1:3: strings may not contain NUL characters"},
        /* tags */
        {"- !!int abc", 0, "job.yaml:1:3: \"abc\" is not a valid !!int"},
        {"- !!int 1.5", 0, "job.yaml:1:3: \"1.5\" is not a valid !!int"},
        {"- !!bool yes", 0, "job.yaml:1:3: \"yes\" is not a valid !!bool"},
        {"- !!null 0", 0, "job.yaml:1:3: \"0\" is not a valid !!null"},
        {"- !!float x", 0, "job.yaml:1:3: \"x\" is not a valid !!float"},
        {"data: !!binary aGVsbG8=", 0,
         "job.yaml:1:7: !!binary values are not supported (JSON has no bytes; use a base64 "
         "string)"},
        {"- !local x", 0, "job.yaml:1:3: unsupported tag !local on a scalar"},
        {"- !!set {a}", 0, "job.yaml:1:3: unsupported tag !!set on a mapping"},
        {"- !!str [a]", 0, "job.yaml:1:3: unsupported tag !!str on a sequence"},
        /* bytes that are not YAML text */
        {"a: \xff\xfe", 0, "job.yaml:1:4: invalid leading UTF-8 octet 0xff"},
        {"a: ok\nb: caf\xc3", 0, "job.yaml:2:7: incomplete UTF-8 octet sequence"},
        {"a: ok\nb: \xc3\x28", 0, "job.yaml:2:5: invalid trailing UTF-8 octet 0x28"},
        {"a: 1\nb: x\x00y", 10, "job.yaml:2:5: control characters are not allowed (U+0000)"},
        {"\x7f"
         "ELF\x02\x01\x01",
         7, "job.yaml:1:1: control characters are not allowed (U+007F)"},
        {"key: \x1b[31m", 0, "job.yaml:1:6: control characters are not allowed (U+001B)"},
    };
    check_errors(rows, sizeof rows / sizeof rows[0], "job.yaml");
}

static void test_error_sources(void **state)
{
    (void)state;
    static const struct err_row stdin_rows[] = {
        {"a: b: c", 0, "<stdin>:1:5: mapping values are not allowed in this context"},
    };
    static const struct err_row null_rows[] = {
        {"a: b: c", 0, "line 1, column 5: mapping values are not allowed in this context"},
        {"x: \xff", 0, "line 1, column 4: invalid leading UTF-8 octet 0xff"},
    };
    check_errors(stdin_rows, 1, "-");
    check_errors(null_rows, 2, NULL);
}

/* "Billion laughs": each level holds nine aliases of the one before. */
static void test_alias_bomb(void **state)
{
    (void)state;
    const char *bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                       "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    struct err_row rows[] = {
        {bomb, 0, "bomb.yaml:6:8: aliases expand to more than 100000 nodes in one document"},
    };
    check_errors(rows, 1, "bomb.yaml");

    /* the same first five levels are fine */
    const char *small = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_yaml_load(small, strlen(small), "x", &st);
    assert_non_null(v);
    json_t *e = json_object_get(v, "e");
    assert_int_equal(json_array_size(json_array_get(json_array_get(e, 8), 8)), 9);
    json_decref(v);
    nd_status_release(&st);
}

static char *nested(const char *prefix, int levels, const char *inner)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, prefix);
    for (int i = 0; i < levels; i++)
        nd_buf_addch(&b, '[');
    nd_buf_adds(&b, inner);
    for (int i = 0; i < levels; i++)
        nd_buf_addch(&b, ']');
    return nd_buf_detach(&b);
}

static void test_depth_limit(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    /* 100 levels load */
    char *ok = nested("", 100, "1");
    json_t *v = nd_yaml_load(ok, strlen(ok), "d.yaml", &st);
    assert_non_null(v);
    json_decref(v);
    free(ok);

    /* 101 fail, at the 101st opening bracket */
    char *deep = nested("", 101, "1");
    assert_null(nd_yaml_load(deep, strlen(deep), "d.yaml", &st));
    assert_string_equal(st.message, "d.yaml:1:101: nesting deeper than 100 levels");
    free(deep);

    /* block style: the mapping at level 101 */
    struct nd_buf b = ND_BUF_INIT;
    for (int i = 0; i < 101; i++)
        nd_buf_addf(&b, "%*sk:\n", i, "");
    nd_buf_addf(&b, "%*sx: 1\n", 101, "");
    assert_null(nd_yaml_load(b.data, b.len, "d.yaml", &st));
    assert_string_equal(st.message, "d.yaml:101:101: nesting deeper than 100 levels");
    nd_buf_release(&b);

    /* an alias whose content passes the limit where it is used: 1 + 40 + 60 levels */
    char *anchored = nested("a: &a ", 60, "1");
    for (int levels = 39; levels <= 40; levels++) {
        char *user = nested("\nb: ", levels, "*a");
        char *both = nd_xasprintf("%s%s", anchored, user);
        v = nd_yaml_load(both, strlen(both), "d.yaml", &st);
        if (levels == 39) {
            assert_non_null(v);
            json_decref(v);
        } else {
            assert_null(v);
            assert_string_equal(st.message,
                                "d.yaml:2:44: nesting deeper than 100 levels (through alias *a)");
        }
        free(both);
        free(user);
    }
    free(anchored);
    nd_status_release(&st);
}

static void test_node_limit(void **state)
{
    (void)state;
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addch(&b, '[');
    for (int i = 0; i < ND_YAML_MAX_NODES; i++)
        nd_buf_adds(&b, "0,");
    nd_buf_adds(&b, "0]");
    struct nd_status st = ND_STATUS_INIT;
    assert_null(nd_yaml_load_all(b.data, b.len, "big.yaml", &st));
    assert_string_equal(st.message, "big.yaml:1:2000000: the document has more than 1000000 nodes");
    nd_status_release(&st);
    nd_buf_release(&b);
}

/* "a: &a <scalar of size bytes>\nb: [*a,*a,...]" with n aliases. */
static char *byte_bomb(size_t size, size_t n)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "a: &a ");
    for (size_t i = 0; i < size; i++)
        nd_buf_addch(&b, 'x');
    nd_buf_adds(&b, "\nb: [");
    for (size_t i = 0; i < n; i++)
        nd_buf_adds(&b, i ? ",*a" : "*a");
    nd_buf_adds(&b, "]\n");
    return nd_buf_detach(&b);
}

/* nd_load_limits: aliases of one large scalar expand to bytes, not nodes. */
static void test_byte_limit(void **state)
{
    (void)state;
    static const struct nd_load_limits body = {4u << 20, 100000};
    static const struct {
        const char *name;
        size_t size, aliases;
        const struct nd_load_limits *lim; /* NULL: nd_load_file_limits */
        const char *message;              /* NULL: loads */
    } rows[] = {
        /* the bomb: a 1 MB scalar, 1000 aliases; 8 times the text is the bound */
        {"1 MB x 1000", 1000000, 1000, NULL,
         "b.yaml:2:26: this alias takes the text to more than 8024096 bytes of values and keys, "
         "the most a text of 1003012 bytes may expand to"},
        {"1 MB x 7: within 8 times the text", 1000000, 7, NULL, NULL},
        /* a request's body: 4 MiB at most */
        {"1 MB x 1000 in a body", 1000000, 1000, &body,
         "b.yaml:2:14: this alias takes the text to more than 4194304 bytes of values and keys, "
         "the most a text of 1003012 bytes may expand to"},
        {"1 MB x 3 in a body", 1000000, 3, &body, NULL},
        /* a small text may always expand to 1 MiB */
        {"1000 B x 1040: under 1 MiB", 1000, 1040, &body, NULL},
        {"1000 B x 1050: over 1 MiB", 1000, 1050, &body,
         "b.yaml:2:3146: this alias takes the text to more than 1048576 bytes of values and keys, "
         "the most a text of 4162 bytes may expand to"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char *text = byte_bomb(rows[i].size, rows[i].aliases);
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = rows[i].lim
                        ? nd_yaml_load_limited(text, strlen(text), "b.yaml", rows[i].lim, &st)
                        : nd_yaml_load_all(text, strlen(text), "b.yaml", &st);
        if (!rows[i].message && !v)
            fail_msg("%s: %s", rows[i].name, st.message);
        if (rows[i].message) {
            if (v || strcmp(st.message, rows[i].message) != 0)
                fail_msg("%s: got %s", rows[i].name, v ? "a value" : st.message);
            assert_string_equal(st.reason, "RequestEntityTooLarge");
            assert_string_equal(st.fix, "write the value out once instead of through aliases");
        }
        json_decref(v);
        nd_status_release(&st);
        free(text);
    }

    /* the node budget of nd_load_limits, written out or through aliases */
    static const struct nd_load_limits few = {1u << 20, 7};
    struct nd_status st = ND_STATUS_INIT;
    assert_null(nd_yaml_load_limited("[1, 2, 3, 4, 5, 6, 7]", 21, "n.yaml", &few, &st));
    assert_string_equal(st.message, "n.yaml:1:20: the text holds more than 7 values and keys");
    assert_string_equal(st.reason, "RequestEntityTooLarge");
    json_t *v = nd_yaml_load_limited("[&a [1, 2], *a]", 15, "n.yaml", &few, &st);
    assert_non_null(v);
    json_decref(v);
    assert_null(nd_yaml_load_limited("[&a [1, 2], *a, *a]", 19, "n.yaml", &few, &st));
    assert_string_equal(st.message,
                        "n.yaml:1:17: this alias takes the text to more than 7 values and keys");
    nd_status_release(&st);
}

static void test_load_one(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_yaml_load("# c\n--- {a: 1}\n", 15, "one.yaml", &st);
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
    json_decref(v);

    v = nd_yaml_load("--- null\n", 9, "one.yaml", &st);
    assert_true(json_is_null(v));
    json_decref(v);

    assert_null(nd_yaml_load("# nothing\n", 10, "one.yaml", &st));
    assert_string_equal(st.message,
                        "one.yaml: no YAML document found (the input is empty or only comments)");
    assert_string_equal(st.reason, "BadRequest");

    assert_null(nd_yaml_load("", 0, NULL, &st));
    assert_string_equal(st.message, "no YAML document found (the input is empty or only comments)");

    const char *two = "a: 1\n---\n\n---\nb: 2\n";
    assert_null(nd_yaml_load(two, strlen(two), "two.yaml", &st));
    assert_string_equal(
        st.message, "two.yaml:5:1: expected a single YAML document, but a second one starts here");

    assert_null(nd_yaml_load("a: [", 4, "bad.yaml", &st));
    assert_string_equal(st.message, "bad.yaml:1:5: did not find expected node content (while "
                                    "parsing a flow node that started at 1:5)");
    nd_status_release(&st);
}

static void test_load_lines(void **state)
{
    (void)state;
    const char *in = "# head\na: 1\n---\n---\n# c\nb: 2\n--- x\n";
    struct nd_status st = ND_STATUS_INIT;
    json_t *lines = NULL;
    json_t *v = nd_yaml_load_all_lines(in, strlen(in), "l.yaml", &lines, &st);
    assert_non_null(v);
    char *got = show(lines);
    assert_string_equal(got, "[2,6,7]");
    free(got);
    json_decref(lines);
    json_decref(v);

    assert_null(nd_yaml_load_all_lines("[", 1, "l.yaml", &lines, &st));
    assert_null(lines);
    nd_status_release(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_scalars),    cmocka_unit_test(test_load_structure),
        cmocka_unit_test(test_alias_is_a_copy), cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_error_sources),   cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_depth_limit),     cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_byte_limit),
        cmocka_unit_test(test_load_one),        cmocka_unit_test(test_load_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
