/* Unit tests of pkg/client's plain HTTP/1.1 transport against a scripted in-process
 * server: framing (Content-Length, chunked, close-delimited), keep-alive and
 * reconnects, malformed answers, deadlines and line streaming. */
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
#include "util/status.h"
#include "util/time.h"

#include "test_client_server.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct nd_client *client_for(int port, int64_t timeout_ms)
{
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    struct nd_client_opts o = {.server = url, .timeout_ms = timeout_ms};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&o, &st);
    assert_non_null(c);
    c->backoff_base_ms = 1; /* retries in tests wait milliseconds, not seconds */
    c->backoff_cap_ms = 4;
    nd_status_release(&st);
    return c;
}

static int get(struct nd_client *c, const char *method, bool no_retry, struct nd_response *r,
               struct nd_status *st)
{
    struct nd_request req = {.method = method, .path = "/x", .no_retry = no_retry};
    return nd_client_do(c, &req, r, st);
}

/* ---- framing ---- */

static void test_plain_bodies(void **state)
{
    (void)state;
    static const struct {
        const char *name, *method;
        struct fk_step step;
        int code;
        const char *body, *hname, *hvalue;
    } rows[] = {
        {"content-length",
         "GET",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Request-Id: r1\r\n\r\nhello"}, FK_KEEP},
         200,
         "hello",
         "x-request-id",
         "r1"},
        {"head split across writes",
         "GET",
         {{"HTTP/1.1 201 Cre", "ated\r\nContent-Le", "ngth: 3\r\n\r\nab", "c"}, FK_KEEP},
         201,
         "abc",
         "content-length",
         "3"},
        {"chunked in several writes",
         "GET",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
           "lo\r\n6;ext=1\r\n world\r\n", "0\r\nX-Trailer: t\r\n\r\n"},
          FK_KEEP},
         200,
         "hello world",
         "transfer-encoding",
         "chunked"},
        {"chunk size in upper-case hex",
         "GET",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n"},
          FK_KEEP},
         200,
         "0123456789",
         NULL,
         NULL},
        {"connection: close body",
         "GET",
         {{"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbye ", "bye"}, FK_CLOSE},
         200,
         "bye bye",
         "connection",
         "close"},
        {"HTTP/1.0 without length",
         "GET",
         {{"HTTP/1.0 200 OK\r\n\r\nold"}, FK_CLOSE},
         200,
         "old",
         NULL,
         NULL},
        {"204 has no body",
         "GET",
         {{"HTTP/1.1 204 No Content\r\n\r\n"}, FK_KEEP},
         204,
         "",
         NULL,
         NULL},
        {"100 Continue skipped",
         "GET",
         {{"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
          FK_KEEP},
         200,
         "ok",
         NULL,
         NULL},
        {"repeated headers joined",
         "GET",
         {{"HTTP/1.1 200 OK\r\nWarning: 299 - \"a\"\r\nwarning:299 - \"b\"  \r\n"
           "Content-Length: 0\r\n\r\n"},
          FK_KEEP},
         200,
         "",
         "warning",
         "299 - \"a\", 299 - \"b\""},
        {"HEAD has no body",
         "HEAD",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"}, FK_KEEP},
         200,
         "",
         "content-length",
         "10"},
        {"no reason phrase, LF only",
         "GET",
         {{"HTTP/1.1 404\nContent-Length: 2\n\nno"}, FK_KEEP},
         404,
         "no",
         NULL,
         NULL},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &rows[i].step, 1), 0);
        struct nd_client *c = client_for(s.port, 2000);
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        int rc = get(c, rows[i].method, true, &r, &st);
        if (rc != 0)
            fail_msg("%s: %s", rows[i].name, st.message);
        assert_int_equal(r.code, rows[i].code);
        assert_string_equal(r.body.data, rows[i].body);
        if (rows[i].hname) {
            const char *v = nd_response_header(&r, rows[i].hname);
            if (!v || strcmp(v, rows[i].hvalue) != 0)
                fail_msg("%s: header %s is \"%s\"", rows[i].name, rows[i].hname, v ? v : "(null)");
        }
        nd_response_release(&r);
        nd_status_release(&st);
        nd_client_free(c);
        fk_finish(&s);
        assert_int_equal(s.accepts, 1);
    }
}

/* ---- connections ---- */

static void test_plain_keepalive_one_connection(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"}, FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n"}, FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nc"}, FK_KEEP},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, 0);
    const char *want[] = {"a", "b", "c"};
    for (size_t i = 0; i < N(want); i++) {
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(get(c, "GET", false, &r, &st), 0);
        assert_string_equal(r.body.data, want[i]);
        nd_response_release(&r);
    }
    nd_client_free(c);
    fk_finish(&s);
    assert_int_equal(s.accepts, 1);
    assert_int_equal(s.nreq, 3);
}

/* The server's clock: the local one until an answer has a Date; then the local one moved
 * by that Date's offset (the latest answer's wins; a malformed Date changes nothing). */
static void test_plain_server_clock(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"}, FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 1\r\n\r\nb"},
         FK_KEEP},
        {{"HTTP/1.1 404 Not Found\r\nDate: Sunday, 06-Nov-94 08:49:37 GMT\r\nContent-Length: "
          "1\r\n\r\nc"},
         FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nDate: Fri, 31 Dec 9999 23:59:59 GMT\r\nContent-Length: 1\r\n\r\nd"},
         FK_KEEP},
    };
    static struct fk_server s;
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, 0);
    int64_t local = nd_time_now_ms();
    int64_t want[] = {local, 784111777000LL, 784111777000LL, 253402300799000LL};
    for (size_t i = 0; i < N(want); i++) {
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(get(c, "GET", false, &r, &st), 0);
        nd_response_release(&r);
        int64_t now = nd_client_server_now_ms(c);
        /* the second the Date names, and at most a few seconds more on a busy machine */
        if (now < want[i] - (i == 0 ? 5000 : 0) || now > want[i] + 5000)
            fail_msg("answer %zu: server clock %lld, want about %lld", i, (long long)now,
                     (long long)want[i]);
    }
    nd_client_free(c);
    fk_finish(&s);
}

/* A server that closes its end after an answer (Connection: close, a close-delimited
 * body, an idle timeout, or a close right after reading the next request): the next
 * request goes out on a new connection and succeeds. */
static void test_plain_reconnects(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        struct fk_step steps[3];
        size_t nsteps;
        int pause_ms; /* between the two requests */
        size_t nreq;
    } rows[] = {
        {"Connection: close",
         {{{"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na"}, FK_CLOSE},
          {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"}, FK_KEEP}},
         2,
         0,
         2},
        {"idle kept-alive connection closed by the server",
         {{{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"}, FK_CLOSE},
          {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"}, FK_KEEP}},
         2,
         30,
         2},
        {"closed right after the answer (race)",
         {{{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"}, FK_CLOSE},
          {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"}, FK_KEEP}},
         2,
         0,
         2},
        {"closed after reading the next request",
         {{{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"}, FK_KEEP},
          {{NULL}, FK_DROP},
          {{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"}, FK_KEEP}},
         3,
         0,
         3},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, rows[i].steps, rows[i].nsteps), 0);
        struct nd_client *c = client_for(s.port, 0);
        const char *want[] = {"a", "b"};
        for (size_t k = 0; k < 2; k++) {
            if (k)
                fk_sleep_ms(rows[i].pause_ms);
            struct nd_response r;
            nd_response_init(&r);
            struct nd_status st = ND_STATUS_INIT;
            /* no_retry: the reconnect is the transport's, not a retry */
            if (get(c, "POST", true, &r, &st) != 0)
                fail_msg("%s: request %zu: %s", rows[i].name, k + 1, st.message);
            assert_string_equal(r.body.data, want[k]);
            nd_response_release(&r);
            nd_status_release(&st);
        }
        nd_client_free(c);
        fk_finish(&s);
        assert_int_equal(s.accepts, 2);
        assert_int_equal(s.nreq, rows[i].nreq);
    }
}

/* A body cut short: a GET is retried on a new connection, a POST without an
 * Idempotency-Key is not (its answer had begun). */
static void test_plain_cut_answer(void **state)
{
    (void)state;
    static const struct fk_step steps[] = {
        {{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"}, FK_CLOSE},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"}, FK_KEEP},
        {{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"}, FK_CLOSE},
    };
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, steps, N(steps)), 0);
    struct nd_client *c = client_for(s.port, 2000); /* a wrong retry times out, not hangs */
    struct nd_response r;
    nd_response_init(&r);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(get(c, "GET", false, &r, &st), 0);
    assert_string_equal(r.body.data, "0123456789");
    assert_int_equal(get(c, "POST", false, &r, &st), -1);
    assert_string_equal(st.reason, "Unreachable");
    char want[160];
    snprintf(want, sizeof want,
             "the server 127.0.0.1:%d closed the connection in the middle of its answer (EOF)",
             s.port);
    assert_string_equal(st.message, want);
    nd_response_release(&r);
    nd_status_release(&st);
    nd_client_free(c);
    fk_finish(&s);
    assert_int_equal(s.nreq, 3);
}

/* ---- malformed answers ---- */

static void test_plain_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *answer, *message;
    } rows[] = {
        {"SSH-2.0-OpenSSH_9.2\r\n", "bad status line \"SSH-2.0-OpenSSH_9.2\""},
        {"HTTP/1.1 2x0 OK\r\n\r\n", "bad status line \"HTTP/1.1 2x0 OK\""},
        {"HTTP/2 200\r\n\r\n", "bad status line \"HTTP/2 200\""},
        {"\x16\x03\x01\x02\r\n", "bad status line \"\\x16\\x03\\x01\\x02\""},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size \"zz\""},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", "bad chunk size \"\""},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
         "bad chunk size \"ffffffffffffffffff\""},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
         "a chunk is longer than its size (\"d\")"},
        {"HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", "bad Content-Length \"12abc\""},
        {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
         "bad Content-Length \"5, 6\""},
        {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "bad header line \"no colon here\""},
        {"HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n", "bad header line \"bad name: x\""},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct fk_step step = {{rows[i].answer}, FK_HANG};
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &step, 1), 0);
        struct nd_client *c = client_for(s.port, 2000);
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(get(c, "GET", false, &r, &st), -1);
        assert_string_equal(st.reason, "InternalError");
        char want[256];
        snprintf(want, sizeof want, "malformed answer from the server: %s", rows[i].message);
        assert_string_equal(st.message, want);
        assert_non_null(st.fix);
        nd_response_release(&r);
        nd_status_release(&st);
        nd_client_free(c); /* the server's wait for the close ends here */
        fk_finish(&s);
        assert_int_equal(s.nreq, 1);
    }
}

/* ---- deadlines ---- */

static void test_plain_deadline(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        struct fk_step step;
    } rows[] = {
        {"no answer at all", {{NULL}, FK_HANG}},
        {"half a head", {{"HTTP/1.1 200 OK\r\nContent-"}, FK_HANG}},
        {"half a body", {{"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"}, FK_HANG}},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &rows[i].step, 1), 0);
        struct nd_client *c = client_for(s.port, 150);
        struct nd_response r;
        nd_response_init(&r);
        struct nd_status st = ND_STATUS_INIT;
        int64_t t0 = fk_now_ms();
        assert_int_equal(get(c, "GET", false, &r, &st), -1);
        int64_t ms = fk_now_ms() - t0;
        if (ms < 140 || ms > 600)
            fail_msg("%s: gave up after %lld ms", rows[i].name, (long long)ms);
        assert_string_equal(st.reason, "Timeout");
        assert_string_equal(st.message, "the server did not answer within 150ms "
                                        "(--request-timeout)");
        assert_string_equal(st.fix, "Retry with a longer --request-timeout.");
        nd_response_release(&r);
        nd_status_release(&st);
        nd_client_free(c);
        fk_finish(&s);
    }
}

/* ---- streams ---- */

struct lines {
    struct nd_buf all; /* lines joined by '|' */
    int n, stop_after;
};

static int on_line(void *cls, const char *line, size_t len)
{
    struct lines *l = cls;
    if (l->n++)
        nd_buf_addch(&l->all, '|');
    nd_buf_add(&l->all, line, len);
    return l->stop_after && l->n >= l->stop_after;
}

static void test_plain_stream(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        struct fk_step step;
        int stop_after, rc, code;
        const char *lines;
    } rows[] = {
        {"lines across chunk boundaries",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "3\r\na\nb\r\n", "2\r\nc\n\r\n",
           "5\r\n{\"x\":\r\n", "5\r\n1,\"y\"\r\n", "8\r\n:2}\nlast\r\n", "0\r\n\r\n"},
          FK_KEEP},
         0,
         0,
         200,
         "a|bc|{\"x\":1,\"y\":2}|last"},
        {"content-length",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\none\n", "two\nthree\n"}, FK_KEEP},
         0,
         0,
         200,
         "one|two|three"},
        {"close-delimited with an empty line",
         {{"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nx\n", "\ny"}, FK_CLOSE},
         0,
         0,
         200,
         "x||y"},
        {"CR kept",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\na\r\n"}, FK_KEEP},
         0,
         0,
         200,
         "a\r"},
        {"empty stream",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}, FK_KEEP},
         0,
         0,
         200,
         ""},
        {"fn stops early (the server would go on)",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "2\r\n1\n\r\n4\r\n2\n3\n\r\n",
           "2\r\n4\n\r\n"},
          FK_HANG},
         2,
         0,
         200,
         "1|2"},
        {"non-2xx read whole",
         {{"HTTP/1.1 410 Gone\r\nContent-Length: 67\r\n\r\n",
           "{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old\"}"},
          FK_KEEP},
         0,
         -1,
         410,
         ""},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &rows[i].step, 1), 0);
        struct nd_client *c = client_for(s.port, 0); /* no deadline: no read timeout */
        struct lines l = {ND_BUF_INIT, 0, rows[i].stop_after};
        struct nd_request req = {.method = "GET", .path = "/watch"};
        struct nd_status st = ND_STATUS_INIT;
        int code = -5;
        int rc = nd_client_stream(c, &req, on_line, &l, &code, &st);
        if (rc != rows[i].rc)
            fail_msg("%s: rc %d (%s)", rows[i].name, rc, st.message ? st.message : "");
        assert_int_equal(code, rows[i].code);
        if (strcmp(l.all.data, rows[i].lines) != 0)
            fail_msg("%s: lines \"%s\"", rows[i].name, l.all.data);
        if (rows[i].rc < 0) {
            assert_string_equal(st.reason, "Expired");
            assert_string_equal(st.message, "too old");
        }
        nd_buf_release(&l.all);
        nd_status_release(&st);
        nd_client_free(c);
        fk_finish(&s);
    }
}

/* A long stream arrives piece by piece: fn sees the first line before the server has
 * written the rest (nothing is held whole). */
struct progress {
    int n;
    int64_t first_ms;
};

static int on_progress(void *cls, const char *line, size_t len)
{
    (void)line;
    (void)len;
    struct progress *p = cls;
    if (p->n++ == 0)
        p->first_ms = fk_now_ms();
    return 0;
}

static void test_plain_stream_incremental(void **state)
{
    (void)state;
    static const struct fk_step step = {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                                         "6\r\nfirst\n\r\n", "", "", "", "", "", "",
                                         "7\r\nsecond\n\r\n0\r\n\r\n"},
                                        FK_KEEP};
    static struct fk_server s; /* static: a failed test leaves its thread running */
    assert_int_equal(fk_start(&s, &step, 1), 0);
    struct nd_client *c = client_for(s.port, 0);
    struct progress p = {0, 0};
    struct nd_request req = {.method = "GET", .path = "/watch"};
    struct nd_status st = ND_STATUS_INIT;
    int code = 0;
    int64_t t0 = fk_now_ms();
    assert_int_equal(nd_client_stream(c, &req, on_progress, &p, &code, &st), 0);
    int64_t total = fk_now_ms() - t0;
    assert_int_equal(p.n, 2);
    /* seven 3 ms pauses separate the two lines */
    if (total - (p.first_ms - t0) < 15)
        fail_msg("first line came %lld ms after the start, the stream ended at %lld ms",
                 (long long)(p.first_ms - t0), (long long)total);
    nd_client_free(c);
    fk_finish(&s);
}

/* Bytes as they arrive (logs): the body verbatim, in pieces, the last line without a
 * newline kept so; fn may stop; a non-2xx answer is a Status. */
struct pieces {
    struct nd_buf all;
    int n, stop_after;
};

static int on_bytes(void *cls, const char *data, size_t len)
{
    struct pieces *p = cls;
    nd_buf_add(&p->all, data, len);
    return p->stop_after && ++p->n >= p->stop_after;
}

static void test_plain_stream_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        struct fk_step step;
        int stop_after, rc, code;
        const char *body;
    } rows[] = {
        {"chunks joined, no newline added",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "3\r\na\nb\r\n",
           "2\r\nc\n\r\n", "4\r\nlast\r\n", "0\r\n\r\n"},
          FK_KEEP},
         0,
         0,
         200,
         "a\nbc\nlast"},
        {"content-length",
         {{"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\none\n", "two"}, FK_KEEP},
         0,
         0,
         200,
         "one\ntwo"},
        {"fn stops early (the server would go on)",
         {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "2\r\n1\n\r\n",
           "2\r\n2\n\r\n"},
          FK_HANG},
         1,
         0,
         200,
         "1\n"},
        {"non-2xx read whole",
         {{"HTTP/1.1 404 Not Found\r\nContent-Length: 62\r\n\r\n",
           "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\",\"message\":\"x\"}"},
          FK_KEEP},
         0,
         -1,
         404,
         ""},
    };
    for (size_t i = 0; i < N(rows); i++) {
        static struct fk_server s; /* static: a failed test leaves its thread running */
        assert_int_equal(fk_start(&s, &rows[i].step, 1), 0);
        struct nd_client *c = client_for(s.port, 0);
        struct pieces p = {ND_BUF_INIT, 0, rows[i].stop_after};
        struct nd_request req = {.method = "GET", .path = "/log"};
        struct nd_status st = ND_STATUS_INIT;
        int code = -5;
        int rc = nd_client_stream_bytes(c, &req, on_bytes, &p, &code, &st);
        if (rc != rows[i].rc)
            fail_msg("%s: rc %d (%s)", rows[i].name, rc, st.message ? st.message : "");
        assert_int_equal(code, rows[i].code);
        if (strcmp(p.all.data, rows[i].body) != 0)
            fail_msg("%s: body \"%s\"", rows[i].name, p.all.data);
        if (rows[i].rc < 0) {
            assert_string_equal(st.reason, "NotFound");
            assert_string_equal(st.message, "x");
        }
        nd_buf_release(&p.all);
        nd_status_release(&st);
        nd_client_free(c);
        fk_finish(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_bodies),
        cmocka_unit_test(test_plain_keepalive_one_connection),
        cmocka_unit_test(test_plain_server_clock),
        cmocka_unit_test(test_plain_reconnects),
        cmocka_unit_test(test_plain_cut_answer),
        cmocka_unit_test(test_plain_malformed),
        cmocka_unit_test(test_plain_deadline),
        cmocka_unit_test(test_plain_stream),
        cmocka_unit_test(test_plain_stream_incremental),
        cmocka_unit_test(test_plain_stream_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
