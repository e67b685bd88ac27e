/* accept.h: the one reader of the Accept header, and what an API answer becomes by it.
 *
 * An Accept header is a list of clauses, `type/subtype;param=value;...`. They are tried
 * as kube-apiserver tries them: by quality (`q=`, 1 when absent; 0 is never taken), then
 * the more specific first (`a/b` before `a/any` before `any/any`, any being the
 * wildcard `*`), in the order sent
 * otherwise. An API answer takes the first clause this server can send: a JSON type
 * (application/json, application/x-ndjson, application/any, any/any), either as it is
 * or converted as its `as=` asks (Table, PartialObjectMetadata, PartialObjectMetadataList,
 * with g=meta.k8s.io and v=v1 or v1beta1). Other types (protobuf, YAML) are passed over,
 * so a client offering protobuf first and JSON after gets JSON.
 */
#ifndef EM_ACCEPT_H
#define EM_ACCEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/status.h"

/* One clause, trimmed; a parameter absent (or too long to be one this server reads) is
 * "". */
struct em_accept_clause {
    char type[96]; /* "application/json" */
    char as[40], g[24], v[16];
    double q;
};

/* The clauses of accept (NULL or "" is none), sorted as above, at most max (the rest are
 * dropped); how many. */
size_t em_accept_clauses(const char *accept, struct em_accept_clause *out, size_t max);

/* What an answer is sent as. */
enum em_repr {
    EM_REPR_OBJECT,    /* the object, or the list, as it is */
    EM_REPR_TABLE,     /* a Table (table.h) */
    EM_REPR_META,      /* a PartialObjectMetadata: apiVersion, kind, metadata */
    EM_REPR_META_LIST, /* a PartialObjectMetadataList of them */
};

struct em_accept {
    enum em_repr repr;
    const char *version; /* meta.k8s.io's version of a conversion: "v1" or "v1beta1" */
};

/* Chooses the answer for accept (the header's value; NULL or "" is JSON as it is): 0,
 * or -1 with st a 406 NotAcceptable saying what was refused and what is served. */
int em_accept_choose(const char *accept, struct em_accept *out, struct nd_status *st);

/* Whether a representation fits an answer that is a list (list) or one object: a
 * PartialObjectMetadata is not a list, a PartialObjectMetadataList nothing else. 0, or
 * -1 with st a 406 NotAcceptable (kube-apiserver's words; what to ask for instead). what
 * names the answer ("a JobList", "a watch's events"). */
int em_accept_fits(const struct em_accept *acc, bool list, const char *what, struct nd_status *st);

#endif
