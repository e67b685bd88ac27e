/* The floor of the watch rows of make bench: the least a server can do to fan one create
 * out to W watch streams over loopback TCP. Two threads (the emulator's loop has two),
 * each with its own epoll and its share of the connections; no HTTP library, no JSON:
 * a request is its bytes up to the blank line (and a POST's Content-Length body).
 *
 *   GET with watch=1 in its line  answers chunked headers and keeps the stream
 *   POST                          answers 201 with the body it was sent, then writes
 *                                 {"type":"ADDED","object":BODY} as one chunk to every
 *                                 stream (each thread to its own, one send() each)
 *   any other request             answers 200 "ok" (waitready's probe)
 *
 *   fanout --port-file FILE       listens on 127.0.0.1 on a free port, writes it to FILE,
 *                                 serves until SIGTERM/SIGINT
 *
 * bench/watchers measures it as it measures the emulator; nothing the emulator does for
 * a watch can cost less than this on the same machine. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOOPS   2
#define REQ_MAX 65536

struct conn {
    int fd;
    int watch; /* a watch stream: its requests are over, it only gets events */
    size_t len;
    char buf[REQ_MAX];
};

struct loop {
    pthread_t thread;
    int ep, news; /* the epoll and the eventfd a publish writes */
    struct conn **watches;
    size_t nwatch, capwatch;
    unsigned long seen; /* the last event generation sent */
};

static struct loop loops[LOOPS];
static int lfd;
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static char *ev_bytes; /* the newest event's chunk */
static size_t ev_len;
static unsigned long ev_gen;
static atomic_int stop;
static atomic_uint dealt;

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) { /* a floor: wait for room rather than queue */
            nanosleep(&(struct timespec){0, 50000}, NULL);
            continue;
        }
        if (w <= 0)
            return;
        p += w, n -= (size_t)w;
    }
}

/* A POST's body becomes the event every stream gets; the loops are told. */
static void publish(const char *body, size_t n)
{
    static const char pre[] = "{\"type\":\"ADDED\",\"object\":", post[] = "}\n";
    size_t len = sizeof pre - 1 + n + sizeof post - 1;
    char *b = malloc(len + 32);
    int h = snprintf(b, 32, "%zx\r\n", len);
    memcpy(b + h, pre, sizeof pre - 1);
    memcpy(b + h + sizeof pre - 1, body, n);
    memcpy(b + h + sizeof pre - 1 + n, post, sizeof post - 1);
    memcpy(b + h + len, "\r\n", 2);
    pthread_mutex_lock(&ev_lock);
    free(ev_bytes);
    ev_bytes = b;
    ev_len = (size_t)h + len + 2;
    ev_gen++;
    pthread_mutex_unlock(&ev_lock);
    for (int i = 0; i < LOOPS; i++) {
        uint64_t one = 1;
        if (write(loops[i].news, &one, sizeof one) < 0)
            perror("fanout: eventfd");
    }
}

/* The loop's streams get the newest event (a copy taken under the lock). */
static void send_news(struct loop *l)
{
    uint64_t v;
    if (read(l->news, &v, sizeof v) < 0)
        return;
    pthread_mutex_lock(&ev_lock);
    if (ev_gen == l->seen) {
        pthread_mutex_unlock(&ev_lock);
        return;
    }
    l->seen = ev_gen;
    size_t n = ev_len;
    char *b = malloc(n);
    memcpy(b, ev_bytes, n);
    pthread_mutex_unlock(&ev_lock);
    for (size_t i = 0; i < l->nwatch; i++)
        write_all(l->watches[i]->fd, b, n);
    free(b);
}

/* The first NEEDLE (of N bytes) in HAY[0..LEN), or NULL. */
static char *find(char *hay, size_t len, const char *needle, size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, n))
            return hay + i;
    return NULL;
}

static void drop(struct loop *l, struct conn *c)
{
    epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    for (size_t i = 0; c->watch && i < l->nwatch; i++)
        if (l->watches[i] == c) {
            l->watches[i] = l->watches[--l->nwatch];
            break;
        }
    free(c);
}

/* One whole request in c->buf: answered; its bytes taken off. 0, or -1: not whole yet. */
static int serve(struct loop *l, struct conn *c)
{
    char *end = find(c->buf, c->len, "\r\n\r\n", 4);
    if (!end)
        return -1;
    size_t head = (size_t)(end - c->buf) + 4, body = 0;
    char *cl = find(c->buf, head, "Content-Length:", 15);
    if (cl)
        body = strtoul(cl + 15, NULL, 10);
    if (head + body > c->len)
        return -1;
    char *eol = memchr(c->buf, '\r', head);
    if (!strncmp(c->buf, "GET ", 4) && find(c->buf, (size_t)(eol - c->buf), "watch=1", 7)) {
        static const char h[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n";
        write_all(c->fd, h, sizeof h - 1);
        c->watch = 1;
        if (l->nwatch == l->capwatch) {
            l->capwatch = l->capwatch ? 2 * l->capwatch : 1024;
            l->watches = realloc(l->watches, l->capwatch * sizeof *l->watches);
        }
        l->watches[l->nwatch++] = c;
        c->len = 0;
        return 0;
    }
    char h[128];
    if (!strncmp(c->buf, "POST ", 5)) {
        int n = snprintf(h, sizeof h,
                         "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\n\r\n",
                         body);
        write_all(c->fd, h, (size_t)n);
        write_all(c->fd, c->buf + head, body); /* the answer first, as the emulator does */
        publish(c->buf + head, body);
    } else {
        static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
        write_all(c->fd, ok, sizeof ok - 1);
    }
    memmove(c->buf, c->buf + head + body, c->len - head - body);
    c->len -= head + body;
    return 0;
}

static void on_readable(struct loop *l, struct conn *c)
{
    for (;;) {
        if (c->len == REQ_MAX) { /* no request of the bench is this large */
            drop(l, c);
            return;
        }
        ssize_t r = read(c->fd, c->buf + c->len, REQ_MAX - c->len);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            drop(l, c);
            return;
        }
        if (r < 0)
            return;
        if (c->watch) /* a stream's client sends nothing more */
            continue;
        c->len += (size_t)r;
        while (!c->watch && serve(l, c) == 0)
            ;
    }
}

static void *run_loop(void *arg)
{
    struct loop *l = arg;
    struct epoll_event evs[256];
    while (!atomic_load(&stop)) {
        int n = epoll_wait(l->ep, evs, 256, 200);
        for (int k = 0; k < n; k++) {
            void *p = evs[k].data.ptr;
            if (p == &lfd) {
                int fd;
                while ((fd = accept(lfd, NULL, NULL)) >= 0) {
                    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct conn *c = calloc(1, sizeof *c);
                    c->fd = fd;
                    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
                    /* the connections dealt out in turn, as the emulator's two threads
                     * share them */
                    epoll_ctl(loops[atomic_fetch_add(&dealt, 1) % LOOPS].ep, EPOLL_CTL_ADD, fd,
                              &ev);
                }
            } else if (p == l) {
                send_news(l);
            } else {
                on_readable(l, p);
            }
        }
    }
    return NULL;
}

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop, 1);
}

static int write_port(const char *file, unsigned port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    return f && fprintf(f, "%u\n", port) > 0 && fclose(f) == 0 && rename(tmp, file) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--port-file") != 0) {
        fprintf(stderr, "usage: fanout --port-file FILE\n");
        return 2;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 1024) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
        perror("fanout: listen");
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < LOOPS; i++) {
        struct loop *l = &loops[i];
        l->ep = epoll_create1(EPOLL_CLOEXEC);
        l->news = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &lfd};
        epoll_ctl(l->ep, EPOLL_CTL_ADD, lfd, &ev);
        ev = (struct epoll_event){.events = EPOLLIN, .data.ptr = l};
        epoll_ctl(l->ep, EPOLL_CTL_ADD, l->news, &ev);
        pthread_create(&l->thread, NULL, run_loop, l);
    }
    if (write_port(argv[2], ntohs(sa.sin_port)) != 0) {
        perror("fanout: port file");
        return 1;
    }
    for (int i = 0; i < LOOPS; i++)
        pthread_join(loops[i].thread, NULL);
    return 0;
}
