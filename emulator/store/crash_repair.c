/* The start's repair of what a power loss leaves of the object files; see crash_repair.h. */
#include "crash_repair.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events_file.h"
#include "fsutil.h"
#include "util/xmalloc.h"

/* A brought-up file goes in through the journal's spares, as the file writer's do: a
 * temporary file's new inode each cost ext4 a scan of the inodes freed in the last
 * minute, a third of a start's CPU at a tail of hundreds of files (bench/limits.md, the
 * files' flush row by row). Under always and batch each spare is written once between two
 * flushes of the files, as in the writer (next_spare); the open flushes them before a
 * marker counts them, and the journal goes on after the last one used. */
int em_store_bring_up_write(struct em_store *s, const char *path, const char *text, size_t len)
{
    bool never = s->fsync_mode == EM_FSYNC_NEVER;
    const char *no = getenv("NODUS_EMULATOR_TEST_RENAME_FILES"); /* (as the writer) */
    if (no && *no && strcmp(no, "0") != 0)
        s->open_no_exchange = true;
    if (!never && s->open_spares == EM_JOURNAL_SPARES) {
        if (em_syncfs_dir(s->dir) < 0)
            return em_write_atomic(path, text, len, false);
        s->open_spares = 0;
    }
    if (s->open_no_exchange)
        return em_write_atomic(path, text, len, false);
    char *log = em_store_path(s, "history/journal.ndjson");
    char *spare = em_journal_spare_path(log, never ? 0 : s->open_spares);
    int rc = em_spare_write(spare, path, text, len, &s->open_no_exchange);
    if (!never)
        s->open_spares++;
    free(spare);
    free(log);
    return rc;
}

static bool same_object(const struct em_journal_record *a, const struct em_journal_record *b)
{
    return strcmp(a->plural, b->plural) == 0 && strcmp(a->ns, b->ns) == 0 &&
           strcmp(a->name, b->name) == 0;
}

const struct em_journal_record *em_store_journal_wrote(const struct em_store *s,
                                                       const json_t *obj,
                                                       const struct em_journal_record *of)
{
    int64_t rv = em_store_obj_rv(obj);
    for (size_t i = 0; i < s->nhistory; i++) {
        const struct em_journal_record *o = &s->history[i];
        if (o->rev != rv || !o->name || (of && !same_object(o, of)))
            continue;
        json_t *j = json_loadb(o->json->data, o->json->len, 0, NULL);
        bool same = j && json_equal(j, obj);
        json_decref(j);
        if (same)
            return o;
    }
    return NULL;
}

/* Why r's object should be brought up from the journal (NEW), or NULL when its file
 * may be a hand edit: cur is what was loaded (NULL when the file is broken, at path). */
static char *leftover(const struct em_store *s, const struct em_journal_record *r,
                      const struct em_entry *cur, const char *path)
{
    json_t *obj = NULL;
    if (cur) {
        obj = json_incref(em_entry_obj(cur));
    } else {
        struct stat sb;
        if (stat(path, &sb) != 0)
            return NULL;
        if (S_ISREG(sb.st_mode) && sb.st_size == 0)
            return nd_xstrdup("its file was empty, as a power loss leaves a write cut off");
        obj = json_load_file(path, 0, NULL);
    }
    const struct em_journal_record *w = obj ? em_store_journal_wrote(s, obj, NULL) : NULL;
    char *why = NULL;
    if (w && same_object(w, r))
        why = nd_xasprintf("its file held revision %lld, which the journal wrote before: a "
                           "write a power loss cut off",
                           (long long)w->rev);
    else if (w)
        why = nd_xasprintf("its file held revision %lld of %s %s%s%s, which the journal "
                           "wrote: a write a power loss cut off",
                           (long long)w->rev, w->plural, w->ns, *w->ns ? "/" : "", w->name);
    json_decref(obj);
    return why;
}

int em_store_torn(struct em_store *s, const struct nd_kind *k,
                  const struct em_journal_record *r, const char *path, struct nd_buf *report)
{
    /* nothing of it to keep when it is empty or a text the journal wrote */
    char *why = leftover(s, r, NULL, path), *aside = NULL;
    if (!why && !(aside = em_move_aside(path))) {
        nd_buf_addf(report, "state: %s: cannot move it aside to write revision %lld of the "
                            "journal over it: %s\n",
                    path, (long long)r->rev, strerror(errno));
        return -1;
    }
    if (aside)
        why = nd_xasprintf("a write the last stop interrupted left it broken; the broken "
                           "file is kept as %s",
                           aside);
    int rc = 0;
    if (strcmp(r->type, "DELETED") != 0) {
        rc = em_store_bring_up(s, k, r, why, report);
        if (rc < 0 && aside && rename(aside, path) < 0)
            nd_buf_addf(report, "state: %s: cannot write revision %lld of the journal, nor put "
                                "the broken file back from %s\n",
                        path, (long long)r->rev, aside);
    } else if (aside || unlink(path) == 0) {
        nd_buf_addf(report, "state: %s: removed, as revision %lld of the journal says (%s)\n",
                    path, (long long)r->rev, why);
        s->repaired++;
    } else {
        rc = -1;
    }
    if (rc == 0) {
        char *key = nd_xasprintf("%s/%s/%s", r->plural, r->ns, r->name);
        json_object_del(s->broken, key);
        free(key);
    }
    free(why);
    free(aside);
    return rc;
}

/* Whether r, the newest record of its object, is newer than what was loaded of it (or
 * the object's file is broken): the only records that cost more than a lookup. */
static bool behind(struct em_store *s, const struct nd_kind *k,
                   const struct em_journal_record *r)
{
    const struct em_entry *cur = em_store_entry(s, k, r->ns, r->name);
    if (cur)
        return em_store_obj_rv(cur->rec) < r->rev;
    return json_object_size(s->broken) > 0; /* else deleted, by the journal or by hand */
}

void em_crash_repair(struct em_store *s, struct nd_buf *report)
{
    json_t *seen = json_object(); /* the candidates met, newest record first */
    for (size_t i = s->nhistory; i-- > 0;) {
        const struct em_journal_record *r = &s->history[i];
        const struct nd_kind *k = r->name ? nd_kind_by_plural(NULL, r->plural) : NULL;
        if (!k || em_events_kind(k) || !behind(s, k, r))
            continue;
        char *key = nd_xasprintf("%s/%s/%s", r->plural, r->ns, r->name);
        bool first = !json_object_get(seen, key);
        json_object_set_new(seen, key, json_true());
        const struct em_entry *cur = em_store_entry(s, k, r->ns, r->name);
        const char *path = json_string_value(json_object_get(s->broken, key));
        /* an older record of an object met already, or a deletion's, or a missing file */
        char *why = first && strcmp(r->type, "DELETED") != 0 && (cur || path)
                        ? leftover(s, r, cur, path)
                        : NULL;
        if (why && em_store_bring_up(s, k, r, why, report) == 0)
            json_object_del(s->broken, key);
        free(why);
        free(key);
    }
    json_decref(seen);
}
