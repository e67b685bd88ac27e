/* router.h: maps each request to its handler (API paths, discovery, OpenAPI, control
 * endpoints, docs) and turns every failure into a Status answer. */
#ifndef EM_ROUTER_H
#define EM_ROUTER_H

#include "server.h"

int em_router_init(struct em_server *srv, struct nd_buf *err);
/* Applies --seed manifests and makes sure the built-in projects and catalogue exist.
 * Called after the server listens and before it reports ready. */
int em_router_seed(struct em_server *srv, struct nd_buf *err);
/* Makes sure the projects default and nodus and the Image catalogue exist. */
int em_builtin_ensure(struct em_server *srv, struct nd_status *st);
/* The em_handler_fn given to the HTTP layer; cls is the struct em_server. */
void em_router_handle(void *cls, struct em_req *req, struct em_resp *resp);
/* The em_quick_fn given to the HTTP layer: a read that cannot wait (a GET, or a LIST of a
 * page, with the server's lock free and everything in memory on disk) is served on the
 * loop's thread that read it, without a worker; any other goes to em_router_handle. */
bool em_router_quick(void *cls, struct em_req *req, struct em_resp *resp);
/* The em_begin_fn given to the HTTP layer: uploads to the files subresource stream. */
enum em_body_plan em_router_begin(void *cls, struct em_req *req, struct em_resp *resp);
/* Ends background work (controllers, streams) before the HTTP layer stops. */
void em_router_stop(struct em_server *srv);
void em_router_release(struct em_server *srv);

#endif
