/* Handlers on workers, streams on the loop, the ticker; see loop.h. */
#include "loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/time.h"
#include "util/xmalloc.h"

#define WORKER_IDLE_MS 3000 /* an idle worker leaves after this */
#define TICK_MS 100
#define PEEK_MS 1000       /* a suspended stream's socket is looked at this often */
#define PUMP_CAP (64 * 1024) /* a pump reads ahead at most this */
#define STOP_WAIT_MS 15000

struct job {
    struct job *next;
    void (*fn)(void *cls);
    void *cls;
};

struct em_live {
    struct em_loop *l;
    struct MHD_Connection *c;
    struct em_stream *s;
    struct em_live *prev, *next; /* l->lives */
    struct em_live *tprev, *tnext; /* l->timed, while on it */
    bool timed;                  /* suspended with a wake_at_ms or a peek due: on l->timed */
    bool suspended;              /* c is suspended, waiting for a wake */
    bool woken;                  /* a wake came since the last read began */
    bool closed;                 /* MHD is done with it */
    bool watched;                /* its socket is on l->hangups: no peeks needed */
    int refs;                    /* MHD's, and the pump's while it runs */
    int64_t next_peek_ms;
    /* a blocking stream's pump */
    bool pumped;
    int pump_end; /* 0: running; 1: the stream ended; -1: it failed */
    pthread_cond_t room;
    struct nd_buf ahead;
    size_t sent;
};

struct em_loop {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* a job queued, or stopping */
    pthread_cond_t settled; /* a job, a worker or a pump ended */
    pthread_cond_t tick;    /* the ticker's sleep: stopping */
    struct job *head, *tail;
    unsigned workers, idle, queued, jobs, pumps;
    struct em_live *lives;
    struct em_live *timed; /* the suspended streams the ticker looks at: not all */
    bool stopping, ticking;
    pthread_t ticker;
    int hangups; /* epoll of the streams' sockets, for a client's hang-up (-1: none) */
    struct em_live **by_fd; /* the live stream of a socket on hangups, by its number */
    size_t by_fd_len;
};

struct em_loop *em_loop_new(void)
{
    struct em_loop *l = nd_xcalloc(1, sizeof *l);
    l->hangups = epoll_create1(EPOLL_CLOEXEC);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->work, NULL);
    pthread_cond_init(&l->settled, NULL);
    pthread_cond_init(&l->tick, NULL);
    return l;
}

static void timed_remove(struct em_live *lv)
{
    struct em_loop *l = lv->l;
    if (!lv->timed)
        return;
    if (lv->tprev)
        lv->tprev->tnext = lv->tnext;
    else
        l->timed = lv->tnext;
    if (lv->tnext)
        lv->tnext->tprev = lv->tprev;
    lv->timed = false;
}

/* l->mu held, lv just suspended: on l->timed if the ticker has something to look at (a
 * wake_at_ms, a peek due); ten thousand watches waiting for news are not walked. */
static void suspended_locked(struct em_live *lv)
{
    struct em_loop *l = lv->l;
    lv->suspended = true;
    if (lv->timed || (!lv->s->wake_at_ms && lv->watched && lv->next_peek_ms))
        return;
    lv->timed = true;
    lv->tprev = NULL;
    lv->tnext = l->timed;
    if (l->timed)
        l->timed->tprev = lv;
    l->timed = lv;
}

/* l->mu held: resumes lv's connection if it waits for this. */
static void wake_locked(struct em_live *lv)
{
    lv->woken = true;
    timed_remove(lv);
    if (lv->suspended && !lv->closed) {
        lv->suspended = false;
        MHD_resume_connection(lv->c);
    }
}

void em_stream_wake(struct em_stream *s)
{
    em_stream_wake_many(&s, 1);
}

size_t em_stream_wake_mark(struct em_stream *const *s, size_t n, void **resume)
{
    struct em_loop *l = NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct em_live *lv = s[i] ? s[i]->live : NULL;
        if (!lv)
            continue;
        if (lv->l != l) { /* one loop in practice: its lock once for all */
            if (l)
                pthread_mutex_unlock(&l->mu);
            l = lv->l;
            pthread_mutex_lock(&l->mu);
        }
        lv->woken = true;
        timed_remove(lv);
        if (lv->suspended && !lv->closed) {
            /* ours to resume: a suspended connection is neither read nor freed */
            lv->suspended = false;
            resume[k++] = lv->c;
        }
    }
    if (l)
        pthread_mutex_unlock(&l->mu);
    return k;
}

void em_stream_wake_resume(void *const *resume, size_t k)
{
    for (size_t i = 0; i < k; i++)
        MHD_resume_connection(resume[i]);
}

void em_stream_wake_many(struct em_stream *const *s, size_t n)
{
    void *resume[64];
    while (n) {
        size_t m = n < 64 ? n : 64;
        em_stream_wake_resume(resume, em_stream_wake_mark(s, m, resume));
        s += m;
        n -= m;
    }
}

/* What a job's handler asked to run after its answer (em_http_after_answer). */
#define AFTER_MAX 4
struct after {
    void (*fn)(void *cls);
    void *cls;
};
static _Thread_local struct after *tl_after; /* NULL: not in a job */
static _Thread_local size_t tl_after_n;

bool em_http_after_answer(void (*fn)(void *cls), void *cls)
{
    if (!tl_after)
        return false;
    for (size_t i = 0; i < tl_after_n; i++)
        if (tl_after[i].fn == fn && tl_after[i].cls == cls)
            return true;
    if (tl_after_n == AFTER_MAX)
        return false;
    tl_after[tl_after_n++] = (struct after){fn, cls};
    return true;
}

bool em_loop_after_pending(void)
{
    return tl_after_n > 0;
}

/* A job: fn (a handler, which resumes its connection last: http.c's run_handler), then
 * what it asked to run after its answer. */
static void run_job(void (*fn)(void *cls), void *cls)
{
    struct after after[AFTER_MAX];
    tl_after = after;
    tl_after_n = 0;
    fn(cls);
    tl_after = NULL;
    for (size_t i = 0; i < tl_after_n; i++)
        after[i].fn(after[i].cls);
    tl_after_n = 0;
}

/* l->mu held: one look at a suspended stream (the ticker's). */
static void tick_one(struct em_live *lv, int64_t now)
{
    int64_t at = lv->s->wake_at_ms;
    if (at && now >= at) {
        wake_locked(lv);
        return;
    }
    if (now < lv->next_peek_ms || (lv->watched && lv->next_peek_ms))
        return;
    lv->next_peek_ms = now + PEEK_MS;
    if (em_stream_gone(lv->s)) {
        __atomic_store_n(&lv->s->gone, true, __ATOMIC_RELAXED);
        wake_locked(lv);
    } else if (!at && lv->watched) {
        timed_remove(lv); /* nothing more to look at until its next hang-up */
    }
}

static void *ticker(void *arg)
{
    struct em_loop *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->stopping) {
        struct epoll_event ev[64];
        int n = 0;
        if (l->hangups >= 0) { /* a hang-up is looked at now, not at its next peek */
            pthread_mutex_unlock(&l->mu);
            n = epoll_wait(l->hangups, ev, 64, TICK_MS);
            pthread_mutex_lock(&l->mu);
        } else {
            struct timespec ts;
            nd_time_deadline(&ts, TICK_MS);
            pthread_cond_timedwait(&l->tick, &l->mu, &ts);
        }
        int64_t now = nd_time_now_ms();
        for (int i = 0; i < n; i++) { /* a peek now (or once it waits) */
            int fd = ev[i].data.fd;
            struct em_live *lv = fd >= 0 && (size_t)fd < l->by_fd_len ? l->by_fd[fd] : NULL;
            if (lv) {
                lv->next_peek_ms = 0;
                if (lv->suspended)
                    tick_one(lv, now);
            }
        }
        for (struct em_live *lv = l->timed, *next; lv; lv = next) {
            next = lv->tnext; /* a wake takes lv off the list */
            tick_one(lv, now);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

int em_loop_start(struct em_loop *l)
{
    if (pthread_create(&l->ticker, NULL, ticker, l) != 0)
        return -1;
    l->ticking = true;
    return 0;
}

/* Waits (l->mu held) until nothing runs, or until; false when something still does. */
static bool settle(struct em_loop *l, const struct timespec *until)
{
    while (l->jobs || l->workers || l->pumps)
        if (pthread_cond_timedwait(&l->settled, &l->mu, until) != 0)
            break;
    return !l->jobs && !l->workers && !l->pumps;
}

bool em_loop_stop(struct em_loop *l)
{
    struct timespec until;
    nd_time_deadline(&until, STOP_WAIT_MS);
    pthread_mutex_lock(&l->mu);
    l->stopping = true;
    pthread_cond_broadcast(&l->work);
    pthread_cond_broadcast(&l->tick);
    for (struct em_live *lv = l->lives; lv; lv = lv->next) {
        pthread_cond_broadcast(&lv->room);
        wake_locked(lv);
    }
    bool done = settle(l, &until);
    pthread_mutex_unlock(&l->mu);
    if (l->ticking)
        pthread_join(l->ticker, NULL);
    l->ticking = false;
    return done;
}

void em_loop_free(struct em_loop *l)
{
    if (!l)
        return;
    if (l->hangups >= 0)
        close(l->hangups);
    free(l->by_fd);
    pthread_cond_destroy(&l->tick);
    pthread_cond_destroy(&l->settled);
    pthread_cond_destroy(&l->work);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* --- workers --- */

static void *worker(void *arg)
{
    struct em_loop *l = arg;
    prctl(PR_SET_NAME, "em-worker"); /* for top -H, perf and tests/emulator/57-watch-loop */
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->head && !l->stopping) {
            struct timespec ts;
            nd_time_deadline(&ts, WORKER_IDLE_MS);
            l->idle++;
            int rc = pthread_cond_timedwait(&l->work, &l->mu, &ts);
            l->idle--;
            if (rc == ETIMEDOUT && !l->head)
                break;
        }
        struct job *j = l->head;
        if (!j)
            break;
        l->head = j->next;
        if (!l->head)
            l->tail = NULL;
        l->queued--;
        pthread_mutex_unlock(&l->mu);
        run_job(j->fn, j->cls);
        free(j);
        pthread_mutex_lock(&l->mu);
        l->jobs--;
        pthread_cond_broadcast(&l->settled);
    }
    l->workers--;
    pthread_cond_broadcast(&l->settled);
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* A thread more, detached. */
static bool spawn(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    bool ok = pthread_create(&t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

bool em_loop_dispatch(struct em_loop *l, struct MHD_Connection *c, void (*fn)(void *cls),
                      void *cls)
{
    struct job *j = nd_xcalloc(1, sizeof *j);
    j->fn = fn;
    j->cls = cls;
    pthread_mutex_lock(&l->mu);
    if (l->stopping) {
        pthread_mutex_unlock(&l->mu);
        free(j);
        return false;
    }
    /* suspended before any worker can resume it */
    MHD_suspend_connection(c);
    l->jobs++;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
    l->queued++;
    /* a job never waits for another's end: a worker each while none is idle; the idle
     * one is woken once the lock is let go (else it wakes to wait for the lock: two
     * thread switches instead of one) */
    bool wake = l->queued <= l->idle;
    if (!wake && spawn(worker, l))
        l->workers++;
    else if (!wake && !l->workers) {
        /* no thread at all: run it here (the loop waits, as it must) */
        l->head = l->tail = NULL;
        l->queued--;
        pthread_mutex_unlock(&l->mu);
        run_job(fn, cls);
        free(j);
        pthread_mutex_lock(&l->mu);
        l->jobs--;
    }
    pthread_mutex_unlock(&l->mu);
    if (wake)
        pthread_cond_signal(&l->work);
    return true;
}

/* --- streams --- */

struct em_live *em_live_new(struct em_loop *l, struct em_stream *s, struct MHD_Connection *c)
{
    struct em_live *lv = nd_xcalloc(1, sizeof *lv);
    lv->l = l;
    lv->c = c;
    lv->s = s;
    lv->refs = 1;
    s->live = lv;
    pthread_cond_init(&lv->room, NULL);
    nd_buf_init(&lv->ahead, 0);
    pthread_mutex_lock(&l->mu);
    lv->next_peek_ms = nd_time_now_ms() + PEEK_MS;
    if (l->hangups >= 0 && s->fd >= 0) {
        /* edge-triggered: once per hang-up; the registration goes when the socket
         * closes, so a number reused by a new socket is added again */
        struct epoll_event ev = {.events = EPOLLRDHUP | EPOLLET, .data.fd = s->fd};
        int rc = epoll_ctl(l->hangups, EPOLL_CTL_ADD, s->fd, &ev);
        if (rc < 0 && errno == EEXIST)
            rc = epoll_ctl(l->hangups, EPOLL_CTL_MOD, s->fd, &ev);
        if (rc == 0 && (size_t)s->fd >= l->by_fd_len) {
            size_t len = l->by_fd_len ? l->by_fd_len : 1024;
            while (len <= (size_t)s->fd)
                len *= 2;
            l->by_fd = nd_xrealloc(l->by_fd, len * sizeof *l->by_fd);
            memset(l->by_fd + l->by_fd_len, 0, (len - l->by_fd_len) * sizeof *l->by_fd);
            l->by_fd_len = len;
        }
        if (rc == 0) { /* a hang-up is seen at once: no peek once a second */
            l->by_fd[s->fd] = lv;
            lv->watched = true;
        }
    }
    lv->next = l->lives;
    if (l->lives)
        l->lives->prev = lv;
    l->lives = lv;
    pthread_mutex_unlock(&l->mu);
    return lv;
}

/* l->mu held: drops a reference; the last frees lv and its stream. */
static void unref_locked(struct em_live *lv)
{
    if (--lv->refs)
        return;
    struct em_loop *l = lv->l;
    timed_remove(lv);
    if (lv->watched && l->by_fd[lv->s->fd] == lv)
        l->by_fd[lv->s->fd] = NULL;
    if (lv->prev)
        lv->prev->next = lv->next;
    else
        l->lives = lv->next;
    if (lv->next)
        lv->next->prev = lv->prev;
    pthread_mutex_unlock(&l->mu);
    struct em_stream *s = lv->s;
    if (s->free)
        s->free(s->cls);
    free(s);
    pthread_cond_destroy(&lv->room);
    nd_buf_release(&lv->ahead);
    free(lv);
    pthread_mutex_lock(&l->mu);
}

/* A blocking stream's reader: read ahead into lv->ahead, wake the loop. */
static void *pump(void *arg)
{
    struct em_live *lv = arg;
    struct em_loop *l = lv->l;
    char chunk[16 * 1024];
    pthread_mutex_lock(&l->mu);
    while (!lv->closed && !lv->pump_end) {
        while (lv->ahead.len - lv->sent >= PUMP_CAP && !lv->closed && !l->stopping)
            pthread_cond_wait(&lv->room, &l->mu);
        if (lv->closed)
            break;
        pthread_mutex_unlock(&l->mu);
        ssize_t n = lv->s->read(lv->s->cls, chunk, sizeof chunk);
        pthread_mutex_lock(&l->mu);
        if (n > 0)
            nd_buf_add(&lv->ahead, chunk, (size_t)n);
        else
            lv->pump_end = n == 0 ? 1 : -1;
        wake_locked(lv);
    }
    unref_locked(lv);
    l->pumps--;
    pthread_cond_broadcast(&l->settled);
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* l->mu held: what the pump read ahead, its end, or 0 (and a pump started if none). */
static ssize_t read_ahead(struct em_live *lv, char *buf, size_t max)
{
    if (!lv->pumped) {
        lv->pumped = true;
        lv->refs++;
        if (!spawn(pump, lv)) {
            lv->refs--;
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        lv->l->pumps++;
    }
    size_t n = nd_buf_take(&lv->ahead, &lv->sent, buf, max);
    if (n) {
        pthread_cond_signal(&lv->room);
        return (ssize_t)n;
    }
    if (lv->pump_end)
        return lv->pump_end > 0 ? MHD_CONTENT_READER_END_OF_STREAM
                                : MHD_CONTENT_READER_END_WITH_ERROR;
    return 0;
}

/* A non-blocking stream's bytes, end, or 0 with c suspended until a wake. */
static ssize_t read_now(struct em_live *lv, char *buf, size_t max)
{
    struct em_loop *l = lv->l;
    for (;;) {
        pthread_mutex_lock(&l->mu);
        lv->woken = false;
        bool stopping = l->stopping;
        pthread_mutex_unlock(&l->mu);
        if (stopping)
            return MHD_CONTENT_READER_END_OF_STREAM;
        lv->s->wake_at_ms = 0;
        ssize_t n = lv->s->read(lv->s->cls, buf, max);
        if (n > 0)
            return n;
        if (n == 0)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (n != EM_STREAM_AGAIN)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        pthread_mutex_lock(&l->mu);
        if (!lv->woken && !l->stopping) {
            suspended_locked(lv);
            MHD_suspend_connection(lv->c);
            pthread_mutex_unlock(&l->mu);
            return 0;
        }
        pthread_mutex_unlock(&l->mu);
    }
}

ssize_t em_live_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct em_live *lv = cls;
    struct em_loop *l = lv->l;
    if (lv->s->nonblocking)
        return read_now(lv, buf, max);
    pthread_mutex_lock(&l->mu);
    ssize_t n = read_ahead(lv, buf, max);
    if (n == 0 && l->stopping && !l->pumps)
        n = MHD_CONTENT_READER_END_OF_STREAM;
    if (n == 0) {
        /* the pump wakes us; it may already have: then read again at once */
        if (lv->woken && (lv->ahead.len > lv->sent || lv->pump_end)) {
            lv->woken = false;
            n = read_ahead(lv, buf, max);
        }
        if (n == 0) {
            lv->woken = false;
            suspended_locked(lv);
            MHD_suspend_connection(lv->c);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return n;
}

void em_live_free(void *cls)
{
    struct em_live *lv = cls;
    struct em_loop *l = lv->l;
    pthread_mutex_lock(&l->mu);
    lv->closed = true;
    /* the socket closes: a blocking read still running sees the client gone */
    __atomic_store_n(&lv->s->gone, true, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&lv->room);
    unref_locked(lv);
    pthread_mutex_unlock(&l->mu);
}
