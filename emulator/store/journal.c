/* The change journal; see journal.h. */
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

static const char *type_static(const char *t)
{
    if (strcmp(t, "ADDED") == 0)
        return "ADDED";
    if (strcmp(t, "DELETED") == 0)
        return "DELETED";
    return "MODIFIED";
}

static void push(struct em_journal *j, int64_t rev, int64_t time_ms, const char *type,
                 const char *plural, json_t *obj, json_t *prev)
{
    if (j->len == j->cap) {
        j->cap = j->cap ? j->cap * 2 : 256;
        j->ev = nd_xrealloc(j->ev, j->cap * sizeof *j->ev);
    }
    struct em_event *e = &j->ev[j->len++];
    e->rev = rev;
    e->time_ms = time_ms;
    e->type = type_static(type);
    e->plural = nd_xstrdup(plural);
    e->obj = json_incref(obj);
    e->prev = prev ? json_incref(prev) : NULL;
}

static void free_event(struct em_event *e)
{
    free(e->plural);
    json_decref(e->obj);
    json_decref(e->prev);
}

static char *event_line(const struct em_event *e)
{
    json_t *j = json_pack("{sIsIsssssO}", "rev", (json_int_t)e->rev, "time", (json_int_t)e->time_ms,
                          "type", e->type, "plural", e->plural, "object", e->obj);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

static void write_line(struct em_journal *j, const struct em_event *e)
{
    if (!j->file)
        return;
    char *line = event_line(e);
    fputs(line, j->file);
    fputc('\n', j->file);
    free(line);
    fflush(j->file);
    if (j->store->fsync_mode == EM_FSYNC_ALWAYS)
        fsync(fileno(j->file));
}

/* Rewrites the file with only the kept events (after a trim). */
static void rewrite(struct em_journal *j)
{
    struct nd_buf all = ND_BUF_INIT;
    for (size_t i = 0; i < j->len; i++) {
        char *line = event_line(&j->ev[i]);
        nd_buf_adds(&all, line);
        nd_buf_addch(&all, '\n');
        free(line);
    }
    struct nd_status st = ND_STATUS_INIT;
    if (j->file)
        fclose(j->file);
    /* The rewrite is atomic (temp file + rename) even under --fsync batch. */
    enum em_fsync mode = j->store->fsync_mode;
    if (mode == EM_FSYNC_BATCH)
        j->store->fsync_mode = EM_FSYNC_ALWAYS;
    em_store_write_file(j->store, j->path, all.data, all.len, &st);
    j->store->fsync_mode = mode;
    j->file = fopen(j->path, "a");
    nd_status_release(&st);
    nd_buf_release(&all);
    j->dropped_since_rewrite = 0;
}

int em_journal_open(struct em_journal *j, struct em_store *store, int64_t current_rev,
                    int64_t now_ms, struct nd_buf *err)
{
    memset(j, 0, sizeof *j);
    j->store = store;
    j->oldest_rev = current_rev;
    char *dir = em_store_path(store, "history");
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        nd_buf_addf(err, "cannot create %s: %s", dir, strerror(errno));
        free(dir);
        return -1;
    }
    free(dir);
    j->path = em_store_path(store, "history/journal.ndjson");
    FILE *in = fopen(j->path, "r");
    if (in) {
        /* The previous object of each key, to restore `prev`. */
        json_t *last = json_object();
        char *line = NULL;
        size_t cap = 0;
        bool first = true;
        while (getline(&line, &cap, in) > 0) {
            json_t *ev = json_loads(line, 0, NULL);
            json_t *obj = json_object_get(ev, "object");
            const char *plural = json_string_value(json_object_get(ev, "plural"));
            const char *type = json_string_value(json_object_get(ev, "type"));
            json_int_t rev = json_integer_value(json_object_get(ev, "rev"));
            json_int_t t = json_integer_value(json_object_get(ev, "time"));
            if (!json_is_object(obj) || !plural || !type || rev <= 0) {
                json_decref(ev); /* a torn last line after a crash */
                continue;
            }
            json_t *meta = json_object_get(obj, "metadata");
            const char *ns = json_string_value(json_object_get(meta, "namespace"));
            const char *name = json_string_value(json_object_get(meta, "name"));
            char *key = nd_xasprintf("%s/%s/%s", plural, ns ? ns : "", name ? name : "");
            if (t >= now_ms - EM_HISTORY_MS) {
                if (first) {
                    j->oldest_rev = rev - 1;
                    first = false;
                }
                push(j, rev, t, type, plural, obj, json_object_get(last, key));
            }
            json_object_set(last, key, obj);
            free(key);
            json_decref(ev);
        }
        free(line);
        fclose(in);
        json_decref(last);
        if (first)
            j->oldest_rev = current_rev;
    }
    rewrite(j);
    return 0;
}

void em_journal_close(struct em_journal *j)
{
    for (size_t i = 0; i < j->len; i++)
        free_event(&j->ev[i]);
    free(j->ev);
    if (j->file)
        fclose(j->file);
    free(j->path);
    memset(j, 0, sizeof *j);
}

void em_journal_append(struct em_journal *j, int64_t rev, int64_t time_ms, const char *type,
                       const char *plural, json_t *obj, json_t *prev)
{
    push(j, rev, time_ms, type, plural, obj, prev);
    write_line(j, &j->ev[j->len - 1]);
}

void em_journal_trim(struct em_journal *j, int64_t now_ms)
{
    size_t drop = 0;
    while (drop < j->len && j->ev[drop].time_ms < now_ms - EM_HISTORY_MS)
        drop++;
    if (!drop)
        return;
    j->oldest_rev = j->ev[drop - 1].rev;
    for (size_t i = 0; i < drop; i++)
        free_event(&j->ev[i]);
    memmove(j->ev, j->ev + drop, (j->len - drop) * sizeof *j->ev);
    j->len -= drop;
    j->dropped_since_rewrite += drop;
    if (j->dropped_since_rewrite > 1000 || j->len == 0)
        rewrite(j);
}

size_t em_journal_after(const struct em_journal *j, int64_t rev)
{
    size_t lo = 0, hi = j->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->ev[mid].rev <= rev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool em_journal_covers(const struct em_journal *j, int64_t rev)
{
    return rev >= j->oldest_rev;
}

int64_t em_journal_last_rev(const struct em_journal *j)
{
    return j->len ? j->ev[j->len - 1].rev : 0;
}

void em_journal_clear(struct em_journal *j, int64_t rev)
{
    for (size_t i = 0; i < j->len; i++)
        free_event(&j->ev[i]);
    j->len = 0;
    j->oldest_rev = rev;
    rewrite(j);
}
