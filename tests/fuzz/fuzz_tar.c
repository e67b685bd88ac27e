/* fuzz_tar: the tar reader and safe extraction (pkg/tar).
 * Input: a tar archive. Every member is listed (nd_tar_next) and its name cleaned; then
 * the archive is extracted under DIR/in (a fresh directory per input, DIR made once per
 * process) with limits, plain or renaming its top member (as `nodus cp` does), and
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
    if (nd_tar_extract(d, size, dirfd, &o, &count, &st) < 0)
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
