/* An object file's compact bytes and its record's values in one pass; see objscan.h. */
#include "objscan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "rec_arena.h"
#include "util/quote.h"
#include "util/xmalloc.h"

/* ---- the plan: the record's paths as a tree ---- */

struct pnode {
    char *key;
    size_t klen;
    bool leaf; /* the whole value (else only the kids' values, when it is an object) */
    bool kept; /* a leaf a record keeps (else only the loader reads it: built off the
                * records' arena, where its dropped bytes would stay) */
    struct pnode *kids;
    size_t nkids;
};

struct em_scan_plan {
    struct pnode root;
};

static struct pnode *kid(struct pnode *n, const char *key, size_t klen)
{
    for (size_t i = 0; i < n->nkids; i++) {
        if (n->kids[i].klen == klen && memcmp(n->kids[i].key, key, klen) == 0)
            return &n->kids[i];
    }
    n->kids = nd_xrealloc(n->kids, (n->nkids + 1) * sizeof *n->kids);
    struct pnode *k = &n->kids[n->nkids++];
    *k = (struct pnode){.key = nd_xstrndup(key, klen), .klen = klen};
    return k;
}

/* Adds a dotted path as em_rec_of's copy_path walks it: a segment it would not take
 * (empty, 128 bytes or more) ends the walk, the parents before it still read. */
static void add_path(struct pnode *root, const char *path, bool kept)
{
    struct pnode *n = root;
    for (const char *p = path; *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0 || len >= 128)
            return;
        /* a key compared as it is written: one the dump would escape is never matched */
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)p[i];
            if (c < 0x20 || c == '"' || c == '\\')
                return;
        }
        n = kid(n, p, len);
        if (!dot) {
            n->leaf = true;
            n->kept |= kept;
            return;
        }
        p = dot + 1;
    }
}

struct em_scan_plan *em_scan_plan_new(const struct nd_kind *k)
{
    struct em_scan_plan *pl = nd_xcalloc(1, sizeof *pl);
    char path[160];
    /* what em_rec_of reads (entry.c), and the kind check_obj asks for (load.c) */
    add_path(&pl->root, "kind", false);
    for (int i = 0; em_rec_meta[i]; i++) {
        snprintf(path, sizeof path, "metadata.%s", em_rec_meta[i]);
        add_path(&pl->root, path, true);
    }
    add_path(&pl->root, "status.phase", true);
    add_path(&pl->root, "status.conditions", true);
    for (int i = 0; k && em_rec_ended[i]; i++)
        add_path(&pl->root, em_rec_ended[i], true);
    if (k && nd_kind_is(k, ND_KIND_BILLED))
        add_path(&pl->root, "status.costUSD", true);
    for (const char *const *f = k ? k->field_selectors : NULL; f && *f; f++) {
        const char *eq = strchr(*f, '=');
        const char *sel = eq ? eq + 1 : *f;
        if (strncmp(sel, "metadata.", 9) != 0 && strcmp(sel, "status.phase") != 0)
            add_path(&pl->root, sel, true);
    }
    return pl;
}

void em_scan_plan_add(struct em_scan_plan *p, const char *path)
{
    add_path(&p->root, path, false);
}

static void pnode_free(struct pnode *n)
{
    for (size_t i = 0; i < n->nkids; i++)
        pnode_free(&n->kids[i]);
    free(n->kids);
    free(n->key);
}

void em_scan_plan_free(struct em_scan_plan *p)
{
    if (!p)
        return;
    pnode_free(&p->root);
    free(p);
}

/* ---- values from the checked compact text ---- */

/* The value at *p of compact text the scan accepted (so no check is needed). */
static json_t *build(const char **p);

/* The string at *p (its opening quote): the text itself when it has no escape, else its
 * escapes decoded into *heap (NEW, the caller frees it); *n its length. */
static const char *build_str(const char **p, char **heap, size_t *n)
{
    const char *s = ++*p;
    const char *q = s;
    while (*q != '"' && *q != '\\')
        q++;
    if (*q == '"') { /* no escape: the text itself */
        *n = (size_t)(q - s);
        *p = q + 1;
        return s;
    }
    while (*q != '"')
        q += *q == '\\' ? 2 : 1;
    char *b = *heap = nd_xmalloc((size_t)(q - s) + 1);
    size_t o = 0;
    for (q = s; *q != '"'; q++) {
        if (*q != '\\') {
            b[o++] = *q;
            continue;
        }
        char e = *++q;
        switch (e) {
        case 'b': b[o++] = '\b'; break;
        case 'f': b[o++] = '\f'; break;
        case 'n': b[o++] = '\n'; break;
        case 'r': b[o++] = '\r'; break;
        case 't': b[o++] = '\t'; break;
        case 'u': /* \u00XX, XX a control character, upper case */
            b[o++] = (char)(((q[3] - '0') << 4) | (q[4] <= '9' ? q[4] - '0' : q[4] - 'A' + 10));
            q += 4;
            break;
        default: b[o++] = e; /* " or \ */
        }
    }
    *n = o;
    *p = q + 1;
    return b;
}

static json_t *build(const char **p)
{
    const char *s;
    char *heap = NULL;
    size_t n;
    switch (**p) {
    case '{': {
        json_t *o = json_object();
        if (*++*p == '}') {
            ++*p;
            return o;
        }
        for (;;) {
            s = build_str(p, &heap, &n);
            ++*p; /* : */
            json_object_setn_new_nocheck(o, s, n, build(p));
            free(heap);
            heap = NULL;
            if (*(*p)++ == '}')
                return o;
        }
    }
    case '[': {
        json_t *a = json_array();
        if (*++*p == ']') {
            ++*p;
            return a;
        }
        for (;;) {
            json_array_append_new(a, build(p));
            if (*(*p)++ == ']')
                return a;
        }
    }
    case '"': {
        s = build_str(p, &heap, &n);
        json_t *v = json_stringn_nocheck(s, n);
        free(heap);
        return v;
    }
    case 't':
        *p += 4;
        return json_true();
    case 'f':
        *p += 5;
        return json_false();
    case 'n':
        *p += 4;
        return json_null();
    default: {
        char *end;
        const char *q = *p;
        bool real = false;
        while (*q && !strchr(",]}", *q))
            real |= *q == '.' || *q == 'e' || *q == 'E', q++;
        json_t *v = real ? json_real(strtod(*p, &end)) : json_integer(strtoll(*p, &end, 10));
        *p = q;
        return v;
    }
    }
}

/* ---- the scan ---- */

/* The part's objects are made off the records' arena (rec_arena.h), whatever the caller
 * chose: they are dropped once the record is made, and a record's block stays while one
 * allocation in it lives. Its values (what the record keeps) follow the caller's choice. */
static json_t *part_object(void)
{
    bool was = em_rec_arena_on();
    em_rec_arena_use(false);
    json_t *o = json_object();
    em_rec_arena_use(was);
    return o;
}

static void part_set(json_t *part, const char *key, size_t klen, json_t *v)
{
    bool was = em_rec_arena_on();
    em_rec_arena_use(false);
    json_object_setn_new_nocheck(part, key, klen, v);
    em_rec_arena_use(was);
}

#define MAX_DEPTH 64
#define MAX_KEYS 512

struct key {
    size_t off, len; /* in out */
    uint64_t hash;
};

struct scan {
    const unsigned char *p, *end;
    char *out;
    size_t len;
    int depth;
    struct key keys[MAX_KEYS]; /* the keys of every object open, outermost first */
    size_t nkeys;
};

static void skip_blanks(struct scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r'))
        s->p++;
}

static bool is_hex_upper(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* One UTF-8 sequence from its lead byte at s->p (>= 0x80), copied to out: valid as
 * jansson's utf8_check_full says (no overlong form, surrogate, or past U+10FFFF), which
 * is nd_utf8_seq_len's rule. */
static bool utf8_seq(struct scan *s)
{
    size_t n = nd_utf8_seq_len(s->p, (size_t)(s->end - s->p));
    if (!n)
        return false;
    memcpy(s->out + s->len, s->p, n);
    s->len += n;
    s->p += n;
    return true;
}

/* A string at s->p (its quote), copied to out. */
static bool scan_str(struct scan *s)
{
    if (s->p >= s->end || *s->p != '"')
        return false;
    s->out[s->len++] = '"';
    s->p++;
    for (;;) {
        const unsigned char *q = s->p;
        while (q < s->end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
            q++;
        memcpy(s->out + s->len, s->p, (size_t)(q - s->p));
        s->len += (size_t)(q - s->p);
        s->p = q;
        if (q >= s->end || *q < 0x20)
            return false;
        if (*q == '"') {
            s->out[s->len++] = '"';
            s->p++;
            return true;
        }
        if (*q >= 0x80) {
            if (!utf8_seq(s))
                return false;
            continue;
        }
        /* an escape: only those jansson's dump_string writes */
        if (s->end - q < 2)
            return false;
        size_t n = 2;
        switch (q[1]) {
        case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
            break;
        case 'u': {
            if (s->end - q < 6 || q[2] != '0' || q[3] != '0' || (q[4] != '0' && q[4] != '1') ||
                !is_hex_upper(q[5]))
                return false;
            unsigned v = (unsigned)((q[4] - '0') << 4) | (unsigned)(q[5] <= '9' ? q[5] - '0' : q[5] - 'A' + 10);
            if (v == 0 || v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t')
                return false;
            n = 6;
            break;
        }
        default:
            return false;
        }
        memcpy(s->out + s->len, q, n);
        s->len += n;
        s->p += n;
    }
}

/* A number at s->p: an integer as jansson prints it back (no leading zero, not "-0",
 * within json_int_t's 64 bits) or a real it prints back as written. */
static bool scan_num(struct scan *s)
{
    const unsigned char *q = s->p, *e = s->end;
    bool neg = q < e && *q == '-';
    if (neg)
        q++;
    const unsigned char *d = q;
    while (q < e && *q >= '0' && *q <= '9')
        q++;
    size_t nd = (size_t)(q - d);
    if (nd == 0 || (*d == '0' && nd > 1))
        return false;
    bool real = false;
    if (q < e && *q == '.') {
        real = true;
        const unsigned char *f = ++q;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return false;
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        real = true;
        q++;
        if (q < e && (*q == '+' || *q == '-'))
            q++;
        const unsigned char *x = q;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
        if (q == x)
            return false;
    }
    size_t n = (size_t)(q - s->p);
    if (!real) {
        /* within json_int_t (64 bits): at most 19 digits, and those 19 no more than its
         * bound's */
        if (nd > 19 || (neg && nd == 1 && *d == '0') ||
            (nd == 19 && memcmp(d, neg ? "9223372036854775808" : "9223372036854775807", 19) > 0))
            return false;
    } else {
        /* jansson reads a real with strtod and prints it with its own %.17g rules: ask it */
        char tok[64], back[64], *end;
        if (n >= sizeof tok)
            return false;
        memcpy(tok, s->p, n);
        tok[n] = '\0';
        double v = strtod(tok, &end);
        if (*end || !isfinite(v))
            return false;
        bool was = em_rec_arena_on();
        em_rec_arena_use(false);
        json_t *r = json_real(v);
        size_t bn = json_dumpb(r, back, sizeof back, JSON_ENCODE_ANY | JSON_COMPACT);
        json_decref(r);
        em_rec_arena_use(was);
        if (bn != n || memcmp(back, tok, n) != 0)
            return false;
    }
    memcpy(s->out + s->len, s->p, n);
    s->len += n;
    s->p = q;
    return true;
}

static bool scan_lit(struct scan *s, const char *lit, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
        return false;
    memcpy(s->out + s->len, lit, n);
    s->len += n;
    s->p += n;
    return true;
}

static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
    return h;
}

/* Whether the key just copied (at off, len bytes) repeats one of its object's (those
 * from base on); it is added. */
static bool repeated_key(struct scan *s, size_t base, size_t off, size_t len)
{
    if (s->nkeys == MAX_KEYS)
        return true; /* refused: jansson will say */
    const char *k = s->out + off;
    uint64_t h = key_hash(k, len);
    for (size_t i = base; i < s->nkeys; i++) {
        const struct key *o = &s->keys[i];
        if (o->hash == h && o->len == len && memcmp(s->out + o->off, k, len) == 0)
            return true;
    }
    s->keys[s->nkeys++] = (struct key){off, len, h};
    return false;
}

static bool scan_value(struct scan *s, const struct pnode *node, json_t **built);

static const struct pnode *find_kid(const struct pnode *n, const char *key, size_t klen)
{
    for (size_t i = 0; n && i < n->nkids; i++) {
        if (n->kids[i].klen == klen && memcmp(n->kids[i].key, key, klen) == 0)
            return &n->kids[i];
    }
    return NULL;
}

/* An object at s->p; into part (when not NULL) the values of node's kids. */
static bool scan_object(struct scan *s, const struct pnode *node, json_t *part)
{
    size_t base = s->nkeys;
    s->out[s->len++] = '{';
    s->p++;
    skip_blanks(s);
    bool ok = false;
    if (s->p < s->end && *s->p == '}') {
        ok = true;
    } else {
        for (;;) {
            size_t koff = s->len + 1;
            if (!scan_str(s))
                break;
            size_t klen = s->len - 1 - koff;
            if (repeated_key(s, base, koff, klen))
                break;
            skip_blanks(s);
            if (s->p >= s->end || *s->p != ':')
                break;
            s->out[s->len++] = ':';
            s->p++;
            skip_blanks(s);
            const struct pnode *k = part ? find_kid(node, s->out + koff, klen) : NULL;
            json_t *v = NULL;
            if (!scan_value(s, k, k ? &v : NULL))
                break;
            if (v) /* a key of the plan's: written as it reads (add_path) */
                part_set(part, k->key, klen, v);
            skip_blanks(s);
            if (s->p >= s->end)
                break;
            if (*s->p == ',') {
                s->out[s->len++] = ',';
                s->p++;
                skip_blanks(s);
                continue;
            }
            ok = *s->p == '}';
            break;
        }
    }
    if (ok) {
        s->out[s->len++] = '}';
        s->p++;
    }
    s->nkeys = base;
    return ok;
}

static bool scan_array(struct scan *s)
{
    s->out[s->len++] = '[';
    s->p++;
    skip_blanks(s);
    if (s->p < s->end && *s->p == ']') {
        s->out[s->len++] = ']';
        s->p++;
        return true;
    }
    for (;;) {
        if (!scan_value(s, NULL, NULL))
            return false;
        skip_blanks(s);
        if (s->p >= s->end)
            return false;
        char c = (char)*s->p++;
        s->out[s->len++] = c;
        if (c == ']')
            return true;
        if (c != ',')
            return false;
        skip_blanks(s);
    }
}

/* One value at s->p, copied to out. node: its path in the plan (NULL: not read); when
 * set, *built is its value (a leaf's whole, an inner object's planned kids), or NULL. */
static bool scan_value(struct scan *s, const struct pnode *node, json_t **built)
{
    if (s->p >= s->end || ++s->depth > MAX_DEPTH)
        return false;
    bool ok;
    size_t from = s->len;
    bool whole = node && (node->leaf || *s->p != '{');
    switch (*s->p) {
    case '{':
        if (node && !whole) {
            json_t *o = part_object();
            ok = scan_object(s, node, o);
            if (ok)
                *built = o;
            else
                json_decref(o);
        } else {
            ok = scan_object(s, NULL, NULL);
        }
        break;
    case '[':
        ok = scan_array(s);
        break;
    case '"':
        ok = scan_str(s);
        break;
    case 't':
        ok = scan_lit(s, "true", 4);
        break;
    case 'f':
        ok = scan_lit(s, "false", 5);
        break;
    case 'n':
        ok = scan_lit(s, "null", 4);
        break;
    default:
        ok = scan_num(s);
    }
    s->depth--;
    if (ok && whole) {
        s->out[s->len] = '\0'; /* build's numbers end at a NUL, a comma or a bracket */
        const char *p = s->out + from;
        bool was = em_rec_arena_on();
        if (!node->kept)
            em_rec_arena_use(false);
        *built = build(&p);
        em_rec_arena_use(was);
    }
    return ok;
}

bool em_scan_object(const struct em_scan_plan *pl, const char *text, size_t len,
                    struct em_bytes **json, json_t **part)
{
    struct scan sc, *s = &sc;
    /* made in a scratch buffer, then copied at its size: shrinking a block in place
     * would leave the heap a hole per object (the bytes are kept, the text is not) */
    char *out = nd_xmalloc(len + 1);
    s->p = (const unsigned char *)text;
    s->end = s->p + len;
    s->out = out;
    s->len = 0;
    s->depth = 0;
    s->nkeys = 0;
    json_t *root = part_object();
    skip_blanks(s);
    bool ok = s->p < s->end && *s->p == '{' && scan_object(s, &pl->root, root);
    skip_blanks(s);
    ok = ok && s->p == s->end && s->len > 0;
    if (ok)
        *json = em_bytes_new(out, s->len);
    free(out);
    if (!ok) {
        json_decref(root);
        return false;
    }
    *part = root;
    return true;
}
