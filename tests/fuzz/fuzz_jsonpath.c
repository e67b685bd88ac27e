/* fuzz_jsonpath: kubectl's JSONPath templates (pkg/jsonpath): parse, then execute and
 * evaluate against an object.
 * Input: one flag byte (bit 0: allow missing keys), the template, and optionally
 * "|||" and a JSON document to run it on (else a fixed Job-like list). The template is
 * also put through nd_jsonpath_relaxed (custom-columns) and the result parsed.
 *
 * A template with more than FZ_MAX_FANOUT `range` and `..` together is parsed but not
 * run: each multiplies the values the next one walks, so nested ones take time
 * exponential in their number, in kubectl (client-go) as here. Templates come from the
 * CLI's own user (-o jsonpath, custom-columns, wait --for), never from a server, so
 * that is by design (found by this target: tests/fuzz/regress/jsonpath/). */
#include <stdio.h>

#include "fuzz.h"
#include "json/json.h"
#include "jsonpath/jsonpath.h"

#define FZ_MAX_FANOUT 3

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static json_t *fixed;

static void setup(void)
{
    if (fixed)
        return;
    fz_init();
    static const char doc[] =
        "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":["
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\","
        "\"labels\":{\"app\":\"web\",\"a.b/c\":\"x\"},\"annotations\":{}},"
        "\"spec\":{\"command\":[\"sh\",\"-c\",\"echo hi\"],\"replicas\":3,\"cpu\":1.5,"
        "\"enabled\":true,\"nothing\":null},"
        "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},"
        "{\"type\":\"Done\",\"status\":\"False\",\"n\":-2}]}},"
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"b\"},\"spec\":{\"replicas\":1e21},"
        "\"status\":{\"phase\":\"Failed\",\"conditions\":[]}},"
        "[1,2,[3,[4]]],\"s\",0,{\"\":{\"..\":\"dots\"}}]}";
    struct nd_status st = ND_STATUS_INIT;
    fixed = nd_json_load(doc, sizeof doc - 1, NULL, &st);
    FZ_ASSERT(fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size < 1)
        return 0;
    bool missing = data[0] & 1;
    const uint8_t *t, *d;
    size_t t_len, d_len;
    fz_split(data + 1, size - 1, "|||", &t, &t_len, &d, &d_len);
    char *tmpl = fz_str(t, t_len);
    struct nd_status st = ND_STATUS_INIT;
    json_t *doc = d_len ? nd_json_load((const char *)d, d_len, NULL, &st) : NULL;
    nd_status_release(&st);
    const json_t *on = doc ? doc : fixed;

    struct nd_jsonpath *jp = nd_jsonpath_parse(tmpl, &st);
    bool run = count(tmpl, "range") + count(tmpl, "..") <= FZ_MAX_FANOUT;
    if (jp && run) {
        struct nd_buf out = ND_BUF_INIT;
        int rc = nd_jsonpath_execute(jp, on, missing, &out, &st);
        FZ_ASSERT(rc == 0 || st.message);
        FZ_ASSERT(rc == 0 || out.len == 0); /* nothing appended on error */
        nd_status_release(&st);
        nd_buf_release(&out);
        json_t *res = nd_jsonpath_eval(jp, on, missing, &st);
        FZ_ASSERT(res || st.message);
        json_decref(res);
    } else if (!jp) {
        FZ_ASSERT(st.message);
    }
    nd_jsonpath_free(jp);
    nd_status_release(&st);

    char *relaxed = run ? nd_jsonpath_relaxed(tmpl) : NULL;
    if (relaxed) {
        struct nd_jsonpath *jr = nd_jsonpath_parse(relaxed, &st);
        if (jr) {
            struct nd_buf out = ND_BUF_INIT;
            nd_jsonpath_execute(jr, on, true, &out, &st);
            nd_buf_release(&out);
        }
        nd_jsonpath_free(jr);
        nd_status_release(&st);
        free(relaxed);
    }
    json_decref(doc);
    free(tmpl);
    return 0;
}
