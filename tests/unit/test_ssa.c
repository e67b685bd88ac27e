/* Unit tests of pkg/patch/ssa: server-side apply (merge, prune, conflicts, force),
 * ownership of ordinary writes. Field sets are tested in test_ssa_fieldset.c, the checks
 * of client input in test_ssa_check.c. JSON is written with ' for " (see J); the tables are kept
 * out of clang-format so each object reads as one. */
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

/* clang-format off */
#define T0  "2026-01-01T00:00:00Z"
#define NOW "2026-02-02T10:00:00Z"

/* The parts every object repeats. */
#define HEAD "'apiVersion':'nodus.dev/v1','kind':'Job'"
#define META "'name':'j1','namespace':'p1','uid':'job_1','resourceVersion':'7'"
#define APPLY(mgr, time, fields) \
    "{'manager':'" mgr "','operation':'Apply','apiVersion':'nodus.dev/v1','time':'" time "'," \
    "'fieldsType':'FieldsV1','fieldsV1':" fields "}"
#define UPDATE(mgr, time, fields) \
    "{'manager':'" mgr "','operation':'Update','apiVersion':'nodus.dev/v1','time':'" time "'," \
    "'fieldsType':'FieldsV1','fieldsV1':" fields "}"

/* kubectl applied labels.app, spec.image and spec.maxCostUSD at T0. */
#define F_K "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{},'f:maxCostUSD':{}}}"
#define CFG_K \
    "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}}," \
    "'spec':{'image':'a','maxCostUSD':'10'}}"
#define LIVE_K \
    "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}," \
    "'managedFields':[" APPLY("kubectl", T0, F_K) "]}," \
    "'spec':{'image':'a','maxCostUSD':'10'}}"
/* clang-format on */

static void assert_json(const json_t *actual, const char *expected, const char *what)
{
    json_t *e = J(expected);
    char *a = actual ? canon(actual) : NULL, *x = canon(e);
    if (!a || strcmp(a, x) != 0)
        fail_msg("%s:\n got  %s\n want %s", what, a ? a : "(nothing)", x);
    free(a);
    free(x);
    json_decref(e);
}

/* ---- apply ---- */

struct apply_case {
    const char *name;
    const char *live; /* NULL: the object does not exist */
    const char *applied;
    const char *manager;
    bool force;
    const char *want;    /* the object to store; NULL when the apply fails */
    const char *reason;  /* when it fails */
    const char *message; /* when it fails */
    const char *causes;  /* when it fails: details.causes, or NULL for none */
};

static void run_apply(const struct apply_case *c)
{
    json_t *live = J(c->live), *applied = J(c->applied), *out = (json_t *)1;
    char *live_before = live ? canon(live) : NULL, *applied_before = canon(applied);
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_ssa_apply(
        live, applied,
        &(struct nd_ssa_opts){
            .manager = c->manager, .force = c->force, .api_version = "nodus.dev/v1", .now = NOW},
        &out, &st);
    if (c->want) {
        if (rc != 0)
            fail_msg("%s: failed: %s", c->name, st.message);
        assert_json(out, c->want, c->name);
    } else {
        if (rc != -1)
            fail_msg("%s: did not fail", c->name);
        assert_null(out);
        assert_string_equal(st.reason, c->reason);
        if (strcmp(st.message, c->message) != 0)
            fail_msg("%s:\n got  %s\n want %s", c->name, st.message, c->message);
        json_t *causes = st.details ? json_object_get(st.details, "causes") : NULL;
        if (c->causes)
            assert_json(causes, c->causes, c->name);
        else
            assert_null(causes);
    }
    /* the inputs are untouched */
    if (live) {
        char *after = canon(live);
        assert_string_equal(after, live_before);
        free(after);
    }
    char *after = canon(applied);
    assert_string_equal(after, applied_before);
    free(after);
    free(live_before);
    free(applied_before);
    nd_status_release(&st);
    json_decref(out);
    json_decref(live);
    json_decref(applied);
}

/* clang-format off */
static const struct apply_case create_and_reapply[] = {
    {"create on apply", NULL,
     "{" HEAD ",'metadata':{'name':'j1','namespace':'p1','labels':{'app':'web'},"
     "'managedFields':null},'spec':{'image':'a','maxCostUSD':'10',"
     "'resources':{'gpu':{'model':'h100','count':1}},'command':['run','--fast']},"
     "'status':{'phase':'Running'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{'name':'j1','namespace':'p1','labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", NOW,
         "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:command':{},'f:image':{},"
         "'f:maxCostUSD':{},'f:resources':{'f:gpu':{'f:count':{},'f:model':{}}}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10','resources':{'gpu':{'model':'h100','count':1}},"
     "'command':['run','--fast']}}"},
    /* nothing changes, not even the entry's time */
    {"re-apply unchanged", LIVE_K, CFG_K, "kubectl", false, LIVE_K},
    {"apply changing its own field", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},"
     "'spec':{'image':'b','maxCostUSD':'10'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", NOW, F_K) "]},"
     "'spec':{'image':'b','maxCostUSD':'10'}}"},
    {"two managers, disjoint fields", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'replicas':2}}",
     "ci", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     APPLY("ci", NOW, "{'f:spec':{'f:replicas':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10','replicas':2}}"},
    /* the same value is no conflict: both own the field */
    {"same value shared", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'image':'a','replicas':3}}",
     "ci", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     APPLY("ci", NOW, "{'f:spec':{'f:image':{},'f:replicas':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10','replicas':3}}"},
    /* a second manager applying the same values changes the entries, not the object */
    {"same values only", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'image':'a'}}",
     "ci", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     APPLY("ci", NOW, "{'f:spec':{'f:image':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    /* status belongs to the status subresource */
    {"status ignored",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'phase':'Running'}}",
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'phase':'Failed','x':1}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'phase':'Running'}}"},
    /* system metadata in the configuration is not the apply's to set */
    {"system metadata ignored", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1','uid':'other','generation':9,"
     "'labels':{'app':'web'}},'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl", false, LIVE_K},
    /* an apply that sets nothing drops what it set and its entry */
    {"empty configuration", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META "}}"},
};

#define LIVE_U \
    "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':[" \
    APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}}}") "," \
    UPDATE("kubectl-client-side-apply", T0, \
           "{'f:spec':{'f:image':{},'f:maxCostUSD':{},'f:priority':{}}}") "," \
    UPDATE("kubectl-edit", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]}," \
    "'spec':{'image':'a','maxCostUSD':'10','priority':'low'}}"
#define CFG_U \
    "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web','team':'blue'}}," \
    "'spec':{'image':'b','maxCostUSD':'20'}}"

static const struct apply_case conflicts[] = {
    {"conflict with an Apply manager", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'maxCostUSD':'20'}}",
     "ci", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxCostUSD",
     "[{'reason':'FieldManagerConflict','field':'.spec.maxCostUSD',"
     "'message':'conflict with \\\"kubectl\\\"'}]"},
    {"conflict with an Update manager", LIVE_U,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'maxCostUSD':'20'}}",
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using "
     "nodus.dev/v1: .spec.maxCostUSD",
     "[{'reason':'FieldManagerConflict','field':'.spec.maxCostUSD',"
     "'message':'conflict with \\\"kubectl-client-side-apply\\\" using nodus.dev/v1'}]"},
    /* every conflict is reported, grouped by manager in Kubernetes' order */
    {"conflicts with two Update managers", LIVE_U, CFG_U,
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 3 conflicts: conflicts with \"kubectl-client-side-apply\" using "
     "nodus.dev/v1:\n- .spec.image\n- .spec.maxCostUSD\n"
     "conflicts with \"kubectl-edit\" using nodus.dev/v1:\n- .metadata.labels.team",
     "[{'reason':'FieldManagerConflict','field':'.spec.image',"
     "'message':'conflict with \\\"kubectl-client-side-apply\\\" using nodus.dev/v1'},"
     "{'reason':'FieldManagerConflict','field':'.spec.maxCostUSD',"
     "'message':'conflict with \\\"kubectl-client-side-apply\\\" using nodus.dev/v1'},"
     "{'reason':'FieldManagerConflict','field':'.metadata.labels.team',"
     "'message':'conflict with \\\"kubectl-edit\\\" using nodus.dev/v1'}]"},
    /* force takes the fields; an entry left empty goes */
    {"force takes ownership", LIVE_U, CFG_U,
     "kubectl", true,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'blue'},'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{},'f:team':{}}},"
                           "'f:spec':{'f:image':{},'f:maxCostUSD':{}}}") ","
     UPDATE("kubectl-client-side-apply", T0, "{'f:spec':{'f:priority':{}}}") "]},"
     "'spec':{'image':'b','maxCostUSD':'20','priority':'low'}}"},
    {"atomic list conflicts whole",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("ci", T0, "{'f:spec':{'f:command':{}}}") "]},'spec':{'command':['a','b']}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'command':['a','b','c']}}",
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"ci\": .spec.command",
     "[{'reason':'FieldManagerConflict','field':'.spec.command',"
     "'message':'conflict with \\\"ci\\\"'}]"},
    /* the owner of an object (".") conflicts when a value replaces it */
    {"object replaced by a value",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     UPDATE("kubectl-create", T0, "{'f:spec':{'.':{},'f:w':{'.':{},'f:a':{}}}}") "]},"
     "'spec':{'w':{'a':1}}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'w':7}}",
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"kubectl-create\" using nodus.dev/v1: .spec.w",
     "[{'reason':'FieldManagerConflict','field':'.spec.w',"
     "'message':'conflict with \\\"kubectl-create\\\" using nodus.dev/v1'}]"},
    {"conflict with a subresource manager",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     "{'manager':'ctl','operation':'Update','apiVersion':'nodus.dev/v1','time':'" T0 "',"
     "'fieldsType':'FieldsV1','fieldsV1':{'f:spec':{'f:x':{}}},'subresource':'status'}]},"
     "'spec':{'x':1}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'x':2}}",
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"ctl\" with subresource \"status\" using "
     "nodus.dev/v1: .spec.x",
     "[{'reason':'FieldManagerConflict','field':'.spec.x',"
     "'message':'conflict with \\\"ctl\\\" with subresource \\\"status\\\" using nodus.dev/v1'}]"},
    /* a field someone claims but the object lacks: adding it is a change too */
    {"conflict on an added field",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("ci", T0, "{'f:spec':{'f:x':{}}}") "]},'spec':{}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'x':2}}",
     "kubectl", false, NULL, "Conflict",
     "Apply failed with 1 conflict: conflict with \"ci\": .spec.x",
     "[{'reason':'FieldManagerConflict','field':'.spec.x','message':'conflict with \\\"ci\\\"'}]"},
    {"configuration not an object", LIVE_K, "['x']",
     "kubectl", false, NULL, "BadRequest", "the apply configuration must be an object", NULL},
    {"managedFields in the configuration", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1','managedFields':[]}}",
     "kubectl", false, NULL, "BadRequest", "metadata.managedFields must be nil", NULL},
    {"no field manager", LIVE_K, CFG_K,
     "", false, NULL, "Invalid", "fieldManager: Required value: is required for apply patch",
     "[{'reason':'FieldValueRequired','field':'fieldManager',"
     "'message':'Required value: is required for apply patch'}]"},
    {"unreadable managedFields",
     "{" HEAD ",'metadata':{" META ",'managedFields':[{'manager':'x','operation':'Apply',"
     "'fieldsV1':{'bad':{}}}]}}",
     CFG_K, "kubectl", false, NULL, "InternalError",
     "failed to decode managed fields: metadata.managedFields[0].fieldsV1: Invalid value: "
     "\"bad\": a field name must be \".\" or start with \"f:\", \"v:\", \"k:\" or \"i:\"",
     NULL},
};

#undef LIVE_U
#undef CFG_U

#define F_BILLING "{'f:metadata':{'f:finalizers':{'.':{},'v:\\\"nodus.dev/billing\\\"':{}}}}"

static const struct apply_case prune_and_merge[] = {
    {"removing a field removes it", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},'spec':{'image':'a'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
     "]},'spec':{'image':'a'}}"},
    {"removed field kept for another applier",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) "," APPLY("ci", T0, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},'spec':{'image':'a'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
     "," APPLY("ci", T0, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    {"removed field kept for an Update manager",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     UPDATE("kubectl-edit", T0, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},'spec':{'image':'a'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
     "," UPDATE("kubectl-edit", T0, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    /* an object nobody owns anything in any more goes whole */
    {"removed object goes whole",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("kubectl", T0, "{'f:spec':{'f:image':{},'f:resources':{'f:gpu':{'f:model':{}}}}}")
     "]},'spec':{'image':'a','resources':{'gpu':{'model':'h100','count':1}}}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'image':'a'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("kubectl", NOW, "{'f:spec':{'f:image':{}}}") "]},'spec':{'image':'a'}}"},
    /* labels are granular: each key has its owner */
    {"labels merge key by key",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}}}") ","
     UPDATE("kubectl-label", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]}}",
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web','tier':'1'}}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red','tier':'1'},"
     "'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{},'f:tier':{}}}}") ","
     UPDATE("kubectl-label", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]}}"},
    {"dropping a label removes only it",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red','tier':'1'},"
     "'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{},'f:tier':{}}}}") ","
     UPDATE("kubectl-label", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]}}",
     "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':["
     APPLY("kubectl", NOW, "{'f:metadata':{'f:labels':{'f:app':{}}}}") ","
     UPDATE("kubectl-label", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]}}"},
    {"dropping the last label removes the map", LIVE_K,
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("kubectl", NOW, "{'f:spec':{'f:image':{},'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    /* a list is one value: replaced, never merged */
    {"atomic list replaced whole",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("kubectl", T0, "{'f:spec':{'f:command':{}}}") "]},'spec':{'command':['a','b']}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'command':['c']}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("kubectl", NOW, "{'f:spec':{'f:command':{}}}") "]},'spec':{'command':['c']}}"},
    {"forced list replaced whole",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("ci", T0, "{'f:spec':{'f:command':{},'f:x':{}}}") "]},"
     "'spec':{'command':['a','b'],'x':1}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'command':['c']}}",
     "kubectl", true,
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     APPLY("ci", T0, "{'f:spec':{'f:x':{}}}") ","
     APPLY("kubectl", NOW, "{'f:spec':{'f:command':{}}}") "]},"
     "'spec':{'command':['c'],'x':1}}"},
    /* finalizers are a set: items union (repeats dropped), each owned on its own */
    {"finalizers union",
     "{" HEAD ",'metadata':{" META ",'finalizers':['nodus.dev/billing'],'managedFields':["
     UPDATE("nodus", T0, F_BILLING) "]}}",
     "{" HEAD ",'metadata':{'name':'j1','finalizers':['example.com/keep','example.com/keep']}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'finalizers':['nodus.dev/billing','example.com/keep'],"
     "'managedFields':[" UPDATE("nodus", T0, F_BILLING) ","
     APPLY("kubectl", NOW, "{'f:metadata':{'f:finalizers':{'v:\\\"example.com/keep\\\"':{}}}}")
     "]}}"},
    {"finalizer pruned alone",
     "{" HEAD ",'metadata':{" META ",'finalizers':['nodus.dev/billing','example.com/keep'],"
     "'managedFields':[" UPDATE("nodus", T0, F_BILLING) ","
     APPLY("kubectl", T0, "{'f:metadata':{'f:finalizers':{'v:\\\"example.com/keep\\\"':{}}},"
                          "'f:spec':{'f:x':{}}}") "]},'spec':{'x':1}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'x':1}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'finalizers':['nodus.dev/billing'],'managedFields':["
     UPDATE("nodus", T0, F_BILLING) ","
     APPLY("kubectl", NOW, "{'f:spec':{'f:x':{}}}") "]},'spec':{'x':1}}"},
    /* structured-merge-diff's set merge: shared items in the applied order, live-only
     * items where they were, applied-only items after the shared one before them */
    {"finalizers reordered",
     "{" HEAD ",'metadata':{" META ",'finalizers':['a','b','z'],'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:finalizers':{'v:\\\"a\\\"':{},'v:\\\"b\\\"':{}}}}")
     "]}}",
     "{" HEAD ",'metadata':{'name':'j1','finalizers':['b','c','a']}}",
     "kubectl", false,
     "{" HEAD ",'metadata':{" META ",'finalizers':['b','z','c','a'],'managedFields':["
     APPLY("kubectl", NOW,
           "{'f:metadata':{'f:finalizers':{'v:\\\"a\\\"':{},'v:\\\"b\\\"':{},'v:\\\"c\\\"':{}}}}")
     "]}}"},
    /* objects merge member by member; with force a value replaces an owned object */
    {"nested merge",
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     UPDATE("kubectl-create", T0, "{'f:spec':{'.':{},'f:r':{'.':{},'f:gpu':{'.':{},'f:count':{}}},"
                                  "'f:w':{'.':{},'f:a':{}}}}") "]},"
     "'spec':{'r':{'gpu':{'count':1}},'w':{'a':1}}}",
     "{" HEAD ",'metadata':{'name':'j1'},'spec':{'r':{'gpu':{'model':'h100'}},'w':7}}",
     "kubectl", true,
     "{" HEAD ",'metadata':{" META ",'managedFields':["
     UPDATE("kubectl-create", T0,
            "{'f:spec':{'.':{},'f:r':{'.':{},'f:gpu':{'.':{},'f:count':{}}}}}")
     "," APPLY("kubectl", NOW, "{'f:spec':{'f:r':{'f:gpu':{'f:model':{}}},'f:w':{}}}") "]},"
     "'spec':{'r':{'gpu':{'count':1,'model':'h100'}},'w':7}}"},
};
/* clang-format on */

static void test_apply_create_and_reapply(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof create_and_reapply / sizeof create_and_reapply[0]; i++)
        run_apply(&create_and_reapply[i]);
}

static void test_apply_conflicts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++)
        run_apply(&conflicts[i]);
}

static void test_apply_prune_and_merge(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof prune_and_merge / sizeof prune_and_merge[0]; i++)
        run_apply(&prune_and_merge[i]);
}

/* ---- ordinary writes ---- */

struct update_case {
    const char *name;
    const char *old; /* NULL: a create */
    const char *new;
    const char *manager, *sub;
    const char *want;
};

/* clang-format off */
static const struct update_case updates[] = {
    {"create", NULL,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'finalizers':['x']},"
     "'spec':{'image':'a','env':{},'resources':{'gpu':{'model':'h100'}}},"
     "'status':{'phase':'Pending'}}",
     "kubectl-create", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'finalizers':['x'],'managedFields':["
     UPDATE("kubectl-create", NOW,
            "{'f:metadata':{'f:finalizers':{'.':{},'v:\\\"x\\\"':{}},"
            "'f:labels':{'.':{},'f:app':{}}},"
            "'f:spec':{'.':{},'f:env':{},'f:image':{},"
            "'f:resources':{'.':{},'f:gpu':{'.':{},'f:model':{}}}}}") "]},"
     "'spec':{'image':'a','env':{},'resources':{'gpu':{'model':'h100'}}},"
     "'status':{'phase':'Pending'}}"},
    /* a changed field is taken from its owner, Apply managers included */
    {"change takes over", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'20'}}",
     "kubectl-edit", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}") ","
     UPDATE("kubectl-edit", NOW, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'20'}}"},
    /* the client left managedFields out (a PUT): the stored ones stay */
    {"nothing changed", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl-replace", "", LIVE_K},
    {"removal leaves every entry",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     UPDATE("kubectl-label", T0, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}},'spec':{'image':'a'}}",
     "kubectl-patch", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
     "]},'spec':{'image':'a'}}"},
    /* the manager's Update entry grows */
    {"merged into its entry",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}") ","
     UPDATE("kubectl-edit", T0, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'20'}}",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}},"
     "'spec':{'image':'b','maxCostUSD':'20'}}",
     "kubectl-edit", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}}}") ","
     UPDATE("kubectl-edit", NOW, "{'f:spec':{'f:image':{},'f:maxCostUSD':{}}}") "]},"
     "'spec':{'image':'b','maxCostUSD':'20'}}"},
    /* the status subresource: status is tracked, the entry says so; the client's
     * managedFields (here a reset) do not count on a subresource */
    {"status subresource",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'phase':'Pending'}}",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':[]},"
     "'spec':{'image':'z','maxCostUSD':'10'},'status':{'phase':'Running','message':'ok'}}",
     "nodus", "status",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':["
     APPLY("kubectl", T0, F_K) ","
     "{'manager':'nodus','operation':'Update','apiVersion':'nodus.dev/v1','time':'" NOW "',"
     "'fieldsType':'FieldsV1','fieldsV1':{'f:status':{'f:message':{},'f:phase':{}}},"
     "'subresource':'status'}]},"
     "'spec':{'image':'z','maxCostUSD':'10'},'status':{'phase':'Running','message':'ok'}}"},
    /* the main resource does not track status */
    {"status change on the object",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'p':1}}",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'p':2}}",
     "nodus", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
     "'spec':{'image':'a','maxCostUSD':'10'},'status':{'p':2}}"},
    /* [{}] and [] reset ownership: the writer owns what it changed, nobody else */
    {"reset with [{}]", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':[{}]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl-label", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web','team':'red'},'managedFields':["
     UPDATE("kubectl-label", NOW, "{'f:metadata':{'f:labels':{'f:team':{}}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    {"reset with []", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':[]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl-edit", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'}},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    /* a client may set managedFields itself */
    {"managedFields set by the client", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("ci", T0, "{'f:spec':{'f:image':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl-replace", "",
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},"
     "'managedFields':[" APPLY("ci", T0, "{'f:spec':{'f:image':{}}}") "]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}"},
    /* unreadable managedFields from the client: the stored ones are used */
    {"unreadable client managedFields", LIVE_K,
     "{" HEAD ",'metadata':{" META ",'labels':{'app':'web'},'managedFields':[{'fieldsV1':5}]},"
     "'spec':{'image':'a','maxCostUSD':'10'}}",
     "kubectl-replace", "", LIVE_K},
};
/* clang-format on */

static void test_record_update(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof updates / sizeof updates[0]; i++) {
        const struct update_case *c = &updates[i];
        json_t *old = J(c->old), *new = J(c->new);
        char *old_before = old ? canon(old) : NULL;
        nd_ssa_record_update(old, new, c->manager, "nodus.dev/v1", c->sub, NOW);
        assert_json(new, c->want, c->name);
        if (old) {
            char *after = canon(old);
            assert_string_equal(after, old_before);
            free(after);
        }
        free(old_before);
        json_decref(old);
        json_decref(new);
    }
}

/* An edit takes a field from the applier, whose next apply then conflicts on it; with
 * force the applier takes it back and the edit's entry goes. */
static void test_edit_then_apply(void **state)
{
    (void)state;
    /* clang-format off */
    static const char *const created =
        "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'},"
        "'managedFields':[" APPLY("kubectl", T0, F_K) "]},"
        "'spec':{'image':'a','maxCostUSD':'10'}}";
    static const char *const edited_fields =
        "[" APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
        "," UPDATE("kubectl-edit", NOW, "{'f:spec':{'f:maxCostUSD':{}}}") "]";
    static const char *const cfg_without =
        "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'}},'spec':{'image':'a'}}";
    static const char *const applied_without =
        "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'},'managedFields':["
        APPLY("kubectl", T0, "{'f:metadata':{'f:labels':{'f:app':{}}},'f:spec':{'f:image':{}}}")
        "," UPDATE("kubectl-edit", NOW, "{'f:spec':{'f:maxCostUSD':{}}}") "]},"
        "'spec':{'image':'a','maxCostUSD':'25'}}";
    static const char *const forced =
        "{" HEAD ",'metadata':{'name':'j1','labels':{'app':'web'},"
        "'managedFields':[" APPLY("kubectl", NOW, F_K) "]},"
        "'spec':{'image':'a','maxCostUSD':'10'}}";
    /* clang-format on */
    json_t *cfg = J(CFG_K), *cfg2 = J(cfg_without), *live = NULL, *edited, *out = NULL;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(
        nd_ssa_apply(NULL, cfg, &(struct nd_ssa_opts){.manager = "kubectl", .now = T0}, &live, &st),
        0);
    assert_json(live, created, "created");

    edited = json_deep_copy(live);
    json_object_set_new(json_object_get(edited, "spec"), "maxCostUSD", json_string("25"));
    nd_ssa_record_update(live, edited, "kubectl-edit", NULL, NULL, NOW);
    assert_json(json_object_get(json_object_get(edited, "metadata"), "managedFields"),
                edited_fields, "edited");

    assert_int_equal(nd_ssa_apply(edited, cfg,
                                  &(struct nd_ssa_opts){.manager = "kubectl", .now = NOW}, &out,
                                  &st),
                     -1);
    assert_null(out);
    assert_int_equal(st.code, 409);
    assert_string_equal(st.message, "Apply failed with 1 conflict: conflict with \"kubectl-edit\" "
                                    "using nodus.dev/v1: .spec.maxCostUSD");
    assert_non_null(st.fix);
    nd_status_release(&st);

    /* applying without the field is no conflict: the edit's value stays */
    assert_int_equal(nd_ssa_apply(edited, cfg2,
                                  &(struct nd_ssa_opts){.manager = "kubectl", .now = NOW}, &out,
                                  &st),
                     0);
    assert_json(out, applied_without, "applied without the field");
    json_decref(out);

    assert_int_equal(
        nd_ssa_apply(edited, cfg,
                     &(struct nd_ssa_opts){.manager = "kubectl", .force = true, .now = NOW}, &out,
                     &st),
        0);
    assert_json(out, forced, "forced");
    json_decref(out);
    json_decref(cfg2);
    json_decref(cfg);
    json_decref(live);
    json_decref(edited);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_create_and_reapply), cmocka_unit_test(test_apply_conflicts),
        cmocka_unit_test(test_apply_prune_and_merge),    cmocka_unit_test(test_record_update),
        cmocka_unit_test(test_edit_then_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
