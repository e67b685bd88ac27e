/* subresource.h: the subresources beyond status (log, exec, files, invoke), each served
 * by its own file through one table (subresource.c).
 *
 * A handler runs like the others (server lock held, a->kind, a->ns and a->path.name
 * checked); it answers through a->resp, or returns -1 with a->st filled. A handler that
 * streams (a followed log) or upgrades (exec) must not touch the store from its stream
 * callback without taking srv->lock.
 */
#ifndef EM_SUBRESOURCE_H
#define EM_SUBRESOURCE_H

#include "api.h"

typedef int (*em_subresource_fn)(struct em_api *a, const char *verb);

/* Serves a->path.sub for the verb ("get", "create", "update", "patch", ...). NotFound
 * when the kind has no such subresource. */
int em_subresource_dispatch(struct em_api *a, const char *verb);

/* The handlers (one file each). */
int em_function_invoke(struct em_api *a, const char *verb); /* invoke.c */

#endif
