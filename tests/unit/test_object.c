/* Unit tests of pkg/kinds/object: field paths, get/set/del, JSON equality, object diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "test_json.h"

static void assert_json(const json_t *actual, const char *expected)
{
    json_t *e = J(expected);
    char *a = canon(actual), *x = canon(e);
    assert_non_null(a);
    assert_string_equal(a, x);
    free(a);
    free(x);
    json_decref(e);
}

static const char *doc_text =
    "{'metadata':{'name':'a','labels':{'app.kubernetes.io/name':'web','tier':'x'}},"
    "'spec':{'resources':{'gpu':{'model':'H100','count':2}},"
    "'volumes':[{'name':'data'},{'name':'scratch'}],'nothing':null,'m':{'0':'zero','01':'z1'}}}";

static void test_get(void **state)
{
    (void)state;
    static const struct {
        const char *path, *want; /* want NULL: absent */
    } rows[] = {
        {"spec.resources.gpu.model", "'H100'"},
        {"spec.resources.gpu.count", "2"},
        {"spec.volumes[1].name", "'scratch'"},
        {"spec.volumes[0]", "{'name':'data'}"},
        {"metadata.labels[app.kubernetes.io/name]", "'web'"},
        {"metadata.labels[tier]", "'x'"},
        {"metadata.labels.tier", "'x'"},
        {"metadata[labels].tier", "'x'"},
        {"[metadata].name", "'a'"},
        {"spec.m[0]", "'zero'"},
        {"spec.m[01]", "'z1'"},
        {"spec.m.0", "'zero'"},
        {"spec.nothing", "null"},
        {"spec.volumes[2]", NULL},
        {"spec.volumes[01]", NULL},
        {"spec.volumes[name]", NULL},
        {"spec.volumes.0", NULL},
        {"spec.nothing.x", NULL},
        {"spec.resources.gpu.model.x", NULL},
        {"spec.resources.cpu", NULL},
        {"metadata.labels[app.kubernetes.io/name", NULL},
        {"", NULL},
        {".spec", NULL},
        {"spec.", NULL},
        {"spec..m", NULL},
        {"spec[]", NULL},
        {"spec]m", NULL},
        {"spec[m]x", NULL},
    };
    json_t *doc = J(doc_text);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *v = nd_obj_get(doc, rows[i].path);
        if (!rows[i].want) {
            if (v)
                fail_msg("%s: expected absent", rows[i].path);
            continue;
        }
        if (!v)
            fail_msg("%s: expected %s, got absent", rows[i].path, rows[i].want);
        assert_json(v, rows[i].want);
    }
    assert_null(nd_obj_get(NULL, "a"));
    assert_string_equal(nd_obj_get_string(doc, "spec.volumes[1].name"), "scratch");
    assert_null(nd_obj_get_string(doc, "spec.resources.gpu.count"));
    assert_null(nd_obj_get_string(doc, "spec.nothing"));
    assert_null(nd_obj_get_string(doc, "spec.x"));
    json_decref(doc);
}

static void test_path_syntax(void **state)
{
    (void)state;
    static const struct {
        const char *path, *message; /* message NULL: valid */
    } rows[] = {
        {"a", NULL},
        {"[x]", NULL},
        {"a[b][c].d", NULL},
        {"spec.volumes[0].name", NULL},
        {"metadata.labels[app.kubernetes.io/name]", NULL},
        {"a.b-c_d", NULL},
        {"a[b[c]", NULL}, /* '[' inside a bracket is part of the key */
        {"", "invalid field path \"\": the path is empty"},
        {".spec", "invalid field path \".spec\": expected a field name at character 1"},
        {"spec.", "invalid field path \"spec.\": expected a field name at character 6"},
        {"spec..x", "invalid field path \"spec..x\": expected a field name at character 6"},
        {"spec[0", "invalid field path \"spec[0\": unterminated '[' at character 5"},
        {"a[b].c[d", "invalid field path \"a[b].c[d\": unterminated '[' at character 7"},
        {"spec[]", "invalid field path \"spec[]\": empty brackets at character 5"},
        {"spec]x", "invalid field path \"spec]x\": unexpected ']' at character 5"},
        {"]", "invalid field path \"]\": unexpected ']' at character 1"},
        {"a.]", "invalid field path \"a.]\": unexpected ']' at character 3"},
        {"spec[0]x", "invalid field path \"spec[0]x\": expected '.' or '[' at character 8"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_field_path_check(rows[i].path, &st);
        if (!rows[i].message) {
            if (rc != 0)
                fail_msg("%s: %s", rows[i].path, st.message);
            assert_false(nd_status_failed(&st));
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "BadRequest");
            assert_int_equal(st.code, 400);
            assert_string_equal(st.message, rows[i].message);
        }
        nd_status_release(&st);
    }
    assert_int_equal(nd_field_path_check(NULL, NULL), -1);
}

static void test_set(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *path, *value;
        const char *want;             /* the document after (unchanged on error) */
        const char *reason, *message; /* NULL on success */
    } rows[] = {
        {"{}", "spec.resources.gpu.model", "'A100'",
         "{'spec':{'resources':{'gpu':{'model':'A100'}}}}", NULL, NULL},
        {"{'spec':{'a':1}}", "spec.b", "2", "{'spec':{'a':1,'b':2}}", NULL, NULL},
        {"{'spec':{'a':1}}", "spec.a", "{'x':[1]}", "{'spec':{'a':{'x':[1]}}}", NULL, NULL},
        {"{'spec':{'volumes':[{'name':'a'},{'name':'b'}]}}", "spec.volumes[1].name", "'c'",
         "{'spec':{'volumes':[{'name':'a'},{'name':'c'}]}}", NULL, NULL},
        {"{'spec':{'volumes':[{'name':'a'}]}}", "spec.volumes[0]", "{'name':'z'}",
         "{'spec':{'volumes':[{'name':'z'}]}}", NULL, NULL},
        {"{'spec':{'n':null}}", "spec.n.x", "1", "{'spec':{'n':{'x':1}}}", NULL, NULL},
        {"{'a':[null]}", "a[0].b", "true", "{'a':[{'b':true}]}", NULL, NULL},
        {"{}", "metadata.labels[app.kubernetes.io/name]", "'web'",
         "{'metadata':{'labels':{'app.kubernetes.io/name':'web'}}}", NULL, NULL},
        {"{}", "m[0]", "'zero'", "{'m':{'0':'zero'}}", NULL, NULL},
        {"{'spec':{'volumes':[{'name':'a'}]}}", "spec.volumes[1]", "{}",
         "{'spec':{'volumes':[{'name':'a'}]}}", "Invalid",
         "cannot set \"spec.volumes[1]\": index 1 is past the end of spec.volumes (size 1)"},
        {"{'spec':{'volumes':[]}}", "spec.volumes[0].name", "'x'", "{'spec':{'volumes':[]}}",
         "Invalid",
         "cannot set \"spec.volumes[0].name\": index 0 is past the end of spec.volumes (size 0)"},
        {"{'spec':{'volumes':[{'name':'a'}]}}", "spec.volumes[name]", "1",
         "{'spec':{'volumes':[{'name':'a'}]}}", "Invalid",
         "cannot set \"spec.volumes[name]\": spec.volumes is an array and [name] is not an index"},
        {"{'spec':{'volumes':[]}}", "spec.volumes.x", "1", "{'spec':{'volumes':[]}}", "Invalid",
         "cannot set \"spec.volumes.x\": spec.volumes is an array and x is not an index"},
        {"{'spec':'str'}", "spec.x.y", "1", "{'spec':'str'}", "Invalid",
         "cannot set \"spec.x.y\": spec is a string, not an object"},
        {"{'a':[1]}", "a[0].b", "1", "{'a':[1]}", "Invalid",
         "cannot set \"a[0].b\": a[0] is a number, not an object"},
        {"{'a':{'b':false}}", "a.b.c", "1", "{'a':{'b':false}}", "Invalid",
         "cannot set \"a.b.c\": a.b is a boolean, not an object"},
        {"[]", "a", "1", "[]", "Invalid", "cannot set \"a\": the document is not an object"},
        {"{}", "a..b", "1", "{}", "BadRequest",
         "invalid field path \"a..b\": expected a field name at character 3"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *doc = J(rows[i].doc);
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_obj_set(doc, rows[i].path, J(rows[i].value), &st);
        if (!rows[i].reason) {
            if (rc != 0)
                fail_msg("%s: %s", rows[i].path, st.message);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, rows[i].reason);
            assert_string_equal(st.message, rows[i].message);
        }
        assert_json(doc, rows[i].want);
        nd_status_release(&st);
        json_decref(doc);
    }
    /* The value is stolen even on error (ASan would report a leak otherwise). */
    json_t *doc = J("{'a':1}");
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_obj_set(doc, "a.b", json_string("x"), &st), -1);
    assert_int_equal(nd_obj_set(doc, "", json_string("x"), &st), -1);
    assert_string_equal(st.message, "invalid field path \"\": the path is empty");
    assert_int_equal(nd_obj_set(doc, "b", NULL, &st), -1);
    assert_string_equal(st.message, "cannot set \"b\": no value given");
    assert_json(doc, "{'a':1}");
    nd_status_release(&st);
    json_decref(doc);
}

static void test_del(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *path;
        int rc;
        const char *want;
    } rows[] = {
        {"{'a':{'b':1,'c':2}}", "a.b", 0, "{'a':{'c':2}}"},
        {"{'a':{'b':1}}", "a.x", 1, "{'a':{'b':1}}"},
        {"{'a':{'b':1}}", "x.y.z", 1, "{'a':{'b':1}}"},
        {"{'a':[1,2,3]}", "a[1]", 0, "{'a':[1,3]}"},
        {"{'a':[1,2,3]}", "a[3]", 1, "{'a':[1,2,3]}"},
        {"{'a':[1,2,3]}", "a.x", 1, "{'a':[1,2,3]}"},
        {"{'a':'s'}", "a.b", 1, "{'a':'s'}"},
        {"{'l':{'app.kubernetes.io/name':'x','t':1}}", "l[app.kubernetes.io/name]", 0,
         "{'l':{'t':1}}"},
        {"{'v':[{'n':1,'m':2}]}", "v[0].n", 0, "{'v':[{'m':2}]}"},
        {"{'a':1}", "a.", -1, "{'a':1}"},
        {"{'a':1}", "", -1, "{'a':1}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *doc = J(rows[i].doc);
        int rc = nd_obj_del(doc, rows[i].path);
        if (rc != rows[i].rc)
            fail_msg("%s on %s: rc %d, want %d", rows[i].path, rows[i].doc, rc, rows[i].rc);
        assert_json(doc, rows[i].want);
        json_decref(doc);
    }
}

static void test_json_equal(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        bool equal;
    } rows[] = {
        {"1", "1.0", true},
        {"1.0", "1", true},
        {"1", "1", true},
        {"1", "2", false},
        {"1.5", "1.5", true},
        {"0.5", "1", false},
        {"1", "'1'", false},
        {"'a'", "'a'", true},
        {"'a'", "'b'", false},
        {"'a'", "'ab'", false},
        {"null", "null", true},
        {"true", "true", true},
        {"true", "false", false},
        {"false", "null", false},
        {"{'a':1,'b':2}", "{'b':2,'a':1}", true},
        {"{'a':1}", "{'a':1,'b':2}", false},
        {"{'a':1,'c':2}", "{'a':1,'b':2}", false},
        {"{'a':null}", "{}", false},
        {"[1,2]", "[1,2]", true},
        {"[1,2]", "[2,1]", false},
        {"[1,2]", "[1,2,3]", false},
        {"{'x':[{'y':1.0}]}", "{'x':[{'y':1}]}", true},
        {"{'x':[{'y':1}]}", "{'x':[{'y':2}]}", false},
        {"[]", "{}", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *a = J(rows[i].a), *b = J(rows[i].b);
        if (nd_json_equal(a, b) != rows[i].equal || nd_json_equal(b, a) != rows[i].equal)
            fail_msg("%s vs %s: want %s", rows[i].a, rows[i].b,
                     rows[i].equal ? "equal" : "unequal");
        json_decref(a);
        json_decref(b);
    }
    json_t *n = json_null();
    assert_true(nd_json_equal(NULL, NULL));
    assert_false(nd_json_equal(NULL, n));
    assert_false(nd_json_equal(n, NULL));
    /* strings with an embedded NUL compare every byte */
    json_t *s1 = json_stringn("a\0b", 3), *s2 = json_stringn("a\0c", 3);
    assert_false(nd_json_equal(s1, s2));
    json_decref(s1);
    json_decref(s2);
}

static void test_diff(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b, *want;
    } rows[] = {
        {"{'spec':{'image':'a'}}", "{'spec':{'image':'a'}}", "[]"},
        {"{'spec':{'image':'a','command':['x']}}", "{'spec':{'image':'b','command':['x','y']}}",
         "['spec.image','spec.command[1]']"},
        {"{'a':1,'b':2,'d':0}", "{'c':4,'b':3,'d':0}", "['a','b','c']"},
        {"{'metadata':{'labels':{'app.kubernetes.io/name':'x','tier':'t'}}}",
         "{'metadata':{'labels':{'app.kubernetes.io/name':'y','tier':'t'}}}",
         "['metadata.labels[app.kubernetes.io/name]']"},
        {"{'a':{'b':1}}", "{'a':[1]}", "['a']"},
        {"{'a':{'b':1}}", "{'a':null}", "['a']"},
        {"{'a':'1'}", "{'a':1}", "['a']"},
        {"{'spec':{'volumes':[{'name':'a','size':1},{'name':'b'}]}}",
         "{'spec':{'volumes':[{'name':'z','size':1},{'name':'b'}]}}", "['spec.volumes[0].name']"},
        {"{'x':[1,2,3]}", "{'x':[1]}", "['x[1]','x[2]']"},
        {"{'x':[[1,2]]}", "{'x':[[1,3]]}", "['x[0][1]']"},
        {"{'n':1}", "{'n':1.0}", "[]"},
        {"{'m':{'0':1}}", "{'m':{'0':2}}", "['m[0]']"},
        {"{'a':{'x':1}}", "{}", "['a']"},
        {"{}", "{'a':{'x':1}}", "['a']"},
        {"1", "2", "['']"},
        {"{}", "[]", "['']"},
        {"[1]", "[1,2]", "['[1]']"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *a = J(rows[i].a), *b = J(rows[i].b);
        json_t *d = nd_obj_diff(a, b);
        char *got = json_dumps(d, JSON_COMPACT);
        json_t *w = J(rows[i].want);
        char *want = json_dumps(w, JSON_COMPACT);
        if (strcmp(got, want) != 0)
            fail_msg("diff %s %s: got %s, want %s", rows[i].a, rows[i].b, got, want);
        free(got);
        free(want);
        json_decref(w);
        json_decref(d);
        json_decref(a);
        json_decref(b);
    }
}

static void test_diff_atomic(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b, *want;
    } rows[] = {
        {"{'spec':{'command':['a','b']}}", "{'spec':{'command':['c','d','e']}}", "['spec.command']"},
        {"{'spec':{'volumes':[{'name':'a'}],'image':'x'}}",
         "{'spec':{'volumes':[{'name':'z'}],'image':'y'}}", "['spec.volumes','spec.image']"},
        {"{'metadata':{'labels':{'a.b/c':'1'}}}", "{'metadata':{'labels':{'a.b/c':'2'}}}",
         "['metadata.labels[a.b/c]']"},
        {"{'x':1}", "{'x':1}", "[]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *a = J(rows[i].a), *b = J(rows[i].b);
        json_t *d = nd_obj_diff_atomic(a, b);
        char *got = json_dumps(d, JSON_COMPACT);
        json_t *w = J(rows[i].want);
        char *want = json_dumps(w, JSON_COMPACT);
        if (strcmp(got, want) != 0)
            fail_msg("diff_atomic %s %s: got %s, want %s", rows[i].a, rows[i].b, got, want);
        free(got);
        free(want);
        json_decref(w);
        json_decref(d);
        json_decref(a);
        json_decref(b);
    }
}

static void test_path_append(void **state)
{
    (void)state;
    static const struct {
        const char *base, *key, *want;
    } keys[] = {
        {"spec", "image", "spec.image"},
        {"spec", "gpu_count", "spec.gpu_count"},
        {"metadata.annotations", "x-y", "metadata.annotations.x-y"},
        {"metadata.labels", "app.kubernetes.io/name", "metadata.labels[app.kubernetes.io/name]"},
        {"metadata.labels", "nodus.dev/created-by", "metadata.labels[nodus.dev/created-by]"},
        {"m", "0", "m[0]"},
        {"m", "has space", "m[has space]"},
        {"m", "-x", "m[-x]"},
        {"", "spec", "spec"},
        {NULL, "spec", "spec"},
        {NULL, "a.b", "[a.b]"},
        {"v[0]", "name", "v[0].name"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *s = nd_field_path_append_key(keys[i].base, keys[i].key);
        assert_string_equal(s, keys[i].want);
        /* every path built this way parses back to the same member */
        assert_int_equal(nd_field_path_check(s, NULL), 0);
        free(s);
    }
    static const struct {
        const char *base;
        size_t i;
        const char *want;
    } idx[] = {
        {"spec.volumes", 0, "spec.volumes[0]"},
        {"x[1]", 12, "x[1][12]"},
        {"", 3, "[3]"},
        {NULL, 4, "[4]"},
    };
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        char *s = nd_field_path_append_index(idx[i].base, idx[i].i);
        assert_string_equal(s, idx[i].want);
        free(s);
    }
    /* a built path finds the value it names */
    json_t *doc = J("{'metadata':{'labels':{'app.kubernetes.io/name':'web'}}}");
    char *p = nd_field_path_append_key("metadata.labels", "app.kubernetes.io/name");
    assert_string_equal(nd_obj_get_string(doc, p), "web");
    free(p);
    json_decref(doc);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get),         cmocka_unit_test(test_path_syntax),
        cmocka_unit_test(test_set),         cmocka_unit_test(test_del),
        cmocka_unit_test(test_json_equal),  cmocka_unit_test(test_diff),
        cmocka_unit_test(test_path_append), cmocka_unit_test(test_diff_atomic),
    };
    return cmocka_run_group_tests_name("object", tests, NULL, NULL);
}
