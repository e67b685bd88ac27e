/* route.h: which handler a request reaches, decided from its method and path alone (no
 * server state, no I/O): the router (router.c), the control endpoints (admin.c) and the
 * API dispatch (api.c) ask here; tests/unit/test_route.c checks the table. */
#ifndef EM_ROUTE_H
#define EM_ROUTE_H

#include <stdbool.h>

#include "api/registry.h"
#include "path.h"
#include "util/status.h"

/* Where a path goes first (router.c, in this order; the stopping server, a body too
 * large, discovery and reviews are decided there). */
enum em_target {
    EM_TO_HEALTH,  /* /healthz, /livez: "ok" */
    EM_TO_READY,   /* /readyz */
    EM_TO_DOCS,    /* /docs, /docs/...: the served pages */
    EM_TO_CONTROL, /* /emulator/v1/...: the control endpoints (admin.c) */
    EM_TO_API,     /* /api/..., /apis/...: discovery and reviews, else the API */
    EM_TO_OTHER,   /* discovery (/version, /openapi/v3...) and reviews, else NotFound */
};
enum em_target em_route_target(const char *path);
/* The part of a control path after /emulator/v1/ (only for EM_TO_CONTROL). */
#define EM_TO_CONTROL_PREFIX_LEN 13

/* The control endpoint a method and the rest of a control path reach. */
enum em_control {
    EM_CONTROL_STATS,     /* GET stats */
    EM_CONTROL_RESET,     /* POST reset */
    EM_CONTROL_CLOCK,     /* GET, POST clock */
    EM_CONTROL_PRICEBOOK, /* GET, PUT pricebook */
    EM_CONTROL_SNAPSHOTS, /* any method: snapshots[/...] (snapshot.c decides) */
    EM_CONTROL_FAULTS,    /* GET, POST, DELETE faults */
    EM_CONTROL_METHOD,    /* a known endpoint, another method: MethodNotAllowed */
    EM_CONTROL_NONE,      /* no such endpoint: NotFound */
};
enum em_control em_route_control(const char *method, const char *rest);

/* The verb of method on an API path: get, list, watch (GET or HEAD; watch: the request's
 * ?watch= is true), create, update, patch, delete, deletecollection; NULL when the
 * method is not served there. On a deprecated .../watch/... path (p->watch) GET and HEAD
 * are watch, whatever ?watch= says, and nothing else is served. */
const char *em_route_verb(const char *method, const struct em_path *p, bool watch);

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

/* The checks of an API request before its query parameters: the kind and version, the
 * project, the method (verb from em_route_verb; method and path for the message), a kind
 * published read-only, a namespaced kind's item without a project, the object's name.
 * *kind is the kind of the path (NULL when none) even when it fails. 0, or -1 with st
 * (NotFound, MethodNotAllowed, Invalid). */
int em_route_api(const struct em_path *p, const char *method, const char *path,
                 const char *verb, const struct nd_kind **kind, struct nd_status *st);
/* The checks after the query parameters (the subresource) and the handler: 0 with *op,
 * or -1 with st (NotFound, MethodNotAllowed). */
int em_route_op(const struct em_path *p, const struct nd_kind *k, const char *verb,
                enum em_api_op *op, struct nd_status *st);

/* The NotFound status of Kubernetes for an object: `jobs.nodus.dev "x" not found`, with
 * its target and a fix listing what exists (in project ns when not ""). Returns -1. */
int em_route_not_found(const struct nd_kind *k, const char *ns, const char *name,
                       struct nd_status *st);

#endif
