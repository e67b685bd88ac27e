/* Unit tests of pkg/print's tables: alignment, escaping, server Table answers, the
 * registry's columns, colours. Expected texts marked "kubectl" were printed by kubectl
 * 1.32 (`kubectl get` against a server answering the same Table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "print/print.h"

/* A Table answer with every kind of cell: a wide column, a name column, a PHASE column,
 * an ESC in a cell and a namespace, newlines, CR and FF, null, numbers, a map, a list,
 * labels (one with a newline), non-ASCII names. */
static const char *table1 =
    "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/"
    "v1\",\"metadata\":{\"resourceVersion\":\"42\"},"
    "\"columnDefinitions\":[{\"name\":\"Name\",\"type\":\"string\",\"format\":\"name\","
    "\"priority\":0},"
    "{\"name\":\"A\",\"type\":\"string\",\"format\":\"\",\"priority\":0},{\"name\":\"Wide "
    "Col\",\"type\":"
    "\"string\",\"format\":\"\",\"priority\":1},{\"name\":\"Phase\",\"type\":\"string\",\"format\":"
    "\"\","
    "\"priority\":0},{\"name\":\"n\",\"type\":\"integer\",\"format\":\"\",\"priority\":0}],"
    "\"rows\":[{"
    "\"cells\":[\"train-a\",\"x\",\"w1\",\"Running\",1],\"object\":{\"apiVersion\":\"meta.k8s.io/"
    "v1\","
    "\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\"train-a\",\"namespace\":"
    "\"default\","
    "\"labels\":{\"team\":\"ml\",\"app\":\"x\",\"b\":\"2\"}}}},{\"cells\":[\"b\",\"\",\"wide-cell-"
    "long\","
    "\"Q\\u001b[31mx\",null],\"object\":{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":"
    "\"PartialObjectMetadata\",\"metadata\":{\"name\":\"b\",\"namespace\":\"other\"}}},{\"cells\":["
    "\"h\\u00e9llo-w\\u00f6rld\",\"multi\\nline\",1.5,true,{\"a\":1,\"b\":[1,\"x\"]}],\"object\":{"
    "\"apiVersion\":\"meta.k8s.io/"
    "v1\",\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\"c\","
    "\"namespace\":\"default\",\"labels\":{\"app.kubernetes.io/name\":\"zz\"}}}},{\"cells\":[\"d\","
    "\"cr\\rx\\fy\",-2.5e-07,false,[1.0,\"a\\u001bb\",null]],\"object\":{\"apiVersion\":"
    "\"meta.k8s.io/"
    "v1\",\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\"d\",\"namespace\":"
    "\"ns-\\u001bx\",\"labels\":{\"k\":\"v\\nw\"}}}}]}";

/* A short first column (the minimum width of 6), the name column second, empty cells. */
static const char *table2 =
    "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":["
    "{\"name\":\"N\",\"type\":\"string\",\"format\":\"\",\"priority\":0},{\"name\":\"Name\","
    "\"type\":"
    "\"string\",\"format\":\"name\",\"priority\":0},{\"name\":\"X\",\"type\":\"string\",\"format\":"
    "\"\","
    "\"priority\":0}],\"rows\":[{\"cells\":[\"1\",\"a\",\"\"],\"object\":{\"metadata\":{\"name\":"
    "\"a\","
    "\"namespace\":\"default\"}}},{\"cells\":[\"\",\"bb\",\"x\"],\"object\":{\"metadata\":{"
    "\"name\":"
    "\"bb\",\"namespace\":\"default\"}}}]}";

static json_t *load(const char *text)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_json_load(text, strlen(text), "test", &st);
    if (!v)
        fail_msg("bad test JSON: %s", st.message);
    nd_status_release(&st);
    return v;
}

static void test_width(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t w;
    } rows[] = {
        {"", 0},
        {"abc", 3},
        {"h\xc3\xa9llo", 5},
        {"\xe6\x97\xa5\xe6\x9c\xac", 2}, /* two CJK characters */
        {"\x1b[32mRunning\x1b[0m", 7},   /* colour escapes count as nothing */
        {"\x1b[1;38;5;208mX\x1b[0m", 1},
        {"\x1b", 1},         /* a lone ESC is a character */
        {"\xff", 1},         /* invalid bytes count one each */
        {"\xe2\x82", 2},     /* a cut sequence: two bytes */
        {"\xed\xa0\x80", 3}, /* a surrogate is not valid UTF-8 */
        {"\xf0\x9f\x98\x80!", 2},
        {"^[", 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(nd_print_width(rows[i].s), rows[i].w);
}

static void test_cell_escape(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"plain", "plain"},          {"", ""},
        {"multi\nline", "multi..."}, {"cr\rx", "cr..."},
        {"ff\fx", "ff..."},          {"\nfirst", "..."},
        {"a\x1b[31mb", "a^[[31mb"},  {"tab\tkept", "tab\tkept"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf b = ND_BUF_INIT;
        nd_print_cell_escape(rows[i].in, &b);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
}

static void fill(struct nd_table *t, const char *const *headers, size_t ncols,
                 const char *const *cells, size_t nrows)
{
    for (size_t j = 0; j < ncols; j++)
        nd_table_add_column(t, headers[j]);
    for (size_t i = 0; i < nrows; i++) {
        size_t r = nd_table_add_row(t);
        for (size_t j = 0; j < ncols; j++)
            nd_table_set(t, r, j, cells[i * ncols + j]);
    }
}

static void test_render(void **state)
{
    (void)state;
    static const char *const h[] = {"NAME", "PHASE", "AGE"};
    static const char *const c[] = {
        "train-a", "Running", "5m", /**/ "b", "", "", /**/ "x\xc3\xa9", "\x1b[31mFailed\x1b[0m",
        "2d3h",
    };
    struct nd_table t;
    nd_table_init(&t);
    fill(&t, h, 3, c, 3);
    struct nd_buf out = ND_BUF_INIT;
    assert_int_equal(nd_table_render(&t, &out), 0);
    /* padding 3, the last column unpadded, an empty last cell leaves the padding */
    assert_string_equal(out.data, "NAME      PHASE     AGE\n"
                                  "train-a   Running   5m\n"
                                  "b                   \n"
                                  "x\xc3\xa9        \x1b[31mFailed\x1b[0m    2d3h\n");
    assert_string_equal(nd_table_get(&t, 0, 1), "Running");
    assert_null(nd_table_get(&t, 3, 0));
    assert_null(nd_table_get(&t, 0, 3));

    /* get -w: the header once, widths remembered while new rows are narrower */
    nd_table_clear_rows(&t);
    t.no_headers = true;
    size_t r = nd_table_add_row(&t);
    nd_table_set(&t, r, 0, "z");
    nd_table_set(&t, r, 1, "Queued");
    nd_table_set(&t, r, 2, "1s");
    nd_buf_reset(&out);
    assert_int_equal(nd_table_render(&t, &out), 0);
    assert_string_equal(out.data, "z         Queued    1s\n");
    /* ...and grow when wider */
    nd_table_set(&t, r, 0, "a-much-longer-name");
    nd_buf_reset(&out);
    nd_table_render(&t, &out);
    assert_string_equal(out.data, "a-much-longer-name   Queued    1s\n");
    nd_table_release(&t);
    nd_buf_release(&out);
}

static void test_render_edges(void **state)
{
    (void)state;
    struct nd_table t;
    struct nd_buf out = ND_BUF_INIT;
    static const char *const h[] = {"A", "B"};
    static const char *const c[] = {"1", "2"};

    /* no rows: nothing (kubectl prints no header for an empty table) */
    nd_table_init(&t);
    fill(&t, h, 2, NULL, 0);
    assert_int_equal(nd_table_render(&t, &out), 0);
    assert_string_equal(out.data, "");
    /* ...unless asked (custom-columns) */
    t.header_if_empty = true;
    nd_table_render(&t, &out);
    assert_string_equal(out.data, "A     B\n");
    nd_table_release(&t);

    /* the minimum width is 6 */
    nd_buf_reset(&out);
    nd_table_init(&t);
    fill(&t, h, 2, c, 1);
    nd_table_render(&t, &out);
    assert_string_equal(out.data, "A     B\n1     2\n");
    nd_table_release(&t);

    /* one column: never padded */
    nd_buf_reset(&out);
    nd_table_init(&t);
    fill(&t, h, 1, c, 1);
    t.no_headers = true;
    nd_table_render(&t, &out);
    assert_string_equal(out.data, "1\n");
    nd_table_release(&t);

    /* a capped buffer: -1 and nothing appended */
    struct nd_buf small;
    nd_buf_init(&small, 8);
    nd_buf_adds(&small, "x");
    nd_table_init(&t);
    fill(&t, h, 2, c, 1);
    assert_int_equal(nd_table_render(&t, &small), -1);
    assert_string_equal(small.data, "x");
    nd_table_release(&t);
    nd_buf_release(&small);
    nd_buf_release(&out);
}

struct server_case {
    const char *const *table;
    enum nd_output output;
    bool all_projects, show_labels, show_kind, no_headers, color;
    const char *const *labels;
    const char *want;
};

static const char *const L_APP_K[] = {"app", "k", NULL};
static const char *const L_NAME[] = {"app.kubernetes.io/name", NULL};

static const struct server_case server_cases[] = {
    /* kubectl get jobs */
    {&table1, ND_OUTPUT_TABLE, false, false, false, false, false, NULL,
     "NAME          A          PHASE      N\n"
     "train-a       x          Running    1\n"
     "b                        Q^[[31mx   \n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]\n"
     "d             cr...      false      [1 a^[b <nil>]\n"},
    /* kubectl get jobs -o wide */
    {&table1, ND_OUTPUT_WIDE, false, false, false, false, false, NULL,
     "NAME          A          WIDE COL         PHASE      N\n"
     "train-a       x          w1               Running    1\n"
     "b                        wide-cell-long   Q^[[31mx   \n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   1.5              true       map[a:1 b:[1 x]]\n"
     "d             cr...      -2.5e-07         false      [1 a^[b <nil>]\n"},
    /* kubectl get jobs --no-headers */
    {&table1, ND_OUTPUT_TABLE, false, false, false, true, false, NULL,
     "train-a       x          Running    1\n"
     "b                        Q^[[31mx   \n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]\n"
     "d             cr...      false      [1 a^[b <nil>]\n"},
    /* kubectl get jobs -A */
    {&table1, ND_OUTPUT_TABLE, true, false, false, false, false, NULL,
     "NAMESPACE   NAME          A          PHASE      N\n"
     "default     train-a       x          Running    1\n"
     "other       b                        Q^[[31mx   \n"
     "default     h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]\n"
     "ns-^[x      d             cr...      false      [1 a^[b <nil>]\n"},
    /* kubectl get jobs --show-labels */
    {&table1, ND_OUTPUT_TABLE, false, true, false, false, false, NULL,
     "NAME          A          PHASE      N                  LABELS\n"
     "train-a       x          Running    1                  app=x,b=2,team=ml\n"
     "b                        Q^[[31mx                      <none>\n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]   "
     "app.kubernetes.io/name=zz\n"
     "d             cr...      false      [1 a^[b <nil>]     k=v...\n"},
    /* kubectl get jobs -L app -L k */
    {&table1, ND_OUTPUT_TABLE, false, false, false, false, false, L_APP_K,
     "NAME          A          PHASE      N                  APP   K\n"
     "train-a       x          Running    1                  x     \n"
     "b                        Q^[[31mx                            \n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]         \n"
     "d             cr...      false      [1 a^[b <nil>]           v...\n"},
    /* kubectl get jobs -A --show-labels -L app.kubernetes.io/name --show-kind -o wide */
    {&table1, ND_OUTPUT_WIDE, true, true, true, false, false, L_NAME,
     "NAMESPACE   NAME                        A          WIDE COL         PHASE      N         "
     "         NAME   LABELS\n"
     "default     job.nodus.dev/train-a       x          w1               Running    1         "
     "                app=x,b=2,team=ml\n"
     "other       job.nodus.dev/b                        wide-cell-long   Q^[[31mx             "
     "                <none>\n"
     "default     job.nodus.dev/h\xc3\xa9llo-w\xc3\xb6rld   multi...   1.5              true     "
     "  map[a:1 b:[1 x]]   zz     app.kubernetes.io/name=zz\n"
     "ns-^[x      job.nodus.dev/d             cr...      -2.5e-07         false      [1 a^[b "
     "<nil>]            k=v...\n"},
    /* kubectl get jobs (minimum width 6) */
    {&table2, ND_OUTPUT_TABLE, false, false, false, false, false, NULL,
     "N     NAME   X\n"
     "1     a      \n"
     "      bb     x\n"},
    /* kubectl get jobs --show-kind --no-headers: the "name" column, wherever it is */
    {&table2, ND_OUTPUT_TABLE, false, false, true, true, false, NULL,
     "1     job.nodus.dev/a    \n"
     "      job.nodus.dev/bb   x\n"},
    /* colours: only known phases, alignment kept */
    {&table1, ND_OUTPUT_TABLE, false, false, false, false, true, NULL,
     "NAME          A          PHASE      N\n"
     "train-a       x          \x1b[32mRunning\x1b[0m    1\n"
     "b                        Q^[[31mx   \n"
     "h\xc3\xa9llo-w\xc3\xb6rld   multi...   true       map[a:1 b:[1 x]]\n"
     "d             cr...      false      [1 a^[b <nil>]\n"},
};

static void test_from_server(void **state)
{
    (void)state;
    const struct nd_kind *job = nd_kind_lookup("jobs");
    assert_non_null(job);
    for (size_t i = 0; i < sizeof server_cases / sizeof server_cases[0]; i++) {
        const struct server_case *c = &server_cases[i];
        struct nd_print_opts o;
        nd_print_opts_init(&o);
        o.output = c->output;
        o.all_projects = c->all_projects;
        o.show_labels = c->show_labels;
        o.show_kind = c->show_kind;
        o.color = c->color;
        o.label_columns = c->labels;
        json_t *answer = load(*c->table);
        struct nd_table t;
        nd_table_init(&t);
        t.no_headers = c->no_headers;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_buf out = ND_BUF_INIT;
        assert_int_equal(nd_print_table_from_server(&t, answer, job, &o, &st), 0);
        assert_int_equal(nd_table_render(&t, &out), 0);
        if (strcmp(out.data, c->want) != 0)
            fail_msg("case %zu:\n%s\nwant:\n%s", i, out.data, c->want);
        nd_buf_release(&out);
        nd_table_release(&t);
        json_decref(answer);
        nd_print_opts_release(&o);
    }
}

static void test_from_server_watch(void **state)
{
    (void)state;
    /* a watch: the first answer prints a header; an event's one-row Table adds a row to
     * the same table, keeping the widths */
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    struct nd_status st = ND_STATUS_INIT;
    struct nd_table t;
    nd_table_init(&t);
    json_t *first = load(table2);
    assert_int_equal(nd_print_table_from_server(&t, first, NULL, &o, &st), 0);
    struct nd_buf out = ND_BUF_INIT;
    nd_table_render(&t, &out);
    nd_table_clear_rows(&t);
    t.no_headers = true;
    json_t *event = load("{\"columnDefinitions\":[{\"name\":\"N\"},{\"name\":\"Name\"},"
                         "{\"name\":\"X\"}],\"rows\":[{\"cells\":[\"2\",\"c\",\"y\"]}]}");
    assert_int_equal(nd_print_table_from_server(&t, event, NULL, &o, &st), 0);
    nd_table_render(&t, &out);
    assert_string_equal(out.data,
                        "N     NAME   X\n1     a      \n      bb     x\n2     c      y\n");
    /* a Table of another shape cannot join it */
    json_t *other = load("{\"columnDefinitions\":[{\"name\":\"N\"}],\"rows\":[]}");
    assert_int_equal(nd_print_table_from_server(&t, other, NULL, &o, &st), -1);
    assert_string_equal(st.reason, "BadRequest");
    assert_string_equal(st.message, "malformed Table answer: 1 columns where the table printed "
                                    "so far has 3");
    json_decref(first);
    json_decref(event);
    json_decref(other);
    nd_table_release(&t);
    nd_buf_release(&out);
    nd_status_release(&st);
}

static void test_from_server_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *answer, *message;
    } rows[] = {
        {"[]", "malformed Table answer: columnDefinitions is not a list"},
        {"{\"rows\":[]}", "malformed Table answer: columnDefinitions is not a list"},
        {"{\"columnDefinitions\":[],\"rows\":{}}", "malformed Table answer: rows is not a list"},
        {"{\"columnDefinitions\":[{\"type\":\"string\"}]}",
         "malformed Table answer: columnDefinitions[0].name is not a string"},
        {"{\"columnDefinitions\":[{\"name\":\"A\"},{\"name\":\"B\",\"priority\":1}],"
         "\"rows\":[{\"cells\":[\"a\",\"b\"]},{\"cells\":[\"a\"]}]}",
         "malformed Table answer: rows[1].cells must be a list of 2 cells, one per "
         "columnDefinition"},
        {"{\"columnDefinitions\":[{\"name\":\"A\"}],\"rows\":[{}]}",
         "malformed Table answer: rows[0].cells must be a list of 1 cells, one per "
         "columnDefinition"},
    };
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *answer = load(rows[i].answer);
        struct nd_table t;
        nd_table_init(&t);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_print_table_from_server(&t, answer, NULL, &o, &st), -1);
        assert_string_equal(st.reason, "BadRequest");
        assert_string_equal(st.message, rows[i].message);
        assert_int_equal(t.nrows, 0);
        nd_status_release(&st);
        nd_table_release(&t);
        json_decref(answer);
    }
    /* no rows at all is an empty table, not an error */
    json_t *answer = load("{\"columnDefinitions\":[{\"name\":\"A\"}],\"rows\":null}");
    struct nd_table t;
    nd_table_init(&t);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_print_table_from_server(&t, answer, NULL, &o, &st), 0);
    assert_int_equal(t.nrows, 0);
    assert_int_equal(t.ncols, 1);
    nd_table_release(&t);
    json_decref(answer);
}

static const char *jobs =
    "[{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"train-a\","
    "\"namespace\":\"ml\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"labels\":{\"team\":"
    "\"ml\"}},\"spec\":{\"state\":\"Running\",\"image\":\"pytorch:2\",\"maxCostUSD\":\"40\","
    "\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":8}}},\"status\":{\"phase\":\"Running\","
    "\"costUSD\":\"12.4\",\"rateUSDPerHour\":\"19.92\",\"placement\":{\"target\":\"market\"}}},"
    "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"eval\","
    "\"namespace\":\"default\",\"creationTimestamp\":\"2025-12-29T21:00:00Z\"},\"spec\":{"
    "\"state\":\"Running\",\"image\":\"eval:1\"},\"status\":{\"phase\":\"Queued\"}}]";

/* Job with its columns of the day this test was written: the test is of the printer
 * (layout, wide columns, NAMESPACE, LABELS, kind prefix, colour), not of the registry's
 * columns (pkg/kinds/kinds.c holds those; test_registry checks their shape), so a column
 * added to Job there changes nothing here. */
static const struct nd_column job_columns[] = {
    {"NAME", "string", "name", ".metadata.name", 0, ND_RENDER_RAW, "name"},
    {"STATE", "string", "", ".spec.state", 0, ND_RENDER_RAW, "state"},
    {"PHASE", "string", "", ".status.phase", 0, ND_RENDER_RAW, "phase"},
    {"GPU", "string", "", ".spec.resources.gpu", 0, ND_RENDER_GPU, "gpu"},
    {"COST", "string", "", ".status.costUSD", 0, ND_RENDER_MONEY, "cost"},
    {"AGE", "date", "", ".metadata.creationTimestamp", 0, ND_RENDER_AGE, "age"},
    {"PLACEMENT", "string", "", ".status.placement.target", 1, ND_RENDER_RAW, "placement"},
    {"RATE", "string", "", ".status.rateUSDPerHour", 1, ND_RENDER_RATE, "rate"},
    {"MAX-COST", "string", "", ".spec.maxCostUSD", 1, ND_RENDER_MONEY, "max cost"},
    {"IMAGE", "string", "", ".spec.image", 1, ND_RENDER_RAW, "image"},
    {NULL},
};

static void test_from_objects(void **state)
{
    (void)state;
    struct nd_kind job_fixed = *nd_kind_lookup("job");
    job_fixed.columns = job_columns;
    const struct nd_kind *job = &job_fixed;
    json_t *objs = load(jobs);
    int64_t now = 1767225900; /* 2026-01-01T00:05:00Z */
    static const struct {
        enum nd_output output;
        bool all_projects, show_labels, show_kind, color;
        const char *want;
    } rows[] = {
        {ND_OUTPUT_TABLE, false, false, false, false,
         "NAME      STATE     PHASE     GPU      COST     AGE\n"
         "train-a   Running   Running   8xH100   $12.40   5m\n"
         "eval      Running   Queued    -        -        2d3h\n"},
        {ND_OUTPUT_WIDE, true, true, true, false,
         "NAMESPACE   NAME                    STATE     PHASE     GPU      COST     AGE    "
         "PLACEMENT   RATE       MAX-COST   IMAGE       LABELS\n"
         "ml          job.nodus.dev/train-a   Running   Running   8xH100   $12.40   5m     "
         "market      $19.92/h   $40.00     pytorch:2   team=ml\n"
         "default     job.nodus.dev/eval      Running   Queued    -        -        2d3h   "
         "<none>      -          -          eval:1      <none>\n"},
        {ND_OUTPUT_TABLE, false, false, false, true,
         "NAME      STATE     PHASE     GPU      COST     AGE\n"
         "train-a   Running   \x1b[32mRunning\x1b[0m   8xH100   $12.40   5m\n"
         "eval      Running   \x1b[33mQueued\x1b[0m    -        -        2d3h\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_print_opts o;
        nd_print_opts_init(&o);
        o.output = rows[i].output;
        o.all_projects = rows[i].all_projects;
        o.show_labels = rows[i].show_labels;
        o.show_kind = rows[i].show_kind;
        o.color = rows[i].color;
        struct nd_table t;
        nd_table_init(&t);
        struct nd_status st = ND_STATUS_INIT;
        struct nd_buf out = ND_BUF_INIT;
        assert_int_equal(nd_print_table_from_objects(&t, objs, job, now, &o, &st), 0);
        nd_table_render(&t, &out);
        if (strcmp(out.data, rows[i].want) != 0)
            fail_msg("case %zu:\n%s\nwant:\n%s", i, out.data, rows[i].want);
        nd_buf_release(&out);
        nd_table_release(&t);
    }
    /* a core kind's name prefix has no group */
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    o.show_kind = true;
    json_t *ns = load("[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":"
                      "\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
                      "\"status\":{\"phase\":\"Active\"}}]");
    struct nd_table t;
    nd_table_init(&t);
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    assert_int_equal(nd_print_table_from_objects(&t, ns, nd_kind_lookup("ns"), now, &o, &st), 0);
    nd_table_render(&t, &out);
    assert_string_equal(out.data, "NAME                STATUS   AGE\n"
                                  "namespace/default   Active   5m\n");
    /* no kind, or not a list */
    assert_int_equal(nd_print_table_from_objects(&t, ns, NULL, now, &o, &st), -1);
    assert_string_equal(st.message, "a table needs a kind and a list of objects");
    nd_table_release(&t);
    nd_buf_release(&out);
    nd_status_release(&st);
    json_decref(ns);
    json_decref(objs);
}

static void test_empty_message(void **state)
{
    (void)state;
    static const struct {
        const char *ns;
        bool all;
        const char *want;
    } rows[] = {
        {"default", false, "No resources found in default namespace.\n"},
        {"ml-team", false, "No resources found in ml-team namespace.\n"},
        {"default", true, "No resources found\n"},
        {NULL, false, "No resources found\n"},
        {"", false, "No resources found\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_buf b = ND_BUF_INIT;
        nd_print_empty_message(rows[i].ns, rows[i].all, &b);
        assert_string_equal(b.data, rows[i].want);
        nd_buf_release(&b);
    }
}

static void test_phase_colors(void **state)
{
    (void)state;
    static const struct {
        const char *phase, *color;
    } rows[] = {
        {"Running", ND_COLOR_GREEN},
        {"Succeeded", ND_COLOR_GREEN},
        {"Queued", ND_COLOR_YELLOW},
        {"Pending", ND_COLOR_YELLOW},
        {"Provisioning", ND_COLOR_YELLOW},
        {"Starting", ND_COLOR_YELLOW},
        {"Failed", ND_COLOR_RED},
        {"Stopped", ND_COLOR_GREY},
        {"Cancelled", ND_COLOR_GREY},
        {"Cancelling", ND_COLOR_GREY},
        {"Terminating", ND_COLOR_GREY},
        {"running", NULL},
        {"Active", NULL},
        {"", NULL},
        {NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *c = nd_print_phase_color(rows[i].phase);
        if (rows[i].color)
            assert_string_equal(c, rows[i].color);
        else
            assert_null(c);
    }
    struct nd_buf b = ND_BUF_INIT;
    nd_print_add_colored(&b, "Failed", ND_COLOR_RED);
    nd_print_add_colored(&b, " plain", NULL);
    assert_string_equal(b.data, "\x1b[31mFailed\x1b[0m plain");
    nd_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_cell_escape),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_edges),
        cmocka_unit_test(test_from_server),
        cmocka_unit_test(test_from_server_watch),
        cmocka_unit_test(test_from_server_malformed),
        cmocka_unit_test(test_from_objects),
        cmocka_unit_test(test_empty_message),
        cmocka_unit_test(test_phase_colors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
