#include "util/status.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xmalloc.h"

struct reason_row {
    const char *reason;
    int http;
    int exit_code;
    const char *summary; /* when it happens (the error reference page) */
    const char *fix;     /* what a user does next, when the server has nothing better */
};

/* The API's error table (api.md), the CLI's exit codes (cli.md) and the text of the
 * error reference the emulator serves under /docs/. */
static const struct reason_row reasons[ND_REASON_COUNT] = {
    [ND_REASON_BAD_REQUEST] =
    {"BadRequest", 400, 1, "The request is malformed: a body that does not parse, or a query "
     "value that is not valid.", "Check the request body and query parameters; see what a kind takes: "
     "nodus explain KIND --recursive"},
    [ND_REASON_UNAUTHORIZED] =
    {"Unauthorized", 401, 5, "The request has no bearer token, or one the server does not know.",
     "Set a token: nodus config set-credentials NAME --token TOKEN"},
    [ND_REASON_FORBIDDEN] =
    {"Forbidden", 403, 5, "The token may not act in that project, or the write targets the "
     "read-only project nodus.", "Use a project your token may write to; list them: nodus get projects"},
    [ND_REASON_NOT_FOUND] =
    {"NotFound", 404, 3, "No such object, project, kind or path.",
     "List what exists: nodus get KIND -n PROJECT"},
    [ND_REASON_METHOD_NOT_ALLOWED] =
    {"MethodNotAllowed", 405, 1, "The verb is not served on that path.",
     "See the verbs each kind serves: nodus api-resources -o wide"},
    [ND_REASON_NOT_ACCEPTABLE] =
    {"NotAcceptable", 406, 1, "The Accept header names nothing the server can send.",
     "Ask for application/json."},
    [ND_REASON_ALREADY_EXISTS] =
    {"AlreadyExists", 409, 4, "An object with that name exists with a different spec; the "
     "causes list each differing field.", "Pick another name, or change the object: nodus apply -f FILE"},
    [ND_REASON_CONFLICT] =
    {"Conflict", 409, 4, "The resourceVersion sent is stale (someone changed the object since "
     "you read it), or server-side apply found fields owned by another manager.",
     "Read the object again and retry, or take the fields over: "
     "nodus apply -f FILE --force-conflicts"},
    [ND_REASON_EXPIRED] =
    {"Expired", 410, 1, "The watch, continue token or Exact list points before the 24 hours of "
     "kept history.", "List again and watch from there: nodus get KIND -n PROJECT --watch"},
    [ND_REASON_GONE] =
    {"Gone", 410, 1, "The resource is gone.", "List again: nodus get KIND -n PROJECT"},
    [ND_REASON_IDEMPOTENCY_KEY_REUSED] =
    {"IdempotencyKeyReused", 422, 4, "The Idempotency-Key was already used for a different "
     "request.", "Send a new Idempotency-Key for a new request."},
    [ND_REASON_IDEMPOTENCY_KEY_REQUIRED] =
    {"IdempotencyKeyRequired", 428, 1, "A create with metadata.generateName needs an "
     "Idempotency-Key header, so a retry cannot create a second object.",
     "Send an Idempotency-Key header (nodus does), or set metadata.name: "
     "nodus create -f FILE"},
    [ND_REASON_PRECONDITION_FAILED] =
    {"PreconditionFailed", 412, 4, "If-Match no longer matches: the spec or the price book "
     "changed since the review.",
     "Review again, then apply what you reviewed: nodus apply -f FILE --review"},
    [ND_REASON_REQUEST_ENTITY_TOO_LARGE] =
    {"RequestEntityTooLarge", 413, 1, "The body is larger than 3 MiB (an upload to files: "
     "the server's --max-upload-bytes), or its JSON or YAML expands past 4 MiB or 100,000 "
     "values and keys (YAML aliases count each copy).",
     "Split the request or shrink the object."},
    [ND_REASON_REQUEST_URI_TOO_LONG] =
    {"RequestURITooLong", 414, 1, "The request target (path and query) is longer than the "
     "server takes (16 KiB in the emulator).", "Shorten the URL: fewer or shorter selectors."},
    [ND_REASON_REQUEST_TIMEOUT] =
    {"RequestTimeout", 408, 1, "The request's headers were not all in within the server's "
     "deadline, or its body came slower than the server's minimum rate (the emulator's "
     "--header-timeout and --min-body-rate).", "Send the request without pausing; retry."},
    [ND_REASON_UNSUPPORTED_MEDIA_TYPE] =
    {"UnsupportedMediaType", 415, 1, "The Content-Type is not accepted here (strategic merge "
     "patch is not served for Nodus kinds).", "Send a merge or a JSON patch: nodus patch KIND NAME --type merge -p PATCH"},
    [ND_REASON_REQUEST_HEADER_FIELDS_TOO_LARGE] =
    {"RequestHeaderFieldsTooLarge", 431, 1, "The request's headers are larger than the server "
     "takes (64 KiB in all, 32 KiB for one line, 256 lines in the emulator).",
     "Send fewer or smaller headers."},
    [ND_REASON_INVALID] =
    {"Invalid", 422, 1, "A field fails validation; the causes name each field.",
     "Correct the fields named in the causes; see what the kind takes: "
     "nodus explain KIND --recursive"},
    [ND_REASON_FIELD_IMMUTABLE] =
    {"FieldImmutable", 422, 4, "The write changes a field that cannot change after create; the "
     "causes name each field.", "Delete and recreate the object to change those fields: "
     "nodus delete KIND NAME --wait && nodus create -f FILE"},
    [ND_REASON_BUDGET_EXCEEDED] =
    {"BudgetExceeded", 403, 8, "A Budget in scope would be exceeded by this launch.",
     "Lower the object's maxCostUSD, or raise the Budget's limitUSD: "
     "nodus edit budget NAME"},
    [ND_REASON_CONSENT_REQUIRED] =
    {"ConsentRequired", 428, 8, "A paid feature needs the caller's consent to its price "
     "(header Nodus-Price-Consent).", "Repeat the request with the Nodus-Price-Consent header."},
    [ND_REASON_TOO_MANY_REQUESTS] =
    {"TooManyRequests", 429, 1, "Rate limited: this client sent more requests than the server "
     "takes per second.", "Wait for Retry-After seconds and retry."},
    [ND_REASON_INTERNAL_ERROR] =
    {"InternalError", 500, 1, "A bug in the server. It is never a crash; the requestId finds "
     "it in the logs.", "Retry; if it persists, report the requestId."},
    [ND_REASON_STORAGE_FULL] =
    {"StorageFull", 507, 1, "The server's disk (or quota) is full: the write was refused and "
     "nothing of it was kept. Reads still work; writes work again once space is freed.",
     "Free space on the disk of the server's state directory (the emulator's --state DIR), "
     "then retry."},
    [ND_REASON_STORAGE_ERROR] =
    {"StorageError", 500, 1, "The server could not write the change to its disk (an I/O or "
     "permission error): the write was refused and nothing of it was kept.",
     "Check the disk and permissions of the server's state directory, then retry."},
    [ND_REASON_SERVICE_UNAVAILABLE] =
    {"ServiceUnavailable", 503, 1, "The server is shutting down or not ready, is serving as "
     "many connections as it takes, or a fault was injected.", "Retry in a moment."},
    [ND_REASON_TIMEOUT] =
    {"Timeout", 504, 6, "The request or wait did not finish in time, or a read asked for a "
     "resourceVersion the server did not reach within 3 s (Too large resource version).",
     "Retry with a longer --request-timeout or --timeout."},
    /* client-side only */
    [ND_REASON_USAGE] =
    {"Usage", 0, 2, NULL, NULL},
    [ND_REASON_UNREACHABLE] =
    {"Unreachable", 0, 7, NULL, NULL},
};

enum nd_reason nd_reason_parse(const char *reason)
{
    if (!reason || !*reason)
        return ND_REASON_NONE;
    for (int r = ND_REASON_NONE + 1; r < ND_REASON_COUNT; r++)
        if (reasons[r].reason && strcmp(reasons[r].reason, reason) == 0)
            return (enum nd_reason)r;
    return ND_REASON_UNKNOWN;
}

const char *nd_reason_name(enum nd_reason r)
{
    return (int)r >= 0 && r < ND_REASON_COUNT ? reasons[r].reason : NULL;
}

enum nd_reason nd_status_reason(const struct nd_status *st)
{
    return nd_reason_parse(st->reason);
}

bool nd_status_is(const struct nd_status *st, enum nd_reason r)
{
    return nd_status_reason(st) == r;
}

static const struct reason_row *find_reason(const char *reason)
{
    const struct reason_row *r = &reasons[nd_reason_parse(reason)];
    return r->reason ? r : NULL;
}

void nd_status_init(struct nd_status *st)
{
    memset(st, 0, sizeof *st);
}

void nd_status_release(struct nd_status *st)
{
    free(st->reason);
    free(st->message);
    json_decref(st->details);
    free(st->fix);
    free(st->docs);
    free(st->request_id);
    nd_status_init(st);
}

bool nd_status_failed(const struct nd_status *st)
{
    return st->reason != NULL || st->code >= 300;
}

static void vset(struct nd_status *st, int code, const char *reason, const char *fix,
                 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vset(struct nd_status *st, int code, const char *reason, const char *fix,
                 const char *fmt, va_list ap)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_vaddf(&b, fmt, ap);
    char *msg = nd_buf_detach(&b);
    char *req = st->request_id;
    st->request_id = NULL;
    nd_status_release(st);
    st->request_id = req;
    st->code = code;
    st->reason = nd_xstrdup(reason);
    st->message = msg;
    st->fix = fix ? nd_xstrdup(fix) : NULL;
}

int nd_status_set(struct nd_status *st, const char *reason, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(st, nd_reason_http_code(reason), reason, fix, fmt, ap);
    va_end(ap);
    return -1;
}

int nd_status_setc(struct nd_status *st, int code, const char *reason, const char *fix,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(st, code, reason, fix, fmt, ap);
    va_end(ap);
    return -1;
}

void nd_status_set_fix(struct nd_status *st, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    free(st->fix);
    st->fix = nd_buf_detach(&b);
}

void nd_status_prefix(struct nd_status *st, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    nd_buf_addf(&b, ": %s", st->message ? st->message : "");
    free(st->message);
    st->message = nd_buf_detach(&b);
}

json_t *nd_status_details(struct nd_status *st)
{
    if (!st->details)
        st->details = json_object();
    return st->details;
}

void nd_status_set_target(struct nd_status *st, const char *name, const char *group,
                          const char *kind)
{
    json_t *d = nd_status_details(st);
    if (name)
        json_object_set_new(d, "name", json_string(name));
    if (group)
        json_object_set_new(d, "group", json_string(group));
    if (kind)
        json_object_set_new(d, "kind", json_string(kind));
}

void nd_status_add_cause(struct nd_status *st, const char *reason, const char *field,
                         const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    json_t *d = nd_status_details(st);
    json_t *causes = json_object_get(d, "causes");
    if (!json_is_array(causes)) {
        causes = json_array();
        json_object_set_new(d, "causes", causes);
    }
    json_t *c = json_object();
    if (reason)
        json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(b.data));
    if (field)
        json_object_set_new(c, "field", json_string(field));
    json_array_append_new(causes, c);
    nd_buf_release(&b);
}

size_t nd_status_cause_count(const struct nd_status *st)
{
    return st->details ? json_array_size(json_object_get(st->details, "causes")) : 0;
}

void nd_status_move(struct nd_status *dst, struct nd_status *src)
{
    nd_status_release(dst);
    *dst = *src;
    nd_status_init(src);
}

static char *dup_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? nd_xstrdup(s) : NULL;
}

void nd_status_from_json(struct nd_status *st, const json_t *body, int http_code)
{
    nd_status_release(st);
    const char *kind = json_string_value(json_object_get(body, "kind"));
    if (!json_is_object(body) || !kind || strcmp(kind, "Status") != 0) {
        const char *reason = nd_reason_for_http_code(http_code);
        st->code = http_code;
        st->reason = nd_xstrdup(reason);
        st->message = nd_xasprintf("the server answered %d (%s)", http_code, reason);
        return;
    }
    json_int_t code = json_integer_value(json_object_get(body, "code"));
    st->code = code > 0 ? (int)code : http_code;
    st->reason = dup_str(body, "reason");
    if (!st->reason || !*st->reason) {
        free(st->reason);
        st->reason = nd_xstrdup(nd_reason_for_http_code(st->code));
    }
    st->message = dup_str(body, "message");
    if (!st->message)
        st->message = nd_xstrdup("");
    json_t *d = json_object_get(body, "details");
    if (json_is_object(d))
        st->details = json_deep_copy(d);
    st->fix = dup_str(body, "fix");
    st->docs = dup_str(body, "docs");
    st->request_id = dup_str(body, "requestId");
}

void nd_status_parse(struct nd_status *st, const char *body, size_t len, int http_code)
{
    json_t *j = len ? json_loadb(body, len, 0, NULL) : NULL;
    if (j && json_is_object(j) && json_object_get(j, "kind")) {
        nd_status_from_json(st, j, http_code);
        json_decref(j);
        return;
    }
    json_decref(j);
    nd_status_release(st);
    st->code = http_code;
    st->reason = nd_xstrdup(nd_reason_for_http_code(http_code));
    /* A non-Status body is usually a short text; keep its first line. */
    size_t n = 0;
    while (n < len && n < 512 && body[n] != '\n' && body[n] != '\r')
        n++;
    if (n)
        st->message = nd_xstrndup(body, n);
    else
        st->message = nd_xasprintf("the server answered %d", http_code);
}

json_t *nd_status_to_json(const struct nd_status *st)
{
    json_t *j = json_object();
    json_object_set_new(j, "kind", json_string("Status"));
    json_object_set_new(j, "apiVersion", json_string("v1"));
    json_object_set_new(j, "metadata", json_object());
    json_object_set_new(j, "status", json_string(nd_status_failed(st) ? "Failure" : "Success"));
    json_object_set_new(j, "message", json_string(st->message ? st->message : ""));
    if (st->reason)
        json_object_set_new(j, "reason", json_string(st->reason));
    if (st->details)
        json_object_set_new(j, "details", json_deep_copy(st->details));
    json_object_set_new(j, "code", json_integer(st->code));
    if (st->fix)
        json_object_set_new(j, "fix", json_string(st->fix));
    if (st->docs)
        json_object_set_new(j, "docs", json_string(st->docs));
    if (st->request_id)
        json_object_set_new(j, "requestId", json_string(st->request_id));
    return j;
}

int nd_reason_http_code(const char *reason)
{
    const struct reason_row *r = find_reason(reason);
    return r && r->http ? r->http : 500;
}

const char *nd_reason_for_http_code(int code)
{
    switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 408: return "RequestTimeout";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 412: return "PreconditionFailed";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    case 507: return "StorageFull";
    case 504: return "Timeout";
    default: return code >= 500 ? "InternalError" : "BadRequest";
    }
}

bool nd_reason_known(const char *reason)
{
    return find_reason(reason) != NULL;
}

int nd_status_exit_code(const struct nd_status *st)
{
    if (!nd_status_failed(st))
        return 0;
    const struct reason_row *r = find_reason(st->reason);
    if (r)
        return r->exit_code;
    switch (st->code) {
    case 401:
    case 403: return 5;
    case 404: return 3;
    case 409: return 4;
    default: return 1;
    }
}

const char *nd_reason_at(size_t i, int *http, const char **summary, const char **fix)
{
    if (i >= ND_REASON_UNKNOWN - 1 || !reasons[i + 1].summary)
        return NULL;
    const struct reason_row *r = &reasons[i + 1];
    if (http)
        *http = r->http;
    if (summary)
        *summary = r->summary;
    if (fix)
        *fix = r->fix;
    return r->reason;
}

const char *nd_reason_fix(const char *reason)
{
    const struct reason_row *r = find_reason(reason);
    return r ? r->fix : NULL;
}

char *nd_status_docs_url(const char *base, const char *reason)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, base);
    while (b.len && b.data[b.len - 1] == '/')
        nd_buf_truncate(&b, b.len - 1);
    nd_buf_adds(&b, "/reference/errors/#");
    for (const char *p = reason; *p; p++)
        nd_buf_addch(&b, (char)tolower((unsigned char)*p));
    return nd_buf_detach(&b);
}
