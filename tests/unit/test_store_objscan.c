/* Unit tests of the start's one-pass read of an object file (emulator/store/objscan.h):
 * what it accepts gives the compact bytes and the record jansson's path gives (load.c),
 * byte for byte, over many varied objects the store could have written (every one
 * accepted), hand-written texts (accepted or refused as the dump would or would not write
 * them) and those objects' texts mutated at random (never a different result); and the
 * loader serves the same items with the scan as without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objscan_same.h"
#include "checkpoint.h"
#include "pretty.h"
#include "store_tmpdir.h"
#define TEST_RNG_SEED 88172645463325252ull /* (test_rng.h) */
#include "test_rng.h"
#include "util/xmalloc.h"

/* ---- varied objects ---- */

/* A string of the kinds the store holds: plain, with every escape the dump writes, UTF-8
 * of 2, 3 and 4 bytes, DEL, and the characters that look like escapes. */
static json_t *any_string(void)
{
    static const char *const bits[] = {
        "a", "job", "Z9", "-", ".", "/", "nodus.dev/x", " ", "\"", "\\", "\b", "\f", "\n",
        "\r", "\t", "\x01", "\x1f", "\x7f", "é", "€", "😀", "\\u0041", "{", "}", "[", ":",
        ",", "2026-01-01T00:00:00Z", "true", "0"};
    char buf[256];
    size_t n = 0;
    for (uint32_t i = rnd(6); i > 0; i--) {
        const char *b = bits[rnd(sizeof bits / sizeof *bits)];
        size_t bl = strlen(b);
        if (n + bl >= sizeof buf)
            break;
        memcpy(buf + n, b, bl);
        n += bl;
    }
    return json_stringn(buf, n);
}

static json_t *any_value(int depth);

static json_t *any_object(int depth, int keys)
{
    static const char *const names[] = {"a", "b", "name", "kind", "status", "phase", "spec",
                                        "state", "placement", "pool", "type", "x\ty", "é"};
    json_t *o = json_object();
    for (int i = 0; i < keys; i++) {
        char k[32];
        snprintf(k, sizeof k, "%s%s", names[rnd(sizeof names / sizeof *names)],
                 rnd(3) ? "" : "2");
        json_object_set_new(o, k, any_value(depth + 1));
    }
    return o;
}

static json_t *any_value(int depth)
{
    static const double reals[] = {0.5, 1.25, -3.0, 1e20, 1e-7, 0.1, 123456789.125, 1e300};
    switch (rnd(depth > 4 ? 7 : 9)) {
    case 0:
        return json_integer((json_int_t)rnd(2000) - 1000);
    case 1:
        return json_integer(rnd(2) ? INT64_MAX / 7 : -(json_int_t)rnd(1u << 31) * 1000003);
    case 2:
        return json_real(reals[rnd(sizeof reals / sizeof *reals)]);
    case 3:
        return rnd(2) ? json_true() : json_false();
    case 4:
        return json_null();
    case 5:
    case 6:
        return any_string();
    case 7:
        return any_object(depth, (int)rnd(4));
    default: {
        json_t *a = json_array();
        for (uint32_t i = rnd(4); i > 0; i--)
            json_array_append_new(a, any_value(depth + 1));
        return a;
    }
    }
}

/* An object shaped as those the store holds, its record's fields present or not and of
 * every type now and then. */
static json_t *any_stored(void)
{
    json_t *o = json_object();
    json_object_set_new(o, "apiVersion", json_string("nodus.dev/v1"));
    json_object_set_new(o, "kind", rnd(8) ? json_string("Job") : any_value(3));
    json_t *m = json_object();
    json_object_set_new(m, "name", json_string("obj"));
    if (rnd(4))
        json_object_set_new(m, "namespace", json_string("p"));
    static const char *const meta[] = {"uid", "resourceVersion", "generation",
                                       "creationTimestamp", "deletionTimestamp", "annotations",
                                       "labels", "finalizers", "ownerReferences"};
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        if (rnd(3) == 0)
            continue;
        json_t *v = !strcmp(meta[i], "labels") || !strcmp(meta[i], "annotations")
                        ? any_object(2, (int)rnd(5))
                        : rnd(4) ? any_string() : any_value(2);
        json_object_set_new(m, meta[i], v);
    }
    json_object_set_new(o, "metadata", m);
    if (rnd(5))
        json_object_set_new(o, "spec", rnd(6) ? any_object(1, (int)rnd(6)) : any_value(1));
    if (rnd(4)) {
        json_t *s = rnd(8) ? json_object() : any_value(1);
        if (json_is_object(s)) {
            if (rnd(2))
                json_object_set_new(s, "phase", rnd(2) ? json_string("Succeeded") : any_string());
            /* what the record of an ended Job holds too (em_rec_ended) */
            static const char *const ended[] = {"observedGeneration", "startTime",
                                                "completionTime"};
            for (size_t i = 0; i < sizeof ended / sizeof *ended; i++)
                if (rnd(2))
                    json_object_set_new(s, ended[i], rnd(4) ? any_string() : any_value(2));
            if (rnd(2))
                json_object_set_new(s, "billing", rnd(4) ? json_pack("{sb}", "settled", rnd(2))
                                                         : any_value(2));
            if (rnd(2))
                json_object_set_new(s, "simulation",
                                    rnd(4) ? json_pack("{ss}", "phaseTime", "2026-01-01T00:00:00Z")
                                           : any_value(2));
            if (rnd(2))
                json_object_set_new(s, "costUSD", rnd(2) ? json_string("1.50") : any_value(2));
            if (rnd(2)) {
                json_t *c = json_array();
                for (uint32_t i = rnd(4); i > 0; i--) {
                    static const char *const types[] = {"Complete", "Failed", "Ready"};
                    json_t *cond = rnd(6) ? json_object() : any_value(3);
                    if (json_is_object(cond)) {
                        json_object_set_new(cond, "type", json_string(types[rnd(3)]));
                        json_object_set_new(cond, "status", json_string("True"));
                    }
                    json_array_append_new(c, cond);
                }
                json_object_set_new(s, "conditions", c);
            }
            if (rnd(3) == 0)
                json_object_set_new(s, "extra", any_value(2));
        }
        json_object_set_new(o, "status", s);
    }
    return o;
}

/* The plans of every served kind and of none. */
struct plans {
    size_t n;
    const struct nd_kind *k[64];
    struct em_scan_plan *p[64];
};

static void plans_make(struct plans *ps)
{
    ps->n = 0;
    ps->k[ps->n] = NULL;
    ps->p[ps->n++] = em_scan_plan_new(NULL);
    for (size_t i = 0; i < nd_kind_served_count() && ps->n < 64; i++) {
        ps->k[ps->n] = nd_kind_served(i);
        ps->p[ps->n] = em_scan_plan_new(ps->k[ps->n]);
        ps->n++;
    }
}

static void plans_free(struct plans *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        em_scan_plan_free(ps->p[i]);
}

/* ---- the tests ---- */

/* Every text the store could have written is accepted, with jansson's bytes and record,
 * for every kind's plan: as pretty.c writes it and as jansson's own indent does. */
static void test_store_written_texts_are_accepted_and_the_same(void **state)
{
    (void)state;
    struct plans ps;
    plans_make(&ps);
    for (int i = 0; i < 3000; i++) {
        json_t *o = any_stored();
        char *compact = json_dumps(o, JSON_COMPACT);
        assert_non_null(compact);
        size_t plen;
        char *pretty = em_pretty_from_compact(compact, strlen(compact), &plen);
        char *indent = json_dumps(o, JSON_INDENT(2));
        for (size_t j = 0; j < ps.n; j++) {
            if (os_compare(ps.p[j], ps.k[j], pretty, plen) != OS_SAME)
                fail_msg("plan %zu: %s", j, pretty);
            assert_int_equal(os_compare(ps.p[j], ps.k[j], compact, strlen(compact)), OS_SAME);
            assert_int_equal(os_compare(ps.p[j], ps.k[j], indent, strlen(indent)), OS_SAME);
        }
        free(indent);
        free(pretty);
        free(compact);
        json_decref(o);
    }
    plans_free(&ps);
}

#define META "\"metadata\":{\"name\":\"obj\"}"

/* Hand-written texts: accepted when the dump writes each token as it stands (blanks
 * anywhere between tokens), else refused; never a different result. */
static void test_hand_written_texts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum os_result want;
    } cases[] = {
        {"{\"kind\":\"Job\"," META "}", OS_SAME},
        {"  {\r\n\t\"kind\" :  \"Job\" ,\n " META "  }\n\n", OS_SAME},
        {"{\"kind\":\"Job\"," META ",\"a\":{},\"b\":[ ],\"c\":[1,{ }]}", OS_SAME},
        {"{\"kind\":\"J\\\"o\\\\b\\n\\t\\u001F\\u0001\"," META "}", OS_SAME},
        {"{\"kind\":\"\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"," META "}", OS_SAME},
        {"{\"kind\":\"Job\"," META ",\"n\":[0,-1,123456789012345678,-5,0.5,-0.5,1e20,9.9999999999999995e-8,0.10000000000000001]}",
         OS_SAME},
        /* refused: what the dump would write otherwise, or what jansson refuses */
        {"{\"kind\":\"a\\/b\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u0041\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u001f\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u0009\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u0008\\u000A\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u000C\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u000D\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u0008\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u0000\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\u00e9\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\\ud83d\\ude00\"," META "}", OS_REFUSED},
        {"{\"kind\":\"a\tb\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xc0\x80\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xe0\x9f\xbf\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xf0\x8f\xbf\xbf\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xf5\x80\x80\x80\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\x80\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xed\xa0\x80\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xf4\x90\x80\x80\"," META "}", OS_REFUSED},
        {"{\"kind\":\"\xe2\x82\"," META "}", OS_REFUSED},
        {"{\"kind\":\"Job\",\"kind\":\"Job\"," META "}", OS_REFUSED},
        {"{\"kind\":\"Job\",\"metadata\":{\"name\":\"obj\",\"name\":\"obj\"}}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"a\":{\"x\":1,\"y\":[{\"z\":1,\"z\":2}]}}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":-0}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":01}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":9223372036854775808}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":-9223372036854775809}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":12345678901234567890}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":[9223372036854775807,-9223372036854775808]}",
         OS_SAME},
        {"{\"kind\":\"Job\"," META ",\"n\":1E5}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":1.50}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":1e400}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":1.}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":+1}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"n\":tru}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",}", OS_REFUSED},
        {"{\"kind\":\"Job\"," META "} x", OS_REFUSED},
        {"\xef\xbb\xbf{\"kind\":\"Job\"," META "}", OS_REFUSED},
        {"[{\"kind\":\"Job\"," META "}]", OS_REFUSED},
        {"", OS_REFUSED},
        {"{\"kind\":\"Job\"," META ",\"a\":{\"b\":[1,2}}", OS_REFUSED},
        {"{\"kind\":\"Job\"\n" META "}", OS_REFUSED},
    };
    struct plans ps;
    plans_make(&ps);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (size_t j = 0; j < ps.n; j++) {
            enum os_result got = os_compare(ps.p[j], ps.k[j], cases[i].text, strlen(cases[i].text));
            if (got != cases[i].want)
                fail_msg("case %zu (%s), plan %zu: %d, want %d", i, cases[i].text, j, got,
                         cases[i].want);
        }
    }
    /* nesting: 60 levels accepted, past 64 refused (jansson reads it) */
    for (int levels = 60; levels <= 70; levels += 10) {
        char t[256];
        size_t n = (size_t)snprintf(t, sizeof t, "{\"kind\":\"Job\"," META ",\"d\":");
        memset(t + n, '[', (size_t)levels);
        memset(t + n + levels, ']', (size_t)levels);
        n += 2 * (size_t)levels;
        t[n++] = '}';
        assert_int_equal(os_compare(ps.p[1], ps.k[1], t, n), levels < 64 ? OS_SAME : OS_REFUSED);
    }
    plans_free(&ps);
}

/* The stored texts mutated a byte at a time: whatever is accepted is the same. */
static void test_mutated_texts_are_never_different(void **state)
{
    (void)state;
    static const char alphabet[] = " \n\t{}[]\",:\\/u0123456789aeEf.-+tn\x01\x7f\xc3\xa9\xff";
    struct plans ps;
    plans_make(&ps);
    size_t same = 0, refused = 0;
    for (int i = 0; i < 3000; i++) {
        json_t *o = any_stored();
        char *compact = json_dumps(o, JSON_COMPACT);
        size_t len;
        char *t = em_pretty_from_compact(compact, strlen(compact), &len);
        t = nd_xrealloc(t, len + 8);
        for (uint32_t m = 1 + rnd(3); m > 0; m--) {
            size_t at = rnd((uint32_t)len);
            char c = alphabet[rnd(sizeof alphabet - 1)];
            switch (rnd(3)) {
            case 0:
                t[at] = c;
                break;
            case 1: /* insert */
                memmove(t + at + 1, t + at, len - at);
                t[at] = c;
                len++;
                break;
            default: /* delete */
                memmove(t + at, t + at + 1, len - at - 1);
                len--;
            }
        }
        for (size_t j = 0; j < ps.n; j++) {
            enum os_result r = os_compare(ps.p[j], ps.k[j], t, len);
            assert_int_not_equal(r, OS_DIFFERENT);
            r == OS_SAME ? same++ : refused++;
        }
        free(t);
        free(compact);
        json_decref(o);
    }
    /* both ways taken: the mutations are neither all harmless nor all fatal */
    assert_true(same > 0 && refused > 0);
    plans_free(&ps);
}

/* ---- the loader with and without the scan ---- */

static void put(const char *dir, const char *rel, const char *text)
{
    char *path = nd_xasprintf("%s/%s", dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    char *cmd = nd_xasprintf("mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    *slash = '/';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(path);
}

static char *item_line(const struct em_loaded *it)
{
    char *rec = it->rec ? json_dumps(it->rec, JSON_COMPACT) : NULL;
    char *line = nd_xasprintf("%s/%s/%s json=%s rec=%s why=%s", it->plural, it->ns, it->name,
                              it->json ? it->json->data : "-", rec ? rec : "-",
                              it->why ? it->why : "-");
    free(rec);
    return line;
}

/* Files as the store writes them, hand-edited ones (no namespace, another namespace, an
 * escape the dump writes otherwise, a name that is not the file's, not JSON): the items
 * loaded are the same with the scan as with jansson alone. */
static void test_load_same_with_and_without_scan(void **state)
{
    (void)state;
    char *dir = store_tmpdir("objscan");
    put(dir, "objects/p/jobs/a.json",
        "{\n  \"apiVersion\": \"nodus.dev/v1\",\n  \"kind\": \"Job\",\n  \"metadata\": {\n"
        "    \"name\": \"a\",\n    \"namespace\": \"p\",\n    \"labels\": {\n      \"x\": \"1\"\n"
        "    }\n  },\n  \"spec\": {\n    \"state\": \"Running\"\n  },\n  \"status\": {\n"
        "    \"phase\": \"Queued\",\n    \"costUSD\": 1.5\n  }\n}\n");
    put(dir, "objects/p/jobs/b.json", "{\"kind\":\"Job\",\"metadata\":{\"name\":\"b\"}}");
    put(dir, "objects/p/jobs/c.json",
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"c\",\"namespace\":\"q\"}}");
    put(dir, "objects/p/jobs/d.json",
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"d\",\"namespace\":\"p\",\"uid\":\"a\\/b\"}}");
    put(dir, "objects/p/jobs/e.json", "{\"kind\":\"Job\",\"metadata\":{\"name\":\"x\"}}");
    put(dir, "objects/p/jobs/f.json", "{\"kind\":\"Job\",\"metadata\":{\"name\":\"f\"");
    put(dir, "objects/_cluster/namespaces/p.json",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"p\"}}");
    struct em_load fast, slow;
    unsetenv("NODUS_EMULATOR_TEST_JANSSON_LOAD");
    em_load_objects(dir, &fast, false);
    setenv("NODUS_EMULATOR_TEST_JANSSON_LOAD", "1", 1);
    em_load_objects(dir, &slow, false);
    unsetenv("NODUS_EMULATOR_TEST_JANSSON_LOAD");
    assert_int_equal(fast.n, 7);
    assert_int_equal(fast.n, slow.n);
    for (size_t i = 0; i < fast.n; i++) {
        char *a = item_line(&fast.items[i]), *b = item_line(&slow.items[i]);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    em_load_free(&fast);
    em_load_free(&slow);
    char *cmd = nd_xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(dir);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_written_texts_are_accepted_and_the_same),
        cmocka_unit_test(test_hand_written_texts),
        cmocka_unit_test(test_mutated_texts_are_never_different),
        cmocka_unit_test(test_load_same_with_and_without_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
