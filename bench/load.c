/* The load driver of make bench: N keep-alive connections (one thread each) to
 * 127.0.0.1:PORT for D seconds or K requests in all, one request in flight per connection.
 *
 *   load --port P --mode get|list|create --path PATH [-c CONNS] [-d SECONDS | -n COUNT]
 *        [--body FILE] [--ack FILE] [--prefix NAME]
 *
 *   get     GET PATH
 *   list    GET PATH (give it ?limit=500 or what the server takes)
 *   create  POST PATH with the body of FILE, every @NAME@ in it replaced by a unique name
 *           (PREFIX-THREAD-SEQ); each name answered 2xx is appended to the --ack file
 *           as soon as the answer is in (write(2), so it survives the server's death).
 *
 * Prints one line: reqs= ok= errors= secs= rps= p50_ms= p99_ms= (ok requests only;
 * rps counts 2xx answers). A connection that fails reconnects; if it cannot, its
 * thread stops. */
#include "httpc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum mode { M_GET, M_LIST, M_CREATE };

static int port, conns = 1;
static double duration = 0;
static long count = 0;
static enum mode mode = M_GET;
static const char *path, *prefix = "load";
static char *tmpl;
static size_t tmpl_len;
static int ack_fd = -1;
static atomic_long issued;
static double deadline;

struct worker {
    pthread_t t;
    int id;
    long ok, errors;
    float *lat; /* ms */
    size_t nlat, cap;
};

static char *make_body(const char *name, size_t *len)
{
    size_t nl = strlen(name), n = 0;
    for (const char *p = tmpl; (p = strstr(p, "@NAME@")); p += 6)
        n++;
    char *out = malloc(tmpl_len + n * nl + 1), *w = out;
    const char *p = tmpl, *q;
    while ((q = strstr(p, "@NAME@"))) {
        memcpy(w, p, (size_t)(q - p));
        w += q - p;
        memcpy(w, name, nl);
        w += nl;
        p = q + 6;
    }
    size_t rest = strlen(p);
    memcpy(w, p, rest + 1);
    *len = (size_t)(w - out) + rest;
    return out;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    struct hc_conn c = {.fd = -1};
    long seq = 0;
    int failures = 0;
    while (hc_now() < deadline) {
        if (count && atomic_fetch_add(&issued, 1) >= count)
            break;
        if (c.fd < 0 && hc_connect(&c, port) != 0) {
            w->errors++;
            if (++failures > 3)
                break;
            hc_sleep_ms(20);
            continue;
        }
        char name[128];
        char *body = NULL;
        size_t blen = 0;
        if (mode == M_CREATE) {
            snprintf(name, sizeof name, "%s-%d-%ld", prefix, w->id, seq++);
            body = make_body(name, &blen);
        }
        struct hc_resp r;
        double t0 = hc_now();
        int rc = hc_request(&c, mode == M_CREATE ? "POST" : "GET", path, body, blen, &r);
        double t1 = hc_now();
        free(body);
        if (rc != 0 || r.status < 200 || r.status > 299) {
            w->errors++;
            if (rc != 0)
                failures++;
            if (rc == 0 && w->errors < 3)
                fprintf(stderr, "load: %s answered %d: %.*s\n", path, r.status,
                        (int)(r.body_len > 300 ? 300 : r.body_len), r.body);
            continue;
        }
        failures = 0;
        if (mode == M_CREATE && ack_fd >= 0) {
            size_t nl = strlen(name);
            name[nl] = '\n';
            if (write(ack_fd, name, nl + 1) < 0)
                perror("load: ack file");
        }
        w->ok++;
        if (w->nlat == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 4096;
            w->lat = realloc(w->lat, w->cap * sizeof *w->lat);
        }
        w->lat[w->nlat++] = (float)((t1 - t0) * 1000.0);
    }
    hc_close(&c);
    free(c.buf);
    return NULL;
}

static int cmpf(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void usage(void)
{
    fprintf(stderr, "usage: load --port P --mode get|list|create --path PATH [-c CONNS] "
                    "[-d SECONDS | -n COUNT] [--body FILE] [--ack FILE] [--prefix NAME]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *body_file = NULL, *ack_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--port"))
            port = atoi(v);
        else if (!strcmp(a, "--mode"))
            mode = !strcmp(v, "get") ? M_GET : !strcmp(v, "list") ? M_LIST : M_CREATE;
        else if (!strcmp(a, "--path"))
            path = v;
        else if (!strcmp(a, "-c"))
            conns = atoi(v);
        else if (!strcmp(a, "-d"))
            duration = atof(v);
        else if (!strcmp(a, "-n"))
            count = atol(v);
        else if (!strcmp(a, "--body"))
            body_file = v;
        else if (!strcmp(a, "--ack"))
            ack_file = v;
        else if (!strcmp(a, "--prefix"))
            prefix = v;
        else
            usage();
        i++;
    }
    if (!port || !path || conns < 1 || (duration <= 0 && count <= 0))
        usage();
    if (mode == M_CREATE) {
        if (!body_file || !(tmpl = hc_slurp(body_file, &tmpl_len))) {
            fprintf(stderr, "load: create needs --body FILE\n");
            return 2;
        }
    }
    if (ack_file) {
        ack_fd = open(ack_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (ack_fd < 0) {
            perror(ack_file);
            return 1;
        }
    }
    double t0 = hc_now();
    deadline = duration > 0 ? t0 + duration : t0 + 1e9;
    struct worker *ws = calloc((size_t)conns, sizeof *ws);
    for (int i = 0; i < conns; i++) {
        ws[i].id = i;
        pthread_create(&ws[i].t, NULL, run, &ws[i]);
    }
    long ok = 0, errors = 0;
    size_t n = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(ws[i].t, NULL);
        ok += ws[i].ok;
        errors += ws[i].errors;
        n += ws[i].nlat;
    }
    double secs = hc_now() - t0;
    float *all = malloc((n ? n : 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        if (ws[i].nlat)
            memcpy(all + k, ws[i].lat, ws[i].nlat * sizeof *all);
        k += ws[i].nlat;
        free(ws[i].lat);
    }
    qsort(all, n, sizeof *all, cmpf);
    double p50 = n ? all[(size_t)(0.50 * (double)(n - 1))] : 0;
    double p99 = n ? all[(size_t)(0.99 * (double)(n - 1))] : 0;
    printf("reqs=%ld ok=%ld errors=%ld secs=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f\n",
           ok + errors, ok, errors, secs, (double)ok / secs, p50, p99);
    if (ack_fd >= 0)
        close(ack_fd);
    free(all);
    free(ws);
    free(tmpl);
    return 0;
}
