/* discovery.h: /version, /api, /apis (legacy and aggregated discovery), the resource
 * lists and the OpenAPI v3 documents, all derived from the kind registry and built
 * once at start. */
#ifndef EM_DISCOVERY_H
#define EM_DISCOVERY_H

#include "server.h"

int em_discovery_init(struct em_server *srv, struct nd_buf *err);
void em_discovery_release(struct em_server *srv);
/* 1 when the path is a discovery or OpenAPI path (resp filled), 0 otherwise. */
int em_discovery_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp);

#endif
