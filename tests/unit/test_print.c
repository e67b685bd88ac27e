/* Unit tests of pkg/print's formats: -o parsing, json, yaml, name, jsonpath,
 * custom-columns, --sort-by. Expected texts marked "kubectl" were printed by kubectl
 * 1.32 for the same objects (`kubectl get jobs -o ...` against a server listing them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/json.h"
#include "jsonpath/jsonpath.h"
#include "print/print.h"
#include "util/xmalloc.h"

/* Two Jobs: HTML characters in a label, a real, a string that YAML would read as a
 * boolean, an empty and a full list, a multi-line string. */
static const char *two_jobs =
    "[{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"train-a\","
    "\"namespace\":\"default\",\"labels\":{\"team\":\"ml\",\"app\":\"a<b>&c\"}},\"spec\":{"
    "\"image\":\"img:1\",\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":2}},\"f\":0.1,"
    "\"yes\":\"yes\",\"tags\":[],\"ml\":\"x\\ny\\n\"},\"status\":{\"phase\":\"Running\"}},"
    "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"b\",\"namespace\":"
    "\"default\"},\"spec\":{\"image\":\"img:2\",\"resources\":{\"gpu\":{\"model\":\"L4\",\"count\":"
    "1}},\"tags\":[\"x\",\"y\"]},\"status\":{\"phase\":\"Queued\"}}]";

static json_t *load(const char *text)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_json_load(text, strlen(text), "test", &st);
    if (!v)
        fail_msg("bad test JSON: %s", st.message);
    nd_status_release(&st);
    return v;
}

static void test_parse_output(void **state)
{
    (void)state;
    static const struct {
        const char *o;
        enum nd_output want;
        const char *file;
    } ok[] = {
        {NULL, ND_OUTPUT_TABLE, NULL},
        {"", ND_OUTPUT_TABLE, NULL},
        {"json", ND_OUTPUT_JSON, NULL},
        {"JSON", ND_OUTPUT_JSON, NULL}, /* kubectl lower-cases json, yaml and name */
        {"yaml", ND_OUTPUT_YAML, NULL},
        {"Yaml", ND_OUTPUT_YAML, NULL},
        {"name", ND_OUTPUT_NAME, NULL},
        {"NAME", ND_OUTPUT_NAME, NULL},
        {"wide", ND_OUTPUT_WIDE, NULL},
        {"jsonpath={.metadata.name}", ND_OUTPUT_JSONPATH, NULL},
        {"jsonpath='{.a}'", ND_OUTPUT_JSONPATH, NULL},
        {"jsonpath=plain", ND_OUTPUT_JSONPATH, NULL},
        {"jsonpath=={.kind}", ND_OUTPUT_JSONPATH, NULL},
        {"jsonpath-file=/tmp/t.txt", ND_OUTPUT_JSONPATH, "/tmp/t.txt"},
        {"custom-columns=NAME:.metadata.name", ND_OUTPUT_CUSTOM_COLUMNS, NULL},
        {"custom-columns=A:", ND_OUTPUT_CUSTOM_COLUMNS, NULL},
        {"custom-columns=A:.kind:x", ND_OUTPUT_CUSTOM_COLUMNS, NULL},
        {"custom-columns=:.metadata.name", ND_OUTPUT_CUSTOM_COLUMNS, NULL},
        {"custom-columns-file=cols.txt", ND_OUTPUT_CUSTOM_COLUMNS, "cols.txt"},
    };
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        if (nd_print_parse_output(ok[i].o, &o, &st) != 0)
            fail_msg("%s: %s", ok[i].o, st.message);
        assert_int_equal(o.output, ok[i].want);
        if (ok[i].file)
            assert_string_equal(o.file, ok[i].file);
        else
            assert_null(o.file);
        assert_true(nd_print_is_table(&o) ==
                    (ok[i].want == ND_OUTPUT_TABLE || ok[i].want == ND_OUTPUT_WIDE));
        if (ok[i].want == ND_OUTPUT_JSONPATH && !ok[i].file)
            assert_non_null(o.jsonpath);
        if (ok[i].want == ND_OUTPUT_CUSTOM_COLUMNS && !ok[i].file)
            assert_non_null(o.columns);
    }
    nd_print_opts_release(&o);

#define UNMATCHED(x)                                                                               \
    "unable to match a printer suitable for the output format \"" x "\", allowed formats are: "    \
    "custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml"
    static const struct {
        const char *o, *message;
    } bad[] = {
        /* kubectl's messages */
        {"foo", UNMATCHED("foo")},
        {"WIDE", UNMATCHED("WIDE")},
        {"wide=x", UNMATCHED("wide=x")},
        {"name=x", UNMATCHED("name=x")},
        {"JSONPATH={.kind}", UNMATCHED("JSONPATH={.kind}")},
        {"go-template={{.kind}}", UNMATCHED("go-template={{.kind}}")},
        {"a\"b\n", UNMATCHED("a\\\"b\\n")},
        {"jsonpath", "template format specified but no template given"},
        {"jsonpath=", "template format specified but no template given"},
        {"jsonpath-file=", "template format specified but no template given"},
        {"jsonpath={.x", "error parsing jsonpath {.x, unclosed action (at character 4)"},
        {"custom-columns", "custom-columns format specified but no custom columns given"},
        {"custom-columns=", "custom-columns format specified but no custom columns given"},
        {"custom-columns-file", "custom-columns format specified but no custom columns given"},
        {"custom-columns=NAME",
         "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"},
        {"custom-columns=NAME:.metadata.name,X",
         "unexpected custom-columns spec: X, expected <header>:<json-path-expr>"},
        {"custom-columns=A:.metadata.name,",
         "unexpected custom-columns spec: , expected <header>:<json-path-expr>"},
        {"custom-columns=A:{.x", ND_JSONPATH_RELAXED_ERROR},
        {"custom-columns=A:.x[", "unterminated array (at character 4)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        nd_print_opts_init(&o);
        assert_int_equal(nd_print_parse_output("json", &o, &st), 0);
        assert_int_equal(nd_print_parse_output(bad[i].o, &o, &st), -1);
        assert_string_equal(st.reason, "Usage");
        if (strcmp(st.message, bad[i].message) != 0)
            fail_msg("%s:\n got %s\nwant %s", bad[i].o, st.message, bad[i].message);
        /* a failed parse leaves the default table, nothing half-set */
        assert_int_equal(o.output, ND_OUTPUT_TABLE);
        assert_null(o.jsonpath);
        assert_null(o.columns);
        nd_status_release(&st);
        nd_print_opts_release(&o);
    }
}

static void test_load_file(void **state)
{
    (void)state;
    struct nd_print_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    json_t *objs = load(two_jobs);

    /* a jsonpath file is the template as it is: its final newline prints */
    nd_print_opts_init(&o);
    assert_int_equal(nd_print_parse_output("jsonpath-file=t", &o, &st), 0);
    assert_null(o.jsonpath);
    const char tmpl[] = "{.items[*].metadata.name}\n";
    assert_int_equal(nd_print_opts_load_file(&o, tmpl, sizeof tmpl - 1, &st), 0);
    assert_int_equal(nd_print_objects(objs, false, &o, &out, &st), 0);
    assert_string_equal(out.data, "train-a b\n");
    nd_print_opts_release(&o);

    nd_print_opts_init(&o);
    nd_print_parse_output("jsonpath-file=t", &o, &st);
    assert_int_equal(nd_print_opts_load_file(&o, "{.a", 3, &st), -1);
    assert_string_equal(st.message, "error parsing jsonpath {.a, unclosed action (at character 4)");
    nd_print_opts_release(&o);

    /* custom-columns-file: headers, then paths; further lines ignored; CRLF; --no-headers
     * does not hide a file's header (kubectl) */
    static const struct {
        const char *text, *want;
    } files[] = {
        /* kubectl */
        {"NAME   IMG\n.metadata.name   {.spec.image}\nignored line\n",
         "NAME      IMG\ntrain-a   img:1\nb         img:2\n"},
        {"  A\tB  \r\n .kind .metadata.name\r\n", "A     B\nJob   train-a\nJob   b\n"},
        {"\n\n", "\n\n\n"},
        {"N\n.metadata.name", "N\ntrain-a\nb\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        nd_print_opts_init(&o);
        o.no_headers = true;
        assert_int_equal(nd_print_parse_output("custom-columns-file=f", &o, &st), 0);
        if (nd_print_opts_load_file(&o, files[i].text, strlen(files[i].text), &st) != 0)
            fail_msg("file %zu: %s", i, st.message);
        nd_buf_reset(&out);
        assert_int_equal(nd_print_objects(objs, false, &o, &out, &st), 0);
        assert_string_equal(out.data, files[i].want);
        nd_print_opts_release(&o);
    }
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"", "invalid template, missing header line. Expected format is one line of space "
             "separated headers, one line of space separated column specs."},
        {"NAME\n", "invalid template, missing spec line. Expected format is one line of space "
                   "separated headers, one line of space separated column specs."},
        {"A B\n.x\n", "number of headers (2) and field specifications (1) don't match"},
        {"A\n.x[\n", "unterminated array (at character 4)"},
        {"A\n{.x\n", ND_JSONPATH_RELAXED_ERROR},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nd_print_opts_init(&o);
        nd_print_parse_output("custom-columns-file=f", &o, &st);
        assert_int_equal(nd_print_opts_load_file(&o, bad[i].text, strlen(bad[i].text), &st), -1);
        assert_string_equal(st.reason, "Usage");
        assert_string_equal(st.message, bad[i].message);
        assert_null(o.columns);
        nd_print_opts_release(&o);
    }
    /* a format that reads no file */
    nd_print_opts_init(&o);
    nd_print_parse_output("json", &o, &st);
    assert_int_equal(nd_print_opts_load_file(&o, "x", 1, &st), -1);
    assert_string_equal(st.message, "the output format reads no file");
    nd_print_opts_release(&o);

    /* nd_print_opts_read_file: nothing to read, a file, a missing file (kubectl's text) */
    nd_print_opts_init(&o);
    nd_print_parse_output("json", &o, &st);
    assert_int_equal(nd_print_opts_read_file(&o, &st), 0);
    nd_print_opts_release(&o);
    char path[] = "/tmp/nd-print-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, tmpl, sizeof tmpl - 1), (ssize_t)(sizeof tmpl - 1));
    close(fd);
    char *opt = nd_xasprintf("jsonpath-file=%s", path);
    nd_print_opts_init(&o);
    assert_int_equal(nd_print_parse_output(opt, &o, &st), 0);
    assert_int_equal(nd_print_opts_read_file(&o, &st), 0);
    nd_buf_reset(&out);
    assert_int_equal(nd_print_objects(objs, false, &o, &out, &st), 0);
    assert_string_equal(out.data, "train-a b\n");
    nd_print_opts_release(&o);
    unlink(path);
    static const struct {
        const char *format, *flag;
    } missing[] = {{"jsonpath-file", "--template"}, {"custom-columns-file", "template"}};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        free(opt);
        opt = nd_xasprintf("%s=%s", missing[i].format, path);
        nd_print_opts_init(&o);
        assert_int_equal(nd_print_parse_output(opt, &o, &st), 0);
        assert_int_equal(nd_print_opts_read_file(&o, &st), -1);
        assert_string_equal(st.reason, "Usage");
        char *want = nd_xasprintf("error reading %s %s, open %s: No such file or directory",
                                  missing[i].flag, path, path);
        assert_string_equal(st.message, want);
        free(want);
        nd_print_opts_release(&o);
    }
    free(opt);

    json_decref(objs);
    nd_buf_release(&out);
    nd_status_release(&st);
}

static const char *list_json =
    /* kubectl get jobs -o json */
    "{\n"
    "    \"apiVersion\": \"v1\",\n"
    "    \"items\": [\n"
    "        {\n"
    "            \"apiVersion\": \"nodus.dev/v1\",\n"
    "            \"kind\": \"Job\",\n"
    "            \"metadata\": {\n"
    "                \"labels\": {\n"
    "                    \"app\": \"a\\u003cb\\u003e\\u0026c\",\n"
    "                    \"team\": \"ml\"\n"
    "                },\n"
    "                \"name\": \"train-a\",\n"
    "                \"namespace\": \"default\"\n"
    "            },\n"
    "            \"spec\": {\n"
    "                \"f\": 0.1,\n"
    "                \"image\": \"img:1\",\n"
    "                \"ml\": \"x\\ny\\n\",\n"
    "                \"resources\": {\n"
    "                    \"gpu\": {\n"
    "                        \"count\": 2,\n"
    "                        \"model\": \"H100\"\n"
    "                    }\n"
    "                },\n"
    "                \"tags\": [],\n"
    "                \"yes\": \"yes\"\n"
    "            },\n"
    "            \"status\": {\n"
    "                \"phase\": \"Running\"\n"
    "            }\n"
    "        },\n"
    "        {\n"
    "            \"apiVersion\": \"nodus.dev/v1\",\n"
    "            \"kind\": \"Job\",\n"
    "            \"metadata\": {\n"
    "                \"name\": \"b\",\n"
    "                \"namespace\": \"default\"\n"
    "            },\n"
    "            \"spec\": {\n"
    "                \"image\": \"img:2\",\n"
    "                \"resources\": {\n"
    "                    \"gpu\": {\n"
    "                        \"count\": 1,\n"
    "                        \"model\": \"L4\"\n"
    "                    }\n"
    "                },\n"
    "                \"tags\": [\n"
    "                    \"x\",\n"
    "                    \"y\"\n"
    "                ]\n"
    "            },\n"
    "            \"status\": {\n"
    "                \"phase\": \"Queued\"\n"
    "            }\n"
    "        }\n"
    "    ],\n"
    "    \"kind\": \"List\",\n"
    "    \"metadata\": {\n"
    "        \"resourceVersion\": \"\"\n"
    "    }\n"
    "}\n";

static const char *list_yaml =
    /* kubectl get jobs -o yaml */
    "apiVersion: v1\n"
    "items:\n"
    "- apiVersion: nodus.dev/v1\n"
    "  kind: Job\n"
    "  metadata:\n"
    "    labels:\n"
    "      app: a<b>&c\n"
    "      team: ml\n"
    "    name: train-a\n"
    "    namespace: default\n"
    "  spec:\n"
    "    f: 0.1\n"
    "    image: img:1\n"
    "    ml: |\n"
    "      x\n"
    "      y\n"
    "    resources:\n"
    "      gpu:\n"
    "        count: 2\n"
    "        model: H100\n"
    "    tags: []\n"
    "    \"yes\": \"yes\"\n"
    "  status:\n"
    "    phase: Running\n"
    "- apiVersion: nodus.dev/v1\n"
    "  kind: Job\n"
    "  metadata:\n"
    "    name: b\n"
    "    namespace: default\n"
    "  spec:\n"
    "    image: img:2\n"
    "    resources:\n"
    "      gpu:\n"
    "        count: 1\n"
    "        model: L4\n"
    "    tags:\n"
    "    - x\n"
    "    - \"y\"\n"
    "  status:\n"
    "    phase: Queued\n"
    "kind: List\n"
    "metadata:\n"
    "  resourceVersion: \"\"\n";

static const char *one_json =
    /* kubectl get job b -o json */
    "{\n"
    "    \"apiVersion\": \"nodus.dev/v1\",\n"
    "    \"kind\": \"Job\",\n"
    "    \"metadata\": {\n"
    "        \"name\": \"b\",\n"
    "        \"namespace\": \"default\"\n"
    "    },\n"
    "    \"spec\": {\n"
    "        \"image\": \"img:2\",\n"
    "        \"resources\": {\n"
    "            \"gpu\": {\n"
    "                \"count\": 1,\n"
    "                \"model\": \"L4\"\n"
    "            }\n"
    "        },\n"
    "        \"tags\": [\n"
    "            \"x\",\n"
    "            \"y\"\n"
    "        ]\n"
    "    },\n"
    "    \"status\": {\n"
    "        \"phase\": \"Queued\"\n"
    "    }\n"
    "}\n";

static const char *one_yaml =
    /* kubectl get job b -o yaml */
    "apiVersion: nodus.dev/v1\n"
    "kind: Job\n"
    "metadata:\n"
    "  name: b\n"
    "  namespace: default\n"
    "spec:\n"
    "  image: img:2\n"
    "  resources:\n"
    "    gpu:\n"
    "      count: 1\n"
    "      model: L4\n"
    "  tags:\n"
    "  - x\n"
    "  - \"y\"\n"
    "status:\n"
    "  phase: Queued\n";

static void test_objects(void **state)
{
    (void)state;
    json_t *two = load(two_jobs);
    json_t *one = json_array();
    json_array_append(one, json_array_get(two, 1));
    json_t *none = json_array();
    static const struct {
        const char *o;
        int which; /* 2: both jobs, 1: job b, 0: none */
        bool single;
        const char *want;
    } rows[] = {
        {"json", 2, false, NULL /* list_json */},
        {"yaml", 2, false, NULL /* list_yaml */},
        {"json", 1, true, NULL /* one_json */},
        {"yaml", 1, true, NULL /* one_yaml */},
        /* kubectl get jobs -o json / -o yaml with nothing found */
        {"json", 0, false,
         "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n"
         "    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"},
        {"yaml", 0, false,
         "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n"
         "  resourceVersion: \"\"\n"},
        /* one object but not "single item implied" (`get jobs` finding one): a List */
        {"jsonpath={.kind}", 1, false, "List"},
        {"jsonpath={.kind}", 1, true, "Job"},
        /* kubectl */
        {"name", 2, false, "job.nodus.dev/train-a\njob.nodus.dev/b\n"},
        {"name", 1, true, "job.nodus.dev/b\n"},
        {"name", 0, false, ""},
        {"jsonpath={.items[*].metadata.name}", 2, false, "train-a b"},
        {"jsonpath={range .items[*]}{.metadata.name}:{.spec.tags}{\"\\n\"}{end}", 2, false,
         "train-a:[]\nb:[\"x\",\"y\"]\n"},
        {"jsonpath={.items}", 0, false, "[]"},
        {"jsonpath={.metadata.name}", 1, true, "b"},
        {"jsonpath={.x.y}", 1, true, ""},
        {"jsonpath='{.metadata.name}'", 1, true, "'b'"},
        {"custom-columns=NAME:.metadata.name,GPU:.spec.resources.gpu.model,TAGS:.spec.tags[*],"
         "F:spec.f,LBL:{.metadata.labels.app}",
         2, false,
         "NAME      GPU    TAGS     F        LBL\n"
         "train-a   H100   <none>   0.1      a<b>&c\n"
         "b         L4     x,y      <none>   <none>\n"},
        {"custom-columns=N:.metadata.name", 1, true, "N\nb\n"},
        {"custom-columns=NAME:.metadata.name", 0, false, "NAME\n"},
        {"custom-columns=:.metadata.name", 2, false, "\ntrain-a\nb\n"},
        {"custom-columns=A:", 2, false, "A\n<none>\n<none>\n"},
        {"custom-columns=G:.spec.resources.gpu,T:.spec.tags", 2, false,
         "G                         T\n"
         "map[count:2 model:H100]   []\n"
         "map[count:1 model:L4]     [x y]\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_print_opts o;
        nd_print_opts_init(&o);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_parse_output(rows[i].o, &o, &st), 0);
        const char *want = rows[i].want;
        if (i == 0)
            want = list_json;
        else if (i == 1)
            want = list_yaml;
        else if (i == 2)
            want = one_json;
        else if (i == 3)
            want = one_yaml;
        json_t *objs = rows[i].which == 2 ? two : rows[i].which == 1 ? one : none;
        struct nd_buf out = ND_BUF_INIT;
        nd_buf_adds(&out, ">");
        if (nd_print_objects(objs, rows[i].single, &o, &out, &st) != 0)
            fail_msg("%s: %s", rows[i].o, st.message);
        if (strcmp(out.data + 1, want) != 0)
            fail_msg("%s:\n%s\nwant:\n%s", rows[i].o, out.data + 1, want);
        nd_buf_release(&out);
        nd_print_opts_release(&o);
    }
    /* --no-headers with custom-columns= */
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    o.no_headers = true;
    struct nd_status st = ND_STATUS_INIT;
    nd_print_parse_output("custom-columns=NAME:.metadata.name", &o, &st);
    struct nd_buf out = ND_BUF_INIT;
    assert_int_equal(nd_print_objects(two, false, &o, &out, &st), 0);
    assert_string_equal(out.data, "train-a\nb\n");
    nd_print_opts_release(&o);
    json_decref(one);
    json_decref(two);
    json_decref(none);
    nd_buf_release(&out);
}

static void test_objects_errors(void **state)
{
    (void)state;
    json_t *two = load(two_jobs);
    static const struct {
        const char *o;
        const char *reason, *message;
    } rows[] = {
        {"jsonpath={.items[5]}", "BadRequest",
         "error executing jsonpath \"{.items[5]}\": Error executing template: array index out "
         "of bounds: index 5, length 2"},
        {"custom-columns=A:.spec.tags[5]", "BadRequest",
         "array index out of bounds: index 5, length 0"},
        {"", "Usage", "this output format prints tables"},
        {"wide", "Usage", "this output format prints tables"},
        {"jsonpath-file=x", "Usage", "the jsonpath template was not loaded"},
        {"custom-columns-file=x", "Usage", "the custom-columns template was not loaded"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_print_opts o;
        nd_print_opts_init(&o);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_parse_output(rows[i].o, &o, &st), 0);
        struct nd_buf out = ND_BUF_INIT;
        nd_buf_adds(&out, "keep");
        assert_int_equal(nd_print_objects(two, false, &o, &out, &st), -1);
        assert_string_equal(out.data, "keep"); /* nothing appended on error */
        assert_string_equal(st.reason, rows[i].reason);
        assert_string_equal(st.message, rows[i].message);
        nd_buf_release(&out);
        nd_status_release(&st);
        nd_print_opts_release(&o);
    }
    /* not a list */
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    struct nd_status st = ND_STATUS_INIT;
    nd_print_parse_output("json", &o, &st);
    struct nd_buf out = ND_BUF_INIT;
    json_t *obj = json_object();
    assert_int_equal(nd_print_objects(obj, true, &o, &out, &st), -1);
    assert_string_equal(st.message, "nothing to print: not a list of objects");
    json_decref(obj);
    nd_print_opts_release(&o);
    nd_status_release(&st);
    nd_buf_release(&out);
    json_decref(two);
}

static void test_name(void **state)
{
    (void)state;
    static const struct {
        const char *obj, *op, *want;
    } rows[] = {
        {"{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"train-a\"}}",
         NULL, "job.nodus.dev/train-a\n"},
        {"{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"PoolAction\",\"metadata\":{\"name\":\"x\"}}",
         "created", "poolaction.nodus.dev/x created\n"},
        {"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}", "",
         "namespace/default\n"},
        {"{\"kind\":\"Job\",\"metadata\":{}}", NULL, "job/<unknown>\n"},
        {"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"nodus.dev/v1\","
         "\"kind\":\"Job\",\"metadata\":{\"name\":\"a\"}},{\"apiVersion\":\"v1\",\"kind\":"
         "\"Namespace\",\"metadata\":{\"name\":\"b\"}}]}",
         "deleted", "job.nodus.dev/a deleted\nnamespace/b deleted\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *obj = load(rows[i].obj);
        struct nd_buf out = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_name(obj, rows[i].op, &out, &st), 0);
        assert_string_equal(out.data, rows[i].want);
        nd_buf_release(&out);
        json_decref(obj);
    }
    static const struct {
        const char *obj, *message;
    } bad[] = {
        {"{\"metadata\":{\"name\":\"x\"}}", "missing apiVersion or kind"},
        {"{\"apiVersion\":\"nodus.dev/v1\",\"metadata\":{\"name\":\"x\"}}",
         "missing kind for resource with name x"},
        {"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":"
         "\"Namespace\",\"metadata\":{\"name\":\"b\"}},{}]}",
         "missing apiVersion or kind"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *obj = load(bad[i].obj);
        struct nd_buf out = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_name(obj, NULL, &out, &st), -1);
        assert_string_equal(st.reason, "BadRequest");
        assert_string_equal(st.message, bad[i].message);
        assert_string_equal(out.data, "");
        nd_buf_release(&out);
        nd_status_release(&st);
        json_decref(obj);
    }
}

static void test_list_new(void **state)
{
    (void)state;
    json_t *objs = load("[{\"a\":1}]");
    json_t *list = nd_print_list_new(objs);
    struct nd_buf out = ND_BUF_INIT;
    nd_json_dump(list, &out, ND_JSON_COMPACT);
    /* kubectl's key order; the items are the same objects */
    assert_string_equal(out.data, "{\"apiVersion\":\"v1\",\"items\":[{\"a\":1}],\"kind\":\"List\","
                                  "\"metadata\":{\"resourceVersion\":\"\"}}");
    assert_ptr_equal(json_array_get(json_object_get(list, "items"), 0), json_array_get(objs, 0));
    nd_buf_release(&out);
    json_decref(list);
    json_decref(objs);
}

/* Five objects as in kubectl's sorter tests run here: the orders of kubectl 1.32 for the
 * values all objects have; objects without the value first, in their order (kubectl's
 * order for them varies). */
static const char *sortable =
    "[{\"metadata\":{\"name\":\"a10\"},\"spec\":{\"q\":\"1Gi\",\"n\":3,\"s\":\"x10\",\"f\":1.5,"
    "\"t\":\"2024-01-02T00:00:00Z\",\"b\":true,\"mix\":\"1\",\"o\":{}}},"
    "{\"metadata\":{\"name\":\"a2\"},\"spec\":{\"q\":\"100Mi\",\"n\":10,\"s\":\"x9\",\"f\":0.5,"
    "\"t\":\"2023-12-31T00:00:00Z\",\"b\":false,\"mix\":2}},"
    "{\"metadata\":{\"name\":\"a02\"},\"spec\":{\"q\":\"2\",\"n\":-1,\"s\":\"x09\",\"f\":2.5,"
    "\"t\":\"2024-01-01T00:00:00Z\"}},"
    "{\"metadata\":{\"name\":\"A1\"},\"spec\":{\"q\":\"abc\",\"s\":\"X\",\"z\":1}},"
    "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"q\":\"500m\",\"n\":0,\"s\":\"\",\"z\":null}}]";

static void names(const json_t *arr, const char *member, struct nd_buf *out)
{
    size_t i;
    json_t *v;
    json_array_foreach((json_t *)arr, i, v)
    {
        const json_t *o = member ? json_object_get(v, member) : v;
        const char *name =
            json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
        nd_buf_addf(out, "%s%s", i ? " " : "", name ? name : "-");
    }
}

static void test_sort(void **state)
{
    (void)state;
    static const struct {
        const char *path, *want;
    } rows[] = {
        /* kubectl: byte order, not natural order */
        {".metadata.name", "A1 a02 a10 a2 b"},
        {"{.metadata.name}", "A1 a02 a10 a2 b"},
        {"metadata.name", "A1 a02 a10 a2 b"},
        {".spec.n", "A1 a02 b a10 a2"},
        {".spec.q", "b a02 a2 a10 A1"}, /* quantities by value, "abc" is no quantity */
        {".spec.s", "b A1 a02 a10 a2"},
        {".spec.t", "A1 b a2 a02 a10"},
        {".spec.f", "A1 b a2 a10 a02"},
        {".spec.z", "a10 a2 a02 b A1"}, /* missing, then null, then values */
        {".spec.b", NULL},
        {".spec.o", "a2 a02 A1 b a10"}, /* one map alone is never compared */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].want)
            continue;
        json_t *objs = load(sortable);
        struct nd_status st = ND_STATUS_INIT;
        if (nd_print_sort(objs, rows[i].path, &st) != 0)
            fail_msg("%s: %s", rows[i].path, st.message);
        struct nd_buf out = ND_BUF_INIT;
        names(objs, NULL, &out);
        if (strcmp(out.data, rows[i].want) != 0)
            fail_msg("%s: %s, want %s", rows[i].path, out.data, rows[i].want);
        nd_buf_release(&out);
        json_decref(objs);
    }
    static const struct {
        const char *path, *message;
    } bad[] = {
        {".spec.nope", "couldn't find any field with path \"{.spec.nope}\" in the list of objects"},
        {"{.x", ND_JSONPATH_RELAXED_ERROR},
        {".spec.q[", "unterminated array (at character 9)"},
        {".spec.b", "Field {.spec.b} is an unsortable type: boolean"},
        {".spec.mix", "Field {.spec.mix} is an unsortable type: string and integer"},
        {".spec", "Field {.spec} is an unsortable type: object"},
        {".metadata.name[0]", "string is not array or slice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *objs = load(sortable);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_sort(objs, bad[i].path, &st), -1);
        assert_string_equal(st.reason, "Invalid");
        if (strcmp(st.message, bad[i].message) != 0)
            fail_msg("%s: %s", bad[i].path, st.message);
        struct nd_buf out = ND_BUF_INIT;
        names(objs, NULL, &out);
        assert_string_equal(out.data, "a10 a2 a02 A1 b"); /* untouched */
        nd_buf_release(&out);
        nd_status_release(&st);
        json_decref(objs);
    }
    /* stable: equal values keep their order; nothing to sort is fine */
    json_t *objs =
        load("[{\"metadata\":{\"name\":\"c\"},\"p\":\"Running\"},{\"metadata\":{\"name\":"
             "\"a\"},\"p\":\"Queued\"},{\"metadata\":{\"name\":\"b\"},\"p\":\"Running\"},"
             "{\"metadata\":{\"name\":\"d\"},\"p\":\"Queued\"}]");
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_print_sort(objs, ".p", &st), 0);
    struct nd_buf out = ND_BUF_INIT;
    names(objs, NULL, &out);
    assert_string_equal(out.data, "a d c b");
    json_decref(objs);
    objs = json_array();
    assert_int_equal(nd_print_sort(objs, ".spec.x", &st), 0);
    assert_int_equal(nd_print_sort(objs, "{.x", &st), -1);
    json_decref(objs);
    assert_int_equal(nd_print_sort(NULL, ".x", &st), -1);
    assert_string_equal(st.message, "nothing to sort: not a list");
    nd_buf_release(&out);
    nd_status_release(&st);
}

static void test_sort_table(void **state)
{
    (void)state;
    json_t *table = load("{\"columnDefinitions\":[{\"name\":\"Name\"}],\"rows\":["
                         "{\"cells\":[\"b\"],\"object\":{\"metadata\":{\"name\":\"b\"},\"spec\":{"
                         "\"size\":\"1Ti\"}}},"
                         "{\"cells\":[\"a\"],\"object\":{\"metadata\":{\"name\":\"a\"},\"spec\":{"
                         "\"size\":\"100Gi\"}}},"
                         "{\"cells\":[\"c\"]}]}");
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_print_sort_table(table, ".spec.size", &st), 0);
    struct nd_buf out = ND_BUF_INIT;
    names(json_object_get(table, "rows"), "object", &out);
    assert_string_equal(out.data, "- a b");
    nd_buf_reset(&out);
    assert_int_equal(nd_print_sort_table(table, ".metadata.uid", &st), -1);
    assert_string_equal(st.message,
                        "couldn't find any field with path \"{.metadata.uid}\" in the list of "
                        "objects");
    json_t *empty = load("{\"columnDefinitions\":[]}");
    assert_int_equal(nd_print_sort_table(empty, ".spec.size", &st), 0);
    assert_int_equal(nd_print_sort_table(empty, "{.x", &st), -1);
    json_decref(empty);
    json_decref(table);
    nd_buf_release(&out);
    nd_status_release(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_output), cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_objects),      cmocka_unit_test(test_objects_errors),
        cmocka_unit_test(test_name),         cmocka_unit_test(test_list_new),
        cmocka_unit_test(test_sort),         cmocka_unit_test(test_sort_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
