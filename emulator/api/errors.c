/* Status answers and the error reference pages served under /docs/. */
#include "errors.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

void em_resp_status(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                    struct nd_status *st)
{
    if (!st->reason)
        nd_status_set(st, "InternalError", NULL, "unknown error");
    if (!st->code)
        st->code = nd_reason_http_code(st->reason);
    if (!st->fix && nd_reason_fix(st->reason))
        st->fix = nd_xstrdup(nd_reason_fix(st->reason));
    if (!st->docs) {
        char *base = nd_xasprintf("%s/docs", srv->base_url);
        st->docs = nd_status_docs_url(base, st->reason);
        free(base);
    }
    free(st->request_id);
    st->request_id = nd_xstrdup(req->request_id);
    json_int_t retry = json_integer_value(json_object_get(st->details, "retryAfterSeconds"));
    if (retry > 0) {
        char n[24];
        snprintf(n, sizeof n, "%lld", (long long)retry);
        em_resp_set_header(resp, "Retry-After", n);
    }
    json_t *body = nd_status_to_json(st);
    em_resp_json(resp, st->code, body);
    json_decref(body);
}

void em_resp_error(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                   const char *reason, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    struct nd_status st = ND_STATUS_INIT;
    nd_status_set(&st, reason, NULL, "%s", b.data);
    em_resp_status(srv, req, resp, &st);
    nd_status_release(&st);
    nd_buf_release(&b);
}

static void html_escape(struct nd_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': nd_buf_adds(b, "&lt;"); break;
        case '>': nd_buf_adds(b, "&gt;"); break;
        case '&': nd_buf_adds(b, "&amp;"); break;
        case '"': nd_buf_adds(b, "&quot;"); break;
        default: nd_buf_addch(b, *s);
        }
    }
}

void em_docs_handle(struct em_server *srv, const struct em_req *req, const char *p,
                    struct em_resp *resp)
{
    if (strcmp(p, "") != 0 && strcmp(p, "/") != 0 && strcmp(p, "/reference/errors") != 0 &&
        strcmp(p, "/reference/errors/") != 0) {
        em_resp_error(srv, req, resp, "NotFound", "no documentation page at %s", req->path);
        return;
    }
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                    "<title>Nodus error reference</title></head><body>\n"
                    "<h1>Error reference</h1>\n<p>Every error answer of the Nodus API is a "
                    "Kubernetes <code>Status</code> whose <code>reason</code> is one of the "
                    "codes below, with <code>fix</code> (what to do next), <code>docs</code> "
                    "(a link to this page) and <code>requestId</code>.</p>\n");
    size_t i = 0;
    int http;
    const char *summary, *fix, *reason;
    while ((reason = nd_reason_at(i++, &http, &summary, &fix))) {
        nd_buf_adds(&b, "<h2 id=\"");
        for (const char *c = reason; *c; c++)
            nd_buf_addch(&b, (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c));
        nd_buf_addf(&b, "\">%s (HTTP %d)</h2>\n<p>", reason, http);
        html_escape(&b, summary);
        nd_buf_adds(&b, "</p>\n<p>What to do: ");
        html_escape(&b, fix);
        nd_buf_adds(&b, "</p>\n");
    }
    nd_buf_adds(&b, "</body></html>\n");
    em_resp_text(resp, 200, "text/html; charset=utf-8", b.data);
    nd_buf_release(&b);
}
