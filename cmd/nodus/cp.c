/* cp: copy files and directories between the local machine and a Sandbox's or a
 * Volume's files (the files subresource), as tar archives both ways (pkg/tar).
 *
 * Either side may be remote: `[KIND/]NAME:PATH` (KIND sandbox or volume, any name the
 * registry knows; a bare NAME is a Sandbox) or kubectl's `PROJECT/NAME:PATH`. Copies
 * follow cp -r: a destination that is a directory receives the source under its own
 * name, any other destination becomes the copy. Nothing is written outside the
 * destination on either side: the server checks what it receives, and what comes back
 * is extracted with the same checks (a link pointing outside is skipped with a
 * warning). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "resolve.h"
#include "tar/tar.h"
#include "util/validate.h"
#include "util/xmalloc.h"

const struct nd_flag cmd_cp_flags[] = {
    {NULL},
};

struct spec {
    bool remote;
    const struct nd_kind *k;
    char *project; /* NULL: the context's */
    char *name;
    char *path; /* remote: the clean path ("" the top); local: as given */
};

static void spec_release(struct spec *s)
{
    free(s->project);
    free(s->name);
    free(s->path);
}

static bool is_label(const char *s, size_t n)
{
    char *t = nd_xstrndup(s, n);
    bool ok = nd_is_dns_label(t);
    free(t);
    return ok;
}

/* Parses one argument. -1 (usage printed, *rc set) for a remote spec that is wrong. */
static int parse_spec(struct nd_ctx *ctx, const char *arg, struct spec *s, int *rc)
{
    memset(s, 0, sizeof *s);
    const char *colon = strchr(arg, ':');
    size_t plen = colon ? (size_t)(colon - arg) : 0;
    const char *slash = colon ? memchr(arg, '/', plen) : NULL;
    bool looks_remote =
        colon && plen && arg[0] != '.' && arg[0] != '/' &&
        (slash ? is_label(slash + 1, (size_t)(colon - slash - 1)) && (size_t)(slash - arg) > 0 &&
                     !memchr(slash + 1, '/', (size_t)(colon - slash - 1))
               : is_label(arg, plen));
    if (!looks_remote) {
        s->path = nd_xstrdup(arg);
        return 0;
    }
    s->remote = true;
    s->k = nd_kind_by_plural(NULL, "sandboxes");
    if (slash) {
        char *first = nd_xstrndup(arg, (size_t)(slash - arg));
        const struct nd_kind *k = nd_kind_lookup(first);
        if (k)
            s->k = k;
        else if (nd_is_dns_label(first))
            s->project = nd_xstrdup(first); /* kubectl's PROJECT/NAME:PATH */
        free(first);
        s->name = nd_xstrndup(slash + 1, (size_t)(colon - slash - 1));
    } else {
        s->name = nd_xstrndup(arg, plen);
    }
    if (!s->k || !nd_kind_has_subresource(s->k, "files")) {
        *rc = nd_cli_usage(ctx, "%s: cp copies to and from sandboxes and volumes, not %s", arg,
                           s->k ? s->k->plural : "this");
        return -1;
    }
    struct nd_buf clean = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_tar_clean_path(colon + 1, &clean, &st) < 0) {
        *rc = nd_cli_usage(ctx,
                           "%s: the path has a \"..\" component; paths stay inside the "
                           "%s's files",
                           arg, s->k->singular);
        nd_status_release(&st);
        nd_buf_release(&clean);
        return -1;
    }
    s->path = nd_buf_detach(&clean);
    return 0;
}

static void files_url(struct nd_ctx *ctx, const struct spec *s, const char *path, bool stat,
                      struct nd_buf *out)
{
    nd_kind_path(s->k, s->project ? s->project : nd_ctx_namespace(ctx), s->name, "files", out);
    nd_buf_adds(out, "?path=");
    struct nd_buf p = ND_BUF_INIT;
    nd_buf_addf(&p, "/%s", path);
    nd_buf_add_urlencoded(out, p.data);
    nd_buf_release(&p);
    if (stat)
        nd_buf_adds(out, "&stat=true");
}

/* One request; a non-2xx answer becomes st. */
static int request(struct nd_ctx *ctx, const char *method, const char *url, const char *body,
                   size_t len, struct nd_response *resp, struct nd_status *st)
{
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    struct nd_request req = {.method = method, .path = url, .body = body, .body_len = len};
    if (body) {
        req.content_type = "application/x-tar";
    } else {
        req.accept = "application/x-tar, application/json";
    }
    if (nd_client_do(c, &req, resp, st) < 0)
        return -1;
    if (resp->code < 200 || resp->code > 299) {
        nd_response_status(resp, st);
        return -1;
    }
    return 0;
}

static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s)
        return nd_xstrdup(".");
    if (s == path)
        return nd_xstrdup("/");
    return nd_xstrndup(path, (size_t)(s - path));
}

/* The last component of a local path without trailing slashes; "." when it names the
 * contents of a directory ("." "/" "dir/."). NEW. */
static char *base_of(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    char *t = nd_xstrndup(path, n);
    const char *s = strrchr(t, '/');
    char *b = nd_xstrdup(s ? s + 1 : t);
    if (!*b || strcmp(b, ".") == 0 || strcmp(t, "/") == 0) {
        free(b);
        b = nd_xstrdup(".");
    }
    free(t);
    return b;
}

static int warn_skipped(const json_t *skipped)
{
    size_t i;
    json_t *v;
    json_array_foreach(skipped, i, v) fprintf(
        stderr, "warning: skipped the symbolic link %s: it points outside the destination\n",
        json_string_value(v));
    return 0;
}

static int download(struct nd_ctx *ctx, const struct spec *src, const char *dest,
                    struct nd_status *st)
{
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_buf url = ND_BUF_INIT;
    json_t *skipped = json_array();
    int rc = -1, fd = -1;
    const char *b = strrchr(src->path, '/');
    const char *base = !*src->path ? "." : b ? b + 1 : src->path;
    files_url(ctx, src, src->path, false, &url);
    if (request(ctx, "GET", url.data, NULL, 0, &resp, st) < 0)
        goto out;
    /* what came: a directory or a file (the first member says) */
    struct nd_tar_reader r;
    struct nd_tar_entry first;
    nd_tar_reader_init(&r, resp.body.data, resp.body.len);
    if (nd_tar_next(&r, &first, st) < 0)
        goto out;
    bool remote_dir = first.type == ND_TAR_DIR;
    nd_tar_entry_release(&first);

    struct stat sb;
    bool exists = stat(dest, &sb) == 0;
    struct nd_tar_extract_opts o = {.skipped = skipped};
    char *top_to = NULL;
    if (exists && S_ISDIR(sb.st_mode)) {
        fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (strcmp(base, ".") != 0)
            o.top_from = o.top_to = base;
    } else if (exists && remote_dir) {
        nd_status_set(st, "Usage", NULL, "cannot overwrite non-directory %s with directory %s:/%s",
                      dest, src->name, src->path);
        goto out;
    } else if (strcmp(base, ".") == 0) {
        if (mkdir(dest, 0755) < 0) {
            nd_status_set(st, "Usage", NULL, "cannot create directory %s: %s", dest,
                          strerror(errno));
            goto out;
        }
        fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        char *parent = dir_of(dest);
        fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(parent);
        top_to = base_of(dest);
        o.top_from = base;
        o.top_to = top_to;
    }
    if (fd < 0) {
        nd_status_set(st, "Usage", NULL, "cannot write %s: %s", dest, strerror(errno));
        free(top_to);
        goto out;
    }
    rc = nd_tar_extract(resp.body.data, resp.body.len, fd, &o, NULL, st);
    free(top_to);
    if (rc < 0)
        nd_status_prefix(st, "cannot copy into %s", dest);
    else
        warn_skipped(skipped);
out:
    if (fd >= 0)
        close(fd);
    json_decref(skipped);
    nd_buf_release(&url);
    nd_response_release(&resp);
    return rc;
}

static int upload(struct nd_ctx *ctx, const char *src, const struct spec *dest,
                  struct nd_status *st)
{
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_buf url = ND_BUF_INIT, tar = ND_BUF_INIT;
    char *base = base_of(src), *put = NULL, *name = NULL;
    struct nd_tar_writer *w = NULL;
    int rc = -1, fd = -1;
    struct stat sb;
    if (lstat(src, &sb) < 0) {
        nd_status_set(st, "Usage", NULL, "%s: %s", src, strerror(errno));
        goto out;
    }
    bool src_dir = S_ISDIR(sb.st_mode);
    /* where it goes: into a remote directory, or as the destination itself */
    files_url(ctx, dest, dest->path, true, &url);
    int got = request(ctx, "GET", url.data, NULL, 0, &resp, st);
    const char *type = NULL;
    json_t *info = NULL;
    if (got == 0) {
        json_error_t e;
        info = json_loadb(resp.body.data, resp.body.len, 0, &e);
        type = json_string_value(json_object_get(info, "type"));
    } else if (!st->reason || strcmp(st->reason, "NotFound") != 0 ||
               json_object_get(st->details, "name")) {
        goto out; /* the object itself is missing, or another error */
    }
    nd_status_release(st);
    bool into = type && strcmp(type, "Directory") == 0;
    if (strcmp(base, ".") == 0 || into) {
        put = nd_xstrdup(dest->path);
        name = nd_xstrdup(base);
    } else if (type && src_dir) {
        nd_status_set(st, "Usage", NULL, "cannot overwrite non-directory %s:/%s with directory %s",
                      dest->name, dest->path, src);
        json_decref(info);
        goto out;
    } else {
        const char *slash = strrchr(dest->path, '/');
        put = slash ? nd_xstrndup(dest->path, (size_t)(slash - dest->path)) : nd_xstrdup("");
        name = nd_xstrdup(slash ? slash + 1 : dest->path);
    }
    json_decref(info);
    nd_response_release(&resp);
    nd_response_init(&resp);

    /* the archive, from the source's directory */
    char *parent = strcmp(base, ".") == 0 ? nd_xstrdup(src) : dir_of(src);
    fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(parent);
    if (fd < 0) {
        nd_status_set(st, "Usage", NULL, "%s: %s", src, strerror(errno));
        goto out;
    }
    w = nd_tar_writer_new(fd, strcmp(base, ".") == 0 ? "" : base, name, st);
    if (!w) {
        nd_status_prefix(st, "cannot read %s", src);
        goto out;
    }
    char buf[65536];
    ssize_t n;
    while ((n = nd_tar_writer_read(w, buf, sizeof buf, st)) > 0)
        nd_buf_add(&tar, buf, (size_t)n);
    if (n < 0)
        goto out;
    nd_buf_reset(&url);
    files_url(ctx, dest, put, false, &url);
    if (request(ctx, "PUT", url.data, tar.data, tar.len, &resp, st) < 0)
        goto out;
    rc = 0;
out:
    nd_tar_writer_free(w);
    if (fd >= 0)
        close(fd);
    free(base);
    free(put);
    free(name);
    nd_buf_release(&tar);
    nd_buf_release(&url);
    nd_response_release(&resp);
    return rc;
}

int cmd_cp(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct spec src = {0}, dest = {0};
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos != 2) {
        rc = nd_cli_usage(ctx, "cp takes a source and a destination: nodus cp SRC DEST");
        goto out;
    }
    if (parse_spec(ctx, o.pos[0], &src, &rc) < 0 || parse_spec(ctx, o.pos[1], &dest, &rc) < 0)
        goto out;
    if (src.remote == dest.remote) {
        rc = nd_cli_usage(ctx, src.remote ? "copying between two remote objects is not supported: "
                                            "copy through a local directory"
                                          : "one of SRC and DEST must be remote: "
                                            "[KIND/]NAME:PATH (e.g. sandbox/dev:/data)");
        goto out;
    }
    int r = src.remote ? download(ctx, &src, dest.path, &st) : upload(ctx, src.path, &dest, &st);
    if (r < 0)
        rc = nd_cli_error(ctx, &st);
out:
    spec_release(&src);
    spec_release(&dest);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
