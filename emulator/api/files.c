/* The files subresource and the objects' file trees; see files.h. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"
#include "fsutil.h"
#include "objects.h"
#include "tar/tar.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define MAX_ENTRIES 100000

/* "sandbox \"dev\"": how messages name the object. */
static void name_of(struct em_api *a, struct nd_buf *out)
{
    nd_buf_addf(out, "%s \"%s\"", a->kind->singular, a->path.name);
}

static int open_tree(struct em_api *a, const json_t *obj, struct nd_status *st)
{
    char *dir = em_files_tree(a->srv, a->kind, obj, st);
    if (!dir)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        nd_status_set(st, "InternalError", NULL, "cannot open the file tree: %s", strerror(errno));
    free(dir);
    return fd;
}

/* The path query, cleaned: "" for the top. */
static int query_path(struct em_api *a, struct nd_buf *rel)
{
    const char *p = em_req_query(a->req, "path");
    if (!p || !*p)
        p = "/";
    if (nd_tar_check_path(p, &a->st) < 0) {
        nd_status_prefix(&a->st, "path");
        return -1;
    }
    if (nd_tar_clean_path(p, rel, &a->st) < 0) {
        nd_status_set(&a->st, "BadRequest", "give a path inside the tree, such as /data",
                      "path \"%s\" has a \"..\" component: paths stay inside the object's files",
                      p);
        return -1;
    }
    return 0;
}

/* A failure on the path: the message names the object and the path as asked. */
static int path_failed(struct em_api *a, struct nd_status *st)
{
    struct nd_buf who = ND_BUF_INIT;
    name_of(a, &who);
    const char *p = em_req_query(a->req, "path");
    if (!p || !*p)
        p = "/";
    if (nd_status_is(st, ND_REASON_NOT_FOUND))
        nd_status_set(&a->st, "NotFound",
                      "check the path: paths start at the top of the object's files (/)",
                      "%s has no file \"%s\"", who.data, p);
    else {
        nd_status_move(&a->st, st);
        nd_status_prefix(&a->st, "path \"%s\" of %s", p, who.data);
        if (!a->st.fix && nd_status_is(&a->st, ND_REASON_BAD_REQUEST))
            nd_status_set_fix(&a->st, "symbolic links in the files are not followed: use the "
                                      "path they point to");
    }
    nd_buf_release(&who);
    return -1;
}

static const char *type_name(mode_t m)
{
    return S_ISDIR(m) ? "Directory" : S_ISREG(m) ? "File" : S_ISLNK(m) ? "SymbolicLink" : "Other";
}

static int stat_answer(struct em_api *a, int treefd, const char *rel)
{
    struct stat sb;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_tar_lstat(treefd, rel, &sb, &st) < 0) {
        path_failed(a, &st);
        nd_status_release(&st);
        return -1;
    }
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", (unsigned)(sb.st_mode & 07777));
    struct nd_buf when = ND_BUF_INIT;
    nd_time_format((int64_t)sb.st_mtim.tv_sec, &when);
    char *path = nd_xasprintf("/%s", rel);
    json_t *out = json_pack("{ss ss ss sI ss}", "path", path, "type", type_name(sb.st_mode), "mode",
                            mode, "size", (json_int_t)(S_ISREG(sb.st_mode) ? sb.st_size : 0),
                            "modified", when.data);
    em_resp_json(a->resp, 200, out);
    json_decref(out);
    free(path);
    nd_buf_release(&when);
    return 0;
}

struct tar_stream {
    struct nd_tar_writer *w;
    int treefd;
};

static ssize_t tar_read(void *cls, char *buf, size_t max)
{
    struct tar_stream *t = cls;
    struct nd_status st = ND_STATUS_INIT;
    ssize_t n = nd_tar_writer_read(t->w, buf, max, &st);
    if (n < 0)
        fprintf(stderr, "nodus-emulator: files: %s\n", st.message); /* the answer is cut */
    nd_status_release(&st);
    return n;
}

static void tar_free(void *cls)
{
    struct tar_stream *t = cls;
    nd_tar_writer_free(t->w);
    close(t->treefd);
    free(t);
}

static int get_files(struct em_api *a, const json_t *obj)
{
    struct nd_buf rel = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = -1, treefd = -1;
    if (query_path(a, &rel) < 0)
        goto out;
    if ((treefd = open_tree(a, obj, &a->st)) < 0)
        goto out;
    bool stat;
    if (em_api_query_bool(a, "stat", &stat) < 0)
        goto out;
    if (stat) {
        rc = stat_answer(a, treefd, rel.data);
        goto out;
    }
    const char *base = strrchr(rel.data, '/');
    const char *name = rel.len == 0 ? "." : base ? base + 1 : rel.data;
    struct nd_tar_writer *w = nd_tar_writer_new(treefd, rel.data, name, &st);
    if (!w) {
        path_failed(a, &st);
        goto out;
    }
    /* what the stream will hold, as walked now (a file that changes meanwhile changes
     * it): for a client's progress; the stream itself is chunked */
    struct nd_status mst = ND_STATUS_INIT;
    struct nd_tar_writer *m = nd_tar_writer_new(treefd, rel.data, name, &mst);
    uint64_t bytes = 0;
    size_t members = 0;
    if (m && nd_tar_writer_measure(m, &bytes, &members, &mst) == 0) {
        char num[24];
        snprintf(num, sizeof num, "%" PRIu64, bytes);
        em_resp_set_header(a->resp, "X-Content-Length", num);
    }
    nd_tar_writer_free(m);
    nd_status_release(&mst);
    struct tar_stream *t = nd_xcalloc(1, sizeof *t);
    t->w = w;
    t->treefd = treefd;
    treefd = -1;
    a->resp->code = 200;
    a->resp->stream = nd_xcalloc(1, sizeof *a->resp->stream);
    a->resp->stream->read = tar_read;
    a->resp->stream->free = tar_free;
    a->resp->stream->cls = t;
    a->resp->stream->fd = -1;
    em_resp_set_type(a->resp, "application/x-tar");
    rc = 0;
out:
    if (treefd >= 0)
        close(treefd);
    nd_status_release(&st);
    nd_buf_release(&rel);
    return rc;
}

/* ---- uploads, taken as they arrive ---- */

struct upload {
    struct em_server *srv;
    struct nd_tar_extractor *x;
    uint64_t limit, got;
    bool failed;
    struct nd_status st; /* the first failure */
    char *who, *rel, *name, *group, *plural;
};

static void too_large(struct nd_status *st, uint64_t limit, uint64_t size)
{
    struct nd_buf lim = ND_BUF_INIT, more = ND_BUF_INIT;
    nd_quantity_format_bytes((int64_t)limit, &lim);
    uint64_t want = size > limit * 2 ? size : limit * 2;
    uint64_t unit = want >= (1ull << 30) ? 1ull << 30 : want >= (1ull << 20) ? 1ull << 20 : 1024;
    want = (want + unit - 1) / unit * unit; /* a round size: 51Mi, not 52430336 */
    nd_quantity_format_bytes((int64_t)want, &more);
    struct nd_buf fix = ND_BUF_INIT;
    nd_buf_addf(&fix,
                "restart the emulator with a larger --max-upload-bytes: nodus emulator stop && "
                "nodus emulator start --max-upload-bytes %s",
                more.data);
    if (size)
        nd_status_set(st, "RequestEntityTooLarge", fix.data,
                      "the upload of %" PRIu64 " bytes is larger than the emulator's limit of %s "
                      "(--max-upload-bytes); none of the archive was written",
                      size, lim.data);
    else
        nd_status_set(st, "RequestEntityTooLarge", fix.data,
                      "the upload is larger than the emulator's limit of %s "
                      "(--max-upload-bytes); none of the archive was written",
                      lim.data);
    nd_buf_release(&fix);
    nd_buf_release(&lim);
    nd_buf_release(&more);
}

static int upload_write(void *cls, const char *data, size_t len)
{
    struct upload *u = cls;
    if (u->failed)
        return -1;
    u->got += len;
    if (u->got > u->limit) {
        too_large(&u->st, u->limit, 0);
        u->failed = true;
    } else if (nd_tar_extractor_write(u->x, data, len, &u->st) < 0) {
        nd_status_prefix(&u->st, "cannot write the files of %s", u->who);
        u->failed = true;
    }
    if (u->failed) {
        nd_tar_extractor_free(u->x); /* the stage goes: nothing of it is written */
        u->x = NULL;
        return -1;
    }
    return 0;
}

static void upload_finish(void *cls, struct em_req *req, struct em_resp *resp)
{
    struct upload *u = cls;
    size_t count = 0;
    if (!u->failed && u->got == 0) {
        nd_status_set(&u->st, "BadRequest", "send a tar archive in the request body",
                      "the request has no body");
        u->failed = true;
    } else if (!u->failed && nd_tar_extractor_finish(u->x, &count, &u->st) < 0) {
        nd_status_prefix(&u->st, "cannot write the files of %s", u->who);
        u->failed = true;
    }
    if (u->failed) {
        em_resp_status(u->srv, req, resp, &u->st);
        return;
    }
    json_t *ok = json_pack("{ss ss s{} ss ss s{ss ss ss}}", "kind", "Status", "apiVersion", "v1",
                           "metadata", "status", "Success", "message", "", "details", "name",
                           u->name, "group", u->group, "kind", u->plural);
    json_object_set_new(
        ok, "message",
        json_sprintf("wrote %zu member%s under /%s", count, count == 1 ? "" : "s", u->rel));
    em_resp_json(resp, 200, ok);
    json_decref(ok);
}

static void upload_free(void *cls)
{
    struct upload *u = cls;
    nd_tar_extractor_free(u->x);
    nd_status_release(&u->st);
    free(u->who);
    free(u->rel);
    free(u->name);
    free(u->group);
    free(u->plural);
    free(u);
}

/* Where uploads are staged until they have ended whole: DIR/files/.uploads (no project
 * starts with a dot), emptied of what a previous run left when first used (server lock
 * held: a handler's). */
static int open_stage(struct em_api *a)
{
    char *path = em_store_path(&a->srv->store, "files/.uploads");
    if (!a->srv->upload_stage_ready) {
        em_rm_rf(path);
        a->srv->upload_stage_ready = true;
    }
    int fd = em_mkdir_p(path) == 0 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd < 0)
        nd_status_set(&a->st, "InternalError", NULL, "cannot make the upload stage: %s",
                      strerror(errno));
    free(path);
    return fd;
}

/* A declared size (Content-Length, or X-Content-Length beside a chunked body): 0 none. */
static uint64_t declared(const struct em_req *req, const char *name)
{
    const char *v = em_req_header(req, name);
    if (!v || *v < '0' || *v > '9')
        return 0;
    return strtoull(v, NULL, 10);
}

static int put_files(struct em_api *a, const json_t *obj)
{
    struct nd_buf rel = ND_BUF_INIT, who = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = -1, treefd = -1, dirfd = -1, stagefd = -1;
    name_of(a, &who);
    const char *ct = em_req_header(a->req, "content-type");
    bool coming = a->req->body_coming;
    /* any type a tool sends with raw bytes (curl's form type too); not a document */
    if (ct && (strncasecmp(ct, "application/json", 16) == 0 ||
               strncasecmp(ct, "application/yaml", 16) == 0 || strncasecmp(ct, "text/", 5) == 0)) {
        nd_status_set(&a->st, "UnsupportedMediaType", "send the archive as application/x-tar",
                      "the files of %s are written from a tar archive (application/x-tar), not "
                      "%s",
                      who.data, ct);
        goto out;
    }
    if (json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp")) {
        nd_status_set(&a->st, "BadRequest", NULL, "%s is being deleted: its files are read-only",
                      who.data);
        goto out;
    }
    const char *cl = em_req_header(a->req, "content-length");
    bool chunked = em_req_header(a->req, "transfer-encoding") != NULL;
    if (coming ? !chunked && (!cl || strtoull(cl, NULL, 10) == 0) : a->req->body.len == 0) {
        nd_status_set(&a->st, "BadRequest", "send a tar archive in the request body",
                      "the request has no body");
        goto out;
    }
    uint64_t limit = a->srv->opt.max_upload_bytes;
    uint64_t size = declared(a->req, chunked ? "x-content-length" : "content-length");
    if (coming && size > limit) {
        too_large(&a->st, limit, size);
        goto out;
    }
    if (query_path(a, &rel) < 0 || (treefd = open_tree(a, obj, &a->st)) < 0)
        goto out;
    if ((dirfd = nd_tar_open_dir(treefd, rel.data, true, &st)) < 0) {
        path_failed(a, &st);
        goto out;
    }
    struct nd_tar_extract_opts o = {.base = rel.data, .max_entries = MAX_ENTRIES};
    if (coming) {
        /* the body is taken as it arrives, without the server's lock (http.h) */
        if ((stagefd = open_stage(a)) < 0)
            goto out;
        struct nd_tar_extractor *x = nd_tar_extractor_new(dirfd, stagefd, &o, &a->st);
        if (!x)
            goto out;
        struct upload *u = nd_xcalloc(1, sizeof *u);
        u->srv = a->srv;
        u->x = x;
        u->limit = limit;
        nd_status_init(&u->st);
        u->who = nd_xstrdup(who.data);
        u->rel = nd_xstrdup(rel.data);
        u->name = nd_xstrdup(a->path.name);
        u->group = nd_xstrdup(a->kind->group);
        u->plural = nd_xstrdup(a->kind->plural);
        a->req->sink = nd_xcalloc(1, sizeof *a->req->sink);
        *a->req->sink = (struct em_body_sink){upload_write, upload_finish, upload_free, u};
        rc = 0;
        goto out;
    }
    size_t count = 0;
    if (nd_tar_extract(a->req->body.data, a->req->body.len, dirfd, &o, &count, &st) < 0) {
        nd_status_move(&a->st, &st);
        nd_status_prefix(&a->st, "cannot write the files of %s", who.data);
        goto out;
    }
    json_t *ok = json_pack("{ss ss s{} ss ss s{ss ss ss}}", "kind", "Status", "apiVersion", "v1",
                           "metadata", "status", "Success", "message", "", "details", "name",
                           a->path.name, "group", a->kind->group, "kind", a->kind->plural);
    json_object_set_new(
        ok, "message",
        json_sprintf("wrote %zu member%s under /%s", count, count == 1 ? "" : "s", rel.data));
    em_resp_json(a->resp, 200, ok);
    json_decref(ok);
    rc = 0;
out:
    if (stagefd >= 0)
        close(stagefd);
    if (dirfd >= 0)
        close(dirfd);
    if (treefd >= 0)
        close(treefd);
    nd_status_release(&st);
    nd_buf_release(&rel);
    nd_buf_release(&who);
    return rc;
}

int em_files_handle(struct em_api *a, const char *verb)
{
    /* get reads, create and update write: the router serves only nd_kind_sub_verbs */
    bool get = strcmp(verb, "get") == 0;
    json_t *obj = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!obj)
        return em_api_not_found(a, a->path.name);
    return get ? get_files(a, obj) : put_files(a, obj);
}
