/* errors.h: writing a struct nd_status as the API's error answer. */
#ifndef EM_ERRORS_H
#define EM_ERRORS_H

#include "server.h"
#include "util/status.h"

/* Fills resp with st as a Status body: the reason's HTTP code, `fix` (the reason's
 * default when st has none), `docs` (this emulator's /docs page for the reason) and
 * `requestId`; adds Retry-After when details.retryAfterSeconds is set. */
void em_resp_status(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                    struct nd_status *st);
/* Shorthand: builds the status from reason and message, then em_resp_status. */
void em_resp_error(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                   const char *reason, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* GET /docs/...: the error reference pages; page is the path after /docs (its route's
 * docs_page). */
void em_docs_handle(struct em_server *srv, const struct em_req *req, const char *page,
                    struct em_resp *resp);

#endif
