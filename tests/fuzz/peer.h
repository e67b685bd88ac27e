/* peer.h: a fake HTTP server for the client fuzz targets, on 127.0.0.1 (a listening
 * socket made once per process, one thread per input).
 *
 * The first connection of an input gets its request head read, then the input's bytes
 * written as the answer (after a correct WebSocket 101 head when asked to), then its
 * writing side shut (so the client sees the end), and is read until the client closes.
 * Further connections in the same input (a client reconnecting) are read and closed
 * without an answer. fz_peer_stop ends the thread (a byte on a pipe wakes it). */
#ifndef ND_FUZZ_PEER_H
#define ND_FUZZ_PEER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/ws.h"
#include "fuzz.h"
#include "util/buf.h"

struct fz_peer {
    int lfd, port, wake[2];
    pthread_t th;
    const uint8_t *data;
    size_t len;
    int ws; /* answer with a valid 101 first */
};

static void fz_peer_init(struct fz_peer *p)
{
    if (p->port)
        return;
    p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    FZ_ASSERT(p->lfd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    FZ_ASSERT(bind(p->lfd, (struct sockaddr *)&a, sizeof a) == 0);
    FZ_ASSERT(listen(p->lfd, 16) == 0);
    FZ_ASSERT(getsockname(p->lfd, (struct sockaddr *)&a, &al) == 0);
    p->port = ntohs(a.sin_port);
}

/* The request head (until the blank line), or "" when the client went away first. */
static void fz_peer_read_head(int fd, struct nd_buf *head)
{
    char b[1024];
    while (!head->len || !strstr(head->data, "\r\n\r\n")) {
        ssize_t n = recv(fd, b, sizeof b, 0);
        if (n <= 0)
            return;
        nd_buf_add(head, b, (size_t)n);
    }
}

static void fz_peer_send(int fd, const void *d, size_t n)
{
    const char *p = d;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void fz_peer_answer(struct fz_peer *p, int fd)
{
    struct nd_buf head = ND_BUF_INIT;
    fz_peer_read_head(fd, &head);
    if (p->ws && head.len) {
        const char *k = strstr(head.data, "Sec-WebSocket-Key: ");
        char accept[29] = "";
        if (k) {
            k += strlen("Sec-WebSocket-Key: ");
            char key[64];
            size_t n = strcspn(k, "\r");
            if (n < sizeof key) {
                memcpy(key, k, n);
                key[n] = '\0';
                nd_ws_accept(key, accept);
            }
        }
        char h[512];
        int n = snprintf(h, sizeof h,
                         "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n"
                         "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n",
                         accept);
        fz_peer_send(fd, h, (size_t)n);
    }
    if (head.len)
        fz_peer_send(fd, p->data, p->len);
    shutdown(fd, SHUT_WR);
    char b[4096];
    while (recv(fd, b, sizeof b, 0) > 0)
        ;
    nd_buf_release(&head);
}

static void *fz_peer_main(void *cls)
{
    struct fz_peer *p = cls;
    int conns = 0;
    for (;;) {
        struct pollfd pf[2] = {{p->lfd, POLLIN, 0}, {p->wake[0], POLLIN, 0}};
        if (poll(pf, 2, -1) < 0)
            continue;
        if (pf[1].revents)
            break;
        int fd = accept(p->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        if (conns++ == 0) {
            fz_peer_answer(p, fd);
        } else {
            struct nd_buf head = ND_BUF_INIT;
            fz_peer_read_head(fd, &head);
            nd_buf_release(&head);
        }
        close(fd);
    }
    return NULL;
}

static void fz_peer_start(struct fz_peer *p, const uint8_t *data, size_t len, int ws)
{
    fz_peer_init(p);
    p->data = data;
    p->len = len;
    p->ws = ws;
    FZ_ASSERT(pipe(p->wake) == 0);
    FZ_ASSERT(pthread_create(&p->th, NULL, fz_peer_main, p) == 0);
}

static void fz_peer_stop(struct fz_peer *p)
{
    FZ_ASSERT(write(p->wake[1], "x", 1) == 1);
    pthread_join(p->th, NULL);
    close(p->wake[0]);
    close(p->wake[1]);
}

#endif
