/* Unit tests of pkg/yaml, dumping: kubectl's style (checked against kubectl's own
 * output), sorted keys, several documents, capped buffers, and load(dump(x)) == x. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/status.h"
#include "yaml/yaml.h"

/* Compact JSON with types visible (1 vs 1.0) and keys in their order. */
static char *show(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

/* Input and `kubectl annotate --local -o yaml` output (kubectl 1.32), byte for byte. */
static const char kubectl_in[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"foo\":\"bar\"},"
    "\"name\":\"x\""
    "},\"zz\":{\"f1\":1.5,\"f2\":100.0,\"f3\":1e20,\"f4\":1e21,\"f5\":0.000001,\"f6\":1234567.5,"
    "\"f7\":123456"
    ".5,\"f8\":-0.0,\"f9\":1e-7,\"s\":[\"yes\",\"no\",\"on\",\"y\",\"n\",\"~\",\"null\",\"1_000\","
    "\"01\",\"0x1\",\"1e3\","
    "\"2024-01-01\",\"2024-01-01T00:00:00Z\",\" x\",\"x \",\"#x\",\"- x\",\"-x\",\"a "
    "#b\",\"a#b\",\"ü\",\"\\u0007be"
    "ll\",\"tab\\tx\",\"1:20\",\"<<\",\".5\",\"+1\",\"0b1\",\"0o7\",\"true\",\"True\",\"TRUE\","
    "\"Yes\",\"a\\nb\",\"a\\nb\\n"
    "\",\"a\\n\\nb\\n\\n\",\" lead\\nx\",\"x "
    "\\ny\",\"[x\",\"{x\",\"*x\",\"&x\",\"!x\",\"|x\",\">x\",\"'x\",\"\\\"x\",\"%x\",\"@x"
    "\",\"`x\",\"?x\",\"? x\",\":x\",\": x\",\"x:\",\"x: y\",\",x\",\"x,y\",\"---\",\"...\",\"--- "
    "x\",\"=\",\"0.1.2\",\"1.2"
    ".3.4\",\".\",\".inf\",\"-.inf\",\".nan\",\"12e\",\"1e+3\",\"+.5\",\"-\",\"--\",\"0x\",\"0xZ\","
    "\"1__0\",\"_1\",\"1_\"]"
    ",\"empty\":{},\"el\":[],\"nested\":[[1,2],[],{},{\"a\":1,\"b\":[{\"c\":2}]}],\"nul\":null,"
    "\"Key: x\":1,\""
    "true\":2,\"1\":3,\"\":4}}";
static const char kubectl_out[] = "apiVersion: v1\n"
                                  "kind: ConfigMap\n"
                                  "metadata:\n"
                                  "  annotations:\n"
                                  "    foo: bar\n"
                                  "  name: x\n"
                                  "zz:\n"
                                  "  \"\": 4\n"
                                  "  \"1\": 3\n"
                                  "  'Key: x': 1\n"
                                  "  el: []\n"
                                  "  empty: {}\n"
                                  "  f1: 1.5\n"
                                  "  f2: 100\n"
                                  "  f3: 1e+20\n"
                                  "  f4: 1e+21\n"
                                  "  f5: 1e-06\n"
                                  "  f6: 1.2345675e+06\n"
                                  "  f7: 123456.5\n"
                                  "  f8: 0\n"
                                  "  f9: 1e-07\n"
                                  "  nested:\n"
                                  "  - - 1\n"
                                  "    - 2\n"
                                  "  - []\n"
                                  "  - {}\n"
                                  "  - a: 1\n"
                                  "    b:\n"
                                  "    - c: 2\n"
                                  "  nul: null\n"
                                  "  s:\n"
                                  "  - \"yes\"\n"
                                  "  - \"no\"\n"
                                  "  - \"on\"\n"
                                  "  - \"y\"\n"
                                  "  - \"n\"\n"
                                  "  - \"~\"\n"
                                  "  - \"null\"\n"
                                  "  - \"1_000\"\n"
                                  "  - \"01\"\n"
                                  "  - \"0x1\"\n"
                                  "  - \"1e3\"\n"
                                  "  - \"2024-01-01\"\n"
                                  "  - \"2024-01-01T00:00:00Z\"\n"
                                  "  - ' x'\n"
                                  "  - 'x '\n"
                                  "  - '#x'\n"
                                  "  - '- x'\n"
                                  "  - -x\n"
                                  "  - 'a #b'\n"
                                  "  - a#b\n"
                                  "  - ü\n"
                                  "  - \"\\abell\"\n"
                                  "  - \"tab\\tx\"\n"
                                  "  - \"1:20\"\n"
                                  "  - <<\n"
                                  "  - \".5\"\n"
                                  "  - \"+1\"\n"
                                  "  - \"0b1\"\n"
                                  "  - \"0o7\"\n"
                                  "  - \"true\"\n"
                                  "  - \"True\"\n"
                                  "  - \"TRUE\"\n"
                                  "  - \"Yes\"\n"
                                  "  - |-\n"
                                  "    a\n"
                                  "    b\n"
                                  "  - |\n"
                                  "    a\n"
                                  "    b\n"
                                  "  - |+\n"
                                  "    a\n"
                                  "\n"
                                  "    b\n"
                                  "\n"
                                  "  - |2-\n"
                                  "     lead\n"
                                  "    x\n"
                                  "  - \"x \\ny\"\n"
                                  "  - '[x'\n"
                                  "  - '{x'\n"
                                  "  - '*x'\n"
                                  "  - '&x'\n"
                                  "  - '!x'\n"
                                  "  - '|x'\n"
                                  "  - '>x'\n"
                                  "  - '''x'\n"
                                  "  - '\"x'\n"
                                  "  - '%x'\n"
                                  "  - '@x'\n"
                                  "  - '`x'\n"
                                  "  - ?x\n"
                                  "  - '? x'\n"
                                  "  - :x\n"
                                  "  - ': x'\n"
                                  "  - 'x:'\n"
                                  "  - 'x: y'\n"
                                  "  - ',x'\n"
                                  "  - x,y\n"
                                  "  - '---'\n"
                                  "  - '...'\n"
                                  "  - '--- x'\n"
                                  "  - =\n"
                                  "  - 0.1.2\n"
                                  "  - 1.2.3.4\n"
                                  "  - .\n"
                                  "  - \".inf\"\n"
                                  "  - \"-.inf\"\n"
                                  "  - \".nan\"\n"
                                  "  - 12e\n"
                                  "  - \"1e+3\"\n"
                                  "  - \"+.5\"\n"
                                  "  - '-'\n"
                                  "  - --\n"
                                  "  - 0x\n"
                                  "  - 0xZ\n"
                                  "  - \"1__0\"\n"
                                  "  - _1\n"
                                  "  - \"1_\"\n"
                                  "  \"true\": 2\n";

static char *dump(const json_t *v, int flags)
{
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_yaml_dump_flags(v, &b, flags, &st) < 0)
        fail_msg("dump failed: %s", st.message);
    nd_status_release(&st);
    return nd_buf_detach(&b);
}

static void test_dump_matches_kubectl(void **state)
{
    (void)state;
    json_t *v = json_loads(kubectl_in, 0, NULL);
    assert_non_null(v);
    char *got = dump(v, ND_YAML_SORT_KEYS);
    assert_string_equal(got, kubectl_out);
    free(got);
    json_decref(v);
}

struct dump_row {
    const char *json;
    const char *yaml;
};

static void test_dump_style(void **state)
{
    (void)state;
    static const struct dump_row rows[] = {
        /* block style, key order kept, sequences not indented under their key */
        {"{\"apiVersion\":\"nodus.dev/"
         "v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"a\",\"labels\":"
         "{\"app\":\"x\"}},\"spec\":{\"command\":[\"python\",\"train.py\"],\"args\":[\"--epochs\","
         "\"3\"],\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"resources\":{\"gpu\":{\"count\":1}},"
         "\"volumes\":[],\"x\":{}}}",
         "apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: a\n  labels:\n    app: x\n"
         "spec:\n  command:\n  - python\n  - train.py\n  args:\n  - --epochs\n  - \"3\"\n  env:\n"
         "  - name: A\n    value: \"1\"\n  resources:\n    gpu:\n      count: 1\n  volumes: []\n"
         "  x: {}\n"},
        /* top-level values */
        {"\"foo\"", "foo\n"},
        {"\"\"", "\"\"\n"},
        {"\"123\"", "\"123\"\n"},
        {"1", "1\n"},
        {"-1.25", "-1.25\n"},
        {"true", "true\n"},
        {"null", "null\n"},
        {"[]", "[]\n"},
        {"{}", "{}\n"},
        {"\"a\\n\\n\"", "|+\n  a\n\n"},
        {"[[1,2],[],{}]", "- - 1\n  - 2\n- []\n- {}\n"},
        {"[{\"a\":1,\"b\":[{\"c\":2}]}]", "- a: 1\n  b:\n  - c: 2\n"},
        /* keys that need quotes, multi-line and long keys */
        {"{\"true\":1,\"1\":2,\"\":3,\"a: b\":4,\"<<\":5,\"null\":6,\"- x\":7,\"yes\":8}",
         "\"true\": 1\n\"1\": 2\n\"\": 3\n'a: b': 4\n\"<<\": 5\n\"null\": 6\n'- x': 7\n\"yes\": "
         "8\n"},
        {"{\"a\\nb\":1}", "? |-\n  a\n  b\n: 1\n"},
        {"{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
         "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\":1}",
         "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
         "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: 1\n"},
        /* multi-line strings: literal blocks, falling back to double quotes */
        {"{\"a\":\"x\\ny\",\"b\":\"x\\ny\\n\",\"c\":\"x\\n\\n\",\"d\":\" lead\\nx\",\"e\":\"trail "
         "\\nx\"}",
         "a: |-\n  x\n  y\nb: |\n  x\n  y\nc: |+\n  x\n\nd: |2-\n   lead\n  x\ne: \"trail "
         "\\nx\"\n"},
        /* escapes and unicode (as kubectl: 4-byte characters escaped, others kept) */
        {"{\"g\":\"tab\\there\",\"h\":\"\\u0001\\u001b\",\"i\":\"\\u00e9\\u65e5\\ud83d\\ude00\","
         "\"j\":\"\\u00a0x\",\"l\":\"a\\u2028b\\u0085\"}",
         "g: \"tab\\there\"\nh: \"\\x01\\e\"\ni: \"é日\\U0001F600\"\nj: \xc2\xa0x\nl: "
         "\"a\\Lb\\N\"\n"},
        /* long lines fold near 80 columns */
        {"[\"word word word word word word word word word word word word word word word word word "
         "word word word\"]",
         "- word word word word word word word word word word word word word word word word\n"
         "  word word word word\n"},
        /* numbers */
        {"[0, -7, 9223372036854775807, 1.5, 100.0, 1e20, 1e21, 1e-7, 0.1, -0.0, 8.1e17, 9.3e18]",
         "- 0\n- -7\n- 9223372036854775807\n- 1.5\n- 100\n- 1e+20\n- 1e+21\n- 1e-07\n- 0.1\n- 0\n"
         "- 810000000000000000\n- 9.3e+18\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *v = json_loads(rows[i].json, JSON_DECODE_ANY, NULL);
        if (!v)
            fail_msg("row %zu: bad JSON", i);
        char *got = dump(v, 0);
        if (strcmp(got, rows[i].yaml) != 0)
            fail_msg("row %zu\n--- got\n%s--- want\n%s", i, got, rows[i].yaml);
        free(got);
        json_decref(v);
    }
}

static void test_dump_sorted(void **state)
{
    (void)state;
    json_t *v = json_loads("{\"b\":1,\"a10\":{\"z\":1,\"y\":2},\"a9\":1,\"B\":1,\"_\":1,\"a2b\":1}",
                           0, NULL);
    char *got = dump(v, ND_YAML_SORT_KEYS);
    assert_string_equal(got, "_: 1\nB: 1\na2b: 1\na9: 1\na10:\n  \"y\": 2\n  z: 1\nb: 1\n");
    free(got);
    json_decref(v);
}

static void test_dump_all(void **state)
{
    (void)state;
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    json_t *docs =
        json_loads("[{\"kind\":\"A\",\"x\":\"a\\n\\n\"},\"text\",[],{\"kind\":\"B\"}]", 0, NULL);
    assert_int_equal(nd_yaml_dump_all(docs, &b, 0, &st), 0);
    assert_string_equal(b.data, "kind: A\nx: |+\n  a\n\n---\ntext\n---\n[]\n---\nkind: B\n");
    /* and it reads back as the same documents */
    json_t *back = nd_yaml_load_all(b.data, b.len, "all.yaml", &st);
    assert_true(json_equal(back, docs));
    json_decref(back);
    json_decref(docs);

    nd_buf_reset(&b);
    docs = json_array();
    assert_int_equal(nd_yaml_dump_all(docs, &b, 0, &st), 0);
    assert_string_equal(b.data, "");
    assert_int_equal(nd_yaml_dump_all(json_object_get(docs, "x"), &b, 0, &st), -1);
    json_decref(docs);
    nd_buf_release(&b);
    nd_status_release(&st);
}

static void test_dump_capped(void **state)
{
    (void)state;
    struct nd_buf b;
    nd_buf_init(&b, 20);
    nd_buf_adds(&b, "kept");
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = json_pack("{s:s,s:[i,i,i]}", "name", "a long enough value", "n", 1, 2, 3);
    assert_int_equal(nd_yaml_dump(v, &b, &st), -1);
    assert_string_equal(st.message, "the YAML output is larger than its buffer allows");
    assert_string_equal(b.data, "kept");
    json_t *arr = json_pack("[O,O]", v, v);
    assert_int_equal(nd_yaml_dump_all(arr, &b, 0, &st), -1);
    assert_string_equal(b.data, "kept");
    json_decref(arr);
    json_decref(v);
    nd_buf_release(&b);
    assert_int_equal(nd_yaml_dump(NULL, &b, &st), -1);
    nd_status_release(&st);
}

/* Equal as JSON values, except that an integral real may come back as an integer
 * (kubectl prints 100.0 as 100); key order must match too when ordered. */
static bool same(const json_t *a, const json_t *b, bool ordered)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b) &&
               (json_typeof(a) == json_typeof(b) || json_is_real(a));
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same(json_array_get(a, i), json_array_get(b, i), ordered))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        if (!ordered) {
            const char *k;
            json_t *va;
            json_object_foreach((json_t *)a, k,
                                va) if (!json_object_get(b, k) ||
                                        !same(va, json_object_get(b, k), false)) return false;
            return true;
        }
        void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);
        for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
                         ib = json_object_iter_next((json_t *)b, ib))
            if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)) != 0 ||
                !same(json_object_iter_value(ia), json_object_iter_value(ib), true))
                return false;
        return true;
    }
    return json_equal(a, b);
}

static void round_trip(const json_t *v, int flags)
{
    char *text = dump(v, flags);
    struct nd_status st = ND_STATUS_INIT;
    json_t *back = nd_yaml_load(text, strlen(text), "rt.yaml", &st);
    if (!back || !same(v, back, !(flags & ND_YAML_SORT_KEYS))) {
        char *want = show(v), *got = back ? show(back) : NULL;
        fail_msg("round trip of %s\n--- yaml\n%s--- read back as %s", want, text,
                 got ? got : st.message);
    }
    json_decref(back);
    free(text);
    nd_status_release(&st);
}

static void test_round_trip(void **state)
{
    (void)state;
    static const char *const strings[] = {
        "true",
        "false",
        "True",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "Y",
        "null",
        "Null",
        "~",
        "",
        "01",
        "0644",
        "08",
        "1_000",
        "1__0",
        "_1",
        "1_",
        "0x1F",
        "0o17",
        "0b101",
        "1e3",
        "1e+3",
        "1.5",
        ".5",
        "+.5",
        "-1",
        "+1",
        "1.",
        "12e",
        "0x",
        ".inf",
        "-.Inf",
        ".nan",
        "1:20",
        "2024-01-01",
        "2024-1-2",
        "2024-01-01T00:00:00Z",
        "2024-01-01 10:00:00",
        "99999999999999999999",
        "1e400",
        " x",
        "x ",
        " ",
        "  ",
        "a: b",
        "a:b",
        "a #b",
        "a#b",
        "#x",
        "- x",
        "-x",
        "-",
        "--",
        "---",
        "...",
        "--- x",
        "? x",
        "?x",
        ": x",
        ":x",
        "x:",
        "[x",
        "]x",
        "{x",
        "}x",
        ",x",
        "x,y",
        "*x",
        "&x",
        "!x",
        "|x",
        ">x",
        "'x",
        "\"x",
        "%x",
        "@x",
        "`x",
        "<<",
        "=",
        "a'b",
        "a\"b",
        "a\\b",
        "line1\nline2",
        "line1\nline2\n",
        "a\n\n",
        "\n",
        "\n\n",
        "\nlead",
        " lead\nx",
        "trail \nx",
        "x\n ",
        "tab\there",
        "\ttab",
        "\r\n",
        "bell\a",
        "esc\x1b",
        "del\x7f",
        "é",
        "日本語",
        "😀 emoji",
        "\xc2\xa0nbsp",
        "a\xe2\x80\xa8"
        "b",
        "nel\xc2\x85",
        "\xef\xbb\xbf"
        "bom",
        "a very long string that is folded by the emitter because it goes "
        "well past the eighty column limit of kubectl's output, twice over "
        "in fact, so that it takes three lines",
        "long line with\nbreaks and a very long second line that goes past the eighty column "
        "limit of the emitter for sure\n",
    };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        json_t *s = json_string(strings[i]);
        assert_non_null(s);
        json_t *doc = json_pack("{sO s[O] sO}", "k", s, "list", s, "after", s);
        json_object_set(doc, strings[i], s); /* as a key too */
        round_trip(s, 0);
        round_trip(doc, 0);
        json_decref(doc);
        json_decref(s);
    }
    static const char *const values[] = {
        "0",
        "-0",
        "9223372036854775807",
        "-9223372036854775808",
        "1.5",
        "-0.0",
        "100.0",
        "1e20",
        "1e21",
        "1e-7",
        "0.1",
        "5e-324",
        "1.7976931348623157e308",
        "8.1e17",
        "9.3e18",
        "-9223372036854775808.0", /* a real -2^63: its shortest digits overflow int64 */
        "-9.3e18",
        "true",
        "false",
        "null",
        "[]",
        "{}",
        "[[]]",
        "[{}]",
        "{\"a\":{}}",
        "{\"a\":[[],[{}]]}",
        "[[[1]],[[2,[3]]]]",
        "{\"z\":1,\"a\":2,\"m\":{\"y\":[null,true,\"x\"]}}",
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        json_t *v = json_loads(values[i], JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        json_t *doc = json_pack("{sO s[O]}", "k", v, "list", v);
        round_trip(v, 0);
        round_trip(doc, 0);
        round_trip(doc, ND_YAML_SORT_KEYS);
        json_decref(doc);
        json_decref(v);
    }
    /* the kubectl sample too */
    json_t *v = json_loads(kubectl_in, 0, NULL);
    round_trip(v, 0);
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_matches_kubectl), cmocka_unit_test(test_dump_style),
        cmocka_unit_test(test_dump_sorted),          cmocka_unit_test(test_dump_all),
        cmocka_unit_test(test_dump_capped),          cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
