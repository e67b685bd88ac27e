/* events_same.h: the check that the start's read of the Events' hour files with the
 * one-pass scan (events_file.h with a plan) makes what jansson's path makes (no plan):
 * the same items (each Event's name, compact bytes and record; each line that does not
 * parse, with its report), and the same files left after the tidy, byte for byte. Shared
 * by the unit test (tests/unit/test_events_scan.c) and the fuzz target
 * (fuzz_events_scan.c). */
#ifndef ND_EVENTS_SAME_H
#define ND_EVENTS_SAME_H

#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "events_file.h"
#include "fsutil.h"
#include "objscan.h"
#include "util/buf.h"
#include "util/xmalloc.h"

/* One file of a project's events/ directory: its name and text. */
struct es_file {
    const char *name;
    const char *text;
    size_t len;
};

/* What the start gave, written out: one line per item and per file left. */
static void es_item(void *ctx, char *name, json_t *obj, struct em_bytes *json, char *path,
                    char *why)
{
    struct nd_buf *out = ctx;
    const struct nd_kind *k = nd_kind_by_plural(NULL, "events");
    nd_buf_addf(out, "item %s\n", name);
    if (obj) {
        char *dump = json ? NULL : json_dumps(obj, JSON_COMPACT);
        nd_buf_add(out, json ? json->data : dump, json ? json->len : strlen(dump));
        json_t *rec = em_rec_of(k, obj);
        char *r = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
        nd_buf_addf(out, "\nrec %s\n", r);
        free(r);
        free(dump);
        json_decref(rec);
        json_decref(obj);
    }
    if (why) {
        const char *slash = strrchr(path, '/');
        nd_buf_addf(out, "broken %s: %s\n", slash ? slash + 1 : path, why);
    }
    em_bytes_unref(json);
    free(name);
    free(path);
    free(why);
}

static int es_skip_dots(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Loads the files (as project "p") with plan (NULL: jansson's path) in a scratch
 * directory, then removes it: what it gave into out, the lines counted into rd. */
static void es_run(const struct em_scan_plan *plan, const struct es_file *files, size_t n,
                   struct nd_buf *out, struct em_events_read *rd)
{
    const char *base = getenv("TMPDIR");
    char *dir = nd_xasprintf("%s/nd-evscan-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        abort();
    for (size_t i = 0; i < n; i++) {
        char *path = nd_xasprintf("%s/%s", dir, files[i].name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(files[i].text, 1, files[i].len, f) != files[i].len || fclose(f) != 0)
            abort();
        free(path);
    }
    em_events_load_dir(dir, "p", plan, es_item, out, rd);
    struct dirent **ents = NULL;
    int m = scandir(dir, &ents, es_skip_dots, alphasort);
    for (int i = 0; i < m; i++) {
        char *path = nd_xasprintf("%s/%s", dir, ents[i]->d_name);
        struct nd_buf text = ND_BUF_INIT;
        nd_buf_addf(out, "file %s\n", ents[i]->d_name);
        if (nd_buf_read_file(&text, path) == 0 && text.len)
            nd_buf_add(out, text.data, text.len);
        nd_buf_release(&text);
        free(path);
        free(ents[i]);
    }
    free(ents);
    em_rm_rf(dir);
    free(dir);
}

/* Whether both reads of the files agree; rd: the scan's counts. */
static bool es_same(const struct em_scan_plan *plan, const struct es_file *files, size_t n,
                    struct em_events_read *rd)
{
    struct nd_buf a = ND_BUF_INIT, b = ND_BUF_INIT;
    struct em_events_read slow = {0};
    es_run(plan, files, n, &a, rd);
    es_run(NULL, files, n, &b, &slow);
    bool same = a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
    if (!same && getenv("ND_EVENTS_SAME_SHOW"))
        fprintf(stderr, "scan:\n%.*s\njansson:\n%.*s\n", (int)a.len, a.data ? a.data : "",
                (int)b.len, b.data ? b.data : "");
    nd_buf_release(&a);
    nd_buf_release(&b);
    return same;
}

#endif
