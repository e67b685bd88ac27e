/* api.h: the generic REST handlers behind /api/v1 and /apis/nodus.dev/v1.
 *
 * One set of handlers serves every kind of the registry: get, list, watch, create,
 * replace, patch (merge, JSON, server-side apply), delete, deletecollection and the
 * status subresource. Kinds differ only by what the registry says about them.
 * Everything runs with the server lock held, except watch streams, which take it for
 * each read; a read at a resourceVersion not reached yet releases it while it waits
 * (em_api_wait_fresh).
 */
#ifndef EM_API_H
#define EM_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "accept.h"
#include "kinds/registry.h"
#include "kinds/schema.h"
#include "authz.h"
#include "path.h"
#include "route.h"
#include "selector/selector.h"
#include "server.h"

/* What a handler knows about the request it serves. */
struct em_api {
    struct em_server *srv;
    struct em_req *req;
    struct em_resp *resp;
    const struct em_route *route; /* what the request is (route.h) */
    struct em_path path;          /* route->api, borrowed */
    const struct nd_kind *kind;   /* route->kind */
    const char *ns;       /* the project of the path, "" for cluster-scoped or all */
    const char *identity; /* who asks (nodus.dev/created-by): who->name */
    const struct em_identity *who; /* who asks: scopes, projects (authz.h) */
    json_t *warnings;     /* strings, sent as Warning headers */
    struct em_accept accept; /* what the answer is sent as (accept.h) */
    struct nd_status st;
};

/* Serves an API route (rt->target EM_TO_API: under /api/v1 or /apis/G/V, with a resource)
 * for who, whom em_authz_request has let through. */
void em_api_handle(struct em_server *srv, struct em_req *req, const struct em_route *rt,
                   struct em_resp *resp, const struct em_identity *who);

/* Handlers (api_read.c, api_write.c, api_patch.c, api_delete.c, watch.c). Each fills
 * a->resp, or returns -1 with a->st filled. */
int em_api_get(struct em_api *a);
int em_api_list(struct em_api *a);
int em_api_watch(struct em_api *a);
int em_api_create(struct em_api *a);
int em_api_replace(struct em_api *a);
int em_api_patch(struct em_api *a);
int em_api_delete(struct em_api *a);
int em_api_delete_collection(struct em_api *a);

/* Shared pieces. */
/* Parses the request body as the content type says (JSON, or YAML where allowed). NEW. */
json_t *em_api_body(struct em_api *a, bool yaml_ok);
/* dryRun=All (query); -1 with BadRequest for any other value. */
int em_api_dry_run(struct em_api *a, bool *dry_run);
/* The NotFound status of Kubernetes: `jobs.nodus.dev "x" not found`. Returns -1. */
int em_api_not_found(struct em_api *a, const char *name);
/* Writes obj as the answer, as Accept asks (a one-row Table, a PartialObjectMetadata);
 * a Status goes as it is. */
void em_api_answer(struct em_api *a, int code, const json_t *obj);
/* The field manager of a write: ?fieldManager=, else derived from User-Agent. */
const char *em_api_field_manager(struct em_api *a, char out[128]);
/* The request's labelSelector and fieldSelector, parsed once for lists, watches and
 * collection deletes alike under the rules of `use` (selector.h); 0, or -1 with a->st. */
int em_api_selectors(struct em_api *a, enum nd_select_use use, struct nd_select *out);
/* For a collection write: the objects of items the request's selectors (ND_SELECT_WRITE)
 * choose, among those of the projects the caller may see (em_authz_sees_object). NEW
 * array, or NULL with a->st. */
json_t *em_api_select(struct em_api *a, json_t *items);

/* Query parameters (params.c). Every request's are checked before its handler runs:
 * a name of at most EM_MAX_QUERY_NAME bytes, a value of at most EM_MAX_QUERY_VALUE, no
 * NUL (%00) and valid UTF-8 in either; -1 with a BadRequest naming the parameter. */
#define EM_MAX_QUERY_NAME  256
#define EM_MAX_QUERY_VALUE (16 * 1024)
int em_api_check_query(struct em_api *a);
/* ?resourceVersion= of get, list and watch: *rv -1 when absent or empty, else its value;
 * -1 with a BadRequest when it is not an unsigned integer (this server's versions are
 * integers; kube-apiserver's words). */
int em_api_query_rv(struct em_api *a, int64_t *rv);
/* A boolean query parameter as kube-apiserver reads it (Go's strconv.ParseBool: 1 t T
 * TRUE true True, 0 f F FALSE false False; absent or empty is false); -1 with a
 * BadRequest naming the parameter for anything else. */
int em_api_query_bool(struct em_api *a, const char *name, bool *out);
/* The same for a value: 0 (and *out) when it is a boolean (NULL is false), else -1. */
int em_parse_bool(const char *v, bool *out);
/* An integer query parameter (Go's strconv.ParseInt(v, 10, 64)): *given false and *out
 * untouched when absent or empty; -1 with a BadRequest naming it when it is not one. The table of
 * query.h has checked it already on the API's paths. */
int em_api_query_int(struct em_api *a, const char *name, int64_t *out, bool *given);
/* A read at resourceVersion want newer than the store's (fresh.c): a->st is 504 Timeout
 * "Too large resource version" with the cause ResourceVersionTooLarge and, when retry_s > 0,
 * retryAfterSeconds. Returns -1. */
int em_api_too_large(struct em_api *a, int64_t want, int retry_s);
/* Waits (server lock held; released while waiting) until the store reaches want, at most
 * 3 s: 0 when it did (or want <= the current revision), else -1 with em_api_too_large. */
int em_api_wait_fresh(struct em_api *a, int64_t want);
/* pretty=true: re-indents a JSON answer already in a->resp (not a stream). */
void em_api_pretty(struct em_api *a);

#endif
