/* status.h: struct nd_status, the one error type of nodus.
 *
 * It is a Kubernetes Status (code, reason, message, details) plus nodus's three
 * top-level fields (fix, docs, requestId). The emulator serialises it as the body of
 * every non-2xx answer; the client parses every non-2xx body into it. pkg/ functions
 * return 0 / -1 and fill a caller's struct nd_status; only cmd/ prints one.
 *
 * Reasons are the stable codes of the API's error table (nd_reason_http_code knows
 * each one's HTTP code). Three reasons exist only on the client side: "Usage" (a bad
 * flag or argument), "Timeout" (a deadline passed) and "Unreachable" (no connection).
 */
#ifndef ND_STATUS_H
#define ND_STATUS_H

#include <jansson.h>
#include <stdbool.h>

/* The reasons of the API's error table and the client's own, in the order of the error
 * reference. Code that tests a reason compares these (nd_status_reason); the string is
 * what travels on the wire (nd_reason_name, nd_reason_parse map the two, from the one
 * table in status.c that also holds each reason's HTTP code and exit code). */
enum nd_reason {
    ND_REASON_NONE = 0, /* no error recorded */
    ND_REASON_BAD_REQUEST,
    ND_REASON_UNAUTHORIZED,
    ND_REASON_FORBIDDEN,
    ND_REASON_NOT_FOUND,
    ND_REASON_METHOD_NOT_ALLOWED,
    ND_REASON_NOT_ACCEPTABLE,
    ND_REASON_ALREADY_EXISTS,
    ND_REASON_CONFLICT,
    ND_REASON_EXPIRED,
    ND_REASON_GONE,
    ND_REASON_IDEMPOTENCY_KEY_REUSED,
    ND_REASON_IDEMPOTENCY_KEY_REQUIRED,
    ND_REASON_PRECONDITION_FAILED,
    ND_REASON_REQUEST_ENTITY_TOO_LARGE,
    ND_REASON_REQUEST_URI_TOO_LONG,
    ND_REASON_REQUEST_TIMEOUT,
    ND_REASON_UNSUPPORTED_MEDIA_TYPE,
    ND_REASON_REQUEST_HEADER_FIELDS_TOO_LARGE,
    ND_REASON_INVALID,
    ND_REASON_FIELD_IMMUTABLE,
    ND_REASON_BUDGET_EXCEEDED,
    ND_REASON_CONSENT_REQUIRED,
    ND_REASON_TOO_MANY_REQUESTS,
    ND_REASON_INTERNAL_ERROR,
    ND_REASON_STORAGE_FULL,
    ND_REASON_STORAGE_ERROR,
    ND_REASON_SERVICE_UNAVAILABLE,
    ND_REASON_TIMEOUT,
    ND_REASON_USAGE,
    ND_REASON_UNREACHABLE,
    ND_REASON_UNKNOWN, /* a reason outside the table (e.g. from another server) */
    ND_REASON_COUNT
};

struct nd_status {
    int code;         /* HTTP status code; 0 while no error is recorded */
    char *reason;     /* e.g. "NotFound"; NULL while no error */
    char *message;    /* human text */
    json_t *details;  /* owned object: name, group, kind, uid, causes, retryAfterSeconds */
    char *fix;        /* what to do next; may be NULL */
    char *docs;       /* URL of the reason's page; may be NULL */
    char *request_id; /* may be NULL */
};

#define ND_STATUS_INIT {0, NULL, NULL, NULL, NULL, NULL, NULL}

void nd_status_init(struct nd_status *st);
void nd_status_release(struct nd_status *st);
/* True once an error has been recorded. */
bool nd_status_failed(const struct nd_status *st);

/* Records an error whose HTTP code comes from the reason table. Replaces any earlier
 * error. fix may be NULL. Returns -1 so callers can write `return nd_status_set(...)`. */
int nd_status_set(struct nd_status *st, const char *reason, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with an explicit HTTP code (for reasons outside the table). */
int nd_status_setc(struct nd_status *st, int code, const char *reason, const char *fix,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Replaces the fix text. */
void nd_status_set_fix(struct nd_status *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prefixes the message with "prefix: " (adds context as an error travels up). */
void nd_status_prefix(struct nd_status *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets details.name, details.group and details.kind (any may be NULL). */
void nd_status_set_target(struct nd_status *st, const char *name, const char *group,
                          const char *kind);
/* The details object, created when absent. BORROWED. */
json_t *nd_status_details(struct nd_status *st);
/* Appends {reason, field, message} to details.causes. field may be NULL. */
void nd_status_add_cause(struct nd_status *st, const char *reason, const char *field,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Number of details.causes. */
size_t nd_status_cause_count(const struct nd_status *st);
/* Moves src into dst (dst released first; src left empty). */
void nd_status_move(struct nd_status *dst, struct nd_status *src);

/* Fills st from a parsed Status object. Anything that is not a Status becomes an error
 * with the HTTP code, a reason derived from it and the text of the body. */
void nd_status_from_json(struct nd_status *st, const json_t *body, int http_code);
/* Same, from a raw response body (JSON or not). */
void nd_status_parse(struct nd_status *st, const char *body, size_t len, int http_code);
/* The Status as Kubernetes JSON with fix/docs/requestId. New reference. */
json_t *nd_status_to_json(const struct nd_status *st);

/* The reason a wire string names: ND_REASON_NONE for NULL or "", ND_REASON_UNKNOWN for a
 * string outside the table. */
enum nd_reason nd_reason_parse(const char *reason);
/* The wire string of a reason; NULL for ND_REASON_NONE, ND_REASON_UNKNOWN and values out
 * of range. */
const char *nd_reason_name(enum nd_reason r);
/* The reason of a recorded error as an enum (ND_REASON_NONE while none). */
enum nd_reason nd_status_reason(const struct nd_status *st);
/* True when st records an error with that reason. */
bool nd_status_is(const struct nd_status *st, enum nd_reason r);

/* HTTP code of a reason in the API's table; 500 for an unknown reason. */
int nd_reason_http_code(const char *reason);
/* Reason for an HTTP code when a body did not say (404 -> NotFound ...). */
const char *nd_reason_for_http_code(int code);
/* True for a reason of the API's table (or a client-side reason). */
bool nd_reason_known(const char *reason);
/* The CLI's exit code for an error (cli.md "Errors and exit codes"): 0 when no error. */
int nd_status_exit_code(const struct nd_status *st);
/* The i-th reason of the API's table with its HTTP code, summary and default fix (for
 * the error reference); NULL past the end. */
const char *nd_reason_at(size_t i, int *http, const char **summary, const char **fix);
/* A reason's default fix text, or NULL. */
const char *nd_reason_fix(const char *reason);
/* "<base>/reference/errors/#<reason in lower case>". New string. */
char *nd_status_docs_url(const char *base, const char *reason);

#endif
