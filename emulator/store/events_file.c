/* Events in one NDJSON file per project and hour; see events_file.h. */
#define _GNU_SOURCE /* scandir, alphasort */
#include "events_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "objscan.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define HOUR_LEN 13 /* YYYY-MM-DDTHH */
#define UNDATED "undated"
/* a file is rewritten alone when more than half of its lines, and at least this many, are
 * superseded */
#define TIDY_MIN_DEAD 8

bool em_events_kind(const struct nd_kind *k)
{
    return k && nd_kind_is(k, ND_KIND_HOUR_FILES);
}

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

/* The hour of obj's creationTimestamp into out (HOUR_LEN + 1 bytes at least). */
static void hour_of(const json_t *obj, char *out)
{
    const char *t = meta_str(obj, "creationTimestamp");
    static const char shape[] = "dddd-dd-ddTdd";
    bool ok = t && strlen(t) >= HOUR_LEN;
    for (int i = 0; ok && i < HOUR_LEN; i++)
        ok = shape[i] == 'd' ? t[i] >= '0' && t[i] <= '9' : t[i] == shape[i];
    if (ok) {
        memcpy(out, t, HOUR_LEN);
        out[HOUR_LEN] = '\0';
    } else {
        memcpy(out, UNDATED, sizeof UNDATED);
    }
}

char *em_events_path(const char *dir, const char *ns, const json_t *obj)
{
    char hour[HOUR_LEN + 1];
    hour_of(obj, hour);
    return nd_xasprintf("%s/objects/%s/events/%s.ndjson", dir, ns, hour);
}

static char *live_key(const char *ns, const json_t *obj)
{
    char hour[HOUR_LEN + 1];
    hour_of(obj, hour);
    return nd_xasprintf("%s/%s", ns, hour);
}

static void bump(json_t *live, const char *ns, const json_t *obj, int by)
{
    char *key = live_key(ns, obj);
    json_int_t n = json_integer_value(json_object_get(live, key)) + by;
    if (n > 0)
        json_object_set_new(live, key, json_integer(n));
    else
        json_object_del(live, key);
    free(key);
}

void em_events_count(json_t *live, const char *ns, const json_t *was, const json_t *now)
{
    if (was)
        bump(live, ns, was, -1);
    if (now)
        bump(live, ns, now, 1);
}

void em_events_op(const char *dir, json_t *live, const char *ns, const json_t *cur,
                  const json_t *obj, const struct em_bytes *json, bool remove,
                  struct em_journal_op *op)
{
    const json_t *where = remove && cur ? cur : obj;
    op->path = em_events_path(dir, ns, where);
    op->append = true;
    if (!remove) {
        op->len = json->len + 1;
        op->data = nd_xmalloc(op->len + 1);
        memcpy(op->data, json->data, json->len);
        op->data[json->len] = '\n';
        op->data[op->len] = '\0';
        return;
    }
    char *key = live_key(ns, where);
    json_int_t n = json_integer_value(json_object_get(live, key));
    free(key);
    if (cur && n <= 1) {
        op->append = false; /* its last live Event: the file goes */
        return;
    }
    json_t *line = json_pack("{ss ss}", "deleted", meta_str(obj, "name") ? meta_str(obj, "name") : "",
                             "resourceVersion",
                             meta_str(obj, "resourceVersion") ? meta_str(obj, "resourceVersion") : "0");
    char *text = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    op->len = strlen(text) + 1;
    op->data = nd_xasprintf("%s\n", text);
    free(text);
}

int em_events_repair(const char *dir, json_t *live, const struct em_journal_record *r,
                     const json_t *cur, const json_t *obj, struct nd_buf *report)
{
    struct em_journal_op op = {0};
    em_events_op(dir, live, r->ns, cur, obj, r->json, strcmp(r->type, "DELETED") == 0, &op);
    int rc = op.data ? em_append_line(op.path, op.data, op.len) : unlink(op.path);
    if (rc == 0)
        nd_buf_addf(report, "state: %s: %s revision %lld of the journal (a write the last "
                            "stop interrupted)\n", op.path,
                    op.data ? "appended" : "removed with", (long long)r->rev);
    free(op.path);
    free(op.data);
    return rc;
}

/* ---- a start ---- */

struct ev_file {
    char *path;
    char *base;       /* the file name without .ndjson (its hour), or a legacy <name>.json */
    bool legacy;      /* one Event per file, as before */
    bool broken;      /* holds a line that does not parse */
    size_t lines, live;
    struct timespec mtime;
};

struct ev_line {
    size_t file;
    char *text;       /* the line, without its newline (NULL: json's bytes are the line) */
    size_t len;
    json_t *obj;      /* the Event (its part, when json is set), or NULL for a deletion */
    struct em_bytes *json; /* the Event's compact bytes, when the scan read its line */
    int64_t rv;
};

struct ev_name {
    size_t best;      /* the winning line */
    size_t first_file;
    bool spread;      /* lines in more than one file */
};

struct ev_load {
    const char *ns;
    const struct em_scan_plan *plan; /* NULL: every line parsed by jansson */
    struct em_events_read read;
    struct nd_buf *report; /* (the caller's read's) */
    struct ev_file *files;
    size_t nfiles;
    struct ev_line *lines;
    size_t nlines, caplines;
    json_t *names;    /* name -> index into idx */
    struct ev_name *idx;
    size_t nidx, capidx;
    bool broken;
    struct timespec newest;
    em_events_item_fn fn;
    void *ctx;
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int64_t rv_of(const char *rv)
{
    return rv ? strtoll(rv, NULL, 10) : 0;
}

static void broken_line(struct ev_load *l, size_t file, size_t lineno, const char *why)
{
    struct ev_file *f = &l->files[file];
    f->broken = l->broken = true;
    l->fn(l->ctx, nd_xasprintf("%s:%zu", f->base, lineno), NULL, NULL, nd_xstrdup(f->path),
          f->legacy ? nd_xstrdup(why) : nd_xasprintf("line %zu: %s", lineno, why));
}

/* What a line holds (j: its tree, or the part the scan made of it, which has the same
 * values there): an Event (*event) or a deletion line, its name and resourceVersion (*rv);
 * NULL: neither. */
static const char *line_name(const json_t *j, bool *event, const char **rv)
{
    const char *name = meta_str(j, "name");
    *rv = meta_str(j, "resourceVersion");
    *event = json_is_object(j) && json_string_value(json_object_get(j, "kind")) && name;
    if (!*event) {
        name = json_string_value(json_object_get(j, "deleted"));
        *rv = json_string_value(json_object_get(j, "resourceVersion"));
    }
    return name;
}

/* The line read in one pass (objscan.h): its part (NEW) and, for an Event, *json (NEW, its
 * compact bytes); NULL when the scan is not sure of it, or when jansson's path would report
 * it or change it (an Event's namespace set to the project's): then jansson reads it. */
static json_t *scan_line(struct ev_load *l, size_t file, const char *text, size_t len,
                         struct em_bytes **json)
{
    json_t *part;
    if (!l->plan || l->files[file].legacy || !em_scan_object(l->plan, text, len, json, &part))
        return NULL;
    bool event;
    const char *rv, *name = line_name(part, &event, &rv);
    const char *mns = meta_str(part, "namespace");
    if (name && *name && (!event || (mns && strcmp(mns, l->ns) == 0))) {
        if (!event) {
            em_bytes_unref(*json);
            *json = NULL;
        }
        return part;
    }
    em_bytes_unref(*json);
    *json = NULL;
    json_decref(part);
    return NULL;
}

/* The line parsed by jansson, as before the scan: its tree, or NULL (reported). */
static json_t *parse_line(struct ev_load *l, size_t file, size_t lineno, const char *text,
                          size_t len)
{
    json_error_t jerr;
    l->read.parsed++;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        char why[200];
        snprintf(why, sizeof why, "column %d: %s", jerr.column, jerr.text);
        broken_line(l, file, lineno, why);
    }
    return j;
}

/* Notes that line ln of file holds name: kept when its name's newest. */
static void add_line(struct ev_load *l, size_t file, const char *name)
{
    const struct ev_line *ln = &l->lines[l->nlines];
    l->files[file].lines++;
    json_t *at = json_object_get(l->names, name);
    if (!at) {
        if (l->nidx == l->capidx) {
            l->capidx = l->capidx ? l->capidx * 2 : 256;
            l->idx = nd_xrealloc(l->idx, l->capidx * sizeof *l->idx);
        }
        l->idx[l->nidx] = (struct ev_name){.best = l->nlines, .first_file = file};
        json_object_set_new(l->names, name, json_integer((json_int_t)l->nidx++));
    } else {
        struct ev_name *n = &l->idx[json_integer_value(at)];
        n->spread |= n->first_file != file;
        if (ln->rv >= l->lines[n->best].rv)
            n->best = l->nlines; /* the newest line wins; on a tie, the later */
    }
    l->nlines++;
}

/* One line (text, len) of file: an Event or a deletion, kept when its name's newest. */
static void take_line(struct ev_load *l, size_t file, size_t lineno, const char *text, size_t len)
{
    struct em_bytes *json = NULL;
    l->read.lines++;
    json_t *j = scan_line(l, file, text, len, &json);
    if (!j && !(j = parse_line(l, file, lineno, text, len)))
        return;
    bool event;
    const char *rv, *name = line_name(j, &event, &rv);
    if (!name || !*name) {
        broken_line(l, file, lineno, "neither an Event (kind, metadata.name) nor a deletion "
                                     "({\"deleted\": name, \"resourceVersion\": rv})");
        json_decref(j);
        return;
    }
    if (l->files[file].legacy &&
        (!event || strncmp(l->files[file].base, name, strlen(name)) != 0 ||
         strcmp(l->files[file].base + strlen(name), ".json") != 0)) {
        broken_line(l, file, lineno, "metadata.name does not match the file name");
        json_decref(j);
        return;
    }
    if (l->nlines == l->caplines) {
        l->caplines = l->caplines ? l->caplines * 2 : 256;
        l->lines = nd_xrealloc(l->lines, l->caplines * sizeof *l->lines);
    }
    struct ev_line *ln = &l->lines[l->nlines];
    *ln = (struct ev_line){.file = file, .rv = rv_of(rv), .json = json, .len = len};
    if (json) {
        /* the scan's bytes: the line itself unless it had blanks */
        ln->obj = j;
        ln->text = json->len == len ? NULL : nd_xstrndup(text, len);
    } else if (event) {
        /* a hand-written line may omit the namespace: the directory says it */
        json_object_set_new(json_object_get(j, "metadata"), "namespace", json_string(l->ns));
        ln->obj = j;
        ln->text = l->files[file].legacy ? json_dumps(j, JSON_COMPACT) : nd_xstrndup(text, len);
        ln->len = strlen(ln->text);
    } else {
        ln->text = nd_xstrndup(text, len);
    }
    add_line(l, file, name);
    if (!event)
        json_decref(j); /* (name was its) */
}

/* Cuts the torn last line (text, len) at pos off f, its bytes kept aside first and the
 * cut said on the report: 0, or -1 when the file is left as it is. */
static int cut_torn(struct ev_load *l, const struct ev_file *f, size_t pos, const char *text,
                    size_t len)
{
    char *aside = em_write_aside(f->path, text, len);
    if (!aside)
        return -1;
    if (truncate(f->path, (off_t)pos) < 0) {
        unlink(aside);
        free(aside);
        return -1;
    }
    if (l->report)
        nd_buf_addf(l->report, "state: %s: cut %zu bytes of a torn last line (a write the last "
                               "stop interrupted); they are kept as %s\n",
                    f->path, len, aside);
    free(aside);
    return 0;
}

/* Reads one file's lines; a torn last line (no newline) is cut off, or ended when it parses. */
static void read_file(struct ev_load *l, size_t file)
{
    struct ev_file *f = &l->files[file];
    struct nd_buf data = ND_BUF_INIT;
    if (nd_buf_read_file(&data, f->path) < 0) {
        broken_line(l, file, 0, strerror(errno));
        nd_buf_release(&data);
        return;
    }
    if (f->legacy) {
        take_line(l, file, 1, data.data ? data.data : "", data.len);
        nd_buf_release(&data);
        return;
    }
    size_t pos = 0, lineno = 0;
    while (pos < data.len) {
        char *nl = memchr(data.data + pos, '\n', data.len - pos);
        size_t len = nl ? (size_t)(nl - (data.data + pos)) : data.len - pos;
        lineno++;
        if (!nl) {
            json_t *j = json_loadb(data.data + pos, len, 0, NULL);
            bool whole = j != NULL;
            json_decref(j);
            if (whole) {
                int fd = open(f->path, O_WRONLY | O_APPEND | O_CLOEXEC);
                if (fd >= 0) {
                    (void)!write(fd, "\n", 1);
                    close(fd);
                }
            } else if (cut_torn(l, f, pos, data.data + pos, len) == 0) {
                break; /* (else left as it is: the line is reported below) */
            }
        }
        if (len && strspn(data.data + pos, " \t\r") < len)
            take_line(l, file, lineno, data.data + pos, len);
        pos += len + 1;
    }
    nd_buf_release(&data);
}

static int skip_dots(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* The files of pdir, in name order (temporary files of interrupted writes removed). */
static void list_files(struct ev_load *l, const char *pdir)
{
    struct dirent **ents = NULL;
    int n = scandir(pdir, &ents, skip_dots, alphasort);
    if (n <= 0) {
        free(ents);
        return;
    }
    l->files = nd_xcalloc((size_t)n, sizeof *l->files);
    for (int i = 0; i < n; i++) {
        const char *d = ents[i]->d_name;
        char *path = nd_xasprintf("%s/%s", pdir, d);
        bool nd = ends_with(d, ".ndjson"), legacy = ends_with(d, ".json");
        struct stat sb;
        if (strstr(d, ".json.tmp-") || strstr(d, ".ndjson.tmp-"))
            unlink(path);
        if ((!nd && !legacy) || stat(path, &sb) < 0 || !S_ISREG(sb.st_mode)) {
            free(path);
            free(ents[i]);
            continue;
        }
        struct ev_file *f = &l->files[l->nfiles++];
        f->path = path;
        f->legacy = legacy;
        f->base = legacy ? nd_xstrdup(d) : nd_xstrndup(d, strlen(d) - strlen(".ndjson"));
        f->mtime = sb.st_mtim;
        if (sb.st_mtim.tv_sec > l->newest.tv_sec ||
            (sb.st_mtim.tv_sec == l->newest.tv_sec && sb.st_mtim.tv_nsec > l->newest.tv_nsec))
            l->newest = sb.st_mtim;
        free(ents[i]);
    }
    free(ents);
}

/* Writes the live Events whose winning line is in one of the chosen hours (hour NULL: of
 * every file) to path, keeping the newest mtime of the files read. 0 or -1. */
static int write_hour(struct ev_load *l, const char *path, const char *hour, size_t only_file)
{
    struct nd_buf out = ND_BUF_INIT;
    for (size_t i = 0; i < l->nidx; i++) {
        const struct ev_line *ln = &l->lines[l->idx[i].best];
        char h[HOUR_LEN + 1];
        if (!ln->obj)
            continue;
        hour_of(ln->obj, h);
        if (hour ? strcmp(h, hour) != 0 : ln->file != only_file)
            continue;
        nd_buf_add(&out, ln->text ? ln->text : ln->json->data, ln->len);
        nd_buf_addch(&out, '\n');
    }
    int rc = em_write_atomic(path, out.data ? out.data : "", out.len, true);
    nd_buf_release(&out);
    struct timespec ts[2] = {l->newest, l->newest};
    if (rc == 0)
        utimensat(AT_FDCWD, path, ts, 0);
    return rc;
}

/* One line per live Event, each in its hour's file; then the files that are not such a
 * file go. */
static void tidy_all(struct ev_load *l, const char *pdir)
{
    json_t *hours = json_object();
    for (size_t i = 0; i < l->nidx; i++) {
        const struct ev_line *ln = &l->lines[l->idx[i].best];
        char h[HOUR_LEN + 1];
        if (ln->obj) {
            hour_of(ln->obj, h);
            json_object_set_new(hours, h, json_true());
        }
    }
    const char *h;
    json_t *v;
    bool ok = true;
    json_object_foreach(hours, h, v) {
        char *path = nd_xasprintf("%s/%s.ndjson", pdir, h);
        ok = ok && write_hour(l, path, h, 0) == 0;
        free(path);
    }
    if (!ok) {
        json_decref(hours);
        return; /* what could not be written leaves the old files standing */
    }
    for (size_t i = 0; i < l->nfiles; i++) {
        const struct ev_file *f = &l->files[i];
        if (f->legacy || !json_object_get(hours, f->base))
            unlink(f->path);
    }
    json_decref(hours);
}

/* Tidies what needs it (events_file.h): every file when an Event is spread over files,
 * outside its hour or in a legacy file; else each file without a live Event goes, and each
 * mostly superseded one is rewritten alone. Nothing when a line does not parse. */
static void tidy(struct ev_load *l, const char *pdir)
{
    if (l->broken)
        return;
    bool all = false;
    for (size_t i = 0; i < l->nidx && !all; i++) {
        const struct ev_line *ln = &l->lines[l->idx[i].best];
        const struct ev_file *f = &l->files[ln->file];
        char h[HOUR_LEN + 1];
        if (ln->obj)
            hour_of(ln->obj, h);
        all = l->idx[i].spread || f->legacy || (ln->obj && strcmp(h, f->base) != 0);
        if (ln->obj)
            l->files[ln->file].live++;
    }
    if (all) {
        tidy_all(l, pdir);
        return;
    }
    for (size_t i = 0; i < l->nfiles; i++) {
        struct ev_file *f = &l->files[i];
        if (!f->live)
            unlink(f->path);
        else if (f->lines - f->live > f->live && f->lines - f->live >= TIDY_MIN_DEAD)
            write_hour(l, f->path, NULL, i);
    }
}

struct em_scan_plan *em_events_scan_plan(void)
{
    struct em_scan_plan *p = em_scan_plan_new(nd_kind_by_plural(NULL, "events"));
    em_scan_plan_add(p, "deleted");
    em_scan_plan_add(p, "resourceVersion");
    return p;
}

void em_events_load_dir(const char *pdir, const char *ns, const struct em_scan_plan *plan,
                        em_events_item_fn fn, void *ctx, struct em_events_read *read)
{
    struct ev_load l = {.ns = ns, .plan = plan, .names = json_object(), .fn = fn, .ctx = ctx,
                        .report = read ? read->report : NULL};
    list_files(&l, pdir);
    for (size_t i = 0; i < l.nfiles; i++)
        read_file(&l, i);
    tidy(&l, pdir);
    const char *name;
    json_t *v;
    json_object_foreach(l.names, name, v) {
        struct ev_line *ln = &l.lines[l.idx[json_integer_value(v)].best];
        if (ln->obj) {
            fn(ctx, nd_xstrdup(name), json_incref(ln->obj), ln->json, NULL, NULL);
            ln->json = NULL; /* (fn's) */
        }
    }
    for (size_t i = 0; i < l.nlines; i++) {
        free(l.lines[i].text);
        json_decref(l.lines[i].obj);
        em_bytes_unref(l.lines[i].json);
    }
    for (size_t i = 0; i < l.nfiles; i++) {
        free(l.files[i].path);
        free(l.files[i].base);
    }
    free(l.lines);
    free(l.files);
    free(l.idx);
    json_decref(l.names);
    if (read) {
        read->lines += l.read.lines;
        read->parsed += l.read.parsed;
    }
}
