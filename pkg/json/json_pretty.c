/* json_pretty.c: JSON text reformatted as nd_json_dump writes it, from the bytes: no tree.
 *
 * An object's members are found first (each value skipped over by its extent), sorted by
 * key, then each value is written in turn; so a byte is read once per level it is nested
 * in, and nothing is allocated but for an object of more than LOCAL members, a number
 * that is not a plain integer, or a string with an escape (those two read by jansson
 * alone, so they come out exactly as the tree would write them). Everything the text
 * holds is checked as jansson checks it (strings UTF-8 without control bytes, numbers'
 * grammar, duplicate keys, depth); what is refused is left to the caller's fallback. */
#include "json/json.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

#define LOCAL 24

struct rf {
    const char *p, *end;
    struct nd_buf *out;
    int flags;
    int max_depth;
    bool each;          /* the drop path applies to the elements of the top array */
    struct nd_buf tmp;  /* an object's members while they are put in order */
};

static void ws(struct rf *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static void newline(struct nd_buf *b, int flags, int level)
{
    static const char spaces[] = "\n                                                                "
                                 "                                ";
    if (!(flags & ND_JSON_PRETTY))
        return;
    size_t n = 1 + 4 * (size_t)level;
    if (n < sizeof spaces) {
        nd_buf_add(b, spaces, n);
        return;
    }
    nd_buf_addch(b, '\n');
    for (int i = 0; i < level; i++)
        nd_buf_adds(b, "    ");
}

/* The length of the well-formed UTF-8 sequence at s (before e), or 0 (what jansson's
 * utf8_check_full refuses: overlong forms, surrogates, past U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, const unsigned char *e)
{
    unsigned c = s[0], v, min;
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)(e - s) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

/* The string at r->p (its opening quote): *s and *n its bytes between the quotes, *esc
 * whether one is a backslash (the escapes are jansson's to check). -1 when unterminated,
 * or a byte is a control byte or not UTF-8. */
static int scan_string(struct rf *r, const char **s, size_t *n, bool *esc)
{
    /* the bytes a string holds as they are: printable ASCII but '"' and '\\' (most of
     * them, skipped by the table alone) */
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
    static const bool plain[256] = {
        R16(0), R16(0),
        1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 '"' */
        R16(1), R16(1),
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5c '\\' */
        R16(1), R16(1), /* to 0x7f; the rest (UTF-8) is checked below */
    };
#undef R16
    const unsigned char *p = (const unsigned char *)r->p + 1, *e = (const unsigned char *)r->end;
    const unsigned char *start = p;
    *esc = false;
    while (p < e) {
        if (plain[*p]) {
            p++;
            continue;
        }
        unsigned c = *p;
        if (c == '"') {
            *s = (const char *)start;
            *n = (size_t)(p - start);
            r->p = (const char *)p + 1;
            return 0;
        }
        if (c < 0x20)
            return -1;
        if (c == '\\') {
            *esc = true;
            p += 2;
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t k = utf8_seq(p, e);
        if (!k)
            return -1;
        p += k;
    }
    return -1;
}

/* Past the string whose opening quote is at p; NULL when it does not end before e. */
static const char *skip_string(const char *p, const char *e)
{
    for (p++; p < e;) {
        const char *q = memchr(p, '"', (size_t)(e - p));
        if (!q)
            return NULL;
        const char *b = q; /* the quote is escaped by an odd run of backslashes */
        while (b > p && b[-1] == '\\')
            b--;
        if (((q - b) & 1) == 0)
            return q + 1;
        p = q + 1;
    }
    return NULL;
}

/* Moves r->p past one value by its extent alone (what it holds is checked when it is
 * written); containers in it count from depth. */
static int skip_value(struct rf *r, int depth)
{
    const char *p = r->p, *e = r->end;
    if (p >= e)
        return -1;
    if (*p == '"') {
        if (!(p = skip_string(p, e)))
            return -1;
        r->p = p;
        return 0;
    }
    if (*p == '{' || *p == '[') {
        int d = 0;
        while (p < e) {
            char c = *p;
            if (c == '"') {
                if (!(p = skip_string(p, e)))
                    return -1;
                continue;
            }
            if (c == '{' || c == '[') {
                if (++d + depth > r->max_depth)
                    return -1;
            } else if ((c == '}' || c == ']') && --d == 0) {
                r->p = p + 1;
                return 0;
            }
            p++;
        }
        return -1;
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
           *p != '\n' && *p != '\r')
        p++;
    if (p == r->p)
        return -1;
    r->p = p;
    return 0;
}

/* After an item of an object or an array: 1 when a comma says another follows, 0 when
 * close ends the container (both consumed), -1 for anything else. */
static int next_item(struct rf *r, char close)
{
    ws(r);
    if (r->p < r->end && *r->p == ',') {
        r->p++;
        ws(r);
        return 1;
    }
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return 0;
    }
    return -1;
}

/* The members of the object at r->p (its '{'), in *m (local, or NEW when more than
 * nlocal), *n of them; r->p past its '}'. A key with an escape: -1 unless escaped_ok. */
static int collect_members(struct rf *r, int depth, struct nd_json_member **m, size_t *n,
                           struct nd_json_member *local, size_t nlocal, bool escaped_ok)
{
    size_t cap = nlocal;
    *m = local;
    *n = 0;
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return 0;
    }
    for (;;) {
        struct nd_json_member mb;
        bool esc;
        if (r->p >= r->end || *r->p != '"' || scan_string(r, &mb.key.p, &mb.key.n, &esc) < 0 ||
            (esc && !escaped_ok))
            return -1;
        mb.escaped = esc;
        ws(r);
        if (r->p >= r->end || *r->p != ':')
            return -1;
        r->p++;
        ws(r);
        mb.val.p = r->p;
        if (skip_value(r, depth) < 0)
            return -1;
        mb.val.n = (size_t)(r->p - mb.val.p);
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            if (local && *m == local) {
                struct nd_json_member *g = nd_xmalloc(cap * sizeof *g);
                if (*n)
                    memcpy(g, local, *n * sizeof *g);
                *m = g;
            } else {
                *m = nd_xrealloc(*m, cap * sizeof **m);
            }
        }
        (*m)[(*n)++] = mb;
        int more = next_item(r, '}');
        if (more > 0)
            continue;
        if (more == 0)
            return 0;
        return -1;
    }
}

static int cmp_keys(const struct nd_json_span *x, const struct nd_json_span *y)
{
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    if (c)
        return c;
    return x->n < y->n ? -1 : x->n > y->n;
}

static int emit_value(struct rf *r, int level, int depth, const char *const *drop, int ndrop);

static bool key_is(const struct nd_json_span *k, const char *s)
{
    size_t n = strlen(s);
    return k->n == n && memcmp(k->p, s, n) == 0;
}

/* A member as written: its key, and where its text (",", the line break and indent, the
 * key, the value) is in out; from == to when it is left out. */
struct seg {
    struct nd_json_span key;
    size_t from, to;
};

static int cmp_segs(const void *a, const void *b)
{
    return cmp_keys(&((const struct seg *)a)->key, &((const struct seg *)b)->key);
}

/* Puts the members written from start in key order; -1 on a duplicate key. */
static int order(struct rf *r, struct seg *m, size_t n, size_t start)
{
    struct nd_buf *b = r->out;
    qsort(m, n, sizeof *m, cmp_segs);
    for (size_t i = 1; i < n; i++)
        if (cmp_keys(&m[i - 1].key, &m[i].key) == 0)
            return -1;
    nd_buf_reset(&r->tmp);
    nd_buf_add(&r->tmp, b->data + start, b->len - start);
    nd_buf_truncate(b, start);
    for (size_t i = 0; i < n; i++)
        nd_buf_add(b, r->tmp.data + (m[i].from - start), m[i].to - m[i].from);
    return 0;
}

/* The object at r->p, its members written as they come (each value once), then put in
 * key order unless they came in it. */
static int emit_object(struct rf *r, int level, int depth, const char *const *drop, int ndrop)
{
    struct seg local[LOCAL], *m = local;
    size_t n = 0, cap = LOCAL;
    struct nd_buf *b = r->out;
    size_t start = b->len;
    bool pretty = r->flags & ND_JSON_PRETTY, sorted = true;
    int rc = -1;
    if (depth + 1 > r->max_depth)
        return -1;
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        nd_buf_adds(b, "{}");
        return 0;
    }
    for (;;) {
        struct seg sg;
        bool esc;
        if (r->p >= r->end || *r->p != '"' || scan_string(r, &sg.key.p, &sg.key.n, &esc) < 0 ||
            esc)
            goto out;
        ws(r);
        if (r->p >= r->end || *r->p != ':')
            goto out;
        r->p++;
        ws(r);
        bool on_path = ndrop && key_is(&sg.key, drop[0]);
        sg.from = b->len;
        if (on_path && ndrop == 1) { /* left out, but checked as the tree's loader would */
            if (emit_value(r, 0, depth + 1, NULL, 0) < 0)
                goto out;
            nd_buf_truncate(b, sg.from);
        } else {
            nd_buf_addch(b, ',');
            newline(b, r->flags, level + 1);
            nd_json_add_string(b, sg.key.p, sg.key.n, r->flags);
            nd_buf_adds(b, pretty ? ": " : ":");
            if (emit_value(r, level + 1, depth + 1, on_path ? drop + 1 : NULL,
                           on_path ? ndrop - 1 : 0) < 0)
                goto out;
        }
        sg.to = b->len;
        if (n && sorted && cmp_keys(&m[n - 1].key, &sg.key) >= 0)
            sorted = false;
        if (n == cap) {
            cap *= 2;
            if (m == local) {
                m = nd_xmalloc(cap * sizeof *m);
                memcpy(m, local, n * sizeof *m);
            } else {
                m = nd_xrealloc(m, cap * sizeof *m);
            }
        }
        m[n++] = sg;
        int more = next_item(r, '}');
        if (more > 0)
            continue;
        if (more == 0)
            break;
        goto out;
    }
    if (!sorted && order(r, m, n, start) < 0)
        goto out;
    if (b->len == start || b->overflow) { /* every member left out */
        nd_buf_truncate(b, start);
        nd_buf_adds(b, "{}");
    } else {
        b->data[start] = '{'; /* the first member's comma */
        newline(b, r->flags, level);
        nd_buf_addch(b, '}');
    }
    rc = 0;
out:
    if (m != local)
        free(m);
    return rc;
}

static int emit_array(struct rf *r, int level, int depth, const char *const *drop, int ndrop)
{
    if (depth + 1 > r->max_depth)
        return -1;
    struct nd_buf *b = r->out;
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        nd_buf_adds(b, "[]");
        return 0;
    }
    nd_buf_addch(b, '[');
    for (size_t i = 0;; i++) {
        if (i)
            nd_buf_addch(b, ',');
        newline(b, r->flags, level + 1);
        bool each = r->each && depth == 0;
        if (emit_value(r, level + 1, depth + 1, each ? drop : NULL, each ? ndrop : 0) < 0)
            return -1;
        int more = next_item(r, ']');
        if (more > 0)
            continue;
        if (more == 0)
            break;
        return -1;
    }
    newline(b, r->flags, level);
    nd_buf_addch(b, ']');
    return 0;
}

/* A scalar of n bytes at s as jansson reads it and nd_json_dump writes it. */
static int emit_by_jansson(struct rf *r, const char *s, size_t n)
{
    json_t *v = json_loadb(s, n, JSON_DECODE_ANY, NULL);
    if (!v)
        return -1;
    int rc = nd_json_dump(v, r->out, r->flags);
    json_decref(v);
    return rc;
}

static bool digit(const char *p, const char *e)
{
    return p < e && *p >= '0' && *p <= '9';
}

static int emit_number(struct rf *r)
{
    const char *s = r->p, *p = s, *e = r->end;
    bool plain = true;
    if (p < e && *p == '-')
        p++;
    if (!digit(p, e))
        return -1;
    if (*p == '0')
        p++;
    else
        while (digit(p, e))
            p++;
    if (p < e && *p == '.') {
        plain = false;
        if (!digit(++p, e))
            return -1;
        while (digit(p, e))
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        plain = false;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (!digit(p, e))
            return -1;
        while (digit(p, e))
            p++;
    }
    size_t n = (size_t)(p - s);
    r->p = p;
    /* an integer of up to 18 digits is an int64 written as it is; -0 is written 0 */
    if (plain && n - (*s == '-') <= 18 && !(*s == '-' && s[1] == '0')) {
        nd_buf_add(r->out, s, n);
        return 0;
    }
    return emit_by_jansson(r, s, n);
}

static int emit_literal(struct rf *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return -1;
    r->p += n;
    nd_buf_add(r->out, word, n);
    return 0;
}

static int emit_value(struct rf *r, int level, int depth, const char *const *drop, int ndrop)
{
    if (r->p >= r->end)
        return -1;
    switch (*r->p) {
    case '{':
        return emit_object(r, level, depth, drop, ndrop);
    case '[':
        return emit_array(r, level, depth, drop, ndrop);
    case '"': {
        const char *s, *q = r->p;
        size_t n;
        bool esc;
        if (scan_string(r, &s, &n, &esc) < 0)
            return -1;
        if (esc)
            return emit_by_jansson(r, q, (size_t)(r->p - q));
        nd_json_add_string(r->out, s, n, r->flags);
        return 0;
    }
    case 't':
        return emit_literal(r, "true");
    case 'f':
        return emit_literal(r, "false");
    case 'n':
        return emit_literal(r, "null");
    default:
        return emit_number(r);
    }
}

int nd_json_reformat(const char *text, size_t len, const struct nd_json_reformat *o,
                     struct nd_buf *out)
{
    if (!(o->flags & ND_JSON_SORT_KEYS)) /* jansson's order of members is its own */
        return -1;
    struct rf r = {.p = text, .end = text + len, .out = out, .flags = o->flags,
                   .max_depth = o->max_depth, .each = o->each, .tmp = ND_BUF_INIT};
    int ndrop = o->drop[0] && o->drop[1] ? 2 : 0;
    size_t start = out->len;
    ws(&r);
    int rc = emit_value(&r, o->level, 0, o->drop, ndrop);
    if (rc == 0)
        ws(&r);
    nd_buf_release(&r.tmp);
    if (rc < 0 || r.p != r.end || out->overflow) {
        nd_buf_truncate(out, start);
        return -1;
    }
    return 0;
}

int nd_json_object_members(const char *text, size_t len, struct nd_json_member **members,
                           size_t *n)
{
    struct rf r = {.p = text, .end = text + len, .max_depth = ND_JSON_MAX_DEPTH};
    *members = NULL;
    *n = 0;
    ws(&r);
    if (r.p >= r.end || *r.p != '{' || collect_members(&r, 1, members, n, NULL, 0, true) < 0)
        goto fail;
    ws(&r);
    if (r.p == r.end)
        return 0;
fail:
    free(*members);
    *members = NULL;
    *n = 0;
    return -1;
}

const char *nd_json_scan_string(const char *p, const char *end, struct nd_json_span *s,
                                int *escaped)
{
    struct rf r = {.p = p, .end = end};
    bool esc;
    if (p >= end || *p != '"' || scan_string(&r, &s->p, &s->n, &esc) < 0)
        return NULL;
    *escaped = esc;
    return r.p;
}

const char *nd_json_skip_value(const char *p, const char *end, int depth)
{
    struct rf r = {.p = p, .end = end, .max_depth = ND_JSON_MAX_DEPTH};
    return skip_value(&r, depth) < 0 ? NULL : r.p;
}
