#include "util/log.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

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
    trace_file = fopen(path, "a");
    if (!trace_file)
        return -1;
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
