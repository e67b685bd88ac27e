/* Unit tests of the emulator's routing (emulator/api/route.c, path.c): which control
 * endpoint a method reaches, how an API path parses, and which handler or which Status a method and an
 * API path reach (kinds, versions, projects, subresources, names, unknown paths and
 * methods). All from the method and path alone: no server. Where each path shape goes
 * first (struct em_route's target, kind, verb, project...) is test_route_table.c's. And what an answer is sent
 * as, from the Accept header alone (emulator/api/accept.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "accept.h"
#include "path.h"
#include "route.h"
#include "util/status.h"
#include "util/xmalloc.h"

/* ---- the control endpoints ---- */

static void test_control(void **state)
{
    (void)state;
    static const struct {
        const char *method, *rest;
        enum em_control want;
    } cases[] = {
        {"GET", "stats", EM_CONTROL_STATS},
        {"POST", "stats", EM_CONTROL_METHOD},
        {"POST", "reset", EM_CONTROL_RESET},
        {"GET", "reset", EM_CONTROL_METHOD},
        {"GET", "clock", EM_CONTROL_CLOCK},
        {"POST", "clock", EM_CONTROL_CLOCK},
        {"PUT", "clock", EM_CONTROL_METHOD},
        {"GET", "pricebook", EM_CONTROL_PRICEBOOK},
        {"PUT", "pricebook", EM_CONTROL_PRICEBOOK},
        {"POST", "pricebook", EM_CONTROL_METHOD},
        {"GET", "spend", EM_CONTROL_SPEND},
        {"POST", "spend", EM_CONTROL_METHOD},
        {"GET", "snapshots", EM_CONTROL_SNAPSHOTS},
        {"POST", "snapshots/s1", EM_CONTROL_SNAPSHOTS},
        {"DELETE", "snapshots/s1", EM_CONTROL_SNAPSHOTS},
        {"GET", "snapshotsx", EM_CONTROL_NONE},
        {"GET", "faults", EM_CONTROL_FAULTS},
        {"POST", "faults", EM_CONTROL_FAULTS},
        {"DELETE", "faults", EM_CONTROL_FAULTS},
        {"PATCH", "faults", EM_CONTROL_METHOD},
        {"GET", "stats/", EM_CONTROL_NONE},
        {"GET", "", EM_CONTROL_NONE},
        {"GET", "nothing", EM_CONTROL_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum em_control got = em_route_control(cases[i].method, cases[i].rest);
        if (got != cases[i].want)
            fail_msg("%s %s: got %d, want %d", cases[i].method, cases[i].rest, got,
                     cases[i].want);
    }
}

/* ---- API paths ---- */

struct path_case {
    const char *path;
    int rc;
    /* when rc is 0; NULL: not in the path */
    const char *group, *version, *ns, *plural, *name, *sub;
    int depth;
};

/* clang-format off */
static const struct path_case paths[] = {
    {"/api/v1",                      0, "",          "v1", NULL, NULL,         NULL, NULL,  0},
    {"/api/v1/namespaces",           0, "",          "v1", NULL, "namespaces", NULL, NULL,  1},
    /* the Namespace p1 itself, and its subresources */
    {"/api/v1/namespaces/p1",        0, "",          "v1", NULL, "namespaces", "p1", NULL,  2},
    {"/api/v1/namespaces/p1/status", 0, "",          "v1", NULL, "namespaces", "p1", "status", 3},
    {"/api/v1/namespaces/p1/finalize", 0, "",        "v1", NULL, "namespaces", "p1", "finalize", 3},
    /* ...but events in the project p1 */
    {"/api/v1/namespaces/p1/events", 0, "",          "v1", "p1", "events",     NULL, NULL,  3},
    {"/api/v1/namespaces/p1/events/e1", 0, "",       "v1", "p1", "events",     "e1", NULL,  4},
    {"/apis/nodus.dev/v1",           0, "nodus.dev", "v1", NULL, NULL,         NULL, NULL,  0},
    {"/apis/nodus.dev/v1/jobs",      0, "nodus.dev", "v1", NULL, "jobs",       NULL, NULL,  1},
    {"/apis/nodus.dev/v1/namespaces/p1/jobs", 0, "nodus.dev", "v1", "p1", "jobs", NULL, NULL, 3},
    {"/apis/nodus.dev/v1/namespaces/p1/jobs/j1/log", 0, "nodus.dev", "v1", "p1", "jobs", "j1",
     "log", 5},
    /* with the status subresource of a nodus.dev kind named "status" */
    {"/apis/nodus.dev/v1/namespaces/p1/jobs/status", 0, "nodus.dev", "v1", "p1", "jobs", "status",
     NULL, 4},
    {"//apis//nodus.dev/v1/jobs/",   0, "nodus.dev", "v1", NULL, "jobs",       NULL, NULL,  1},
    /* not API paths */
    {"/api",                         -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
    {"/apis/nodus.dev",              -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
    {"/version",                     -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
    {"",                             -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
    /* deeper than a subresource, or more than ten segments */
    {"/apis/nodus.dev/v1/namespaces/p1/volumes/v1/files/a", -1, NULL, NULL, NULL, NULL, NULL,
     NULL, 0},
    {"/apis/nodus.dev/v1/jobs/j1/log/x", -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
    {"/a/b/c/d/e/f/g/h/i/j/k",       -1, NULL, NULL, NULL, NULL, NULL, NULL, 0},
};
/* clang-format on */

static void assert_str_or_null(const char *got, const char *want, const char *path,
                               const char *what)
{
    if (!got != !want || (got && strcmp(got, want) != 0))
        fail_msg("%s: %s: got %s, want %s", path, what, got ? got : "NULL", want ? want : "NULL");
}

static void test_paths(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const struct path_case *c = &paths[i];
        struct em_path p;
        int rc = em_path_parse(c->path, &p);
        if (rc != c->rc)
            fail_msg("%s: rc %d, want %d", c->path, rc, c->rc);
        if (rc == 0) {
            assert_str_or_null(p.group, c->group, c->path, "group");
            assert_str_or_null(p.version, c->version, c->path, "version");
            assert_str_or_null(p.ns, c->ns, c->path, "ns");
            assert_str_or_null(p.plural, c->plural, c->path, "plural");
            assert_str_or_null(p.name, c->name, c->path, "name");
            assert_str_or_null(p.sub, c->sub, c->path, "sub");
            if (p.depth != c->depth)
                fail_msg("%s: depth %d, want %d", c->path, p.depth, c->depth);
        } else {
            assert_null(p.group); /* nothing left to free */
            assert_null(p.plural);
        }
        em_path_release(&p);
    }
}

/* The deprecated watch paths: .../watch/ before the object paths, no subresource. */
struct watch_case {
    const char *path;
    int rc;
    const char *group, *ns, *plural, *name; /* when rc is 0 */
};

/* clang-format off */
static const struct watch_case watch_paths[] = {
    {"/apis/nodus.dev/v1/watch/jobs",                  0, "nodus.dev", NULL, "jobs", NULL},
    {"/apis/nodus.dev/v1/watch/namespaces/p1/jobs",    0, "nodus.dev", "p1", "jobs", NULL},
    {"/apis/nodus.dev/v1/watch/namespaces/p1/jobs/j1", 0, "nodus.dev", "p1", "jobs", "j1"},
    {"/api/v1/watch/namespaces",                       0, "",          NULL, "namespaces", NULL},
    {"/api/v1/watch/namespaces/p1",                    0, "",          NULL, "namespaces", "p1"},
    {"/api/v1/watch/namespaces/p1/events",             0, "",          "p1", "events", NULL},
    {"/api/v1/watch/events",                           0, "",          NULL, "events", NULL},
    /* a project named watch is not a watch path */
    {"/api/v1/namespaces/watch/events",                0, "",          "watch", "events", NULL},
    /* no subresource is watched; /watch alone is nothing */
    {"/api/v1/watch/namespaces/p1/status",             -1, NULL, NULL, NULL, NULL},
    {"/apis/nodus.dev/v1/watch/namespaces/p1/jobs/j1/log", -1, NULL, NULL, NULL, NULL},
    {"/apis/nodus.dev/v1/watch/jobs/j1/status",        -1, NULL, NULL, NULL, NULL},
};
/* clang-format on */

static void test_watch_paths(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof watch_paths / sizeof watch_paths[0]; i++) {
        const struct watch_case *c = &watch_paths[i];
        struct em_path p;
        int rc = em_path_parse(c->path, &p);
        if (rc != c->rc)
            fail_msg("%s: rc %d, want %d", c->path, rc, c->rc);
        if (rc == 0) {
            if (p.watch != (strncmp(c->path + (*c->group ? 18 : 7), "/watch/", 7) == 0))
                fail_msg("%s: watch %d", c->path, p.watch);
            assert_str_or_null(p.group, c->group, c->path, "group");
            assert_str_or_null(p.ns, c->ns, c->path, "ns");
            assert_str_or_null(p.plural, c->plural, c->path, "plural");
            assert_str_or_null(p.name, c->name, c->path, "name");
            assert_null(p.sub);
        }
        em_path_release(&p);
    }
    struct em_path p;
    assert_int_equal(em_path_parse("/apis/nodus.dev/v1/watch", &p), 0);
    assert_false(p.watch); /* a kind named watch: NotFound later */
    assert_string_equal(p.plural, "watch");
    em_path_release(&p);
}

/* ---- which handler, or which Status ---- */

struct api_case {
    const char *method, *path;
    bool watch;        /* ?watch=true */
    const char *verb;  /* NULL: none fits the method */
    enum em_api_op op; /* when it passes */
    const char *reason, *message, *fix; /* when it fails; fix NULL: none */
};

#define NS "/apis/nodus.dev/v1/namespaces/p1"
#define OK(m, p, w, verb, op) {m, p, w, verb, op, NULL, NULL, NULL}
#define NO(m, p, w, verb, reason, message, fix) {m, p, w, verb, 0, reason, message, fix}
#define NOT_FOUND "the server could not find the requested resource"

/* clang-format off */
static const struct api_case api[] = {
    /* the verbs of a collection and of an object */
    OK("GET",    NS "/jobs",          false, "list",   EM_OP_LIST),
    OK("GET",    NS "/jobs",          true,  "watch",  EM_OP_WATCH),
    OK("HEAD",   NS "/jobs",          false, "list",   EM_OP_LIST),
    OK("GET",    "/apis/nodus.dev/v1/jobs", false, "list", EM_OP_LIST), /* every project */
    OK("GET",    "/apis/nodus.dev/v1/jobs", true,  "watch", EM_OP_WATCH),
    OK("GET",    NS "/jobs/j1",       false, "get",    EM_OP_GET),
    OK("GET",    NS "/jobs/j1",       true,  "get",    EM_OP_GET),
    OK("HEAD",   NS "/jobs/j1",       false, "get",    EM_OP_GET),
    OK("POST",   NS "/jobs",          false, "create", EM_OP_CREATE),
    OK("PUT",    NS "/jobs/j1",       false, "update", EM_OP_UPDATE),
    OK("PATCH",  NS "/jobs/j1",       false, "patch",  EM_OP_PATCH),
    OK("DELETE", NS "/jobs/j1",       false, "delete", EM_OP_DELETE),
    OK("DELETE", NS "/jobs",          false, "deletecollection", EM_OP_DELETECOLLECTION),
    OK("GET",    "/api/v1/namespaces", false, "list",  EM_OP_LIST),
    OK("POST",   "/api/v1/namespaces", false, "create", EM_OP_CREATE),
    OK("GET",    "/api/v1/namespaces/p1", false, "get", EM_OP_GET),
    OK("DELETE", "/api/v1/namespaces/p1", false, "delete", EM_OP_DELETE),
    OK("GET",    "/api/v1/namespaces/p1/events", false, "list", EM_OP_LIST),
    OK("GET",    NS "/images",        false, "list",   EM_OP_LIST),
    /* methods that do not fit */
    NO("POST",   NS "/jobs/j1",       false, NULL, "MethodNotAllowed",
       "POST is not supported on " NS "/jobs/j1", NULL),
    NO("PUT",    NS "/jobs",          false, NULL, "MethodNotAllowed",
       "PUT is not supported on " NS "/jobs", NULL),
    NO("PATCH",  NS "/jobs",          false, NULL, "MethodNotAllowed",
       "PATCH is not supported on " NS "/jobs", NULL),
    NO("OPTIONS", NS "/jobs",         false, NULL, "MethodNotAllowed",
       "OPTIONS is not supported on " NS "/jobs", NULL),
    NO("TRACE",  NS "/jobs/j1",       false, NULL, "MethodNotAllowed",
       "TRACE is not supported on " NS "/jobs/j1", NULL),
    /* the status subresource */
    OK("GET",    NS "/jobs/j1/status", false, "get",   EM_OP_GET),
    OK("PUT",    NS "/jobs/j1/status", false, "update", EM_OP_UPDATE),
    OK("PATCH",  NS "/jobs/j1/status", false, "patch", EM_OP_PATCH),
    OK("GET",    "/api/v1/namespaces/p1/status", false, "get", EM_OP_GET),
    NO("DELETE", NS "/jobs/j1/status", false, "delete", "MethodNotAllowed",
       "DELETE is not supported on the status subresource",
       "the status subresource takes GET, PATCH or PUT"),
    NO("POST",   NS "/jobs/j1/status", false, "create", "MethodNotAllowed",
       "POST is not supported on the status subresource",
       "the status subresource takes GET, PATCH or PUT"),
    NO("GET",    "/api/v1/namespaces/p1/events/e1/status", false, "get", "NotFound", NOT_FOUND,
       NULL),
    /* the other subresources: the kind's own, else NotFound */
    OK("GET",    NS "/jobs/j1/log",   false, "get",    EM_OP_SUBRESOURCE),
    OK("POST",   NS "/sandboxes/s1/exec", false, "create", EM_OP_SUBRESOURCE),
    OK("GET",    NS "/sandboxes/s1/exec", false, "get", EM_OP_SUBRESOURCE),
    OK("POST",   NS "/functions/f1/invoke", false, "create", EM_OP_SUBRESOURCE),
    OK("PUT",    NS "/volumes/v1/files", false, "update", EM_OP_SUBRESOURCE),
    OK("GET",    NS "/poolactions/a1/log", false, "get", EM_OP_SUBRESOURCE),
    OK("GET",    NS "/volumes/v1/files", false, "get", EM_OP_SUBRESOURCE),
    OK("POST",   NS "/volumes/v1/files", false, "create", EM_OP_SUBRESOURCE),
    /* ... with the verbs it is served with (nd_kind_sub_verbs) */
    NO("PUT",    NS "/jobs/j1/log",   false, "update", "MethodNotAllowed",
       "PUT is not supported on the log subresource", "the log subresource takes GET"),
    NO("GET",    NS "/functions/f1/invoke", false, "get", "MethodNotAllowed",
       "GET is not supported on the invoke subresource", "the invoke subresource takes POST"),
    NO("DELETE", NS "/sandboxes/s1/exec", false, "delete", "MethodNotAllowed",
       "DELETE is not supported on the exec subresource",
       "the exec subresource takes POST or GET"),
    NO("PATCH",  NS "/sandboxes/s1/files", false, "patch", "MethodNotAllowed",
       "PATCH is not supported on the files subresource",
       "the files subresource takes POST, GET or PUT"),
    NO("GET",    NS "/volumes/v1/log", false, "get",   "NotFound", NOT_FOUND, NULL),
    NO("POST",   NS "/jobs/j1/invoke", false, "create", "NotFound", NOT_FOUND, NULL),
    NO("GET",    NS "/jobs/j1/scale", false, "get",    "NotFound", NOT_FOUND, NULL),
    /* kinds and versions this server does not have */
    NO("GET",    NS "/widgets",       false, "list",   "NotFound", NOT_FOUND,
       "list the kinds: nodus api-resources"),
    NO("GET",    "/apis/nodus.dev/v2/namespaces/p1/jobs", false, "list", "NotFound", NOT_FOUND,
       "list the kinds: nodus api-resources"),
    NO("GET",    "/apis/example.com/v1/jobs", false, "list", "NotFound", NOT_FOUND,
       "list the kinds: nodus api-resources"),
    NO("GET",    "/api/v1/namespaces/p1/jobs", false, "list", "NotFound", NOT_FOUND,
       "list the kinds: nodus api-resources"),
    NO("DELETE", "/api/v2/namespaces/p1", false, "delete", "NotFound", NOT_FOUND,
       "list the kinds: nodus api-resources"),
    /* projects */
    NO("GET",    "/api/v1/namespaces/p1/namespaces", false, "list", "NotFound", NOT_FOUND, NULL),
    NO("GET",    "/apis/nodus.dev/v1/namespaces/Bad_P/jobs", false, "list", "NotFound",
       "namespaces \"Bad_P\" not found", NULL),
    NO("POST",   "/apis/nodus.dev/v1/jobs", false, "create", "MethodNotAllowed",
       "create needs a project in the path", "add the project: /namespaces/{ns}/..."),
    NO("GET",    "/apis/nodus.dev/v1/jobs/j1", false, "get", "MethodNotAllowed",
       "get needs a project in the path", "add the project: /namespaces/{ns}/..."),
    NO("DELETE", "/apis/nodus.dev/v1/jobs", false, "deletecollection", "MethodNotAllowed",
       "deletecollection needs a project in the path", "add the project: /namespaces/{ns}/..."),
    /* the deprecated watch paths: GET (and HEAD) watch, whatever ?watch= says */
    OK("GET",    "/apis/nodus.dev/v1/watch/namespaces/p1/jobs", false, "watch", EM_OP_WATCH),
    OK("GET",    "/apis/nodus.dev/v1/watch/namespaces/p1/jobs/j1", false, "watch", EM_OP_WATCH),
    OK("HEAD",   "/apis/nodus.dev/v1/watch/jobs", false, "watch", EM_OP_WATCH),
    OK("GET",    "/api/v1/watch/namespaces/p1", true, "watch", EM_OP_WATCH),
    OK("GET",    "/api/v1/watch/namespaces", false, "watch", EM_OP_WATCH),
    OK("GET",    "/api/v1/watch/namespaces/p1", false, "watch", EM_OP_WATCH),
    OK("GET",    "/api/v1/watch/namespaces/p1/events", false, "watch", EM_OP_WATCH),
    OK("GET",    "/api/v1/watch/namespaces/Bad_Name", false, "watch", EM_OP_WATCH), /* sees none */
    NO("POST",   "/apis/nodus.dev/v1/watch/namespaces/p1/jobs", false, NULL, "MethodNotAllowed",
       "the server does not allow this method on the requested resource: POST on "
       "/apis/nodus.dev/v1/watch/namespaces/p1/jobs (a watch path takes only GET)",
       "watch with GET here; for other verbs leave /watch out of the path"),
    NO("DELETE", "/api/v1/watch/namespaces/p1", false, NULL, "MethodNotAllowed", NULL,
       "watch with GET here; for other verbs leave /watch out of the path"),
    NO("GET",    "/apis/nodus.dev/v1/watch/jobs/j1", false, "watch", "NotFound", NOT_FOUND,
       "add the project: .../watch/namespaces/{ns}/..."),
    NO("GET",    "/apis/nodus.dev/v1/watch/namespaces/p1/widgets", false, "watch", "NotFound",
       NOT_FOUND, "list the kinds: nodus api-resources"),
    NO("GET",    "/api/v1/watch/namespaces/p1/namespaces", false, "watch", "NotFound", NOT_FOUND,
       NULL),
    /* kinds Nodus publishes: read, never written */
    NO("POST",   "/apis/nodus.dev/v1/namespaces/nodus/images", false, "create",
       "MethodNotAllowed", "images.nodus.dev are published by Nodus and cannot be changed", NULL),
    NO("DELETE", "/api/v1/namespaces/p1/events/e1", false, "delete", "MethodNotAllowed",
       "events are published by Nodus and cannot be changed", NULL),
    /* names: a read of a name that cannot exist is NotFound, a write of one Invalid */
    NO("GET",    NS "/jobs/Bad_Name", false, "get",    "NotFound",
       "jobs.nodus.dev \"Bad_Name\" not found", "list what exists: nodus get jobs -n p1"),
    NO("DELETE", NS "/jobs/Bad_Name", false, "delete", "NotFound",
       "jobs.nodus.dev \"Bad_Name\" not found", "list what exists: nodus get jobs -n p1"),
    NO("GET",    "/api/v1/namespaces/Bad_Name", false, "get", "NotFound",
       "namespaces \"Bad_Name\" not found", "list what exists: nodus get namespaces"),
    NO("PUT",    NS "/jobs/Bad_Name", false, "update", "Invalid", NULL, NULL),
};
/* clang-format on */

static void test_api(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) {
        const struct api_case *c = &api[i];
        json_t *query = c->watch ? json_pack("{s[s]}", "watch", "true") : json_object();
        struct em_route rt;
        em_route_make(&rt, c->method, c->path, query);
        if (rt.target != EM_TO_API)
            fail_msg("%s: not an API path", c->path);
        const char *verb = rt.verb;
        if (!verb != !c->verb || (verb && strcmp(verb, c->verb) != 0))
            fail_msg("%s %s: verb %s, want %s", c->method, c->path, verb ? verb : "NULL",
                     c->verb ? c->verb : "NULL");
        struct nd_status st = ND_STATUS_INIT;
        enum em_api_op op = (enum em_api_op)-1;
        int rc = em_route_api(&rt, &st);
        if (rc == 0)
            rc = em_route_op(&rt, &op, &st);
        if (!c->reason) {
            if (rc != 0)
                fail_msg("%s %s: %s: %s", c->method, c->path, st.reason, st.message);
            if (op != c->op)
                fail_msg("%s %s: op %d, want %d", c->method, c->path, op, c->op);
        } else {
            if (rc != -1)
                fail_msg("%s %s: passed (op %d), want %s", c->method, c->path, op, c->reason);
            if (strcmp(st.reason, c->reason) != 0 ||
                (c->message && strcmp(st.message, c->message) != 0))
                fail_msg("%s %s:\n got  %s: %s\n want %s: %s", c->method, c->path, st.reason,
                         st.message, c->reason, c->message ? c->message : "(any)");
            assert_str_or_null(st.fix, c->fix, c->path, "fix");
        }
        nd_status_release(&st);
        em_route_release(&rt);
        json_decref(query);
    }
}

/* A write of a name that is not a DNS label says why, on metadata.name. */
static void test_api_invalid_name(void **state)
{
    (void)state;
    struct em_route rt;
    em_route_make(&rt, "PUT", NS "/jobs/Bad_Name", NULL);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_route_api(&rt, &st), -1);
    assert_string_equal(st.reason, "Invalid");
    assert_non_null(strstr(st.message, "metadata.name"));
    assert_non_null(strstr(st.message, "Bad_Name"));
    assert_string_equal(rt.kind->plural, "jobs");
    nd_status_release(&st);
    em_route_release(&rt);
}

/* ---- what an answer is sent as, by Accept ---- */

#define M_LIST "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
#define M_ONE "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
#define TABLE "application/json;as=Table;v=v1;g=meta.k8s.io"

static void test_accept(void **state)
{
    (void)state;
    static const struct {
        const char *accept;
        int want; /* an em_repr, or -1 for 406 */
        const char *version;
    } cases[] = {
        {NULL, EM_REPR_OBJECT, "v1"},
        {"", EM_REPR_OBJECT, "v1"},
        {"application/json", EM_REPR_OBJECT, "v1"},
        {"*/*", EM_REPR_OBJECT, "v1"},
        {"application/*", EM_REPR_OBJECT, "v1"},
        {"application/x-ndjson", EM_REPR_OBJECT, "v1"},
        {"APPLICATION/JSON", EM_REPR_OBJECT, "v1"},
        /* client-go's metadata client */
        {"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
         M_LIST ",application/json",
         EM_REPR_META_LIST, "v1"},
        {"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," M_ONE
         ",application/json",
         EM_REPR_META, "v1"},
        {"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1", EM_REPR_META,
         "v1beta1"},
        /* kubectl's Table, with the older version after it */
        {TABLE ",application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
         EM_REPR_TABLE, "v1"},
        {"application/json;as=Table;v=v1beta1;g=meta.k8s.io", EM_REPR_TABLE, "v1beta1"},
        /* spaces around clauses and parameters */
        {" application/json ; as=Table ; v=v1 ; g=meta.k8s.io , application/json",
         EM_REPR_TABLE, "v1"},
        /* quality first, then the more specific, then the order sent */
        {TABLE ";q=0.5," M_LIST ";q=0.9", EM_REPR_META_LIST, "v1"},
        {"*/*," M_LIST, EM_REPR_META_LIST, "v1"},
        {"application/*," TABLE, EM_REPR_TABLE, "v1"},
        {M_LIST "," TABLE, EM_REPR_META_LIST, "v1"},
        {TABLE "," M_LIST, EM_REPR_TABLE, "v1"},
        {M_LIST ";q=0,application/json", EM_REPR_OBJECT, "v1"},
        /* a conversion kube-apiserver does not make is passed over, or refused alone */
        {"application/json;as=Widget;g=meta.k8s.io;v=v1,application/json", EM_REPR_OBJECT, "v1"},
        {"application/json;as=PartialObjectMetadataList,application/json", EM_REPR_OBJECT, "v1"},
        {"application/json;as=Widget;g=meta.k8s.io;v=v1", -1, NULL},
        {"application/json;as=Table;g=meta.k8s.io;v=v2", -1, NULL},
        {"application/json;as=Table;g=example.com;v=v1", -1, NULL},
        {"application/json;as=PartialObjectMetadata", -1, NULL},
        {"application/vnd.kubernetes.protobuf", -1, NULL},
        {"application/yaml", -1, NULL},
        {"application/json;q=0", -1, NULL},
        {",", -1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct em_accept acc;
        struct nd_status st = ND_STATUS_INIT;
        int rc = em_accept_choose(cases[i].accept, &acc, &st);
        if (cases[i].want < 0) {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "NotAcceptable");
            assert_non_null(st.fix);
        } else {
            assert_int_equal(rc, 0);
            assert_int_equal(acc.repr, cases[i].want);
            assert_string_equal(acc.version, cases[i].version);
        }
        nd_status_release(&st);
    }
}

static void test_accept_fits(void **state)
{
    (void)state;
    static const struct {
        enum em_repr repr;
        bool list;
        int want;
    } cases[] = {
        {EM_REPR_OBJECT, true, 0},     {EM_REPR_OBJECT, false, 0},   {EM_REPR_TABLE, true, 0},
        {EM_REPR_TABLE, false, 0},     {EM_REPR_META, false, 0},     {EM_REPR_META, true, -1},
        {EM_REPR_META_LIST, true, 0}, {EM_REPR_META_LIST, false, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct em_accept acc = {cases[i].repr, "v1"};
        assert_int_equal(em_accept_fits(&acc, cases[i].list, "JobList", &st), cases[i].want);
        if (cases[i].want)
            assert_non_null(strstr(st.message, "(JobList)"));
        nd_status_release(&st);
    }
}

/* The clauses, sorted and trimmed, as /openapi/v2 reads them too. */
static void test_accept_clauses(void **state)
{
    (void)state;
    struct em_accept_clause cl[4];
    size_t n = em_accept_clauses("*/*;q=0.8, application/* ;q=0.8,application/json;q=0.8;"
                                 "as=Table;g=meta.k8s.io;v=v1, text/html",
                                 cl, 4);
    assert_int_equal(n, 4);
    assert_string_equal(cl[0].type, "text/html");
    assert_string_equal(cl[1].type, "application/json");
    assert_string_equal(cl[1].as, "Table");
    assert_string_equal(cl[1].g, "meta.k8s.io");
    assert_string_equal(cl[1].v, "v1");
    assert_string_equal(cl[2].type, "application/*");
    assert_string_equal(cl[3].type, "*/*");
    /* at most max; a value too long for its field is cut, never taken for another */
    assert_int_equal(em_accept_clauses("a/b,c/d,e/f", cl, 2), 2);
    assert_int_equal(em_accept_clauses(
                         "application/json;as=PartialObjectMetadataListPartialObjectMetadataList",
                         cl, 1),
                     1);
    assert_int_equal(strlen(cl[0].as), sizeof cl[0].as - 1);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_paths),   cmocka_unit_test(test_watch_paths),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_api_invalid_name),
        cmocka_unit_test(test_accept),  cmocka_unit_test(test_accept_fits),
        cmocka_unit_test(test_accept_clauses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
