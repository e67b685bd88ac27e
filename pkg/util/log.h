/* log.h: diagnostics on stderr (or the file named by NODUS_TRACE), by kubectl -v level.
 *
 * Levels follow kubectl: 0 errors only, 2 useful steps, 6 each request with status and
 * latency, 7 request and response headers (tokens redacted), 8 bodies, 9 a curl command
 * that replays the request. nd_log() tests the level before it evaluates its arguments,
 * so a disabled line costs one comparison.
 */
#ifndef ND_LOG_H
#define ND_LOG_H

#include <stdbool.h>

extern int nd_log_level;

#define nd_log(level, ...)                                                                         \
    do {                                                                                           \
        if ((level) <= nd_log_level)                                                               \
            nd_log_write((level), __VA_ARGS__);                                                    \
    } while (0)

#define nd_log_enabled(level) ((level) <= nd_log_level)

/* Sets the level; a negative level keeps the current one. When NODUS_TRACE names a
 * file, lines go there (appended) instead of stderr and the level is at least 8.
 * The file is opened without following a symbolic link and must be a regular file of
 * the user's with one link (it is created 0600; a looser one is tightened through its
 * descriptor). Returns -1 with errno when it cannot be used (ELOOP: a symbolic link,
 * EINVAL: not a regular file, EPERM: someone else's, EMLINK: a hard link); logging
 * then stays on stderr. */
int nd_log_init(int level);
/* Writes one line "I1129 16:59:19.123456 <text>" (kubectl/klog style) and a newline. */
void nd_log_write(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes the trace file, if any. */
void nd_log_close(void);
/* Returns a header line safe to log: the value of Authorization (and of any header
 * whose name contains "token") replaced by "<masked>". New string. */
char *nd_log_redact_header(const char *line);

#endif
