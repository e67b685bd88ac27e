#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/xmalloc.h"

/* Linux's syncfs(2) (glibc declares it only under _GNU_SOURCE, which the build does not
 * set: banned.h is included first) */
int syncfs(int fd);

int em_rm_rf(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) < 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(sb.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = nd_xasprintf("%s/%s", path, e->d_name);
        if (em_rm_rf(child) < 0)
            rc = -1;
        free(child);
    }
    closedir(d);
    if (rmdir(path) < 0)
        rc = -1;
    return rc;
}

int em_mkdir_p(const char *path)
{
    char *p = nd_xstrdup(path);
    for (char *q = p + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *q = '/';
    }
    int rc = mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* Copies the tree at from to to (regular files, directories, symbolic links as links). */
int em_copy_tree(const char *from, const char *to)
{
    struct stat sb;
    if (lstat(from, &sb) < 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISLNK(sb.st_mode)) {
        char target[4096];
        ssize_t n = readlink(from, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = 0;
        return symlink(target, to);
    }
    if (S_ISDIR(sb.st_mode)) {
        if (mkdir(to, sb.st_mode & 07777) < 0 && errno != EEXIST)
            return -1;
        DIR *d = opendir(from);
        if (!d)
            return -1;
        int rc = 0;
        struct dirent *e;
        while (rc == 0 && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *f = nd_xasprintf("%s/%s", from, e->d_name);
            char *t = nd_xasprintf("%s/%s", to, e->d_name);
            rc = em_copy_tree(f, t);
            free(f);
            free(t);
        }
        closedir(d);
        return rc;
    }
    if (!S_ISREG(sb.st_mode))
        return 0;
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, sb.st_mode & 07777);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0, err = 0;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0) {
                err = errno;
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc < 0)
            break;
    }
    if (n < 0 && !err) {
        err = errno;
        rc = -1;
    }
    close(in);
    if (close(out) < 0 && !err) {
        err = errno; /* a full disk may say so only here */
        rc = -1;
    }
    if (rc < 0)
        errno = err; /* what failed first, for the caller's message */
    return rc;
}

int em_open_making_dir(const char *path, int flags)
{
    int fd = open(path, flags, 0644);
    if (fd < 0 && errno == ENOENT) {
        char *dir = nd_xstrdup(path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        em_mkdir_p(dir);
        free(dir);
        fd = open(path, flags, 0644);
    }
    return fd;
}

int em_append_line(const char *path, const char *data, size_t len)
{
    int fd = em_open_making_dir(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat sb;
    char last = '\n';
    if (fstat(fd, &sb) < 0 || (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) != 1)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    size_t off = 0;
    int rc = 0;
    if (last != '\n' && write(fd, "\n", 1) != 1)
        rc = -1;
    while (rc == 0 && off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        off += (size_t)n;
    }
    int e = errno;
    if (rc < 0 && ftruncate(fd, sb.st_size) < 0) {
        /* a torn last line: the next start cuts it off */
    }
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    errno = e;
    return rc;
}

/* The length of the state directory's part of path, when path is
 * DIR/objects/<project>/<plural>/<file>; else 0. */
static size_t state_dir_len(const char *path)
{
    const char *end = path + strlen(path);
    for (int slashes = 0; end > path;) {
        if (*--end == '/' && ++slashes == 4)
            break;
    }
    if (end == path || strncmp(end, "/objects/", 9) != 0)
        return 0;
    return (size_t)(end - path);
}

/* The first free name aside for path (em_move_aside), its directory made: NEW, or NULL. */
static char *aside_name(const char *path)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm))
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    size_t dlen = state_dir_len(path);
    char *base = dlen ? nd_xasprintf("%.*s/broken/%s.%s", (int)dlen, path, path + dlen + 9, stamp)
                      : nd_xasprintf("%s.broken.%s", path, stamp);
    char *dir = nd_xstrdup(base);
    *strrchr(dir, '/') = '\0';
    int rc = em_mkdir_p(dir);
    free(dir);
    char *name = rc == 0 ? nd_xstrdup(base) : NULL;
    struct stat sb;
    for (int n = 1; name && lstat(name, &sb) == 0; n++) {
        free(name);
        name = nd_xasprintf("%s.%d", base, n);
    }
    free(base);
    return name;
}

char *em_move_aside(const char *path)
{
    char *to = aside_name(path);
    if (to && rename(path, to) < 0) {
        int e = errno;
        free(to);
        to = NULL;
        errno = e;
    }
    return to;
}

char *em_write_aside(const char *path, const char *data, size_t len)
{
    char *to = aside_name(path);
    int fd = to ? open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
    int e = fd < 0 ? errno : 0;
    for (size_t off = 0; fd >= 0 && !e && off < len;) {
        ssize_t n = write(fd, data + off, len - off);
        if (n > 0)
            off += (size_t)n;
        else if (n == 0 || errno != EINTR)
            e = n < 0 ? errno : EIO;
    }
    if (fd >= 0 && close(fd) < 0 && !e)
        e = errno; /* a full disk may say so only here */
    if (e) {
        if (fd >= 0)
            unlink(to);
        free(to);
        errno = e;
        return NULL;
    }
    return to;
}

int em_syncfs_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = syncfs(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}
