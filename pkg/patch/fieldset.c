/* fieldset.c: field sets as trees of path elements; fieldsV1 in and out; set algebra;
 * Kubernetes path strings. Building sets from objects is in fieldwalk.c. */
#include <stdlib.h>
#include <string.h>

#include "patch/ssa_int.h"
#include "util/buf.h"
#include "util/quote.h"
#include "util/validate.h"
#include "util/xmalloc.h"

/* ---- nodes ---- */

static struct nd_fieldset *node_new(const char *key)
{
    struct nd_fieldset *s = nd_xcalloc(1, sizeof *s);
    s->key = key ? nd_xstrdup(key) : NULL;
    return s;
}

struct nd_fieldset *nd_fieldset_new(void)
{
    return node_new(NULL);
}

void nd_fieldset_free(struct nd_fieldset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        nd_fieldset_free(s->kids[i]);
    free(s->kids);
    free(s->key);
    free(s);
}

static int rank(const char *k)
{
    switch (k[0]) {
    case 'f':
        return 0;
    case 'k':
        return 1;
    case 'v':
        return 2;
    case 'i':
        return 3;
    default:
        return 4;
    }
}

int nd_fieldset_elem_cmp(const char *a, const char *b)
{
    int ra = rank(a), rb = rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra == 3) { /* indexes by number */
        long long x = strtoll(a + 2, NULL, 10), y = strtoll(b + 2, NULL, 10);
        if (x != y)
            return x < y ? -1 : 1;
    }
    /* Names by bytes, as Go's strings.Compare; values and keys by their JSON text,
     * which orders plain strings as Kubernetes' value.Compare does. */
    return strcmp(a, b);
}

/* Index of key among s's children, or where it would go (*found false). */
static size_t find(const struct nd_fieldset *s, const char *key, bool *found)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = nd_fieldset_elem_cmp(s->kids[mid]->key, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

struct nd_fieldset *nd_fieldset_child(const struct nd_fieldset *s, const char *key)
{
    bool found;
    size_t i = find(s, key, &found);
    return found ? s->kids[i] : NULL;
}

struct nd_fieldset *nd_fieldset_child_add(struct nd_fieldset *s, const char *key)
{
    bool found;
    size_t i = find(s, key, &found);
    if (found)
        return s->kids[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->kids = nd_xrealloc(s->kids, s->cap * sizeof *s->kids);
    }
    memmove(s->kids + i + 1, s->kids + i, (s->n - i) * sizeof *s->kids);
    s->kids[i] = node_new(key);
    s->n++;
    return s->kids[i];
}

bool nd_fieldset_compact(struct nd_fieldset *s)
{
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (nd_fieldset_compact(s->kids[i]))
            nd_fieldset_free(s->kids[i]);
        else
            s->kids[w++] = s->kids[i];
    }
    s->n = w;
    return !s->member && s->n == 0;
}

bool nd_fieldset_empty(const struct nd_fieldset *s)
{
    if (s->member)
        return false;
    for (size_t i = 0; i < s->n; i++)
        if (!nd_fieldset_empty(s->kids[i]))
            return false;
    return true;
}

char *nd_fieldset_fkey(const char *name)
{
    return nd_xasprintf("f:%s", name);
}

char *nd_fieldset_vkey(const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    char *key = nd_xasprintf("v:%s", text ? text : "null");
    free(text);
    return key;
}

/* ---- algebra ---- */

void nd_fieldset_add_all(struct nd_fieldset *dst, const struct nd_fieldset *src)
{
    dst->member = dst->member || src->member;
    for (size_t i = 0; i < src->n; i++)
        nd_fieldset_add_all(nd_fieldset_child_add(dst, src->kids[i]->key), src->kids[i]);
}

static void remove_rec(struct nd_fieldset *dst, const struct nd_fieldset *src)
{
    if (src->member)
        dst->member = false;
    for (size_t i = 0; i < src->n; i++) {
        struct nd_fieldset *d = nd_fieldset_child(dst, src->kids[i]->key);
        if (d)
            remove_rec(d, src->kids[i]);
    }
}

void nd_fieldset_remove_all(struct nd_fieldset *dst, const struct nd_fieldset *src)
{
    remove_rec(dst, src);
    nd_fieldset_compact(dst);
}

static void intersect_into(struct nd_fieldset *out, const struct nd_fieldset *a,
                           const struct nd_fieldset *b)
{
    out->member = a->member && b->member;
    for (size_t i = 0; i < a->n; i++) {
        const struct nd_fieldset *bk = nd_fieldset_child(b, a->kids[i]->key);
        if (bk)
            intersect_into(nd_fieldset_child_add(out, a->kids[i]->key), a->kids[i], bk);
    }
}

struct nd_fieldset *nd_fieldset_copy(const struct nd_fieldset *s)
{
    struct nd_fieldset *c = nd_fieldset_new();
    nd_fieldset_add_all(c, s);
    nd_fieldset_compact(c);
    return c;
}

struct nd_fieldset *nd_fieldset_union(const struct nd_fieldset *a, const struct nd_fieldset *b)
{
    struct nd_fieldset *c = nd_fieldset_copy(a);
    nd_fieldset_add_all(c, b);
    nd_fieldset_compact(c);
    return c;
}

struct nd_fieldset *nd_fieldset_difference(const struct nd_fieldset *a, const struct nd_fieldset *b)
{
    struct nd_fieldset *c = nd_fieldset_copy(a);
    nd_fieldset_remove_all(c, b);
    return c;
}

struct nd_fieldset *nd_fieldset_intersection(const struct nd_fieldset *a,
                                             const struct nd_fieldset *b)
{
    struct nd_fieldset *c = nd_fieldset_new();
    intersect_into(c, a, b);
    c->member = false; /* the root path is never a member */
    nd_fieldset_compact(c);
    return c;
}

static bool equal_rec(const struct nd_fieldset *a, const struct nd_fieldset *b)
{
    if (a->member != b->member || a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->kids[i]->key, b->kids[i]->key) != 0 || !equal_rec(a->kids[i], b->kids[i]))
            return false;
    return true;
}

bool nd_fieldset_equal(const struct nd_fieldset *a, const struct nd_fieldset *b)
{
    struct nd_fieldset *x = nd_fieldset_copy(a), *y = nd_fieldset_copy(b);
    bool eq = equal_rec(x, y);
    nd_fieldset_free(x);
    nd_fieldset_free(y);
    return eq;
}

/* ---- fieldsV1 ---- */

static json_t *to_json_rec(const struct nd_fieldset *s)
{
    json_t *o = json_object();
    if (s->member && s->n)
        json_object_set_new(o, ".", json_object());
    for (size_t i = 0; i < s->n; i++)
        json_object_set_new(o, s->kids[i]->key, to_json_rec(s->kids[i]));
    return o;
}

json_t *nd_fieldset_to_json(const struct nd_fieldset *s)
{
    struct nd_fieldset *c = nd_fieldset_copy(s);
    json_t *o = to_json_rec(c);
    nd_fieldset_free(c);
    return o;
}

/* key as this set stores it, NEW: v: and k: values in compact JSON (so `v: "a"` and
 * `v:"a"` are one element). NULL, with *why, when key is not a path element. */
static char *norm_key(const char *key, const char **why)
{
    *why = NULL;
    if (strlen(key) < 2 || key[1] != ':' || rank(key) == 4) {
        *why = "a field name must be \".\" or start with \"f:\", \"v:\", \"k:\" or \"i:\"";
        return NULL;
    }
    if (key[0] == 'v' || key[0] == 'k') {
        json_t *v = json_loads(key + 2, JSON_DECODE_ANY, NULL);
        if (!v || (key[0] == 'k' && !json_is_object(v))) {
            json_decref(v);
            *why = key[0] == 'v' ? "the text after \"v:\" must be a JSON value"
                                 : "the text after \"k:\" must be a JSON object";
            return NULL;
        }
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        char *k = nd_xasprintf("%c:%s", key[0], text);
        free(text);
        json_decref(v);
        return k;
    }
    if (key[0] == 'i') {
        const char *p = key + 2;
        if (*p == '-')
            p++;
        if (!*p || strspn(p, "0123456789") != strlen(p)) {
            *why = "the text after \"i:\" must be a decimal integer";
            return NULL;
        }
    }
    return nd_xstrdup(key);
}

static int from_json_rec(struct nd_fieldset *s, const json_t *j, const char *field,
                         struct nd_status *st)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)j, key, v)
    {
        if (!json_is_object(v)) {
            nd_validate_invalid(st, field, key, "must map to an object ({} for a leaf)");
            return -1;
        }
        if (strcmp(key, ".") == 0) {
            s->member = true;
            continue;
        }
        const char *why;
        char *nk = norm_key(key, &why);
        if (!nk) {
            nd_validate_invalid(st, field, key, why);
            return -1;
        }
        struct nd_fieldset *k = nd_fieldset_child_add(s, nk);
        free(nk);
        if (json_object_size(v) == 0)
            k->member = true;
        else if (from_json_rec(k, v, field, st) < 0)
            return -1;
    }
    return 0;
}

struct nd_fieldset *nd_fieldset_from_json(const json_t *fields_v1, const char *field,
                                          struct nd_status *st)
{
    struct nd_fieldset *s = nd_fieldset_new();
    if (!fields_v1 || json_is_null(fields_v1))
        return s;
    if (!json_is_object(fields_v1)) {
        nd_ssa_invalid_json(st, field, fields_v1, "must be an object");
        nd_fieldset_free(s);
        return NULL;
    }
    if (from_json_rec(s, fields_v1, field, st) < 0) {
        nd_fieldset_free(s);
        return NULL;
    }
    s->member = false;
    nd_fieldset_compact(s);
    return s;
}

/* ---- path strings ---- */

/* Appends one element as Kubernetes' PathElement.String prints it. */
static void add_elem(struct nd_buf *b, const char *key)
{
    switch (key[0]) {
    case 'f':
        nd_buf_addf(b, ".%s", key + 2);
        break;
    case 'v':
        nd_buf_addf(b, "[=%s]", key + 2);
        break;
    case 'i':
        nd_buf_addf(b, "[%s]", key + 2);
        break;
    default: { /* k: a JSON object of key fields */
        json_t *o = json_loads(key + 2, 0, NULL);
        const char *name;
        json_t *v;
        bool first = true;
        nd_buf_addch(b, '[');
        json_object_foreach(o, name, v)
        {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            nd_buf_addf(b, "%s%s=%s", first ? "" : ",", name, text ? text : "");
            free(text);
            first = false;
        }
        nd_buf_addch(b, ']');
        json_decref(o);
        break;
    }
    }
}

static void paths_rec(const struct nd_fieldset *s, struct nd_buf *prefix, json_t *out)
{
    size_t len = prefix->len;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->kids[i]->member)
            continue;
        add_elem(prefix, s->kids[i]->key);
        json_array_append_new(out, json_string(prefix->data));
        nd_buf_truncate(prefix, len);
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!s->kids[i]->n)
            continue;
        add_elem(prefix, s->kids[i]->key);
        paths_rec(s->kids[i], prefix, out);
        nd_buf_truncate(prefix, len);
    }
}

json_t *nd_fieldset_paths(const struct nd_fieldset *s)
{
    json_t *out = json_array();
    struct nd_buf b = ND_BUF_INIT;
    paths_rec(s, &b, out);
    nd_buf_release(&b);
    return out;
}

/* Appends k to keys and frees it. */
static void push_key(json_t *keys, char *k)
{
    json_array_append_new(keys, json_string(k));
    free(k);
}

/* Splits a path into element keys (a NEW array of strings), or NULL with st filled. */
static json_t *parse_path(const char *path, struct nd_status *st)
{
    json_t *keys = json_array();
    const char *p = path;
    if (*p == '.')
        p++;
    for (bool first = true;; first = false) {
        if (*p == '[' && p[1] == '=') {
            json_error_t err;
            json_t *v = json_loads(p + 2, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &err);
            if (!v || p[2 + err.position] != ']') {
                json_decref(v);
                goto bad;
            }
            push_key(keys, nd_fieldset_vkey(v));
            json_decref(v);
            p += 2 + err.position + 1;
        } else if (*p == '[') {
            const char *close = strchr(p + 1, ']');
            if (!close || close == p + 1)
                goto bad;
            char *name = nd_xstrndup(p + 1, (size_t)(close - p - 1));
            push_key(keys, nd_fieldset_fkey(name));
            free(name);
            p = close + 1;
        } else if (*p == '\0' && !first) {
            break;
        } else {
            if (!first) {
                if (*p != '.')
                    goto bad;
                p++;
            }
            size_t n = strcspn(p, ".[]");
            if (n == 0)
                goto bad;
            char *name = nd_xstrndup(p, n);
            push_key(keys, nd_fieldset_fkey(name));
            free(name);
            p += n;
        }
    }
    return keys;
bad:
    if (st) {
        struct nd_buf q = ND_BUF_INIT;
        nd_quote(&q, path, ND_QUOTE_MAX);
        nd_status_set(st, "BadRequest", NULL, "invalid field path %s at character %zu", q.data,
                      (size_t)(p - path) + 1);
        nd_buf_release(&q);
    }
    json_decref(keys);
    return NULL;
}

int nd_fieldset_insert(struct nd_fieldset *s, const char *path, struct nd_status *st)
{
    json_t *keys = parse_path(path, st);
    if (!keys)
        return -1;
    struct nd_fieldset *n = s;
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k) n = nd_fieldset_child_add(n, json_string_value(k));
    n->member = true;
    json_decref(keys);
    return 0;
}

bool nd_fieldset_has(const struct nd_fieldset *s, const char *path)
{
    json_t *keys = parse_path(path, NULL);
    if (!keys)
        return false;
    const struct nd_fieldset *n = s;
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k)
    {
        n = nd_fieldset_child(n, json_string_value(k));
        if (!n)
            break;
    }
    json_decref(keys);
    return n && n != s && n->member;
}
