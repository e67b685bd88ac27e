/* loglines.h: the lines of an object's log, as the simulation makes them (logsim.c) and
 * the local runtime writes them (runtime.c); the log subresource (api/logs.h) serves
 * them. */
#ifndef EM_LOGLINES_H
#define EM_LOGLINES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kinds/registry.h"
#include "server.h"
#include "util/buf.h"

struct em_log_line {
    int64_t ns;  /* emulated time, nanoseconds since the epoch */
    char *text;  /* without its newline (owned) */
};

struct em_log_lines {
    struct em_log_line *v;
    size_t len, cap;
};

/* Appends a line (the text is formatted and owned by the list). */
void em_log_add(struct em_log_lines *l, int64_t ns, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends text (len bytes, no newline) as a line. */
void em_log_addn(struct em_log_lines *l, int64_t ns, const char *text, size_t len);
void em_log_lines_release(struct em_log_lines *l);

/* Where an object's log stands at an emulated time. */
struct em_log_state {
    int64_t run;  /* the run shown, as its start (emulated ms); -1 before the first run */
    bool ended;   /* nothing more will be printed: a follow ends once it has sent all */
    bool local;   /* the lines come from the local runtime's file */
};

/* The simulated log of obj's last run as printed by now_ms, appended to out, and where
 * it stands (logsim.c). obj is the stored object (borrowed). */
void em_logsim_read(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                    int64_t now_ms, struct em_log_lines *out, struct em_log_state *state);

/* The run an object is in or last ran, from its status (logsim.c): -1 when it has not
 * started; *ended as in em_log_state. */
int64_t em_logsim_run(const struct nd_kind *k, const json_t *obj, bool *ended);

/* Appends "2026-01-02T03:04:05.123456789Z" (RFC 3339, nine fraction digits, as the
 * kubelet writes) for ns nanoseconds since the epoch. */
void em_log_format_time(int64_t ns, struct nd_buf *out);

#endif
