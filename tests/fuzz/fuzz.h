/* fuzz.h: what every fuzz target shares (tests/fuzz/README in the Makefile's fuzz
 * block: `make fuzz`, FUZZ_SECONDS, FUZZ_TARGETS).
 *
 * A target defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer (make
 * fuzz, clang) or with standalone.c (make check: its corpus and regressions replayed). */
#ifndef ND_FUZZ_H
#define ND_FUZZ_H

#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Installs nodus' allocator into jansson once (as the programs do at start). */
static inline void fz_init(void)
{
    static int done;
    if (!done) {
        nd_xmalloc_install();
        done = 1;
    }
}

/* A NUL-terminated copy of n bytes (free()); NUL bytes inside stay. */
static inline char *fz_str(const uint8_t *p, size_t n)
{
    char *s = nd_xmalloc(n + 1);
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* Splits the input at the first occurrence of sep (a byte string): the part before in
 * *a (a_len), after in *b. Without sep, all of it is a and b is empty. */
static inline void fz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **a,
                            size_t *a_len, const uint8_t **b, size_t *b_len)
{
    size_t m = strlen(sep);
    for (size_t i = 0; i + m <= size; i++) {
        if (memcmp(data + i, sep, m) == 0) {
            *a = data;
            *a_len = i;
            *b = data + i + m;
            *b_len = size - i - m;
            return;
        }
    }
    *a = data;
    *a_len = size;
    *b = data + size;
    *b_len = 0;
}

/* Removes everything under dirfd (closed here), never following a symbolic link. */
static inline void fz_remove_under(int dirfd)
{
    DIR *d = dirfd >= 0 ? fdopendir(dirfd) : NULL;
    if (!d) {
        if (dirfd >= 0)
            close(dirfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat sb;
        if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            fchmodat(dirfd, e->d_name, 0700, 0);
            fz_remove_under(
                openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
        } else {
            unlinkat(dirfd, e->d_name, 0);
        }
    }
    closedir(d);
}

/* Removes the directory path and everything under it. */
static inline void fz_remove_tree(const char *path)
{
    if (!path || !*path)
        return;
    fz_remove_under(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    rmdir(path);
}

/* Whether the bytes hold the string s. */
static inline int fz_find(const uint8_t *data, size_t size, const char *s)
{
    size_t m = strlen(s);
    for (size_t i = 0; i + m <= size; i++)
        if (memcmp(data + i, s, m) == 0)
            return 1;
    return 0;
}

/* Fails loudly (a crash libFuzzer reports) when a property does not hold. */
#define FZ_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The sandbox check of the targets that write files: top holds nothing but the
 * directories keep and "out", and out_dir (a directory beside the one written to, which a
 * "../out/x" escape would reach) stays empty. who names the target in the message. */
static inline void fz_assert_only(const char *top, const char *keep, const char *out_dir,
                                  const char *who)
{
    DIR *d = opendir(top);
    FZ_ASSERT(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, keep) &&
            strcmp(e->d_name, "out")) {
            fprintf(stderr, "%s: %s/%s was written outside %s\n", who, top, e->d_name, keep);
            FZ_ASSERT(!"something was written outside the directory it belongs in");
        }
    }
    closedir(d);
    d = opendir(out_dir);
    FZ_ASSERT(d);
    while ((e = readdir(d)))
        FZ_ASSERT(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."));
    closedir(d);
}

/* The scratch tree of the targets that write files: a new /tmp/nodus-fuzz-NAME-*
 * directory in top (64 bytes, static: it is removed at exit) holding an empty "out",
 * the directory an escape would reach (fz_assert_only checks it). */
static char *fz_sandbox_top;

static inline void fz_sandbox_remove(void)
{
    fz_remove_tree(fz_sandbox_top);
}

static inline void fz_sandbox(char top[64], const char *name, char out_dir[96])
{
    snprintf(top, 64, "/tmp/nodus-fuzz-%s-XXXXXX", name);
    FZ_ASSERT(mkdtemp(top));
    fz_sandbox_top = top;
    atexit(fz_sandbox_remove);
    snprintf(out_dir, 96, "%s/out", top);
    FZ_ASSERT(mkdir(out_dir, 0755) == 0);
}

#endif
