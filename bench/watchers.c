/* The watch fan-out bench: W concurrent watch streams, then one create (R rounds, one
 * create each), and per watcher the delay from the create's acknowledgement to that
 * watcher reading the object's ADDED event.
 *
 *   watchers --port P --watch PATH --create PATH --body FILE [-w 1000] [--rounds 3]
 *            [--prefix NAME] [--ready-timeout SECONDS] [--rounds-log FILE]
 *
 * The --body template has @NAME@ where the object's name goes. Prints one line:
 * watchers= ready= samples= missed= p50_ms= p99_ms= max_ms= (after the ack; negative when
 * the event came first) send_p50_ms= send_p99_ms= (after the create was sent) setup_s= (from
 * the first connect until every stream had its response headers, or the ready timeout,
 * default 120 s: the rounds start only then). */
#include "httpc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#define SCAN 65536

struct watcher {
    struct hc_conn c;
    int ready; /* response headers seen */
    char buf[SCAN];
    size_t len;
    double t_event; /* 0 until the round's object was seen */
};

static int port;
static const char *create_path;
static char *body_tmpl;
static char cur_name[128];
static double t_send, t_ack;
static int create_status;

static void *do_create(void *arg)
{
    (void)arg;
    struct hc_conn c = {.fd = -1};
    if (hc_connect(&c, port) != 0) {
        create_status = -1;
        return NULL;
    }
    /* the body: the template with the name in */
    size_t tl = strlen(body_tmpl), nl = strlen(cur_name);
    char *b = malloc(tl + 16 * nl + 1), *w = b;
    const char *p = body_tmpl, *q;
    while ((q = strstr(p, "@NAME@"))) {
        memcpy(w, p, (size_t)(q - p));
        w += q - p;
        memcpy(w, cur_name, nl);
        w += nl;
        p = q + 6;
    }
    size_t rest = strlen(p);
    memcpy(w, p, rest + 1);
    w += rest;
    struct hc_resp r;
    t_send = hc_now();
    int rc = hc_request(&c, "POST", create_path, b, (size_t)(w - b), &r);
    t_ack = hc_now();
    create_status = rc == 0 ? r.status : -1;
    free(b);
    hc_close(&c);
    free(c.buf);
    return NULL;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p)
{
    return n ? v[(size_t)(p * (double)(n - 1))] : 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: watchers --port P --watch PATH --create PATH --body FILE [-w N] "
                    "[--rounds R] [--prefix NAME] [--ready-timeout S] [--rounds-log FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *watch_path = NULL, *body_file = NULL, *prefix = "watched";
    int nw = 1000, rounds = 3;
    double ready_timeout = 120;
    const char *rounds_log = NULL; /* a line per round: its start, p50, p99, max, missed */
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--port"))
            port = atoi(v);
        else if (!strcmp(a, "--watch"))
            watch_path = v;
        else if (!strcmp(a, "--create"))
            create_path = v;
        else if (!strcmp(a, "--body"))
            body_file = v;
        else if (!strcmp(a, "-w"))
            nw = atoi(v);
        else if (!strcmp(a, "--rounds"))
            rounds = atoi(v);
        else if (!strcmp(a, "--prefix"))
            prefix = v;
        else if (!strcmp(a, "--ready-timeout"))
            ready_timeout = atof(v);
        else if (!strcmp(a, "--rounds-log"))
            rounds_log = v;
        else
            usage();
    }
    if (!port || !watch_path || !create_path || !body_file || nw < 1 || rounds < 1)
        usage();
    if (!(body_tmpl = hc_slurp(body_file, NULL))) {
        perror(body_file);
        return 1;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct watcher *ws = calloc((size_t)nw, sizeof *ws);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int opened = 0;
    double t_open = hc_now(), setup = 0;
    for (int i = 0; i < nw; i++) {
        ws[i].c.fd = -1;
        if (hc_connect(&ws[i].c, port) != 0 ||
            hc_send(&ws[i].c, "GET", watch_path, NULL, 0) != 0) {
            fprintf(stderr, "watchers: watcher %d: cannot connect or send: %s\n", i,
                    strerror(errno));
            hc_close(&ws[i].c);
            continue;
        }
        fcntl(ws[i].c.fd, F_SETFL, fcntl(ws[i].c.fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, ws[i].c.fd, &ev);
        opened++;
    }
    int ready = 0, round = -1, samples = 0, missed = 0;
    double *after_ack = malloc(sizeof(double) * (size_t)nw * (size_t)rounds);
    double *after_send = malloc(sizeof(double) * (size_t)nw * (size_t)rounds);
    double phase_end = t_open + ready_timeout; /* waiting for every stream's headers */
    pthread_t creator;
    int creating = 0, seen = 0, round_first = 0;
    FILE *rlog = rounds_log ? fopen(rounds_log, "w") : NULL;
    double *one = rlog ? malloc(sizeof(double) * (size_t)nw) : NULL;
    struct epoll_event evs[256];
    for (;;) {
        double now = hc_now();
        if (round < 0 && (ready == opened || now > phase_end)) {
            /* let any initial events and bookmarks drain, then start round 0 */
            setup = now - t_open;
            hc_sleep_ms(200);
            round = 0;
        }
        if (round >= 0 && !creating) {
            if (round >= rounds)
                break;
            for (int i = 0; i < nw; i++) {
                ws[i].len = 0;
                ws[i].t_event = 0;
            }
            seen = 0;
            round_first = samples;
            snprintf(cur_name, sizeof cur_name, "%s-%d-%ld", prefix, round, (long)getpid());
            t_ack = 0;
            pthread_create(&creator, NULL, do_create, NULL);
            creating = 1;
            phase_end = hc_now() + 10.0;
        }
        int n = epoll_wait(ep, evs, 256, 50);
        now = hc_now();
        for (int k = 0; k < n; k++) {
            struct watcher *w = &ws[evs[k].data.u32];
            for (;;) {
                if (w->len > SCAN - 4096) { /* keep a tail for a name split across reads */
                    memmove(w->buf, w->buf + w->len - 256, 256);
                    w->len = 256;
                }
                ssize_t r = read(w->c.fd, w->buf + w->len, SCAN - 1 - w->len);
                if (r <= 0) {
                    if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                        epoll_ctl(ep, EPOLL_CTL_DEL, w->c.fd, NULL);
                        hc_close(&w->c);
                    }
                    break;
                }
                w->len += (size_t)r;
                w->buf[w->len] = 0;
                if (!w->ready && hc_find(w->buf, w->len, "\r\n\r\n")) {
                    w->ready = 1;
                    ready++;
                    if (round < 0)
                        w->len = 0;
                }
                if (creating && !w->t_event) {
                    char q[140];
                    snprintf(q, sizeof q, "\"%s\"", cur_name);
                    if (hc_find(w->buf, w->len, q)) {
                        w->t_event = now;
                        seen++;
                    }
                }
            }
        }
        if (creating && (seen == opened || now > phase_end)) {
            pthread_join(creator, NULL);
            if (create_status < 200 || create_status > 299)
                fprintf(stderr, "watchers: the create answered %d\n", create_status);
            for (int i = 0; i < nw; i++) {
                if (ws[i].c.fd < 0)
                    continue;
                if (!ws[i].t_event) {
                    missed++;
                    continue;
                }
                after_ack[samples] = (ws[i].t_event - t_ack) * 1000.0;
                after_send[samples] = (ws[i].t_event - t_send) * 1000.0;
                samples++;
            }
            if (rlog) { /* this round alone: when it began (after the open), p50, p99, max */
                size_t k = (size_t)(samples - round_first);
                memcpy(one, after_ack + round_first, sizeof(double) * k);
                qsort(one, k, sizeof(double), cmpd);
                fprintf(rlog, "round=%d at_s=%.3f samples=%zu p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
                        round, t_send - t_open, k, pct(one, k, 0.5), pct(one, k, 0.99),
                        k ? one[k - 1] : 0);
                fflush(rlog);
            }
            creating = 0;
            round++;
            hc_sleep_ms(100);
        }
    }
    missed += (nw - opened) * rounds;
    qsort(after_ack, (size_t)samples, sizeof(double), cmpd);
    qsort(after_send, (size_t)samples, sizeof(double), cmpd);
    printf("watchers=%d ready=%d samples=%d missed=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
           "send_p50_ms=%.3f send_p99_ms=%.3f setup_s=%.3f\n",
           nw, ready, samples, missed, pct(after_ack, (size_t)samples, 0.5),
           pct(after_ack, (size_t)samples, 0.99), samples ? after_ack[samples - 1] : 0,
           pct(after_send, (size_t)samples, 0.5), pct(after_send, (size_t)samples, 0.99), setup);
    for (int i = 0; i < nw; i++) {
        hc_close(&ws[i].c);
        free(ws[i].c.buf);
    }
    close(ep);
    free(ws);
    free(after_ack);
    free(after_send);
    free(one);
    if (rlog)
        fclose(rlog);
    free(body_tmpl);
    return 0;
}
