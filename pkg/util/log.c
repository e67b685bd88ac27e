#include "util/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/xmalloc.h"

int nd_log_level = 0;
static FILE *trace_file;

int nd_log_init(int level)
{
    if (level >= 0)
        nd_log_level = level;
    const char *path = getenv("NODUS_TRACE");
    if (!path || !*path || trace_file)
        return 0;
    /* The trace holds request and response bodies: only its owner may read it. A path
     * planted in advance (a symbolic link, a hard link, a FIFO, someone else's file in
     * /tmp) is refused, never followed nor chmodded: O_NOFOLLOW on the last component,
     * O_NONBLOCK so a FIFO cannot block the open, then checks on what was opened. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0)
        return -1;
    struct stat st;
    int bad = fstat(fd, &st) < 0       ? errno
              : !S_ISREG(st.st_mode)   ? EINVAL
              : st.st_uid != geteuid() ? EPERM
              : st.st_nlink != 1       ? EMLINK
                                       : 0;
    if (!bad && (st.st_mode & 077) && fchmod(fd, st.st_mode & 0700) < 0)
        bad = errno; /* an older, looser file is tightened, through the fd */
    int fl = bad ? 0 : fcntl(fd, F_GETFL);
    if (!bad && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
        bad = errno;
    if (bad) {
        close(fd);
        errno = bad;
        return -1;
    }
    trace_file = fdopen(fd, "a");
    if (!trace_file) {
        close(fd);
        return -1;
    }
    if (nd_log_level < 8)
        nd_log_level = 8;
    return 0;
}

void nd_log_close(void)
{
    if (trace_file)
        fclose(trace_file);
    trace_file = NULL;
}

void nd_log_write(int level, const char *fmt, ...)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    time_t secs = tv.tv_sec;
    localtime_r(&secs, &tm);

    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "%c%02d%02d %02d:%02d:%02d.%06ld ", level <= 0 ? 'E' : 'I', tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec);
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    nd_buf_addch(&b, '\n');
    FILE *out = trace_file ? trace_file : stderr;
    fwrite(b.data, 1, b.len, out);
    fflush(out);
    nd_buf_release(&b);
}

char *nd_log_redact_header(const char *line)
{
    const char *colon = strchr(line, ':');
    if (!colon)
        return nd_xstrdup(line);
    size_t name_len = (size_t)(colon - line);
    char *name = nd_xstrndup(line, name_len);
    for (char *p = name; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    bool secret = strcmp(name, "authorization") == 0 || strstr(name, "token") != NULL ||
                  strcmp(name, "cookie") == 0;
    free(name);
    if (!secret)
        return nd_xstrdup(line);
    return nd_xasprintf("%.*s: <masked>", (int)name_len, line);
}
