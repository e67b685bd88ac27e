/* line_stream.h: a stream of JSON lines that the control endpoints' watches make under
 * the server lock (GET clock?watch=true, GET spend?watch=true): the read loop, the
 * deadline, the client that went away, shutdown and the count of open watches in one
 * place; each watch says only what its next lines are. */
#ifndef EM_LINE_STREAM_H
#define EM_LINE_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "http.h"
#include "server.h"
#include "util/buf.h"
#include "util/status.h"

struct em_line_stream;
/* Adds what is new since the last call (em_line_stream_add), or nothing; server lock
 * held. Called again after each wake (a change, or a second passing). */
typedef void (*em_line_fill_fn)(struct em_line_stream *ls, void *cls);

struct em_line_stream {
    struct em_server *srv;
    em_line_fill_fn fill;
    void *cls;                /* the watch's own state, freed by release */
    void (*release)(void *cls);
    int64_t deadline_real_ms; /* 0: none */
    bool ended;               /* set by em_line_stream_end: what is pending, then the end */
    struct nd_buf pending;
    size_t sent;
    struct em_stream *stream;
};

/* ?watch= (a ParseBool) and ?timeoutSeconds= (real seconds, 0: none) of req: 0, or -1
 * with st (BadRequest naming the parameter). */
int em_line_stream_query(const struct em_req *req, bool *watch, int64_t *timeout_s,
                         struct nd_status *st);
/* Makes resp the stream (200, application/json); fill makes its lines until the client
 * goes, the deadline passes, shutdown or em_line_stream_end. Server lock held. */
void em_line_stream_start(struct em_server *srv, struct em_resp *resp, int64_t timeout_s,
                          em_line_fill_fn fill, void *cls, void (*release)(void *cls));
/* One line: {"type": TYPE, "object": OBJ}, or OBJ itself when type is NULL (obj is
 * stolen). */
void em_line_stream_add(struct em_line_stream *ls, const char *type, json_t *obj);
/* No line after what is pending. */
void em_line_stream_end(struct em_line_stream *ls);

#endif
