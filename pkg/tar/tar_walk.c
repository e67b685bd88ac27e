/* tar_walk.c: writing a file tree as a tar stream, piece by piece (so a large tree is
 * never held whole). The walk opens every directory with openat(O_NOFOLLOW) from the
 * one above it: a symbolic link is archived as a link and never entered. */
#include "tar/tar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

#define MAX_DEPTH 256

struct frame {
    int fd;       /* the directory being listed */
    char **names; /* its entries, sorted */
    size_t n, i;
    char *prefix; /* its member name */
};

struct nd_tar_writer {
    int parent; /* directory holding the top (owned) */
    char *top;  /* the top's name in parent; NULL: parent itself is the top */
    char *name; /* member name of the top */
    bool started, ended;
    struct frame *stack;
    size_t depth;
    struct nd_buf out; /* header bytes not yet handed out */
    size_t out_pos;
    int file_fd; /* content being copied, -1 */
    uint64_t file_left;
    size_t pad_left;
    size_t count;
    bool measure; /* nd_tar_writer_measure: files are not opened */
};

static void pop(struct nd_tar_writer *w)
{
    struct frame *f = &w->stack[--w->depth];
    close(f->fd);
    for (size_t i = 0; i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    free(f->prefix);
}

void nd_tar_writer_free(struct nd_tar_writer *w)
{
    if (!w)
        return;
    while (w->depth)
        pop(w);
    free(w->stack);
    if (w->file_fd >= 0)
        close(w->file_fd);
    if (w->parent >= 0)
        close(w->parent);
    free(w->top);
    free(w->name);
    nd_buf_release(&w->out);
    free(w);
}

size_t nd_tar_writer_count(const struct nd_tar_writer *w)
{
    return w->count;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_dir(struct nd_tar_writer *w, int fd, const char *prefix, struct nd_status *st)
{
    if (w->depth >= MAX_DEPTH) {
        close(fd);
        return nd_status_set(st, "BadRequest", NULL, "%s: directories nested deeper than %d",
                             prefix, MAX_DEPTH);
    }
    int lfd = dup(fd);
    DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
    if (!d) {
        int err = errno;
        if (lfd >= 0)
            close(lfd);
        close(fd);
        return nd_status_set(st, "InternalError", NULL, "cannot list %s: %s", prefix,
                             strerror(err));
    }
    rewinddir(d); /* dup()s share the offset: another walk may have listed it */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = nd_xrealloc(names, cap * sizeof *names);
        }
        names[n++] = nd_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    w->stack = nd_xrealloc(w->stack, (w->depth + 1) * sizeof *w->stack);
    w->stack[w->depth++] = (struct frame){fd, names, n, 0, nd_xstrdup(prefix)};
    return 0;
}

/* Emits the entry `nm` of directory fd (nm NULL: fd itself) as member `member`.
 * 0 also when the entry vanished or is of a type left out. */
static int emit(struct nd_tar_writer *w, int fd, const char *nm, const char *member,
                struct nd_status *st)
{
    struct stat sb;
    int rc = nm ? fstatat(fd, nm, &sb, AT_SYMLINK_NOFOLLOW) : fstat(fd, &sb);
    if (rc < 0) {
        if (errno == ENOENT)
            return 0; /* removed while we walked */
        return nd_status_set(st, "InternalError", NULL, "cannot stat %s: %s", member,
                             strerror(errno));
    }
    int64_t mtime = (int64_t)sb.st_mtim.tv_sec;
    unsigned mode = (unsigned)(sb.st_mode & 07777);
    if (S_ISDIR(sb.st_mode)) {
        int d = nm ? openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : dup(fd);
        if (d < 0)
            return errno == ENOENT ? 0
                                   : nd_status_set(st, "InternalError", NULL, "cannot open %s: %s",
                                                   member, strerror(errno));
        nd_tar_header(&w->out, member, ND_TAR_DIR, mode, 0, mtime, NULL);
        w->count++;
        return push_dir(w, d, member, st);
    }
    if (S_ISREG(sb.st_mode)) {
        int f = nm && !w->measure ? openat(fd, nm, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (f < 0 && nm && !w->measure)
            return errno == ENOENT ? 0
                                   : nd_status_set(st, "InternalError", NULL, "cannot open %s: %s",
                                                   member, strerror(errno));
        nd_tar_header(&w->out, member, ND_TAR_FILE, mode, (uint64_t)sb.st_size, mtime, NULL);
        w->count++;
        w->file_fd = f;
        w->file_left = (uint64_t)sb.st_size;
        w->pad_left = nd_tar_padding((uint64_t)sb.st_size);
        return 0;
    }
    if (S_ISLNK(sb.st_mode) && nm) {
        size_t cap = (size_t)sb.st_size + 2;
        if (cap < 64)
            cap = 64;
        char *target = nd_xmalloc(cap);
        ssize_t n = readlinkat(fd, nm, target, cap - 1);
        if (n < 0) {
            free(target);
            return errno == ENOENT ? 0
                                   : nd_status_set(st, "InternalError", NULL, "cannot read %s: %s",
                                                   member, strerror(errno));
        }
        target[n] = '\0';
        nd_tar_header(&w->out, member, ND_TAR_SYMLINK, 0777, 0, mtime, target);
        w->count++;
        free(target);
        return 0;
    }
    return 0; /* sockets, devices, fifos: left out */
}

struct nd_tar_writer *nd_tar_writer_new(int dirfd, const char *rel, const char *name,
                                        struct nd_status *st)
{
    struct nd_tar_writer *w = nd_xcalloc(1, sizeof *w);
    w->parent = -1;
    w->file_fd = -1;
    nd_buf_init(&w->out, 0);
    w->name = nd_xstrdup(name);
    const char *slash = strrchr(rel, '/');
    if (!*rel) {
        w->parent = nd_tar_open_dir(dirfd, "", false, st);
    } else {
        char *dir = slash ? nd_xstrndup(rel, (size_t)(slash - rel)) : nd_xstrdup("");
        w->parent = nd_tar_open_dir(dirfd, dir, false, st);
        free(dir);
        w->top = nd_xstrdup(slash ? slash + 1 : rel);
        struct stat sb;
        if (w->parent >= 0 && fstatat(w->parent, w->top, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno == ENOENT)
                nd_status_set(st, "NotFound", NULL, "%s: no such file or directory", rel);
            else
                nd_status_set(st, "InternalError", NULL, "cannot stat %s: %s", rel,
                              strerror(errno));
            nd_tar_writer_free(w);
            return NULL;
        }
    }
    if (w->parent < 0) {
        nd_tar_writer_free(w);
        return NULL;
    }
    return w;
}

static int next_entry(struct nd_tar_writer *w, struct nd_status *st)
{
    if (!w->started) {
        w->started = true;
        return emit(w, w->parent, w->top, w->name, st);
    }
    while (w->depth) {
        struct frame *f = &w->stack[w->depth - 1];
        if (f->i == f->n) {
            pop(w);
            continue;
        }
        const char *nm = f->names[f->i++];
        char *member = strcmp(f->prefix, ".") == 0 ? nd_xasprintf("./%s", nm)
                                                   : nd_xasprintf("%s/%s", f->prefix, nm);
        size_t before = w->out.len;
        int rc = emit(w, f->fd, nm, member, st);
        free(member);
        if (rc < 0)
            return -1;
        if (w->out.len != before)
            return 0;
    }
    nd_tar_end(&w->out);
    w->ended = true;
    return 0;
}

ssize_t nd_tar_writer_read(struct nd_tar_writer *w, char *buf, size_t max, struct nd_status *st)
{
    size_t got = 0;
    while (got < max) {
        if (w->out_pos < w->out.len) {
            size_t n = w->out.len - w->out_pos;
            if (n > max - got)
                n = max - got;
            memcpy(buf + got, w->out.data + w->out_pos, n);
            w->out_pos += n;
            got += n;
            continue;
        }
        nd_buf_reset(&w->out);
        w->out_pos = 0;
        if (w->file_left) {
            size_t want = max - got;
            if (want > w->file_left)
                want = (size_t)w->file_left;
            ssize_t n = w->file_fd >= 0 ? read(w->file_fd, buf + got, want) : 0;
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return nd_status_set(st, "InternalError", NULL, "cannot read a file: %s",
                                     strerror(errno));
            if (n == 0) {
                /* the file shrank: zeros keep the archive's framing */
                memset(buf + got, 0, want);
                n = (ssize_t)want;
            }
            got += (size_t)n;
            w->file_left -= (uint64_t)n;
            continue;
        }
        if (w->file_fd >= 0) {
            close(w->file_fd);
            w->file_fd = -1;
        }
        if (w->pad_left) {
            size_t n = w->pad_left < max - got ? w->pad_left : max - got;
            memset(buf + got, 0, n);
            w->pad_left -= n;
            got += n;
            continue;
        }
        if (w->ended)
            break;
        if (next_entry(w, st) < 0)
            return -1;
    }
    return (ssize_t)got;
}

int nd_tar_writer_measure(struct nd_tar_writer *w, uint64_t *bytes, size_t *members,
                          struct nd_status *st)
{
    w->measure = true;
    uint64_t total = 0;
    while (!w->ended) {
        if (next_entry(w, st) < 0)
            return -1;
        total += w->out.len + w->file_left + w->pad_left;
        nd_buf_reset(&w->out);
        w->file_left = 0;
        w->pad_left = 0;
    }
    *bytes = total;
    *members = w->count;
    return 0;
}
