/* The table of query parameters and their parsers; see query.h. */
#include "query.h"

#include <string.h>

#include "util/buf.h"
#include "util/quote.h"

#define READS (EM_QV_GET | EM_QV_LIST | EM_QV_WATCH)
#define LISTS (EM_QV_LIST | EM_QV_WATCH | EM_QV_DELETECOLLECTION)
#define WRITES (EM_QV_CREATE | EM_QV_UPDATE | EM_QV_PATCH)
#define DELETES (EM_QV_DELETE | EM_QV_DELETECOLLECTION)
#define ALL_VERBS 0xfffu

/* Sorted by verb family, then name; docs/api.md's "Query parameters" is this table. */
const struct em_qparam em_query_params[] = {
    {"pretty", ALL_VERBS, EM_QT_BOOL, 0, NULL, "indent the JSON answer"},
    {"watch", READS, EM_QT_BOOL, 0, NULL, "stream changes instead of listing"},
    {"allowWatchBookmarks", EM_QV_LIST | EM_QV_WATCH, EM_QT_BOOL, 0, NULL,
     "BOOKMARK events to resume from"},
    {"sendInitialEvents", EM_QV_LIST | EM_QV_WATCH, EM_QT_BOOL, 0, NULL,
     "a watch starts with the current objects, then a BOOKMARK marking their end"},
    {"resourceVersion", READS | EM_QV_DELETECOLLECTION, EM_QT_RV, 0, NULL,
     "the revision to read at or watch from"},
    {"resourceVersionMatch", LISTS, EM_QT_STRING, 0, NULL,
     "Exact or NotOlderThan (rules as kube-apiserver's)"},
    {"limit", EM_QV_LIST | EM_QV_DELETECOLLECTION, EM_QT_INT64, 0, NULL,
     "items per page (0: 500, at most 1000)"},
    {"continue", EM_QV_LIST | EM_QV_DELETECOLLECTION, EM_QT_STRING, 0, NULL,
     "the token of the next page"},
    {"timeoutSeconds", LISTS, EM_QT_INT64, 0, NULL, "end a watch after this many seconds"},
    {"labelSelector", LISTS, EM_QT_SELECTOR, 0, NULL, "labels to match"},
    {"fieldSelector", LISTS, EM_QT_SELECTOR, 0, NULL, "fields to match"},
    {"includeObject", READS, EM_QT_ENUM, 0, "None|Metadata|Object",
     "what each Table row carries"},
    {"dryRun", WRITES | DELETES | EM_QV_INVOKE, EM_QT_ENUM, 0, "All",
     "check everything, write nothing"},
    {"fieldManager", WRITES, EM_QT_STRING, 0, NULL, "who owns the fields written"},
    {"fieldValidation", WRITES, EM_QT_ENUM, 0, "Ignore|Warn|Strict",
     "what unknown fields do"},
    {"force", EM_QV_PATCH, EM_QT_BOOL, 0, NULL, "server-side apply takes over conflicts"},
    {"propagationPolicy", DELETES, EM_QT_ENUM, 0, "Background|Foreground|Orphan",
     "what happens to owned objects"},
    {"gracePeriodSeconds", DELETES, EM_QT_INT64, 0, NULL, "seconds before removal"},
    {"orphanDependents", DELETES, EM_QT_BOOL, 0, NULL,
     "deprecated: true is propagationPolicy=Orphan"},
    {"follow", EM_QV_LOG, EM_QT_BOOL, 0, NULL, "stream the log as it grows"},
    {"previous", EM_QV_LOG, EM_QT_BOOL, 0, NULL, "the log of the last run"},
    {"timestamps", EM_QV_LOG, EM_QT_BOOL, 0, NULL, "an RFC 3339 time before each line"},
    {"tailLines", EM_QV_LOG, EM_QT_INT64, INT64_MIN, NULL, "the last N lines (0 or more)"},
    {"limitBytes", EM_QV_LOG, EM_QT_INT64, INT64_MIN, NULL, "at most N bytes (1 or more)"},
    {"sinceSeconds", EM_QV_LOG, EM_QT_INT64, INT64_MIN, NULL,
     "lines of the last N seconds (1 or more)"},
    {"sinceTime", EM_QV_LOG, EM_QT_TIME, 0, NULL, "lines from this time on"},
    {"container", EM_QV_LOG | EM_QV_EXEC, EM_QT_STRING, 0, NULL, "accepted, one container"},
    {"command", EM_QV_EXEC, EM_QT_STRING, 0, NULL, "the program, once per argument"},
    {"stdin", EM_QV_EXEC, EM_QT_BOOL, 0, NULL, "send standard input"},
    {"stdout", EM_QV_EXEC, EM_QT_BOOL, 0, NULL, "receive standard output"},
    {"stderr", EM_QV_EXEC, EM_QT_BOOL, 0, NULL, "receive standard error"},
    {"tty", EM_QV_EXEC, EM_QT_BOOL, 0, NULL, "a terminal"},
    {"path", EM_QV_FILES, EM_QT_STRING, 0, NULL, "the file or folder"},
    {"stat", EM_QV_FILES, EM_QT_BOOL, 0, NULL, "what is at path, as JSON"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static const char *const verb_names[] = {"get",    "list",   "watch",
                                         "create", "update", "patch",
                                         "delete", "deletecollection", "log",
                                         "exec",   "files",  "invoke",
                                         NULL};

unsigned em_query_verb_bit(const char *verb)
{
    for (int i = 0; verb && verb_names[i]; i++)
        if (!strcmp(verb, verb_names[i]))
            return 1u << i;
    return 0;
}

int em_query_parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True", NULL};
    static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False", "", NULL};
    *out = false;
    if (!v)
        return 0;
    for (int i = 0; yes[i]; i++)
        if (!strcmp(v, yes[i]))
            return (*out = true), 0;
    for (int i = 0; no[i]; i++)
        if (!strcmp(v, no[i]))
            return 0;
    return -1;
}

int em_query_parse_int64(const char *v, int64_t *out, const char **why)
{
    const char *c = v ? v : "";
    bool neg = false;
    *out = 0;
    *why = "invalid syntax";
    if (*c == '+' || *c == '-')
        neg = *c++ == '-';
    if (!*c)
        return -1;
    uint64_t n = 0, cap = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool range = false;
    for (; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1; /* Go says "invalid syntax" even after an overflow */
        unsigned d = (unsigned)(*c - '0');
        if (range || n > (cap - d) / 10)
            range = true;
        else
            n = n * 10 + d;
    }
    if (range) {
        *why = "value out of range";
        return -1;
    }
    *out = neg ? (n == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n) : (int64_t)n;
    *why = NULL;
    return 0;
}

const char *em_query_get(const json_t *query, const char *name)
{
    json_t *vals = json_object_get(query, name);
    size_t n = json_array_size(vals);
    return n ? json_string_value(json_array_get(vals, n - 1)) : NULL;
}

/* 400 BadRequest: `invalid value for query parameter NAME: "VALUE" (want WANT)`. */
static int bad_value(struct nd_status *st, const char *name, const char *value, const char *want,
                     const char *fix)
{
    struct nd_buf q = ND_BUF_INIT;
    nd_quote(&q, value, ND_QUOTE_MAX);
    nd_status_set(st, "BadRequest", fix, "invalid value for query parameter %s: %s (want %s)",
                  name, q.data, want);
    nd_buf_release(&q);
    return -1;
}

static int check_value(const struct em_qparam *p, const char *v, struct nd_status *st)
{
    char want[160], fix[200];
    switch (p->type) {
    case EM_QT_BOOL: {
        bool b;
        if (em_query_parse_bool(v, &b) == 0)
            return 0;
        snprintf(fix, sizeof fix,
                 "send %s=true or %s=false (1, t, T, TRUE, True and 0, f, F, FALSE, False are "
                 "taken too)",
                 p->name, p->name);
        return bad_value(st, p->name, v, "true or false", fix);
    }
    case EM_QT_INT64:
    case EM_QT_RV: {
        int64_t n;
        const char *why;
        if (!*v)
            return 0;
        bool ok = em_query_parse_int64(v, &n, &why) == 0;
        if (ok && n >= (p->type == EM_QT_RV ? 0 : p->min))
            return 0;
        if (p->type == EM_QT_RV) /* kube-apiserver's words (ParseUint) */
            return nd_status_set(st, "BadRequest",
                                 "use the resourceVersion of an object or a list, or leave it "
                                 "out",
                                 "resourceVersion: Invalid value: \"%s\": strconv.ParseUint: "
                                 "parsing \"%s\": %s",
                                 v, v, ok ? "invalid syntax" : why);
        if (ok)
            snprintf(want, sizeof want, "a whole number, %lld or more", (long long)p->min);
        else
            snprintf(want, sizeof want, "a whole number: strconv.ParseInt: %s", why);
        snprintf(fix, sizeof fix, "send %s=N with N a whole number from %lld to %lld", p->name,
                 (long long)(p->min == INT64_MIN ? 0 : p->min), (long long)INT64_MAX);
        return bad_value(st, p->name, v, want, fix);
    }
    case EM_QT_ENUM: {
        if (!*v)
            return 0;
        size_t n = strlen(v);
        for (const char *s = p->values; s; s = strchr(s, '|') ? strchr(s, '|') + 1 : NULL) {
            const char *end = strchr(s, '|');
            size_t len = end ? (size_t)(end - s) : strlen(s);
            if (len == n && !strncmp(s, v, n))
                return 0;
        }
        struct nd_buf w = ND_BUF_INIT, f = ND_BUF_INIT;
        /* "A, B or C", and the fix "send x=A, x=B, x=C, or leave it out" */
        const char *s = p->values;
        while (*s) {
            const char *end = strchr(s, '|');
            size_t len = end ? (size_t)(end - s) : strlen(s);
            if (w.len)
                nd_buf_adds(&w, end ? ", " : " or ");
            nd_buf_add(&w, s, len);
            nd_buf_addf(&f, "%s%s=%.*s", f.len ? ", " : "send ", p->name, (int)len, s);
            s = end ? end + 1 : s + len;
        }
        nd_buf_adds(&f, ", or leave it out");
        int rc = bad_value(st, p->name, v, w.data, f.data);
        nd_buf_release(&w);
        nd_buf_release(&f);
        return rc;
    }
    default:
        return 0;
    }
}

/* 422 Invalid on ListOptions, one cause, as kube-apiserver answers its rules. */
static int forbidden(struct nd_status *st, const char *field, const char *why, const char *fix)
{
    nd_status_set(st, "Invalid", fix, "ListOptions.meta.k8s.io \"\" is invalid: %s: Forbidden: %s",
                  field, why);
    nd_status_add_cause(st, "FieldValueForbidden", field, "Forbidden: %s", why);
    nd_status_set_target(st, "", "meta.k8s.io", "ListOptions");
    return -1;
}

/* kube-apiserver's ValidateListOptions (the WatchList feature on, as in 1.33). */
static int check_list_options(const json_t *q, bool watch, struct nd_status *st)
{
    const char *match = em_query_get(q, "resourceVersionMatch");
    const char *rv = em_query_get(q, "resourceVersion");
    const char *cont = em_query_get(q, "continue");
    const char *sie = em_query_get(q, "sendInitialEvents");
    bool has_match = match && *match, has_rv = rv && *rv, has_cont = cont && *cont;
    bool has_sie = sie != NULL; /* a pointer in Go: given at all */
    if (has_match && strcmp(match, "Exact") && strcmp(match, "NotOlderThan")) {
        struct nd_buf q2 = ND_BUF_INIT;
        nd_quote(&q2, match, ND_QUOTE_MAX);
        const char *vals = watch ? "\"NotOlderThan\"" : "\"Exact\", \"NotOlderThan\", \"\"";
        nd_status_set(st, "Invalid",
                      watch ? "send resourceVersionMatch=NotOlderThan, or leave it out"
                            : "send resourceVersionMatch=Exact or NotOlderThan, or leave it out",
                      "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: "
                      "Unsupported value: %s: supported values: %s",
                      q2.data, vals);
        nd_status_add_cause(st, "FieldValueNotSupported", "resourceVersionMatch",
                            "Unsupported value: %s: supported values: %s", q2.data, vals);
        nd_status_set_target(st, "", "meta.k8s.io", "ListOptions");
        nd_buf_release(&q2);
        return -1;
    }
    if (!watch) {
        if (has_sie)
            return forbidden(st, "sendInitialEvents", "sendInitialEvents is forbidden for list",
                             "add watch=true, or leave sendInitialEvents out");
        if (has_match && !has_rv)
            return forbidden(st, "resourceVersionMatch",
                             "resourceVersionMatch is forbidden unless resourceVersion is "
                             "provided",
                             "add resourceVersion=R (0 for any), or leave resourceVersionMatch "
                             "out");
        if (has_match && has_cont)
            return forbidden(st, "resourceVersionMatch",
                             "resourceVersionMatch is forbidden when continue is provided",
                             "leave resourceVersionMatch out when you pass continue");
        if (has_match && !strcmp(match, "Exact") && !strcmp(rv, "0"))
            return forbidden(st, "resourceVersionMatch",
                             "resourceVersionMatch \"exact\" is forbidden for resourceVersion "
                             "\"0\"",
                             "use resourceVersionMatch=NotOlderThan with resourceVersion=0");
        return 0;
    }
    if (has_sie && !(has_match && !strcmp(match, "NotOlderThan")))
        return forbidden(st, "resourceVersionMatch",
                         "sendInitialEvents requires setting resourceVersionMatch to "
                         "NotOlderThan",
                         "add resourceVersionMatch=NotOlderThan");
    if (has_match && !has_sie)
        return forbidden(st, "resourceVersionMatch",
                         "resourceVersionMatch is forbidden for watch unless sendInitialEvents "
                         "is provided",
                         "add sendInitialEvents=true, or leave resourceVersionMatch out");
    if (has_match && has_cont)
        return forbidden(st, "resourceVersionMatch",
                         "resourceVersionMatch is forbidden when continue is provided",
                         "leave resourceVersionMatch out when you pass continue");
    return 0;
}

int em_query_check(const json_t *query, const char *verb, struct nd_status *st)
{
    unsigned bit = em_query_verb_bit(verb);
    for (const struct em_qparam *p = em_query_params; p->name; p++) {
        if (!(p->verbs & bit))
            continue;
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(query, p->name), i, v) {
            const char *s = json_string_value(v);
            if (s && check_value(p, s, st) < 0)
                return -1;
        }
    }
    if (bit & (EM_QV_LIST | EM_QV_WATCH | EM_QV_DELETECOLLECTION))
        return check_list_options(query, bit == EM_QV_WATCH, st);
    return 0;
}
