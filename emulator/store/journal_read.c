/* The journal's reader at start (em_journal_read, see journal.h): each line as the store
 * writes it read in one pass (journal_scan.h), any other by jansson; a torn end cut off. */
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal_scan.h"
#include "util/xmalloc.h"

void em_journal_records_free(struct em_journal_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].plural);
        free(r[i].ns);
        free(r[i].name);
        free(r[i].rv);
        em_bytes_unref(r[i].json);
    }
    free(r);
}

static bool is_record(const json_t *j)
{
    return json_is_object(json_object_get(j, "object")) &&
           json_string_value(json_object_get(j, "plural")) &&
           json_string_value(json_object_get(j, "type")) &&
           json_integer_value(json_object_get(j, "rev")) > 0;
}

const char *em_journal_type_name(const char *t)
{
    if (strcmp(t, "ADDED") == 0)
        return "ADDED";
    if (strcmp(t, "DELETED") == 0)
        return "DELETED";
    return "MODIFIED";
}

static char *meta_dup(const json_t *obj, const char *key)
{
    const char *v = json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
    return v ? nd_xstrdup(v) : NULL;
}

/* A record's fields from its parsed line j (line: its text, len bytes). The object's
 * bytes are the line's own when the line is as em_store_record_line_bytes writes it (the
 * object last), else the object dumped again. */
static void record_of(struct em_journal_record *r, const json_t *j, const char *line, size_t len,
                      bool strict)
{
    const json_t *obj = json_object_get(j, "object");
    r->rev = json_integer_value(json_object_get(j, "rev"));
    r->time_ms = json_integer_value(json_object_get(j, "time"));
    r->type = em_journal_type_name(json_string_value(json_object_get(j, "type")));
    r->plural = nd_xstrdup(json_string_value(json_object_get(j, "plural")));
    r->ns = meta_dup(obj, "namespace");
    if (!r->ns)
        r->ns = nd_xstrdup("");
    r->name = meta_dup(obj, "name");
    r->rv = meta_dup(obj, "resourceVersion");
    char *head = nd_xasprintf("{\"rev\":%lld,\"time\":%lld,\"type\":\"%s\",\"plural\":\"%s\","
                              "\"object\":",
                              (long long)r->rev, (long long)r->time_ms,
                              json_string_value(json_object_get(j, "type")), r->plural);
    size_t hl = strlen(head);
    /* strict: parsed with no duplicate member, so five members are these five */
    if (strict && json_object_size(j) == 5 && len > hl + 2 && memcmp(line, head, hl) == 0 &&
        line[hl] == '{' && line[len - 2] == '}' && line[len - 1] == '}')
        r->json = em_bytes_new(line + hl, len - hl - 1);
    else
        r->json = em_bytes_take(json_dumps(obj, JSON_COMPACT));
    free(head);
}

/* A record's fields from the scan of its line (the same as record_of makes of it). */
static void record_of_scan(struct em_journal_record *r, const struct em_journal_scan *sc)
{
    memset(r, 0, sizeof *r);
    r->rev = sc->rev;
    r->time_ms = sc->time_ms;
    r->type = em_journal_type_name(sc->type);
    r->plural = nd_xstrdup(sc->plural);
    r->ns = sc->has_ns ? nd_xstrndup(sc->ns.p, sc->ns.len) : nd_xstrdup("");
    r->name = sc->has_name ? nd_xstrndup(sc->name.p, sc->name.len) : NULL;
    r->rv = sc->has_rv ? nd_xstrndup(sc->rv.p, sc->rv.len) : NULL;
    r->json = em_bytes_new(sc->object, sc->object_len);
}

/* What em_journal_read has read so far. */
struct jread {
    struct em_journal_record *recs;
    size_t len, cap;
    int64_t wall;       /* the last marker's wall clock */
    int64_t applied;    /* the highest applied revision a marker gave */
    size_t last_marker; /* records before this index are followed by a marker */
    size_t bad, parsed;
};

/* The next record's slot, zeroed. */
static struct em_journal_record *jread_slot(struct jread *rd)
{
    if (rd->len == rd->cap) {
        rd->cap = rd->cap ? rd->cap * 2 : 256;
        rd->recs = nd_xrealloc(rd->recs, rd->cap * sizeof *rd->recs);
    }
    struct em_journal_record *r = &rd->recs[rd->len++];
    memset(r, 0, sizeof *r);
    return r;
}

static void jread_marker(struct jread *rd, int64_t wall, int64_t applied)
{
    rd->wall = wall;
    if (applied > rd->applied)
        rd->applied = applied;
    rd->last_marker = rd->len;
}

/* One line (not blank) into rd, a record or a marker: read by the scan when it is as the
 * store writes it (journal_scan.h), else by jansson. False when it is not JSON (counted
 * bad, or the torn end's when no whole line follows). */
static bool jread_line(struct jread *rd, const char *line, size_t llen)
{
    struct em_journal_scan sc;
    int kind = em_journal_scan_line(line, llen, &sc);
    if (kind == EM_SCAN_MARKER) {
        jread_marker(rd, sc.wall, sc.applied);
        return true;
    }
    if (kind == EM_SCAN_RECORD) {
        struct em_journal_record *r = jread_slot(rd);
        record_of_scan(r, &sc);
        r->wall_us = rd->wall;
        return true;
    }
    rd->parsed++;
    json_t *j = json_loadb(line, llen, JSON_REJECT_DUPLICATES, NULL);
    bool strict = j != NULL;
    if (!j)
        j = json_loadb(line, llen, 0, NULL);
    if (!j) {
        rd->bad++;
        return false;
    }
    json_t *wv = json_object_get(j, "wall");
    if (json_is_integer(wv) && !json_object_get(j, "object")) {
        jread_marker(rd, json_integer_value(wv),
                     json_integer_value(json_object_get(j, "applied")));
    } else if (!is_record(j)) {
        rd->bad++;
    } else {
        struct em_journal_record *r = jread_slot(rd);
        record_of(r, j, line, llen, strict);
        r->wall_us = rd->wall;
    }
    json_decref(j);
    return true;
}

int em_journal_read(const char *path, struct em_journal_record **out, size_t *n, size_t *bad,
                    size_t *parsed, size_t *torn_bytes, int64_t *applied_rev, struct nd_buf *err)
{
    *out = NULL;
    *n = *bad = *parsed = *torn_bytes = 0;
    *applied_rev = 0;
    struct nd_buf data = ND_BUF_INIT;
    if (nd_buf_read_file(&data, path) < 0) {
        nd_buf_release(&data);
        if (errno == ENOENT)
            return 0;
        nd_buf_addf(err, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct jread rd = {0};
    size_t pos = 0, whole = 0, bad_after_whole = 0;
    while (pos < data.len) {
        char *nl = memchr(data.data + pos, '\n', data.len - pos);
        if (!nl)
            break; /* a torn tail: no newline */
        const char *line = data.data + pos;
        size_t llen = (size_t)(nl - line);
        pos += llen + 1;
        if (!llen) {
            if (!bad_after_whole)
                whole = pos; /* a blank line (a refused batch blanked out) is whole */
            continue;
        }
        if (jread_line(&rd, line, llen)) {
            whole = pos;
            bad_after_whole = 0;
        } else {
            bad_after_whole++;
        }
    }
    struct em_journal_record *recs = rd.recs;
    size_t len = rd.len, last_marker = rd.last_marker;
    *bad = rd.bad;
    *parsed = rd.parsed;
    *applied_rev = rd.applied;
    /* a last line that does not parse is torn too: whole records end at `whole` */
    if (whole < data.len) {
        *torn_bytes = data.len - whole;
        *bad -= bad_after_whole; /* they are the torn end, not bad lines in the middle */
        if (truncate(path, (off_t)whole) < 0) {
            nd_buf_addf(err, "cannot cut the torn end of %s: %s", path, strerror(errno));
            em_journal_records_free(recs, len);
            nd_buf_release(&data);
            return -1;
        }
    }
    /* records after the last marker, and records after the last marker's applied
     * revision, may lack their file write */
    for (size_t i = 0; i < len; i++) {
        recs[i].tail = recs[i].wall_us > 0 && (i >= last_marker || recs[i].rev > *applied_rev);
    }
    nd_buf_release(&data);
    *out = recs;
    *n = len;
    return 0;
}
