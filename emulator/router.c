/* Request routing. */
#include "router.h"

#include <string.h>

int em_router_init(struct em_server *srv, struct nd_buf *err)
{
    (void)srv;
    (void)err;
    return 0;
}

int em_router_seed(struct em_server *srv, struct nd_buf *err)
{
    (void)srv;
    (void)err;
    return 0;
}

int em_builtin_ensure(struct em_server *srv, struct nd_status *st)
{
    (void)srv;
    (void)st;
    return 0;
}

void em_router_handle(void *cls, struct em_req *req, struct em_resp *resp)
{
    struct em_server *srv = cls;
    (void)srv;
    if (strcmp(req->path, "/healthz") == 0 || strcmp(req->path, "/livez") == 0 ||
        strcmp(req->path, "/readyz") == 0) {
        em_resp_text(resp, 200, "text/plain; charset=utf-8", "ok");
        return;
    }
    em_resp_text(resp, 404, "text/plain", "not found");
}

void em_router_stop(struct em_server *srv)
{
    (void)srv;
}

void em_router_release(struct em_server *srv)
{
    (void)srv;
}
