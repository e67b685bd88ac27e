/* Unit tests of pkg/patch/strategic.c: strategic merge patch as kube-apiserver applies it
 * to a built-in kind (maps merge, null deletes, list strategies, directives, errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "patch/strategic.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "test_json.h"

/* A kind's own fields for the tests (ObjectMeta's come with every kind). */
static const struct nd_smp_field fields[] = {
    {"spec.containers", ND_SMP_MERGE, "name"},
    {"spec.containers.ports", ND_SMP_MERGE, "containerPort"},
    {"spec.tags", ND_SMP_MERGE, NULL},
    {"spec.args", ND_SMP_REPLACE, NULL},
    {"spec.tpl", ND_SMP_REPLACE, NULL},
    {"spec.nokey", ND_SMP_MERGE, NULL},
    {NULL, 0, NULL},
};

struct row {
    const char *target, *patch;
    const char *want;    /* the result, or NULL for an error */
    const char *reason;  /* the error's reason */
    const char *message; /* its message, or its beginning when it ends with "..." */
};

static void run_rows(const struct row *rows, size_t n, const struct nd_patch_limits *lim)
{
    for (size_t i = 0; i < n; i++) {
        json_t *t = J(rows[i].target), *p = J(rows[i].patch);
        char *t0 = canon(t), *p0 = canon(p);
        struct nd_status st = ND_STATUS_INIT;
        json_t *got = nd_strategic_patch_apply(t, p, fields, lim, &st);
        if (rows[i].want) {
            if (!got)
                fail_msg("%s: %s", rows[i].patch, st.message);
            json_t *w = J(rows[i].want);
            char *a = canon(got), *b = canon(w);
            if (strcmp(a, b) != 0)
                fail_msg("%s on %s: got %s, want %s", rows[i].patch, rows[i].target, a, b);
            free(a);
            free(b);
            json_decref(w);
        } else {
            if (got)
                fail_msg("%s: no error", rows[i].patch);
            assert_string_equal(st.reason, rows[i].reason);
            size_t len = strlen(rows[i].message);
            if (len > 3 && strcmp(rows[i].message + len - 3, "...") == 0)
                assert_int_equal(strncmp(st.message, rows[i].message, len - 3), 0);
            else
                assert_string_equal(st.message, rows[i].message);
            assert_non_null(st.fix);
        }
        /* neither input is modified */
        char *t1 = canon(t), *p1 = canon(p);
        assert_string_equal(t0, t1);
        assert_string_equal(p0, p1);
        free(t0), free(t1), free(p0), free(p1);
        nd_status_release(&st);
        json_decref(got);
        json_decref(t);
        json_decref(p);
    }
}

#define RUN(rows, lim) run_rows(rows, sizeof rows / sizeof rows[0], lim)

static void test_maps(void **state)
{
    (void)state;
    static const struct row rows[] = {
        /* maps merge, null deletes, a null that matches nothing is ignored */
        {"{'a':{'b':1,'c':2}}", "{'a':{'c':null,'d':3}}", "{'a':{'b':1,'d':3}}"},
        {"{}", "{'x':null}", "{}"},
        {"{}", "{'a':{'b':null,'c':1}}", "{'a':{'c':1}}"},
        {"{'a':{'b':1}}", "{'a':'s'}", "{'a':'s'}"},
        {"{'a':'s'}", "{'a':{'b':1,'c':null}}", "{'a':{'b':1}}"},
        {"{'a':1}", "{'a':2.5}", "{'a':2.5}"},
        /* an object field with the replace strategy */
        {"{'spec':{'tpl':{'x':1}}}", "{'spec':{'tpl':{'y':2}}}", "{'spec':{'tpl':{'y':2}}}"},
        /* $patch in a map */
        {"{'a':{'b':1,'c':2}}", "{'a':{'$patch':'replace','d':3}}", "{'a':{'d':3}}"},
        {"{'a':{'b':1}}", "{'a':{'$patch':'delete'}}", "{'a':{}}"},
        /* $retainKeys: the members not named are cleared, then the patch merges */
        {"{'s':{'type':'A','a':1,'b':2}}", "{'s':{'$retainKeys':['type','b'],'type':'B'}}",
         "{'s':{'type':'B','b':2}}"},
        {"{'s':{'a':1}}", "{'s':{'$retainKeys':['a'],'z':null}}", "{'s':{'a':1}}"},
        /* lists are replaced unless their field merges */
        {"{'x':[1,2]}", "{'x':[3]}", "{'x':[3]}"},
        {"{'spec':{'args':['a','b']}}", "{'spec':{'args':['c',{'k':null}]}}",
         "{'spec':{'args':['c',{}]}}"},
        {"{'metadata':{'managedFields':[{'manager':'a'}]}}",
         "{'metadata':{'managedFields':[{'manager':'b'}]}}",
         "{'metadata':{'managedFields':[{'manager':'b'}]}}"},
    };
    RUN(rows, NULL);
}

static void test_lists(void **state)
{
    (void)state;
    static const struct row rows[] = {
        /* scalars merge by value: the patch's new values first, as apimachinery orders */
        {"{'spec':{'tags':['a','b']}}", "{'spec':{'tags':['c','a']}}",
         "{'spec':{'tags':['c','a','b']}}"},
        {"{'metadata':{'finalizers':['x']}}", "{'metadata':{'finalizers':['y','x']}}",
         "{'metadata':{'finalizers':['y','x']}}"},
        {"{'metadata':{'finalizers':['x']}}", "{'metadata':{'finalizers':['y']}}",
         "{'metadata':{'finalizers':['y','x']}}"},
        {"{}", "{'metadata':{'finalizers':['y','y']}}", "{'metadata':{'finalizers':['y']}}"},
        {"{'spec':{'tags':['a','b','c']}}", "{'spec':{'$deleteFromPrimitiveList/tags':['b','z']}}",
         "{'spec':{'tags':['a','c']}}"},
        {"{'spec':{}}", "{'spec':{'$deleteFromPrimitiveList/tags':['b']}}", "{'spec':{}}"},
        {"{'spec':{'tags':['a','b']}}",
         "{'spec':{'$setElementOrder/tags':['b','a','c'],'tags':['c']}}",
         "{'spec':{'tags':['b','a','c']}}"},
        /* objects merge by the merge key, numbers equal as numbers */
        {"{'spec':{'containers':[{'name':'a','image':'1'},{'name':'b','image':'2'}]}}",
         "{'spec':{'containers':[{'name':'b','image':'3'},{'name':'c','image':'4'}]}}",
         "{'spec':{'containers':[{'name':'a','image':'1'},{'name':'b','image':'3'},"
         "{'name':'c','image':'4'}]}}"},
        {"{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80,'p':'x'}]}]}}",
         "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80.0,'q':1},"
         "{'containerPort':81}]}]}}",
         "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80.0,'p':'x','q':1},"
         "{'containerPort':81}]}]}}"},
        {"{'metadata':{'ownerReferences':[{'uid':'1','name':'a'}]}}",
         "{'metadata':{'ownerReferences':[{'uid':'2','name':'b'},{'uid':'1','kind':'K'}]}}",
         "{'metadata':{'ownerReferences':[{'uid':'2','name':'b'},{'uid':'1','name':'a',"
         "'kind':'K'}]}}"},
        /* $patch elements of a list of objects */
        {"{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
         "{'spec':{'containers':[{'name':'a','$patch':'delete'}]}}",
         "{'spec':{'containers':[{'name':'b'}]}}"},
        {"{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
         "{'spec':{'containers':[{'$patch':'replace'},{'name':'z','x':null}]}}",
         "{'spec':{'containers':[{'name':'z'}]}}"},
        {"{}", "{'spec':{'containers':[{'name':'a','$patch':'delete'},{'name':'b'}]}}",
         "{'spec':{'containers':[{'name':'b'}]}}"},
        {"{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
         "{'spec':{'$setElementOrder/containers':[{'name':'b'},{'name':'a'}]}}",
         "{'spec':{'containers':[{'name':'b'},{'name':'a'}]}}"},
        {"{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
         "{'spec':{'$setElementOrder/containers':[{'name':'c'},{'name':'b'}],"
         "'containers':[{'name':'c'},{'name':'a','$patch':'delete'}]}}",
         "{'spec':{'containers':[{'name':'c'},{'name':'b'}]}}"},
        /* a list where the original has something else */
        {"{'spec':{'tags':'x'}}", "{'spec':{'tags':['a']}}", "{'spec':{'tags':['a']}}"},
        {"{'spec':{'tags':[]}}", "{'spec':{'tags':[]}}", "{'spec':{'tags':[]}}"},
    };
    RUN(rows, NULL);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"{}", "[1]", NULL, "BadRequest", "a strategic merge patch must be a JSON object, not ..."},
        {"{'a':{}}", "{'a':{'$patch':'merge'}}", NULL, "BadRequest",
         "unknown patch type in map: {\"$patch\":\"merge\"}"},
        {"{}", "{'$patch':7}", NULL, "BadRequest", "unknown patch type in map: {\"$patch\":7}"},
        {"{'spec':{'containers':[{'name':'a'}]}}", "{'spec':{'containers':[{'image':'x'}]}}", NULL,
         "BadRequest", "map: {\"image\":\"x\"} does not contain declared merge key: name"},
        {"{'spec':{'containers':[{'name':'a'}]}}", "{'spec':{'containers':[{'$patch':'delete'}]}}",
         NULL, "BadRequest",
         "map: {\"$patch\":\"delete\"} does not contain declared merge key: name"},
        {"{'spec':{'containers':[{'name':'a'}]}}",
         "{'spec':{'containers':[{'name':'a','$patch':'merge'}]}}", NULL, "BadRequest",
         "merging lists cannot yet be specified in the patch"},
        {"{'spec':{'containers':[{'name':'a'}]}}",
         "{'spec':{'containers':[{'name':'a','$patch':'x'}]}}", NULL, "BadRequest",
         "unknown patch type in a list element: {\"name\":\"a\",\"$patch\":\"x\"}"},
        {"{'spec':{'tags':[['a']]}}", "{'spec':{'tags':[['b']]}}", NULL, "Invalid",
         "lists of lists are not supported"},
        {"{'spec':{'tags':['a']}}", "{'spec':{'tags':[1]}}", NULL, "BadRequest",
         "list element types are not identical: [1]"},
        {"{'spec':{'nokey':[{'a':1}]}}", "{'spec':{'nokey':[{'a':2}]}}", NULL, "BadRequest",
         "cannot merge lists without merge key for type map"},
        {"{'s':{}}", "{'s':{'$retainKeys':'a'}}", NULL, "BadRequest",
         "invalid patch format of retainKeys"},
        {"{'s':{}}", "{'s':{'$retainKeys':['a'],'b':1}}", NULL, "BadRequest",
         "invalid patch format of retainKeys"},
        {"{}", "{'$setElementOrderx':[]}", NULL, "BadRequest",
         "invalid patch format of setElementOrder list"},
        {"{}", "{'$setElementOrder/x':'a'}", NULL, "BadRequest",
         "invalid patch format of setElementOrder list: \"a\""},
        {"{}", "{'$deleteFromPrimitiveListx':[]}", NULL, "BadRequest",
         "invalid patch format of primitive list"},
        {"{'spec':{'tags':['a']}}", "{'spec':{'$setElementOrder/tags':['a'],'tags':['b']}}", NULL,
         "BadRequest",
         "The order in patch list: [\"b\"] doesn't match $setElementOrder list: [\"a\"]"},
    };
    RUN(rows, NULL);
}

static void test_limits(void **state)
{
    (void)state;
    const struct nd_patch_limits lim = {.max_steps = 40};
    static const struct row rows[] = {
        {"{'spec':{'tags':['a','b']}}", "{'spec':{'tags':['c']}}",
         "{'spec':{'tags':['c','a','b']}}"},
        {"{'spec':{'tags':['a','b','c','d','e','f','g','h']}}",
         "{'spec':{'tags':['i','j','k','l']}}", NULL, "Invalid",
         "the strategic merge patch would take more than 40 steps (list elements compared)"},
    };
    RUN(rows, &lim);
    /* a NULL target counts as {}; ObjectMeta's strategies hold with no table of the kind */
    struct nd_status st = ND_STATUS_INIT;
    json_t *p = J("{'metadata':{'finalizers':['a']}}");
    json_t *got = nd_strategic_patch_apply(NULL, p, NULL, NULL, &st);
    char *s = canon(got);
    assert_string_equal(s, "{\"metadata\":{\"finalizers\":[\"a\"]}}");
    free(s);
    json_decref(got);
    json_decref(p);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests_name("strategic", tests, NULL, NULL);
}
