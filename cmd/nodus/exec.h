/* exec.h: running a command in a workload without a terminal, its output kept (the exec
 * verb's session, verbs/exec.c; nodus mcp's exec tool). */
#ifndef ND_CMD_EXEC_H
#define ND_CMD_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "kinds/registry.h"
#include "cli.h"
#include "util/buf.h"

struct nd_exec_req {
    const struct nd_kind *k;     /* a kind with the exec subresource */
    const char *name;            /* in the context's project */
    const char *const *command;  /* the words, NULL-terminated */
    int timeout_ms;              /* the session ends after it (res->timed_out) */
    size_t max_bytes;            /* of each stream kept (0: 64 KiB); the rest counted */
};

struct nd_exec_result {
    struct nd_buf out, err;      /* the command's stdout and stderr (init them) */
    size_t out_total, err_total; /* bytes each stream sent in all */
    int exit_code;               /* -1 when timed out */
    bool timed_out;              /* the deadline passed: the session was closed */
};

/* Runs r's command with no stdin and no terminal. 0 with *res (the command ran, or timed
 * out), or -1 with st (the server's refusal: NotFound, a workload not Running ...). */
int nd_exec_capture(struct nd_ctx *ctx, const struct nd_exec_req *r, struct nd_exec_result *res,
                    struct nd_status *st);

#endif
