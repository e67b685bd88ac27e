/* watchobj.h: following one object by watching it (fieldSelector=metadata.name), for
 * `delete --wait` and `wait`. */
#ifndef ND_WATCHOBJ_H
#define ND_WATCHOBJ_H

#include <jansson.h>
#include <stdint.h>

#include "api/registry.h"
#include "cli.h"

/* Called with the object as it is now (obj NULL when it does not exist) and then with
 * every change ("ADDED", "MODIFIED", "DELETED"). Return 1 to stop (the wait is over),
 * -1 to stop with an error already in st, 0 to go on. */
typedef int (*nd_watch_fn)(void *cls, const char *type, const json_t *obj, struct nd_status *st);

/* Follows kind/ns/name until fn says stop or the deadline (monotonic ms, 0: none)
 * passes. Returns fn's 1, or -1 with st: fn's error, a transport error, or Timeout
 * (`timed out waiting for ...`, with what). */
int nd_watch_object(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns,
                    const char *name, int64_t deadline_ms, nd_watch_fn fn, void *cls,
                    const char *what, struct nd_status *st);
/* Monotonic clock in ms. */
int64_t nd_now_ms(void);

#endif
