/* nodus invoke FUNCTION [-d DATA | -d @FILE | -d @- | -f FILE]: POSTs the data to the
 * Function's invoke subresource and writes its answer to stdout as it came (a newline is
 * added only on a terminal). The request carries an Idempotency-Key, so a retry after a
 * dropped connection does not invoke twice. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kinds/registry.h"
#include "cli.h"
#include "client/client.h"
#include "commands.h"
#include "resolve.h"
#include "util/id.h"
#include "util/xmalloc.h"

struct invoke_opts {
    const char *data;
    const char *filename;
    const char *content_type;
};

#define TO(f) ND_TO(struct invoke_opts, f)
const struct nd_flag cmd_invoke_flags[] = {
    {"data", 'd', ND_STRING, "DATA", "the request body; @FILE reads a file, @- standard input",
     NULL, TO(data)},
    {"filename", 'f', ND_STRING, "FILE", "read the request body from FILE (- for standard input)",
     "files", TO(filename)},
    {"content-type", 0, ND_STRING, "TYPE",
     "the Content-Type of the body (default application/octet-stream)", NULL, TO(content_type)},
    ND_FLAGS_END(struct invoke_opts),
};

/* Reads a whole file ("-": standard input) into out. -1 with st (Usage). */
static int read_all(const char *path, struct nd_buf *out, struct nd_status *st)
{
    int rc = strcmp(path, "-") ? nd_buf_read_file(out, path) : nd_buf_read_fd(out, STDIN_FILENO);
    if (rc < 0)
        return nd_status_set(st, "Usage", NULL, "cannot read %s: %s", path, strerror(errno));
    return 0;
}

static int body_of(const struct invoke_opts *opt, struct nd_buf *body, struct nd_status *st)
{
    const char *data = opt->data, *file = opt->filename;
    if (data && file)
        return nd_status_set(st, "Usage", NULL, "give the data with -d or -f, not both");
    if (file)
        return read_all(file, body, st);
    if (data && data[0] == '@')
        return read_all(data + 1, body, st);
    if (data)
        nd_buf_adds(body, data);
    return 0;
}

/* FUNCTION is function/NAME (any name of the kind), or `function NAME`, or NAME. */
static const char *function_name(const struct nd_opts *o, char **owned, struct nd_status *st)
{
    const char *kind = NULL, *name = NULL;
    *owned = NULL;
    if (o->npos == 2) {
        kind = o->pos[0];
        name = o->pos[1];
    } else if (o->npos == 1 && strchr(o->pos[0], '/')) {
        const char *slash = strchr(o->pos[0], '/');
        kind = *owned = nd_xstrndup(o->pos[0], (size_t)(slash - o->pos[0]));
        name = slash + 1;
    } else if (o->npos == 1) {
        name = o->pos[0];
    } else {
        nd_status_set(st, "Usage", NULL, "name one Function: nodus invoke function/NAME");
        return NULL;
    }
    if (kind) {
        const struct nd_kind *k = nd_resolve_kind(kind, st);
        if (!k)
            return NULL;
        if (!nd_kind_has_subresource(k, "invoke")) {
            nd_status_set(st, "Usage", NULL, "only Functions can be invoked, not %s", k->plural);
            return NULL;
        }
    }
    if (!*name) {
        nd_status_set(st, "Usage", NULL, "name one Function: nodus invoke function/NAME");
        return NULL;
    }
    return name;
}

int cmd_invoke(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct invoke_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf body = ND_BUF_INIT, path = ND_BUF_INIT;
    struct nd_response resp;
    nd_response_init(&resp);
    char *kind = NULL, *key = NULL;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0)
        goto fail;
    const char *name = function_name(&o, &kind, &st);
    if (!name || body_of(&opt, &body, &st) < 0)
        goto fail;
    struct nd_client *c = nd_ctx_client(ctx, &st);
    if (!c)
        goto fail;
    nd_kind_path(nd_kind_by_plural("nodus.dev", "functions"), nd_ctx_project(ctx), name,
                 "invoke", &path);
    const char *type = opt.content_type;
    key = nd_idempotency_key_new();
    struct nd_request req = {
        .method = "POST",
        .path = path.data,
        .accept = "*/*",
        .content_type = type && *type ? type : "application/octet-stream",
        .body = body.data,
        .body_len = body.len,
        .idempotency_key = key,
    };
    if (nd_client_do(c, &req, &resp, &st) < 0)
        goto fail;
    nd_cli_warnings(resp.headers);
    if (resp.code < 200 || resp.code > 299) {
        nd_response_status(&resp, &st);
        goto fail;
    }
    nd_out(&resp.body);
    if (resp.body.len && resp.body.data[resp.body.len - 1] != '\n' && isatty(STDOUT_FILENO))
        putchar('\n');
    goto out;
fail:
    rc = nd_cli_error(ctx, &st);
out:
    nd_response_release(&resp);
    nd_buf_release(&body);
    nd_buf_release(&path);
    free(kind);
    free(key);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
