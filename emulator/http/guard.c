/* The connection guard: classes, deadlines and the episode log (guard.h). */
#include "guard.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* struct tcp_info (glibc hides it under _POSIX_C_SOURCE) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/id.h"
#include "util/status.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define TICK_MS 200
/* Bytes that came this long after a request ended start the next one (TCP_INFO counts
 * in jiffies: a little slack keeps the last bytes of the previous request out). */
#define NEXT_REQUEST_SLACK_MS 100

enum phase {
    PH_HEADERS, /* waiting for a request's headers: the header deadline runs */
    PH_BODY,    /* reading its body: the body rate is checked */
    PH_BUSY,    /* answering, streaming or upgraded: not timed here */
    PH_IDLE,    /* between requests: libmicrohttpd's --idle-timeout */
};

struct em_guard_conn {
    struct em_guard_conn *prev, *next;
    struct em_guard_conn *tprev, *tnext; /* g->timed, while on it */
    bool timed; /* on g->timed: a phase the watchdog times (not PH_BUSY), not cut */
    int fd;
    int family;
    unsigned char addr[16];
    char remote[64];
    enum em_conn_class cls;
    bool holds; /* takes one of max_conns (ordinary and reserve connections do) */
    enum phase phase;
    int64_t since_ms;   /* the phase's start; in PH_BODY, the window's */
    uint64_t win_bytes; /* body bytes at the window's start */
    _Atomic uint64_t body_bytes;
    bool cut;
    bool upgraded; /* an exec session's: never timed again */
};

struct episode {
    bool open;
    uint64_t count;
    int64_t first_ms, last_ms;
};

struct em_guard {
    struct em_guard_opts o;
    bool tls;
    char *docs; /* base of the docs link */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stopping;
    struct em_guard_conn *head;
    /* the connections the watchdog looks at: those waiting for a request's bytes, not the
     * ten thousand answering or streaming a watch (a walk of every connection each tick
     * was 3-11% of the emulator's CPU while a fan-out ran) */
    struct em_guard_conn *timed;
    uint64_t looked; /* connections the watchdog looked at (em_guard_looked) */
    unsigned held;   /* connections holding a slot */
    em_notice_fn notice;
    void *notice_cls;
    struct episode ep[EM_REFUSE_KINDS];
};

/* Under the lock: c goes on g->timed or off it, as its phase says. */
static void timed_update(struct em_guard *g, struct em_guard_conn *c)
{
    bool want = c->phase != PH_BUSY && !c->cut;
    if (want == c->timed)
        return;
    c->timed = want;
    if (want) {
        c->tprev = NULL;
        c->tnext = g->timed;
        if (g->timed)
            g->timed->tprev = c;
        g->timed = c;
        return;
    }
    if (c->tprev)
        c->tprev->tnext = c->tnext;
    else
        g->timed = c->tnext;
    if (c->tnext)
        c->tnext->tprev = c->tprev;
}

struct em_guard *em_guard_new(const struct em_guard_opts *opts, bool tls)
{
    struct em_guard *g = nd_xcalloc(1, sizeof *g);
    g->o = *opts;
    if (!g->o.max_conns)
        g->o.max_conns = 1;
    if (g->o.reserve >= g->o.max_conns)
        g->o.reserve = g->o.max_conns - 1;
    if (!g->o.body_window_ms)
        g->o.body_window_ms = 10000;
    g->tls = tls;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->wake, NULL);
    return g;
}

void em_guard_set_notice(struct em_guard *g, em_notice_fn fn, void *cls)
{
    pthread_mutex_lock(&g->lock);
    g->notice = fn;
    g->notice_cls = cls;
    pthread_mutex_unlock(&g->lock);
}

void em_guard_set_base_url(struct em_guard *g, const char *url)
{
    pthread_mutex_lock(&g->lock);
    free(g->docs);
    g->docs = nd_xasprintf("%s/docs", url);
    pthread_mutex_unlock(&g->lock);
}

/* The notices gathered under the lock, written after it (one line each). */
static void emit(struct em_guard *g, struct nd_buf *lines)
{
    em_notice_fn fn = g->notice;
    char *save = NULL;
    if (fn && lines->len)
        for (char *l = strtok_r(lines->data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            fn(g->notice_cls, l);
    nd_buf_release(lines);
}

static double secs(unsigned ms)
{
    return ms / 1000.0;
}

static unsigned header_limit_ms(const struct em_guard *g, const struct em_guard_conn *c)
{
    unsigned t = g->o.header_ms;
    if (c->cls != EM_CONN_ORDINARY && (!t || t > EM_GUARD_SHORT_HEADER_MS))
        t = EM_GUARD_SHORT_HEADER_MS;
    return t;
}

/* Counts a refusal; the first of an episode is described in lines. Under the lock. */
static void note_locked(struct em_guard *g, enum em_refusal kind, const char *remote,
                        int64_t now, struct nd_buf *lines)
{
    struct episode *ep = &g->ep[kind];
    ep->count++;
    ep->last_ms = now;
    if (ep->open)
        return;
    ep->open = true;
    ep->count = 1;
    ep->first_ms = now;
    const char *who = remote && *remote ? remote : "an unknown address";
    nd_buf_adds(lines, "slow clients: ");
    switch (kind) {
    case EM_REFUSE_HEADERS:
        nd_buf_addf(lines, "closed a connection from %s whose request headers were not all in "
                           "within --header-timeout (%gs; %gs past the ordinary slots)",
                    who, secs(g->o.header_ms), secs(EM_GUARD_SHORT_HEADER_MS));
        break;
    case EM_REFUSE_BODY:
        nd_buf_addf(lines, "closed a connection from %s whose request body came slower than "
                           "--min-body-rate (%llu bytes a second over %gs)",
                    who, (unsigned long long)g->o.min_body_rate, secs(g->o.body_window_ms));
        break;
    case EM_REFUSE_CAPACITY:
        nd_buf_addf(lines, "refused a request from %s: the %u connections of --max-connections "
                           "are taken (the last %u serve only health checks and admin tokens)",
                    who, g->o.max_conns, g->o.reserve);
        break;
    default:
        nd_buf_addf(lines, "refused a request from %s: it has %u connections open, the cap of "
                           "--max-connections-per-client",
                    who, g->o.per_client);
        break;
    }
    nd_buf_addf(lines, "; more are counted, not logged, until none comes for %ds\n",
                EM_GUARD_QUIET_MS / 1000);
}

static void end_episodes(struct em_guard *g, int64_t now, struct nd_buf *lines)
{
    static const char *const what[EM_REFUSE_KINDS] = {
        "connections closed for --header-timeout", "connections closed for --min-body-rate",
        "requests refused for --max-connections",
        "requests refused for --max-connections-per-client"};
    for (int k = 0; k < EM_REFUSE_KINDS; k++) {
        struct episode *ep = &g->ep[k];
        if (!ep->open || now - ep->last_ms < EM_GUARD_QUIET_MS)
            continue;
        ep->open = false;
        nd_buf_addf(lines, "slow clients: %llu %s in %llds; none since for %ds\n",
                    (unsigned long long)ep->count, what[k],
                    (long long)((ep->last_ms - ep->first_ms + 999) / 1000),
                    EM_GUARD_QUIET_MS / 1000);
    }
}

void em_guard_note(struct em_guard *g, enum em_refusal kind, const char *remote)
{
    if (!g)
        return;
    struct nd_buf lines = ND_BUF_INIT;
    pthread_mutex_lock(&g->lock);
    note_locked(g, kind, remote, nd_time_mono_ms(), &lines);
    pthread_mutex_unlock(&g->lock);
    emit(g, &lines);
}

/* The 408 written on a plain connection before it is closed. */
static void answer_timeout(struct em_guard *g, struct em_guard_conn *c, enum em_refusal kind,
                           uint64_t got, int64_t span_ms)
{
    struct nd_status st = ND_STATUS_INIT;
    if (kind == EM_REFUSE_HEADERS)
        nd_status_set(&st, "RequestTimeout",
                      "send the request line and headers at once; a client on a slow link "
                      "needs an emulator started with a longer --header-timeout",
                      "the request headers were not all in within %gs of the connection's "
                      "first byte",
                      secs(header_limit_ms(g, c)));
    else
        nd_status_set(&st, "RequestTimeout",
                      "send the body without pausing; a slow uploader needs an emulator "
                      "started with a lower --min-body-rate or a longer --body-rate-window",
                      "the request body brought %llu bytes in %gs, below the minimum of %llu "
                      "bytes a second (--min-body-rate)",
                      (unsigned long long)got, (double)span_ms / 1000.0,
                      (unsigned long long)g->o.min_body_rate);
    char ulid[ND_ULID_LEN + 1];
    nd_ulid_new(ulid);
    st.request_id = nd_xasprintf("req_%s", ulid);
    if (g->docs)
        st.docs = nd_status_docs_url(g->docs, st.reason);
    json_t *j = nd_status_to_json(&st);
    char *body = json_dumps(j, JSON_COMPACT);
    struct nd_buf out = ND_BUF_INIT;
    nd_buf_addf(&out,
                "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
                "Content-Length: %zu\r\nConnection: close\r\nX-Request-Id: %s\r\n"
                "X-Content-Type-Options: nosniff\r\nCache-Control: no-cache, private\r\n\r\n"
                "%s\n",
                strlen(body ? body : "") + 1, st.request_id, body ? body : "");
    /* the connection's thread is waiting to read, not writing: a short answer fits in the
     * socket's buffer; one that does not is cut (the close follows anyway) */
    ssize_t n = send(c->fd, out.data, out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n;
    nd_buf_release(&out);
    free(body);
    json_decref(j);
    nd_status_release(&st);
}

/* Closes c under the lock: its thread, waiting to read, sees the end and lets it go. */
static void cut(struct em_guard *g, struct em_guard_conn *c, enum em_refusal kind, int64_t now,
                struct nd_buf *lines)
{
    c->cut = true;
    if (!g->tls) {
        uint64_t got = atomic_load(&c->body_bytes) - c->win_bytes;
        answer_timeout(g, c, kind, got, now - c->since_ms);
    }
    shutdown(c->fd, SHUT_RDWR);
    note_locked(g, kind, c->remote, now, lines);
    timed_update(g, c); /* nothing more to time: its thread lets it go */
}

/* A connection between requests: has a byte of the next one come? */
static bool next_request_began(const struct em_guard_conn *c, int64_t now)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_last_data_recv) + sizeof ti.tcpi_last_data_recv)
        return false;
    return now - (int64_t)ti.tcpi_last_data_recv > c->since_ms + NEXT_REQUEST_SLACK_MS;
}

static void check(struct em_guard *g, struct em_guard_conn *c, int64_t now, struct nd_buf *lines)
{
    if (c->cut)
        return;
    if (c->phase == PH_IDLE && next_request_began(c, now)) {
        c->phase = PH_HEADERS;
        c->since_ms = now;
    }
    if (c->phase == PH_HEADERS) {
        unsigned limit = header_limit_ms(g, c);
        if (limit && now - c->since_ms >= (int64_t)limit)
            cut(g, c, EM_REFUSE_HEADERS, now, lines);
        return;
    }
    if (c->phase != PH_BODY || !g->o.min_body_rate || now - c->since_ms < g->o.body_window_ms)
        return;
    uint64_t bytes = atomic_load(&c->body_bytes);
    double want = (double)g->o.min_body_rate * (double)(now - c->since_ms) / 1000.0;
    if ((double)(bytes - c->win_bytes) < want) {
        cut(g, c, EM_REFUSE_BODY, now, lines);
        return;
    }
    c->since_ms = now;
    c->win_bytes = bytes;
}

static void *watchdog(void *arg)
{
    struct em_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        struct timespec until;
        nd_time_deadline(&until, TICK_MS);
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
        if (g->stopping)
            break;
        int64_t now = nd_time_mono_ms();
        struct nd_buf lines = ND_BUF_INIT;
        for (struct em_guard_conn *c = g->timed, *next; c; c = next) {
            next = c->tnext; /* a cut takes c off the list */
            g->looked++;
            check(g, c, now, &lines);
        }
        end_episodes(g, now, &lines);
        if (lines.len) {
            pthread_mutex_unlock(&g->lock);
            emit(g, &lines);
            pthread_mutex_lock(&g->lock);
        }
        nd_buf_release(&lines);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

int em_guard_start(struct em_guard *g)
{
    if (pthread_create(&g->thread, NULL, watchdog, g) != 0)
        return -1;
    g->running = true;
    return 0;
}

void em_guard_free(struct em_guard *g)
{
    if (!g)
        return;
    if (g->running) {
        pthread_mutex_lock(&g->lock);
        g->stopping = true;
        pthread_cond_broadcast(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
    }
    while (g->head) {
        struct em_guard_conn *c = g->head;
        g->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g->docs);
    free(g);
}

static bool same_client(const struct em_guard_conn *a, const struct em_guard_conn *b)
{
    return a->family == b->family && memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

struct em_guard_conn *em_guard_open(struct em_guard *g, int fd, const struct sockaddr *peer)
{
    struct em_guard_conn *c = nd_xcalloc(1, sizeof *c);
    c->fd = fd;
    c->phase = PH_HEADERS;
    c->since_ms = nd_time_mono_ms();
    if (peer && peer->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)peer;
        c->family = AF_INET;
        memcpy(c->addr, &in->sin_addr, sizeof in->sin_addr);
        inet_ntop(AF_INET, &in->sin_addr, c->remote, sizeof c->remote);
    } else if (peer && peer->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)peer;
        c->family = AF_INET6;
        memcpy(c->addr, &in6->sin6_addr, sizeof in6->sin6_addr);
        inet_ntop(AF_INET6, &in6->sin6_addr, c->remote, sizeof c->remote);
    }
    pthread_mutex_lock(&g->lock);
    /* A connection refused a slot (past its client's cap, or past max_conns) holds none:
     * it lives 2 s at most without its headers, then one request, so that a client
     * holding its cap of slow connections cannot also crowd out the other addresses. */
    unsigned same = 0;
    if (g->o.per_client)
        for (const struct em_guard_conn *o = g->head; o; o = o->next)
            same += o->holds && same_client(o, c);
    if (g->o.per_client && same >= g->o.per_client)
        c->cls = EM_CONN_CLIENT_CAP;
    else if (g->held >= g->o.max_conns)
        c->cls = EM_CONN_OVER;
    else if (g->held >= g->o.max_conns - g->o.reserve)
        c->cls = EM_CONN_RESERVE;
    c->holds = c->cls == EM_CONN_ORDINARY || c->cls == EM_CONN_RESERVE;
    g->held += c->holds;
    c->next = g->head;
    if (g->head)
        g->head->prev = c;
    g->head = c;
    timed_update(g, c);
    pthread_mutex_unlock(&g->lock);
    return c;
}

void em_guard_close(struct em_guard *g, struct em_guard_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        g->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->phase = PH_BUSY; /* off g->timed */
    timed_update(g, c);
    g->held -= c->holds;
    pthread_mutex_unlock(&g->lock);
    free(c);
}

uint64_t em_guard_looked(struct em_guard *g)
{
    if (!g)
        return 0;
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->looked;
    pthread_mutex_unlock(&g->lock);
    return n;
}

enum em_conn_class em_guard_class(const struct em_guard_conn *c)
{
    return c ? c->cls : EM_CONN_ORDINARY;
}

unsigned em_guard_client_conns(struct em_guard *g, const struct em_guard_conn *c)
{
    unsigned n = 0;
    if (!c)
        return 0;
    pthread_mutex_lock(&g->lock);
    for (const struct em_guard_conn *o = g->head; o; o = o->next)
        n += same_client(o, c);
    pthread_mutex_unlock(&g->lock);
    return n;
}

static void set_phase(struct em_guard *g, struct em_guard_conn *c, enum phase ph, bool restart)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    if (!c->upgraded && (restart || c->phase != ph)) {
        c->phase = ph;
        c->since_ms = nd_time_mono_ms();
        c->win_bytes = atomic_load(&c->body_bytes);
        timed_update(g, c);
    }
    pthread_mutex_unlock(&g->lock);
}

void em_guard_request_line(struct em_guard *g, struct em_guard_conn *c)
{
    if (!c)
        return;
    /* the deadline of a request whose first bytes the watchdog saw already runs */
    pthread_mutex_lock(&g->lock);
    if (c->phase == PH_IDLE) {
        c->phase = PH_HEADERS;
        c->since_ms = nd_time_mono_ms();
    }
    pthread_mutex_unlock(&g->lock);
}

void em_guard_headers_in(struct em_guard *g, struct em_guard_conn *c, bool body)
{
    set_phase(g, c, body ? PH_BODY : PH_BUSY, true);
}

void em_guard_body(struct em_guard_conn *c, size_t n)
{
    if (c)
        atomic_fetch_add(&c->body_bytes, (uint64_t)n);
}

void em_guard_answering(struct em_guard *g, struct em_guard_conn *c)
{
    set_phase(g, c, PH_BUSY, false);
}

void em_guard_upgraded(struct em_guard *g, struct em_guard_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    c->phase = PH_BUSY;
    c->upgraded = true;
    timed_update(g, c);
    pthread_mutex_unlock(&g->lock);
}

void em_guard_done(struct em_guard *g, struct em_guard_conn *c)
{
    set_phase(g, c, PH_IDLE, true);
}
