/* The files subresource and the objects' file trees; see files.h. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
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
#include "util/time.h"
#include "util/xmalloc.h"

#define MAX_ENTRIES 100000

char *em_files_tree(struct em_server *srv, const char *plural, const json_t *obj,
                    struct nd_status *st)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    char *rel = nd_xasprintf("files/%s/%s/%s", em_obj_ns(obj), plural, em_obj_name(obj));
    char *dir = em_store_path(&srv->store, rel);
    char *marker = nd_xasprintf("%s.uid", dir);
    struct nd_buf old = ND_BUF_INIT;
    bool known = em_read_file(marker, &old) == 0;
    if (known && uid && strcmp(old.data, uid) != 0)
        em_rm_rf(dir); /* an earlier object of the same name left it */
    if (em_mkdir_p(dir) < 0) {
        nd_status_set(st, "InternalError", NULL, "cannot create the file tree %s: %s", rel,
                      strerror(errno));
        free(dir);
        dir = NULL;
    } else if (uid && (!known || strcmp(old.data, uid) != 0)) {
        FILE *f = fopen(marker, "w");
        if (f) {
            fputs(uid, f);
            fclose(f);
        }
    }
    nd_buf_release(&old);
    free(marker);
    free(rel);
    return dir;
}

/* "sandbox \"dev\"": how messages name the object. */
static void name_of(struct em_api *a, struct nd_buf *out)
{
    nd_buf_addf(out, "%s \"%s\"", a->kind->singular, a->path.name);
}

static int open_tree(struct em_api *a, const json_t *obj, struct nd_status *st)
{
    char *dir = em_files_tree(a->srv, a->kind->plural, obj, st);
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
    if (strcmp(st->reason, "NotFound") == 0)
        nd_status_set(&a->st, "NotFound",
                      "check the path: paths start at the top of the object's files (/)",
                      "%s has no file \"%s\"", who.data, p);
    else {
        nd_status_move(&a->st, st);
        nd_status_prefix(&a->st, "path \"%s\" of %s", p, who.data);
        if (!a->st.fix && strcmp(a->st.reason, "BadRequest") == 0)
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
    const char *stat = em_req_query(a->req, "stat");
    if (stat && (!strcmp(stat, "true") || !strcmp(stat, "1"))) {
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

static int put_files(struct em_api *a, const json_t *obj)
{
    struct nd_buf rel = ND_BUF_INIT, who = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = -1, treefd = -1, dirfd = -1;
    name_of(a, &who);
    const char *ct = em_req_header(a->req, "content-type");
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
    if (a->req->body.len == 0) {
        nd_status_set(&a->st, "BadRequest", "send a tar archive in the request body",
                      "the request has no body");
        goto out;
    }
    if (query_path(a, &rel) < 0 || (treefd = open_tree(a, obj, &a->st)) < 0)
        goto out;
    if ((dirfd = nd_tar_open_dir(treefd, rel.data, true, &st)) < 0) {
        path_failed(a, &st);
        goto out;
    }
    struct nd_tar_extract_opts o = {.base = rel.data, .max_entries = MAX_ENTRIES};
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
    bool get = strcmp(verb, "get") == 0;
    bool put = strcmp(verb, "update") == 0 || strcmp(verb, "create") == 0;
    if (!get && !put)
        return nd_status_set(&a->st, "MethodNotAllowed", "GET reads files, PUT writes them",
                             "%s is not supported on the files subresource", a->req->method);
    json_t *obj = em_store_get(&a->srv->store, a->kind->plural, a->ns, a->path.name);
    if (!obj)
        return em_api_not_found(a, a->path.name);
    return get ? get_files(a, obj) : put_files(a, obj);
}
