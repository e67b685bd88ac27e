/* fuzz_plain: the plain HTTP/1.1 client's answer parser (pkg/client/plain.c: status
 * line, headers, Content-Length, chunked bodies, reading until close, keep-alive) over
 * a real socket: a fake server (peer.h) answers the client's request with the input.
 * Input: one mode byte, then the server's bytes.
 *   mode % 4 == 0  nd_client_do (whole answer), then a second request on the same client
 *   mode % 4 == 1  nd_client_stream (watch lines)
 *   mode % 4 == 2  nd_client_stream_bytes (a log)
 *   mode % 4 == 3  nd_client_json_req (a JSON answer, or a Status for an error)
 * Requests are sent with no_retry: a retry would only wait (Retry-After). */
#include <stdio.h>

#include "client/client.h"
#include "fuzz.h"
#include "peer.h"

static struct fz_peer peer;

static int on_line(void *cls, const char *line, size_t len)
{
    size_t *total = cls;
    FZ_ASSERT(!memchr(line, '\n', len));
    *total += len;
    return 0;
}

static int on_bytes(void *cls, const char *data, size_t len)
{
    size_t *total = cls;
    (void)data;
    *total += len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    int mode = data[0] % 4;
    fz_peer_start(&peer, data + 1, size - 1, 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/prefix", peer.port);
    struct nd_client_opts o = {.server = url, .token = "t", .timeout_ms = 5000};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&o, &st);
    FZ_ASSERT(c);
    struct nd_request req = {.method = "GET", .path = "/api/v1/x", .no_retry = true};
    size_t total = 0;
    int code = 0, rc;
    switch (mode) {
    case 0: {
        struct nd_response resp;
        nd_response_init(&resp);
        rc = nd_client_do(c, &req, &resp, &st);
        FZ_ASSERT(rc == 0 || st.message);
        if (rc == 0 && resp.code >= 300)
            nd_response_status(&resp, &st);
        nd_response_release(&resp);
        nd_status_release(&st);
        nd_response_init(&resp);
        rc = nd_client_do(c, &req, &resp, &st);
        nd_response_release(&resp);
        break;
    }
    case 1:
        rc = nd_client_stream(c, &req, on_line, &total, &code, &st);
        break;
    case 2:
        rc = nd_client_stream_bytes(c, &req, on_bytes, &total, &code, &st);
        break;
    default: {
        json_t *out = NULL;
        rc = nd_client_json_req(c, &req, NULL, &out, &st);
        FZ_ASSERT(rc == 0 || st.message);
        json_decref(out);
        break;
    }
    }
    (void)rc;
    nd_status_release(&st);
    nd_client_free(c);
    fz_peer_stop(&peer);
    return 0;
}
