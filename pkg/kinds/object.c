#include "kinds/object.h"

#include <stdlib.h>
#include <string.h>

#include "json/json.h"

#include "util/buf.h"
#include "util/xmalloc.h"

/* One parsed segment of a field path. */
struct seg {
    char *text;    /* the name, or the bracket's content */
    bool bracket;  /* written as [text] */
    bool is_index; /* decimal digits without a leading zero (an index on an array) */
    size_t index;
    size_t end; /* offset just past the segment in the path text */
};

struct segs {
    struct seg *v;
    size_t n, cap;
};

static void segs_release(struct segs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].text);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static void segs_push(struct segs *s, const char *p, size_t len, bool bracket, size_t end)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->v = nd_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    struct seg *g = &s->v[s->n++];
    g->text = nd_xstrndup(p, len);
    g->bracket = bracket;
    g->end = end;
    g->index = 0;
    /* At most 18 digits so the value cannot overflow; longer never names an element. */
    g->is_index = bracket && len <= 18 && (len == 1 || p[0] != '0');
    for (size_t i = 0; g->is_index && i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            g->is_index = false;
        else
            g->index = g->index * 10 + (size_t)(p[i] - '0');
    }
}

static int bad_path(struct nd_status *st, const char *path, size_t pos, const char *what)
{
    if (!st)
        return -1;
    return nd_status_set(st, "BadRequest", NULL, "invalid field path \"%s\": %s at character %zu",
                         path, what, pos + 1);
}

/* Splits path into segments; -1 (and st, when given) on a syntax error. */
static int parse(const char *path, struct segs *out, struct nd_status *st)
{
    if (!path || !*path) {
        if (st)
            nd_status_set(st, "BadRequest", NULL, "invalid field path \"\": the path is empty");
        return -1;
    }
    size_t i = 0;
    while (path[i]) {
        if (path[i] == '[') {
            size_t open = i++, start = i;
            while (path[i] && path[i] != ']')
                i++;
            if (!path[i]) {
                bad_path(st, path, open, "unterminated '['");
                goto fail;
            }
            if (i == start) {
                bad_path(st, path, open, "empty brackets");
                goto fail;
            }
            segs_push(out, path + start, i - start, true, i + 1);
            i++;
            continue;
        }
        if (out->n > 0) {
            if (path[i] == ']') {
                bad_path(st, path, i, "unexpected ']'");
                goto fail;
            }
            if (path[i] != '.') {
                bad_path(st, path, i, "expected '.' or '['");
                goto fail;
            }
            i++;
        }
        size_t start = i;
        while (path[i] && path[i] != '.' && path[i] != '[' && path[i] != ']')
            i++;
        if (i == start) {
            bad_path(st, path, i, path[i] == ']' ? "unexpected ']'" : "expected a field name");
            goto fail;
        }
        segs_push(out, path + start, i - start, false, i);
    }
    return 0;

fail:
    segs_release(out);
    return -1;
}

int nd_field_path_check(const char *path, struct nd_status *st)
{
    struct segs s = {0};
    if (parse(path, &s, st) < 0)
        return -1;
    segs_release(&s);
    return 0;
}

/* The child a segment names in v, or NULL. */
static json_t *step(const json_t *v, const struct seg *g)
{
    if (json_is_object(v))
        return json_object_get(v, g->text);
    if (json_is_array(v) && g->is_index)
        return json_array_get(v, g->index);
    return NULL;
}

const json_t *nd_obj_get(const json_t *obj, const char *path)
{
    struct segs s = {0};
    if (!obj || parse(path, &s, NULL) < 0)
        return NULL;
    const json_t *cur = obj;
    for (size_t i = 0; cur && i < s.n; i++)
        cur = step(cur, &s.v[i]);
    segs_release(&s);
    return cur;
}

const char *nd_obj_get_string(const json_t *obj, const char *path)
{
    return json_string_value(nd_obj_get(obj, path));
}


int nd_obj_set(json_t *obj, const char *path, json_t *value, struct nd_status *st)
{
    struct segs s = {0};
    int rc = -1;
    if (parse(path, &s, st) < 0)
        goto out;
    if (!value) {
        nd_status_set(st, "Invalid", NULL, "cannot set \"%s\": no value given", path);
        goto out;
    }
    if (!json_is_object(obj)) {
        nd_status_set(st, "Invalid", NULL, "cannot set \"%s\": the document is not an object",
                      path);
        goto out;
    }
    /* Every check happens on values that exist before anything is created: a created
     * member is an empty object, and no segment can fail on one. So an error leaves obj
     * as it was. */
    json_t *cur = obj;
    for (size_t k = 0; k < s.n; k++) {
        const struct seg *g = &s.v[k];
        bool last = k + 1 == s.n;
        int plen = k ? (int)s.v[k - 1].end : 0;
        json_t *next;
        if (json_is_object(cur)) {
            if (last) {
                json_object_set_new(cur, g->text, value);
                value = NULL;
                break;
            }
            next = json_object_get(cur, g->text);
            if (!next || json_is_null(next)) {
                next = json_object();
                json_object_set_new(cur, g->text, next);
            }
        } else if (json_is_array(cur)) {
            if (!g->is_index) {
                nd_status_set(st, "Invalid", NULL,
                              "cannot set \"%s\": %.*s is an array and %s%s%s is not an index",
                              path, plen, path, g->bracket ? "[" : "", g->text,
                              g->bracket ? "]" : "");
                goto out;
            }
            size_t n = json_array_size(cur);
            if (g->index >= n) {
                nd_status_set(st, "Invalid", NULL,
                              "cannot set \"%s\": index %zu is past the end of %.*s (size %zu)",
                              path, g->index, plen, path, n);
                goto out;
            }
            if (last) {
                json_array_set_new(cur, g->index, value);
                value = NULL;
                break;
            }
            next = json_array_get(cur, g->index);
            if (json_is_null(next)) {
                json_array_set_new(cur, g->index, json_object());
                next = json_array_get(cur, g->index);
            }
        } else {
            nd_status_set(st, "Invalid", NULL, "cannot set \"%s\": %.*s is %s, not an object", path,
                          plen, path, nd_json_type_phrase(cur));
            goto out;
        }
        cur = next;
    }
    rc = 0;
out:
    json_decref(value);
    segs_release(&s);
    return rc;
}

int nd_obj_del(json_t *obj, const char *path)
{
    struct segs s = {0};
    if (parse(path, &s, NULL) < 0)
        return -1;
    int rc = 1;
    json_t *parent = obj;
    for (size_t i = 0; parent && i + 1 < s.n; i++)
        parent = step(parent, &s.v[i]);
    const struct seg *g = &s.v[s.n - 1];
    if (json_is_object(parent)) {
        rc = json_object_del(parent, g->text) == 0 ? 0 : 1;
    } else if (json_is_array(parent) && g->is_index && g->index < json_array_size(parent)) {
        json_array_remove(parent, g->index);
        rc = 0;
    }
    segs_release(&s);
    return rc;
}

bool nd_json_equal(const json_t *a, const json_t *b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_OBJECT: {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *key;
        const json_t *av;
        json_object_foreach((json_t *)a, key, av)
        {
            if (!nd_json_equal(av, json_object_get(b, key)))
                return false;
        }
        return true;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!nd_json_equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    default: /* true, false, null: the type is the value */
        return true;
    }
}

static void push_path(json_t *out, char *path)
{
    json_array_append_new(out, json_string(path));
    free(path);
}

static void diff_into(json_t *out, const char *path, const json_t *a, const json_t *b)
{
    if (json_is_object(a) && json_is_object(b)) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)a, key, v)
        {
            char *child = nd_field_path_append_key(path, key);
            const json_t *bv = json_object_get(b, key);
            if (bv)
                diff_into(out, child, v, bv);
            else
                json_array_append_new(out, json_string(child));
            free(child);
        }
        json_object_foreach((json_t *)b, key, v)
        {
            if (!json_object_get(a, key))
                push_path(out, nd_field_path_append_key(path, key));
        }
        return;
    }
    if (json_is_array(a) && json_is_array(b)) {
        size_t na = json_array_size(a), nb = json_array_size(b);
        size_t n = na < nb ? na : nb, max = na < nb ? nb : na;
        for (size_t i = 0; i < n; i++) {
            char *child = nd_field_path_append_index(path, i);
            diff_into(out, child, json_array_get(a, i), json_array_get(b, i));
            free(child);
        }
        for (size_t i = n; i < max; i++)
            push_path(out, nd_field_path_append_index(path, i));
        return;
    }
    if (!nd_json_equal(a, b))
        json_array_append_new(out, json_string(path));
}

json_t *nd_obj_diff(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    diff_into(out, "", a, b);
    return out;
}

static bool plain_identifier(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (s++; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

char *nd_field_path_append_key(const char *base, const char *key)
{
    struct nd_buf b = ND_BUF_INIT;
    bool root = !base || !*base;
    if (!root)
        nd_buf_adds(&b, base);
    if (plain_identifier(key))
        nd_buf_addf(&b, "%s%s", root ? "" : ".", key);
    else
        nd_buf_addf(&b, "[%s]", key);
    return nd_buf_detach(&b);
}

char *nd_field_path_append_index(const char *base, size_t i)
{
    return nd_xasprintf("%s[%zu]", base ? base : "", i);
}

json_t *nd_obj_diff_atomic(const json_t *a, const json_t *b)
{
    json_t *raw = nd_obj_diff(a, b);
    json_t *out = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(raw, i, p) {
        const char *s = json_string_value(p);
        size_t n = 0;
        /* an index is "[" followed by a digit; "[key]" names a map member */
        while (s[n] && !(s[n] == '[' && s[n + 1] >= '0' && s[n + 1] <= '9'))
            n++;
        json_t *cut = json_stringn(s, n);
        size_t len = json_array_size(out);
        if (len && json_equal(json_array_get(out, len - 1), cut))
            json_decref(cut);
        else
            json_array_append_new(out, cut);
    }
    json_decref(raw);
    return out;
}

void nd_json_array_add_unique(json_t *arr, json_t *v)
{
    size_t i;
    json_t *w;
    json_array_foreach(arr, i, w) {
        if (json_equal(w, v))
            return;
    }
    json_array_append(arr, v);
}
