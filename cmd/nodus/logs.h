/* logs.h: following a log until its object ends, shared by logs and run. */
#ifndef ND_CMD_LOGS_H
#define ND_CMD_LOGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kinds/registry.h"
#include "cli.h"

/* What part of a log to print (logs' flags). */
struct nd_log_query {
    int64_t tail;     /* --tail: last N lines; -1 all */
    int64_t since_ms; /* --since; 0 none */
    int64_t limit;    /* --limit-bytes; 0 none */
    const char *since_time;
    bool timestamps;
};

/* Prints the log of k/name in project ns from q on, following it (and resuming after a
 * dropped connection) until the object ends; each line starts with prefix when it is
 * not NULL. Returns as logs -f: 0 when it ended well, 1 when it ended Failed or
 * Cancelled or was deleted (why is printed on stderr), or an error's exit code (printed).
 * *last (NEW; may be NULL, last too): the object as it ended. */
int nd_logs_follow(struct nd_ctx *ctx, const struct nd_log_query *q, const struct nd_kind *k,
                   const char *ns, const char *name, const char *prefix, json_t **last);

#endif
