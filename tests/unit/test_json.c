/* Unit tests of pkg/json: loading with positions, kubectl-style dumping, reals, the
 * manifest loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/buf.h"
#include "util/status.h"
#include "util/xmalloc.h"

/* Compact JSON with types visible (1 vs 1.0) and keys in their order. */
static char *show(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

struct row {
    const char *in;
    const char *out; /* expected value (shown) or error message */
};

static void test_load_valid(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"{\"z\":1,\"a\":2,\"m\":{\"k\":[true,false,null]}}",
         "{\"z\":1,\"a\":2,\"m\":{\"k\":[true,false,null]}}"},
        {"  [1, 1.5, -0, 1e3, \"\\u00e9\\/\"]\n", "[1,1.5,0,1000.0,\"é/\"]"},
        {"\"just a string\"", "\"just a string\""},
        {"42", "42"},
        {"null", "null"},
        {"{\"\":{}}", "{\"\":{}}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_json_load(rows[i].in, strlen(rows[i].in), "x.json", &st);
        if (!v)
            fail_msg("row %zu: %s", i, st.message);
        char *got = show(v);
        assert_string_equal(got, rows[i].out);
        free(got);
        json_decref(v);
    }
}

static void check_load_errors(const struct row *rows, size_t n, const char *source)
{
    for (size_t i = 0; i < n; i++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_json_load(rows[i].in, strlen(rows[i].in), source, &st);
        if (v)
            fail_msg("row %zu: %s: loaded", i, rows[i].in);
        assert_string_equal(st.reason, "BadRequest");
        if (strcmp(st.message, rows[i].out) != 0)
            fail_msg("row %zu: %s\n  got  %s\n  want %s", i, rows[i].in, st.message, rows[i].out);
        nd_status_release(&st);
    }
}

static void test_load_errors(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"{\"a\":1,\"a\":2}", "job.json:1:10: duplicate object key near '\"a\"'"},
        {"{\"a\":}", "job.json:1:6: unexpected token near '}'"},
        {"{\"a\":1,", "job.json:1:7: string or '}' expected near end of file"},
        {"{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}", "job.json:3:14: unexpected token near ']'"},
        {"{\"a\" 1}", "job.json:1:6: ':' expected near '1'"},
        {"{'a':1}", "job.json:1:2: string or '}' expected near '''"},
        {"[1] [2]", "job.json:1:5: end of file expected near '['"},
        {"{\"a\":\"\\u0000\"}", "job.json:1:13: strings may not contain NUL characters (\\u0000)"},
        {"{\"a\":\"\\ud800\"}", "job.json:1:13: invalid Unicode '\\uD800' near '\"\\ud800\"'"},
        {"{\"a\":\"\x01\"}", "job.json:1:6: control character 0x1 near '\"'"},
        {"{\n  \"a\": \"b\xff\"}", "job.json:2:9: unable to decode byte 0xff near '\"b'"},
        {"\x7f"
         "ELF\x02",
         "job.json:1:1: invalid token near '\x7f'"},
        {"1e400", "job.json:1:5: real number overflow near '1e400'"},
        {"123456789012345678901234567890", "job.json:1:30: too big integer"},
        {"", "job.json:1:1: no JSON value (the input is empty)"},
        {" \n ", "job.json:2:2: no JSON value (the input is empty)"},
    };
    check_load_errors(rows, sizeof rows / sizeof rows[0], "job.json");
    static const struct row other[] = {
        {"[", "<stdin>:1:1: ']' expected near end of file"},
    };
    check_load_errors(other, 1, "-");
    static const struct row none[] = {
        {"{\"a\":1,\"a\":2}", "line 1, column 10: duplicate object key near '\"a\"'"},
    };
    check_load_errors(none, 1, NULL);
}

static char *nested(int levels)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "{\"s\": \"[[[{{\",\n \"k\": ");
    for (int i = 0; i < levels - 1; i++)
        nd_buf_adds(&b, i % 2 ? "{\"x\":" : "[");
    nd_buf_addch(&b, '1');
    for (int i = levels - 2; i >= 0; i--)
        nd_buf_adds(&b, i % 2 ? "}" : "]");
    nd_buf_addch(&b, '}');
    return nd_buf_detach(&b);
}

static void test_load_depth(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    char *ok = nested(100);
    json_t *v = nd_json_load(ok, strlen(ok), "d.json", &st);
    assert_non_null(v);
    assert_int_equal(nd_json_depth(v), 100);
    json_decref(v);
    free(ok);

    /* 101: the 100th bracket of line 2 is the 101st level */
    char *deep = nested(101);
    assert_null(nd_json_load(deep, strlen(deep), "d.json", &st));
    assert_string_equal(st.message, "d.json:2:302: nesting deeper than 100 levels");
    free(deep);

    /* past jansson's own limit too */
    struct nd_buf b = ND_BUF_INIT;
    for (int i = 0; i < 5000; i++)
        nd_buf_addch(&b, '[');
    assert_null(nd_json_load(b.data, b.len, "d.json", &st));
    assert_string_equal(st.message, "d.json:1:101: nesting deeper than 100 levels");
    nd_buf_release(&b);
    nd_status_release(&st);
}

/* nd_load_limits: counted over the text before jansson builds anything. */
static void test_load_limits(void **state)
{
    (void)state;
    static const struct {
        const char *name, *in;
        size_t bytes, nodes;
        const char *message; /* NULL: loads */
    } rows[] = {
        {"within", "[1,2,3,4]", 100, 5, NULL},
        {"one node past", "[1,2,3,4,5]", 100, 5,
         "l.json:1:10: the text holds more than 5 values and keys"},
        {"keys count", "{\"a\":1,\"b\":2,\"c\":3}", 100, 5,
         "l.json:1:14: the text holds more than 5 values and keys"},
        {"brackets in strings do not", "[\"[[[{{{\\\"]]]\", true]", 100, 3, NULL},
        {"a number is one node", "[-12.5e+3, null]", 100, 3, NULL},
        {"nested: each bracket is a node", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]", 100, 5,
         "l.json:1:6: the text holds more than 5 values and keys"},
        {"bytes", "[1, 2, 3]", 8, 100, "l.json:1:1: the text is 9 bytes, more than the 8 it may be"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct nd_status st = ND_STATUS_INIT;
        const struct nd_load_limits lim = {rows[i].bytes, rows[i].nodes};
        json_t *v = nd_json_load_limited(rows[i].in, strlen(rows[i].in), "l.json", &lim, &st);
        if (!rows[i].message && !v)
            fail_msg("%s: %s", rows[i].name, st.message);
        if (rows[i].message) {
            if (v || strcmp(st.message, rows[i].message) != 0)
                fail_msg("%s: got %s", rows[i].name, v ? "a value" : st.message);
            assert_string_equal(st.reason, "RequestEntityTooLarge");
            assert_non_null(st.fix);
        }
        json_decref(v);
        nd_status_release(&st);
    }

    /* past ND_JSON_MAX_DEPTH before the node limit: the parser's depth error, at its place */
    struct nd_buf b = ND_BUF_INIT;
    for (int i = 0; i < 5000; i++)
        nd_buf_addch(&b, '[');
    struct nd_status st = ND_STATUS_INIT;
    const struct nd_load_limits lim = {1 << 20, 1000};
    assert_null(nd_json_load_limited(b.data, b.len, "d.json", &lim, &st));
    assert_string_equal(st.message, "d.json:1:101: nesting deeper than 100 levels");
    assert_string_equal(st.reason, "BadRequest");
    nd_status_release(&st);
    nd_buf_release(&b);

    /* a manifest stream is held to nd_load_file_limits */
    nd_buf_addch(&b, '[');
    for (size_t i = 0; i < nd_load_file_limits.nodes; i++)
        nd_buf_adds(&b, "0,");
    nd_buf_adds(&b, "0]");
    json_t *lines = NULL;
    assert_null(nd_json_load_stream(b.data, b.len, "s.json", &lines, &st));
    assert_string_equal(st.reason, "RequestEntityTooLarge");
    assert_non_null(strstr(st.message, "more than 4000000 values and keys"));
    nd_status_release(&st);
    nd_buf_release(&b);
}

static void test_depth(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t depth;
    } rows[] = {
        {"1", 0},  {"\"x\"", 0},   {"[]", 1},
        {"{}", 1}, {"[1,[2]]", 2}, {"{\"a\":[{\"b\":{}}],\"c\":1}", 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *v = json_loads(rows[i].in, JSON_DECODE_ANY, NULL);
        assert_int_equal(nd_json_depth(v), rows[i].depth);
        json_decref(v);
    }
}

struct dump_row {
    const char *in;
    int flags;
    const char *out;
};

static void test_dump(void **state)
{
    (void)state;
    static const struct dump_row rows[] = {
        {"{\"z\":1,\"a\":[1,{}],\"m\":[]}", ND_JSON_COMPACT, "{\"z\":1,\"a\":[1,{}],\"m\":[]}"},
        {"{\"z\":1,\"a\":[1,{}],\"m\":[]}", ND_JSON_PRETTY,
         "{\n    \"z\": 1,\n    \"a\": [\n        1,\n        {}\n    ],\n    \"m\": []\n}"},
        {"{\"z\":1,\"a\":{\"y\":1,\"b\":2},\"B\":0}", ND_JSON_COMPACT | ND_JSON_SORT_KEYS,
         "{\"B\":0,\"a\":{\"b\":2,\"y\":1},\"z\":1}"},
        {"[]", ND_JSON_PRETTY, "[]"},
        {"{}", ND_JSON_PRETTY, "{}"},
        {"[[]]", ND_JSON_PRETTY, "[\n    []\n]"},
        {"\"a/b é 日 😀\"", 0, "\"a/b é 日 😀\""},
        {"\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\\\u001f\\u007f\"", 0,
         "\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\\\u001f\x7f\""},
        {"\"<a href='x'>&amp;</a>\\u2028\\u2029\"", 0,
         "\"<a href='x'>&amp;</a>\xe2\x80\xa8\xe2\x80\xa9\""},
        {"\"<a href='x'>&amp;</a>\\u2028\\u2029\"", ND_JSON_ESCAPE_HTML,
         "\"\\u003ca href='x'\\u003e\\u0026amp;\\u003c/a\\u003e\\u2028\\u2029\""},
        {"[true,false,null,-7,9223372036854775807]", 0, "[true,false,null,-7,9223372036854775807]"},
        {"[1.5,100.0,1e21,1.5e-7,0.000001,-0.0,123456789.125]", 0,
         "[1.5,100,1e+21,1.5e-7,0.000001,-0,123456789.125]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *v = json_loads(rows[i].in, JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        struct nd_buf b = ND_BUF_INIT;
        nd_buf_adds(&b, ">");
        assert_int_equal(nd_json_dump(v, &b, rows[i].flags), 0);
        if (strcmp(b.data + 1, rows[i].out) != 0)
            fail_msg("row %zu\n  got  %s\n  want %s", i, b.data + 1, rows[i].out);
        nd_buf_release(&b);
        json_decref(v);
    }
}

static void test_dump_failures(void **state)
{
    (void)state;
    /* a capped buffer that fills: -1 and nothing appended */
    json_t *v = json_pack("{s:s}", "key", "a value longer than the cap");
    struct nd_buf b;
    nd_buf_init(&b, 16);
    nd_buf_adds(&b, "kept");
    assert_int_equal(nd_json_dump(v, &b, ND_JSON_PRETTY), -1);
    assert_string_equal(b.data, "kept");
    nd_buf_release(&b);
    json_decref(v);
    assert_int_equal(nd_json_dump(NULL, &b, 0), -1);
    assert_int_equal(nd_json_add_real(&b, INFINITY), -1);
    assert_int_equal(nd_json_add_real(&b, NAN), -1);
    assert_int_equal(nd_json_add_real_g(&b, -INFINITY), -1);
    assert_string_equal(b.data, "");
    nd_buf_release(&b);
}

/* kubectl -o json / -o yaml spellings of float64 values (checked against kubectl 1.32). */
static void test_reals(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *json, *g, *digits;
        int point;
    } rows[] = {
        {1.5, "1.5", "1.5", "15", 1},
        {100.0, "100", "100", "1", 3},
        {0.1, "0.1", "0.1", "1", 0},
        {-2.5, "-2.5", "-2.5", "25", 1},
        {1e-5, "0.00001", "1e-05", "1", -4},
        {0.0001, "0.0001", "0.0001", "1", -3},
        {0.00012345, "0.00012345", "0.00012345", "12345", -3},
        {1e-6, "0.000001", "1e-06", "1", -5},
        {1e-7, "1e-7", "1e-07", "1", -6},
        {2.5e-5, "0.000025", "2.5e-05", "25", -4},
        {123456.789, "123456.789", "123456.789", "123456789", 6},
        {999999.5, "999999.5", "999999.5", "9999995", 6},
        {1000000.5, "1000000.5", "1.0000005e+06", "10000005", 7},
        {1e15, "1000000000000000", "1e+15", "1", 16},
        {1e20, "100000000000000000000", "1e+20", "1", 21},
        {1e21, "1e+21", "1e+21", "1", 22},
        {814860678109981568.0, "814860678109981600", "8.148606781099816e+17", "8148606781099816",
         18},
        {5e-324, "5e-324", "5e-324", "5", -323},
        {1.7976931348623157e308, "1.7976931348623157e+308", "1.7976931348623157e+308",
         "17976931348623157", 309},
        {4.4078276387271934e-27, "4.4078276387271934e-27", "4.4078276387271934e-27",
         "44078276387271934", -26},
        {0.0, "0", "0", NULL, 0},
        {-0.0, "-0", "-0", NULL, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf j = ND_BUF_INIT, g = ND_BUF_INIT;
        assert_int_equal(nd_json_add_real(&j, rows[i].v), 0);
        assert_int_equal(nd_json_add_real_g(&g, rows[i].v), 0);
        if (strcmp(j.data, rows[i].json) != 0 || strcmp(g.data, rows[i].g) != 0)
            fail_msg("row %zu: got %s / %s, want %s / %s", i, j.data, g.data, rows[i].json,
                     rows[i].g);
        if (rows[i].digits) {
            char d[24];
            int point;
            assert_int_equal(nd_json_real_digits(rows[i].v, d, &point), strlen(rows[i].digits));
            assert_string_equal(d, rows[i].digits);
            assert_int_equal(point, rows[i].point);
        }
        nd_buf_release(&j);
        nd_buf_release(&g);
    }
}

static void test_load_stream(void **state)
{
    (void)state;
    const char *in = "{\"kind\":\"A\"}\n\n  {\"kind\":\"B\"} {\"kind\":\"C\"}\n[1]\n";
    struct nd_status st = ND_STATUS_INIT;
    json_t *lines = NULL;
    json_t *v = nd_json_load_stream(in, strlen(in), "s.json", &lines, &st);
    assert_non_null(v);
    char *got = show(v);
    assert_string_equal(got, "[{\"kind\":\"A\"},{\"kind\":\"B\"},{\"kind\":\"C\"},[1]]");
    free(got);
    got = show(lines);
    assert_string_equal(got, "[1,3,3,4]");
    free(got);
    json_decref(v);
    json_decref(lines);

    v = nd_json_load_stream(" \n", 2, "s.json", NULL, &st);
    assert_int_equal(json_array_size(v), 0);
    json_decref(v);

    static const struct row errors[] = {
        {"{\"a\":1}\n  {\"a\":1,\"a\":2}", "s.json:2:12: duplicate object key near '\"a\"'"},
        {"{\"a\":1}\n{\"b\":", "s.json:2:5: unexpected token near end of file"},
        {"{\"a\":1} x", "s.json:1:9: expected a JSON object or array"},
        {"{}\n 3", "s.json:2:2: expected a JSON object or array"},
    };
    json_t *sentinel = json_array();
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        lines = sentinel;
        assert_null(nd_json_load_stream(errors[i].in, strlen(errors[i].in), "s.json", &lines, &st));
        assert_null(lines);
        assert_string_equal(st.message, errors[i].out);
    }
    json_decref(sentinel);
    nd_status_release(&st);
}

static void test_manifests(void **state)
{
    (void)state;
    static const struct row rows[] = {
        /* YAML: documents, empty and null ones skipped */
        {"# jobs\nkind: Job\nmetadata: {name: a}\n---\n---\nnull\n--- ~\n---\nkind: Sandbox\n",
         "[{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\"}},{\"kind\":\"Sandbox\"}]"},
        /* kind: List expanded, also nested and *List kinds */
        {"apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: List\n  items: [{kind: B}]\n"
         "- kind: JobList\n  items: [{kind: C}]\n",
         "[{\"kind\":\"A\"},{\"kind\":\"B\"},{\"kind\":\"C\"}]"},
        {"kind: List\nitems: []\n---\nkind: List\n", "[]"},
        /* a kind that ends in List but has no items is an object like any other */
        {"kind: PlayList\nspec: {}\n", "[{\"kind\":\"PlayList\",\"spec\":{}}]"},
        /* JSON: a single object, a stream, a List */
        {"{\"kind\":\"A\"}", "[{\"kind\":\"A\"}]"},
        {"\xEF\xBB\xBF\n {\"kind\":\"A\"}\n{\"kind\":\"List\",\"items\":[{\"kind\":\"B\"}]}",
         "[{\"kind\":\"A\"},{\"kind\":\"B\"}]"},
        /* nothing at all */
        {"", "[]"},
        {"# only a comment\n", "[]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_manifest_load_all(rows[i].in, strlen(rows[i].in), "m.yaml", &st);
        if (!v)
            fail_msg("row %zu: %s", i, st.message);
        char *got = show(v);
        if (strcmp(got, rows[i].out) != 0)
            fail_msg("row %zu\n  got  %s\n  want %s", i, got, rows[i].out);
        free(got);
        json_decref(v);
    }
}

static void test_manifest_errors(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"kind: A\n---\n- x\n", "m.yaml:3:1: document 2 is a list, not an object"},
        {"kind: A\n---\n\n# c\njust text\n", "m.yaml:5:1: document 2 is a string, not an object"},
        {"kind: List\nitems: 3\n", "m.yaml:1:1: document 1: items is a number, not a list"},
        {"kind: List\nitems:\n- {kind: A}\n- true\n",
         "m.yaml:1:1: document 1: items[1] is a boolean, not an object"},
        {"kind: List\nitems:\n- kind: List\n  items: [{kind: B}, null]\n",
         "m.yaml:1:1: document 1: items[0].items[1] is null, not an object"},
        {"{\"kind\":\"A\"}\n[1]", "m.yaml:2:1: document 2 is a list, not an object"},
        {"kind: A\nkind: B\n", "m.yaml:2:1: duplicate key \"kind\" (first at line 1)"},
        {"{\"kind\":\"A\",\"kind\":\"B\"}", "m.yaml:1:18: duplicate object key near '\"kind\"'"},
        {"{kind: A}", "m.yaml:1:5: string or '}' expected near 'kind'"},
        {"kind: \"A\n", "m.yaml:2:1: found unexpected end of stream (while scanning a quoted "
                        "scalar that started at 1:7)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_manifest_load_all(rows[i].in, strlen(rows[i].in), "m.yaml", &st);
        if (v)
            fail_msg("row %zu: loaded", i);
        assert_string_equal(st.reason, "BadRequest");
        if (strcmp(st.message, rows[i].out) != 0)
            fail_msg("row %zu\n  got  %s\n  want %s", i, st.message, rows[i].out);
        nd_status_release(&st);
    }
}

/* Where a field is written: the line of its deepest part the file writes. */
static void test_manifest_field_lines(void **state)
{
    (void)state;
    static const char in[] = "# c\n"                    /* 1 */
                             "kind: Job\n"              /* 2 */
                             "spec:\n"                  /* 3 */
                             "  base: &b {x: 1}\n"      /* 4 */
                             "  copy: *b\n"             /* 5 */
                             "  env:\n"                 /* 6 */
                             "  - name: A\n"            /* 7 */
                             "    valeu: c\n"           /* 8 */
                             "  labels: {a.b/c: d}\n"   /* 9 */
                             "---\n"                    /* 10 */
                             "kind: List\n"             /* 11 */
                             "items:\n"                 /* 12 */
                             "- kind: A\n"              /* 13 */
                             "- kind: B\n"              /* 14 */
                             "  spec:\n"                /* 15 */
                             "    foo: 1\n";            /* 16 */
    struct nd_status st = ND_STATUS_INIT;
    json_t *where = NULL;
    json_t *v = nd_manifest_load_all_where(in, strlen(in), "m.yaml", &where, &st);
    assert_non_null(v);
    assert_int_equal(json_array_size(where), 3);
    static const struct {
        size_t obj;
        const char *path;
        size_t line;
    } rows[] = {
        {0, "spec.env[0].valeu", 8}, {0, "spec.env[0]", 7},     {0, "spec.env", 6},
        {0, "spec.copy.x", 5},       {0, "spec.base.x", 4},     {0, "spec.missing", 3},
        {0, "", 2},                  {0, "metadata.name", 2},   {0, "spec.labels[a.b/c]", 9},
        {1, "kind", 13},             {2, "spec.foo", 16},       {2, "spec.bar", 15},
        {2, "", 14},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t got = nd_manifest_field_line(json_array_get(where, rows[i].obj), rows[i].path);
        if (got != rows[i].line)
            fail_msg("row %zu (%s): line %zu, want %zu", i, rows[i].path, got, rows[i].line);
    }
    json_decref(where);
    json_decref(v);
    /* JSON: where the object starts */
    static const char js[] = "\n{\"kind\":\"A\",\n\"spec\":{}}";
    v = nd_manifest_load_all_where(js, strlen(js), "j.json", &where, &st);
    assert_non_null(v);
    assert_int_equal(nd_manifest_field_line(json_array_get(where, 0), "spec.x"), 2);
    json_decref(where);
    json_decref(v);
}

/* nd_json_strv: an argv from a JSON array; not a string counts as "", not an array as
 * empty. */
static void test_strv(void **state)
{
    (void)state;
    json_t *arr = json_loads("[\"sh\", \"-c\", \"echo hi\", 3]", 0, NULL);
    char **v = nd_json_strv(arr);
    assert_string_equal(v[0], "sh");
    assert_string_equal(v[1], "-c");
    assert_string_equal(v[2], "echo hi");
    assert_string_equal(v[3], "");
    assert_null(v[4]);
    nd_strv_free(v);
    json_decref(arr);
    v = nd_json_strv(NULL);
    assert_null(v[0]);
    nd_strv_free(v);
    nd_strv_free(NULL);
}

/* nd_json_sorted_keys: strcmp order (uppercase first), NULL-terminated; not an object
 * gives an empty vector. */
static void test_sorted_keys(void **state)
{
    (void)state;
    json_t *obj = json_loads("{\"b\": 1, \"a\": 2, \"B\": 3, \"ab\": 4}", 0, NULL);
    size_t n = 99;
    const char **k = nd_json_sorted_keys(obj, &n);
    assert_int_equal(n, 4);
    assert_string_equal(k[0], "B");
    assert_string_equal(k[1], "a");
    assert_string_equal(k[2], "ab");
    assert_string_equal(k[3], "b");
    assert_null(k[4]);
    free(k);
    json_decref(obj);
    json_t *arr = json_array();
    k = nd_json_sorted_keys(arr, &n);
    assert_int_equal(n, 0);
    assert_null(k[0]);
    free(k);
    json_decref(arr);
    k = nd_json_sorted_keys(NULL, &n);
    assert_int_equal(n, 0);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_valid), cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_depth), cmocka_unit_test(test_load_limits),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_dump),       cmocka_unit_test(test_dump_failures),
        cmocka_unit_test(test_reals),      cmocka_unit_test(test_load_stream),
        cmocka_unit_test(test_manifests),  cmocka_unit_test(test_manifest_errors),
        cmocka_unit_test(test_manifest_field_lines), cmocka_unit_test(test_strv), cmocka_unit_test(test_sorted_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
