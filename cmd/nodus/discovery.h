/* discovery.h: what the server serves (discovery and OpenAPI documents), with a disk
 * cache as kubectl keeps one.
 *
 * Answers are cached per server under
 *     $HOME/.nodus/cache/discovery/<host_port>/<escaped path>.json
 * as {"etag": "...", "fetched": <unix seconds>, "immutable": true?, "body": <answer>}.
 * <host_port> is the server URL without its scheme, every character other than
 * [A-Za-z0-9.-] made '_' ("127.0.0.1_8080"); <escaped path> is the request path without
 * its leading '/', '/' made '_' and every other character outside [A-Za-z0-9.-]
 * percent-encoded ("apis_nodus.dev_v1", "openapi_v3_apis_nodus.dev_v1%3Fhash%3D...").
 *
 *   - an answer fetched less than ND_DISCOVERY_TTL seconds ago (kubectl's 6 hours), or
 *     one the server called immutable (Cache-Control: immutable, the OpenAPI group
 *     documents addressed by hash), is used without a request;
 *   - an older one is revalidated with If-None-Match: a 304 reuses it and refreshes its
 *     time, a 200 replaces it;
 *   - a cache file that cannot be read or parsed, or has the wrong shape, is ignored
 *     and replaced by the next answer;
 *   - without a usable HOME (unset, empty, or a directory that cannot be written) there
 *     is no cache and no error: every call asks the server. Failing to write the cache
 *     is never an error either.
 */
#ifndef ND_DISCOVERY_H
#define ND_DISCOVERY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "util/status.h"

#define ND_DISCOVERY_TTL (6 * 60 * 60)

/* Flags of nd_discovery_get_flags. */
enum {
    /* Use a cached answer whatever its age (api-resources --cached); ask only when
     * nothing is cached. */
    ND_DISCOVERY_STALE_OK = 1,
    /* Do not retry a refused connection, 429 or 503 (explain: a server that is not
     * there answers at once, and the built-in schemas take over). */
    ND_DISCOVERY_NO_RETRY = 2,
};

/* The JSON answer to GET path (path and query, e.g. "/apis/nodus.dev/v1"), from the
 * cache or the server as described above. *out is NEW. -1 with st: the client's errors
 * (Unreachable, Timeout, a configuration error from nd_ctx_client), or the server's
 * Status for a non-2xx answer other than 304, or InternalError for a body that is not
 * JSON. */
int nd_discovery_get(struct nd_ctx *ctx, const char *path, json_t **out, struct nd_status *st);
int nd_discovery_get_flags(struct nd_ctx *ctx, const char *path, int flags, json_t **out,
                           struct nd_status *st);

/* Every resource the server serves in the preferred version of each group (as
 * kubectl's ServerPreferredResources), subresources ("jobs/status") left out: the
 * entries of /api/<v> (every version /api lists) and of /apis/<group>/<preferred>, in
 * the server's order, core first. Each is a copy of the APIResource object with
 * "group" ("" for core), "version" and "groupVersion" added. NEW array, or NULL with
 * st as nd_discovery_get (a malformed document is an InternalError naming its path). */
json_t *nd_discovery_resources(struct nd_ctx *ctx, int flags, struct nd_status *st);

/* Every group version the server serves ("v1", "nodus.dev/v1"), sorted as kubectl
 * api-versions sorts them (byte order). NEW array of strings, or NULL with st. */
json_t *nd_discovery_group_versions(struct nd_ctx *ctx, int flags, struct nd_status *st);

/* The kind registry listed as nd_discovery_resources lists a server's resources (name,
 * singularName, kind, shortNames, group, version): names for a CLI without a server.
 * NEW array. */
json_t *nd_discovery_builtin_resources(void);

/* What a `RESOURCE[.GROUP][.FIELD...]` argument names, as kubectl explain reads it. */
struct nd_resource_ref {
    char *group;   /* "" for core */
    char *version; /* "v1" */
    char *resource;
    char **fields; /* the field path after it, nfields names (may be empty strings) */
    size_t nfields;
};

/* Reads arg as kubectl's SplitAndParseResourceRequestWithMatchingPrefix does: the
 * resource is the first dot-separated part, matched (case-insensitively) against the
 * plural, singular, short names and Kind of resources (an array as from
 * nd_discovery_resources); names only the kind registry knows ("projects") are
 * accepted too. When arg starts with `<plural>.<group>` of a match, the fields are what
 * follows it ("jobs.nodus.dev.spec" -> spec); otherwise the first match is taken and
 * the fields are every part after the first. A trailing '.' is ignored. With plain
 * (explain --api-version: SplitAndParseResourceRequest) the group is never looked
 * for. Fills out (which needs no initialisation; release it), or -1 with st (Usage):
 * `the server doesn't have a resource type "x"`. */
int nd_discovery_resolve(const json_t *resources, const char *arg, bool plain,
                         struct nd_resource_ref *out, struct nd_status *st);
void nd_resource_ref_release(struct nd_resource_ref *r);

#endif
