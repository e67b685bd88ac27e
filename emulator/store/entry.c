/* A stored object's bytes, record and hot tree; see entry.h. */
#include "entry.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* A list of entries with trees, the oldest first. */
struct tree_list {
    struct em_entry *first, *last;
    size_t n;
    size_t bound; /* of n (the hot list's, at a safe point), of bytes (the kept) */
    size_t bytes; /* the entries' compact JSON */
};

static struct {
    struct tree_list lru; /* least recently asked first */
    size_t peak; /* the most held at once */
    uint64_t built;
} hot = {.lru = {.bound = EM_ENTRY_HOT}};

/* The trees kept for the simulation (em_entry_keep), in the order they were kept. */
static struct tree_list kept = {.bound = EM_ENTRY_KEPT_BYTES};
static int keep_off = -1; /* NODUS_EMULATOR_TEST_NO_KEPT_TREES (-1: not read yet) */

/* ---- the record ---- */

const char *const em_rec_meta[] = {
    "name",           "namespace",         "uid",        "resourceVersion",   "labels",
    "ownerReferences", "deletionTimestamp", "finalizers", "creationTimestamp", NULL};

const char *const em_rec_ended[] = {
    "metadata.generation",   "status.observedGeneration", "status.startTime",
    "status.completionTime", "status.billing.settled",    "status.simulation.phaseTime",
    NULL};

/* Sets rec's value at the dotted path (its parents made as objects) to obj's there, when
 * obj has one. */
static void copy_path(json_t *rec, const json_t *obj, const char *path)
{
    char seg[128];
    const json_t *from = obj;
    json_t *to = rec;
    for (const char *p = path; from && *p;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 0 || n >= sizeof seg || !json_is_object(from))
            return;
        memcpy(seg, p, n);
        seg[n] = '\0';
        from = json_object_get(from, seg);
        if (!from)
            return;
        if (!dot) {
            json_object_set(to, seg, (json_t *)from);
            return;
        }
        json_t *next = json_object_get(to, seg);
        if (!json_is_object(next)) {
            next = json_object();
            json_object_set_new(to, seg, next);
        }
        to = next;
        p = dot + 1;
    }
}

json_t *em_rec_of(const struct nd_kind *k, const json_t *obj)
{
    json_t *rec = json_object();
    const json_t *meta = json_object_get(obj, "metadata");
    json_t *m = json_object();
    for (int i = 0; em_rec_meta[i]; i++) {
        json_t *v = json_object_get(meta, em_rec_meta[i]);
        if (v)
            json_object_set(m, em_rec_meta[i], v);
    }
    json_object_set_new(rec, "metadata", m);
    const json_t *status = json_object_get(obj, "status");
    const json_t *phase = json_object_get(status, "phase");
    json_t *conds = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(status, "conditions"), i, c) {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && (!strcmp(t, "Complete") || !strcmp(t, "Failed"))) {
            if (!conds)
                conds = json_array();
            json_array_append(conds, c);
        }
    }
    if (phase || conds) {
        json_t *s = json_object();
        if (phase)
            json_object_set(s, "phase", (json_t *)phase);
        if (conds)
            json_object_set_new(s, "conditions", conds);
        json_object_set_new(rec, "status", s);
    }
    /* what a controller reads to find an ended run-to-completion object has nothing left
     * to do (the simulation's idle, sim/sim.h), so that a large state's ended Jobs are
     * looked at (a start after a crash, a price book's edit) without their trees */
    if (k && phase && nd_phase_terminal(k->family, json_string_value(phase))) {
        for (int j = 0; em_rec_ended[j]; j++)
            copy_path(rec, obj, em_rec_ended[j]);
    }
    if (k && nd_kind_is(k, ND_KIND_BILLED)) /* what the spend counts (core/spend.c) */
        copy_path(rec, obj, "status.costUSD");
    for (const char *const *f = k ? k->field_selectors : NULL; f && *f; f++) {
        const char *eq = strchr(*f, '=');
        const char *path = eq ? eq + 1 : *f;
        if (strncmp(path, "metadata.", 9) != 0 && strcmp(path, "status.phase") != 0)
            copy_path(rec, obj, path);
    }
    return rec;
}

/* ---- a record's text ---- */

/* The fast reader of em_rec_parse: the JSON jansson's compact dump makes of a record,
 * restricted to printable ASCII strings without escapes and integers of at most 18
 * digits; false at anything else (the caller then asks jansson). */
struct rp {
    const char *p, *end;
    int depth;
};

static json_t *rp_value(struct rp *r);

static bool rp_str(struct rp *r, const char **s, size_t *n)
{
    if (r->p >= r->end || *r->p != '"')
        return false;
    const char *start = ++r->p;
    for (; r->p < r->end; r->p++) {
        unsigned char c = (unsigned char)*r->p;
        if (c == '"') {
            *s = start;
            *n = (size_t)(r->p++ - start);
            return true;
        }
        if (c < 0x20 || c > 0x7e || c == '\\')
            return false;
    }
    return false;
}

static bool rp_lit(struct rp *r, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0)
        return false;
    r->p += n;
    return true;
}

static json_t *rp_int(struct rp *r)
{
    bool neg = r->p < r->end && *r->p == '-';
    const char *d = r->p + neg, *e = d;
    json_int_t v = 0;
    while (e < r->end && *e >= '0' && *e <= '9' && e - d < 18)
        v = v * 10 + (*e++ - '0');
    if (e == d || (*d == '0' && e - d > 1) ||
        (e < r->end && (*e == '.' || *e == 'e' || *e == 'E' || (*e >= '0' && *e <= '9'))))
        return NULL;
    r->p = e;
    return json_integer(neg ? -v : v);
}

static json_t *rp_object(struct rp *r)
{
    json_t *o = json_object();
    r->p++;
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return o;
    }
    for (;;) {
        const char *k;
        size_t kn;
        if (!rp_str(r, &k, &kn) || r->p >= r->end || *r->p++ != ':' ||
            json_object_getn(o, k, kn))
            break;
        json_t *v = rp_value(r);
        if (!v || json_object_setn_new_nocheck(o, k, kn, v) != 0 || r->p >= r->end)
            break;
        char c = *r->p++;
        if (c == '}')
            return o;
        if (c != ',')
            break;
    }
    json_decref(o);
    return NULL;
}

static json_t *rp_array(struct rp *r)
{
    json_t *a = json_array();
    r->p++;
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        return a;
    }
    for (;;) {
        json_t *v = rp_value(r);
        if (!v || json_array_append_new(a, v) != 0 || r->p >= r->end)
            break;
        char c = *r->p++;
        if (c == ']')
            return a;
        if (c != ',')
            break;
    }
    json_decref(a);
    return NULL;
}

static json_t *rp_value(struct rp *r)
{
    if (r->p >= r->end || ++r->depth > 64)
        return NULL;
    json_t *v = NULL;
    const char *s;
    size_t n;
    switch (*r->p) {
    case '{':
        v = rp_object(r);
        break;
    case '[':
        v = rp_array(r);
        break;
    case '"':
        v = rp_str(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
        break;
    case 't':
        v = rp_lit(r, "true") ? json_true() : NULL;
        break;
    case 'f':
        v = rp_lit(r, "false") ? json_false() : NULL;
        break;
    case 'n':
        v = rp_lit(r, "null") ? json_null() : NULL;
        break;
    default:
        v = rp_int(r);
    }
    r->depth--;
    return v;
}

json_t *em_rec_parse(const char *text, size_t len)
{
    struct rp r = {text, text + len, 0};
    json_t *v = rp_value(&r);
    if (v && r.p == r.end)
        return v;
    json_decref(v);
    return json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
}

/* ---- the hot list ---- */

static void list_unlink(struct tree_list *l, struct em_entry *e)
{
    if (e->hot_prev)
        e->hot_prev->hot_next = e->hot_next;
    else
        l->first = e->hot_next;
    if (e->hot_next)
        e->hot_next->hot_prev = e->hot_prev;
    else
        l->last = e->hot_prev;
    e->hot_prev = e->hot_next = NULL;
    l->n--;
    l->bytes -= e->json ? e->json->len : 0;
}

static void list_append(struct tree_list *l, struct em_entry *e)
{
    e->hot_prev = l->last;
    e->hot_next = NULL;
    if (l->last)
        l->last->hot_next = e;
    else
        l->first = e;
    l->last = e;
    l->n++;
    l->bytes += e->json ? e->json->len : 0;
}

static void hot_unlink(struct em_entry *e)
{
    if (!e->tree)
        return;
    list_unlink(e->kept ? &kept : &hot.lru, e);
    e->kept = false;
}

static void hot_append(struct em_entry *e)
{
    list_append(&hot.lru, e);
    if (hot.lru.n > hot.peak)
        hot.peak = hot.lru.n;
}

struct em_entry *em_entry_new(struct em_bytes *json, json_t *rec, json_t *tree)
{
    struct em_entry *e = nd_xcalloc(1, sizeof *e);
    e->json = json;
    e->rec = rec;
    if (tree) {
        e->tree = json_incref(tree);
        hot_append(e);
    }
    return e;
}

void em_entry_free(struct em_entry *e)
{
    if (!e)
        return;
    hot_unlink(e);
    json_decref(e->tree);
    json_decref(e->rec);
    em_bytes_unref(e->json);
    free(e);
}

/* The trees of entries a write replaced or removed (em_entry_retire), held until the next
 * safe point. */
static struct {
    json_t **v;
    size_t n, cap;
} retired;

void em_entry_retire(struct em_entry *e)
{
    if (!e)
        return;
    if (e->tree) {
        if (retired.n == retired.cap) {
            retired.cap = retired.cap ? retired.cap * 2 : 64;
            retired.v = nd_xrealloc(retired.v, retired.cap * sizeof *retired.v);
        }
        hot_unlink(e);
        retired.v[retired.n++] = e->tree; /* the entry's reference moves in */
        e->tree = NULL;
    }
    em_entry_free(e);
}

json_t *em_entry_obj(const struct em_entry *ce)
{
    struct em_entry *e = (struct em_entry *)ce; /* the cache changes, the object does not */
    if (e->tree) {
        if (e->kept)
            return e->tree; /* stays kept: the simulation says when it goes */
        if (e != hot.lru.last) { /* asked again: the most recent */
            hot_unlink(e);
            hot_append(e);
        }
        return e->tree;
    }
    if (!e->json)
        return NULL;
    json_t *t = json_loadb(e->json->data, e->json->len, 0, NULL);
    if (!t)
        return NULL;
    hot.built++;
    e->tree = t;
    hot_append(e);
    return t;
}

struct em_bytes *em_entry_bytes_of(const struct em_entry *e, const json_t *tree)
{
    return e && tree && e->tree == tree ? e->json : NULL;
}

const json_t *em_entry_rec(const struct em_entry *e)
{
    return e->rec;
}

void em_entry_trim(void)
{
    for (size_t i = 0; i < retired.n; i++)
        json_decref(retired.v[i]);
    retired.n = 0;
    while ((hot.lru.n > hot.lru.bound || hot.lru.bytes > EM_ENTRY_HOT_BYTES) && hot.lru.first) {
        struct em_entry *e = hot.lru.first;
        hot_unlink(e);
        json_decref(e->tree);
        e->tree = NULL;
    }
}

bool em_entry_keep(const struct em_entry *ce, bool keep)
{
    struct em_entry *e = (struct em_entry *)ce; /* the cache changes, the object does not */
    if (keep_off < 0) {
        const char *off = getenv("NODUS_EMULATOR_TEST_NO_KEPT_TREES");
        keep_off = off && *off && strcmp(off, "0") != 0;
    }
    if (!e->tree || e->kept == keep)
        return e->kept;
    if (keep && (keep_off || kept.bytes + (e->json ? e->json->len : 0) > kept.bound))
        return false; /* full: the ones kept first stay, each found again next time */
    hot_unlink(e);
    if (keep) {
        list_append(&kept, e);
        e->kept = true;
    } else {
        hot_append(e); /* an ordinary hot tree again, the most recent */
    }
    return e->kept;
}

void em_entry_set_bound(size_t bound)
{
    hot.lru.bound = bound;
}

void em_entry_stats(struct em_entry_stats *out)
{
    out->built = hot.built;
    out->hot = hot.lru.n;
    out->bound = hot.lru.bound;
    out->peak = hot.peak;
    out->kept = kept.n;
    out->kept_bytes = kept.bytes;
}
