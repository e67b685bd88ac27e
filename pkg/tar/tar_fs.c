/* tar_fs.c: the file system side of extraction (tar_extract.c), never writing outside
 * the destination.
 *
 * Every path is walked one component at a time from the destination's descriptor with
 * openat(O_NOFOLLOW | O_DIRECTORY): a symbolic link on the way (one that was there
 * before, or one the archive itself made) stops the walk instead of being followed, so
 * neither a member name nor the tree's own links can lead a write elsewhere.
 */
#include "tar/tar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tar/tar_internal.h"
#include "util/xmalloc.h"

int nd_tar_io_error(struct nd_status *st, const char *what, const char *path, int err)
{
    /* a full disk is the writer's disk, not a bug: nothing of the archive is placed */
    if (err == ENOSPC || err == EDQUOT)
        return nd_status_set(st, "StorageFull",
                             "free space on the disk the files go to, then retry", "%s %s: %s",
                             what, *path ? path : ".", strerror(err));
    if (err == EIO)
        return nd_status_set(st, "StorageError", "check the disk the files go to, then retry",
                             "%s %s: %s", what, *path ? path : ".", strerror(err));
    return nd_status_set(st, "InternalError", NULL, "%s %s: %s", what, *path ? path : ".",
                         strerror(err));
}

/* Opens one directory component under fd; with create, makes it first when missing. */
static int open_component(int fd, const char *comp, const char *path, bool create,
                          struct nd_status *st)
{
    for (int tries = 0; tries < 2; tries++) {
        int d = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d >= 0)
            return d;
        int err = errno;
        if (err == ENOENT && create && tries == 0) {
            if (mkdirat(fd, comp, 0755) == 0 || errno == EEXIST)
                continue;
            return nd_tar_io_error(st, "cannot create", path, errno);
        }
        if (err == ENOENT)
            return nd_status_set(st, "NotFound", NULL, "%s: no such file or directory", path);
        if (err == ELOOP || err == ENOTDIR) {
            struct stat sb;
            bool link = fstatat(fd, comp, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
            return nd_status_set(st, "BadRequest", NULL, "%s is %s, not a directory", path,
                                 link ? "a symbolic link" : "a file");
        }
        return nd_tar_io_error(st, "cannot open", path, err);
    }
    return nd_tar_io_error(st, "cannot open", path, ENOENT);
}

/* Walks the first `ncomp` components of rel (all when ncomp < 0). */
int nd_tar_walk(int dirfd, const char *rel, int ncomp, bool create, struct nd_status *st)
{
    int fd = dup(dirfd);
    if (fd < 0)
        return nd_tar_io_error(st, "cannot open", rel, errno);
    struct nd_buf path = ND_BUF_INIT;
    const char *p = rel;
    for (int i = 0; *p && (ncomp < 0 || i < ncomp); i++) {
        size_t n = strcspn(p, "/");
        char *comp = nd_xstrndup(p, n);
        if (path.len)
            nd_buf_addch(&path, '/');
        nd_buf_adds(&path, comp);
        int next = open_component(fd, comp, path.data, create, st);
        free(comp);
        close(fd);
        if (next < 0) {
            fd = -1;
            break;
        }
        fd = next;
        p += n;
        while (*p == '/')
            p++;
    }
    nd_buf_release(&path);
    return fd;
}

int nd_tar_open_dir(int dirfd, const char *rel, bool create, struct nd_status *st)
{
    return nd_tar_walk(dirfd, rel, -1, create, st);
}

int nd_tar_count_components(const char *rel)
{
    int n = 0;
    for (const char *p = rel; *p;) {
        n++;
        p += strcspn(p, "/");
        while (*p == '/')
            p++;
    }
    return n;
}

const char *nd_tar_last_component(const char *rel)
{
    const char *s = strrchr(rel, '/');
    return s ? s + 1 : rel;
}

int nd_tar_lstat(int dirfd, const char *rel, struct stat *out, struct nd_status *st)
{
    if (!*rel) {
        if (fstat(dirfd, out) < 0)
            return nd_tar_io_error(st, "cannot stat", rel, errno);
        return 0;
    }
    int fd = nd_tar_walk(dirfd, rel, nd_tar_count_components(rel) - 1, false, st);
    if (fd < 0)
        return -1;
    int rc = 0;
    if (fstatat(fd, nd_tar_last_component(rel), out, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            rc = nd_status_set(st, "NotFound", NULL, "%s: no such file or directory", rel);
        else
            rc = nd_tar_io_error(st, "cannot stat", rel, errno);
    }
    close(fd);
    return rc;
}

void nd_tar_set_times(int fd, const char *name, int64_t mtime, int flags)
{
    struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)mtime, 0}};
    if (name)
        utimensat(fd, name, ts, flags);
    else
        futimens(fd, ts);
}

/* Removes what stands at name unless it is a directory (which EISDIR reports). */
int nd_tar_clear_slot(int parent, const char *name, const char *path, struct nd_status *st)
{
    struct stat sb;
    if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : nd_tar_io_error(st, "cannot stat", path, errno);
    if (S_ISDIR(sb.st_mode))
        return nd_status_set(st, "BadRequest", NULL,
                             "cannot write %s: a directory of that name exists", path);
    if (unlinkat(parent, name, 0) < 0)
        return nd_tar_io_error(st, "cannot replace", path, errno);
    return 0;
}

int nd_tar_make_dir(int parent, const char *name, const char *path, struct nd_status *st)
{
    if (mkdirat(parent, name, 0700) == 0)
        return 0;
    if (errno != EEXIST)
        return nd_tar_io_error(st, "cannot create", path, errno);
    struct stat sb;
    if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode))
        return 0;
    return nd_status_set(st, "BadRequest", NULL,
                         "cannot make the directory %s: a file or symbolic link of that name "
                         "exists",
                         path);
}

/* Removes the tree under dirfd/name without following a link, one descriptor at a time
 * (a deep tree needs no more): best effort. */
void nd_tar_remove_tree(int dirfd, const char *name)
{
    if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return;
    char **stack = NULL;
    size_t depth = 0;
    int cur = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    while (cur >= 0) {
        int lfd = dup(cur);
        DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
        if (!d) {
            if (lfd >= 0)
                close(lfd);
            break;
        }
        char *sub = NULL;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            if (unlinkat(cur, de->d_name, 0) == 0)
                continue;
            if (unlinkat(cur, de->d_name, AT_REMOVEDIR) == 0)
                continue;
            sub = nd_xstrdup(de->d_name);
            break;
        }
        closedir(d);
        if (sub) {
            int next = openat(cur, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) {
                free(sub);
                break;
            }
            close(cur);
            cur = next;
            stack = nd_xrealloc(stack, (depth + 1) * sizeof *stack);
            stack[depth++] = sub;
            continue;
        }
        if (!depth)
            break;
        int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(cur);
        cur = up;
        char *done = stack[--depth];
        if (cur >= 0)
            unlinkat(cur, done, AT_REMOVEDIR);
        free(done);
    }
    if (cur >= 0)
        close(cur);
    while (depth)
        free(stack[--depth]);
    free(stack);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

