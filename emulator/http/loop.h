/* loop.h: what keeps libmicrohttpd's event loop from blocking (http.c's own helpers).
 *
 * libmicrohttpd runs a few epoll threads (the loop); nothing on them may wait. So:
 *   - a request's handler (which may wait: for the journal's durability, a fresh read, a
 *     lock) runs on a worker thread while its connection is suspended; the connection is
 *     resumed and answered once the handler returns. A request that cannot wait (a read
 *     served from memory) is answered on the loop by the quick hook instead (http.h). Workers are made when none is idle
 *     and leave after a few idle seconds, so a handler never waits for another's turn;
 *   - a stream (struct em_stream) is live here while it is answered. A non-blocking one
 *     (a watch: em_stream.nonblocking) is read on the loop; when it has nothing it asks
 *     to be woken (em_stream_wake) and its connection is suspended, costing no thread.
 *     A blocking one (a followed log, the clock's watch) gets a pump thread that reads it
 *     into a bounded buffer (64 KiB) which the loop sends;
 *   - one ticker thread wakes a suspended stream when its wake_at_ms passes, and one
 *     whose client went away: it waits on an epoll of the streams' sockets for their
 *     hang-ups (libmicrohttpd watches no suspended socket) and peeks once a second at a
 *     socket it could not add there;
 *   - what a handler asks to run after its answer (em_http_after_answer: the wakes of
 *     the watches its write is news to) runs on its worker once the answer is sent, or
 *     after 50 ms at most: the writer's answer first, then the fan-out, each at once.
 * em_loop_stop ends every stream, waits for the handlers and pumps (15 s at most) and
 * leaves nothing suspended, as libmicrohttpd's stop requires.
 */
#ifndef EM_LOOP_H
#define EM_LOOP_H

#include <microhttpd.h>
#include <stdbool.h>
#include <sys/types.h>

#include "http.h"

struct em_loop;
struct em_live;

struct em_loop *em_loop_new(void);
/* The ticker: 0, or -1 when it cannot start. */
int em_loop_start(struct em_loop *l);
/* Ends every stream and waits for handlers and pumps: true when all ended (the loop may
 * then be freed), false after 15 s (leave it). */
bool em_loop_stop(struct em_loop *l);
void em_loop_free(struct em_loop *l);

/* On the loop, in an access handler: suspends c and runs fn(cls) on a worker; fn must
 * resume c (MHD_resume_connection) once done. False when stopping (nothing runs and c
 * is not suspended). */
bool em_loop_dispatch(struct em_loop *l, struct MHD_Connection *c, void (*fn)(void *cls),
                      void *cls);

/* On a worker, in a job: whether it asked for something to run after its answer. */
bool em_loop_after_pending(void);

/* A stream answered on connection c (owns s from now on). em_live_read is its
 * libmicrohttpd content reader, em_live_free its free callback. */
struct em_live *em_live_new(struct em_loop *l, struct em_stream *s, struct MHD_Connection *c);
ssize_t em_live_read(void *cls, uint64_t pos, char *buf, size_t max);
void em_live_free(void *cls);

#endif
