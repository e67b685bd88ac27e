/* console.h: the console, a page for browsers served by the emulator itself (GET /,
 * /console, /console/FILE): its files are compiled into the binary (emulator/console/,
 * embedded by scripts/embed.sh as em_console_files), served with a strict
 * Content-Security-Policy. The page holds no data: it reads and changes everything
 * through the public API, with the token the user gives it. docs/console.md. */
#ifndef EM_CONSOLE_H
#define EM_CONSOLE_H

#include "server.h"
#include "http.h"

/* The headers every console file is served with (CSP, nosniff, no framing, no
 * referrer); exposed for the tests of the CSP. */
extern const char em_console_csp[];

/* Answers GET of the console's file (the path after /console/; "" or "index.html": the
 * page): its bytes with their type, or NotFound (no such file, or --no-console). */
void em_console_handle(struct em_server *srv, const struct em_req *req, const char *file,
                       struct em_resp *resp);

#endif
