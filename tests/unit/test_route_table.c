/* Unit tests of the one route of a request (emulator/api/route.c em_route_make): for
 * every path shape the emulator serves, the struct em_route made from the method, the
 * path and ?watch= alone (no server): where it goes (the target), and for the API the
 * kind, the verb, the project, the subresource and whether it writes; the control
 * endpoint's path, the review. The checks each target then gets (the API's Status
 * answers, the control endpoints' methods) are test_route.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "auth_review.h"
#include "route.h"
#include "util/xmalloc.h"

struct route_case {
    const char *method, *path;
    bool watch;            /* ?watch=true */
    enum em_target target;
    bool is_write;
    /* EM_TO_API; NULL: none */
    const char *kind;      /* nd_kind_resource_name: jobs.nodus.dev, namespaces */
    const char *verb, *project, *sub;
    /* EM_TO_CONTROL: the endpoint's path (after /emulator/v1/); NULL: none */
    const char *control;
};

#define NS "/apis/nodus.dev/v1/namespaces/p1"
#define CORE "/api/v1/namespaces/p1"
/* an API route: method, path, ?watch=, kind, verb, project, subresource, writes */
#define API(m, p, w, kind, verb, project, sub, write) \
    {m, p, w, EM_TO_API, write, kind, verb, project, sub, NULL}
/* a route outside the API */
#define TO(m, p, target, write) {m, p, false, target, write, NULL, NULL, NULL, NULL, NULL}
#define CTL(m, p, control, write) \
    {m, p, false, EM_TO_CONTROL, write, NULL, NULL, NULL, NULL, control}
#define JOBS "jobs.nodus.dev"

/* clang-format off */
static const struct route_case cases[] = {
    /* health and readiness: exact paths */
    TO("GET",    "/healthz",  EM_TO_HEALTH, false),
    TO("GET",    "/livez",    EM_TO_HEALTH, false),
    TO("GET",    "/readyz",   EM_TO_READY,  false),
    TO("GET",    "/healthz/", EM_TO_OTHER,  false),
    TO("GET",    "/healthzx", EM_TO_OTHER,  false),
    TO("POST",   "/healthz",  EM_TO_HEALTH, true),
    /* the docs: /docs and what is under it, at a slash only */
    TO("GET",    "/docs",        EM_TO_DOCS,  false),
    TO("GET",    "/docs/",       EM_TO_DOCS,  false),
    TO("GET",    "/docs/errors", EM_TO_DOCS,  false),
    TO("GET",    "/docsx",       EM_TO_OTHER, false),
    TO("GET",    "/docsX/a",     EM_TO_OTHER, false),
    /* the console: /, /console and what is under /console/, at a slash only */
    TO("GET",    "/console",        EM_TO_CONSOLE, false),
    TO("GET",    "/console/",       EM_TO_CONSOLE, false),
    TO("GET",    "/console/app.js", EM_TO_CONSOLE, false),
    TO("GET",    "/consolex",       EM_TO_OTHER,   false),
    /* the control endpoints: everything under /emulator is admin's; the endpoints are
     * under /emulator/v1/ */
    CTL("GET",    "/emulator/v1/stats",        "stats",        false),
    CTL("POST",   "/emulator/v1/reset",        "reset",        true),
    CTL("POST",   "/emulator/v1/clock",        "clock",        true),
    CTL("PUT",    "/emulator/v1/pricebook",    "pricebook",    true),
    CTL("DELETE", "/emulator/v1/faults",       "faults",       true),
    CTL("GET",    "/emulator/v1/spend",        "spend",        false),
    CTL("POST",   "/emulator/v1/snapshots/s1", "snapshots/s1", true),
    CTL("GET",    "/emulator/v1/",             "",             false),
    CTL("GET",    "/emulator/v1",              NULL,           false),
    CTL("GET",    "/emulator",                 NULL,           false),
    CTL("GET",    "/emulator/",                NULL,           false),
    CTL("GET",    "/emulator/v2/stats",        NULL,           false),
    TO("GET",     "/emulatorx",                EM_TO_OTHER,    false),
    /* discovery and OpenAPI */
    TO("GET",    "/api",                         EM_TO_DISCOVERY, false),
    TO("GET",    "/apis",                        EM_TO_DISCOVERY, false),
    TO("GET",    "/api/v1",                      EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/nodus.dev",              EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/nodus.dev/v1",           EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/events.k8s.io/v1",       EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/authorization.k8s.io/v1", EM_TO_DISCOVERY, false),
    TO("GET",    "/version",                     EM_TO_DISCOVERY, false),
    TO("GET",    "/version/",                    EM_TO_DISCOVERY, false),
    TO("GET",    "/openapi/v2",                  EM_TO_DISCOVERY, false),
    TO("GET",    "/openapi/v3",                  EM_TO_DISCOVERY, false),
    TO("GET",    "/openapi/v3/apis/nodus.dev/v1", EM_TO_DISCOVERY, false),
    TO("GET",    "/openapi/v3/api/v1",           EM_TO_DISCOVERY, false),
    TO("GET",    "/openapi",                     EM_TO_DISCOVERY, false), /* 404 there */
    TO("POST",   "/api/v1",                      EM_TO_DISCOVERY, true),
    /* under /api and /apis but no resource: discovery's (NotFound there) */
    TO("GET",    "/api/",                        EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/nodus.dev/v1/jobs/j1/log/x", EM_TO_DISCOVERY, false),
    TO("GET",    NS "/volumes/v1/files/a",       EM_TO_DISCOVERY, false),
    TO("GET",    "/apis/example.com/v1",         EM_TO_DISCOVERY, false),
    /* the reviews (POST; any other method is the review handler's 405) */
    TO("POST",   "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", EM_TO_REVIEW, true),
    TO("POST",   "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", EM_TO_REVIEW, true),
    TO("POST",   "/apis/authentication.k8s.io/v1/selfsubjectreviews", EM_TO_REVIEW, true),
    TO("POST",   "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews", EM_TO_REVIEW, true),
    TO("GET",    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", EM_TO_REVIEW, false),
    /* a review's path with more to it is an API path of a kind that does not exist */
    API("POST",  "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", false, NULL,
        NULL, NULL, NULL, true),
    /* the core group: Namespaces (cluster-scoped: the project is the object) */
    API("GET",    "/api/v1/namespaces",        false, "namespaces", "list",   NULL, NULL, false),
    API("GET",    "/api/v1/namespaces",        true,  "namespaces", "watch",  NULL, NULL, false),
    API("POST",   "/api/v1/namespaces",        false, "namespaces", "create", NULL, NULL, true),
    API("DELETE", "/api/v1/namespaces",        false, "namespaces", "deletecollection", NULL,
        NULL, true),
    API("GET",    CORE,                        false, "namespaces", "get",    "p1", NULL, false),
    API("HEAD",   CORE,                        false, "namespaces", "get",    "p1", NULL, false),
    API("PUT",    CORE,                        false, "namespaces", "update", "p1", NULL, true),
    API("PATCH",  CORE,                        false, "namespaces", "patch",  "p1", NULL, true),
    API("DELETE", CORE,                        false, "namespaces", "delete", "p1", NULL, true),
    API("GET",    CORE "/status",              false, "namespaces", "get",    "p1", "status",
        false),
    API("PUT",    CORE "/finalize",            false, "namespaces", "update", "p1", "finalize",
        true),
    /* ...and the core group's namespaced Events */
    API("GET",    "/api/v1/events",            false, "events", "list", NULL, NULL, false),
    API("GET",    CORE "/events",              false, "events", "list", "p1", NULL, false),
    API("GET",    CORE "/events",              true,  "events", "watch", "p1", NULL, false),
    API("GET",    CORE "/events/e1",           false, "events", "get",  "p1", NULL, false),
    API("DELETE", CORE "/events/e1",           false, "events", "delete", "p1", NULL, true),
    /* a group: collections, objects, subresources */
    API("GET",    "/apis/nodus.dev/v1/jobs",   false, JOBS, "list",   NULL, NULL, false),
    API("GET",    "/apis/nodus.dev/v1/jobs",   true,  JOBS, "watch",  NULL, NULL, false),
    API("POST",   "/apis/nodus.dev/v1/jobs",   false, JOBS, "create", NULL, NULL, true),
    API("GET",    NS "/jobs",                  false, JOBS, "list",   "p1", NULL, false),
    API("GET",    NS "/jobs",                  true,  JOBS, "watch",  "p1", NULL, false),
    API("HEAD",   NS "/jobs",                  false, JOBS, "list",   "p1", NULL, false),
    API("POST",   NS "/jobs",                  false, JOBS, "create", "p1", NULL, true),
    API("DELETE", NS "/jobs",                  false, JOBS, "deletecollection", "p1", NULL, true),
    API("PUT",    NS "/jobs",                  false, JOBS, NULL,     "p1", NULL, true),
    API("GET",    NS "/jobs/j1",               false, JOBS, "get",    "p1", NULL, false),
    API("GET",    NS "/jobs/j1",               true,  JOBS, "get",    "p1", NULL, false),
    API("PUT",    NS "/jobs/j1",               false, JOBS, "update", "p1", NULL, true),
    API("PATCH",  NS "/jobs/j1",               false, JOBS, "patch",  "p1", NULL, true),
    API("DELETE", NS "/jobs/j1",               false, JOBS, "delete", "p1", NULL, true),
    API("POST",   NS "/jobs/j1",               false, JOBS, NULL,     "p1", NULL, true),
    API("OPTIONS", NS "/jobs/j1",              false, JOBS, NULL,     "p1", NULL, false),
    API("GET",    NS "/jobs/j1/status",        false, JOBS, "get",    "p1", "status", false),
    API("PATCH",  NS "/jobs/j1/status",        false, JOBS, "patch",  "p1", "status", true),
    API("GET",    NS "/jobs/j1/log",           false, JOBS, "get",    "p1", "log", false),
    API("GET",    NS "/sandboxes/s1/exec",     false, "sandboxes.nodus.dev", "get", "p1", "exec",
        false),
    API("POST",   NS "/sandboxes/s1/exec",     false, "sandboxes.nodus.dev", "create", "p1",
        "exec", true),
    API("PUT",    NS "/volumes/v1/files",      false, "volumes.nodus.dev", "update", "p1",
        "files", true),
    API("GET",    NS "/volumes/v1/files",      false, "volumes.nodus.dev", "get", "p1", "files",
        false),
    API("POST",   NS "/functions/f1/invoke",   false, "functions.nodus.dev", "create", "p1",
        "invoke", true),
    /* empty segments are skipped, but only a path that starts /api/ or /apis/ is the API's */
    API("GET",    "/apis//nodus.dev/v1/namespaces/p1/jobs/", false, JOBS, "list", "p1", NULL,
        false),
    TO("GET",     "//apis/nodus.dev/v1/namespaces/p1/jobs", EM_TO_OTHER, false),
    /* another group's Events */
    API("GET",    "/apis/events.k8s.io/v1/namespaces/p1/events", false,
        "events.events.k8s.io", "list", "p1", NULL, false),
    /* the deprecated watch paths: GET watches, whatever ?watch= says; nothing else */
    API("GET",    "/apis/nodus.dev/v1/watch/jobs", false, JOBS, "watch", NULL, NULL, false),
    API("GET",    "/apis/nodus.dev/v1/watch/namespaces/p1/jobs", false, JOBS, "watch", "p1",
        NULL, false),
    API("GET",    "/apis/nodus.dev/v1/watch/namespaces/p1/jobs/j1", false, JOBS, "watch",
        "p1", NULL, false),
    API("GET",    "/api/v1/watch/namespaces", false, "namespaces", "watch", NULL, NULL, false),
    API("GET",    "/api/v1/watch/namespaces/p1", false, "namespaces", "watch", "p1", NULL,
        false),
    API("GET",    "/api/v1/watch/namespaces/p1/events", false, "events", "watch", "p1", NULL,
        false),
    API("POST",   "/apis/nodus.dev/v1/watch/namespaces/p1/jobs", false, JOBS, NULL, "p1", NULL,
        true),
    TO("GET",     "/apis/nodus.dev/v1/watch/namespaces/p1/jobs/j1/log", EM_TO_DISCOVERY,
       false),
    /* kinds and versions this server does not have: the API's NotFound */
    API("GET",    NS "/widgets",               false, NULL, "list", "p1", NULL, false),
    API("GET",    "/apis/example.com/v1/widgets", false, NULL, "list", NULL, NULL, false),
    API("GET",    "/api/v1/namespaces/p1/jobs", false, NULL, "list", "p1", NULL, false),
    /* the version is checked by em_route_api, not here */
    API("GET",    "/apis/nodus.dev/v2/namespaces/p1/jobs", false, JOBS, "list", "p1", NULL,
        false),
    /* anything else */
    TO("GET",    "/",            EM_TO_CONSOLE, false),
    TO("GET",    "",             EM_TO_OTHER, false),
    TO("GET",    "/favicon.ico", EM_TO_OTHER, false),
    TO("DELETE", "/nothing",     EM_TO_OTHER, true),
    TO("GET",    "/apisx/nodus.dev/v1/jobs", EM_TO_OTHER, false),
};
/* clang-format on */

static void assert_str(const char *got, const char *want, const struct route_case *c,
                       const char *what)
{
    if (!got != !want || (got && strcmp(got, want) != 0))
        fail_msg("%s %s: %s: got %s, want %s", c->method, c->path, what, got ? got : "NULL",
                 want ? want : "NULL");
}

static void check_case(const struct route_case *c)
{
    json_t *query = c->watch ? json_pack("{s[s]}", "watch", "true") : json_object();
    struct em_route rt;
    em_route_make(&rt, c->method, c->path, query);
    enum em_target want = c->target;
    if (rt.target != want)
        fail_msg("%s %s: target %d, want %d", c->method, c->path, rt.target, want);
    if (rt.is_write != c->is_write)
        fail_msg("%s %s: is_write %d, want %d", c->method, c->path, rt.is_write, c->is_write);
    assert_ptr_equal(rt.path, c->path);
    assert_ptr_equal(rt.method, c->method);
    char res[ND_KIND_NAME_MAX];
    assert_str(rt.kind ? nd_kind_resource_name(rt.kind, res, sizeof res) : NULL,
               want == EM_TO_API ? c->kind : NULL, c, "kind");
    assert_str(rt.verb, want == EM_TO_API ? c->verb : NULL, c, "verb");
    assert_str(rt.project, want == EM_TO_API ? c->project : NULL, c, "project");
    assert_str(rt.sub, want == EM_TO_API ? c->sub : NULL, c, "subresource");
    assert_str(rt.control, c->control, c, "control endpoint");
    assert_str(rt.docs_page, rt.target == EM_TO_DOCS ? c->path + 5 : NULL, c, "docs page");
    assert_str(rt.console_file,
               rt.target != EM_TO_CONSOLE        ? NULL
               : !strncmp(c->path, "/console/", 9) ? c->path + 9
                                                   : "",
               c, "console file");
    if ((rt.target == EM_TO_REVIEW) != (rt.review != NULL))
        fail_msg("%s %s: review row %p for target %d", c->method, c->path, (void *)rt.review,
                 rt.target);
    /* the parsed path is the API's alone */
    if (rt.target != EM_TO_API && (rt.api.group || rt.api.plural))
        fail_msg("%s %s: a parsed path kept for target %d", c->method, c->path, rt.target);
    if (rt.target == EM_TO_API)
        assert_ptr_equal(rt.sub, rt.api.sub);
    em_route_release(&rt);
    json_decref(query);
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
}

/* Only a Namespace create reads its project from the body; a review names its row. */
static void test_body_project_and_review(void **state)
{
    (void)state;
    struct em_route rt;
    em_route_make(&rt, "POST", "/api/v1/namespaces", NULL);
    assert_true(rt.project_in_body);
    assert_null(rt.project);
    em_route_release(&rt);
    static const char *const not_in_body[][2] = {
        {"GET", "/api/v1/namespaces"}, {"PUT", CORE}, {"POST", NS "/jobs"},
        {"POST", CORE "/events"},
    };
    for (size_t i = 0; i < sizeof not_in_body / sizeof not_in_body[0]; i++) {
        em_route_make(&rt, not_in_body[i][0], not_in_body[i][1], NULL);
        if (rt.project_in_body)
            fail_msg("%s %s: project in the body", not_in_body[i][0], not_in_body[i][1]);
        em_route_release(&rt);
    }
    em_route_make(&rt, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", NULL);
    assert_int_equal(rt.target, EM_TO_REVIEW);
    assert_string_equal(rt.review->kind, "SelfSubjectRulesReview");
    em_route_release(&rt);
}

/* ?watch= is read as kube-apiserver reads a boolean; its last value counts. */
static void test_watch_query(void **state)
{
    (void)state;
    static const struct {
        const char *query; /* JSON: name -> values */
        const char *verb;
    } queries[] = {
        {"{\"watch\": [\"true\"]}", "watch"},  {"{\"watch\": [\"1\"]}", "watch"},
        {"{\"watch\": [\"T\"]}", "watch"},     {"{\"watch\": [\"false\"]}", "list"},
        {"{\"watch\": [\"\"]}", "list"},       {"{\"watch\": [\"yes\"]}", "list"},
        {"{\"watch\": [\"true\", \"0\"]}", "list"}, {"{\"watch\": [\"0\", \"true\"]}", "watch"},
        {"{}", "list"},
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        json_t *q = json_loads(queries[i].query, 0, NULL);
        assert_non_null(q);
        struct em_route rt;
        em_route_make(&rt, "GET", NS "/jobs", q);
        if (strcmp(rt.verb, queries[i].verb) != 0)
            fail_msg("?%s: verb %s, want %s", queries[i].query, rt.verb, queries[i].verb);
        em_route_release(&rt);
        json_decref(q);
    }
}

/* Each row of the one list of non-resource paths routes where it says (a path under
 * /api/ and /apis/ may be a review or the API's instead: test_table). */
static void test_nonresource_rows(void **state)
{
    (void)state;
    size_t n = 0;
    for (const struct em_nonresource *row = em_nonresources; row->path; row++, n++) {
        char path[64];
        size_t len = strlen(row->path);
        /* a folder's row: a path under it */
        if (len >= 2 && !strcmp(row->path + len - 2, "/*"))
            snprintf(path, sizeof path, "%.*sx", (int)(len - 1), row->path);
        else
            snprintf(path, sizeof path, "%s", row->path);
        assert_ptr_equal(em_route_nonresource(path), row);
        struct em_route rt;
        em_route_make(&rt, "GET", path, NULL);
        if (rt.target != row->target)
            fail_msg("%s: target %d, want %d (row %s)", path, rt.target, row->target,
                     row->path);
        em_route_release(&rt);
    }
    assert_true(n > 0);
    assert_null(em_route_nonresource("/docsx"));
    assert_null(em_route_nonresource("/emulatorx"));
    assert_null(em_route_nonresource("/version/x"));
}

/* The one definition of a write, and the method of each verb. */
static void test_writes(void **state)
{
    (void)state;
    static const struct {
        const char *verb, *method;
        bool writes;
    } verbs[] = {
        {"get", "GET", false},       {"list", "GET", false},
        {"watch", "GET", false},     {"create", "POST", true},
        {"update", "PUT", true},     {"patch", "PATCH", true},
        {"delete", "DELETE", true},  {"deletecollection", "DELETE", true},
    };
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        assert_string_equal(em_route_verb_method(verbs[i].verb), verbs[i].method);
        assert_int_equal(em_route_method_writes(verbs[i].method), verbs[i].writes);
    }
    assert_false(em_route_method_writes("HEAD"));
    assert_false(em_route_method_writes("OPTIONS"));
    assert_false(em_route_method_writes("post")); /* methods are case-sensitive */
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_body_project_and_review),
        cmocka_unit_test(test_watch_query),
        cmocka_unit_test(test_nonresource_rows),
        cmocka_unit_test(test_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
