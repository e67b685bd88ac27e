/* Unit tests of pkg/patch: RFC 7386 merge patch, merge patch creation, kubectl's
 * three-way apply patch, RFC 6902 JSON patch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "patch/patch.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "test_json.h"

static void assert_json_msg(const json_t *actual, const char *expected, const char *what)
{
    json_t *e = J(expected);
    char *a = canon(actual), *x = canon(e);
    if (!a || strcmp(a, x) != 0)
        fail_msg("%s: got %s, want %s", what, a ? a : "(nothing)", x);
    free(a);
    free(x);
    json_decref(e);
}

/* ---- RFC 7386 ---- */

static void test_merge_apply_rfc7386(void **state)
{
    (void)state;
    /* Appendix A of RFC 7386, every example, then the example of section 3. */
    static const struct {
        const char *target, *patch, *want;
    } rows[] = {
        {"{'a':'b'}", "{'a':'c'}", "{'a':'c'}"},
        {"{'a':'b'}", "{'b':'c'}", "{'a':'b','b':'c'}"},
        {"{'a':'b'}", "{'a':null}", "{}"},
        {"{'a':'b','b':'c'}", "{'a':null}", "{'b':'c'}"},
        {"{'a':['b']}", "{'a':'c'}", "{'a':'c'}"},
        {"{'a':'c'}", "{'a':['b']}", "{'a':['b']}"},
        {"{'a':{'b':'c'}}", "{'a':{'b':'d','c':null}}", "{'a':{'b':'d'}}"},
        {"{'a':[{'b':'c'}]}", "{'a':[1]}", "{'a':[1]}"},
        {"['a','b']", "['c','d']", "['c','d']"},
        {"{'a':'b'}", "['c']", "['c']"},
        {"{'a':'foo'}", "null", "null"},
        {"{'a':'foo'}", "'bar'", "'bar'"},
        {"{'e':null}", "{'a':1}", "{'e':null,'a':1}"},
        {"[1,2]", "{'a':'b','c':null}", "{'a':'b'}"},
        {"{}", "{'a':{'bb':{'ccc':null}}}", "{'a':{'bb':{}}}"},
        {"{'title':'Goodbye!','author':{'givenName':'John','familyName':'Doe'},"
         "'tags':['example','sample'],'content':'This will be unchanged'}",
         "{'title':'Hello!','phoneNumber':'+01-123-456-7890','author':{'familyName':null},"
         "'tags':['example']}",
         "{'title':'Hello!','author':{'givenName':'John'},'tags':['example'],"
         "'content':'This will be unchanged','phoneNumber':'+01-123-456-7890'}"},
        /* beyond the RFC: nulls inside a replacing array stay, numbers replace */
        {"{'a':[1]}", "{'a':[null,2]}", "{'a':[null,2]}"},
        {"{'a':{'b':1}}", "{'a':{'c':{'d':null,'e':1}}}", "{'a':{'b':1,'c':{'e':1}}}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *t = J(rows[i].target), *p = J(rows[i].patch);
        char *before = canon(t);
        json_t *got = nd_merge_patch_apply(t, p);
        assert_json_msg(got, rows[i].want, rows[i].patch);
        char *after = canon(t);
        assert_string_equal(before, after); /* the target is untouched */
        free(before);
        free(after);
        json_decref(got);
        json_decref(t);
        json_decref(p);
    }
}

static void test_merge_apply_edges(void **state)
{
    (void)state;
    /* members keep their order; new ones come after, in the patch's order */
    json_t *t = J("{'b':1,'a':2,'c':3}"), *p = J("{'z':0,'a':9,'c':null}");
    json_t *got = nd_merge_patch_apply(t, p);
    char *s = json_dumps(got, JSON_COMPACT);
    assert_string_equal(s, "{\"b\":1,\"a\":9,\"z\":0}");
    free(s);
    json_decref(got);
    /* the result shares nothing with the patch */
    json_t *arr = json_object_get(p, "z");
    got = nd_merge_patch_apply(NULL, p);
    assert_json_msg(got, "{'z':0,'a':9}", "NULL target");
    assert_true(json_object_get(got, "z") != arr);
    json_decref(got);
    got = nd_merge_patch_apply(t, NULL);
    assert_json_msg(got, "{'b':1,'a':2,'c':3}", "NULL patch");
    json_decref(got);
    got = nd_merge_patch_apply(NULL, NULL);
    assert_true(json_is_null(got));
    json_decref(got);
    json_decref(t);
    json_decref(p);
}

static void test_merge_create(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to, *want;
    } rows[] = {
        {"{'a':1}", "{'a':1}", "{}"},
        {"{}", "{}", "{}"},
        {"{'a':1}", "{'a':2}", "{'a':2}"},
        {"{'a':1}", "{'a':1.0}", "{}"},
        {"{'a':1}", "{}", "{'a':null}"},
        {"{}", "{'a':{'b':[1]}}", "{'a':{'b':[1]}}"},
        {"{'a':{'b':1,'c':2}}", "{'a':{'b':1,'c':3}}", "{'a':{'c':3}}"},
        {"{'a':{'b':1,'c':2}}", "{'a':{'b':1}}", "{'a':{'c':null}}"},
        {"{'a':{'b':1}}", "{'a':{'b':1}}", "{}"},
        {"{'a':[1,2]}", "{'a':[1,2,3]}", "{'a':[1,2,3]}"},
        {"{'a':[{'x':1}]}", "{'a':[{'x':1}]}", "{}"},
        {"{'a':{'b':1}}", "{'a':[1]}", "{'a':[1]}"},
        {"{'a':[1]}", "{'a':{'b':1}}", "{'a':{'b':1}}"},
        {"{'a':'x'}", "{'a':null}", "{'a':null}"},
        {"{'a':null}", "{'a':null}", "{}"},
        {"{'a':{}}", "{'a':{}}", "{}"},
        {"{}", "{'a':{}}", "{'a':{}}"},
        {"{'spec':{'image':'a','env':{'A':'1'}},'status':{'phase':'Running'}}",
         "{'spec':{'image':'b'},'status':{'phase':'Running'}}",
         "{'spec':{'image':'b','env':null}}"},
        {"[1]", "[2]", "[2]"},
        {"{'a':1}", "'x'", "'x'"},
        {"'x'", "{'a':1}", "{'a':1}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *f = J(rows[i].from), *t = J(rows[i].to);
        json_t *got = nd_merge_patch_create(f, t);
        assert_json_msg(got, rows[i].want, rows[i].to);
        json_decref(got);
        json_decref(f);
        json_decref(t);
    }
    json_t *got = nd_merge_patch_create(NULL, NULL);
    assert_true(json_is_null(got));
    json_decref(got);
}

/* apply(from, create(from, to)) == to whenever to holds no nulls. */
static void test_merge_round_trip(void **state)
{
    (void)state;
    static const char *const docs[] = {
        "{}",
        "{'a':1}",
        "{'a':2.5,'b':'x'}",
        "{'a':{'b':{'c':[1,2,{'d':null}]}},'e':true}",
        "{'a':{'b':{'c':[1,2]}},'e':false,'f':{}}",
        "{'a':[],'b':{'x':{'y':{'z':'deep'}}}}",
        "{'a':'s','b':{'x':1}}",
        "{'kind':'Job','metadata':{'name':'j','labels':{'app.kubernetes.io/name':'w'}},"
        "'spec':{'image':'i','command':['run','--fast'],'resources':{'gpu':{'count':2}}}}",
        "{'kind':'Job','metadata':{'name':'j'},'spec':{'image':'i2','resources':{}}}",
    };
    size_t n = sizeof docs / sizeof docs[0];
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < n; k++) {
            json_t *from = J(docs[i]), *to = J(docs[k]);
            json_t *patch = nd_merge_patch_create(from, to);
            json_t *got = nd_merge_patch_apply(from, patch);
            if (!nd_json_equal(got, to)) {
                char *g = canon(got), *p = canon(patch);
                fail_msg("from %s to %s: patch %s gave %s", docs[i], docs[k], p, g);
            }
            if (i == k)
                assert_int_equal(json_object_size(patch), 0);
            json_decref(got);
            json_decref(patch);
            json_decref(from);
            json_decref(to);
        }
    }
}

/* ---- three-way (kubectl apply) ---- */

#define OBJ(spec)                                                                                  \
    "{'apiVersion':'nodus.dev/v1','kind':'Job','metadata':{'name':'j'},'spec':" spec "}"
#define OBJL(labels, spec)                                                                         \
    "{'apiVersion':'nodus.dev/v1','kind':'Job','metadata':{'name':'j','labels':" labels            \
    "},'spec':" spec "}"
#define LIVE(labels, spec, status)                                                                 \
    "{'apiVersion':'nodus.dev/v1','kind':'Job','metadata':{'name':'j','uid':'job_1',"              \
    "'resourceVersion':'7','labels':" labels "},'spec':" spec ",'status':" status "}"

static void test_three_way(void **state)
{
    (void)state;
    static const struct {
        const char *what, *original, *modified, *current, *want, *after;
    } rows[] = {
        {"field removed from the file", OBJ("{'image':'a','env':{'A':'1','B':'2'}}"),
         OBJ("{'image':'a','env':{'A':'1'}}"),
         LIVE("{}", "{'image':'a','env':{'A':'1','B':'2'}}", "{'phase':'Running'}"),
         "{'spec':{'env':{'B':null}}}",
         LIVE("{}", "{'image':'a','env':{'A':'1'}}", "{'phase':'Running'}")},
        {"whole object removed from the file", OBJ("{'image':'a','resources':{'gpu':{'count':1}}}"),
         OBJ("{'image':'a'}"), LIVE("{}", "{'image':'a','resources':{'gpu':{'count':1}}}", "{}"),
         "{'spec':{'resources':null}}", LIVE("{}", "{'image':'a'}", "{}")},
        {"field changed by someone else is set back", OBJ("{'image':'a','replicas':1}"),
         OBJ("{'image':'a','replicas':1}"), LIVE("{}", "{'image':'a','replicas':3}", "{}"),
         "{'spec':{'replicas':1}}", LIVE("{}", "{'image':'a','replicas':1}", "{}")},
        {"label added by the server is kept", OBJ("{'image':'a'}"), OBJ("{'image':'a'}"),
         LIVE("{'nodus.dev/created-by':'u1'}", "{'image':'a'}", "{}"), "{}",
         LIVE("{'nodus.dev/created-by':'u1'}", "{'image':'a'}", "{}")},
        {"user adds a label beside the server's", OBJ("{'image':'a'}"),
         OBJL("{'team':'ml'}", "{'image':'a'}"),
         LIVE("{'nodus.dev/created-by':'u1'}", "{'image':'a'}", "{}"),
         "{'metadata':{'labels':{'team':'ml'}}}",
         LIVE("{'nodus.dev/created-by':'u1','team':'ml'}", "{'image':'a'}", "{}")},
        {"user removes their label, the server's stays",
         OBJL("{'team':'ml','tier':'x'}", "{'image':'a'}"), OBJL("{'tier':'x'}", "{'image':'b'}"),
         LIVE("{'nodus.dev/created-by':'u1','team':'ml','tier':'x'}", "{'image':'a'}", "{}"),
         "{'metadata':{'labels':{'team':null}},'spec':{'image':'b'}}",
         LIVE("{'nodus.dev/created-by':'u1','tier':'x'}", "{'image':'b'}", "{}")},
        {"a field someone else added, never applied, is kept", OBJ("{'image':'a'}"),
         OBJ("{'image':'a'}"), LIVE("{}", "{'image':'a','priority':5}", "{}"), "{}",
         LIVE("{}", "{'image':'a','priority':5}", "{}")},
        {"arrays are replaced whole", OBJ("{'command':['a','b']}"), OBJ("{'command':['a','c']}"),
         LIVE("{}", "{'command':['a','b']}", "{}"), "{'spec':{'command':['a','c']}}",
         LIVE("{}", "{'command':['a','c']}", "{}")},
        {"no last-applied: additions only", NULL, OBJ("{'image':'b'}"),
         LIVE("{}", "{'image':'a','priority':5}", "{}"), "{'spec':{'image':'b'}}",
         LIVE("{}", "{'image':'b','priority':5}", "{}")},
        {"explicit empty object is a value", OBJ("{'image':'a'}"), OBJ("{'image':'a','env':{}}"),
         LIVE("{}", "{'image':'a'}", "{}"), "{'spec':{'env':{}}}",
         LIVE("{}", "{'image':'a','env':{}}", "{}")},
        {"emptied object: applied members deleted", OBJ("{'env':{'A':'1'}}"), OBJ("{'env':{}}"),
         LIVE("{}", "{'env':{'A':'1','S':'server'}}", "{}"), "{'spec':{'env':{'A':null}}}",
         LIVE("{}", "{'env':{'S':'server'}}", "{}")},
        {"a null in the file never becomes a patch value", OBJ("{'x':null}"), OBJ("{'x':null}"),
         LIVE("{}", "{'x':5}", "{}"), "{}", LIVE("{}", "{'x':5}", "{}")},
        {"deletion of a member already gone", OBJ("{'image':'a','old':1}"), OBJ("{'image':'a'}"),
         LIVE("{}", "{'image':'a'}", "{}"), "{'spec':{'old':null}}",
         LIVE("{}", "{'image':'a'}", "{}")},
        {"type change by someone else", OBJ("{'env':{'A':'1'}}"), OBJ("{'env':{'A':'1'}}"),
         LIVE("{}", "{'env':'flat'}", "{}"), "{'spec':{'env':{'A':'1'}}}",
         LIVE("{}", "{'env':{'A':'1'}}", "{}")},
        {"numbers compare by value", OBJ("{'n':1}"), OBJ("{'n':1.0}"), LIVE("{}", "{'n':1}", "{}"),
         "{}", LIVE("{}", "{'n':1}", "{}")},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = J(rows[i].original), *m = J(rows[i].modified), *c = J(rows[i].current);
        struct nd_status st = ND_STATUS_INIT;
        json_t *patch = nd_merge_patch_three_way(o, m, c, &st);
        if (!patch)
            fail_msg("%s: %s", rows[i].what, st.message);
        assert_json_msg(patch, rows[i].want, rows[i].what);
        json_t *after = nd_merge_patch_apply(c, patch);
        assert_json_msg(after, rows[i].after, rows[i].what);
        json_decref(after);
        json_decref(patch);
        nd_status_release(&st);
        json_decref(o);
        json_decref(m);
        json_decref(c);
    }
}

static void test_three_way_errors(void **state)
{
    (void)state;
    static const struct {
        const char *original, *modified, *current, *reason, *message;
        const char *causes; /* fields of details.causes, comma-separated */
    } rows[] = {
        {OBJ("{}"), "{'apiVersion':'nodus.dev/v1','kind':'Sandbox','metadata':{'name':'j'}}",
         LIVE("{}", "{}", "{}"), "Invalid", "At least one of apiVersion, kind and name was changed",
         "kind"},
        {OBJ("{}"), "{'apiVersion':'nodus.dev/v2','kind':'Sandbox','metadata':{'name':'k'}}",
         LIVE("{}", "{}", "{}"), "Invalid", "At least one of apiVersion, kind and name was changed",
         "apiVersion,kind,metadata.name"},
        {OBJ("{}"), "{'apiVersion':'nodus.dev/v1','kind':'Job','metadata':{}}",
         LIVE("{}", "{}", "{}"), "Invalid", "At least one of apiVersion, kind and name was changed",
         "metadata.name"},
        {"[]", OBJ("{}"), LIVE("{}", "{}", "{}"), "BadRequest",
         "three-way merge: the original (last-applied) configuration must be an object", ""},
        {OBJ("{}"), "'x'", LIVE("{}", "{}", "{}"), "BadRequest",
         "three-way merge: the modified configuration must be an object", ""},
        {OBJ("{}"), OBJ("{}"), "null", "BadRequest",
         "three-way merge: the current configuration must be an object", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = J(rows[i].original), *m = J(rows[i].modified), *c = J(rows[i].current);
        struct nd_status st = ND_STATUS_INIT;
        json_t *patch = nd_merge_patch_three_way(o, m, c, &st);
        assert_null(patch);
        assert_string_equal(st.reason, rows[i].reason);
        assert_string_equal(st.message, rows[i].message);
        char fields[256] = "";
        size_t len = 0;
        json_t *causes = st.details ? json_object_get(st.details, "causes") : NULL;
        for (size_t k = 0; k < json_array_size(causes); k++) {
            const char *f = json_string_value(json_object_get(json_array_get(causes, k), "field"));
            len += (size_t)snprintf(fields + len, sizeof fields - len, "%s%s", k ? "," : "", f);
        }
        assert_string_equal(fields, rows[i].causes);
        nd_status_release(&st);
        json_decref(o);
        json_decref(m);
        json_decref(c);
    }
    /* NULL inputs count as {} */
    struct nd_status st = ND_STATUS_INIT;
    json_t *patch = nd_merge_patch_three_way(NULL, NULL, NULL, &st);
    assert_json_msg(patch, "{}", "all NULL");
    json_decref(patch);
    nd_status_release(&st);
}

/* ---- RFC 6902 ---- */

struct jp_row {
    const char *name, *doc, *ops;
    const char *want;             /* the result, or NULL on error */
    const char *reason, *message; /* on error */
};

static void run_json_patch(const struct jp_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *doc = J(rows[i].doc), *ops = J(rows[i].ops);
        char *before = canon(doc);
        struct nd_status st = ND_STATUS_INIT;
        json_t *got = nd_json_patch_apply(doc, ops, &st);
        if (rows[i].want) {
            if (!got)
                fail_msg("%s: %s", rows[i].name, st.message);
            assert_json_msg(got, rows[i].want, rows[i].name);
            assert_false(nd_status_failed(&st));
        } else {
            if (got) {
                char *g = canon(got);
                fail_msg("%s: expected an error, got %s", rows[i].name, g);
            }
            if (strcmp(st.reason, rows[i].reason) != 0 || strcmp(st.message, rows[i].message) != 0)
                fail_msg("%s: got %s \"%s\", want %s \"%s\"", rows[i].name, st.reason, st.message,
                         rows[i].reason, rows[i].message);
        }
        char *after = canon(doc);
        assert_string_equal(before, after); /* the document is never modified */
        free(before);
        free(after);
        json_decref(got);
        nd_status_release(&st);
        json_decref(doc);
        json_decref(ops);
    }
}

static void test_json_patch_rfc6902(void **state)
{
    (void)state;
    /* Appendix A of RFC 6902, every example (A.13 is below: it is a parse error). */
    static const struct jp_row rows[] = {
        {"A.1 adding an object member", "{'foo':'bar'}",
         "[{'op':'add','path':'/baz','value':'qux'}]", "{'baz':'qux','foo':'bar'}", NULL, NULL},
        {"A.2 adding an array element", "{'foo':['bar','baz']}",
         "[{'op':'add','path':'/foo/1','value':'qux'}]", "{'foo':['bar','qux','baz']}", NULL, NULL},
        {"A.3 removing an object member", "{'baz':'qux','foo':'bar'}",
         "[{'op':'remove','path':'/baz'}]", "{'foo':'bar'}", NULL, NULL},
        {"A.4 removing an array element", "{'foo':['bar','qux','baz']}",
         "[{'op':'remove','path':'/foo/1'}]", "{'foo':['bar','baz']}", NULL, NULL},
        {"A.5 replacing a value", "{'baz':'qux','foo':'bar'}",
         "[{'op':'replace','path':'/baz','value':'boo'}]", "{'baz':'boo','foo':'bar'}", NULL, NULL},
        {"A.6 moving a value", "{'foo':{'bar':'baz','waldo':'fred'},'qux':{'corge':'grault'}}",
         "[{'op':'move','from':'/foo/waldo','path':'/qux/thud'}]",
         "{'foo':{'bar':'baz'},'qux':{'corge':'grault','thud':'fred'}}", NULL, NULL},
        {"A.7 moving an array element", "{'foo':['all','grass','cows','eat']}",
         "[{'op':'move','from':'/foo/1','path':'/foo/3'}]", "{'foo':['all','cows','eat','grass']}",
         NULL, NULL},
        {"A.8 testing a value: success", "{'baz':'qux','foo':['a',2,'c']}",
         "[{'op':'test','path':'/baz','value':'qux'},{'op':'test','path':'/foo/1','value':2}]",
         "{'baz':'qux','foo':['a',2,'c']}", NULL, NULL},
        {"A.9 testing a value: error", "{'baz':'qux'}",
         "[{'op':'test','path':'/baz','value':'bar'}]", NULL, "Invalid",
         "ops[0]: testing value /baz failed: test failed"},
        {"A.10 adding a nested member object", "{'foo':'bar'}",
         "[{'op':'add','path':'/child','value':{'grandchild':{}}}]",
         "{'foo':'bar','child':{'grandchild':{}}}", NULL, NULL},
        {"A.11 ignoring unrecognized elements", "{'foo':'bar'}",
         "[{'op':'add','path':'/baz','value':'qux','xyz':123}]", "{'foo':'bar','baz':'qux'}", NULL,
         NULL},
        {"A.12 adding to a nonexistent target", "{'foo':'bar'}",
         "[{'op':'add','path':'/baz/bat','value':'qux'}]", NULL, "Invalid",
         "ops[0]: add operation does not apply: doc is missing path: \"/baz/bat\": missing value"},
        {"A.14 ~ escape ordering", "{'/':9,'~1':10}", "[{'op':'test','path':'/~01','value':10}]",
         "{'/':9,'~1':10}", NULL, NULL},
        {"A.15 comparing strings and numbers", "{'/':9,'~1':10}",
         "[{'op':'test','path':'/~01','value':'10'}]", NULL, "Invalid",
         "ops[0]: testing value /~01 failed: test failed"},
        {"A.16 adding an array value", "{'foo':['bar']}",
         "[{'op':'add','path':'/foo/-','value':['abc','def']}]", "{'foo':['bar',['abc','def']]}",
         NULL, NULL},
    };
    run_json_patch(rows, sizeof rows / sizeof rows[0]);

    /* A.13: an operation with two "op" members is not a valid document; callers parse
     * patches with JSON_REJECT_DUPLICATES, which refuses it. */
    json_error_t err;
    json_t *dup =
        json_loads("[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]",
                   JSON_REJECT_DUPLICATES, &err);
    assert_null(dup);
}

static void test_json_patch_pointers(void **state)
{
    (void)state;
    /* RFC 6901 section 5's document, through "test". */
    static const char *doc = "{'foo':['bar','baz'],'':0,'a/b':1,'c%d':2,'e^f':3,'g|h':4,"
                             "'i\\\\j':5,'k\\'l':6,' ':7,'m~n':8}";
    static const struct {
        const char *path, *value;
    } rows[] = {
        {"", "{'foo':['bar','baz'],'':0,'a/b':1,'c%d':2,'e^f':3,'g|h':4,'i\\\\j':5,'k\\'l':6,"
             "' ':7,'m~n':8}"},
        {"/foo", "['bar','baz']"},
        {"/foo/0", "'bar'"},
        {"/", "0"},
        {"/a~1b", "1"},
        {"/c%d", "2"},
        {"/e^f", "3"},
        {"/g|h", "4"},
        {"/i\\j", "5"},
        {"/k\"l", "6"},
        {"/ ", "7"},
        {"/m~0n", "8"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *d = J(doc), *v = J(rows[i].value);
        json_t *op = json_pack("[{s:s, s:s, s:O}]", "op", "test", "path", rows[i].path, "value", v);
        struct nd_status st = ND_STATUS_INIT;
        json_t *got = nd_json_patch_apply(d, op, &st);
        if (!got)
            fail_msg("pointer %s: %s", rows[i].path, st.message);
        json_decref(got);
        nd_status_release(&st);
        json_decref(op);
        json_decref(v);
        json_decref(d);
    }
}

static void test_json_patch_ops(void **state)
{
    (void)state;
    static const struct jp_row rows[] = {
        /* add */
        {"add at the end by index", "{'a':[1,2]}", "[{'op':'add','path':'/a/2','value':3}]",
         "{'a':[1,2,3]}", NULL, NULL},
        {"add at the front", "{'a':[1,2]}", "[{'op':'add','path':'/a/0','value':0}]",
         "{'a':[0,1,2]}", NULL, NULL},
        {"add replaces an existing member", "{'a':1}", "[{'op':'add','path':'/a','value':[2]}]",
         "{'a':[2]}", NULL, NULL},
        {"add the empty key", "{}", "[{'op':'add','path':'/','value':1}]", "{'':1}", NULL, NULL},
        {"add to the root replaces the document", "{'a':1}", "[{'op':'add','path':'','value':[1]}]",
         "[1]", NULL, NULL},
        {"add null", "{}", "[{'op':'add','path':'/n','value':null}]", "{'n':null}", NULL, NULL},
        {"add past the end", "{'a':[1]}", "[{'op':'add','path':'/a/2','value':3}]", NULL, "Invalid",
         "ops[0]: error in add for path: '/a/2': Unable to access invalid index: 2: invalid index "
         "referenced"},
        {"add with a leading zero", "{'a':[1,2]}", "[{'op':'add','path':'/a/01','value':3}]", NULL,
         "Invalid",
         "ops[0]: error in add for path: '/a/01': value was not a proper array index: '01'"},
        {"add with a negative index", "{'a':[1,2]}", "[{'op':'add','path':'/a/-1','value':3}]",
         NULL, "Invalid",
         "ops[0]: error in add for path: '/a/-1': value was not a proper array index: '-1'"},
        {"add under a scalar", "{'a':1}", "[{'op':'add','path':'/a/b','value':3}]", NULL, "Invalid",
         "ops[0]: add operation does not apply: doc is missing path: \"/a/b\": missing value"},
        {"add through a missing index", "{'a':[]}", "[{'op':'add','path':'/a/0/x','value':3}]",
         NULL, "Invalid",
         "ops[0]: add operation does not apply: doc is missing path: \"/a/0/x\": missing value"},
        /* remove */
        {"remove the last element", "{'a':[1,2]}", "[{'op':'remove','path':'/a/1'}]", "{'a':[1]}",
         NULL, NULL},
        {"remove a missing member", "{'a':1}", "[{'op':'remove','path':'/b'}]", NULL, "Invalid",
         "ops[0]: error in remove for path: '/b': unable to remove nonexistent key: b: missing "
         "value"},
        {"remove past the end", "{'a':[1]}", "[{'op':'remove','path':'/a/1'}]", NULL, "Invalid",
         "ops[0]: error in remove for path: '/a/1': Unable to access invalid index: 1: invalid "
         "index referenced"},
        {"remove '-'", "{'a':[1]}", "[{'op':'remove','path':'/a/-'}]", NULL, "Invalid",
         "ops[0]: error in remove for path: '/a/-': value was not a proper array index: '-'"},
        {"remove the document", "{'a':1}", "[{'op':'remove','path':''}]", NULL, "Invalid",
         "ops[0]: remove operation does not apply: doc is missing path: \"\": missing value"},
        {"remove under a missing parent", "{'a':1}", "[{'op':'remove','path':'/x/y'}]", NULL,
         "Invalid",
         "ops[0]: remove operation does not apply: doc is missing path: \"/x/y\": missing value"},
        /* replace */
        {"replace an element", "{'a':[1,2]}", "[{'op':'replace','path':'/a/0','value':9}]",
         "{'a':[9,2]}", NULL, NULL},
        {"replace the document", "{'a':1}", "[{'op':'replace','path':'','value':{'b':2}}]",
         "{'b':2}", NULL, NULL},
        {"replace a missing member", "{'a':1}", "[{'op':'replace','path':'/b','value':2}]", NULL,
         "Invalid",
         "ops[0]: replace operation does not apply: doc is missing key: /b: missing value"},
        {"replace past the end", "{'a':[1]}", "[{'op':'replace','path':'/a/1','value':2}]", NULL,
         "Invalid",
         "ops[0]: replace operation does not apply: doc is missing key: /a/1: missing value"},
        {"replace under a missing parent", "{}", "[{'op':'replace','path':'/x/y','value':2}]", NULL,
         "Invalid",
         "ops[0]: replace operation does not apply: doc is missing path: /x/y: missing "
         "value"},
        /* move */
        {"move to the end of another array", "{'a':[1,2],'b':[]}",
         "[{'op':'move','from':'/a/0','path':'/b/-'}]", "{'a':[2],'b':[1]}", NULL, NULL},
        {"move onto itself", "{'a':{'b':1}}", "[{'op':'move','from':'/a','path':'/a'}]",
         "{'a':{'b':1}}", NULL, NULL},
        {"move into the root", "{'a':{'b':1}}", "[{'op':'move','from':'/a','path':''}]", "{'b':1}",
         NULL, NULL},
        {"move into its own child", "{'a':{'b':1}}", "[{'op':'move','from':'/a','path':'/a/c'}]",
         NULL, "Invalid",
         "ops[0]: move operation does not apply: doc is missing destination path: /a/c: missing "
         "value"},
        {"move a missing member", "{'a':1}", "[{'op':'move','from':'/x','path':'/y'}]", NULL,
         "Invalid",
         "ops[0]: error in move for path: '/x': unable to get nonexistent key: x: missing value"},
        {"move from a missing parent", "{'a':1}", "[{'op':'move','from':'/x/y','path':'/y'}]", NULL,
         "Invalid",
         "ops[0]: move operation does not apply: doc is missing from path: /x/y: missing value"},
        {"move the document", "{'a':1}", "[{'op':'move','from':'','path':'/y'}]", NULL, "Invalid",
         "ops[0]: move operation does not apply: doc is missing from path: : missing value"},
        {"move to a bad index", "{'a':[1,2]}", "[{'op':'move','from':'/a/0','path':'/a/5'}]", NULL,
         "Invalid",
         "ops[0]: error in move for path: '/a/5': Unable to access invalid index: 5: invalid index "
         "referenced"},
        /* copy */
        {"copy a member", "{'a':{'b':[1]}}", "[{'op':'copy','from':'/a','path':'/c'}]",
         "{'a':{'b':[1]},'c':{'b':[1]}}", NULL, NULL},
        {"copy the document", "{'a':1}", "[{'op':'copy','from':'','path':'/self'}]",
         "{'a':1,'self':{'a':1}}", NULL, NULL},
        {"copies are independent", "{'a':{'b':1}}",
         "[{'op':'copy','from':'/a','path':'/c'},{'op':'replace','path':'/c/b','value':2}]",
         "{'a':{'b':1},'c':{'b':2}}", NULL, NULL},
        {"copy a missing member", "{'a':1}", "[{'op':'copy','from':'/x','path':'/y'}]", NULL,
         "Invalid",
         "ops[0]: error in copy for from: '/x': unable to get nonexistent key: x: missing value"},
        {"copy from a missing parent", "{}", "[{'op':'copy','from':'/x/y','path':'/y'}]", NULL,
         "Invalid",
         "ops[0]: copy operation does not apply: doc is missing from path: /x/y: missing value"},
        {"copy to a missing parent", "{'a':1}", "[{'op':'copy','from':'/a','path':'/x/y'}]", NULL,
         "Invalid",
         "ops[0]: copy operation does not apply: doc is missing destination path: /x/y: missing "
         "value"},
        {"copy past the end", "{'a':[1]}", "[{'op':'copy','from':'/a/0','path':'/a/3'}]", NULL,
         "Invalid",
         "ops[0]: error in copy for path: '/a/3': Unable to access invalid index: 3: invalid index "
         "referenced"},
        /* test */
        {"test integer against real", "{'a':1}", "[{'op':'test','path':'/a','value':1.0}]",
         "{'a':1}", NULL, NULL},
        {"test an object, member order aside", "{'a':{'x':1,'y':[2]}}",
         "[{'op':'test','path':'/a','value':{'y':[2],'x':1}}]", "{'a':{'x':1,'y':[2]}}", NULL,
         NULL},
        {"test the whole document", "{'a':1}", "[{'op':'test','path':'','value':{'a':1}}]",
         "{'a':1}", NULL, NULL},
        {"test null", "{'a':null}", "[{'op':'test','path':'/a','value':null}]", "{'a':null}", NULL,
         NULL},
        {"test a missing member against null", "{}", "[{'op':'test','path':'/a','value':null}]",
         NULL, "Invalid", "ops[0]: testing value /a failed: test failed"},
        {"test under a missing parent", "{}", "[{'op':'test','path':'/spec/x','value':1}]", NULL,
         "Invalid",
         "ops[0]: test operation does not apply: is missing path: /spec/x: missing value"},
        {"test past the end", "{'a':[]}", "[{'op':'test','path':'/a/0','value':1}]", NULL,
         "Invalid",
         "ops[0]: error in test for path: '/a/0': Unable to access invalid index: 0: invalid index "
         "referenced"},
        {"test a huge index", "{'a':[]}",
         "[{'op':'test','path':'/a/123456789012345678901234','value':1}]", NULL, "Invalid",
         "ops[0]: error in test for path: '/a/123456789012345678901234': Unable to access invalid "
         "index: 123456789012345678901234: invalid index referenced"},
        {"test the whole document, failing", "{'a':1}", "[{'op':'test','path':'','value':{}}]",
         NULL, "Invalid", "ops[0]: testing value  failed: test failed"},
        /* all or nothing: the third operation fails, nothing is returned */
        {"later failure", "{'metadata':{'resourceVersion':'7'},'spec':{'a':1}}",
         "[{'op':'replace','path':'/spec/a','value':2},{'op':'add','path':'/spec/b','value':3},"
         "{'op':'test','path':'/metadata/resourceVersion','value':'6'}]",
         NULL, "Invalid", "ops[2]: testing value /metadata/resourceVersion failed: test failed"},
        {"a sequence", "{'spec':{'a':1}}",
         "[{'op':'test','path':'/spec/a','value':1},{'op':'add','path':'/spec/l','value':[]},"
         "{'op':'add','path':'/spec/l/-','value':'x'},{'op':'add','path':'/spec/l/0','value':'w'},"
         "{'op':'move','from':'/spec/a','path':'/spec/l/1'},{'op':'remove','path':'/spec/l/2'}]",
         "{'spec':{'l':['w',1]}}", NULL, NULL},
        {"no operations", "{'a':1}", "[]", "{'a':1}", NULL, NULL},
    };
    run_json_patch(rows, sizeof rows / sizeof rows[0]);
}

static void test_json_patch_shape(void **state)
{
    (void)state;
    static const struct jp_row rows[] = {
        {"not an array", "{}", "{'op':'add'}", NULL, "BadRequest",
         "a JSON patch must be an array of operations, not an object"},
        {"not an object", "{}", "[1]", NULL, "BadRequest",
         "ops[0]: an operation must be an object, not a number"},
        {"no op", "{}", "[{'path':'/a'}]", NULL, "BadRequest", "ops[0]: missing \"op\""},
        {"op not a string", "{}", "[{'op':1,'path':'/a'}]", NULL, "BadRequest",
         "ops[0].op: must be a string, not a number"},
        {"unknown op", "{}", "[{'op':'test','path':'','value':{}},{'op':'merge','path':'/a'}]",
         NULL, "BadRequest",
         "ops[1].op: unknown operation \"merge\" (expected add, remove, replace, move, copy or "
         "test)"},
        {"no path", "{}", "[{'op':'remove'}]", NULL, "BadRequest", "ops[0]: missing \"path\""},
        {"path not a string", "{}", "[{'op':'remove','path':['a']}]", NULL, "BadRequest",
         "ops[0].path: must be a string, not an array"},
        {"path without a slash", "{}", "[{'op':'remove','path':'a/b'}]", NULL, "BadRequest",
         "ops[0].path: invalid JSON pointer \"a/b\": it must be empty or start with '/'"},
        {"bad escape", "{}", "[{'op':'remove','path':'/a/b~2'}]", NULL, "BadRequest",
         "ops[0].path: invalid JSON pointer \"/a/b~2\": '~' must be followed by '0' or '1' at "
         "character 5"},
        {"escape at the end", "{}", "[{'op':'remove','path':'/a~'}]", NULL, "BadRequest",
         "ops[0].path: invalid JSON pointer \"/a~\": '~' must be followed by '0' or '1' at "
         "character 3"},
        {"add without value", "{}", "[{'op':'add','path':'/a'}]", NULL, "BadRequest",
         "ops[0]: missing \"value\" (required by add)"},
        {"replace without value", "{}", "[{'op':'replace','path':'/a'}]", NULL, "BadRequest",
         "ops[0]: missing \"value\" (required by replace)"},
        {"test without value", "{}", "[{'op':'test','path':'/a'}]", NULL, "BadRequest",
         "ops[0]: missing \"value\" (required by test)"},
        {"move without from", "{}", "[{'op':'move','path':'/a'}]", NULL, "BadRequest",
         "ops[0]: missing \"from\" (required by move)"},
        {"copy with a bad from", "{}", "[{'op':'copy','path':'/a','from':true}]", NULL,
         "BadRequest", "ops[0].from: must be a string, not a boolean"},
        {"from without a slash", "{}", "[{'op':'copy','path':'/a','from':'x'}]", NULL, "BadRequest",
         "ops[0].from: invalid JSON pointer \"x\": it must be empty or start with '/'"},
        {"bad path after a good from", "{}", "[{'op':'copy','path':'~','from':'/x'}]", NULL,
         "BadRequest",
         "ops[0].path: invalid JSON pointer \"~\": it must be empty or start with '/'"},
        /* the shape of every operation is checked before any applies */
        {"shape before application", "{}",
         "[{'op':'test','path':'/missing','value':1},{'op':'remove'}]", NULL, "BadRequest",
         "ops[1]: missing \"path\""},
    };
    run_json_patch(rows, sizeof rows / sizeof rows[0]);
    struct nd_status st = ND_STATUS_INIT;
    assert_null(nd_json_patch_apply(NULL, NULL, &st));
    assert_string_equal(st.message, "a JSON patch must be an array of operations, not nothing");
    assert_int_equal(st.code, 400);
    nd_status_release(&st);
    /* a NULL document is null: only the root can be replaced */
    json_t *ops = J("[{'op':'add','path':'','value':{'a':1}}]");
    json_t *got = nd_json_patch_apply(NULL, ops, &st);
    assert_json_msg(got, "{'a':1}", "NULL doc");
    json_decref(got);
    json_decref(ops);
    nd_status_release(&st);
}

/* ---- bounds ---- */

static void test_json_patch_limits(void **state)
{
    (void)state;
    /* small limits keep the rows readable: 3 operations, 20 bytes of copies, depth 4 */
    static const struct nd_patch_limits small = {3, 20, 4, 0, 20};
    static const struct {
        const char *name, *doc, *ops;
        const char *want;             /* the result, or NULL on error */
        const char *reason, *message; /* on error */
    } rows[] = {
        {"ops at the limit", "{'a':1}",
         "[{'op':'test','path':'/a','value':1},{'op':'test','path':'/a','value':1},"
         "{'op':'test','path':'/a','value':1}]",
         "{'a':1}"},
        {"one op too many, before any applies", "{'a':1}",
         "[{'op':'test','path':'/a','value':1},{'op':'test','path':'/a','value':1},"
         "{'op':'test','path':'/a','value':1},{'op':'remove','path':'/nothing'}]",
         NULL, "RequestEntityTooLarge",
         "The allowed maximum operations in a JSON patch is 3, got 4"},
        {"copies within 20 bytes", "{'a':'xxxx'}",
         "[{'op':'copy','from':'/a','path':'/b'},{'op':'copy','from':'/a','path':'/c'}]",
         "{'a':'xxxx','b':'xxxx','c':'xxxx'}"},
        {"copies add up past 20 bytes", "{'a':{'k':'0123456789'}}",
         "[{'op':'copy','from':'/a','path':'/b'},{'op':'copy','from':'/b','path':'/c'}]", NULL,
         "Invalid",
         "ops[1]: Unable to complete the copy, the accumulated size increase of copy is 36, "
         "exceeding the limit 20"},
        {"a copy into itself doubles: stopped before it is made", "{'a':{'k':'0123456'}}",
         "[{'op':'copy','from':'/a','path':'/a/b'},{'op':'copy','from':'/a','path':'/a/c'}]", NULL,
         "Invalid",
         "ops[1]: Unable to complete the copy, the accumulated size increase of copy is 50, "
         "exceeding the limit 20"},
        {"copying the whole document counts", "{'k':'0123456789abcdefghij'}",
         "[{'op':'copy','from':'','path':'/b'}]", NULL, "Invalid",
         "ops[0]: Unable to complete the copy, the accumulated size increase of copy is 28, "
         "exceeding the limit 20"},
        {"add at depth 4", "{}", "[{'op':'add','path':'/a','value':{'b':{'c':{'d':1}}}}]",
         "{'a':{'b':{'c':{'d':1}}}}"},
        {"add nesting 5 deep", "{}", "[{'op':'add','path':'/a','value':{'b':{'c':{'d':{}}}}}]",
         NULL, "Invalid",
         "ops[0]: the value at \"/a\" would nest 5 levels deep, more than the limit of 4"},
        {"replace nesting 5 deep", "{'a':{'b':1}}",
         "[{'op':'replace','path':'/a/b','value':{'c':{'d':[[]]}}}]", NULL, "Invalid",
         "ops[0]: the value at \"/a/b\" would nest 6 levels deep, more than the limit of 4"},
        {"the root replaced by a value 5 deep", "{}", "[{'op':'add','path':'','value':[[[[[]]]]]}]",
         NULL, "Invalid",
         "ops[0]: the value at \"\" would nest 5 levels deep, more than the limit of 4"},
        {"copy nesting 6 deep", "{'a':{'b':{}},'c':{'d':{'e':{}}}}",
         "[{'op':'copy','from':'/c','path':'/a/b/c'}]", NULL, "Invalid",
         "ops[0]: the value at \"/a/b/c\" would nest 6 levels deep, more than the limit of 4"},
        {"move nesting 6 deep (measured)", "{'a':{'b':{}},'c':{'d':{'e':{}}}}",
         "[{'op':'move','from':'/c','path':'/a/b/c'}]", NULL, "Invalid",
         "ops[0]: the value at \"/a/b/c\" would nest 6 levels deep, more than the limit of 4"},
        {"move that fits once measured", "{'a':{'b':{'x':{}}},'c':{'d':1}}",
         "[{'op':'move','from':'/c','path':'/a/b/c'}]", "{'a':{'b':{'x':{},'c':{'d':1}}}}"},
        {"measuring moved values counts as steps",
         "{'a':{'b':{'z':{}}},'c':{'d':1,'e':2,'f':3,'g':4,'h':5,'i':6,'j':7,'k':8,'l':9,"
         "'m':10,'n':11,'o':12,'p':13,'q':14,'r':15,'s':16,'t':17,'u':18,'v':19,'w':20}}",
         "[{'op':'move','from':'/c','path':'/a/b/c'}]", NULL, "Invalid",
         "ops[0]: Unable to complete the move, the patch would take more than 20 steps (array "
         "elements shifted, moved values measured)"},
        {"inserts shift array elements: 9 + 0 + 11 fit", "{'a':[0,1,2,3,4,5,6,7,8,9]}",
         "[{'op':'add','path':'/a/1','value':1},{'op':'add','path':'/a/-','value':1},"
         "{'op':'move','from':'/a/11','path':'/a/0'}]",
         "{'a':[1,0,1,1,2,3,4,5,6,7,8,9]}"},
        {"then a removal passes 20", "{'a':[0,1,2,3,4,5,6,7,8,9]}",
         "[{'op':'add','path':'/a/0','value':1},{'op':'remove','path':'/a/0'},"
         "{'op':'remove','path':'/a/0'}]",
         NULL, "Invalid",
         "ops[2]: Unable to complete the remove, the patch would take more than 20 steps (array "
         "elements shifted, moved values measured)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *doc = J(rows[i].doc), *ops = J(rows[i].ops);
        char *before = canon(doc);
        struct nd_status st = ND_STATUS_INIT;
        json_t *got = nd_json_patch_apply_limited(doc, ops, &small, &st);
        if (rows[i].want) {
            if (!got)
                fail_msg("%s: %s", rows[i].name, st.message);
            assert_json_msg(got, rows[i].want, rows[i].name);
        } else {
            if (got)
                fail_msg("%s: expected an error", rows[i].name);
            if (strcmp(st.reason, rows[i].reason) != 0 || strcmp(st.message, rows[i].message) != 0)
                fail_msg("%s: got %s \"%s\", want %s \"%s\"", rows[i].name, st.reason, st.message,
                         rows[i].reason, rows[i].message);
        }
        char *after = canon(doc);
        assert_string_equal(before, after);
        free(before);
        free(after);
        json_decref(got);
        nd_status_release(&st);
        json_decref(doc);
        json_decref(ops);
    }
}

/* The finding: twenty copies of a member into itself in a 2.7 KB patch would double the
 * document twenty times (2.5 GB after 18); the default limits stop it at 3 MiB. */
static void test_json_patch_copy_bomb(void **state)
{
    (void)state;
    char seed[1201];
    memset(seed, 'x', 1200);
    seed[1200] = '\0';
    json_t *doc = json_pack("{s{s{}}}", "metadata", "annotations");
    json_t *ops = json_pack("[{sssss{ss}}]", "op", "add", "path", "/metadata/annotations", "value",
                            "seed", seed);
    for (int i = 1; i <= 20; i++) {
        char path[64];
        snprintf(path, sizeof path, "/metadata/annotations/c%d", i);
        json_array_append_new(ops, json_pack("{ssssss}", "op", "copy", "from",
                                             "/metadata/annotations", "path", path));
    }
    struct nd_status st = ND_STATUS_INIT;
    assert_null(nd_json_patch_apply(doc, ops, &st));
    assert_string_equal(st.reason, "Invalid");
    assert_int_equal(st.code, 422);
    assert_string_equal(st.message, "ops[12]: Unable to complete the copy, the accumulated size "
                                    "increase of copy is 4983547, exceeding the limit 3145728");
    nd_status_release(&st);
    /* without limits it would go on: 11 copies (about 2.5 MB) still apply */
    while (json_array_size(ops) > 12)
        json_array_remove(ops, json_array_size(ops) - 1);
    json_t *got = nd_json_patch_apply_limited(doc, ops, NULL, &st);
    assert_non_null(got);
    assert_true(json_dumpb(got, NULL, 0, JSON_COMPACT) > 2000000);
    json_decref(got);
    json_decref(ops);
    json_decref(doc);
}

static void test_patch_check_result(void **state)
{
    (void)state;
    static const struct nd_patch_limits lim = {0, 0, 3, 18};
    static const struct {
        const char *obj, *reason, *message;
    } rows[] = {
        {"{'a':'0123456789'}", NULL, NULL}, /* 18 bytes */
        {"{'a':'0123456789x'}", "RequestEntityTooLarge",
         "the patched object is 19 bytes, more than the limit of 18"},
        {"{'a':{'b':{}}}", NULL, NULL},
        {"{'a':[[[]]]}", "Invalid",
         "the patched object nests 4 levels deep, more than the "
         "limit of 3"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *obj = J(rows[i].obj);
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_patch_check_result(obj, &lim, &st);
        if (!rows[i].reason) {
            if (rc != 0)
                fail_msg("%s: %s", rows[i].obj, st.message);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, rows[i].reason);
            assert_string_equal(st.message, rows[i].message);
        }
        nd_status_release(&st);
        json_decref(obj);
    }
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_patch_check_result(NULL, NULL, &st), 0);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_apply_rfc7386), cmocka_unit_test(test_merge_apply_edges),
        cmocka_unit_test(test_merge_create),        cmocka_unit_test(test_merge_round_trip),
        cmocka_unit_test(test_three_way),           cmocka_unit_test(test_three_way_errors),
        cmocka_unit_test(test_json_patch_rfc6902),  cmocka_unit_test(test_json_patch_pointers),
        cmocka_unit_test(test_json_patch_ops),      cmocka_unit_test(test_json_patch_shape),
        cmocka_unit_test(test_json_patch_limits),   cmocka_unit_test(test_json_patch_copy_bomb),
        cmocka_unit_test(test_patch_check_result),
    };
    return cmocka_run_group_tests_name("patch", tests, NULL, NULL);
}
