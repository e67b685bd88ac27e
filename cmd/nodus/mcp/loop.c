/* loop.c: the event loop of nodus mcp: one poll over the transports' fds and the pipes
 * of the running calls. Single-threaded, so that a call's fork copies nothing half-done. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "util/xmalloc.h"

void mcp_server_init(struct mcp_server *srv, struct nd_ctx *ctx, const struct mcp_config *cfg)
{
    memset(srv, 0, sizeof *srv);
    srv->ctx = ctx;
    srv->cfg = cfg;
    srv->audit = stderr;
    /* a client gone away must not kill us mid-write: EPIPE is handled where we write */
    signal(SIGPIPE, SIG_IGN);
}

void mcp_server_release(struct mcp_server *srv)
{
    while (srv->jobs)
        mcp_job_cancel(srv->jobs);
    mcp_workers_release(srv);
    free(srv->watches);
    if (srv->audit && srv->audit != stderr)
        fclose(srv->audit);
    srv->watches = NULL;
    srv->nwatches = srv->capwatches = 0;
}

void mcp_loop_watch(struct mcp_server *srv, int fd, short events, mcp_fd_fn fn, void *cls)
{
    for (size_t i = 0; i < srv->nwatches; i++)
        if (srv->watches[i].fd == fd) {
            srv->watches[i] = (struct mcp_watch){fd, events, fn, cls};
            return;
        }
    if (srv->nwatches == srv->capwatches) {
        srv->capwatches = srv->capwatches ? 2 * srv->capwatches : 8;
        srv->watches = nd_xrealloc(srv->watches, srv->capwatches * sizeof *srv->watches);
    }
    srv->watches[srv->nwatches++] = (struct mcp_watch){fd, events, fn, cls};
}

void mcp_loop_unwatch(struct mcp_server *srv, int fd)
{
    for (size_t i = 0; i < srv->nwatches; i++)
        if (srv->watches[i].fd == fd) {
            srv->watches[i] = srv->watches[--srv->nwatches];
            return;
        }
}

/* One round: poll, then call the watch of each fd that is ready. A callback may change
 * the watches, so each ready fd is looked up again before its call. */
static int round_once(struct mcp_server *srv)
{
    size_t n = srv->nwatches;
    struct pollfd *p = nd_xcalloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = (struct pollfd){.fd = srv->watches[i].fd, .events = srv->watches[i].events};
    int timeout = srv->timeout_ms ? srv->timeout_ms(srv->tick_cls) : -1;
    int rc = poll(p, n, timeout);
    if (rc < 0) {
        free(p);
        return errno == EINTR ? 0 : -1;
    }
    for (size_t i = 0; i < n && rc > 0; i++) {
        if (!p[i].revents)
            continue;
        rc--;
        for (size_t j = 0; j < srv->nwatches; j++)
            if (srv->watches[j].fd == p[i].fd) {
                struct mcp_watch w = srv->watches[j];
                w.fn(w.cls, w.fd, p[i].revents);
                break;
            }
    }
    free(p);
    if (srv->tick)
        srv->tick(srv->tick_cls);
    return 0;
}

int mcp_loop_run(struct mcp_server *srv)
{
    while (!(srv->stopping && !srv->jobs)) {
        if (!srv->nwatches && !srv->timeout_ms)
            break; /* nothing could ever wake us */
        if (round_once(srv) < 0)
            return -1;
    }
    return 0;
}
