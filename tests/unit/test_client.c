/* Unit tests of pkg/client's API: server URLs, the request on the wire, retries and
 * backoff, JSON calls and their Status errors, unreachable servers (http and https),
 * and the -v logging. A scripted in-process server plays the other side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/internal.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/status.h"

#include "test_client_server.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct nd_client *client_at(const char *url, const char *token, int64_t timeout_ms)
{
    struct nd_client_opts o = {.server = url, .token = token, .timeout_ms = timeout_ms};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&o, &st);
    if (!c)
        fail_msg("%s: %s", url, st.message);
    c->backoff_base_ms = 1; /* backoff in milliseconds, so the suite stays fast */
    c->backoff_cap_ms = 4;
    nd_status_release(&st);
    return c;
}

static struct nd_client *client_for(int port, const char *token, int64_t timeout_ms)
{
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    return client_at(url, token, timeout_ms);
}

/* ---- URLs ---- */

static void test_url_parse(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        bool tls;
        const char *host;
        int port;
        const char *hostport, *authority, *origin, *prefix;
    } ok[] = {
        {"http://127.0.0.1:8443", false, "127.0.0.1", 8443, "127.0.0.1:8443", "127.0.0.1:8443",
         "http://127.0.0.1:8443", ""},
        {"http://localhost", false, "localhost", 80, "localhost:80", "localhost",
         "http://localhost", ""},
        {"https://api.example.com/", true, "api.example.com", 443, "api.example.com:443",
         "api.example.com", "https://api.example.com", ""},
        {"https://api.example.com:443/k8s/clusters/c1//", true, "api.example.com", 443,
         "api.example.com:443", "api.example.com", "https://api.example.com", "/k8s/clusters/c1"},
        {"http://[::1]:9000/p", false, "::1", 9000, "[::1]:9000", "[::1]:9000", "http://[::1]:9000",
         "/p"},
        {"https://[2001:db8::1]", true, "2001:db8::1", 443, "[2001:db8::1]:443", "[2001:db8::1]",
         "https://[2001:db8::1]", ""},
        {"http://my_host-1.internal:80", false, "my_host-1.internal", 80, "my_host-1.internal:80",
         "my_host-1.internal", "http://my_host-1.internal", ""},
        {"http://h:65535", false, "h", 65535, "h:65535", "h:65535", "http://h:65535", ""},
    };
    for (size_t i = 0; i < N(ok); i++) {
        struct nd_url u;
        struct nd_status st = ND_STATUS_INIT;
        if (nd_url_parse(ok[i].in, &u, &st) != 0)
            fail_msg("%s: %s", ok[i].in, st.message);
        assert_int_equal(u.tls, ok[i].tls);
        assert_string_equal(u.host, ok[i].host);
        assert_int_equal(u.port, ok[i].port);
        assert_string_equal(u.hostport, ok[i].hostport);
        assert_string_equal(u.authority, ok[i].authority);
        assert_string_equal(u.origin, ok[i].origin);
        assert_string_equal(u.prefix, ok[i].prefix);
        nd_url_release(&u);
    }

    static const struct {
        const char *in, *message;
    } bad[] = {
        {"", "no server URL given"},
        {"127.0.0.1:8443", "invalid server URL \"127.0.0.1:8443\": the scheme must be http:// "
                           "or https://"},
        {"ftp://h", "invalid server URL \"ftp://h\": the scheme must be http:// or https://"},
        {"http://", "invalid server URL \"http://\": the host is empty"},
        {"http://:80", "invalid server URL \"http://:80\": the host is empty"},
        {"http://h:", "invalid server URL \"http://h:\": the port is empty"},
        {"http://h:0", "invalid server URL \"http://h:0\": the port must be between 1 and 65535"},
        {"http://h:65536",
         "invalid server URL \"http://h:65536\": the port must be between 1 and 65535"},
        {"http://h:99999999999999",
         "invalid server URL \"http://h:99999999999999\": the port must be between 1 and 65535"},
        {"http://h:8x", "invalid server URL \"http://h:8x\": the port must be a number"},
        {"http://[::1", "invalid server URL \"http://[::1\": missing ']' after the IPv6 address"},
        {"http://[zz]:1", "invalid server URL \"http://[zz]:1\": invalid IPv6 address"},
        {"http://[::1]x", "invalid server URL \"http://[::1]x\": unexpected text after the host"},
        {"http://h/p?q=1", "invalid server URL \"http://h/p?q=1\": a query or fragment is not "
                           "allowed"},
        {"http://h#f", "invalid server URL \"http://h#f\": a query or fragment is not allowed"},
        {"http://u:p@h", "invalid server URL \"http://u:p@h\": credentials in the URL are not "
                         "supported (use a token)"},
        {"http://h st", "invalid server URL \"http://h st\": it contains a space or a control "
                        "character"},
        {"http://h!x", "invalid server URL \"http://h!x\": the host may hold only letters, "
                       "digits, '-', '.' and '_'"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        struct nd_status st = ND_STATUS_INIT;
        struct nd_client_opts o = {.server = bad[i].in};
        assert_null(nd_client_new(&o, &st));
        assert_string_equal(st.reason, "Usage");
        assert_string_equal(st.message, bad[i].message);
        assert_non_null(st.fix);
        assert_int_equal(nd_status_exit_code(&st), 2);
        nd_status_release(&st);
    }
}

/* ---- the request on the wire ---- */

static void test_request_bytes(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
        {{"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/prefix/", s.port);
    struct nd_client *c = client_at(url, "s3cret", 0);
    struct nd_response r;
    nd_response_init(&r);
    struct nd_status st = ND_STATUS_INIT;

    struct nd_request get = {.method = "GET", .path = "/apis/nodus.dev/v1/jobs?limit=500"};
    assert_int_equal(nd_client_do(c, &get, &r, &st), 0);

    const char *extra[] = {"Nodus-Price-Consent: yes", "If-Match: \"e1\"", NULL};
    struct nd_request post = {.method = "POST",
                              .path = "/apis/nodus.dev/v1/projects/p/jobs",
                              .accept = "application/yaml",
                              .content_type = "application/merge-patch+json",
                              .body = "{\"a\":1}",
                              .body_len = 7,
                              .idempotency_key = "k-1",
                              .headers = extra};
    assert_int_equal(nd_client_do(c, &post, &r, &st), 0);
    assert_int_equal(r.code, 201);

    struct nd_request empty_post = {.method = "POST", .path = "/x"};
    assert_int_equal(nd_client_do(c, &empty_post, &r, &st), 0);

    nd_response_release(&r);
    nd_client_free(c);
    fk_join(&s);
    assert_int_equal(s.nreq, 3);
    char want[1024];
    snprintf(want, sizeof want,
             "GET /prefix/apis/nodus.dev/v1/jobs?limit=500 HTTP/1.1\r\n"
             "Host: 127.0.0.1:%d\r\n"
             "User-Agent: nodus/" ND_VERSION "\r\n"
             "Accept: application/json\r\n"
             "Authorization: Bearer s3cret\r\n"
             "\r\n",
             s.port);
    assert_string_equal(s.req[0], want);
    snprintf(want, sizeof want,
             "POST /prefix/apis/nodus.dev/v1/projects/p/jobs HTTP/1.1\r\n"
             "Host: 127.0.0.1:%d\r\n"
             "User-Agent: nodus/" ND_VERSION "\r\n"
             "Accept: application/yaml\r\n"
             "Authorization: Bearer s3cret\r\n"
             "Content-Type: application/merge-patch+json\r\n"
             "Idempotency-Key: k-1\r\n"
             "Nodus-Price-Consent: yes\r\n"
             "If-Match: \"e1\"\r\n"
             "Content-Length: 7\r\n"
             "\r\n"
             "{\"a\":1}",
             s.port);
    assert_string_equal(s.req[1], want);
    snprintf(want, sizeof want,
             "POST /prefix/x HTTP/1.1\r\n"
             "Host: 127.0.0.1:%d\r\n"
             "User-Agent: nodus/" ND_VERSION "\r\n"
             "Accept: application/json\r\n"
             "Authorization: Bearer s3cret\r\n"
             "Content-Length: 0\r\n"
             "\r\n",
             s.port);
    assert_string_equal(s.req[2], want);
    fk_release(&s);
}

/* Requests the client refuses to send. */
static void test_request_invalid(void **state)
{
    (void)state;
    static const char *const split[] = {"X-A: 1\r\nX-B: 2", NULL};
    static const char *const nocolon[] = {"X-A", NULL};
    static const char *const badname[] = {"X A: 1", NULL};
    static const struct {
        struct nd_request req;
        const char *message;
    } rows[] = {
        {{.method = "GET", .path = "apis"}, "request path \"apis\" does not start with '/'"},
        {{.method = "GET", .path = "/a b"},
         "request path \"/a b\" contains a space or a control character (encode it)"},
        {{.method = "GET", .path = "/a\r\nX: y"},
         "request path \"/a\r\nX: y\" contains a space or a control character (encode it)"},
        {{.method = "GE T", .path = "/"}, "invalid request method \"GE T\""},
        {{.method = "GET", .path = "/", .headers = split},
         "invalid request header \"X-A: 1\r\nX-B: 2\": want one line \"Name: value\""},
        {{.method = "GET", .path = "/", .headers = nocolon},
         "invalid request header \"X-A\": want one line \"Name: value\""},
        {{.method = "GET", .path = "/", .headers = badname},
         "invalid request header \"X A: 1\": bad character in the name"},
        {{.method = "GET", .path = "/", .idempotency_key = "a\nb"},
         "header Idempotency-Key: the value contains a line break"},
    };
    struct nd_client *c = client_at("http://127.0.0.1:9", NULL, 0);
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_client_do(c, &rows[i].req, &r, &st), -1);
        assert_string_equal(st.reason, "Invalid");
        assert_string_equal(st.message, rows[i].message);
        nd_response_release(&r);
        nd_status_release(&st);
    }
    nd_client_free(c);

    struct nd_status st = ND_STATUS_INIT;
    struct nd_client_opts o = {.server = "http://h", .token = "a\nb"};
    assert_null(nd_client_new(&o, &st));
    assert_string_equal(st.reason, "Usage");
    assert_string_equal(st.message, "the bearer token contains a line break");
    nd_status_release(&st);
}

/* ---- retries ---- */

static const char *header_of(const char *req, const char *name)
{
    static char v[128];
    const char *p = strstr(req, name);
    if (!p)
        return NULL;
    p += strlen(name);
    size_t n = strcspn(p, "\r");
    snprintf(v, sizeof v, "%.*s", (int)n, p);
    return v;
}

static void test_retry_503_then_200(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 2\r\n\r\nno"},
         FK_KEEP},
        {{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 2\r\n\r\nno"},
         FK_CLOSE},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, NULL, 0);
    c->backoff_base_ms = 5000; /* Retry-After: 0 must win over the backoff */
    c->backoff_cap_ms = 5000;
    struct nd_request req = {
        .method = "POST", .path = "/x", .body = "{}", .body_len = 2, .idempotency_key = "idem-7"};
    struct nd_response r;
    nd_response_init(&r);
    struct nd_status st = ND_STATUS_INIT;
    int64_t t0 = fk_now_ms();
    assert_int_equal(nd_client_do(c, &req, &r, &st), 0);
    assert_true(fk_now_ms() - t0 < 4000); /* a backoff would take 5 s: no timing race */
    assert_int_equal(r.code, 200);
    assert_string_equal(r.body.data, "ok");
    assert_false(nd_status_failed(&st));
    nd_response_release(&r);
    nd_client_free(c);
    fk_join(&s);
    assert_int_equal(s.nreq, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(header_of(s.req[i], "Idempotency-Key: "), "idem-7");
        assert_non_null(strstr(s.req[i], "\r\n\r\n{}"));
    }
    fk_release(&s);
}

static void test_retry_after_seconds(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"},
         FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, NULL, 0);
    struct nd_request req = {.method = "GET", .path = "/x"};
    struct nd_response r;
    nd_response_init(&r);
    struct nd_status st = ND_STATUS_INIT;
    int64_t t0 = fk_now_ms();
    assert_int_equal(nd_client_do(c, &req, &r, &st), 0);
    int64_t ms = fk_now_ms() - t0;
    if (ms < 1000 || ms > 1400)
        fail_msg("Retry-After: 1 waited %lld ms", (long long)ms);
    assert_int_equal(r.code, 200);
    nd_response_release(&r);
    nd_client_free(c);
    fk_finish(&s);
    assert_int_equal(s.nreq, 2);
}

/* When retries run out, the last 429/503 is the answer (0); the caller makes it an
 * error. Other codes and no_retry requests are never retried. */
static void test_retry_limits(void **state)
{
    (void)state;
#define busy   "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n"
#define wait5  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n"
#define nohint "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"
    static const struct {
        const char *name;
        struct fk_step steps[6];
        size_t nsteps;
        bool no_retry;
        int64_t timeout_ms;
        int code;
        size_t nreq;
        int64_t max_ms;
    } rows[] = {
        {"5 attempts without a deadline",
         {{{busy}, FK_KEEP},
          {{busy}, FK_KEEP},
          {{busy}, FK_KEEP},
          {{busy}, FK_KEEP},
          {{busy}, FK_KEEP}},
         5,
         false,
         0,
         429,
         5,
         500},
        {"backoff when no Retry-After",
         {{{nohint}, FK_KEEP},
          {{nohint}, FK_KEEP},
          {{nohint}, FK_KEEP},
          {{nohint}, FK_KEEP},
          {{nohint}, FK_KEEP}},
         5,
         false,
         0,
         503,
         5,
         500},
        {"no_retry", {{{busy}, FK_KEEP}}, 1, true, 0, 429, 1, 500},
        {"500 is not retried",
         {{{"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP}},
         1,
         false,
         0,
         500,
         1,
         500},
        {"409 is not retried",
         {{{"HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP}},
         1,
         false,
         0,
         409,
         1,
         500},
        {"a Retry-After past the deadline is not waited for",
         {{{wait5}, FK_KEEP}},
         1,
         false,
         500,
         503,
         1,
         300},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, rows[i].steps, rows[i].nsteps), 0);
        struct nd_client *c = client_for(s.port, NULL, rows[i].timeout_ms);
        struct nd_request req = {.method = "GET", .path = "/x", .no_retry = rows[i].no_retry};
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        int64_t t0 = fk_now_ms();
        if (nd_client_do(c, &req, &r, &st) != 0)
            fail_msg("%s: %s", rows[i].name, st.message);
        int64_t ms = fk_now_ms() - t0;
        if (ms > rows[i].max_ms)
            fail_msg("%s: took %lld ms", rows[i].name, (long long)ms);
        assert_int_equal(r.code, rows[i].code);
        nd_response_release(&r);
        nd_client_free(c);
        fk_finish(&s);
        if (s.nreq != rows[i].nreq)
            fail_msg("%s: %zu requests", rows[i].name, s.nreq);
    }
}
#undef busy
#undef wait5
#undef nohint

/* A stream retried after a 503: only the lines of the answer that succeeded arrive. */
static int add_line(void *cls, const char *line, size_t len)
{
    struct nd_buf *b = cls;
    nd_buf_add(b, line, len);
    nd_buf_addch(b, ';');
    return 0;
}

static void test_retry_stream(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: "
          "6\r\n\r\nbusy\n\n"},
         FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\na\nb\n"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, NULL, 0);
    struct nd_request req = {.method = "GET", .path = "/watch"};
    struct nd_buf lines = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int code = 0;
    assert_int_equal(nd_client_stream(c, &req, add_line, &lines, &code, &st), 0);
    assert_int_equal(code, 200);
    assert_string_equal(lines.data, "a;b;");
    nd_buf_release(&lines);
    nd_client_free(c);
    fk_finish(&s);
    assert_int_equal(s.nreq, 2);
}

/* ---- JSON calls ---- */

static void test_json_ok(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 25\r\n\r\n",
          "{\"kind\":\"Job\",\"n\":[1,2]}\n"},
         FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
        {{"HTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ntrue"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, NULL, 0);
    struct nd_status st = ND_STATUS_INIT;
    json_t *body = json_pack("{s:i, s:[b, n], s:s}", "a", 1, "b", 1, "c", "é");
    json_t *out = NULL;
    assert_int_equal(nd_client_json(c, "PUT", "/objs/a", body, &out, &st), 0);
    assert_non_null(out);
    char *dump = json_dumps(out, JSON_COMPACT);
    assert_string_equal(dump, "{\"kind\":\"Job\",\"n\":[1,2]}");
    free(dump);
    json_decref(out);

    out = json_object(); /* replaced: an empty body gives NULL */
    json_t *keep = out;
    struct nd_request junk = {.method = "GET", .path = "/objs/a", .body = "junk", .body_len = 4};
    assert_int_equal(nd_client_json_req(c, &junk, NULL, &out, &st), 0); /* req's body unused */
    assert_null(out);
    json_decref(keep);

    struct nd_request req = {.method = "POST",
                             .path = "/objs",
                             .idempotency_key = "k9",
                             .content_type = "application/apply-patch+yaml"};
    assert_int_equal(nd_client_json_req(c, &req, body, &out, &st), 0);
    assert_true(json_is_true(out));
    json_decref(out);
    nd_status_release(&st);
    json_decref(body);
    nd_client_free(c);
    fk_join(&s);
    assert_int_equal(s.nreq, 3);
    assert_string_equal(header_of(s.req[0], "Content-Type: "), "application/json");
    assert_string_equal(header_of(s.req[0], "Content-Length: "), "32");
    assert_non_null(strstr(s.req[0], "\r\n\r\n{\"a\":1,\"b\":[true,null],\"c\":\"\xc3\xa9\"}"));
    assert_null(header_of(s.req[1], "Content-Type: "));
    assert_null(header_of(s.req[1], "Content-Length: "));
    assert_null(strstr(s.req[1], "junk"));
    assert_string_equal(header_of(s.req[2], "Content-Type: "), "application/apply-patch+yaml");
    assert_string_equal(header_of(s.req[2], "Idempotency-Key: "), "k9");
    assert_null(strstr(s.req[0], "Accept-Encoding"));
    fk_release(&s);
}

/* Every non-2xx answer becomes st, its Status kept whole. */
static void test_json_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *answer;
        int code;
        const char *reason, *message, *fix, *request_id, *details_name;
    } rows[] = {
        {"404 Status",
         "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-Request-Id: req-h\r\n"
         "Content-Length: 155\r\n\r\n"
         "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
         "\"message\":\"jobs \\\"x\\\" not found\",\"reason\":\"NotFound\","
         "\"details\":{\"name\":\"x\",\"kind\":\"jobs\"},\"code\":404}",
         404, "NotFound", "jobs \"x\" not found", NULL, "req-h", "x"},
        {"Status with its own requestId and fix",
         "HTTP/1.1 409 Conflict\r\nX-Request-Id: req-h\r\nContent-Length: 105\r\n\r\n"
         "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\",\"message\":\"stale\","
         "\"fix\":\"read again\",\"requestId\":\"req-b\"}",
         409, "Conflict", "stale", "read again", "req-b", NULL},
        {"non-JSON 500",
         "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 29\r\n\r\n"
         "upstream exploded\nsecond line",
         500, "InternalError", "upstream exploded", NULL, NULL, NULL},
        {"empty 503", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 503,
         "ServiceUnavailable", "the server answered 503", NULL, NULL, NULL},
        {"2xx that is not JSON", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n<html>hi!", 500,
         "InternalError",
         "malformed answer from the server: the 200 answer to GET /x is not JSON: invalid token "
         "near '<' at line 1, column 1",
         NULL, NULL, NULL},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct fk_step step = {{rows[i].answer}, FK_KEEP};
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &step, 1), 0);
        struct nd_client *c = client_for(s.port, NULL, 0);
        c->max_attempts = 1;
        struct nd_status st = ND_STATUS_INIT;
        json_t *out = NULL;
        assert_int_equal(nd_client_json(c, "GET", "/x", NULL, &out, &st), -1);
        assert_null(out);
        if (!st.reason || strcmp(st.reason, rows[i].reason) != 0)
            fail_msg("%s: reason %s (%s)", rows[i].name, st.reason, st.message);
        assert_int_equal(st.code, rows[i].code);
        assert_string_equal(st.message, rows[i].message);
        if (rows[i].fix)
            assert_string_equal(st.fix, rows[i].fix);
        if (rows[i].request_id)
            assert_string_equal(st.request_id, rows[i].request_id);
        else
            assert_null(st.request_id);
        if (rows[i].details_name)
            assert_string_equal(json_string_value(json_object_get(st.details, "name")),
                                rows[i].details_name);
        nd_status_release(&st);
        nd_client_free(c);
        fk_finish(&s);
    }
}

/* ---- unreachable servers ---- */

static void test_refused(void **state)
{
    (void)state;
    int port = fk_refused_port();
    static const char *const schemes[] = {"http", "https"};
    for (size_t i = 0; i < N(schemes); i++) {
        char url[64], want[200];
        snprintf(url, sizeof url, "%s://127.0.0.1:%d", schemes[i], port);
        snprintf(want, sizeof want,
                 "The connection to the server 127.0.0.1:%d was refused - did you specify the "
                 "right host or port?",
                 port);
        struct nd_client *c = client_at(url, NULL, 0);
        for (int retry = 0; retry < 2; retry++) {
            struct nd_request req = {.method = "GET", .path = "/x", .no_retry = !retry};
            struct nd_response r;
            nd_response_init(&r);
            struct nd_status st = ND_STATUS_INIT;
            int64_t t0 = fk_now_ms();
            assert_int_equal(nd_client_do(c, &req, &r, &st), -1);
            /* no waiting for a deadline (the bound is loose: a loaded machine is slow) */
            assert_true(fk_now_ms() - t0 < 3000);
            if (!st.reason || strcmp(st.reason, "Unreachable") != 0)
                fail_msg("%s: %s: %s", url, st.reason, st.message);
            assert_string_equal(st.message, want);
            assert_non_null(st.fix);
            assert_int_equal(nd_status_exit_code(&st), 7);
            assert_int_equal(r.code, 0);
            nd_response_release(&r);
            nd_status_release(&st);
        }
        nd_client_free(c);
    }
}

/* With a deadline, refused connections are retried until it is near, then the last
 * error is returned. */
static void test_refused_until_deadline(void **state)
{
    (void)state;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", fk_refused_port());
    struct nd_client *c = client_at(url, NULL, 200);
    c->backoff_base_ms = 20;
    c->backoff_cap_ms = 40;
    struct nd_status st = ND_STATUS_INIT;
    int64_t t0 = fk_now_ms();
    assert_int_equal(nd_client_json(c, "GET", "/x", NULL, NULL, &st), -1);
    int64_t ms = fk_now_ms() - t0;
    assert_true(ms < 260);
    assert_string_equal(st.reason, "Unreachable");
    assert_non_null(strstr(st.message, "was refused"));
    nd_status_release(&st);
    nd_client_free(c);
}

static void test_dns_failure(void **state)
{
    (void)state;
    struct nd_client *c = client_at("http://nosuch.invalid:8443", NULL, 0);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_client_json(c, "GET", "/x", NULL, NULL, &st), -1);
    assert_string_equal(st.reason, "Unreachable");
    const char *want = "Unable to connect to the server: dial tcp: lookup nosuch.invalid: ";
    if (strncmp(st.message, want, strlen(want)) != 0)
        fail_msg("message: %s", st.message);
    assert_string_equal(st.fix,
                        "Check the server's host name (--server, or the cluster's server): "
                        "nodus config view");
    nd_status_release(&st);
    nd_client_free(c);
}

/* https:// to a peer that does not speak TLS fails cleanly, as a TLS error. */
static void test_https_not_tls(void **state)
{
    (void)state;
    static const struct fk_step step = {
        {"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"}, FK_RAW};
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, &step, 1), 0);
    char url[64];
    snprintf(url, sizeof url, "https://127.0.0.1:%d", s.port);
    struct nd_client *c = client_at(url, "tok", 2000);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_client_json(c, "GET", "/x", NULL, NULL, &st), -1);
    assert_string_equal(st.reason, "Unreachable");
    if (strncmp(st.message, "Unable to connect to the server: ", 33) != 0)
        fail_msg("message: %s", st.message);
    assert_non_null(strstr(st.fix, "certificate-authority"));
    nd_status_release(&st);
    nd_client_free(c);
    fk_finish(&s);
}

static void test_https_without_libcurl(void **state)
{
    (void)state;
    nd_curl_set_library("libnodus-no-such-curl.so.4");
    struct nd_client *c = client_at("https://127.0.0.1:9", NULL, 0);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_client_json(c, "GET", "/x", NULL, NULL, &st), -1);
    assert_string_equal(st.reason, "Unreachable");
    const char *want = "https:// needs libcurl, which could not be loaded: "
                       "libnodus-no-such-curl.so.4: cannot open shared object file";
    if (strncmp(st.message, want, strlen(want)) != 0)
        fail_msg("message: %s", st.message);
    assert_non_null(strstr(st.fix, "libcurl4"));
    nd_status_release(&st);
    nd_client_free(c);
    nd_curl_set_library("libcurl.so.4"); /* a failed load is not remembered */
}

/* ---- logging ---- */

/* A header repeated without end is joined up to 64 KiB, then only counted: joining
 * every repeat would copy the whole value each time. */
static void test_header_repeats(void **state)
{
    (void)state;
    struct nd_response r;
    nd_response_init(&r);
    char v[1000];
    memset(v, 'a', sizeof v);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(nd_response_add_header(&r, "X-Pad", 5, v, sizeof v), 0);
    size_t n = strlen(nd_response_header(&r, "x-pad"));
    if (n > (64 << 10) || n < (63 << 10))
        fail_msg("the joined value is %zu bytes: want 63..64 KiB", n);
    assert_int_equal(nd_response_add_header(&r, "Other", 5, " b ", 3), 0);
    assert_string_equal(nd_response_header(&r, "other"), "b");
    nd_response_release(&r);
}

static void test_logging(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 201 Created\r\nContent-Length: 11\r\nX-Request-Id: r-1\r\n\r\n{\"ok\":true}"},
         FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    char path[] = "/tmp/nodus-client-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    setenv("NODUS_TRACE", path, 1);
    assert_int_equal(nd_log_init(9), 0);

    struct nd_client *c = client_for(s.port, "s3cret-token", 0);
    struct nd_status st = ND_STATUS_INIT;
    json_t *body = json_pack("{s:s}", "name", "it's");
    assert_int_equal(nd_client_json(c, "POST", "/apis/x?dryRun=All", body, NULL, &st), 0);
    json_decref(body);
    nd_client_free(c);
    fk_finish(&s);
    nd_log_close();
    unsetenv("NODUS_TRACE");
    nd_log_level = 0;

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    struct nd_buf log = ND_BUF_INIT;
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        nd_buf_add(&log, tmp, n);
    fclose(f);
    unlink(path);

    char want[512];
    snprintf(want, sizeof want, "POST http://127.0.0.1:%d/apis/x?dryRun=All 201 Created in ",
             s.port);
    const char *at = strstr(log.data, want);
    if (!at)
        fail_msg("no level-6 line in:\n%s", log.data);
    assert_non_null(strstr(at, " milliseconds\n"));
    static const char *const want_lines[] = {
        " Request Headers:\n",
        "     Authorization: <masked>\n",
        "     Content-Type: application/json\n",
        " Request Body: {\"name\":\"it's\"}\n",
        " Response Headers:\n",
        "     x-request-id: r-1\n",
        " Response Body: {\"ok\":true}\n",
    };
    for (size_t i = 0; i < N(want_lines); i++)
        if (!strstr(log.data, want_lines[i]))
            fail_msg("no line \"%s\" in:\n%s", want_lines[i], log.data);
    snprintf(want, sizeof want,
             " curl -v -X POST -H \"User-Agent: nodus/" ND_VERSION "\" -H \"Accept: "
             "application/json\" -H \"Authorization: Bearer <masked>\" -H \"Content-Type: "
             "application/json\" --data-binary '{\"name\":\"it'\\''s\"}' "
             "'http://127.0.0.1:%d/apis/x?dryRun=All'\n",
             s.port);
    if (!strstr(log.data, want))
        fail_msg("no curl line \"%s\" in:\n%s", want, log.data);
    assert_null(strstr(log.data, "s3cret"));
    nd_buf_release(&log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_parse),
        cmocka_unit_test(test_request_bytes),
        cmocka_unit_test(test_request_invalid),
        cmocka_unit_test(test_retry_503_then_200),
        cmocka_unit_test(test_retry_after_seconds),
        cmocka_unit_test(test_retry_limits),
        cmocka_unit_test(test_retry_stream),
        cmocka_unit_test(test_json_ok),
        cmocka_unit_test(test_json_errors),
        /* before any test loads libcurl: a loaded libcurl stays loaded */
        cmocka_unit_test(test_https_without_libcurl),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_refused_until_deadline),
        cmocka_unit_test(test_dns_failure),
        cmocka_unit_test(test_https_not_tls),
        cmocka_unit_test(test_logging),
        cmocka_unit_test(test_header_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
