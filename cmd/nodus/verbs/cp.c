/* cp: copy files and directories between the local machine and a Sandbox's or a
 * Volume's files (the files subresource), as tar streams both ways (pkg/tar), of any
 * size: an upload is archived while it is sent (chunked), a download extracted while it
 * arrives; neither is ever held whole. What arrives is staged and put in place only
 * once the archive has ended whole, so a copy that fails or is interrupted leaves the
 * destination as it was. A progress line (bytes, %, rate, ETA) is drawn on stderr when
 * it is a terminal, unless --quiet.
 *
 * Either side may be remote: `[KIND/]NAME:PATH` (KIND sandbox or volume, any name the
 * registry knows; a bare NAME is a Sandbox) or kubectl's `PROJECT/NAME:PATH`. Copies
 * follow cp -r: a destination that is a directory receives the source under its own
 * name, any other destination becomes the copy. Nothing is written outside the
 * destination on either side: the server checks what it receives, and what comes back
 * is extracted with the same checks (a link pointing outside is skipped with a
 * warning).
 *
 * "-" is standard output or input, as docker cp and tar take it: `cp NAME:PATH -` writes
 * PATH as the server's tar stream to standard output (never to a terminal), and
 * `cp - NAME:DIR` sends the tar archive read from standard input, extracted under DIR. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "cp_progress.h"
#include "resolve.h"
#include "tar/tar.h"
#include "util/validate.h"
#include "util/xmalloc.h"

struct cp_opts {
    bool quiet;
};

#define TO(f) ND_TO(struct cp_opts, f)
const struct nd_flag cmd_cp_flags[] = {
    {"quiet", 'q', ND_BOOL, NULL, "no progress line (it is drawn only on a terminal anyway)", NULL,
     TO(quiet)},
    ND_FLAGS_END(struct cp_opts),
};

/* ---- interruption: the copy stops, and nothing of it lands ---- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    interrupted = sig;
}

static void catch_interrupts(bool on)
{
    static struct sigaction old_int, old_term, old_hup;
    if (on) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        sigaction(SIGHUP, &sa, &old_hup);
    } else {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
    }
}

static int interrupted_status(struct nd_status *st)
{
    return nd_status_set(st, "Usage", "copy again", "interrupted: nothing of the copy was written");
}

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
    nd_kind_path(s->k, s->project ? s->project : nd_ctx_project(ctx), s->name, "files", out);
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

struct down {
    struct nd_tar_extractor *x;
    struct cp_progress pr;
    struct nd_status st;
    bool failed;
};

static void down_head(void *cls, const struct nd_response *r)
{
    struct down *d = cls;
    const char *n = nd_response_header(r, "x-content-length");
    if (n && *n >= '0' && *n <= '9')
        d->pr.total = strtoull(n, NULL, 10);
}

static int down_data(void *cls, const char *p, size_t n)
{
    struct down *d = cls;
    if (interrupted)
        interrupted_status(&d->st);
    else if (nd_tar_extractor_write(d->x, p, n, &d->st) == 0) {
        cp_progress_add(&d->pr, n);
        return 0;
    }
    d->failed = true;
    return 1;
}

/* What the remote path is: "Directory", "File", ... (NEW), or NULL with st. */
static char *remote_type(struct nd_ctx *ctx, const struct spec *src, struct nd_status *st)
{
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_buf url = ND_BUF_INIT;
    files_url(ctx, src, src->path, true, &url);
    char *type = NULL;
    if (request(ctx, "GET", url.data, NULL, 0, &resp, st) == 0) {
        json_error_t e;
        json_t *info = json_loadb(resp.body.data, resp.body.len, 0, &e);
        const char *t = json_string_value(json_object_get(info, "type"));
        type = nd_xstrdup(t ? t : "");
        json_decref(info);
    }
    nd_buf_release(&url);
    nd_response_release(&resp);
    return type;
}

static int download(struct nd_ctx *ctx, const struct spec *src, const char *dest, bool quiet,
                    struct nd_status *st)
{
    struct nd_buf url = ND_BUF_INIT;
    json_t *skipped = json_array();
    struct down d = {0};
    nd_status_init(&d.st);
    int rc = -1, fd = -1;
    char *top_to = NULL;
    bool made = false;
    const char *b = strrchr(src->path, '/');
    const char *base = !*src->path ? "." : b ? b + 1 : src->path;
    /* what comes: a directory or a file */
    char *type = remote_type(ctx, src, st);
    if (!type)
        goto out;
    bool remote_dir = strcmp(type, "Directory") == 0;
    free(type);

    struct stat sb;
    bool exists = stat(dest, &sb) == 0;
    struct nd_tar_extract_opts o = {.skipped = skipped};
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
        made = true;
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
        goto out;
    }
    if (!(d.x = nd_tar_extractor_new(fd, -1, &o, st))) {
        nd_status_prefix(st, "cannot copy into %s", dest);
        goto out;
    }
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        goto out;
    files_url(ctx, src, src->path, false, &url);
    struct nd_request req = {.method = "GET", .path = url.data,
                             .accept = "application/x-tar, application/json",
                             .on_head = down_head};
    cp_progress_start(&d.pr, quiet, 0);
    int got = nd_client_stream_bytes(c, &req, down_data, &d, NULL, st);
    bool extract_err = false;
    if (got == 0 && d.failed) {
        nd_status_move(st, &d.st);
        extract_err = !interrupted;
        got = -1;
    } else if (got == 0 && interrupted) {
        interrupted_status(st);
        got = -1;
    } else if (got == 0 && nd_tar_extractor_finish(d.x, NULL, st) < 0) {
        extract_err = true;
        got = -1;
    }
    cp_progress_end(&d.pr, got == 0);
    if (got < 0) {
        if (extract_err)
            nd_status_prefix(st, "cannot copy into %s", dest);
        goto out;
    }
    warn_skipped(skipped);
    rc = 0;
out:
    nd_tar_extractor_free(d.x);
    if (rc < 0 && made)
        rmdir(dest);
    free(top_to);
    if (fd >= 0)
        close(fd);
    nd_status_release(&d.st);
    json_decref(skipped);
    nd_buf_release(&url);
    return rc;
}

struct up {
    struct nd_tar_writer *w;
    struct cp_progress pr;
    const char *src;
};

static ssize_t up_read(void *cls, char *buf, size_t max, struct nd_status *st)
{
    struct up *u = cls;
    if (interrupted)
        return interrupted_status(st);
    ssize_t n = nd_tar_writer_read(u->w, buf, max, st);
    if (n < 0)
        nd_status_prefix(st, "cannot read %s", u->src);
    else
        cp_progress_add(&u->pr, (uint64_t)n);
    return n;
}

static int upload(struct nd_ctx *ctx, const char *src, const struct spec *dest, bool quiet,
                  struct nd_status *st)
{
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_buf url = ND_BUF_INIT;
    char *base = base_of(src), *put = NULL, *name = NULL;
    struct up u = {.src = src};
    struct nd_tar_writer *m = NULL;
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
    } else if (!nd_status_is(st, ND_REASON_NOT_FOUND) ||
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

    /* the archive, from the source's directory, made while it is sent */
    char *parent = strcmp(base, ".") == 0 ? nd_xstrdup(src) : dir_of(src);
    fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(parent);
    if (fd < 0) {
        nd_status_set(st, "Usage", NULL, "%s: %s", src, strerror(errno));
        goto out;
    }
    const char *rel = strcmp(base, ".") == 0 ? "" : base;
    uint64_t total = 0;
    size_t members = 0;
    if (!(m = nd_tar_writer_new(fd, rel, name, st)) ||
        nd_tar_writer_measure(m, &total, &members, st) < 0 ||
        !(u.w = nd_tar_writer_new(fd, rel, name, st))) {
        nd_status_prefix(st, "cannot read %s", src);
        goto out;
    }
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        goto out;
    char size_hdr[48];
    snprintf(size_hdr, sizeof size_hdr, "X-Content-Length: %" PRIu64, total);
    const char *hdrs[] = {size_hdr, NULL};
    nd_buf_reset(&url);
    files_url(ctx, dest, put, false, &url);
    struct nd_request req = {.method = "PUT", .path = url.data,
                             .content_type = "application/x-tar", .headers = hdrs,
                             .body_read = up_read, .body_cls = &u};
    cp_progress_start(&u.pr, quiet, total);
    got = nd_client_do(c, &req, &resp, st);
    if (got == 0 && (resp.code < 200 || resp.code > 299)) {
        nd_response_status(&resp, st);
        got = -1;
    }
    cp_progress_end(&u.pr, got == 0);
    if (got < 0)
        goto out;
    rc = 0;
out:
    nd_tar_writer_free(m);
    nd_tar_writer_free(u.w);
    if (fd >= 0)
        close(fd);
    free(base);
    free(put);
    free(name);
    nd_buf_release(&url);
    nd_response_release(&resp);
    return rc;
}

/* ---- "-": the tar stream itself, to standard output or from standard input ---- */

static int to_stdout(void *cls, const char *p, size_t n)
{
    struct down *d = cls;
    while (n && !interrupted) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            nd_status_set(&d->st, "Usage", NULL, "cannot write to standard output: %s",
                          strerror(errno));
            d->failed = true;
            return 1;
        }
        cp_progress_add(&d->pr, (uint64_t)w);
        p += w;
        n -= (size_t)w;
    }
    if (interrupted) {
        interrupted_status(&d->st);
        d->failed = true;
    }
    return d->failed;
}

static int download_stdout(struct nd_ctx *ctx, const struct spec *src, bool quiet,
                           struct nd_status *st)
{
    if (isatty(1))
        return nd_status_set(st, "Usage",
                             "redirect standard output to a file, or pipe it into tar -xvf -",
                             "refusing to write a tar archive to a terminal");
    char *type = remote_type(ctx, src, st); /* NotFound before anything is written */
    if (!type)
        return -1;
    free(type);
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    struct nd_buf url = ND_BUF_INIT;
    files_url(ctx, src, src->path, false, &url);
    struct down d = {0};
    nd_status_init(&d.st);
    struct nd_request req = {.method = "GET", .path = url.data,
                             .accept = "application/x-tar, application/json",
                             .on_head = down_head};
    cp_progress_start(&d.pr, quiet, 0);
    int rc = nd_client_stream_bytes(c, &req, to_stdout, &d, NULL, st);
    if (rc == 0 && d.failed) {
        nd_status_move(st, &d.st);
        rc = -1;
    }
    cp_progress_end(&d.pr, rc == 0);
    nd_status_release(&d.st);
    nd_buf_release(&url);
    return rc;
}

static ssize_t from_stdin(void *cls, char *buf, size_t max, struct nd_status *st)
{
    struct cp_progress *pr = cls;
    for (;;) {
        if (interrupted)
            return interrupted_status(st);
        ssize_t n = read(0, buf, max);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return nd_status_set(st, "Usage", NULL, "cannot read standard input: %s",
                                 strerror(errno));
        cp_progress_add(pr, (uint64_t)n);
        return n;
    }
}

static int upload_stdin(struct nd_ctx *ctx, const struct spec *dest, bool quiet,
                        struct nd_status *st)
{
    if (isatty(0))
        return nd_status_set(st, "Usage",
                             "pipe a tar archive in, e.g. from tar -cf - DIR",
                             "refusing to read a tar archive from a terminal");
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (!c)
        return -1;
    struct nd_buf url = ND_BUF_INIT;
    files_url(ctx, dest, dest->path, false, &url);
    struct cp_progress pr;
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_request req = {.method = "PUT", .path = url.data,
                             .content_type = "application/x-tar", .body_read = from_stdin,
                             .body_cls = &pr};
    cp_progress_start(&pr, quiet, 0);
    int rc = nd_client_do(c, &req, &resp, st);
    if (rc == 0 && (resp.code < 200 || resp.code > 299)) {
        nd_response_status(&resp, st);
        rc = -1;
    }
    cp_progress_end(&pr, rc == 0);
    nd_response_release(&resp);
    nd_buf_release(&url);
    return rc;
}

int cmd_cp(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct cp_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct spec src = {0}, dest = {0};
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
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
    bool quiet = opt.quiet;
    interrupted = 0;
    catch_interrupts(true);
    int r = src.remote && !strcmp(dest.path, "-")  ? download_stdout(ctx, &src, quiet, &st)
            : src.remote                           ? download(ctx, &src, dest.path, quiet, &st)
            : !strcmp(src.path, "-")               ? upload_stdin(ctx, &dest, quiet, &st)
                                                   : upload(ctx, src.path, &dest, quiet, &st);
    catch_interrupts(false);
    if (r < 0)
        rc = interrupted ? (nd_cli_error(ctx, &st), 130) : nd_cli_error(ctx, &st);
out:
    spec_release(&src);
    spec_release(&dest);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
