/* The write-ahead log's failures: which tickets failed, the episode log, the space
 * allocated ahead of the log, and the recovery after a failed batch; see journal.h. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

/* Linux's fallocate(2) (glibc declares it only under _GNU_SOURCE, which the build does not
 * set: banned.h is included first) */
int fallocate(int fd, int mode, off_t offset, off_t len);

/* space allocated ahead of the log at a time, beyond what a write needs */
#define RESERVE_CHUNK (256 << 10)
/* newlines written at a time over a refused batch */
#define BLANK_CHUNK 4096

void em_journal_say(struct em_journal *w, const char *msg)
{
    if (w->log)
        w->log(w->log_ctx, msg);
    else
        fprintf(stderr, "nodus-emulator: %s\n", msg);
}

void em_journal_note_error(struct em_journal *w, const char *path, int err)
{
    if (w->error)
        return;
    w->error = err ? err : EIO;
    free(w->error_path);
    w->error_path = nd_xstrdup(path ? path : w->path);
    char *msg = nd_xasprintf("storage: cannot write %s: %s (errno %d); a write the journal "
                             "cannot take is refused (507 StorageFull, 500 StorageError) until "
                             "there is room; reads go on",
                             w->error_path, strerror(w->error), w->error);
    em_journal_say(w, msg);
    free(msg);
}

void em_journal_note_ok(struct em_journal *w)
{
    if (!w->error)
        return;
    char *msg = nd_xasprintf("storage: writes reach the disk again (the first to fail was %s)",
                             w->error_path ? w->error_path : w->path);
    em_journal_say(w, msg);
    free(msg);
    w->error = 0;
    free(w->error_path);
    w->error_path = NULL;
}

void em_journal_fail_range(struct em_journal *w, uint64_t lo, uint64_t hi)
{
    if (lo > hi)
        return;
    if (w->nfailed && w->failed[w->nfailed - 1].hi + 1 >= lo) {
        struct em_journal_range *r = &w->failed[w->nfailed - 1];
        if (hi > r->hi)
            r->hi = hi;
        if (lo < r->lo)
            r->lo = lo;
        return;
    }
    if (w->nfailed == w->capfailed) {
        w->capfailed = w->capfailed ? w->capfailed * 2 : 8;
        w->failed = nd_xrealloc(w->failed, w->capfailed * sizeof *w->failed);
    }
    w->failed[w->nfailed++] = (struct em_journal_range){lo, hi};
}

bool em_journal_ticket_failed(const struct em_journal *w, uint64_t ticket)
{
    size_t lo = 0, hi = w->nfailed;
    while (lo < hi) { /* the first range ending at or after ticket */
        size_t mid = lo + (hi - lo) / 2;
        if (w->failed[mid].hi < ticket)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->nfailed && w->failed[lo].lo <= ticket;
}

static bool full(int err)
{
    return err == ENOSPC || err == EDQUOT;
}

int em_journal_reserve(struct em_journal *w, size_t need)
{
    pthread_mutex_lock(&w->lock);
    int rc = 0;
    off_t want = w->size + (off_t)w->buf.len + (off_t)need;
    if (w->fd < 0 || w->no_reserve || want <= w->reserved)
        goto out;
    /* a chunk ahead; when that is too much, what this write needs */
    off_t sizes[2] = {want + RESERVE_CHUNK, want};
    for (int i = 0; i < 2; i++) {
        if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, w->size, sizes[i] - w->size) == 0) {
            w->reserved = sizes[i];
            rc = 0;
            goto out;
        }
        rc = errno;
        if (rc == EOPNOTSUPP || rc == ENOSYS) {
            w->no_reserve = true; /* the writes themselves find out, and are undone */
            rc = 0;
            goto out;
        }
        if (!full(rc))
            break;
    }
    em_journal_note_error(w, w->path, rc);
out:
    pthread_mutex_unlock(&w->lock);
    return rc;
}

uint64_t em_journal_recover(struct em_journal *w)
{
    pthread_mutex_lock(&w->lock);
    if (!w->broken) {
        pthread_mutex_unlock(&w->lock);
        return 0;
    }
    pthread_mutex_unlock(&w->lock);
    /* every record appended so far goes through a doomed batch: nothing is written, and
     * whoever waits for one of them hears that it failed */
    em_journal_commit(w, em_journal_ticket(w));
    pthread_mutex_lock(&w->lock);
    em_journal_wait_files(w);
    uint64_t from = w->broken_from;
    em_journal_fail_range(w, from, w->appended);
    w->broken = false;
    w->broken_from = 0;
    w->appended_rev = w->durable_rev;
    pthread_mutex_unlock(&w->lock);
    return from;
}

/* Overwrites the log's bytes from..to with newlines (blank lines, which a start skips), in
 * place: the descriptor appends, and Linux's pwrite on an O_APPEND descriptor appends too,
 * so O_APPEND is off meanwhile (only the leader writes the log). Bytes the file already
 * holds need no new block, so this works on a full disk where a cut may not. 0 or errno. */
static int blank(struct em_journal *w, off_t from, off_t to)
{
    int fl = fcntl(w->fd, F_GETFL);
    if (fl < 0 || fcntl(w->fd, F_SETFL, fl & ~O_APPEND) < 0)
        return errno;
    char nl[BLANK_CHUNK];
    memset(nl, '\n', sizeof nl);
    int e = 0;
    /* front first: the batch's marker and first records go first (a kill half-way comes
     * before the answer, which is then unknown, as for any crash before one) */
    for (off_t at = from; at < to;) {
        size_t n = to - at < (off_t)sizeof nl ? (size_t)(to - at) : sizeof nl;
        ssize_t k = pwrite(w->fd, nl, n, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            e = k < 0 ? errno : EIO;
            break;
        }
        at += k;
    }
    if (fcntl(w->fd, F_SETFL, fl) < 0 && !e)
        e = errno;
    if (!e && w->mode != EM_FSYNC_NEVER && fdatasync(w->fd) < 0) {
        /* what a start reads after a kill -9 is the kernel's copy, blank already */
    }
    return e;
}

/* Says that the refused records from `from` on stay in the log for now. */
static void say_stuck(struct em_journal *w, off_t from, int err)
{
    char *msg = nd_xasprintf("storage: cannot cut %s back to %lld bytes after a failed write, "
                             "nor blank out what it holds of the refused records: %s (tried "
                             "again before the next write; a start before then finds them)",
                             w->path, (long long)from, strerror(err));
    em_journal_say(w, msg);
    free(msg);
}

/* The log's size: 0, or errno. */
static int log_size(struct em_journal *w, off_t *size)
{
    struct stat sb;
    if (fstat(w->fd, &sb) < 0)
        return errno;
    *size = sb.st_size;
    return 0;
}

off_t em_journal_drop_batch(struct em_journal *w, off_t start)
{
    off_t size;
    if (log_size(w, &size) == 0 && size <= start)
        return start; /* nothing of it was written (a cut would only give back the space
                       * allocated ahead) */
    /* a cut that fails may have moved the end all the same (ext4 sets the size before it
     * gives the blocks back): the size says what is left */
    int e = w->test_fail_cut ? ENOSPC : ftruncate(w->fd, start) < 0 ? errno : 0;
    int se = log_size(w, &size);
    if (!se && size <= start) {
        if (w->mode != EM_FSYNC_NEVER && fdatasync(w->fd) < 0) {
            /* cut in the kernel's copy, which is what a start after a kill -9 reads */
        }
        return start;
    }
    if (!se)
        e = blank(w, start, size); /* (what the cut said no longer matters) */
    if (se || e) {
        w->stale = true;
        w->stale_from = start;
        say_stuck(w, start, se ? se : e);
        return start;
    }
    return size; /* the next batch goes after the blank lines */
}

off_t em_journal_blank_stale(struct em_journal *w, off_t start)
{
    off_t size;
    if (!w->stale || log_size(w, &size) != 0)
        return start;
    if (blank(w, w->stale_from, size) == 0)
        w->stale = false;
    return size;
}
