/* query.h: every query parameter the API takes, per verb, and how each is read.
 *
 * One table (em_query_params) says, for each parameter, the verbs that read it, its type
 * and its accepted values. em_query_check runs it over a request's query before the
 * handler touches anything: a value of the wrong type is a 400 BadRequest naming the
 * parameter and the value, and the rules kube-apiserver puts on ListOptions
 * (resourceVersionMatch, sendInitialEvents) are a 422 Invalid as there. A parameter the
 * table does not list for a verb is ignored, as kube-apiserver ignores it.
 * Depends on jansson and pkg/util only, so the unit tests link it alone.
 */
#ifndef EM_QUERY_H
#define EM_QUERY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/status.h"

/* The verbs of the table (a route's verb words, route.h, and the subresources). */
enum {
    EM_QV_GET = 1u << 0,
    EM_QV_LIST = 1u << 1,
    EM_QV_WATCH = 1u << 2,
    EM_QV_CREATE = 1u << 3,
    EM_QV_UPDATE = 1u << 4,
    EM_QV_PATCH = 1u << 5,
    EM_QV_DELETE = 1u << 6,
    EM_QV_DELETECOLLECTION = 1u << 7,
    EM_QV_LOG = 1u << 8,
    EM_QV_EXEC = 1u << 9,
    EM_QV_FILES = 1u << 10,
    EM_QV_INVOKE = 1u << 11,
};

enum em_qtype {
    EM_QT_BOOL,     /* Go's strconv.ParseBool; empty is false */
    EM_QT_INT64,    /* Go's strconv.ParseInt(s, 10, 64), then >= min */
    EM_QT_RV,       /* a resourceVersion: strconv.ParseUint(s, 10, 64), <= INT64_MAX */
    EM_QT_ENUM,     /* one of values ("A|B|C"), case-sensitive; empty is absent */
    EM_QT_STRING,   /* any text (checked for length, NUL and UTF-8 before) */
    EM_QT_SELECTOR, /* a label or field selector, parsed by the handler (400 there) */
    EM_QT_TIME,     /* RFC 3339, parsed by the handler (400 there) */
};

struct em_qparam {
    const char *name;
    unsigned verbs; /* EM_QV_* */
    enum em_qtype type;
    int64_t min;        /* EM_QT_INT64: the least value taken */
    const char *values; /* EM_QT_ENUM: "A|B|C" */
    const char *what;   /* one line, for docs */
};

/* The table, ended by a row with a NULL name. */
extern const struct em_qparam em_query_params[];

/* The bit of a verb ("list", "watch", ..., or a subresource "log", "exec", "files",
 * "invoke"); 0 for anything else. */
unsigned em_query_verb_bit(const char *verb);

/* Go's strconv.ParseBool (1 t T TRUE true True, 0 f F FALSE false False); NULL and "" are
 * false. 0, or -1 for anything else (*out false). */
int em_query_parse_bool(const char *v, bool *out);

/* Go's strconv.ParseInt(v, 10, 64): an optional sign and decimal digits. 0, or -1 with
 * *why "invalid syntax" or "value out of range" (Go's words). */
int em_query_parse_int64(const char *v, int64_t *out, const char **why);

/* Checks query (an object: name -> array of strings, as em_req fills it) for verb
 * against the table and the ListOptions rules. 0, or -1 with st filled. */
int em_query_check(const json_t *query, const char *verb, struct nd_status *st);

/* The last value of name in query, or NULL. BORROWED. */
const char *em_query_get(const json_t *query, const char *name);

#endif
