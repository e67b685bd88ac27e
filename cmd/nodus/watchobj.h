/* watchobj.h: following one object by watching it (fieldSelector=metadata.name), for
 * `delete --wait` and `wait`. */
#ifndef ND_WATCHOBJ_H
#define ND_WATCHOBJ_H

#include <jansson.h>
#include <stdint.h>

#include "kinds/registry.h"
#include "cli.h"

/* Called with the object as it is now (obj NULL when it does not exist) and then with
 * every change ("ADDED", "MODIFIED", "DELETED"). Return 1 to stop (the wait is over),
 * -1 to stop with an error already in st, 0 to go on. */
typedef int (*nd_watch_fn)(void *cls, const char *type, const json_t *obj, struct nd_status *st);

/* How nd_watch_object follows an object. */
struct nd_watch_opts {
    nd_watch_fn fn;      /* called with the object now and with every change */
    void *cls;           /* fn's */
    int64_t deadline_ms; /* monotonic ms; 0: none */
    const char *what;    /* for Timeout: `timed out waiting for WHAT` */
    const char *note;    /* the terminal's waiting line (below); NULL: none */
};

/* Follows kind/ns/name until opts->fn says stop or the deadline passes. Returns fn's 1, or
 * -1 with st: fn's error, a transport error, or Timeout (`timed out waiting for ...`,
 * with what).
 *
 * A wait longer than a second says what it waits for when stderr is a terminal: one line
 * `waiting for job/train-a: NOTE (phase Running) ...` (an object being deleted names its
 * finalizers instead: `the final charge (finalizer nodus.dev/billing)`), rewritten when it
 * changes and erased when the wait ends. */
int nd_watch_object(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns, const char *name,
                    const struct nd_watch_opts *opts, struct nd_status *st);

/* The line itself, for other waits: shown on stderr (a terminal only) once a second has
 * passed since nd_wait_note_start, rewritten by each nd_wait_note_set that changes it,
 * erased by nd_wait_note_end. Start returns NULL when stderr is not a terminal; the
 * others accept NULL. */
struct nd_wait_note;
struct nd_wait_note *nd_wait_note_start(void);
void nd_wait_note_set(struct nd_wait_note *n, const char *text);
void nd_wait_note_end(struct nd_wait_note *n);
/* Monotonic clock in ms. */
int64_t nd_now_ms(void);

#endif
