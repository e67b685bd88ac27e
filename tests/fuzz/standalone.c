/* standalone.c: runs a fuzz target's LLVMFuzzerTestOneInput over files, without
 * libFuzzer, so the targets build with the normal compiler and their seed corpora and
 * regression inputs run in `make check`.
 *
 *   fuzz_NAME [-q] PATH...   each PATH a file, or a directory whose regular files
 *                            (not starting with '.') run in name order
 *
 * Prints TAP: "1..N", then "ok I - PATH" per input (a crash aborts the run, which
 * breaks the plan and fails the suite). -q prints one line for all of them. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static char **files;
static size_t nfiles;

static void add(const char *path)
{
    files = realloc(files, (nfiles + 1) * sizeof *files);
    if (!files)
        abort();
    files[nfiles] = malloc(strlen(path) + 1);
    if (!files[nfiles])
        abort();
    memcpy(files[nfiles], path, strlen(path) + 1);
    nfiles++;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_arg(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) < 0)
        return; /* a missing directory (no regressions yet) holds nothing */
    if (!S_ISDIR(sb.st_mode)) {
        add(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    size_t first = nfiles;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *p = malloc(n);
        if (!p)
            abort();
        snprintf(p, n, "%s/%s", path, e->d_name);
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            add(p);
        free(p);
    }
    closedir(d);
    qsort(files + first, nfiles - first, sizeof *files, cmp);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

int main(int argc, char **argv)
{
    int quiet = argc > 1 && strcmp(argv[1], "-q") == 0;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1 + quiet; i < argc; i++)
        add_arg(argv[i]);
    if (!quiet)
        printf("1..%zu\n", nfiles);
    fflush(stdout);
    int failed = 0;
    for (size_t i = 0; i < nfiles; i++) {
        size_t len = 0;
        unsigned char *data = slurp(files[i], &len);
        if (!data) {
            printf("not ok %zu - %s: cannot read\n", i + 1, files[i]);
            failed = 1;
            continue;
        }
        /* an exact-size copy, so ASan sees a read past the end as libFuzzer would */
        unsigned char *copy = malloc(len ? len : 1);
        if (!copy)
            abort();
        memcpy(copy, data, len);
        free(data);
        LLVMFuzzerTestOneInput(copy, len);
        free(copy);
        if (!quiet)
            printf("ok %zu - %s\n", i + 1, files[i]);
        fflush(stdout);
        free(files[i]);
    }
    free(files);
    if (quiet)
        printf("%zu inputs ran\n", nfiles);
    return failed;
}
