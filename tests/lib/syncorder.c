/* syncorder.so: an LD_PRELOAD shim for tests/emulator/67-flushfiles.bats. It watches an
 * emulator's object file writes, flushes of the filesystem and journal markers, in the
 * order they happen, and writes to $SYNCORDER_LOG a line for each (file REV PATH, marker
 * APPLIED, sync; and exchange PATH after a file's, when it went in by an exchange with a
 * spare rather than a rename) and a line "VIOLATION ..." each time the order would lose a file to a
 * power loss (the machine's crash):
 *
 *   marker: a journal marker {"wall":..,"applied":A} is written while a file of a
 *     revision <= A (an object file renamed or exchanged into place, an Event appended to
 *     its hour file) is not yet covered by a flush of the filesystem: one (syncfs, sync)
 *     that began after the file's write ended and ended before the marker's write began;
 *   spare: a file is written into whose inode an exchange (renameat2 RENAME_EXCHANGE)
 *     took out of an object's name with no flush begun since: that name may still point
 *     to it on the disk, so the object would come back with this text, or a torn mix.
 *
 * A file's revision is the highest "resourceVersion" in what was written into it (an
 * Event's own is above its involvedObject's); a line appended to an hour file counts on
 * its own. A flush of one file (fsync, fdatasync) is not counted: a rename's directory
 * entry would need its directory flushed as well, and the emulator flushes with syncfs.
 *
 * Built without the project's flags (make test-bins: build/tests/lib/syncorder.so). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define FDMAX 8192
#define INOS (1 << 16)
#define NONE INT64_MAX

enum kind { OTHER, JOURNAL, STAGE, OBJECT };
/* an inode written into: the revision of its text, and whether an exchange took it out
 * of an object's name (1: before any flush began since, 2: while a flush runs) */
struct ino {
    ino_t ino;
    int64_t rev;
    int out;
    char name[160];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char fdkind[FDMAX];
static ino_t fdino[FDMAX];
static bool fdfresh[FDMAX];
static char *fdpath[FDMAX];
static struct ino inos[INOS];
/* the lowest revision among the files written since the last flush began (pending), and
 * among those written before the flush that runs (inflight); their paths */
static int64_t pending_min = NONE, inflight_min = NONE;
static char pending_path[256], inflight_path[256];
static int logfd = -1;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned);
static int (*real_syncfs)(int);
static void (*real_sync)(void);

__attribute__((constructor)) static void init(void)
{
    real_open = dlsym(RTLD_NEXT, "open");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_close = dlsym(RTLD_NEXT, "close");
    real_write = dlsym(RTLD_NEXT, "write");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_rename = dlsym(RTLD_NEXT, "rename");
    real_renameat2 = dlsym(RTLD_NEXT, "renameat2");
    real_syncfs = dlsym(RTLD_NEXT, "syncfs");
    real_sync = dlsym(RTLD_NEXT, "sync");
    const char *log = getenv("SYNCORDER_LOG");
    if (log && *log)
        logfd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

/* A line to the log. mu held. */
static void say(const char *fmt, ...)
{
    if (logfd < 0)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    (void)!real_write(logfd, line, (size_t)n);
}

static enum kind kind_of(const char *path)
{
    if (strstr(path, "journal.ndjson.spare"))
        return STAGE;
    if (strstr(path, "/history/journal.ndjson"))
        return JOURNAL; /* the log, or its rewrite's temporary file */
    if (!strstr(path, "/objects/"))
        return OTHER;
    return strstr(path, ".tmp-") ? STAGE : OBJECT;
}

static struct ino *ino_slot(ino_t ino)
{
    size_t h = (size_t)(ino * 2654435761u) & (INOS - 1);
    for (size_t i = 0; i < INOS; i++) {
        struct ino *s = &inos[(h + i) & (INOS - 1)];
        if (s->ino == ino || !s->ino) {
            s->ino = ino;
            return s;
        }
    }
    return &inos[h]; /* full: (a test writes far fewer) */
}

/* The highest "resourceVersion" in p[0..n) (0: none). */
static int64_t max_rv(const char *p, size_t n)
{
    static const char key[] = "\"resourceVersion\"";
    int64_t best = 0;
    const char *end = p + n;
    for (const char *q = p; (q = memmem(q, (size_t)(end - q), key, sizeof key - 1));) {
        q += sizeof key - 1;
        while (q < end && (*q == ' ' || *q == ':' || *q == '"'))
            q++;
        int64_t v = 0;
        while (q < end && *q >= '0' && *q <= '9')
            v = v * 10 + (*q++ - '0');
        if (v > best)
            best = v;
    }
    return best;
}

/* A file of revision rev is in place at path (visible to a start from now on). mu held. */
static void file_in_place(int64_t rev, const char *path)
{
    if (rev <= 0)
        return;
    say("file %lld %s", (long long)rev, path);
    if (rev < pending_min) {
        pending_min = rev;
        snprintf(pending_path, sizeof pending_path, "%s", path);
    }
}

static void track(int fd, const char *path)
{
    if (fd < 0 || fd >= FDMAX)
        return;
    enum kind k = kind_of(path);
    struct stat sb;
    pthread_mutex_lock(&mu);
    free(fdpath[fd]);
    fdpath[fd] = NULL;
    fdkind[fd] = OTHER;
    if (k != OTHER && fstat(fd, &sb) == 0) {
        fdkind[fd] = (unsigned char)k;
        fdino[fd] = sb.st_ino;
        fdfresh[fd] = true;
        fdpath[fd] = strdup(path);
    }
    pthread_mutex_unlock(&mu);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    int fd = real_open(path, flags, mode);
    track(fd, path);
    return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    int fd = real_openat(dirfd, path, flags, mode);
    if (dirfd == AT_FDCWD || path[0] == '/')
        track(fd, path);
    return fd;
}

int close(int fd)
{
    if (fd >= 0 && fd < FDMAX && fdkind[fd]) {
        pthread_mutex_lock(&mu);
        fdkind[fd] = OTHER;
        free(fdpath[fd]);
        fdpath[fd] = NULL;
        pthread_mutex_unlock(&mu);
    }
    return real_close(fd);
}

/* Before a write of buf to a tracked fd: a marker is checked. mu held. */
static void before_write(int fd, const char *buf, size_t n)
{
    static const char head[] = "{\"wall\":";
    if (fdkind[fd] != JOURNAL || n < sizeof head || memcmp(buf, head, sizeof head - 1) != 0)
        return;
    const char *a = memmem(buf, n, "\"applied\":", 10);
    long long applied = a ? atoll(a + 10) : 0;
    say("marker %lld", applied);
    int64_t low = pending_min < inflight_min ? pending_min : inflight_min;
    if (low <= applied)
        say("VIOLATION marker applied %lld counts %s at revision %lld, not flushed yet",
            applied, pending_min <= inflight_min ? pending_path : inflight_path,
            (long long)low);
}

/* After a write of buf (done bytes) to a tracked fd. mu held. */
static void after_write(int fd, const char *buf, size_t done)
{
    if (fdkind[fd] == STAGE) {
        struct ino *s = ino_slot(fdino[fd]);
        if (s->out)
            say("VIOLATION spare: %s written over while %s may still point to it "
                "(its exchange not flushed)", fdpath[fd], s->name);
        int64_t rv = max_rv(buf, done);
        s->rev = fdfresh[fd] || rv > s->rev ? rv : s->rev;
        fdfresh[fd] = false;
    } else if (fdkind[fd] == OBJECT) {
        /* an append to an hour file: each line in place at once */
        for (const char *p = buf, *end = buf + done; p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *e = nl ? nl : end;
            file_in_place(max_rv(p, (size_t)(e - p)), fdpath[fd]);
            p = e + 1;
        }
    }
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (fd < 0 || fd >= FDMAX || !fdkind[fd])
        return real_write(fd, buf, n);
    pthread_mutex_lock(&mu);
    before_write(fd, buf, n);
    pthread_mutex_unlock(&mu);
    ssize_t rc = real_write(fd, buf, n);
    if (rc > 0) {
        pthread_mutex_lock(&mu);
        if (fdkind[fd])
            after_write(fd, buf, (size_t)rc);
        pthread_mutex_unlock(&mu);
    }
    return rc;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    if (fd < 0 || fd >= FDMAX || !fdkind[fd] || cnt < 1)
        return real_writev(fd, iov, cnt);
    pthread_mutex_lock(&mu);
    before_write(fd, iov[0].iov_base, iov[0].iov_len);
    pthread_mutex_unlock(&mu);
    ssize_t rc = real_writev(fd, iov, cnt);
    size_t left = rc > 0 ? (size_t)rc : 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < cnt && left && fdkind[fd]; i++) {
        size_t d = iov[i].iov_len < left ? iov[i].iov_len : left;
        after_write(fd, iov[i].iov_base, d);
        left -= d;
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* After a rename of from into to (exchange: the two swapped). mu held. */
static void renamed(const char *from, const char *to, bool exchange)
{
    struct stat sb;
    if (kind_of(to) != OBJECT || stat(to, &sb) != 0)
        return;
    file_in_place(ino_slot(sb.st_ino)->rev, to);
    if (exchange)
        say("exchange %s", to);
    if (exchange && stat(from, &sb) == 0) {
        struct ino *s = ino_slot(sb.st_ino);
        s->out = 1;
        snprintf(s->name, sizeof s->name, "%s", to);
    }
}

int rename(const char *from, const char *to)
{
    int rc = real_rename(from, to);
    if (rc == 0) {
        pthread_mutex_lock(&mu);
        renamed(from, to, false);
        pthread_mutex_unlock(&mu);
    }
    return rc;
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags)
{
    int rc = real_renameat2(fromdir, from, todir, to, flags);
    if (rc == 0 && fromdir == AT_FDCWD && todir == AT_FDCWD) {
        pthread_mutex_lock(&mu);
        renamed(from, to, (flags & RENAME_EXCHANGE) != 0);
        pthread_mutex_unlock(&mu);
    }
    return rc;
}

/* A flush begins: what was written so far is in flight. mu held. */
static void flush_begins(void)
{
    if (pending_min < inflight_min) {
        inflight_min = pending_min;
        snprintf(inflight_path, sizeof inflight_path, "%s", pending_path);
    }
    pending_min = NONE;
    for (size_t i = 0; i < INOS; i++) {
        if (inos[i].out == 1)
            inos[i].out = 2;
    }
}

/* A flush ends (ok: it succeeded): what was in flight is on the disk. mu held. */
static void flush_ends(bool ok)
{
    say("sync%s", ok ? "" : " failed");
    if (!ok)
        return; /* (stays in flight: a later flush covers it) */
    inflight_min = NONE;
    for (size_t i = 0; i < INOS; i++) {
        if (inos[i].out == 2)
            inos[i].out = 0;
    }
}

int syncfs(int fd)
{
    pthread_mutex_lock(&mu);
    flush_begins();
    pthread_mutex_unlock(&mu);
    int rc = real_syncfs(fd);
    pthread_mutex_lock(&mu);
    flush_ends(rc == 0);
    pthread_mutex_unlock(&mu);
    return rc;
}

void sync(void)
{
    pthread_mutex_lock(&mu);
    flush_begins();
    pthread_mutex_unlock(&mu);
    real_sync();
    pthread_mutex_lock(&mu);
    flush_ends(true);
    pthread_mutex_unlock(&mu);
}
