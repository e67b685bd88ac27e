/* route.h: which handler a request reaches, decided once from its method and path alone
 * (no server state, no I/O) into one struct em_route: the router (router.c), the front
 * door, the authorisation, the fault injection, the control endpoints (admin.c) and the
 * API dispatch (api.c) read it; tests/unit/test_route.c and test_route_table.c check the
 * tables. */
#ifndef EM_ROUTE_H
#define EM_ROUTE_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "path.h"
#include "util/status.h"

/* Where a request goes: one value of this per request (struct em_route), decided at the
 * front from its method and path; the front door, the authorisation, the fault
 * injection and the handlers all read it. */
enum em_target {
    EM_TO_HEALTH,    /* /healthz, /livez: "ok" (open) */
    EM_TO_READY,     /* /readyz (open) */
    EM_TO_DOCS,      /* /docs, /docs/...: the served pages (open) */
    EM_TO_CONSOLE,   /* /, /console, /console/...: the console's files (open: the page
                      * holds no data; what it shows comes from the API, with a token) */
    EM_TO_CONTROL,   /* /emulator, /emulator/...: admin; the endpoints are under
                      * /emulator/v1/ (admin.c; rt->control), any other is NotFound */
    EM_TO_DISCOVERY, /* /api, /apis, what under them names no resource, /openapi,
                      * /openapi/..., /version: any valid token; discovery.c, else
                      * NotFound */
    EM_TO_REVIEW,    /* whoami and can-i (auth_review.h): any valid token */
    EM_TO_API,       /* a resource under /api/v1 or /apis/G/V: the API (api.h) */
    EM_TO_OTHER,     /* any other path: any valid token, then NotFound */
};

/* A path outside the API's resources and where it goes: the one list of them, which
 * em_route_make and the nonResourceRules of a rules review (authz_rules.h) read.
 * em_nonresources ends with a NULL path. */
struct em_nonresource {
    const char *path;         /* "/healthz"; ending in a slash and a star: every path
                               * under it (as in kube's nonResourceURLs) */
    enum em_target target;    /* EM_TO_DISCOVERY for /api/... and /apis/... may become
                               * EM_TO_REVIEW or EM_TO_API (em_route_make) */
    const char *const *verbs; /* what it is served with, lower-case; NULL: nothing */
};
extern const struct em_nonresource em_nonresources[];
/* The row of em_nonresources that path matches (an exact row before one of every path
 * under a folder, which matches only at a slash: /docs/x, never /docsx); NULL when
 * none does. */
const struct em_nonresource *em_route_nonresource(const char *path);

struct em_review;

/* What a request is: where it goes and, for the API, what it does. Made once at the
 * front by em_route_make (free with em_route_release), then handed down. */
struct em_route {
    enum em_target target;
    const char *method;         /* borrowed from the request (HEAD is served as GET) */
    const char *path;           /* borrowed: the request's path */
    bool is_write;              /* POST, PUT, PATCH or DELETE: the request may change
                                 * state (an API verb: create update patch delete
                                 * deletecollection) */
    /* EM_TO_API */
    struct em_path api;         /* the parsed path (owned) */
    const struct nd_kind *kind; /* the kind of the group and plural; NULL: none this
                                 * server has (the version is checked by em_route_api) */
    const char *verb;           /* get list watch create update patch delete
                                 * deletecollection; NULL: none fits the method (405) */
    const char *project;        /* the project touched: the path's, or a Namespace's own
                                 * name; NULL: none, or every project */
    const char *sub;            /* the subresource (status log exec files invoke ...) */
    bool project_in_body;       /* a create of a Namespace: the project is the body's
                                 * metadata.name, read by em_authz_check */
    bool unnamed;               /* ...and the body names none (set by em_authz_check) */
    /* EM_TO_CONTROL: the path after /emulator/v1/; NULL: not an endpoint's (NotFound) */
    const char *control;
    /* EM_TO_DOCS: the page, the path after /docs ("" or "/...") */
    const char *docs_page;
    /* EM_TO_CONSOLE: the file, the path after /console/ ("": the page itself) */
    const char *console_file;
    /* EM_TO_REVIEW: which review */
    const struct em_review *review;
};

/* Fills rt from a request's method, path and query (name -> array of values: ?watch=);
 * never fails (what does not exist is a target or a NULL field). */
void em_route_make(struct em_route *rt, const char *method, const char *path,
                   const json_t *query);
void em_route_release(struct em_route *rt);
/* Served to anyone, tokens or not (health, readiness, docs, the console's files). */
bool em_route_open(const struct em_route *rt);
/* Whether rt reaches the subresource sub of an API object. */
bool em_route_is_sub(const struct em_route *rt, const char *sub);
/* Whether a method may change state (POST, PUT, PATCH, DELETE); the HTTP method of an
 * API verb (list and watch: GET; deletecollection: DELETE; another word: itself). */
bool em_route_method_writes(const char *method);
const char *em_route_verb_method(const char *verb);

/* The control endpoint a method and the rest of a control path reach. */
enum em_control {
    EM_CONTROL_STATS,     /* GET stats */
    EM_CONTROL_RESET,     /* POST reset */
    EM_CONTROL_CLOCK,     /* GET, POST clock */
    EM_CONTROL_PRICEBOOK, /* GET, PUT pricebook */
    EM_CONTROL_SNAPSHOTS, /* any method: snapshots[/...] (snapshot.c decides) */
    EM_CONTROL_FAULTS,    /* GET, POST, DELETE faults */
    EM_CONTROL_SPEND,     /* GET spend[?watch=true] */
    EM_CONTROL_METHOD,    /* a known endpoint, another method: MethodNotAllowed */
    EM_CONTROL_NONE,      /* no such endpoint: NotFound */
};
enum em_control em_route_control(const char *method, const char *rest);

/* The handler an API request reaches. */
enum em_api_op {
    EM_OP_GET,
    EM_OP_LIST,
    EM_OP_WATCH,
    EM_OP_CREATE,
    EM_OP_UPDATE,
    EM_OP_PATCH,
    EM_OP_DELETE,
    EM_OP_DELETECOLLECTION,
    EM_OP_SUBRESOURCE, /* p->sub other than status: the subresource table (subresource.c) */
};

/* The checks of an API route before its query parameters: the kind and version, the
 * project, the method (rt->verb; method and path for the message), a kind published
 * read-only, a namespaced kind's item without a project, the object's name. 0, or -1
 * with st (NotFound, MethodNotAllowed, Invalid). */
int em_route_api(const struct em_route *rt, struct nd_status *st);
/* The checks after the query parameters (the subresource) and the handler: 0 with *op,
 * or -1 with st (NotFound, MethodNotAllowed). */
int em_route_op(const struct em_route *rt, enum em_api_op *op, struct nd_status *st);

/* The NotFound status of Kubernetes for an object: `jobs.nodus.dev "x" not found`, with
 * its target and a fix listing what exists (in project ns when not ""). Returns -1. */
int em_route_not_found(const struct nd_kind *k, const char *ns, const char *name,
                       struct nd_status *st);

#endif
