/* client.c: the public API: building a request, retries with backoff, logging, and the
 * JSON and line-stream conveniences. The bytes on the wire are plain.c's (http://) or
 * curl.c's (https://). */
#include "client/client.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/internal.h"
#include "util/quote.h"
#include "util/id.h"
#include "util/log.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define LOG_BODY_MAX   10240      /* bodies are logged up to 10 KiB */
#define ERROR_BODY_MAX (4 << 20)  /* a non-2xx body kept for its Status */
#define MIN_RESPONSE   (64 << 10) /* --max-response-bytes below this is taken as this */
#define HEADER_JOIN_MAX (64 << 10) /* a repeated header's joined value keeps this much */

int64_t nd_client_now_ms(void)
{
    return nd_time_mono_ms();
}

static char *dup_or_null(const char *s)
{
    return s ? nd_xstrdup(s) : NULL;
}

struct nd_client *nd_client_new(const struct nd_client_opts *opts, struct nd_status *st)
{
    struct nd_url u;
    if (nd_url_parse(opts ? opts->server : NULL, &u, st) < 0)
        return NULL;
    if (opts->token && strpbrk(opts->token, "\r\n")) {
        nd_url_release(&u);
        nd_status_set(st, "Usage", "Set the token again, on one line.",
                      "the bearer token contains a line break");
        return NULL;
    }
    struct nd_client *c = nd_xcalloc(1, sizeof *c);
    c->url = u;
    c->server = nd_xstrdup(opts->server);
    c->token = opts->token && *opts->token ? nd_xstrdup(opts->token) : NULL;
    c->ca_file = dup_or_null(opts->ca_file);
    c->ca_data = dup_or_null(opts->ca_data);
    c->insecure = opts->insecure;
    c->cert_file = dup_or_null(opts->cert_file);
    c->key_file = dup_or_null(opts->key_file);
    c->cert_data = dup_or_null(opts->cert_data);
    c->key_data = dup_or_null(opts->key_data);
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 0;
    c->user_agent =
        nd_xstrdup(opts->user_agent && *opts->user_agent ? opts->user_agent : "nodus/" ND_VERSION);
    c->backoff_base_ms = 100;
    c->backoff_cap_ms = 4000;
    c->retry_after_max_ms = 60000;
    c->max_attempts = 5;
    int64_t max = opts->max_response_bytes > 0 ? opts->max_response_bytes : ND_CLIENT_MAX_RESPONSE;
    if (max < MIN_RESPONSE)
        max = MIN_RESPONSE;
    if ((uint64_t)max > SIZE_MAX / 2)
        max = (int64_t)(SIZE_MAX / 2);
    c->max_body = (size_t)max;
    c->max_line = c->max_body / 16;
    c->max_head = c->max_body / 256;
    c->idle_ms = opts->idle_timeout_ms == 0  ? ND_CLIENT_IDLE_TIMEOUT_MS
                 : opts->idle_timeout_ms < 0 ? 0
                                             : opts->idle_timeout_ms;
    return c;
}

void nd_client_free(struct nd_client *c)
{
    if (!c)
        return;
    nd_plain_free(c->plain);
    nd_curl_free(c->curl);
    nd_url_release(&c->url);
    free(c->server);
    free(c->token);
    free(c->ca_file);
    free(c->ca_data);
    free(c->cert_file);
    free(c->key_file);
    free(c->cert_data);
    free(c->key_data);
    free(c->user_agent);
    free(c);
}

const char *nd_client_server(const struct nd_client *c)
{
    return c->server;
}

size_t nd_client_max_response(const struct nd_client *c)
{
    return c->max_body;
}

/* ---- responses ---- */

void nd_response_init(struct nd_response *r)
{
    r->code = 0;
    nd_buf_init(&r->body, 0);
    r->headers = NULL;
}

void nd_response_release(struct nd_response *r)
{
    nd_buf_release(&r->body);
    json_decref(r->headers);
    nd_response_init(r);
}

const char *nd_response_header(const struct nd_response *r, const char *lname)
{
    return r->headers ? json_string_value(json_object_get(r->headers, lname)) : NULL;
}

static bool token_char(unsigned char ch)
{
    return ch > ' ' && ch < 0x7f && !strchr("\"(),/:;<=>?@[\\]{}", ch);
}

int nd_response_add_header(struct nd_response *r, const char *name, size_t name_len,
                           const char *value, size_t value_len)
{
    if (name_len == 0)
        return -1;
    char *key = nd_xstrndup(name, name_len);
    for (char *p = key; *p; p++) {
        if (!token_char((unsigned char)*p)) {
            free(key);
            return -1;
        }
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    }
    while (value_len && (*value == ' ' || *value == '\t'))
        value++, value_len--;
    while (value_len && (value[value_len - 1] == ' ' || value[value_len - 1] == '\t' ||
                         value[value_len - 1] == '\r'))
        value_len--;
    if (!r->headers)
        r->headers = json_object();
    struct nd_buf v = ND_BUF_INIT;
    const char *old = json_string_value(json_object_get(r->headers, key));
    if (old && strlen(old) + value_len > HEADER_JOIN_MAX) {
        /* a header repeated past 64 KiB keeps what it has: joining every repeat would
         * copy the whole value each time (quadratic in the header block) */
        free(key);
        return 0;
    }
    if (old) {
        nd_buf_adds(&v, old);
        nd_buf_adds(&v, ", ");
    }
    nd_buf_add(&v, value, value_len);
    json_t *s = json_stringn(v.data, v.len);
    if (!s) {
        /* not UTF-8 (or a NUL): keep the ASCII, mark the rest */
        for (size_t i = 0; i < v.len; i++)
            if ((unsigned char)v.data[i] >= 0x80 || v.data[i] == '\0')
                v.data[i] = '?';
        s = json_stringn(v.data, v.len);
    }
    json_object_set_new(r->headers, key, s);
    nd_buf_release(&v);
    free(key);
    return 0;
}

void nd_response_status(const struct nd_response *r, struct nd_status *st)
{
    nd_status_parse(st, r->body.data, r->body.len, r->code);
    const char *rid = nd_response_header(r, "x-request-id");
    if (!st->request_id && rid && *rid)
        st->request_id = nd_xstrdup(rid);
}

/* ---- building a request ---- */

static bool one_line(const char *s)
{
    return !strpbrk(s, "\r\n");
}

static int add_header(struct nd_buf *h, const char *name, const char *value, struct nd_status *st)
{
    if (!one_line(value))
        return nd_status_set(st, "Invalid", NULL, "header %s: the value contains a line break",
                             name);
    nd_buf_addf(h, "%s: %s\r\n", name, value);
    return 0;
}

static int build_headers(const struct nd_client *c, const struct nd_request *req, struct nd_buf *h,
                         struct nd_status *st)
{
    if (add_header(h, "User-Agent", c->user_agent, st) < 0 ||
        add_header(h, "Accept", req->accept ? req->accept : "application/json", st) < 0)
        return -1;
    if (c->token)
        nd_buf_addf(h, "Authorization: Bearer %s\r\n", c->token);
    if ((req->body || req->body_read) && add_header(h, "Content-Type",
                                req->content_type ? req->content_type : "application/json", st) < 0)
        return -1;
    if (req->idempotency_key && add_header(h, "Idempotency-Key", req->idempotency_key, st) < 0)
        return -1;
    for (const char *const *p = req->headers; p && *p; p++) {
        const char *colon = strchr(*p, ':');
        if (!colon || colon == *p || !one_line(*p))
            return nd_status_set(st, "Invalid", NULL,
                                 "invalid request header \"%s\": want one line \"Name: value\"",
                                 *p);
        for (const char *q = *p; q < colon; q++)
            if (!token_char((unsigned char)*q))
                return nd_status_set(st, "Invalid", NULL,
                                     "invalid request header \"%s\": bad character in the name",
                                     *p);
        nd_buf_adds(h, *p);
        nd_buf_adds(h, "\r\n");
    }
    return 0;
}

static bool method_has_body(const char *m)
{
    return strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "PATCH") == 0;
}

static bool method_idempotent(const char *m)
{
    static const char *const ok[] = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(m, ok[i]) == 0)
            return true;
    return false;
}

/* ---- logging ---- */

static void log_body(const char *what, const char *p, size_t n)
{
    if (n <= LOG_BODY_MAX)
        nd_log(8, "%s: %.*s", what, (int)n, p);
    else
        nd_log(8, "%s: %.*s ... (cut; %zu bytes in all)", what, LOG_BODY_MAX, p, n);
}

/* Appends s in double quotes for a shell. */
static void shell_dq(struct nd_buf *b, const char *s, size_t n)
{
    nd_buf_addch(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (strchr("\"\\$`", s[i]))
            nd_buf_addch(b, '\\');
        nd_buf_addch(b, s[i]);
    }
    nd_buf_addch(b, '"');
}

static void log_request(const struct nd_exchange *x)
{
    if (!nd_log_enabled(7))
        return;
    struct nd_buf curl = ND_BUF_INIT;
    nd_buf_addf(&curl, "curl -v -X %s", x->method);
    nd_log(7, "Request Headers:");
    for (const char *p = x->headers; *p;) {
        const char *eol = strstr(p, "\r\n");
        char *line = nd_xstrndup(p, (size_t)(eol - p));
        char *safe = nd_log_redact_header(line);
        nd_log(7, "    %s", safe);
        nd_buf_adds(&curl, " -H ");
        if (strcmp(safe, line) != 0 && strncasecmp(line, "Authorization:", 14) == 0 &&
            strchr(line + 15, ' ')) {
            /* keep the scheme, as kubectl does: "Authorization: Bearer <masked>" */
            const char *v = line + 14;
            while (*v == ' ')
                v++;
            char *m = nd_xasprintf("Authorization: %.*s <masked>", (int)strcspn(v, " "), v);
            shell_dq(&curl, m, strlen(m));
            free(m);
        } else {
            shell_dq(&curl, safe, strlen(safe));
        }
        free(safe);
        free(line);
        p = eol + 2;
    }
    if (x->body && x->body_len)
        log_body("Request Body", x->body, x->body_len);
    if (x->body_read)
        nd_buf_adds(&curl, " -T '<a streamed body>'");
    if (x->body) {
        nd_buf_adds(&curl, " --data-binary ");
        if (x->body_len <= LOG_BODY_MAX)
            nd_quote_shell_n(&curl, x->body, x->body_len);
        else
            nd_buf_addf(&curl, "'<%zu bytes not shown>'", x->body_len);
    }
    nd_buf_addch(&curl, ' ');
    nd_quote_shell_n(&curl, x->url, strlen(x->url));
    nd_log(9, "%s", curl.data);
    nd_buf_release(&curl);
}

static void log_answer(const struct nd_exchange *x, int rc, const struct nd_status *st, int64_t ms,
                       bool body_logged)
{
    const struct nd_response *r = x->resp;
    if (rc < 0) {
        nd_log(6, "%s %s in %lld milliseconds: %s", x->method, x->url, (long long)ms,
               st->message ? st->message : "error");
        return;
    }
    nd_log(6, "%s %s %d %s in %lld milliseconds", x->method, x->url, r->code, x->phrase.data,
           (long long)ms);
    if (nd_log_enabled(7) && r->headers) {
        nd_log(7, "Response Headers:");
        const char *k;
        json_t *v;
        json_object_foreach(r->headers, k, v)
        {
            char *line = nd_xasprintf("%s: %s", k, json_string_value(v));
            char *safe = nd_log_redact_header(line);
            nd_log(7, "    %s", safe);
            free(safe);
            free(line);
        }
    }
    if (body_logged && r->body.len)
        log_body("Response Body", r->body.data, r->body.len);
}

/* ---- retries ---- */

static void sleep_ms(int64_t ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Exponential backoff with full jitter: a uniform wait in [0, min(cap, base * 2^n)]. */
static int64_t backoff(const struct nd_client *c, int n)
{
    int64_t w = c->backoff_base_ms;
    for (int i = 0; i < n && w < c->backoff_cap_ms; i++)
        w *= 2;
    if (w > c->backoff_cap_ms)
        w = c->backoff_cap_ms;
    if (w <= 0)
        return 0;
    uint32_t r;
    nd_random_bytes(&r, sizeof r);
    return (int64_t)(r % (uint64_t)(w + 1));
}

/* Retry-After in whole seconds (the HTTP-date form is not used by Nodus servers); -1
 * when absent or not a number. */
static int64_t retry_after_ms(const struct nd_response *r)
{
    const char *v = nd_response_header(r, "retry-after");
    if (!v || !*v)
        return -1;
    int64_t s = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        if (s > 86400)
            return 86400 * 1000LL;
        s = s * 10 + (*p - '0');
    }
    return s * 1000;
}

struct sink {
    nd_head_fn on_head;
    nd_data_fn on_data;
    void *cls;
    bool log_body; /* level 8 logs resp->body after the answer */
};

/* A request the transports can send: a token for its method, a path from '/' without
 * spaces or controls. */
static int check_request(const struct nd_request *req, struct nd_status *st)
{
    if (!req || !req->method || !*req->method || !req->path)
        return nd_status_set(st, "Invalid", NULL, "request without a method or path");
    for (const char *p = req->method; *p; p++)
        if (!token_char((unsigned char)*p))
            return nd_status_set(st, "Invalid", NULL, "invalid request method \"%s\"", req->method);
    if (req->path[0] != '/')
        return nd_status_set(st, "Invalid", NULL, "request path \"%s\" does not start with '/'",
                             req->path);
    for (const char *p = req->path; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return nd_status_set(st, "Invalid", NULL,
                                 "request path \"%s\" contains a space or a control character "
                                 "(encode it)",
                                 req->path);
    return 0;
}

/* The inputs of the exchanges of req (x->target, url and headers set by the caller). */
static void exchange_init(const struct nd_client *c, const struct nd_request *req,
                          const struct sink *sk, struct nd_response *resp, struct nd_exchange *x)
{
    x->method = req->method;
    x->body = req->body_read ? NULL : req->body;
    x->body_len = x->body ? req->body_len : 0;
    x->body_read = req->body_read;
    x->body_cls = req->body_cls;
    if (!x->body && !x->body_read && method_has_body(req->method))
        x->body = ""; /* Content-Length: 0, as servers expect on a bodiless POST */
    x->on_head = sk->on_head;
    x->on_data = sk->on_data;
    x->cls = sk->cls;
    x->resp = resp;
    x->idle_ms = c->idle_ms;
    x->max_head = c->max_head;
}

/* One attempt: the answer (or its failure, in ast) with what the last one left cleared,
 * logged. A quiet stream that resumes by itself ends as if the server ended it. */
static int attempt_once(struct nd_client *c, const struct nd_request *req, const struct sink *sk,
                        struct nd_exchange *x, struct nd_status *ast)
{
    struct nd_response *resp = x->resp;
    resp->code = 0;
    nd_buf_reset(&resp->body);
    json_decref(resp->headers);
    resp->headers = NULL;
    nd_buf_reset(&x->phrase);
    x->got_answer = x->retryable = x->stopped = x->delivered = false;
    x->body_failed = x->head_done = x->idled = false;
    log_request(x);
    int64_t t0 = nd_client_now_ms();
    int rc = c->url.tls ? nd_curl_exchange(c, x, ast) : nd_plain_exchange(c, x, ast);
    log_answer(x, rc, ast, nd_client_now_ms() - t0, sk->log_body);
    if (x->head_done)
        nd_client_note_date(c, resp, x->head_wall_ms);
    if (rc < 0 && x->idled && x->head_done && req->idled) {
        *req->idled = true;
        nd_status_release(ast);
        x->stopped = true;
        rc = 0;
    }
    return rc;
}

/* How long to wait before trying again after an attempt that ended with *rc (ast): -1
 * not to; *told when the server said (Retry-After). A body that failed to read fails
 * the request (*rc -1, its reason in ast). */
static int64_t retry_wait(const struct nd_client *c, const struct nd_request *req,
                          struct nd_exchange *x, int attempt, int *rc, struct nd_status *ast,
                          bool *told)
{
    const struct nd_response *resp = x->resp;
    bool idempotent = method_idempotent(req->method) || req->idempotency_key;
    *told = false;
    if (x->body_failed) {
        /* the body's own failure (a file that cannot be read): not the server's */
        nd_status_release(ast);
        nd_status_move(ast, &x->body_st);
        *rc = -1;
        return -1;
    }
    if (x->body_started) /* a streamed body is never sent twice */
        return -1;
    if (*rc == 0 && (resp->code == 429 || resp->code == 503) && !x->stopped && !x->delivered) {
        int64_t wait = retry_after_ms(resp);
        *told = wait >= 0;
        return *told ? wait : backoff(c, attempt);
    }
    if (*rc < 0 && x->retryable && !x->delivered && (!x->got_answer || idempotent))
        return backoff(c, attempt);
    return -1;
}

/* Whether to wait `wait` ms and try again: within the deadline, else within the
 * client's attempts and its longest Retry-After. */
static bool retry_allowed(const struct nd_client *c, const struct nd_request *req,
                          const struct nd_exchange *x, int64_t wait, bool told, int attempt)
{
    if (wait < 0 || req->no_retry)
        return false;
    if (x->deadline)
        return nd_client_now_ms() + wait < x->deadline;
    return attempt + 1 < c->max_attempts && (!told || wait <= c->retry_after_max_ms);
}

static int run(struct nd_client *c, const struct nd_request *req, const struct sink *sk,
               struct nd_response *resp, struct nd_status *st)
{
    if (check_request(req, st) < 0)
        return -1;
    int rc = -1;
    struct nd_buf headers = ND_BUF_INIT;
    char *target = nd_xasprintf("%s%s", c->url.prefix, req->path);
    char *url = nd_xasprintf("%s%s", c->url.origin, target);
    struct nd_exchange x = {0};
    nd_buf_init(&x.phrase, 1024);
    nd_status_init(&x.body_st);
    if (build_headers(c, req, &headers, st) < 0)
        goto out;
    x.target = target;
    x.url = url;
    x.headers = headers.data;
    exchange_init(c, req, sk, resp, &x);
    int64_t start = nd_client_now_ms();
    x.deadline = c->timeout_ms ? start + c->timeout_ms : 0;
    for (int attempt = 0;; attempt++) {
        struct nd_status ast = ND_STATUS_INIT;
        rc = attempt_once(c, req, sk, &x, &ast);
        bool told;
        int64_t wait = retry_wait(c, req, &x, attempt, &rc, &ast, &told);
        bool again = retry_allowed(c, req, &x, wait, told, attempt);
        if (again) {
            nd_log(6, "retrying %s %s in %lld ms (attempt %d failed: %s)", req->method, url,
                   (long long)wait, attempt + 1,
                   rc < 0
                       ? ast.message
                       : (resp->code == 429 ? "429 Too Many Requests" : "503 Service Unavailable"));
            sleep_ms(wait);
            /* a sleep that overran the deadline leaves this attempt's outcome as the answer */
            again = !x.deadline || nd_client_now_ms() < x.deadline;
        }
        if (!again) {
            if (rc < 0)
                nd_status_move(st, &ast);
            nd_status_release(&ast);
            break;
        }
        nd_status_release(&ast);
    }
out:
    nd_status_release(&x.body_st);
    nd_buf_release(&x.phrase);
    nd_buf_release(&headers);
    free(target);
    free(url);
    return rc;
}

/* ---- the public calls ---- */

struct whole {
    size_t max;     /* the client's max_body */
    bool too_large; /* the answer passed it: the rest was not read */
};

static int collect(struct nd_exchange *x, const char *p, size_t n)
{
    struct whole *w = x->cls;
    if (x->resp->body.len + n > w->max) {
        w->too_large = true;
        return 1;
    }
    nd_buf_add(&x->resp->body, p, n);
    return 0;
}

int nd_client_do(struct nd_client *c, const struct nd_request *req, struct nd_response *resp,
                 struct nd_status *st)
{
    struct whole w = {c->max_body, false};
    struct sink sk = {NULL, collect, &w, true};
    int rc = run(c, req, &sk, resp, st);
    if (rc == 0 && w.too_large) {
        nd_buf_release(&resp->body);
        rc = nd_client_fail_too_large("the body", c->max_body, st);
    }
    return rc;
}

int nd_client_json_req(struct nd_client *c, const struct nd_request *req, const json_t *body,
                       json_t **out, struct nd_status *st)
{
    if (out)
        *out = NULL;
    struct nd_request r = *req;
    r.body = NULL;
    r.body_len = 0;
    char *text = NULL;
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = -1;
    if (body) {
        text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!text) {
            nd_status_set(st, "Invalid", NULL, "the request body cannot be written as JSON");
            goto out;
        }
        r.body = text;
        r.body_len = strlen(text);
    }
    if (nd_client_do(c, &r, &resp, st) < 0)
        goto out;
    if (resp.code < 200 || resp.code > 299) {
        nd_response_status(&resp, st);
        goto out;
    }
    if (out && resp.body.len) {
        json_error_t err;
        *out = json_loadb(resp.body.data, resp.body.len, JSON_DECODE_ANY, &err);
        if (!*out) {
            nd_client_fail_malformed(st,
                                     "the %d answer to %s %s is not JSON: %s at line %d, "
                                     "column %d",
                                     resp.code, r.method, r.path, err.text, err.line, err.column);
            goto out;
        }
    }
    rc = 0;
out:
    nd_response_release(&resp);
    free(text);
    return rc;
}

int nd_client_json(struct nd_client *c, const char *method, const char *path, const json_t *body,
                   json_t **out, struct nd_status *st)
{
    struct nd_request req = {.method = method, .path = path};
    return nd_client_json_req(c, &req, body, out, st);
}

/* The body of a non-2xx answer to a stream, kept for its Status: 1 (stop reading) past
 * ERROR_BODY_MAX, enough for any Status. */
static int keep_error_body(struct nd_exchange *x, const char *p, size_t n)
{
    if (x->resp->body.len + n > ERROR_BODY_MAX)
        return 1;
    nd_buf_add(&x->resp->body, p, n);
    return 0;
}

struct stream {
    nd_line_fn fn;
    void *cls;
    struct nd_buf line; /* the part of a line that arrived so far */
    size_t max;         /* the client's max_line */
    bool ok;            /* a 2xx answer: its lines go to fn */
    bool too_long;
};

static int stream_head(struct nd_exchange *x)
{
    struct stream *s = x->cls;
    s->ok = x->resp->code >= 200 && x->resp->code <= 299;
    nd_buf_reset(&s->line);
    return 0;
}

static int stream_data(struct nd_exchange *x, const char *p, size_t n)
{
    struct stream *s = x->cls;
    if (!s->ok)
        return keep_error_body(x, p, n);
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            if (s->line.len + (size_t)(end - p) > s->max) {
                s->too_long = true;
                return 1;
            }
            nd_buf_add(&s->line, p, (size_t)(end - p));
            return 0;
        }
        x->delivered = true;
        int stop;
        if (s->line.len + (size_t)(nl - p) > s->max || (size_t)(nl - p) > s->max) {
            s->too_long = true;
            return 1;
        }
        if (s->line.len) {
            nd_buf_add(&s->line, p, (size_t)(nl - p));
            stop = s->fn(s->cls, s->line.data, s->line.len);
            nd_buf_reset(&s->line);
        } else {
            stop = s->fn(s->cls, p, (size_t)(nl - p)); /* a whole line in place: no copy */
        }
        if (stop)
            return 1;
        p = nl + 1;
    }
    return 0;
}

int nd_client_stream(struct nd_client *c, const struct nd_request *req, nd_line_fn fn, void *cls,
                     int *code, struct nd_status *st)
{
    struct stream s = {fn, cls, ND_BUF_INIT, c->max_line, false, false};
    struct sink sk = {stream_head, stream_data, &s, false};
    struct nd_response resp;
    nd_response_init(&resp);
    if (code)
        *code = 0;
    int rc = run(c, req, &sk, &resp, st);
    if (code)
        *code = resp.code;
    if (rc < 0)
        goto out;
    if (!s.ok) {
        if (resp.body.len)
            log_body("Response Body", resp.body.data, resp.body.len);
        nd_response_status(&resp, st);
        rc = -1;
    } else if (s.too_long) {
        rc = nd_client_fail_too_large("a streamed line (a watch event or a log line)", c->max_line,
                                      st);
    } else if (s.line.len && !(req->idled && *req->idled)) {
        /* the last line had no newline; it is whole unless fn stopped the stream (or the
         * server went quiet in its middle: the resumed stream sends it again) */
        fn(cls, s.line.data, s.line.len);
    }
out:
    nd_buf_release(&s.line);
    nd_response_release(&resp);
    return rc;
}

struct bytes {
    nd_bytes_fn fn;
    void *cls;
    bool ok; /* a 2xx answer: its body goes to fn */
    const struct nd_request *req;
};

static int bytes_head(struct nd_exchange *x)
{
    struct bytes *b = x->cls;
    b->ok = x->resp->code >= 200 && x->resp->code <= 299;
    if (b->ok && b->req->on_head)
        b->req->on_head(b->cls, x->resp);
    return 0;
}

static int bytes_data(struct nd_exchange *x, const char *p, size_t n)
{
    struct bytes *b = x->cls;
    if (!b->ok)
        return keep_error_body(x, p, n);
    if (!n)
        return 0;
    x->delivered = true;
    return b->fn(b->cls, p, n) ? 1 : 0;
}

int nd_client_stream_bytes(struct nd_client *c, const struct nd_request *req, nd_bytes_fn fn,
                           void *cls, int *code, struct nd_status *st)
{
    struct bytes b = {fn, cls, false, req};
    struct sink sk = {bytes_head, bytes_data, &b, false};
    struct nd_response resp;
    nd_response_init(&resp);
    if (code)
        *code = 0;
    int rc = run(c, req, &sk, &resp, st);
    if (code)
        *code = resp.code;
    if (rc == 0 && !b.ok) {
        if (resp.body.len)
            log_body("Response Body", resp.body.data, resp.body.len);
        nd_response_status(&resp, st);
        rc = -1;
    }
    nd_response_release(&resp);
    return rc;
}
