/* The journal's file writer: the file writes of flushed batches, written behind the
 * answers in batch order; see journal.h. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* Linux's renameat2(2) and RENAME_EXCHANGE (glibc declares them only under _GNU_SOURCE,
 * which the build does not set: banned.h is included first) */
#include <linux/fs.h>
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
              unsigned int flags);
/* Linux's syncfs(2), likewise */
int syncfs(int fd);

#include "fsutil.h"
#include "util/buf.h"
#include "util/time.h"
#include "util/xmalloc.h"

void em_journal_op_release(struct em_journal_op *op)
{
    free(op->path);
    free(op->data);
}

/* The spare, open for writing at its start (-1 with errno); *size: its length. What is
 * not a plain file of one name there (a hard link someone made of an object file it once
 * was, a backup made with `cp -al`; a link) is never written into: a new spare takes its
 * name. */
static int open_spare(const char *spare, off_t *size)
{
    int fd = open(spare, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (fd < 0 ? errno == ELOOP : (sb.st_nlink > 1 || !S_ISREG(sb.st_mode))) {
        if (fd >= 0)
            close(fd);
        if (unlink(spare) < 0)
            return -1;
        fd = open(spare, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        sb.st_size = 0;
    }
    *size = fd >= 0 ? sb.st_size : 0;
    return fd;
}

int em_journal_sync_files(struct em_journal *w)
{
    if (w->mode == EM_FSYNC_NEVER)
        return 0;
    int rc = w->dir_fd >= 0 ? syncfs(w->dir_fd) : -1;
    if (w->dir_fd < 0)
        errno = EBADF;
    if (rc == 0)
        return 0;
    int e = errno;
    if (!atomic_load(&w->files_unsynced)) {
        char *msg = nd_xasprintf("storage: cannot flush the object files (syncfs of %s's "
                                 "filesystem): %s; the journal counts no more of them written, "
                                 "so the next start writes them again from it",
                                 w->path, strerror(e));
        em_journal_say(w, msg);
        free(msg);
    }
    atomic_store(&w->files_unsynced, true);
    errno = e;
    return -1;
}

char *em_journal_spare_path(const char *log, unsigned i)
{
    return i ? nd_xasprintf("%s.spare.%u", log, i) : nd_xasprintf("%s.spare", log);
}

const char *em_journal_spare(struct em_journal *w, unsigned i)
{
    if (!i)
        return w->spare;
    size_t cap = strlen(w->spare) + 16;
    if (!w->spare_name)
        w->spare_name = nd_xmalloc(cap);
    snprintf(w->spare_name, cap, "%s.%u", w->spare, i);
    return w->spare_name;
}

/* Raises *a to at least v. */
static void atomic_raise(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load(a);
    while (cur < v && !atomic_compare_exchange_weak(a, &cur, v))
        ;
}

/* The spare the next object file is written into, or NULL: none may be written now.
 * Under always and batch each spare is written once between two flushes of the files:
 * after an exchange a spare holds the old text's inode, which the object's name on the
 * disk may still point to until a flush that began after it ends (a power loss would
 * leave the object another's text, or a torn mix). The spares go round in order
 * (w->spare_seq); one is free again once a flush that began after its use ended
 * (w->spares_free); when none is, the writer flushes the files itself. */
static const char *next_spare(struct em_journal *w)
{
    if (w->mode == EM_FSYNC_NEVER)
        return w->spare; /* no promise across a power loss: one spare, written again */
    if (w->spare_seq >= atomic_load(&w->spares_free)) {
        uint64_t used = w->spare_seq; /* every one used so far is done with */
        if (em_journal_sync_files(w) < 0)
            return NULL;
        atomic_raise(&w->spares_free, used + EM_JOURNAL_SPARES);
    }
    return em_journal_spare(w, (unsigned)(w->spare_seq++ % EM_JOURNAL_SPARES));
}

/* Writes an object file as em_write_atomic does (the file holds its old text or its new,
 * never a part), through a spare (next_spare): the new text is written into it and the two
 * names are exchanged (renameat2 RENAME_EXCHANGE), so the old text's inode becomes a
 * spare. No inode is allocated or freed a write, where a temporary file and a rename
 * allocate one and free one: on ext4 without a journal (the machines the benchmarks ran
 * on) allocating one scans past every inode freed in the last minute, most of the file
 * writer's time when each running Job's file is rewritten every emulated minute (bench/
 * limits.md, the simulation at 100k Jobs). A file not there yet takes the spare's name;
 * where the filesystem cannot exchange (or w->no_exchange), em_write_atomic. 0 or -1. */
static int write_file(struct em_journal *w, const struct em_journal_op *op)
{
    const char *spare = w->spare && !w->no_exchange ? next_spare(w) : NULL;
    if (!spare)
        return em_write_atomic(op->path, op->data, op->len, false);
    int rc = em_spare_write(spare, op->path, op->data, op->len, &w->no_exchange);
    atomic_store(&w->spares_done, w->spare_seq); /* (a flush from now covers it) */
    return rc;
}

int em_spare_write(const char *spare, const char *path, const char *data, size_t len,
                   bool *no_exchange)
{
    off_t size;
    int fd = open_spare(spare, &size);
    if (fd < 0)
        return em_write_atomic(path, data, len, false);
    /* written over, then cut to length: truncating to 0 first would free its blocks and
     * have ext4 flush the file at close (auto_da_alloc), twice the writer's time */
    if (em_write_all(fd, data, len) < 0 || (size > (off_t)len && ftruncate(fd, (off_t)len) < 0)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (close(fd) < 0)
        return -1;
    if (renameat2(AT_FDCWD, spare, AT_FDCWD, path, RENAME_EXCHANGE) == 0)
        return 0;
    if (errno == ENOENT && rename(spare, path) == 0)
        return 0; /* a new file */
    if (errno != ENOENT) {
        if (errno != EINVAL && errno != ENOSYS && errno != EXDEV && errno != EOPNOTSUPP)
            return -1;
        *no_exchange = true; /* this filesystem cannot: a rename each write from now */
    }
    return em_write_atomic(path, data, len, false); /* (its directory made) */
}

/* Appends op's line and those of the later appends to the same file (up to a write of
 * that file) in one write; each one taken is marked in taken[] (1). 0 or -1. */
static int append_merged(struct em_journal_op *all, size_t i, size_t total, signed char *taken)
{
    struct em_journal_op *op = &all[i];
    struct nd_buf b = ND_BUF_INIT;
    size_t more = 0;
    for (size_t j = i + 1; j < total && j < i + 1024; j++) {
        if (strcmp(all[j].path, op->path) != 0)
            continue;
        if (!(all[j].append && all[j].data))
            break; /* a write or removal of the file: what follows it goes after it */
        if (!more++)
            nd_buf_add(&b, op->data, op->len);
        nd_buf_add(&b, all[j].data, all[j].len);
        taken[j] = 1;
    }
    int rc = more ? em_append_line(op->path, b.data, b.len)
                  : em_append_line(op->path, op->data, op->len);
    int e = errno;
    nd_buf_release(&b);
    for (size_t j = i + 1; rc < 0 && j < total && j < i + 1024; j++) {
        if (taken[j] && strcmp(all[j].path, op->path) == 0)
            taken[j] = -1; /* failed with it: kept with it, in order */
    }
    errno = e;
    return rc;
}

/* Applies file writes in order: the ones that failed before (w->retry, unless this batch
 * writes the same file again), then the batch's. One that fails is kept in w->retry for
 * the next batch. The first error's errno (0: none); *path: the file (NEW). Called
 * without the lock, by one thread at a time (the file writer, or the leader without it). */
int em_journal_apply_ops(struct em_journal *w, struct em_journal_op *ops, size_t n, char **path)
{
    struct em_journal_op *retry = w->retry;
    size_t nretry = w->nretry;
    w->retry = NULL;
    w->nretry = 0;
    size_t total = nretry + n, kept = 0;
    struct em_journal_op *all = nd_xmalloc((total ? total : 1) * sizeof *all);
    /* an append taken into an earlier one's write: 1, and -1 when that write failed */
    signed char *taken = nd_xcalloc(total ? total : 1, 1);
    if (nretry)
        memcpy(all, retry, nretry * sizeof *all);
    if (n)
        memcpy(all + nretry, ops, n * sizeof *all);
    free(retry);
    int err = 0;
    for (size_t i = 0; i < total; i++) {
        struct em_journal_op *op = &all[i];
        /* a later write (not an append) of the same file makes this one moot */
        bool superseded = false;
        for (size_t j = i + 1; !taken[i] && j < total && (j < i + 64 || i < nretry); j++) {
            if (!(all[j].append && all[j].data) && strcmp(all[j].path, op->path) == 0) {
                superseded = true;
                break;
            }
        }
        int rc = 0;
        if (taken[i])
            rc = taken[i] < 0 ? -1 : 0;
        else if (superseded)
            rc = 0;
        else if (op->data && op->append)
            rc = append_merged(all, i, total, taken);
        else if (op->data)
            rc = write_file(w, op);
        else if (unlink(op->path) < 0 && errno != ENOENT)
            rc = -1;
        if (rc < 0) {
            if (!err) {
                err = errno ? errno : EIO;
                *path = nd_xstrdup(op->path);
            }
            all[kept++] = *op; /* tried again by the next batch */
        } else {
            em_journal_op_release(op);
        }
    }
    free(taken);
    if (kept) {
        w->retry = all;
        w->nretry = kept;
    } else {
        free(all);
    }
    return err;
}

/* Stops the file writer once it has written everything queued. */
void em_journal_stop_files(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    bool running = w->files_running;
    w->files_stopping = true;
    pthread_cond_signal(&w->files_cond);
    pthread_mutex_unlock(&w->lock);
    if (running)
        pthread_join(w->files, NULL);
    pthread_mutex_lock(&w->lock);
    bool flusher = w->flusher_running;
    w->flusher_stopping = true; /* (after the writer: it flushes what it wrote) */
    pthread_cond_signal(&w->flush_cond);
    pthread_mutex_unlock(&w->lock);
    if (flusher)
        pthread_join(w->flusher, NULL);
    pthread_mutex_lock(&w->lock);
    w->flusher_running = w->flusher_stopping = false;
    w->files_running = w->files_stopping = false;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Writes every file write queued so far, in order, then marks their records' files
 * written. Lock held, w->writing not set; returns with the lock held. */
static void write_queued(struct em_journal *w)
{
    /* whole batches, EM_JOURNAL_WRITE_CHUNK file writes or so (one batch at least), so
     * that a leader held back waits for a chunk, not for the whole queue */
    size_t k = 0;
    while (k + 1 < w->nmarks && w->marks[k + 1].end <= EM_JOURNAL_WRITE_CHUNK)
        k++;
    struct em_journal_mark m = w->marks[k];
    size_t n = m.end;
    struct em_journal_op *ops = nd_xmalloc((n ? n : 1) * sizeof *ops);
    memcpy(ops, w->queue, n * sizeof *ops);
    memmove(w->queue, w->queue + n, (w->nqueue - n) * sizeof *ops);
    w->nqueue -= n;
    memmove(w->marks, w->marks + k + 1, (w->nmarks - k - 1) * sizeof *w->marks);
    w->nmarks -= k + 1;
    for (size_t i = 0; i < w->nmarks; i++)
        w->marks[i].end -= n;
    uint64_t seq = m.seq, target = m.target;
    int64_t rev = m.rev;
    w->nwriting = n;
    w->writing = true;
    pthread_mutex_unlock(&w->lock);

    int aerr = 0;
    char *apath = NULL;
    if (n)
        aerr = em_journal_apply_ops(w, ops, n, &apath);
    free(ops);

    pthread_mutex_lock(&w->lock);
    w->writing = false;
    w->nwriting = 0;
    w->apply_turn = seq;
    w->durable = target;
    /* the applied revision stays before a file still to be written, and (always, batch)
     * before one not flushed yet (flush_files) */
    if (!aerr && !w->nretry)
        w->written_rev = rev;
    if (n && w->mode != EM_FSYNC_NEVER && !w->files_dirty) {
        w->files_dirty = true;
        pthread_cond_signal(&w->flush_cond); /* (else the flusher waits for its time) */
    }
    if (!w->files_dirty && !w->files_flushing && !atomic_load(&w->files_unsynced))
        w->applied_rev = w->written_rev;
    if (aerr)
        em_journal_note_error(w, apath, aerr);
    else if (n && !w->broken)
        em_journal_note_ok(w);
    free(apath);
    /* only who waits for files (a drain, backpressure, a leader without the writer) */
    if (w->files_waiters || !w->files_running)
        pthread_cond_broadcast(&w->cond);
}

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Flushes the files written so far (em_journal_sync_files) and counts them applied: the
 * next marker says so. One flush of the filesystem covers the files' data, the exchanged
 * names and the directories made, where a fdatasync per file would not, and costs about
 * what 512 files' fdatasyncs cost for one (bench/limits.md). Files are written meanwhile
 * (the flush counts those written before it began). Lock held. */
static void flush_files(struct em_journal *w)
{
    int64_t rev = w->written_rev;
    uint64_t done = atomic_load(&w->spares_done);
    w->files_dirty = false;
    w->files_flushing++;
    pthread_mutex_unlock(&w->lock);
    int rc = em_journal_sync_files(w);
    int64_t now = mono_us();
    pthread_mutex_lock(&w->lock);
    w->files_flushing--;
    w->synced_at_us = now;
    if (rc == 0)
        atomic_raise(&w->spares_free, done + EM_JOURNAL_SPARES);
    if (!atomic_load(&w->files_unsynced) && rev > w->applied_rev)
        w->applied_rev = rev;
    pthread_cond_broadcast(&w->cond);
}

/* The flusher (always, batch): flushes the files the writer wrote at most every
 * EM_JOURNAL_FILES_SYNC_US, at once for a drain or a stop. A flush a round was one a
 * create at one connection, a fifth of the emulator's CPU (bench/limits.md), and a flush
 * in the writer held back the files while it ran; the applied revision lags by that
 * much. */
static void *flusher_main(void *arg)
{
    struct em_journal *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        if (w->files_dirty) {
            int64_t wait_us = w->synced_at_us + EM_JOURNAL_FILES_SYNC_US - mono_us();
            if (wait_us <= 0 || w->flusher_stopping || w->flush_asked) {
                flush_files(w);
                continue;
            }
            struct timespec ts;
            nd_time_deadline(&ts, wait_us / 1000 + 1);
            pthread_cond_timedwait(&w->flush_cond, &w->lock, &ts);
            continue;
        }
        if (w->flusher_stopping)
            break;
        pthread_cond_wait(&w->flush_cond, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int em_journal_start_flusher(struct em_journal *w)
{
    if (w->mode == EM_FSYNC_NEVER)
        return 0;
    if (pthread_create(&w->flusher, NULL, flusher_main, w) != 0)
        return -1;
    w->flusher_running = true;
    return 0;
}

/* Queues the batch's file writes for the writer (or drops them when it failed), in batch
 * order; without the writer, writes them (and any queued before) at once. With more than
 * EM_JOURNAL_QUEUE_MAX behind, waits for the writer. Lock held. */
void em_journal_queue(struct em_journal *w, struct em_journal_op *ops, size_t nops, uint64_t seq,
                      uint64_t target, int64_t target_rev, bool failed)
{
    if (failed) {
        for (size_t i = 0; i < nops; i++)
            em_journal_op_release(&ops[i]); /* refused: the files stay as they were */
    } else if (nops) {
        if (w->nqueue + nops > w->capqueue) {
            w->capqueue = w->capqueue ? w->capqueue * 2 : 256;
            if (w->capqueue < w->nqueue + nops)
                w->capqueue = w->nqueue + nops;
            w->queue = nd_xrealloc(w->queue, w->capqueue * sizeof *w->queue);
        }
        memcpy(w->queue + w->nqueue, ops, nops * sizeof *ops);
        w->nqueue += nops;
    }
    free(ops);
    w->queued_seq = seq + 1;
    if (!failed)
        w->queued_rev = target_rev;
    if (w->nmarks == w->capmarks) {
        w->capmarks = w->capmarks ? w->capmarks * 2 : 64;
        w->marks = nd_xrealloc(w->marks, w->capmarks * sizeof *w->marks);
    }
    w->marks[w->nmarks++] =
        (struct em_journal_mark){w->nqueue, w->queued_seq, target, w->queued_rev};
    if (w->files_running) {
        pthread_cond_signal(&w->files_cond);
        w->files_waiters++;
        while (w->nqueue + w->nwriting > EM_JOURNAL_QUEUE_MAX && w->files_running &&
               !w->files_stopping)
            pthread_cond_wait(&w->cond, &w->lock);
        w->files_waiters--;
        return;
    }
    while (w->apply_turn != w->queued_seq || w->files_dirty) {
        if (w->writing)
            pthread_cond_wait(&w->cond, &w->lock);
        else if (w->apply_turn != w->queued_seq)
            write_queued(w);
        else
            flush_files(w); /* the leader without the writer: at once */
    }
}

/* The file writer: writes what the leaders queue, everything queued at once. */
void *em_journal_files_main(void *arg)
{
    struct em_journal *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        bool work = w->apply_turn != w->queued_seq && !w->writing;
        if (work && (!w->hold_files || w->files_stopping)) {
            write_queued(w);
            continue;
        }
        if (w->files_stopping && !work && !w->writing)
            break;
        pthread_cond_wait(&w->files_cond, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

void em_journal_wait_files(struct em_journal *w)
{
    w->files_waiters++;
    w->flush_asked++;
    pthread_cond_signal(&w->flush_cond); /* (what was written is flushed at once) */
    while (w->flushing || w->writing || w->apply_turn != w->batch_seq ||
           (w->flusher_running && (w->files_dirty || w->files_flushing)))
        pthread_cond_wait(&w->cond, &w->lock);
    w->flush_asked--;
    w->files_waiters--;
}

void em_journal_drain(struct em_journal *w)
{
    em_journal_commit(w, em_journal_ticket(w));
    pthread_mutex_lock(&w->lock);
    w->hold_files = false;
    pthread_cond_signal(&w->files_cond);
    em_journal_wait_files(w);
    pthread_mutex_unlock(&w->lock);
}

