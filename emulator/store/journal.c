/* The write-ahead log and its group commit; see journal.h. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "util/time.h"
#include "util/xmalloc.h"

#include "torture.h"

/* POSIX (XSI) sync(); unistd.h declares it only outside strict POSIX */
void sync(void);

/* batch: how long a leader waits for more records at most, and how often it looks */
#define BATCH_WAIT_US 1000
#define BATCH_STEP_US 100
/* the thread commits what nobody waited for after this long */
#define LATE_COMMIT_US 2000

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Flushes the directory holding path (a rename in it): 0 or -1 with errno. */
static int fsync_parent(const char *path)
{
    char *dir = nd_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int rc = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        rc = fsync(fd);
        int e = errno;
        close(fd);
        errno = e;
    }
    free(dir);
    return rc;
}

int em_write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)n;
    }
    return 0;
}

int em_write_atomic(const char *path, const char *data, size_t len, bool flush)
{
    static _Atomic unsigned long seq; /* the server's threads and the file writer */
    char *tmp = nd_xasprintf("%s.tmp-%ld-%lu", path, (long)getpid(), ++seq);
    int fd = em_open_making_dir(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        goto fail;
    if (em_write_all(fd, data, len) < 0 || (flush && fsync(fd) < 0)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        goto fail;
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        goto fail;
    }
    if (flush && fsync_parent(path) < 0)
        goto fail;
    free(tmp);
    return 0;
fail:
    free(tmp);
    return -1;
}

static int marker(char *out, size_t cap, int64_t applied)
{
    return snprintf(out, cap, "{\"wall\":%lld,\"applied\":%lld}\n", (long long)wall_us(),
                    (long long)applied);
}

int em_journal_open(struct em_journal *w, const char *path, enum em_fsync mode, int64_t applied_rev,
                struct nd_buf *err)
{
    memset(w, 0, sizeof *w);
    w->fd = w->dir_fd = -1;
    w->path = nd_xstrdup(path);
    w->mode = mode;
    w->applied_rev = w->appended_rev = w->durable_rev = w->written_rev = applied_rev;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    pthread_cond_init(&w->files_cond, NULL);
    pthread_cond_init(&w->late_cond, NULL);
    pthread_cond_init(&w->flush_cond, NULL);
    w->spares_free = EM_JOURNAL_SPARES;
    w->queued_rev = applied_rev;
    w->spare = nd_xasprintf("%s.spare", path);
    const char *no_exchange = getenv("NODUS_EMULATOR_TEST_RENAME_FILES");
    w->no_exchange = no_exchange && *no_exchange && strcmp(no_exchange, "0") != 0;
    char *dir = nd_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    em_mkdir_p(dir);
    if (mode != EM_FSYNC_NEVER)
        w->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    w->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        nd_buf_addf(err, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    w->size = fstat(w->fd, &sb) == 0 ? sb.st_size : 0;
    return 0;
}

static void *late_main(void *arg)
{
    struct em_journal *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        if (w->appended > w->flushed && !w->flushing) {
            uint64_t seen = w->appended;
            pthread_mutex_unlock(&w->lock);
            /* the writer usually commits it itself first */
            sleep_us(EM_TORTURE_ACK_EARLY ? 200000 : LATE_COMMIT_US);
            em_journal_commit(w, seen);
            if (w->notify)
                w->notify(w->notify_ctx);
            pthread_mutex_lock(&w->lock);
            continue;
        }
        struct timespec ts;
        nd_time_deadline(&ts, 100);
        /* woken by an append only from here: while records keep coming it looks again
         * every LATE_COMMIT_US instead */
        w->late_idle = true;
        pthread_cond_timedwait(&w->late_cond, &w->lock, &ts);
        w->late_idle = false;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int em_journal_start_thread(struct em_journal *w)
{
    if (w->thread_running)
        return 0;
    /* tests only: the files wait until a stop (or a rewrite of the log), so a test can
     * see an answer come before its file and a kill -9 leave the file to the next start */
    const char *hold = getenv("NODUS_EMULATOR_TEST_HOLD_FILES");
    w->hold_files = hold && *hold && strcmp(hold, "0") != 0;
    if (em_journal_start_flusher(w) < 0)
        return -1;
    if (pthread_create(&w->files, NULL, em_journal_files_main, w) != 0) {
        em_journal_stop_files(w); /* (the flusher) */
        return -1;
    }
    pthread_mutex_lock(&w->lock);
    w->files_running = true;
    pthread_mutex_unlock(&w->lock);
    if (pthread_create(&w->thread, NULL, late_main, w) != 0) {
        em_journal_stop_files(w);
        return -1;
    }
    w->thread_running = true;
    return 0;
}

uint64_t em_journal_append(struct em_journal *w, int64_t rev, const char *line, size_t len,
                       struct em_journal_op *op)
{
    pthread_mutex_lock(&w->lock);
    nd_buf_add(&w->buf, line, len);
    nd_buf_addch(&w->buf, '\n');
    if (op) {
        if (w->nops == w->capops) {
            w->capops = w->capops ? w->capops * 2 : 64;
            w->ops = nd_xrealloc(w->ops, w->capops * sizeof *w->ops);
        }
        w->ops[w->nops++] = *op;
        memset(op, 0, sizeof *op);
    }
    if (rev > w->appended_rev)
        w->appended_rev = rev;
    uint64_t ticket = ++w->appended;
    /* the late thread only, when it is idle: a committer waits for a flush to end. Not
     * while a flush runs: its end wakes the late thread for what came meanwhile
     * (end_flush), and a wake per create in between was one thread switch each */
    if (w->late_idle && !w->flushing)
        pthread_cond_signal(&w->late_cond);
    pthread_mutex_unlock(&w->lock);
    return ticket;
}

void em_journal_hold(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    if (!w->held) {
        w->held = true;
        w->holder = pthread_self();
        w->hold_from = w->appended;
        w->hold_len = w->buf.len;
        w->hold_nops = w->nops;
        w->hold_rev = w->appended_rev;
    }
    pthread_mutex_unlock(&w->lock);
}

void em_journal_unhold(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    if (w->held && pthread_equal(w->holder, pthread_self())) {
        w->held = false;
        if (w->appended > w->hold_from) {
            pthread_cond_broadcast(&w->cond); /* commits that waited for the group */
            if (w->late_idle && !w->flushing) /* else the flush's end wakes it */
                pthread_cond_signal(&w->late_cond);
        }
    }
    pthread_mutex_unlock(&w->lock);
}

/* Whether another thread's group holds back the records after hold_from. Lock held. */
static bool held_back(const struct em_journal *w)
{
    return w->held && !pthread_equal(w->holder, pthread_self());
}

uint64_t em_journal_ticket(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    uint64_t t = w->appended;
    pthread_mutex_unlock(&w->lock);
    return t;
}

/* One leader's batch: what it takes from the log under the lock, then writes without it. */
struct batch {
    struct nd_buf data;      /* the records' lines */
    struct em_journal_op *ops;   /* their file writes, in order */
    size_t nops;
    uint64_t first, target;  /* the records' numbers: first .. target */
    int64_t target_rev;      /* the newest record's revision */
    uint64_t nrec, seq;      /* how many records; the batch's turn for its file writes */
    bool doomed;             /* a batch after a failed one fails too (em_journal_recover) */
    off_t start;             /* the log's size before the batch */
    char head[80];           /* the applied-revision marker written first */
    int hn;
    size_t total;            /* the marker's and the lines' bytes */
};

/* In batch mode, while others are committing: lets those on their way join this flush,
 * for at most half of what the last flush took (a millisecond at most). Lock held. */
static void wait_for_joiners(struct em_journal *w)
{
    if (w->mode != EM_FSYNC_BATCH || w->waiters <= 1 || w->broken)
        return;
    long budget = w->last_sync_us / 2 < BATCH_WAIT_US ? w->last_sync_us / 2 : BATCH_WAIT_US;
    for (long waited = 0; waited < budget; waited += BATCH_STEP_US) {
        uint64_t before = w->appended;
        pthread_mutex_unlock(&w->lock);
        sleep_us(BATCH_STEP_US);
        pthread_mutex_lock(&w->lock);
        if (w->appended == before)
            break;
    }
}

/* Takes everything appended so far into b, but another thread's group (em_journal_hold).
 * Lock held. */
static void take_batch(struct em_journal *w, struct batch *b)
{
    b->first = w->flushed + 1;
    if (held_back(w)) {
        /* the records before the group (there are some: see em_journal_commit) */
        b->data = (struct nd_buf)ND_BUF_INIT;
        nd_buf_add(&b->data, w->buf.data, w->hold_len);
        memmove(w->buf.data, w->buf.data + w->hold_len, w->buf.len - w->hold_len);
        w->buf.len -= w->hold_len;
        if (w->buf.cap)
            w->buf.data[w->buf.len] = '\0';
        b->nops = w->hold_nops;
        b->ops = nd_xmalloc((b->nops ? b->nops : 1) * sizeof *b->ops);
        memcpy(b->ops, w->ops, b->nops * sizeof *b->ops);
        memmove(w->ops, w->ops + b->nops, (w->nops - b->nops) * sizeof *w->ops);
        w->nops -= b->nops;
        b->target = w->hold_from;
        b->target_rev = w->hold_rev;
        w->hold_len = w->hold_nops = 0;
    } else {
        b->data = w->buf;
        w->buf = (struct nd_buf)ND_BUF_INIT;
        b->ops = w->ops;
        b->nops = w->nops;
        w->ops = NULL;
        w->nops = w->capops = 0;
        b->target = w->appended;
        b->target_rev = w->appended_rev;
        if (w->held) { /* the holder flushes its own group so far: the rest is one */
            w->hold_from = w->appended;
            w->hold_len = w->hold_nops = 0;
            w->hold_rev = w->appended_rev;
        }
    }
    b->nrec = b->target - w->flushed;
    b->seq = w->batch_seq++;
    b->doomed = w->broken;
    b->start = w->size;
    b->hn = marker(b->head, sizeof b->head, w->applied_rev);
    b->total = (size_t)b->hn + b->data.len;
}

/* Appends the marker and the batch's lines to the log: 0, or the errno of the write (a
 * short append, on a full disk, is finished or reported). Without the lock. */
static int write_batch(struct em_journal *w, const struct batch *b)
{
    size_t hn = (size_t)b->hn, total = b->total;
    struct iovec iov[2] = {{(void *)b->head, hn}, {b->data.data, b->data.len}};
    ssize_t n;
    do
        n = writev(w->fd, iov, 2);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno;
    size_t done = (size_t)n;
    if (done >= total)
        return 0;
    if (done < hn) {
        if (em_write_all(w->fd, b->head + done, hn - done) < 0 ||
            em_write_all(w->fd, b->data.data, b->data.len) < 0)
            return errno;
    } else if (em_write_all(w->fd, b->data.data + (done - hn), total - done) < 0) {
        return errno;
    }
    return 0;
}

/* fdatasync of the log, timed into *us: 0 or its errno. Without the lock. */
static int sync_log(struct em_journal *w, int64_t *us)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int err = w->test_fail_sync ? ENOSPC : fdatasync(w->fd) < 0 ? errno : 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *us = (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
    return err;
}

/* Records the flush's outcome (err: the write's or the sync's errno; end: where the log
 * ends after a failed batch was dropped) and hands the log to the next leader. Lock held.
 * True when the batch failed. */
static bool end_flush(struct em_journal *w, const struct batch *b, int err, off_t end,
                      bool synced, int64_t sync_us)
{
    bool failed = b->doomed || err;
    if (err) {
        em_journal_note_error(w, w->path, err);
        /* the next batch goes where this one's bytes end (blank lines, when the cut back
         * failed), and the space allocated ahead is allocated again (a cut gives it back) */
        w->size = end;
        w->reserved = 0;
        if (!w->broken) {
            w->broken = true;
            w->broken_from = b->first;
        }
    }
    if (failed) {
        em_journal_fail_range(w, b->first, b->target);
    } else {
        w->size = b->start + (off_t)b->total;
        if (b->target_rev > w->durable_rev)
            w->durable_rev = b->target_rev;
        w->count.records += b->nrec;
        w->count.fsyncs += synced;
        if (b->nrec > w->count.max_batch)
            w->count.max_batch = b->nrec;
    }
    /* on disk (or failed): the next leader may flush while this one writes the files */
    w->flushed = b->target;
    if (synced)
        w->last_sync_us = sync_us;
    w->count.flushes++;
    w->flushing = false;
    pthread_cond_broadcast(&w->cond);
    if (w->late_idle && w->appended > w->flushed)
        pthread_cond_signal(&w->late_cond);
    return failed;
}

/* The leader's round: called with the lock held and flushing set; returns with the lock
 * held, its batch flushed and its file writes queued (written, without the writer). */
static void lead(struct em_journal *w)
{
    wait_for_joiners(w);
    struct batch b;
    take_batch(w, &b);
    pthread_mutex_unlock(&w->lock);
    if (EM_TORTURE_WATCH_EARLY)
        sleep_us(20000);

    if (w->stale) /* refused records an earlier cut left: blanked out before this batch */
        b.start = em_journal_blank_stale(w, b.start);
    int err = b.doomed ? 0 : write_batch(w, &b);
    bool synced = false;
    int64_t sync_us = 0;
    if (!b.doomed && !err && w->mode != EM_FSYNC_NEVER) {
        err = sync_log(w, &sync_us);
        synced = true;
    }
    /* none of a failed batch may come back: cut off, or blanked out, before the answer */
    off_t end = err ? em_journal_drop_batch(w, b.start) : b.start;
    nd_buf_release(&b.data);

    pthread_mutex_lock(&w->lock);
    bool failed = end_flush(w, &b, err, end, synced, sync_us);
    em_journal_queue(w, b.ops, b.nops, b.seq, b.target, b.target_rev, failed);
}

/* Whether ticket is as far as em_journal_commit waits: its record on disk (or failed),
 * and without the writer its files written too. Lock held. */
static bool acked(const struct em_journal *w, uint64_t ticket)
{
    return w->files_running ? w->flushed >= ticket : w->durable >= ticket;
}

int em_journal_commit(struct em_journal *w, uint64_t ticket)
{
    pthread_mutex_lock(&w->lock);
    w->waiters++;
    while (!acked(w, ticket) && !EM_TORTURE_ACK_EARLY) {
        if (w->flushing || w->flushed >= ticket || (held_back(w) && w->flushed >= w->hold_from)) {
            /* another leader has it (flushing it, or writing its files), or it waits for
             * the end of another thread's group */
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        w->flushing = true;
        lead(w);
    }
    w->waiters--;
    int rc = em_journal_ticket_failed(w, ticket) ? -1 : 0;
    int e = w->error ? w->error : EIO;
    pthread_mutex_unlock(&w->lock);
    if (rc < 0)
        errno = e;
    return rc;
}

bool em_journal_settled(struct em_journal *w, uint64_t ticket)
{
    pthread_mutex_lock(&w->lock);
    /* a change whose write failed is not settled for a reader while it is still in
     * memory (until em_journal_recover and the rollback): em_journal_commit says so */
    bool done = acked(w, ticket) && !(w->broken && ticket >= w->broken_from);
    pthread_mutex_unlock(&w->lock);
    return done;
}

int64_t em_journal_durable_rev(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    int64_t rev = w->durable_rev;
    pthread_mutex_unlock(&w->lock);
    return rev;
}

int em_journal_rewrite(struct em_journal *w, const char *data, size_t len)
{
    em_journal_drain(w);
    pthread_mutex_lock(&w->lock);
    em_journal_wait_files(w);
    if (w->broken) {
        /* the caller's records may hold changes that failed and are not undone yet */
        int e = w->error ? w->error : EIO;
        pthread_mutex_unlock(&w->lock);
        errno = e;
        return -1;
    }
    char head[80];
    int hn = marker(head, sizeof head, w->applied_rev);
    struct nd_buf all = ND_BUF_INIT;
    nd_buf_add(&all, head, (size_t)hn);
    nd_buf_add(&all, data, len);
    /* the records dropped may be all that vouched for files not yet on the disk */
    if (w->mode != EM_FSYNC_NEVER)
        sync();
    int rc = em_write_atomic(w->path, all.data, all.len, w->mode != EM_FSYNC_NEVER);
    if (rc == 0) {
        int fd = open(w->path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0) {
            close(w->fd);
            w->fd = fd;
            w->size = (off_t)all.len;
            w->reserved = 0; /* a new file: nothing allocated ahead yet */
            w->stale = false; /* nor refused records */
        } else {
            rc = -1;
        }
    }
    if (rc < 0)
        em_journal_note_error(w, w->path, errno); /* the old log stands: nothing is lost */
    pthread_mutex_unlock(&w->lock);
    nd_buf_release(&all);
    return rc;
}

/* Whether the log at path already says every record is applied up to applied: it is
 * empty, or its last line is a marker for that revision or a later one. */
static bool ends_applied(const char *path, int64_t applied)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    char tail[128];
    bool yes = false;
    if (fd >= 0 && fstat(fd, &sb) == 0) {
        size_t n = sb.st_size < (off_t)sizeof tail - 1 ? (size_t)sb.st_size : sizeof tail - 1;
        ssize_t got = n ? pread(fd, tail, n, sb.st_size - (off_t)n) : 0;
        if (got == (ssize_t)n && (n == 0 || tail[n - 1] == '\n')) {
            tail[n ? n - 1 : 0] = '\0';
            char *line = strrchr(tail, '\n');
            line = line ? line + 1 : tail;
            long long wall, a;
            char end;
            yes = n == 0 || (sscanf(line, "{\"wall\":%lld,\"applied\":%lld%c", &wall, &a,
                                    &end) == 3 && end == '}' && a >= applied);
        }
    }
    if (fd >= 0)
        close(fd);
    return yes;
}

int em_journal_close(struct em_journal *w, struct nd_buf *err)
{
    int rc = 0;
    if (w->thread_running) {
        pthread_mutex_lock(&w->lock);
        w->stopping = true;
        pthread_cond_broadcast(&w->cond);
        pthread_cond_signal(&w->late_cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        w->thread_running = false;
    }
    if (w->fd >= 0) {
        em_journal_drain(w);
        em_journal_stop_files(w);
        char *path = NULL;
        int aerr = w->nretry ? em_journal_apply_ops(w, NULL, 0, &path) : 0; /* a last try */
        if (aerr) {
            nd_buf_addf(err, "cannot write %s: %s (%zu files are behind the journal; the "
                        "next start writes them)", path, strerror(aerr), w->nretry);
            rc = -1;
        }
        free(path);
        /* a clean stop: every file is written, so the next start repairs nothing (a run
         * that wrote nothing leaves the log as it found it, when it already says so) */
        char head[80];
        int hn = marker(head, sizeof head, w->applied_rev);
        bool need = w->appended || !ends_applied(w->path, w->applied_rev);
        if (need && (em_write_all(w->fd, head, (size_t)hn) < 0 ||
                     (w->mode != EM_FSYNC_NEVER && fdatasync(w->fd) < 0))) {
            int e = errno;
            if (ftruncate(w->fd, w->size) < 0) {
                /* a torn marker is cut off by the next start */
            }
            nd_buf_addf(err, "%scannot write the final marker of %s: %s", rc ? "; " : "",
                        w->path, strerror(e));
            rc = -1;
        }
        close(w->fd);
    }
    em_journal_stop_files(w); /* (a log that could not be opened) */
    for (size_t i = 0; i < w->nops; i++)
        em_journal_op_release(&w->ops[i]);
    free(w->ops);
    for (size_t i = 0; i < w->nqueue; i++)
        em_journal_op_release(&w->queue[i]);
    free(w->queue);
    free(w->marks);
    for (size_t i = 0; i < w->nretry; i++)
        em_journal_op_release(&w->retry[i]);
    free(w->retry);
    free(w->failed);
    free(w->error_path);
    nd_buf_release(&w->buf);
    /* old revisions of some objects: nothing reads them (every name, a spare a run killed
     * before may have left too) */
    for (unsigned i = 0; w->spare && i < EM_JOURNAL_SPARES; i++)
        unlink(em_journal_spare(w, i));
    if (w->dir_fd >= 0)
        close(w->dir_fd);
    free(w->path);
    free(w->spare);
    free(w->spare_name);
    pthread_cond_destroy(&w->cond);
    pthread_cond_destroy(&w->files_cond);
    pthread_cond_destroy(&w->late_cond);
    pthread_cond_destroy(&w->flush_cond);
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof *w);
    w->fd = w->dir_fd = -1;
    return rc;
}
