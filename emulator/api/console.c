/* The console's files (see console.h). */
#include "console.h"

#include <string.h>

#include "errors.h"
#include "util/embed.h"

/* scripts/embed.sh emulator/console/...: build/gen/console_files.c */
extern const struct nd_embed em_console_files[];

/* Scripts, styles, images and connections from this origin only (the watches, the log
 * streams and the exec WebSocket included); no inline script or style, no plugin, no
 * framing of the page by another. */
const char em_console_csp[] =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

static const struct {
    const char *ext, *type;
} types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".json", "application/json"},
};

static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return NULL;
}

static const struct nd_embed *find(const char *name)
{
    for (const struct nd_embed *f = em_console_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

void em_console_handle(struct em_server *srv, const struct em_req *req, const char *file,
                       struct em_resp *resp)
{
    if (srv->opt.no_console) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "NotFound",
                      "start the emulator without the --no-console flag to serve the console "
                      "(docs/console.md)",
                      "the console is turned off on this emulator (--no-console)");
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return;
    }
    const char *name = *file ? file : "index.html";
    const struct nd_embed *f = strchr(name, '/') ? NULL : find(name);
    const char *type = f ? type_of(f->name) : NULL;
    if (!type) {
        struct nd_status st = ND_STATUS_INIT;
        nd_status_set(&st, "NotFound", "open the console at / (its pages are under #/)",
                      "the console has no file %s", req->path);
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return;
    }
    resp->code = 200;
    nd_buf_reset(&resp->body);
    nd_buf_add(&resp->body, f->data, f->len);
    em_resp_set_type(resp, type);
    em_resp_set_header(resp, "Content-Security-Policy", em_console_csp);
    em_resp_set_header(resp, "X-Frame-Options", "DENY");
    em_resp_set_header(resp, "Referrer-Policy", "no-referrer");
    em_resp_set_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
    em_resp_set_header(resp, "Cache-Control", "no-cache");
}
