/* fuzz_ws: the WebSocket client (pkg/client/ws.c over wslay): the upgrade answer and the
 * frames a server sends, over a real socket (peer.h).
 * Input: one mode byte, then the server's bytes.
 *   mode & 1 == 0  the bytes are the whole answer to the upgrade request (handshake
 *                  parsing: status line, headers, Sec-WebSocket-Accept, a non-101 Status
 *                  body, and frames that follow in the same read)
 *   mode & 1 == 1  a correct 101 answer comes first; the bytes are frames
 * After the handshake the client queues a stdin message (and with mode & 2 a close) and
 * pumps until the connection is over or fails. */
#include <poll.h>
#include <stdio.h>

#include "client/client.h"
#include "client/ws.h"
#include "fuzz.h"
#include "peer.h"

static struct fz_peer peer;

static int on_msg(void *cls, bool binary, const unsigned char *data, size_t n)
{
    size_t *total = cls;
    (void)binary;
    (void)data;
    *total += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    int mode = data[0];
    fz_peer_start(&peer, data + 1, size - 1, mode & 1);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", peer.port);
    struct nd_client_opts o = {.server = url, .timeout_ms = 5000};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_client_new(&o, &st);
    FZ_ASSERT(c);
    static const char *const protos[] = {"v5.channel.k8s.io", "v4.channel.k8s.io", NULL};
    struct nd_ws_opts wo = {.path = "/apis/nodus.dev/v1/namespaces/default/sandboxes/a/exec"
                                    "?command=sh&stdin=true&stdout=true",
                            .protocols = protos};
    struct nd_ws *ws = NULL;
    if (nd_ws_connect(c, &wo, &ws, &st) == 0) {
        FZ_ASSERT(ws);
        nd_ws_protocol(ws);
        nd_ws_send(ws, 0, "input\n", 6);
        if (mode & 2)
            nd_ws_close(ws);
        size_t total = 0;
        int r = 0;
        for (int i = 0; i < 1000 && r == 0; i++) {
            struct pollfd pf = {nd_ws_fd(ws), (short)(POLLIN | (nd_ws_want_write(ws) ? POLLOUT : 0)),
                                0};
            if (poll(&pf, 1, 1000) <= 0)
                break;
            r = nd_ws_pump(ws, on_msg, &total, &st);
        }
        int code = 0;
        nd_ws_closed_cleanly(ws, &code);
        nd_ws_free(ws);
    } else {
        FZ_ASSERT(st.message);
    }
    nd_status_release(&st);
    nd_client_free(c);
    fz_peer_stop(&peer);
    return 0;
}
