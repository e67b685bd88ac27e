/* Unit tests of pkg/client/ws: SHA-1 and the accept key, and the client against a small
 * scripted WebSocket server (refusals with a Status, a bad accept key, a subprotocol not
 * offered, a session with frames both ways). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "client/client.h"
#include "client/ws.h"
#include "util/xmalloc.h"

static void hex(const unsigned char *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static void test_sha1_vectors(void **state)
{
    (void)state;
    struct {
        const char *in;
        const char *want;
    } cases[] = {
        {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
        {"The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char sum[20];
        char h[41];
        nd_sha1(cases[i].in, strlen(cases[i].in), sum);
        hex(sum, 20, h);
        assert_string_equal(h, cases[i].want);
    }
    /* a million 'a': many blocks */
    char *a = nd_xmalloc(1000000);
    memset(a, 'a', 1000000);
    unsigned char sum[20];
    char h[41];
    nd_sha1(a, 1000000, sum);
    hex(sum, 20, h);
    assert_string_equal(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    free(a);
    /* lengths around the padding boundary */
    for (size_t n = 54; n <= 66; n++) {
        char buf[70];
        memset(buf, 'x', n);
        nd_sha1(buf, n, sum); /* must not overrun; ASan checks */
    }
}

static void test_accept_key(void **state)
{
    (void)state;
    char out[29];
    nd_ws_accept("dGhlIHNhbXBsZSBub25jZQ==", out); /* RFC 6455, section 1.3 */
    assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

/* ---- a scripted server ---- */

enum answer { A_REFUSE, A_REFUSE_CHUNKED, A_BAD_ACCEPT, A_BAD_PROTOCOL, A_SESSION, A_HUGE };

struct srv {
    int lfd, port;
    enum answer answer;
    pthread_t th;
    char request[8192];
    unsigned char got[256]; /* the client's first frame, unmasked */
    size_t got_len;
    bool got_masked;
};

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static size_t read_some(int fd, unsigned char *buf, size_t n)
{
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, 5000) <= 0)
        return 0;
    ssize_t r = recv(fd, buf, n, 0);
    return r > 0 ? (size_t)r : 0;
}

static void *serve(void *arg)
{
    struct srv *s = arg;
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    size_t len = 0;
    while (!strstr(s->request, "\r\n\r\n") && len < sizeof s->request - 1) {
        size_t n = read_some(fd, (unsigned char *)s->request + len, sizeof s->request - 1 - len);
        if (!n)
            break;
        len += n;
        s->request[len] = '\0';
    }
    char key[64] = "", accept_key[29];
    const char *k = strstr(s->request, "Sec-WebSocket-Key: ");
    if (k)
        sscanf(k + 19, "%63[^\r]", key);
    nd_ws_accept(key, accept_key);
    char head[512];
    static const char status[] =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        "\"code\":400,\"reason\":\"BadRequest\",\"message\":\"no way\"}";
    switch (s->answer) {
    case A_REFUSE:
        snprintf(head, sizeof head,
                 "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                 "Content-Length: %zu\r\nX-Request-Id: rid-1\r\n\r\n",
                 strlen(status));
        write_all(fd, head, strlen(head));
        write_all(fd, status, strlen(status));
        break;
    case A_REFUSE_CHUNKED:
        snprintf(head, sizeof head,
                 "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n%zx\r\n",
                 strlen(status));
        write_all(fd, head, strlen(head));
        write_all(fd, status, strlen(status));
        write_all(fd, "\r\n0\r\n\r\n", 7);
        break;
    case A_BAD_ACCEPT:
    case A_BAD_PROTOCOL:
    case A_SESSION:
    case A_HUGE:
        snprintf(head, sizeof head,
                 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade"
                 "\r\nSec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
                 s->answer == A_BAD_ACCEPT ? "bm9wZQ==" : accept_key,
                 s->answer == A_BAD_PROTOCOL ? "v9.channel.k8s.io" : "v5.channel.k8s.io");
        write_all(fd, head, strlen(head));
        if (s->answer == A_HUGE) {
            /* a binary frame that says it holds 1 GiB, and its first bytes: a client that
             * waits for the rest holds it all; wait for the client to give up */
            static const unsigned char frame[] = {0x82, 127, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 'x'};
            write_all(fd, frame, sizeof frame);
            unsigned char buf[256];
            for (int quiet = 0; quiet < 3;) /* up to 15 s of silence from the client */
                quiet = read_some(fd, buf, sizeof buf) ? 0 : quiet + 1;
            break;
        }
        if (s->answer != A_SESSION)
            break;
        {
            /* stdout "hi", then a Status on channel 3, then close (unmasked, server side) */
            static const unsigned char frames[] = {0x82, 3,   1,   'h', 'i',  0x82, 21,   3,
                                                   '{',  '"', 's', 't', 'a',  't',  'u',  's',
                                                   '"',  ':', '"', 'S', 'u',  'c',  'c',  'e',
                                                   's',  's', '"', '}', 0x88, 2,    0x03, 0xe8};
            write_all(fd, frames, sizeof frames);
            unsigned char buf[256];
            size_t n = 0;
            /* the client's first frame, whole (its header may come apart from it) */
            while (n < 2 || n < 6 + (size_t)(buf[1] & 0x7f)) {
                size_t m = read_some(fd, buf + n, sizeof buf - n);
                if (!m)
                    break;
                n += m;
            }
            if (n >= 6) {
                s->got_masked = (buf[1] & 0x80) != 0;
                size_t plen = buf[1] & 0x7f;
                if (plen + 6 <= n) {
                    for (size_t i = 0; i < plen; i++)
                        s->got[i] = buf[6 + i] ^ buf[2 + i % 4];
                    s->got_len = plen;
                }
            }
            /* wait for the client's close frame (or its going away) before closing */
            while (read_some(fd, buf, sizeof buf))
                ;
        }
        break;
    }
    close(fd);
    return NULL;
}

static void srv_start(struct srv *s, enum answer a)
{
    memset(s, 0, sizeof *s);
    s->answer = a;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(s->lfd, 4), 0);
    socklen_t sl = sizeof sa;
    getsockname(s->lfd, (struct sockaddr *)&sa, &sl);
    s->port = ntohs(sa.sin_port);
    assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void srv_stop(struct srv *s)
{
    pthread_join(s->th, NULL);
    close(s->lfd);
}

static struct nd_client *client_for(int port)
{
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    struct nd_client_opts o = {.server = url, .token = "t0k", .timeout_ms = 5000};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&o, &st);
    assert_non_null(c);
    return c;
}

static const char *const protos[] = {"v5.channel.k8s.io", "v4.channel.k8s.io", NULL};

static void test_refusals(void **state)
{
    (void)state;
    struct {
        enum answer a;
        const char *reason, *message;
    } cases[] = {
        {A_REFUSE, "BadRequest", "no way"},
        {A_REFUSE_CHUNKED, "BadRequest", "no way"},
        {A_BAD_ACCEPT, "InternalError",
         "malformed answer from the server: Sec-WebSocket-Accept is \"bm9wZQ==\", not "},
        {A_BAD_PROTOCOL, "InternalError",
         "malformed answer from the server: the server chose the subprotocol "
         "\"v9.channel.k8s.io\", which was not offered"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct srv s;
        srv_start(&s, cases[i].a);
        struct nd_client *c = client_for(s.port);
        struct nd_ws *ws = NULL;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_ws_opts o = {"/x/exec?command=ls", protos};
        assert_int_equal(nd_ws_connect(c, &o, &ws, &st), -1);
        assert_null(ws);
        assert_string_equal(st.reason, cases[i].reason);
        assert_int_equal(strncmp(st.message, cases[i].message, strlen(cases[i].message)), 0);
        if (cases[i].a == A_REFUSE)
            assert_string_equal(st.request_id, "rid-1");
        nd_status_release(&st);
        nd_client_free(c);
        srv_stop(&s);
        /* the request the server saw */
        assert_non_null(strstr(s.request, "GET /x/exec?command=ls HTTP/1.1\r\n"));
        assert_non_null(strstr(s.request, "\r\nUpgrade: websocket\r\n"));
        assert_non_null(strstr(s.request, "\r\nConnection: Upgrade\r\n"));
        assert_non_null(strstr(s.request, "\r\nSec-WebSocket-Version: 13\r\n"));
        assert_non_null(strstr(s.request, "\r\nAuthorization: Bearer t0k\r\n"));
        assert_non_null(strstr(
            s.request, "\r\nSec-WebSocket-Protocol: v5.channel.k8s.io, v4.channel.k8s.io\r\n"));
    }
}

struct got {
    char text[256];
    size_t n;
    int messages;
};

static int on_msg(void *cls, bool binary, const unsigned char *data, size_t n)
{
    struct got *g = cls;
    assert_true(binary);
    g->messages++;
    if (g->n + n + 1 < sizeof g->text) {
        memcpy(g->text + g->n, data, n);
        g->n += n;
        g->text[g->n++] = '|';
    }
    return 0;
}

/* nd_ws_io_failed: EAGAIN only waits; the peer's end and other errors end it; errno
 * stays. */
static void test_io_failed(void **state)
{
    (void)state;
    struct wslay_event_callbacks cb = {0};
    wslay_event_context_ptr ctx;
    assert_int_equal(wslay_event_context_client_init(&ctx, &cb, NULL), 0);
    static const struct {
        ssize_t n;
        int err;
        bool over;
    } rows[] = {
        {-1, EAGAIN, false}, {-1, EWOULDBLOCK, false}, {0, 0, true},
        {-1, ECONNRESET, true}, {-1, EPIPE, true},    {0, EAGAIN, true},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        errno = rows[i].err;
        if (nd_ws_io_failed(ctx, rows[i].n) != rows[i].over)
            fail_msg("row %zu: want %d", i, rows[i].over);
        assert_int_equal(errno, rows[i].err);
    }
    wslay_event_context_free(ctx);
}

static void test_session(void **state)
{
    (void)state;
    struct srv s;
    srv_start(&s, A_SESSION);
    struct nd_client *c = client_for(s.port);
    struct nd_ws *ws = NULL;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_ws_opts o = {"/x/exec?command=ls", protos};
    assert_int_equal(nd_ws_connect(c, &o, &ws, &st), 0);
    assert_string_equal(nd_ws_protocol(ws), "v5.channel.k8s.io");
    assert_int_equal(nd_ws_send(ws, 0, "abc", 3), 0);
    struct got g = {0};
    int r = 0;
    for (int i = 0; i < 200 && r == 0; i++) {
        struct pollfd pf = {nd_ws_fd(ws), (short)(POLLIN | (nd_ws_want_write(ws) ? POLLOUT : 0)),
                            0};
        poll(&pf, 1, 100);
        r = nd_ws_pump(ws, on_msg, &g, &st);
    }
    if (r < 0)
        print_message("pump: %s\n", st.message);
    assert_int_equal(r, 1);
    assert_int_equal(g.messages, 2);
    g.text[g.n] = '\0';
    /* channel bytes 1 and 3 lead the messages */
    assert_int_equal(g.text[0], 1);
    assert_memory_equal(g.text + 1, "hi|\003{\"status\":\"Success\"}|", 24);
    int code = 0;
    assert_true(nd_ws_closed_cleanly(ws, &code));
    assert_int_equal(code, 1000);
    nd_ws_free(ws);
    nd_client_free(c);
    srv_stop(&s);
    assert_true(s.got_masked);
    assert_int_equal(s.got_len, 4);
    assert_memory_equal(s.got, "\000abc", 4);
}

/* A message past the line limit (16 MiB; the frame says 1 GiB) ends the session at its
 * header with close code 1009, never waiting for (and holding) the rest. */
static void test_huge_message(void **state)
{
    (void)state;
    struct srv s;
    srv_start(&s, A_HUGE);
    struct nd_client *c = client_for(s.port);
    struct nd_ws *ws = NULL;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_ws_opts o = {"/x/exec?command=ls", protos};
    assert_int_equal(nd_ws_connect(c, &o, &ws, &st), 0);
    struct got g = {0};
    int r = 0;
    for (int i = 0; i < 20 && r == 0; i++) { /* 2 s: the server says nothing more */
        struct pollfd pf = {nd_ws_fd(ws), (short)(POLLIN | (nd_ws_want_write(ws) ? POLLOUT : 0)),
                            0};
        poll(&pf, 1, 100);
        r = nd_ws_pump(ws, on_msg, &g, &st);
    }
    if (r == 0)
        fail_msg("the client still waits for the 1 GiB message");
    assert_int_equal(g.messages, 0);
    nd_status_release(&st);
    nd_ws_free(ws);
    nd_client_free(c);
    srv_stop(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha1_vectors),
        cmocka_unit_test(test_accept_key),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_io_failed),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_huge_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
