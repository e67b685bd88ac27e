/* tar_fs.c: extracting an archive under a directory, never writing outside it.
 *
 * Every path is walked one component at a time from the destination's descriptor with
 * openat(O_NOFOLLOW | O_DIRECTORY): a symbolic link on the way (one that was there
 * before, or one the archive itself made) stops the walk instead of being followed, so
 * neither a member name nor the tree's own links can lead a write elsewhere. Names are
 * cleaned first (no ".." component), links must point inside, and hard links, devices
 * and fifos are refused. All checks run over the whole archive before the first write.
 */
#include "tar/tar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

#define FIX_NAMES "send an archive whose members stay inside the destination"

static int io_error(struct nd_status *st, const char *what, const char *path, int err)
{
    return nd_status_set(st, "InternalError", NULL, "%s %s: %s", what, *path ? path : ".",
                         strerror(err));
}

/* Opens one directory component under fd; with create, makes it first when missing. */
static int open_component(int fd, const char *comp, const char *path, bool create,
                          struct nd_status *st)
{
    for (int tries = 0; tries < 2; tries++) {
        int d = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d >= 0)
            return d;
        int err = errno;
        if (err == ENOENT && create && tries == 0) {
            if (mkdirat(fd, comp, 0755) == 0 || errno == EEXIST)
                continue;
            return io_error(st, "cannot create", path, errno);
        }
        if (err == ENOENT)
            return nd_status_set(st, "NotFound", NULL, "%s: no such file or directory", path);
        if (err == ELOOP || err == ENOTDIR) {
            struct stat sb;
            bool link = fstatat(fd, comp, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
            return nd_status_set(st, "BadRequest", NULL, "%s is %s, not a directory", path,
                                 link ? "a symbolic link" : "a file");
        }
        return io_error(st, "cannot open", path, err);
    }
    return io_error(st, "cannot open", path, ENOENT);
}

/* Walks the first `ncomp` components of rel (all when ncomp < 0). */
static int walk(int dirfd, const char *rel, int ncomp, bool create, struct nd_status *st)
{
    int fd = dup(dirfd);
    if (fd < 0)
        return io_error(st, "cannot open", rel, errno);
    struct nd_buf path = ND_BUF_INIT;
    const char *p = rel;
    for (int i = 0; *p && (ncomp < 0 || i < ncomp); i++) {
        size_t n = strcspn(p, "/");
        char *comp = nd_xstrndup(p, n);
        if (path.len)
            nd_buf_addch(&path, '/');
        nd_buf_adds(&path, comp);
        int next = open_component(fd, comp, path.data, create, st);
        free(comp);
        close(fd);
        if (next < 0) {
            fd = -1;
            break;
        }
        fd = next;
        p += n;
        while (*p == '/')
            p++;
    }
    nd_buf_release(&path);
    return fd;
}

int nd_tar_open_dir(int dirfd, const char *rel, bool create, struct nd_status *st)
{
    return walk(dirfd, rel, -1, create, st);
}

static int count_components(const char *rel)
{
    int n = 0;
    for (const char *p = rel; *p;) {
        n++;
        p += strcspn(p, "/");
        while (*p == '/')
            p++;
    }
    return n;
}

static const char *last_component(const char *rel)
{
    const char *s = strrchr(rel, '/');
    return s ? s + 1 : rel;
}

int nd_tar_lstat(int dirfd, const char *rel, struct stat *out, struct nd_status *st)
{
    if (!*rel) {
        if (fstat(dirfd, out) < 0)
            return io_error(st, "cannot stat", rel, errno);
        return 0;
    }
    int fd = walk(dirfd, rel, count_components(rel) - 1, false, st);
    if (fd < 0)
        return -1;
    int rc = 0;
    if (fstatat(fd, last_component(rel), out, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            rc = nd_status_set(st, "NotFound", NULL, "%s: no such file or directory", rel);
        else
            rc = io_error(st, "cannot stat", rel, errno);
    }
    close(fd);
    return rc;
}

/* ---- checking ---- */

/* The members' final paths (after the top rename), checked. */
struct plan {
    char **paths;
    size_t n;
};

static void plan_release(struct plan *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->paths[i]);
    free(pl->paths);
}

/* Whether a link at `path` (relative to the extraction directory) to `target` stays
 * inside the bound: `base` components above the directory are inside too, and with a
 * top rename only what is under the top member is. */
static bool link_inside(const char *path, const char *target, const char *base, bool top)
{
    if (!*target || target[0] == '/')
        return false;
    /* the depth of the link's directory below the bound */
    int depth = (base ? count_components(base) : 0) + count_components(path) - 1 - (top ? 1 : 0);
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

static int check(const char *data, size_t len, const struct nd_tar_extract_opts *o, struct plan *pl,
                 struct nd_status *st)
{
    struct nd_tar_reader r;
    nd_tar_reader_init(&r, data, len);
    struct nd_tar_entry e;
    struct nd_buf clean = ND_BUF_INIT;
    uint64_t total = 0;
    size_t cap = 0;
    int got;
    json_t *links = json_object(); /* paths of the archive's symbolic links */
    while ((got = nd_tar_next(&r, &e, st)) > 0) {
        char *path = NULL;
        if (nd_tar_clean_path(e.name, &clean, st) < 0)
            goto bad_entry;
        if (e.type == ND_TAR_HARDLINK) {
            nd_status_set(st, "BadRequest", FIX_NAMES,
                          "refused: \"%s\" is a hard link (to \"%s\"); hard links are not "
                          "accepted",
                          e.name, e.link);
            goto bad_entry;
        }
        if (e.type == ND_TAR_OTHER) {
            nd_status_set(st, "BadRequest", FIX_NAMES,
                          "refused: \"%s\" is a device, fifo or special file (type '%c'); only "
                          "files, directories and symbolic links are accepted",
                          e.name, e.typeflag ? e.typeflag : '?');
            goto bad_entry;
        }
        if (o->top_from) {
            size_t tl = strlen(o->top_from);
            if (!*o->top_from || strncmp(clean.data, o->top_from, tl) != 0 ||
                (clean.data[tl] != '\0' && clean.data[tl] != '/')) {
                nd_status_set(st, "BadRequest", NULL,
                              "refused: \"%s\" is not under \"%s\", the member asked for", e.name,
                              o->top_from);
                goto bad_entry;
            }
            path = nd_xasprintf("%s%s", o->top_to, clean.data + tl);
        } else {
            path = nd_xstrdup(clean.data);
        }
        /* the path from the tree's top, and a link's target, must fit the file system */
        char *full = o->base && *o->base ? nd_xasprintf("%s/%s", o->base, path) : NULL;
        int fits = nd_tar_check_path(full ? full : path, st);
        free(full);
        if (fits == 0 && e.type == ND_TAR_SYMLINK && e.link && strlen(e.link) > ND_TAR_PATH_MAX)
            fits = nd_status_set(st, "BadRequest", FIX_NAMES,
                                 "refused: the symbolic link \"%s\" points to a path of %zu "
                                 "bytes, more than the limit of %d (PATH_MAX)",
                                 path, strlen(e.link), ND_TAR_PATH_MAX);
        if (fits < 0) {
            if (strncmp(st->message, "refused", 7) != 0)
                nd_status_prefix(st, "refused");
            free(path);
            goto bad_entry;
        }
        /* a member under a link the archive made would be written through it */
        const char *through = under_link(links, path);
        if (through) {
            nd_status_set(st, "BadRequest", FIX_NAMES,
                          "refused: \"%s\" lies under \"%s\", a symbolic link of the archive",
                          e.name, through);
            free(path);
            goto bad_entry;
        }
        if (e.type == ND_TAR_SYMLINK)
            json_object_set_new(links, path, json_true());
        if (e.type == ND_TAR_SYMLINK && !link_inside(path, e.link, o->base, o->top_from)) {
            if (!o->skipped) {
                nd_status_set(st, "BadRequest", FIX_NAMES,
                              "refused: the symbolic link \"%s\" points outside the destination "
                              "(to \"%s\")",
                              e.name, e.link);
                free(path);
                goto bad_entry;
            }
            json_array_append_new(o->skipped, json_sprintf("%s -> %s", e.name, e.link));
            free(path);
            path = NULL; /* skipped: the extraction pass sees a NULL path */
        }
        total += e.size;
        if (o->max_bytes && total > o->max_bytes) {
            nd_status_set(st, "RequestEntityTooLarge", NULL,
                          "the archive holds more than %llu bytes of files",
                          (unsigned long long)o->max_bytes);
            free(path);
            goto bad_entry;
        }
        if (o->max_entries && pl->n >= o->max_entries) {
            nd_status_set(st, "RequestEntityTooLarge", NULL,
                          "the archive holds more than %zu members", o->max_entries);
            free(path);
            goto bad_entry;
        }
        if (pl->n == cap) {
            cap = cap ? cap * 2 : 64;
            pl->paths = nd_xrealloc(pl->paths, cap * sizeof *pl->paths);
        }
        pl->paths[pl->n++] = path;
        nd_tar_entry_release(&e);
        continue;
    bad_entry:
        nd_tar_entry_release(&e);
        got = -1;
        break;
    }
    json_decref(links);
    nd_buf_release(&clean);
    return got;
}

/* ---- writing ---- */

struct dir_fix {
    char *path;
    unsigned mode;
    int64_t mtime;
};

static void set_times(int fd, const char *name, int64_t mtime, int flags)
{
    struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)mtime, 0}};
    if (name)
        utimensat(fd, name, ts, flags);
    else
        futimens(fd, ts);
}

/* Removes what stands at name unless it is a directory (which EISDIR reports). */
static int clear_slot(int parent, const char *name, const char *path, struct nd_status *st)
{
    struct stat sb;
    if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : io_error(st, "cannot stat", path, errno);
    if (S_ISDIR(sb.st_mode))
        return nd_status_set(st, "BadRequest", NULL,
                             "cannot write %s: a directory of that name exists", path);
    if (unlinkat(parent, name, 0) < 0)
        return io_error(st, "cannot replace", path, errno);
    return 0;
}

static int write_file(int parent, const char *name, const char *path, const struct nd_tar_entry *e,
                      struct nd_status *st)
{
    int fd = openat(parent, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == ELOOP || errno == EISDIR || errno == ETXTBSY)) {
        /* a link is replaced, never written through; a running binary is replaced too */
        if (clear_slot(parent, name, path, st) < 0)
            return -1;
        fd = openat(parent, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd < 0)
        return io_error(st, "cannot write", path, errno);
    const char *p = e->data;
    uint64_t left = e->size;
    while (left) {
        ssize_t n = write(fd, p, left > (1u << 20) ? (1u << 20) : (size_t)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(fd);
            return io_error(st, "cannot write", path, err);
        }
        p += n;
        left -= (uint64_t)n;
    }
    fchmod(fd, e->mode & 0777);
    set_times(fd, NULL, e->mtime, 0);
    if (close(fd) < 0)
        return io_error(st, "cannot write", path, errno);
    return 0;
}

static int make_dir(int parent, const char *name, const char *path, struct nd_status *st)
{
    if (mkdirat(parent, name, 0700) == 0)
        return 0;
    if (errno != EEXIST)
        return io_error(st, "cannot create", path, errno);
    struct stat sb;
    if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode))
        return 0;
    return nd_status_set(st, "BadRequest", NULL,
                         "cannot make the directory %s: a file or symbolic link of that name "
                         "exists",
                         path);
}

static int write_member(int dirfd, const char *path, const struct nd_tar_entry *e,
                        struct dir_fix **fixes, size_t *nfix, struct nd_status *st)
{
    if (!*path) {
        /* the destination itself: its mode is left as it is */
        return 0;
    }
    int parent = walk(dirfd, path, count_components(path) - 1, true, st);
    if (parent < 0)
        return -1;
    const char *name = last_component(path);
    int rc = 0;
    switch (e->type) {
    case ND_TAR_DIR:
        rc = make_dir(parent, name, path, st);
        if (rc == 0) {
            *fixes = nd_xrealloc(*fixes, (*nfix + 1) * sizeof **fixes);
            (*fixes)[(*nfix)++] = (struct dir_fix){nd_xstrdup(path), e->mode, e->mtime};
        }
        break;
    case ND_TAR_FILE:
        rc = write_file(parent, name, path, e, st);
        break;
    case ND_TAR_SYMLINK:
        rc = clear_slot(parent, name, path, st);
        if (rc == 0 && symlinkat(e->link, parent, name) < 0)
            rc = io_error(st, "cannot make the link", path, errno);
        if (rc == 0)
            set_times(parent, name, e->mtime, AT_SYMLINK_NOFOLLOW);
        break;
    default:
        break;
    }
    close(parent);
    return rc;
}

int nd_tar_extract(const char *data, size_t len, int dirfd, const struct nd_tar_extract_opts *o,
                   size_t *count, struct nd_status *st)
{
    static const struct nd_tar_extract_opts none = {0};
    if (!o)
        o = &none;
    if (count)
        *count = 0;
    struct plan pl = {0};
    struct dir_fix *fixes = NULL;
    size_t nfix = 0, done = 0;
    int rc = -1;
    if (check(data, len, o, &pl, st) < 0)
        goto out;
    struct nd_tar_reader r;
    nd_tar_reader_init(&r, data, len);
    struct nd_tar_entry e;
    for (size_t i = 0; i < pl.n && nd_tar_next(&r, &e, st) > 0; i++) {
        int w = pl.paths[i] ? write_member(dirfd, pl.paths[i], &e, &fixes, &nfix, st) : 0;
        nd_tar_entry_release(&e);
        if (w < 0)
            goto out;
        if (pl.paths[i])
            done++;
    }
    /* directory modes and times last: writing their members changed the times, and a
     * read-only directory could not have taken them */
    for (size_t i = nfix; i-- > 0;) {
        struct nd_status ignore = ND_STATUS_INIT;
        int fd = nd_tar_open_dir(dirfd, fixes[i].path, false, &ignore);
        nd_status_release(&ignore);
        if (fd < 0)
            continue;
        fchmod(fd, fixes[i].mode & 0777);
        set_times(fd, NULL, fixes[i].mtime, 0);
        close(fd);
    }
    rc = 0;
out:
    for (size_t i = 0; i < nfix; i++)
        free(fixes[i].path);
    free(fixes);
    plan_release(&pl);
    if (count)
        *count = done;
    return rc;
}
