/* tar_extract.c: extracting an archive as it arrives, through a stage: every member is
 * checked when its header comes (names, types, link targets, limits, what the
 * destination holds), made in a private stage directory, and moved into place only once
 * the archive has ended whole. See tar.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tar/tar.h"
#include "tar/tar_internal.h"
#include "util/id.h"
#include "util/xmalloc.h"

#define FIX_NAMES "send an archive whose members stay inside the destination"

/* Whether a link at `path` (relative to the extraction directory) to `target` stays
 * inside the bound: `base` components above the directory are inside too, and with a
 * top rename only what is under the top member is. */
static bool link_inside(const char *path, const char *target, const char *base, bool top)
{
    if (!*target || target[0] == '/')
        return false;
    /* the depth of the link's directory below the bound */
    int depth = (base ? nd_tar_count_components(base) : 0) + nd_tar_count_components(path) - 1 - (top ? 1 : 0);
    if (depth < 0)
        return false; /* the top member itself is a link: it may only point inside itself */
    for (const char *p = target; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return false;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

/* The first proper prefix of path that is one of the links, or NULL. BORROWED key. */
static const char *under_link(json_t *links, const char *path)
{
    if (!json_object_size(links))
        return NULL;
    const char *found = NULL;
    char *copy = nd_xstrdup(path);
    for (char *s = strchr(copy, '/'); s && !found; s = strchr(s + 1, '/')) {
        *s = '\0';
        void *it = json_object_iter_at(links, copy);
        if (it)
            found = json_object_iter_key(it);
        *s = '/';
    }
    free(copy);
    return found;
}

/* ---- the extractor ---- */

struct dir_fix {
    char *path;
    unsigned mode;
    int64_t mtime;
};

struct nd_tar_extractor {
    int dirfd;          /* the destination */
    int stage_parent;   /* holds the stage directory */
    char stage_name[48];
    int stage;          /* the stage: members land here until the archive has ended */
    struct nd_tar_extract_opts o; /* its strings are copies (owned) */
    struct nd_tar_push *push;
    struct nd_buf clean;
    json_t *links;      /* paths of the archive's symbolic links */
    uint64_t total;     /* content bytes */
    char **paths;       /* the members' final paths in order; NULL: a skipped link */
    size_t n, cap;
    struct dir_fix *fixes;
    size_t nfix;
    int fd;             /* the file being written in the stage, or -1 */
    const char *cur;    /* its path (one of paths) */
    unsigned cur_mode;
    int64_t cur_mtime;
    bool failed;
};

static void close_file(struct nd_tar_extractor *x)
{
    if (x->fd >= 0)
        close(x->fd);
    x->fd = -1;
}

static void drop_stage(struct nd_tar_extractor *x)
{
    close_file(x);
    if (x->stage >= 0) {
        close(x->stage);
        x->stage = -1;
        nd_tar_remove_tree(x->stage_parent, x->stage_name);
    }
}

void nd_tar_extractor_free(struct nd_tar_extractor *x)
{
    if (!x)
        return;
    drop_stage(x);
    if (x->stage_parent >= 0)
        close(x->stage_parent);
    if (x->dirfd >= 0)
        close(x->dirfd);
    nd_tar_push_free(x->push);
    free((char *)x->o.top_from);
    free((char *)x->o.top_to);
    free((char *)x->o.base);
    nd_buf_release(&x->clean);
    json_decref(x->links);
    for (size_t i = 0; i < x->n; i++)
        free(x->paths[i]);
    free(x->paths);
    for (size_t i = 0; i < x->nfix; i++)
        free(x->fixes[i].path);
    free(x->fixes);
    free(x);
}

/* Whether the destination lets a member of this type be put at path: every directory
 * on the way that exists is a directory (not a link, not a file), and what stands at
 * path itself is of a kind the member may replace. */
static int dest_check(int dirfd, const char *path, enum nd_tar_type type, struct nd_status *st)
{
    struct nd_status ign = ND_STATUS_INIT;
    int parent = nd_tar_walk(dirfd, path, nd_tar_count_components(path) - 1, false, &ign);
    if (parent < 0) {
        bool missing = nd_status_is(&ign, ND_REASON_NOT_FOUND);
        if (!missing)
            nd_status_move(st, &ign);
        nd_status_release(&ign);
        return missing ? 0 : -1;
    }
    nd_status_release(&ign);
    struct stat sb;
    int rc = 0;
    if (fstatat(parent, nd_tar_last_component(path), &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        if (type == ND_TAR_DIR && !S_ISDIR(sb.st_mode))
            rc = nd_status_set(st, "BadRequest", NULL,
                               "cannot make the directory %s: a file or symbolic link of that "
                               "name exists",
                               path);
        else if (type != ND_TAR_DIR && S_ISDIR(sb.st_mode))
            rc = nd_status_set(st, "BadRequest", NULL,
                               "cannot write %s: a directory of that name exists", path);
    }
    close(parent);
    return rc;
}

/* The checks of one member; its final path (NEW; NULL for a link skipped), or -1. */
static int check_member(struct nd_tar_extractor *x, const struct nd_tar_entry *e, char **out,
                        struct nd_status *st)
{
    const struct nd_tar_extract_opts *o = &x->o;
    *out = NULL;
    if (nd_tar_clean_path(e->name, &x->clean, st) < 0)
        return -1;
    if (e->type == ND_TAR_HARDLINK)
        return nd_status_set(st, "BadRequest", FIX_NAMES,
                             "refused: \"%s\" is a hard link (to \"%s\"); hard links are not "
                             "accepted",
                             e->name, e->link);
    if (e->type == ND_TAR_OTHER)
        return nd_status_set(st, "BadRequest", FIX_NAMES,
                             "refused: \"%s\" is a device, fifo or special file (type '%c'); only "
                             "files, directories and symbolic links are accepted",
                             e->name, e->typeflag ? e->typeflag : '?');
    char *path;
    if (o->top_from) {
        size_t tl = strlen(o->top_from);
        if (!*o->top_from || strncmp(x->clean.data, o->top_from, tl) != 0 ||
            (x->clean.data[tl] != '\0' && x->clean.data[tl] != '/'))
            return nd_status_set(st, "BadRequest", NULL,
                                 "refused: \"%s\" is not under \"%s\", the member asked for",
                                 e->name, o->top_from);
        path = nd_xasprintf("%s%s", o->top_to, x->clean.data + tl);
    } else {
        path = nd_xstrdup(x->clean.data);
    }
    /* the path from the tree's top, and a link's target, must fit the file system */
    char *full = o->base && *o->base ? nd_xasprintf("%s/%s", o->base, path) : NULL;
    int fits = nd_tar_check_path(full ? full : path, st);
    free(full);
    if (fits == 0 && e->type == ND_TAR_SYMLINK && e->link && strlen(e->link) > ND_TAR_PATH_MAX)
        fits = nd_status_set(st, "BadRequest", FIX_NAMES,
                             "refused: the symbolic link \"%s\" points to a path of %zu "
                             "bytes, more than the limit of %d (PATH_MAX)",
                             path, strlen(e->link), ND_TAR_PATH_MAX);
    if (fits < 0) {
        if (strncmp(st->message, "refused", 7) != 0)
            nd_status_prefix(st, "refused");
        goto bad;
    }
    /* a member under a link the archive made would be written through it */
    const char *through = under_link(x->links, path);
    if (through) {
        nd_status_set(st, "BadRequest", FIX_NAMES,
                      "refused: \"%s\" lies under \"%s\", a symbolic link of the archive", e->name,
                      through);
        goto bad;
    }
    if (e->type == ND_TAR_SYMLINK)
        json_object_set_new(x->links, path, json_true());
    if (e->type == ND_TAR_SYMLINK && !link_inside(path, e->link, o->base, o->top_from)) {
        if (!o->skipped) {
            nd_status_set(st, "BadRequest", FIX_NAMES,
                          "refused: the symbolic link \"%s\" points outside the destination "
                          "(to \"%s\")",
                          e->name, e->link);
            goto bad;
        }
        json_array_append_new(o->skipped, json_sprintf("%s -> %s", e->name, e->link));
        free(path);
        path = NULL; /* skipped */
    }
    x->total += e->size;
    if (o->max_bytes && x->total > o->max_bytes) {
        nd_status_set(st, "RequestEntityTooLarge", NULL,
                      "the archive holds more than %llu bytes of files",
                      (unsigned long long)o->max_bytes);
        goto bad;
    }
    if (o->max_entries && x->n >= o->max_entries) {
        nd_status_set(st, "RequestEntityTooLarge", NULL, "the archive holds more than %zu members",
                      o->max_entries);
        goto bad;
    }
    if (path && *path && dest_check(x->dirfd, path, e->type, st) < 0)
        goto bad;
    *out = path;
    return 0;
bad:
    free(path);
    return -1;
}

/* A member arrives: checked, then made in the stage (a file's content follows). */
static int on_member(void *cls, const struct nd_tar_entry *e, struct nd_status *st)
{
    struct nd_tar_extractor *x = cls;
    char *path;
    if (check_member(x, e, &path, st) < 0)
        return -1;
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 64;
        x->paths = nd_xrealloc(x->paths, x->cap * sizeof *x->paths);
    }
    x->paths[x->n++] = path;
    if (!path || !*path)
        return 0; /* skipped, or the destination itself (its mode is left as it is) */
    int parent = nd_tar_walk(x->stage, path, nd_tar_count_components(path) - 1, true, st);
    if (parent < 0)
        return -1;
    const char *name = nd_tar_last_component(path);
    int rc = 0;
    switch (e->type) {
    case ND_TAR_DIR:
        rc = nd_tar_make_dir(parent, name, path, st);
        if (rc == 0) {
            x->fixes = nd_xrealloc(x->fixes, (x->nfix + 1) * sizeof *x->fixes);
            x->fixes[x->nfix++] = (struct dir_fix){nd_xstrdup(path), e->mode, e->mtime};
        }
        break;
    case ND_TAR_FILE:
        rc = nd_tar_clear_slot(parent, name, path, st);
        if (rc == 0) {
            x->fd = openat(parent, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                           0600);
            if (x->fd < 0)
                rc = nd_tar_io_error(st, "cannot write", path, errno);
            x->cur = path;
            x->cur_mode = e->mode;
            x->cur_mtime = e->mtime;
        }
        break;
    case ND_TAR_SYMLINK:
        rc = nd_tar_clear_slot(parent, name, path, st);
        if (rc == 0 && symlinkat(e->link, parent, name) < 0)
            rc = nd_tar_io_error(st, "cannot make the link", path, errno);
        if (rc == 0)
            nd_tar_set_times(parent, name, e->mtime, AT_SYMLINK_NOFOLLOW);
        break;
    default:
        break;
    }
    close(parent);
    return rc;
}

static int on_data(void *cls, const char *p, size_t n, struct nd_status *st)
{
    struct nd_tar_extractor *x = cls;
    if (x->fd < 0)
        return 0; /* content of a member not written */
    while (n) {
        ssize_t w = write(x->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return nd_tar_io_error(st, "cannot write", x->cur, w < 0 ? errno : EIO);
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int on_end(void *cls, struct nd_status *st)
{
    struct nd_tar_extractor *x = cls;
    if (x->fd < 0)
        return 0;
    fchmod(x->fd, x->cur_mode & 0777);
    nd_tar_set_times(x->fd, NULL, x->cur_mtime, 0);
    int rc = close(x->fd);
    x->fd = -1;
    return rc < 0 ? nd_tar_io_error(st, "cannot write", x->cur, errno) : 0;
}

static const struct nd_tar_push_ops extract_ops = {on_member, on_data, on_end};

struct nd_tar_extractor *nd_tar_extractor_new(int dirfd, int stagefd,
                                              const struct nd_tar_extract_opts *o,
                                              struct nd_status *st)
{
    static const struct nd_tar_extract_opts none = {0};
    struct nd_tar_extractor *x = nd_xcalloc(1, sizeof *x);
    x->o = o ? *o : none;
    x->o.top_from = x->o.top_from ? nd_xstrdup(x->o.top_from) : NULL;
    x->o.top_to = x->o.top_to ? nd_xstrdup(x->o.top_to) : NULL;
    x->o.base = x->o.base ? nd_xstrdup(x->o.base) : NULL;
    x->fd = x->stage = x->stage_parent = -1;
    x->dirfd = dup(dirfd);
    x->stage_parent = dup(stagefd >= 0 ? stagefd : dirfd);
    nd_buf_init(&x->clean, 0);
    x->links = json_object();
    x->push = nd_tar_push_new(&extract_ops, x);
    if (x->dirfd < 0 || x->stage_parent < 0) {
        nd_tar_io_error(st, "cannot open", "", errno);
        nd_tar_extractor_free(x);
        return NULL;
    }
    for (int tries = 0; tries < 8 && x->stage < 0; tries++) {
        uint32_t r;
        nd_random_bytes(&r, sizeof r);
        snprintf(x->stage_name, sizeof x->stage_name, ".nodus-partial-%08x", (unsigned)r);
        if (mkdirat(x->stage_parent, x->stage_name, 0700) < 0) {
            if (errno == EEXIST)
                continue;
            break;
        }
        x->stage = openat(x->stage_parent, x->stage_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (x->stage < 0) {
        nd_tar_io_error(st, "cannot create", x->stage_name, errno);
        nd_tar_extractor_free(x);
        return NULL;
    }
    return x;
}

int nd_tar_extractor_write(struct nd_tar_extractor *x, const char *data, size_t len,
                           struct nd_status *st)
{
    if (x->failed)
        return nd_status_set(st, "BadRequest", NULL, "the archive was already refused");
    if (nd_tar_push_write(x->push, data, len, st) < 0) {
        x->failed = true;
        drop_stage(x);
        return -1;
    }
    return 0;
}

bool nd_tar_extractor_ended(const struct nd_tar_extractor *x)
{
    return nd_tar_push_ended(x->push);
}

/* Puts the staged member at path into the destination. */
static int place(struct nd_tar_extractor *x, const char *path, struct nd_status *st)
{
    int n = nd_tar_count_components(path) - 1;
    struct nd_status ign = ND_STATUS_INIT;
    int sp = nd_tar_walk(x->stage, path, n, false, &ign);
    nd_status_release(&ign);
    if (sp < 0)
        return 0; /* under a member placed already */
    const char *name = nd_tar_last_component(path);
    struct stat sb;
    if (fstatat(sp, name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
        close(sp);
        return 0; /* a repeated member, placed already */
    }
    int dp = nd_tar_walk(x->dirfd, path, n, true, st);
    int rc = -1;
    if (dp < 0)
        goto out;
    if (S_ISDIR(sb.st_mode)) {
        rc = nd_tar_make_dir(dp, name, path, st);
    } else {
        struct stat db;
        if (fstatat(dp, name, &db, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(db.st_mode))
            rc = nd_status_set(st, "BadRequest", NULL,
                               "cannot write %s: a directory of that name exists", path);
        else if (renameat(sp, name, dp, name) < 0)
            rc = nd_tar_io_error(st, "cannot write", path, errno);
        else
            rc = 0;
    }
    close(dp);
out:
    close(sp);
    return rc;
}

int nd_tar_extractor_finish(struct nd_tar_extractor *x, size_t *count, struct nd_status *st)
{
    if (count)
        *count = 0;
    if (x->failed)
        return nd_status_set(st, "BadRequest", NULL, "the archive was already refused");
    x->failed = true; /* once */
    if (nd_tar_push_finish(x->push, st) < 0) {
        drop_stage(x);
        return -1;
    }
    size_t done = 0;
    for (size_t i = 0; i < x->n; i++) {
        if (!x->paths[i])
            continue;
        if (*x->paths[i] && place(x, x->paths[i], st) < 0) {
            drop_stage(x);
            if (count)
                *count = done;
            return -1;
        }
        done++;
    }
    drop_stage(x);
    /* directory modes and times last: writing their members changed the times, and a
     * read-only directory could not have taken them */
    for (size_t i = x->nfix; i-- > 0;) {
        struct nd_status ignore = ND_STATUS_INIT;
        int fd = nd_tar_open_dir(x->dirfd, x->fixes[i].path, false, &ignore);
        nd_status_release(&ignore);
        if (fd < 0)
            continue;
        fchmod(fd, x->fixes[i].mode & 0777);
        nd_tar_set_times(fd, NULL, x->fixes[i].mtime, 0);
        close(fd);
    }
    if (count)
        *count = done;
    return 0;
}

int nd_tar_extract(const char *data, size_t len, int dirfd, const struct nd_tar_extract_opts *o,
                   size_t *count, struct nd_status *st)
{
    if (count)
        *count = 0;
    struct nd_tar_extractor *x = nd_tar_extractor_new(dirfd, -1, o, st);
    if (!x)
        return -1;
    int rc = nd_tar_extractor_write(x, data, len, st);
    if (rc == 0)
        rc = nd_tar_extractor_finish(x, count, st);
    nd_tar_extractor_free(x);
    return rc;
}
