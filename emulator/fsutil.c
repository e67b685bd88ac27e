#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

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

int em_read_file(const char *path, struct nd_buf *out)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        nd_buf_add(out, chunk, (size_t)n);
    int saved = errno;
    close(fd);
    errno = saved;
    return n < 0 ? -1 : 0;
}
