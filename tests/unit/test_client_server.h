/* test_client_server.h: a scripted HTTP peer for the client tests (plain sockets and a
 * thread, on 127.0.0.1:0). Included by test_client.c and test_client_plain.c; a header,
 * so the Makefile does not link it into every unit binary.
 *
 * The server plays its steps in order. Each step reads one request (all of its head and
 * its Content-Length body), records it, then writes the step's pieces one by one with a
 * short pause between them (so the client sees them in separate reads), and ends as its
 * action says.
 */
#ifndef TEST_CLIENT_SERVER_H
#define TEST_CLIENT_SERVER_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum fk_action {
    FK_KEEP,  /* answer; the connection stays for the next step */
    FK_CLOSE, /* answer, then close */
    FK_HANG,  /* answer (if there are pieces), then wait until the client goes away */
    FK_DROP,  /* read the request, close without answering */
    FK_RAW,   /* write the pieces without reading a request, then wait for the close */
};

#define FK_PIECES 10
#define FK_MAXREQ 16

struct fk_step {
    const char *pieces[FK_PIECES]; /* NULL-terminated */
    enum fk_action action;
};

struct fk_server {
    int lfd, port;
    pthread_t th;
    const struct fk_step *steps;
    size_t nsteps;
    int accepts;
    char *req[FK_MAXREQ]; /* each request as received */
    size_t nreq;
};

static inline void fk_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline int64_t fk_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One request, or NULL when the client closed first. */
static inline char *fk_read_request(int fd)
{
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (len + 1 >= cap)
            b = realloc(b, cap *= 2);
        ssize_t n = recv(fd, b + len, cap - len - 1, 0);
        if (n <= 0) {
            free(b);
            return NULL;
        }
        len += (size_t)n;
        b[len] = '\0';
        char *end = strstr(b, "\r\n\r\n");
        if (!end)
            continue;
        size_t head = (size_t)(end + 4 - b), body = 0;
        for (char *p = b; p < end; p = strstr(p, "\r\n") + 2)
            if (strncasecmp(p, "Content-Length:", 15) == 0)
                body = (size_t)strtoul(p + 15, NULL, 10);
        while (len < head + body) {
            if (len + 1 >= cap)
                b = realloc(b, cap *= 2);
            n = recv(fd, b + len, cap - len - 1, 0);
            if (n <= 0) {
                free(b);
                return NULL;
            }
            len += (size_t)n;
            b[len] = '\0';
        }
        return b;
    }
}

static inline void fk_wait_close(int fd)
{
    char tmp[4096];
    while (recv(fd, tmp, sizeof tmp, 0) > 0)
        ;
}

static inline void fk_write(int fd, const struct fk_step *st)
{
    for (int i = 0; i < FK_PIECES && st->pieces[i]; i++) {
        if (i)
            fk_sleep_ms(3);
        send(fd, st->pieces[i], strlen(st->pieces[i]), MSG_NOSIGNAL);
    }
}

static inline void *fk_main(void *arg)
{
    struct fk_server *s = arg;
    int fd = -1;
    for (size_t i = 0; i < s->nsteps; i++) {
        const struct fk_step *st = &s->steps[i];
        if (fd < 0) {
            fd = accept(s->lfd, NULL, NULL);
            if (fd < 0)
                break;
            s->accepts++;
            struct timeval tv = {5, 0}; /* a broken test never hangs the suite */
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        }
        if (st->action == FK_RAW) {
            fk_write(fd, st);
            fk_wait_close(fd);
            close(fd);
            fd = -1;
            continue;
        }
        char *req = fk_read_request(fd);
        if (!req) { /* the client closed this connection: the step starts over */
            close(fd);
            fd = -1;
            i--;
            continue;
        }
        if (s->nreq < FK_MAXREQ)
            s->req[s->nreq++] = req;
        else
            free(req);
        if (st->action != FK_DROP)
            fk_write(fd, st);
        if (st->action == FK_HANG)
            fk_wait_close(fd);
        if (st->action != FK_KEEP) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static inline int fk_start(struct fk_server *s, const struct fk_step *steps, size_t n)
{
    memset(s, 0, sizeof *s);
    s->steps = steps;
    s->nsteps = n;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(s->lfd, 8) < 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &alen) < 0)
        return -1;
    s->port = ntohs(a.sin_port);
    struct timeval tv = {5, 0}; /* accept() gives up too, if a test never connects */
    setsockopt(s->lfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return pthread_create(&s->th, NULL, fk_main, s) == 0 ? 0 : -1;
}

/* Waits for the script's end; the requests stay readable until fk_release. */
static inline void fk_join(struct fk_server *s)
{
    pthread_join(s->th, NULL);
    close(s->lfd);
}

static inline void fk_release(struct fk_server *s)
{
    for (size_t i = 0; i < s->nreq; i++) { /* nreq stays: tests count the requests */
        free(s->req[i]);
        s->req[i] = NULL;
    }
}

static inline void fk_finish(struct fk_server *s)
{
    fk_join(s);
    fk_release(s);
}

/* A port on 127.0.0.1 that nothing listens on (bound, then released). */
static inline int fk_refused_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &alen);
    close(fd);
    return ntohs(a.sin_port);
}

#endif
