/* fuzz_tar: the tar readers and safe extraction (pkg/tar).
 * Input: a tar archive. Every member is listed (nd_tar_next) and its name cleaned; the
 * push reader (nd_tar_push), fed the archive in pieces cut where the input's own bytes
 * say, must see the same members with the same content and agree on whether the archive
 * is good; then
 * the archive is extracted (by nd_tar_extractor, in such pieces) under DIR/in (a fresh
 * directory per input, DIR made once per process) with limits, plain or renaming its top member (as `nodus cp` does), and
 * with links outside either refused or skipped. Afterwards:
 *   - DIR holds exactly in/ and out/, and out/ (a sibling) is still empty;
 *   - no symbolic link under in/ points outside in/ (read lexically from its place);
 *   - what was extracted archives again (nd_tar_writer) into a tar that reads back.
 * The tree is then removed without following links. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "tar/tar.h"

static char top[64], in_dir[96], out_dir[96];
static size_t in_len;

static void setup(void)
{
    if (top[0])
        return;
    fz_init();
    fz_sandbox(top, "tar", out_dir);
    snprintf(in_dir, sizeof in_dir, "%s/in", top);
    in_len = strlen(in_dir);
}

static bool has_dotdot(const char *p)
{
    for (;;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return true;
        if (!p[n])
            return false;
        p += n + 1;
    }
}

/* Lexically resolves target from the directory holding link (both under in_dir) and
 * tells whether it stays under in_dir. */
static bool stays_inside(const char *link, const char *target)
{
    if (target[0] == '/')
        return strncmp(target, in_dir, in_len) == 0 && (!target[in_len] || target[in_len] == '/');
    /* depth of the link's directory below in_dir, then walk the target's components */
    long depth = 0;
    for (const char *p = link + in_len; *p; p++)
        if (*p == '/' && p[1])
            depth++;
    depth--; /* the link's own name */
    const char *p = target;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
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

/* Every symbolic link under dirfd (path: its name from in_dir) must stay inside. */
static void check_links(int dirfd, const char *path)
{
    DIR *d = fdopendir(dirfd);
    FZ_ASSERT(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat sb;
        if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        char *p = nd_xasprintf("%s/%s", path, e->d_name);
        if (S_ISLNK(sb.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(dirfd, e->d_name, target, sizeof target - 1);
            FZ_ASSERT(n >= 0);
            target[n] = '\0';
            if (!stays_inside(p, target)) {
                fprintf(stderr, "fuzz_tar: %s -> %s leaves %s\n", p, target, in_dir);
                FZ_ASSERT(!"a symbolic link points outside the extraction directory");
            }
        } else if (S_ISDIR(sb.st_mode)) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                check_links(sub, p);
        }
        free(p);
    }
    closedir(d);
}

static void check_tree(void)
{
    fz_assert_only(top, "in", out_dir, "fuzz_tar");
    check_links(open(in_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), in_dir);
}

/* ---- the push reader against nd_tar_next ---- */

struct seen {
    struct nd_buf log; /* one line per member and a hash of each content */
    uint64_t hash;
    size_t members;
    bool file; /* the member being read is a file: its content counts */
};

static void log_entry(struct nd_buf *b, const struct nd_tar_entry *e)
{
    nd_buf_addf(b, "%s|%d|%o|%lld|%llu|%s\n", e->name, (int)e->type, e->mode,
                (long long)e->mtime, (unsigned long long)e->size, e->link ? e->link : "-");
}

static int push_member(void *cls, const struct nd_tar_entry *e, struct nd_status *st)
{
    (void)st;
    struct seen *s = cls;
    FZ_ASSERT(!e->data);
    log_entry(&s->log, e);
    s->hash = 1469598103934665603ull;
    s->file = e->type == ND_TAR_FILE;
    s->members++;
    return 0;
}

static int push_data(void *cls, const char *p, size_t n, struct nd_status *st)
{
    (void)st;
    struct seen *s = cls;
    if (!s->file)
        return 0;
    for (size_t i = 0; i < n; i++)
        s->hash = (s->hash ^ (unsigned char)p[i]) * 1099511628211ull;
    return 0;
}

static int push_end(void *cls, struct nd_status *st)
{
    (void)st;
    struct seen *s = cls;
    nd_buf_addf(&s->log, "=%llx\n", (unsigned long long)s->hash);
    return 0;
}

static const struct nd_tar_push_ops seen_ops = {push_member, push_data, push_end};

/* Piece sizes from the input: 1 to 1024 bytes, then the rest. */
static size_t piece(const uint8_t *d, size_t size, size_t i)
{
    return size ? 1 + (size_t)((d[i % size] * 7u + i) % 1024u) : 1;
}

static void compare_push(const uint8_t *data, size_t size)
{
    const char *d = (const char *)data;
    struct seen want = {ND_BUF_INIT, 0, 0, false}, got = {ND_BUF_INIT, 0, 0, false};
    struct nd_status st = ND_STATUS_INIT, pst = ND_STATUS_INIT;
    struct nd_tar_reader r;
    nd_tar_reader_init(&r, d, size);
    struct nd_tar_entry e;
    int rc;
    while ((rc = nd_tar_next(&r, &e, &st)) > 0) {
        log_entry(&want.log, &e);
        want.hash = 1469598103934665603ull;
        want.file = true;
        push_data(&want, e.data, (size_t)e.size, &st);
        push_end(&want, &st);
        want.members++;
        nd_tar_entry_release(&e);
    }
    struct nd_tar_push *p = nd_tar_push_new(&seen_ops, &got);
    int prc = 0;
    for (size_t off = 0, i = 0; off < size && prc == 0; i++) {
        size_t n = piece(data, size, i);
        if (n > size - off)
            n = size - off;
        prc = nd_tar_push_write(p, d + off, n, &pst);
        off += n;
    }
    if (prc == 0)
        prc = nd_tar_push_finish(p, &pst);
    nd_tar_push_free(p);
    bool capped = prc < 0 && pst.message && strstr(pst.message, "longer than 1 MiB");
    if (!capped) {
        /* the same verdict; and the same members, up to where the in-memory reader
         * stopped (the push reader may have seen the header of a member cut short) */
        FZ_ASSERT((rc < 0) == (prc < 0));
        if (rc == 0)
            FZ_ASSERT(got.log.len == want.log.len && got.members == want.members);
        FZ_ASSERT(got.log.len >= want.log.len &&
                  memcmp(got.log.data, want.log.data, want.log.len) == 0);
    }
    nd_buf_release(&want.log);
    nd_buf_release(&got.log);
    nd_status_release(&st);
    nd_status_release(&pst);
}

/* nd_tar_extract, but fed in pieces. */
static int extract_in_pieces(const uint8_t *data, size_t size, int dirfd,
                             const struct nd_tar_extract_opts *o, size_t *count,
                             struct nd_status *st)
{
    struct nd_tar_extractor *x = nd_tar_extractor_new(dirfd, -1, o, st);
    if (!x)
        return -1;
    int rc = 0;
    for (size_t off = 0, i = 0; off < size && rc == 0; i++) {
        size_t n = piece(data, size, i + 3);
        if (n > size - off)
            n = size - off;
        rc = nd_tar_extractor_write(x, (const char *)data + off, n, st);
        off += n;
    }
    if (rc == 0)
        rc = nd_tar_extractor_finish(x, count, st);
    nd_tar_extractor_free(x);
    return rc;
}

static void rearchive(int dirfd)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_tar_writer *w = nd_tar_writer_new(dirfd, "", "top", &st);
    FZ_ASSERT(w);
    struct nd_buf all = ND_BUF_INIT;
    char buf[8192];
    ssize_t n;
    while ((n = nd_tar_writer_read(w, buf, sizeof buf, &st)) > 0)
        nd_buf_add(&all, buf, (size_t)n);
    FZ_ASSERT(n == 0);
    struct nd_tar_reader r;
    nd_tar_reader_init(&r, all.data, all.len);
    struct nd_tar_entry e;
    int rc;
    size_t members = 0;
    while ((rc = nd_tar_next(&r, &e, &st)) > 0) {
        nd_tar_entry_release(&e);
        members++;
    }
    if (rc < 0)
        fprintf(stderr, "fuzz_tar: our own archive: %s\n", st.message);
    FZ_ASSERT(rc == 0 && members == nd_tar_writer_count(w));
    nd_tar_writer_free(w);
    nd_buf_release(&all);
    nd_status_release(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    const char *d = (const char *)data;
    struct nd_status st = ND_STATUS_INIT;

    /* list, as `nodus cp` and the files API read an archive */
    struct nd_tar_reader r;
    nd_tar_reader_init(&r, d, size);
    struct nd_tar_entry e;
    char *first = NULL;
    int rc;
    while ((rc = nd_tar_next(&r, &e, &st)) > 0) {
        FZ_ASSERT(e.name);
        FZ_ASSERT(e.type != ND_TAR_FILE || e.data + e.size <= d + size);
        struct nd_buf clean = ND_BUF_INIT;
        struct nd_status cst = ND_STATUS_INIT;
        if (nd_tar_clean_path(e.name, &clean, &cst) == 0) {
            FZ_ASSERT(!has_dotdot(clean.data) && clean.data[0] != '/');
            if (!first && clean.len) {
                size_t n = strcspn(clean.data, "/");
                first = nd_xstrndup(clean.data, n);
            }
        }
        nd_buf_release(&clean);
        nd_status_release(&cst);
        nd_tar_entry_release(&e);
    }
    FZ_ASSERT(rc == 0 || st.message);
    nd_status_release(&st);
    compare_push(data, size);

    /* extract */
    FZ_ASSERT(mkdir(in_dir, 0755) == 0);
    int dirfd = open(in_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    FZ_ASSERT(dirfd >= 0);
    json_t *skipped = json_array();
    struct nd_tar_extract_opts o = {.max_bytes = 1u << 20, .max_entries = 1000};
    unsigned variant = size % 4;
    if (variant & 1)
        o.skipped = skipped;
    if ((variant & 2) && first) {
        o.top_from = first;
        o.top_to = "renamed";
    }
    size_t count = 0;
    if ((size & 4 ? extract_in_pieces(data, size, dirfd, &o, &count, &st)
                  : nd_tar_extract(d, size, dirfd, &o, &count, &st)) < 0)
        FZ_ASSERT(st.message);
    nd_status_release(&st);
    check_tree();
    rearchive(dirfd);
    close(dirfd);
    fz_remove_under(open(in_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (rmdir(in_dir) < 0)
        perror(in_dir);
    FZ_ASSERT(access(in_dir, F_OK) != 0);
    json_decref(skipped);
    free(first);
    return 0;
}
