/* Unit tests of pkg/jsonpath. The fixtures and the large tables of expected results come
 * from kubectl v1.32 (see jsonpath_kubectl_cases.h); the tables here cover positions of
 * parse errors, nd_jsonpath_eval's shape, the relaxed form and value formatting (the
 * float and custom-columns forms also checked against kubectl). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "jsonpath/jsonpath.h"
#include "util/buf.h"
#include "util/status.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#include "jsonpath_kubectl_cases.h"

#define expect_str(row, got, want)                                                                 \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!g_ || strcmp(g_, w_) != 0)                                                            \
            fail_msg("row %s:\n  got  [%s]\n  want [%s]", (row), g_ ? g_ : "(null)", w_);          \
    } while (0)

static json_t *load(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
    if (!j)
        fail_msg("bad test JSON: %s (line %d)", err.text, err.line);
    return j;
}

/* Runs tmpl on data; returns 0 with the output in *out (new string), or -1 with the
 * status message in *out. */
static int run(const json_t *data, const char *tmpl, bool allow_missing, char **out)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_jsonpath *jp = nd_jsonpath_parse(tmpl, &st);
    if (!jp)
        fail_msg("row %s: parse: %s", tmpl, st.message);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "prefix:");
    int rc = nd_jsonpath_execute(jp, data, allow_missing, &b, &st);
    if (strncmp(b.data, "prefix:", 7) != 0)
        fail_msg("row %s: the buffer lost what it held", tmpl);
    if (rc < 0) {
        if (strcmp(st.reason, "BadRequest") != 0)
            fail_msg("row %s: reason %s", tmpl, st.reason);
        if (b.len != 7)
            fail_msg("row %s: output appended on error: %s", tmpl, b.data);
        *out = nd_xstrdup(st.message);
    } else {
        *out = nd_xstrdup(b.data + 7);
    }
    nd_buf_release(&b);
    nd_status_release(&st);
    nd_jsonpath_free(jp);
    return rc;
}

static void test_list_outputs(void **state)
{
    (void)state;
    const struct jp_case *rows = list_outputs;
    size_t nrows = N(list_outputs);
    json_t *data = load(jobs_json);
    for (size_t i = 0; i < nrows; i++) {
        char *out;
        if (run(data, rows[i].tmpl, true, &out) < 0)
            fail_msg("row %s: %s", rows[i].tmpl, out);
        expect_str(rows[i].tmpl, out, rows[i].out);
        free(out);
    }
    json_decref(data);
}

/* Where Go's map order is random, nodus visits keys in sorted order. */
static void test_sorted_map_order(void **state)
{
    (void)state;
    static const struct jp_case rows[] = {
        {"{.items[0].metadata.labels.*}", "trainer ml gpu"},
        {"{.items[0].spec.resources.*}", "8 {\"count\":1,\"model\":\"H100\"} 64Gi"},
        {"{..name}", "train-a WANDB_MODE eval-b prep-c"},
        {"{.items[2].spec.flags.*}", "false true"},
        {"{.items[*].metadata.labels.*}", "trainer ml gpu evaluator ml"},
        {"", ""},
    };
    json_t *data = load(jobs_json);
    for (size_t i = 0; i < N(rows); i++) {
        char *out;
        if (run(data, rows[i].tmpl, true, &out) < 0)
            fail_msg("row %s: %s", rows[i].tmpl, out);
        expect_str(rows[i].tmpl, out, rows[i].out);
        free(out);
    }
    json_decref(data);
}

static void test_list_errors(void **state)
{
    (void)state;
    const struct jp_case *rows = list_errors;
    size_t nrows = N(list_errors);
    json_t *data = load(jobs_json);
    for (size_t i = 0; i < nrows; i++) {
        char *out;
        if (run(data, rows[i].tmpl, true, &out) == 0)
            fail_msg("row %s: succeeded with [%s]", rows[i].tmpl, out);
        expect_str(rows[i].tmpl, out, rows[i].out);
        free(out);
    }
    json_decref(data);
}

/* kubectl get --allow-missing-template-keys=false */
static void test_missing_keys(void **state)
{
    (void)state;
    const struct jp_case *rows = missing_key_errors;
    size_t nrows = N(missing_key_errors);
    json_t *data = load(jobs_json);
    for (size_t i = 0; i < nrows; i++) {
        char *out;
        if (run(data, rows[i].tmpl, false, &out) == 0)
            fail_msg("row %s: succeeded with [%s]", rows[i].tmpl, out);
        expect_str(rows[i].tmpl, out, rows[i].out);
        free(out);
    }
    json_decref(data);
}

static void test_odd_values(void **state)
{
    (void)state;
    const struct jp_odd_case *rows = odd_cases;
    size_t nrows = N(odd_cases);
    json_t *data = load(odd_json);
    for (size_t i = 0; i < nrows; i++) {
        char *out;
        int rc = run(data, rows[i].tmpl, true, &out);
        if ((rc == 0) != rows[i].ok)
            fail_msg("row %s: rc %d: %s", rows[i].tmpl, rc, out);
        expect_str(rows[i].tmpl, out, rows[i].out);
        free(out);
    }
    json_decref(data);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *msg;
    } rows[] = {
        {"{.a", "unclosed action (at character 4)"},
        {"{.a\n}", "unclosed action (at character 4)"},
        {"{.a}{", "unclosed action (at character 6)"},
        {"{.items[1", "unterminated array (at character 8)"},
        {"{.items[?(@.x}", "unterminated filter (at character 8)"},
        {"{.x[?(@.a==\"b)]}", "unterminated filter (at character 4)"},
        {"{.items[?(@.x)}", "unclosed array expect ] (at character 15)"},
        {"{\"abc}", "unterminated quoted string (at character 2)"},
        {"{\"a\\qb\"}", "unquote string \"a\\qb\" error invalid syntax (at character 2)"},
        {"{1.2.3}", "cannot parse number 1.2.3 (at character 2)"},
        {"{-}", "cannot parse number - (at character 2)"},
        {"{.items[-]}", "array index - is not a number (at character 9)"},
        {"{....a}", "invalid multiple recursive descent (at character 4)"},
        {"{\t}", "unrecognized character in action: U+0009 (at character 2)"},
        {"{(}", "unrecognized character in action: U+0028 '(' (at character 2)"},
        {"{{.kind}}", "unrecognized character in action: U+007B '{' (at character 2)"},
        {"{.items[a]}", "invalid array index a (at character 9)"},
        {"{.items[ 0 ]}", "invalid array index  0  (at character 9)"},
        {"{.items[0].metadata.labels.app,.kind}",
         "unrecognized character in action: U+002C ',' (at character 31)"},
        {"{.items[?(@.metadata.name=~\"t.*\")].metadata.name}",
         "unrecognized character in action: U+007E '~' (at character 8)"},
        {"{.x[0,a]}", "invalid array index a (at character 4)"},
        {"{.x['a,b']}", "invalid array index 'a (at character 4)"},
        {"{.x[?(@.a==(]}", "unterminated filter (at character 4)"},
        {"h\303\251llo {.a}{.b!}{\342\202\254}",
         "unrecognized character in action: U+20AC '\342\202\254' (at character 17)"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_jsonpath *jp = nd_jsonpath_parse(rows[i].tmpl, &st);
        if (jp)
            fail_msg("row %s: parsed", rows[i].tmpl);
        expect_str(rows[i].tmpl, st.reason, "BadRequest");
        assert_int_equal(st.code, 400);
        expect_str(rows[i].tmpl, st.message, rows[i].msg);
        assert_non_null(st.fix);
        nd_status_release(&st);
    }
}

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    assert_non_null(s);
    return s;
}

static void test_eval(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *json;
    } rows[] = {
        {"{.items[*].metadata.name}", "[[\"train-a\",\"eval-b\",\"prep-c\"]]"},
        {"x{.kind}{\"\\n\"}", "[[\"x\"],[\"List\"],[\"\\n\"]]"},
        {"{range .items[*]}{.metadata.name}{end}", "[[\"train-a\"],[\"eval-b\"],[\"prep-c\"]]"},
        {"{range .items[*]}{.metadata.name}{\",\"}{end}",
         "[[\"train-a\"],[\",\"],[\"eval-b\"],[\",\"],[\"prep-c\"],[\",\"]]"},
        {"{.items[?(@.spec.priority>5)].spec.resources.gpu}",
         "[[{\"count\":4,\"model\":\"A100\"}]]"},
        {"{.items[0].status.conditions[?(@.type==\"Ready\")].status}", "[[\"True\"]]"},
        {"{.items[2].spec.note}", "[[null]]"},
        {"{.nope}", "[[]]"},
        {"{1}{true}{2.5}", "[[1],[true],[2.5]]"},
        {"", "[]"},
    };
    json_t *data = load(jobs_json);
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_jsonpath *jp = nd_jsonpath_parse(rows[i].tmpl, &st);
        assert_non_null(jp);
        json_t *r = nd_jsonpath_eval(jp, data, true, &st);
        if (!r)
            fail_msg("row %s: %s", rows[i].tmpl, st.message);
        char *s = dump(r);
        expect_str(rows[i].tmpl, s, rows[i].json);
        free(s);
        json_decref(r);
        nd_jsonpath_free(jp);
    }

    /* results are the data's own nodes, with a reference of their own */
    struct nd_status st = ND_STATUS_INIT;
    struct nd_jsonpath *jp = nd_jsonpath_parse("{.items[0].metadata}", &st);
    json_t *meta = json_object_get(json_array_get(json_object_get(data, "items"), 0), "metadata");
    size_t refs = meta->refcount;
    json_t *r = nd_jsonpath_eval(jp, data, true, &st);
    assert_ptr_equal(json_array_get(json_array_get(r, 0), 0), meta);
    assert_int_equal(meta->refcount, refs + 1);
    json_decref(r);
    assert_int_equal(meta->refcount, refs);
    nd_jsonpath_free(jp);

    /* errors */
    jp = nd_jsonpath_parse("{.nope}", &st);
    assert_null(nd_jsonpath_eval(jp, data, false, &st));
    assert_string_equal(st.reason, "BadRequest");
    assert_string_equal(st.message, "nope is not found");
    nd_status_release(&st);
    nd_jsonpath_free(jp);
    json_decref(data);
}

static void test_execute_edges(void **state)
{
    (void)state;
    json_t *data = load(jobs_json);
    struct nd_status st = ND_STATUS_INIT;

    /* NULL is the empty template */
    struct nd_jsonpath *jp = nd_jsonpath_parse(NULL, &st);
    assert_non_null(jp);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_jsonpath_execute(jp, data, false, &b, &st), 0);
    assert_string_equal(b.data, "");
    nd_jsonpath_free(jp);

    /* a capped buffer: an error, and nothing half-written */
    jp = nd_jsonpath_parse("{.items[*].metadata.name}", &st);
    nd_buf_release(&b);
    nd_buf_init(&b, 10);
    nd_buf_adds(&b, "ab");
    assert_int_equal(nd_jsonpath_execute(jp, data, true, &b, &st), -1);
    assert_string_equal(st.message, "jsonpath output is larger than 10 bytes");
    assert_string_equal(b.data, "ab");
    assert_true(b.overflow);
    nd_buf_release(&b);
    nd_buf_init(&b, 0);
    nd_status_release(&st);

    /* a template runs any number of times with the same result */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(nd_jsonpath_execute(jp, data, true, &b, &st), 0);
        nd_buf_addch(&b, '|');
    }
    assert_string_equal(b.data,
                        "train-a eval-b prep-c|train-a eval-b prep-c|train-a eval-b prep-c|");
    nd_buf_release(&b);
    nd_jsonpath_free(jp);

    /* data that is not a List */
    jp = nd_jsonpath_parse("{range .items[*]}{.metadata.name}{end}[{@}]", &st);
    json_t *num = json_integer(7);
    assert_int_equal(nd_jsonpath_execute(jp, num, true, &b, &st), 0);
    assert_string_equal(b.data, "[7]");
    nd_buf_reset(&b);
    assert_int_equal(nd_jsonpath_execute(jp, NULL, true, &b, &st), 0);
    assert_string_equal(b.data, "[<no value>]");
    nd_buf_release(&b);
    json_decref(num);
    nd_jsonpath_free(jp);
    json_decref(data);
}

static void test_relaxed(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out; /* out NULL: refused */
    } rows[] = {
        {"metadata.name", "{.metadata.name}"},
        {".metadata.name", "{.metadata.name}"},
        {"{metadata.name}", "{.metadata.name}"},
        {"{.metadata.name}", "{.metadata.name}"},
        {".status.conditions[?(@.type==\"Ready\")].status",
         "{.status.conditions[?(@.type==\"Ready\")].status}"},
        {"..name", "{..name}"},
        {"{..name}", "{..name}"},
        {"{.}", "{..}"},
        {".", "{..}"},
        {"", ""},
        {"{}", NULL},
        {"{.a}{.b}", NULL},
        {".a{", NULL},
        {"a}", NULL},
        {"{.a", NULL},
    };
    for (size_t i = 0; i < N(rows); i++) {
        char *out = nd_jsonpath_relaxed(rows[i].in);
        if (rows[i].out)
            expect_str(rows[i].in, out, rows[i].out);
        else if (out)
            fail_msg("row %s: accepted as %s", rows[i].in, out);
        free(out);
    }
    assert_string_equal(ND_JSONPATH_RELAXED_ERROR,
                        "unexpected path string, expected a 'name1.name2' or '.name1.name2' or "
                        "'{name1.name2}' or '{.name1.name2}'");
}

static void test_format(void **state)
{
    (void)state;
    /* kubectl's text for one result, json.Marshal, and %v (what custom-columns prints) */
    static const struct {
        const char *json, *value, *marshal, *go;
    } rows[] = {
        {"1e5", "100000", "100000", "100000"},
        {"1e6", "1e+06", "1000000", "1e+06"},
        {"0.0001", "0.0001", "0.0001", "0.0001"},
        {"123456.7", "123456.7", "123456.7", "123456.7"},
        {"1234567.5", "1.2345675e+06", "1234567.5", "1.2345675e+06"},
        {"1.5e-7", "1.5e-07", "1.5e-7", "1.5e-07"},
        {"-0.0", "-0", "-0", "-0"},
        {"1e20", "1e+20", "100000000000000000000", "1e+20"},
        {"1e21", "1e+21", "1e+21", "1e+21"},
        {"0.1", "0.1", "0.1", "0.1"},
        {"-2.5e-5", "-2.5e-05", "-0.000025", "-2.5e-05"},
        {"1e-6", "1e-06", "0.000001", "1e-06"},
        {"1.0", "1", "1", "1"},
        {"9007199254740993", "9007199254740993", "9007199254740993", "9007199254740993"},
        {"-12", "-12", "-12", "-12"},
        {"true", "true", "true", "true"},
        {"null", "null", "null", "<nil>"},
        {"\"<b>&\\u2028\\b\\t\"", "<b>&\342\200\250\b\t", "\"\\u003cb\\u003e\\u0026\\u2028\\b\\t\"",
         "<b>&\342\200\250\b\t"},
        {"\"\\u0001\\u001f\"", "\001\037", "\"\\u0001\\u001f\"", "\001\037"},
        {"[]", "[]", "[]", "[]"},
        {"{}", "{}", "{}", "map[]"},
        {"[\"python\",\"train.py\"]", "[\"python\",\"train.py\"]", "[\"python\",\"train.py\"]",
         "[python train.py]"},
        {"{\"tier\":\"gpu\",\"app\":\"trainer\",\"team\":\"ml\"}",
         "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"}",
         "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"}",
         "map[app:trainer team:ml tier:gpu]"},
        {"[{\"name\":\"WANDB_MODE\",\"value\":\"offline\"}]",
         "[{\"name\":\"WANDB_MODE\",\"value\":\"offline\"}]",
         "[{\"name\":\"WANDB_MODE\",\"value\":\"offline\"}]",
         "[map[name:WANDB_MODE value:offline]]"},
        {"{\"spot\":true,\"preemptible\":false,\"n\":null,\"w\":[1.5,1e6]}",
         "{\"n\":null,\"preemptible\":false,\"spot\":true,\"w\":[1.5,1000000]}",
         "{\"n\":null,\"preemptible\":false,\"spot\":true,\"w\":[1.5,1000000]}",
         "map[n:<nil> preemptible:false spot:true w:[1.5 1e+06]]"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        json_t *v = load(rows[i].json);
        struct nd_buf a = ND_BUF_INIT, m = ND_BUF_INIT, g = ND_BUF_INIT;
        nd_jsonpath_format_value(v, &a);
        nd_jsonpath_format_json(v, &m);
        nd_jsonpath_format_go(v, &g);
        expect_str(rows[i].json, a.data, rows[i].value);
        expect_str(rows[i].json, m.data, rows[i].marshal);
        expect_str(rows[i].json, g.data, rows[i].go);
        nd_buf_release(&a);
        nd_buf_release(&m);
        nd_buf_release(&g);
        json_decref(v);
    }
    struct nd_buf g = ND_BUF_INIT;
    nd_jsonpath_format_go(NULL, &g);
    assert_string_equal(g.data, "<nil>");
    nd_buf_release(&g);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_outputs), cmocka_unit_test(test_sorted_map_order),
        cmocka_unit_test(test_list_errors),  cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_odd_values),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_eval),         cmocka_unit_test(test_execute_edges),
        cmocka_unit_test(test_relaxed),      cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests_name("jsonpath", tests, NULL, NULL);
}
