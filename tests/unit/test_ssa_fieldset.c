/* Unit tests of pkg/patch/ssa's field sets: fieldsV1 in and out, set algebra, Kubernetes
 * paths, the set an apply configuration sets (ToFieldSet) and what changed between two
 * objects (Compare). JSON is written with ' for " (see J). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "patch/ssa.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "test_json.h"

#define T0   "2026-01-01T00:00:00Z"
#define HEAD "'apiVersion':'nodus.dev/v1','kind':'Job'"
#define META "'name':'j1','namespace':'p1','uid':'job_1','resourceVersion':'7'"

/* The text as written, member order included. */
static void assert_text(const json_t *actual, const char *expected, const char *what)
{
    json_t *e = J(expected);
    char *a = json_dumps(actual, JSON_COMPACT | JSON_ENCODE_ANY);
    char *x = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
    if (strcmp(a, x) != 0)
        fail_msg("%s:\n got  %s\n want %s", what, a, x);
    free(a);
    free(x);
    json_decref(e);
}

static struct nd_fieldset *set_of(const char *fields_v1)
{
    json_t *j = J(fields_v1);
    struct nd_status st = ND_STATUS_INIT;
    struct nd_fieldset *s = nd_fieldset_from_json(j, "f", &st);
    if (!s)
        fail_msg("bad test fieldsV1 %s: %s", fields_v1, st.message);
    json_decref(j);
    return s;
}

/* ---- fieldsV1 and paths ---- */

static void test_fieldset_json(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out, *paths;
    } rows[] = {
        {"{'f:spec':{'f:image':{},'f:resources':{'f:gpu':{'f:model':{}}}},"
         "'f:metadata':{'f:labels':{'f:app':{}}}}",
         "{'f:metadata':{'f:labels':{'f:app':{}}},"
         "'f:spec':{'f:image':{},'f:resources':{'f:gpu':{'f:model':{}}}}}",
         "['.metadata.labels.app','.spec.image','.spec.resources.gpu.model']"},
        /* members of a level come before the levels below it */
        {"{'f:spec':{'f:b':{'f:c':{}},'f:a':{},'f:d':{}}}",
         "{'f:spec':{'f:a':{},'f:b':{'f:c':{}},'f:d':{}}}", "['.spec.a','.spec.d','.spec.b.c']"},
        /* "." marks the parent; it is written first */
        {"{'f:spec':{'f:x':{},'.':{}}}", "{'f:spec':{'.':{},'f:x':{}}}", "['.spec','.spec.x']"},
        {"{'f:x':{'.':{}}}", "{'f:x':{}}", "['.x']"},
        /* values are compact JSON: one element however they were written */
        {"{'v: \\\"a\\\" ':{},'v:\\\"a\\\"':{},'k:{ \\\"n\\\" : 1 }':{}}",
         "{'k:{\\\"n\\\":1}':{},'v:\\\"a\\\"':{}}", "['[n=1]','[=\\\"a\\\"]']"},
        {"{}", "{}", "[]"},
        {"null", "{}", "[]"},
        /* f: by bytes, then k:, v:, i: (by number) */
        {"{'i:10':{},'v:1':{},'i:2':{},'k:{\\\"name\\\":\\\"x\\\"}':{},'f:z':{},'f:Z':{}}",
         "{'f:Z':{},'f:z':{},'k:{\\\"name\\\":\\\"x\\\"}':{},'v:1':{},'i:2':{},'i:10':{}}",
         "['.Z','.z','[name=\\\"x\\\"]','[=1]','[2]','[10]']"},
        {"{'f:metadata':{'f:finalizers':{'v:\\\"b\\\"':{},'v:\\\"a\\\"':{}},"
         "'f:labels':{'f:app.kubernetes.io/name':{}}}}",
         "{'f:metadata':{'f:finalizers':{'v:\\\"a\\\"':{},'v:\\\"b\\\"':{}},"
         "'f:labels':{'f:app.kubernetes.io/name':{}}}}",
         "['.metadata.finalizers[=\\\"a\\\"]','.metadata.finalizers[=\\\"b\\\"]',"
         "'.metadata.labels.app.kubernetes.io/name']"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_fieldset *s = set_of(rows[i].in);
        json_t *out = nd_fieldset_to_json(s), *paths = nd_fieldset_paths(s);
        assert_text(out, rows[i].out, rows[i].in);
        assert_text(paths, rows[i].paths, rows[i].in);
        assert_int_equal(nd_fieldset_empty(s), strcmp(rows[i].paths, "[]") == 0);
        json_decref(out);
        json_decref(paths);
        nd_fieldset_free(s);
    }
}

static void test_fieldset_json_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *in, *message;
    } rows[] = {
        {"'f:spec'", "x.fieldsV1: Invalid value: \"f:spec\": must be an object"},
        {"[1]", "x.fieldsV1: Invalid value: [1]: must be an object"},
        {"{'f:a':1}", "x.fieldsV1: Invalid value: \"f:a\": must map to an object ({} for a leaf)"},
        {"{'.':[]}", "x.fieldsV1: Invalid value: \".\": must map to an object ({} for a leaf)"},
        {"{'x:a':{}}", "x.fieldsV1: Invalid value: \"x:a\": a field name must be \".\" or start "
                       "with \"f:\", \"v:\", \"k:\" or \"i:\""},
        {"{'spec':{}}", "x.fieldsV1: Invalid value: \"spec\": a field name must be \".\" or "
                        "start with \"f:\", \"v:\", \"k:\" or \"i:\""},
        {"{'f:spec':{'f:a':{'g':{}}}}", "x.fieldsV1: Invalid value: \"g\": a field name must be "
                                        "\".\" or start with \"f:\", \"v:\", \"k:\" or \"i:\""},
        {"{'v:abc':{}}",
         "x.fieldsV1: Invalid value: \"v:abc\": the text after \"v:\" must be a JSON value"},
        {"{'k:[1]':{}}",
         "x.fieldsV1: Invalid value: \"k:[1]\": the text after \"k:\" must be a JSON object"},
        {"{'i:1x':{}}",
         "x.fieldsV1: Invalid value: \"i:1x\": the text after \"i:\" must be a decimal integer"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *j = J(rows[i].in);
        struct nd_status st = ND_STATUS_INIT;
        assert_null(nd_fieldset_from_json(j, "x.fieldsV1", &st));
        assert_string_equal(st.reason, "Invalid");
        assert_int_equal(st.code, 422);
        assert_string_equal(st.message, rows[i].message);
        assert_int_equal(nd_status_cause_count(&st), 1);
        nd_status_release(&st);
        json_decref(j);
    }
}

/* ---- algebra ---- */

static struct nd_fieldset *set_paths(const char *const *paths)
{
    struct nd_fieldset *s = nd_fieldset_new();
    struct nd_status st = ND_STATUS_INIT;
    for (; *paths; paths++)
        if (nd_fieldset_insert(s, *paths, &st) < 0)
            fail_msg("insert %s: %s", *paths, st.message);
    return s;
}

static void test_fieldset_algebra(void **state)
{
    (void)state;
    static const struct {
        const char *a[4], *b[4];
        const char *uni, *diff, *inter;
    } rows[] = {
        {{"spec.a", NULL}, {"spec.b", NULL}, "['.spec.a','.spec.b']", "['.spec.a']", "[]"},
        {{"spec.a", "spec.b", NULL},
         {".spec.b", "spec.c", NULL},
         "['.spec.a','.spec.b','.spec.c']",
         "['.spec.a']",
         "['.spec.b']"},
        /* the difference is not recursive: taking .spec keeps .spec.a */
        {{"spec", "spec.a", NULL},
         {"spec", NULL},
         "['.spec','.spec.a']",
         "['.spec.a']",
         "['.spec']"},
        {{"metadata.labels[app.kubernetes.io/name]", "metadata.finalizers[=\"x\"]", NULL},
         {"metadata.finalizers[=\"x\"]", NULL},
         "['.metadata.finalizers[=\\\"x\\\"]','.metadata.labels.app.kubernetes.io/name']",
         "['.metadata.labels.app.kubernetes.io/name']",
         "['.metadata.finalizers[=\\\"x\\\"]']"},
        {{NULL}, {"a", NULL}, "['.a']", "[]", "[]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_fieldset *a = set_paths(rows[i].a), *b = set_paths(rows[i].b);
        struct nd_fieldset *u = nd_fieldset_union(a, b), *d = nd_fieldset_difference(a, b),
                           *x = nd_fieldset_intersection(a, b);
        json_t *pu = nd_fieldset_paths(u), *pd = nd_fieldset_paths(d), *px = nd_fieldset_paths(x);
        assert_text(pu, rows[i].uni, "union");
        assert_text(pd, rows[i].diff, "difference");
        assert_text(px, rows[i].inter, "intersection");
        assert_true(nd_fieldset_equal(u, u));
        assert_int_equal(nd_fieldset_equal(a, b), 0);
        json_decref(pu);
        json_decref(pd);
        json_decref(px);
        nd_fieldset_free(a);
        nd_fieldset_free(b);
        nd_fieldset_free(u);
        nd_fieldset_free(d);
        nd_fieldset_free(x);
    }
}

static void test_fieldset_has_insert(void **state)
{
    (void)state;
    struct nd_fieldset *s = set_of("{'f:spec':{'f:a':{},'f:b':{'.':{},'f:c':{}}},"
                                   "'f:metadata':{'f:labels':{'f:app.kubernetes.io/name':{}},"
                                   "'f:finalizers':{'v:\\\"x\\\"':{}}}}");
    static const struct {
        const char *path;
        bool has;
    } rows[] = {
        {"spec.a", true},
        {".spec.a", true},
        {"spec[a]", true},
        {"spec.b", true},
        {"spec.b.c", true},
        {"spec", false}, /* only members below it */
        {"spec.z", false},
        {"metadata.labels[app.kubernetes.io/name]", true},
        {"metadata.labels.app", false},
        {"metadata.finalizers[=\"x\"]", true},
        {"metadata.finalizers[=\"y\"]", false},
        {"metadata.finalizers", false},
        {"", false},
        {"spec..a", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (nd_fieldset_has(s, rows[i].path) != rows[i].has)
            fail_msg("has %s: want %d", rows[i].path, rows[i].has);
    nd_fieldset_free(s);

    static const struct {
        const char *path, *message;
    } bad[] = {
        {"", "invalid field path \"\" at character 1"},
        {"spec..a", "invalid field path \"spec..a\" at character 6"},
        {"spec.", "invalid field path \"spec.\" at character 6"},
        {"spec[a", "invalid field path \"spec[a\" at character 5"},
        {"spec[]", "invalid field path \"spec[]\" at character 5"},
        {"spec]", "invalid field path \"spec]\" at character 5"},
        {"f[=\"x\"", "invalid field path \"f[=\\\"x\\\"\" at character 2"},
        {"f[=x]", "invalid field path \"f[=x]\" at character 2"},
    };
    s = nd_fieldset_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_fieldset_insert(s, bad[i].path, &st), -1);
        assert_string_equal(st.reason, "BadRequest");
        assert_string_equal(st.message, bad[i].message);
        nd_status_release(&st);
    }
    assert_true(nd_fieldset_empty(s));
    nd_fieldset_free(s);
}

/* ---- ToFieldSet and Compare ---- */

static void test_fieldset_from_object(void **state)
{
    (void)state;
    static const struct {
        const char *obj, *sub, *want;
    } rows[] = {
        {"{" HEAD ",'metadata':{" META ",'generation':2,'creationTimestamp':'" T0 "',"
         "'deletionTimestamp':'" T0 "','deletionGracePeriodSeconds':0,'selfLink':'/x',"
         "'generateName':'j-','managedFields':[],'labels':{'app':'web','tier':''},"
         "'annotations':{'a.b/c':'d'},'finalizers':['nodus.dev/billing','x/y'],"
         "'ownerReferences':[{'uid':'u'}]},"
         "'spec':{'image':'a','gpus':2,'spot':false,'note':null,'command':['a','b'],"
         "'env':{},'resources':{'gpu':{'model':'h100'}}},'status':{'phase':'Running'}}",
         "",
         "{'f:metadata':{'f:annotations':{'f:a.b/c':{}},"
         "'f:finalizers':{'v:\\\"nodus.dev/billing\\\"':{},'v:\\\"x/y\\\"':{}},"
         "'f:labels':{'f:app':{},'f:tier':{}},'f:ownerReferences':{}},"
         "'f:spec':{'f:command':{},'f:gpus':{},'f:image':{},'f:note':{},"
         "'f:resources':{'f:gpu':{'f:model':{}}},'f:spot':{}}}"},
        {"{" HEAD ",'metadata':{'name':'j1'},'spec':{'a':1},'status':{'phase':'P','c':[1]}}",
         "status", "{'f:status':{'f:c':{},'f:phase':{}}}"},
        {"{" HEAD ",'metadata':{'name':'j1'}}", "", "{}"},
        {"[1]", "", "{}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *obj = J(rows[i].obj);
        struct nd_fieldset *s = nd_fieldset_from_object(obj, rows[i].sub);
        json_t *out = nd_fieldset_to_json(s);
        assert_text(out, rows[i].want, rows[i].obj);
        json_decref(out);
        nd_fieldset_free(s);
        json_decref(obj);
    }
}

static void test_fieldset_compare(void **state)
{
    (void)state;
    static const struct {
        const char *old, *new, *sub, *added, *modified, *removed;
    } rows[] = {
        /* a create: every object a write makes whole is a member itself */
        {NULL,
         "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'finalizers':['x']},"
         "'spec':{'image':'a','env':{},'resources':{'gpu':{'model':'h100'}}},'status':{'p':1}}",
         "",
         "{'f:metadata':{'f:finalizers':{'.':{},'v:\\\"x\\\"':{}},'f:labels':{'.':{},'f:app':{}}},"
         "'f:spec':{'.':{},'f:env':{},'f:image':{},"
         "'f:resources':{'.':{},'f:gpu':{'.':{},'f:model':{}}}}}",
         "{}", "{}"},
        {"{'spec':{'a':1,'b':{'c':1,'d':2},'l':[1,2],'n':1}}",
         "{'spec':{'a':2,'b':{'c':1},'l':[1,2,3],'n':1.0,'e':{'f':true}}}", "",
         "{'f:spec':{'f:e':{'.':{},'f:f':{}}}}", "{'f:spec':{'f:a':{},'f:l':{}}}",
         "{'f:spec':{'f:b':{'f:d':{}}}}"},
        /* a type change: the value is modified, what was inside it removed */
        {"{'spec':{'x':{'a':1}}}", "{'spec':{'x':5}}", "", "{}", "{'f:spec':{'f:x':{}}}",
         "{'f:spec':{'f:x':{'f:a':{}}}}"},
        {"{'spec':{'x':5}}", "{'spec':{'x':{'a':1}}}", "", "{'f:spec':{'f:x':{'f:a':{}}}}",
         "{'f:spec':{'f:x':{}}}", "{}"},
        /* finalizers compare item by item */
        {"{'metadata':{'finalizers':['a','b']}}", "{'metadata':{'finalizers':['b','c']}}", "",
         "{'f:metadata':{'f:finalizers':{'v:\\\"c\\\"':{}}}}", "{}",
         "{'f:metadata':{'f:finalizers':{'v:\\\"a\\\"':{}}}}"},
        /* untracked: status, system metadata, apiVersion, kind */
        {"{'apiVersion':'a','kind':'K','metadata':{'resourceVersion':'1','generation':1},"
         "'status':{'p':1}}",
         "{'apiVersion':'b','kind':'L','metadata':{'resourceVersion':'2','generation':2},"
         "'status':{'p':2}}",
         "", "{}", "{}", "{}"},
        /* the status subresource tracks status only */
        {"{'spec':{'a':1},'status':{'p':1}}", "{'spec':{'a':2},'status':{'p':2,'q':[]}}", "status",
         "{'f:status':{'f:q':{}}}", "{'f:status':{'f:p':{}}}", "{}"},
        {"{'spec':{'a':1}}", "{'spec':{'a':1},'status':{'p':2}}", "status",
         "{'f:status':{'.':{},'f:p':{}}}", "{}", "{}"},
        {"{'spec':{'a':{}}}", "{'spec':{'a':{}}}", "", "{}", "{}", "{}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = J(rows[i].old), *n = J(rows[i].new);
        struct nd_fieldset *a, *m, *r;
        nd_fieldset_compare(o, n, rows[i].sub, &a, &m, &r);
        json_t *ja = nd_fieldset_to_json(a), *jm = nd_fieldset_to_json(m),
               *jr = nd_fieldset_to_json(r);
        assert_text(ja, rows[i].added, "added");
        assert_text(jm, rows[i].modified, "modified");
        assert_text(jr, rows[i].removed, "removed");
        json_decref(ja);
        json_decref(jm);
        json_decref(jr);
        nd_fieldset_free(a);
        nd_fieldset_free(m);
        nd_fieldset_free(r);
        json_decref(o);
        json_decref(n);
    }
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fieldset_json),        cmocka_unit_test(test_fieldset_json_invalid),
        cmocka_unit_test(test_fieldset_algebra),     cmocka_unit_test(test_fieldset_has_insert),
        cmocka_unit_test(test_fieldset_from_object), cmocka_unit_test(test_fieldset_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
