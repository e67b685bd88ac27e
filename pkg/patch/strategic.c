/* Strategic merge patch: applying one (strategic.h). The work is done on copies of
 * target and patch: an object merges in place, a patch's members are removed as they
 * are consumed (the directives of a member before the member itself). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "json/json.h"
#include "patch/strategic.h"
#include "util/xmalloc.h"

#define DIRECTIVE   "$patch"
#define RETAIN      "$retainKeys"
#define ORDER       "$setElementOrder"
#define DELETE_FROM "$deleteFromPrimitiveList"
#define PATH_CAP    256

#define FIX_DIRECTIVE                                                                              \
    "correct the patch: a strategic merge patch takes $patch (replace or delete), "                \
    "$retainKeys, $setElementOrder/LIST and $deleteFromPrimitiveList/LIST; or send a merge "       \
    "patch: nodus patch KIND NAME --type merge -p PATCH"

const struct nd_smp_field nd_smp_object_meta[] = {
    {"metadata.finalizers", ND_SMP_MERGE, NULL},
    {"metadata.ownerReferences", ND_SMP_MERGE, "uid"},
    {"metadata.managedFields", ND_SMP_REPLACE, NULL},
    {NULL, 0, NULL},
};

struct smp {
    const struct nd_smp_field *fields;
    size_t steps, max_steps;
    struct nd_status *st;
};

static json_t *merge_map(struct smp *s, json_t *orig, json_t *patch, const char *path);
static json_t *merge_list(struct smp *s, json_t *orig, json_t *patch, const char *path,
                          bool deleting);

/* The strategy of the field at path: the kind's, then ObjectMeta's; none: {0}. */
static const struct nd_smp_field *field_at(const struct smp *s, const char *path)
{
    static const struct nd_smp_field none = {"", 0, NULL};
    const struct nd_smp_field *tables[] = {s->fields, nd_smp_object_meta};
    for (size_t t = 0; t < 2; t++)
        for (const struct nd_smp_field *f = tables[t]; f && f->path; f++)
            if (strcmp(f->path, path) == 0)
                return f;
    return &none;
}

/* path.key into out (PATH_CAP bytes); a path too long for any table gets "\1". */
static void join(char *out, const char *path, const char *key)
{
    int n = snprintf(out, PATH_CAP, "%s%s%s", path, *path ? "." : "", key);
    if (n < 0 || n >= PATH_CAP)
        memcpy(out, "\1", 2);
}

/* Compact JSON of v, for a message (free it). */
static char *text(const json_t *v)
{
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    return t ? t : nd_xstrdup("?");
}

/* Records st and returns -1 once the work passes max_steps. */
static int spend(struct smp *s, size_t n)
{
    s->steps += n;
    if (s->max_steps && s->steps > s->max_steps)
        return nd_status_set(s->st, "Invalid", "send a smaller patch, or patch fewer elements",
                             "the strategic merge patch would take more than %zu steps "
                             "(list elements compared)",
                             s->max_steps);
    return 0;
}

static int bad(struct smp *s, const char *what, const json_t *v)
{
    char *t = v ? text(v) : NULL;
    nd_status_set(s->st, "BadRequest", FIX_DIRECTIVE, "%s%s%s", what, t ? ": " : "", t ? t : "");
    free(t);
    return -1;
}

static int no_merge_key(struct smp *s, const json_t *elem, const char *key)
{
    char *t = text(elem);
    nd_status_set(s->st, "BadRequest", "give every element of the list its merge key",
                  "map: %s does not contain declared merge key: %s", t, key);
    free(t);
    return -1;
}

/* 'o'bject, 'a'rray, 's'tring, 'n'umber, 'b'oolean or 'z' (null): what Go's decoder
 * makes of a JSON value, which strategic merge compares. */
static char category(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return 'o';
    case JSON_ARRAY:
        return 'a';
    case JSON_STRING:
        return 's';
    case JSON_INTEGER:
    case JSON_REAL:
        return 'n';
    case JSON_TRUE:
    case JSON_FALSE:
        return 'b';
    default:
        return 'z';
    }
}

/* The members a directive with prefix names ("$setElementOrder/finalizers" ->
 * "finalizers"); NULL when key has another prefix; error (st) when it is malformed. */
static int directive_key(struct smp *s, const char *key, const char *prefix, const char **out)
{
    size_t n = strlen(prefix);
    *out = NULL;
    if (strncmp(key, prefix, n) != 0)
        return 0;
    if (key[n] != '/')
        return bad(s,
                   strcmp(prefix, ORDER) == 0 ? "invalid patch format of setElementOrder list"
                                              : "invalid patch format of primitive list",
                   NULL);
    *out = key + n + 1;
    return 0;
}

/* kube's discardNullValuesFromPatch: null members go, through objects and arrays. */
static void drop_nulls(json_t *v)
{
    const char *k;
    json_t *m;
    void *tmp;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach_safe(v, tmp, k, m)
        {
            if (json_is_null(m))
                json_object_del(v, k);
            else
                drop_nulls(m);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, m) drop_nulls(m);
    }
}

/* The patch's value for a place with nothing to merge with, NEW: an object merged into
 * {} (directives applied, nulls gone), a merging list merged into [], anything else as
 * sent without its nulls. */
static json_t *fresh(struct smp *s, json_t *v, const char *path)
{
    json_t *empty = NULL, *out;
    if (json_is_object(v)) {
        empty = json_object();
        out = merge_map(s, empty, v, path);
    } else if (json_is_array(v) && field_at(s, path)->strategy == ND_SMP_MERGE) {
        empty = json_array();
        out = merge_list(s, empty, v, path, false);
    } else {
        drop_nulls(v);
        out = json_incref(v);
    }
    json_decref(empty);
    return out;
}

/* The element's identity: its merge key's value, or itself (key NULL). */
static const json_t *ident(const json_t *e, const char *key)
{
    return key ? json_object_get(e, key) : e;
}

/* Index of an element with e's identity in list, -1 when none, -2 past the budget. */
static long index_of(struct smp *s, const json_t *list, const json_t *e, const char *key)
{
    const json_t *want = ident(e, key);
    if (spend(s, json_array_size(list) + 1) < 0)
        return -2;
    for (size_t i = 0; want && i < json_array_size(list); i++) {
        const json_t *have = ident(json_array_get(list, i), key);
        if (have && nd_json_equal(have, want))
            return (long)i;
    }
    return -1;
}

/* The common category of the elements of a and b (0 when both are empty): lists of
 * lists and mixed lists are refused, as apimachinery does. */
static int element_category(struct smp *s, const json_t *a, const json_t *b, char *out)
{
    const json_t *lists[] = {a, b};
    *out = 0;
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e)
        {
            char c = category(e);
            if (c == 'a')
                return nd_status_set(s->st, "Invalid", "send a list of scalars or objects",
                                     "lists of lists are not supported");
            if (*out && c != *out)
                return bad(s, "list element types are not identical", lists[l]);
            *out = c;
        }
    }
    return 0;
}

/* Every element of the lists has the merge key (when there is one to check). */
static int keys_present(struct smp *s, const json_t *const *lists, size_t n, const char *key)
{
    for (size_t l = 0; key && l < n; l++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e)
        {
            if (!json_is_object(e) || !json_object_get(e, key))
                return no_merge_key(s, e, key);
        }
    }
    return 0;
}

/* Appends each element of list to found (when by has one of its identity) or to missing
 * (either may be NULL: dropped). by may be found or missing itself, growing as it goes. */
static int partition(struct smp *s, const json_t *list, const json_t *by, const char *key,
                     json_t *found, json_t *missing)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        long at = index_of(s, by, e, key);
        if (at == -2)
            return -1;
        json_t *to = at >= 0 ? found : missing;
        if (to)
            json_array_append(to, e);
    }
    return 0;
}

struct ranked {
    long rank;
    size_t pos;
    json_t *v;
};

static int by_rank(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The elements of list ordered as in order (stably; those order lacks last), each with
 * its index in server (-1: absent). NEW array of n elements, or NULL past the budget. */
static struct ranked *rank(struct smp *s, const json_t *list, const json_t *order,
                           const json_t *server, const char *key)
{
    size_t n = json_array_size(list);
    struct ranked *r = nd_xcalloc(n + 1, sizeof *r);
    for (size_t i = 0; i < n; i++) {
        r[i].v = json_array_get(list, i);
        r[i].pos = i;
        long at = index_of(s, order, r[i].v, key);
        if (at == -2)
            goto fail;
        r[i].rank = at < 0 ? LONG_MAX : at;
    }
    qsort(r, n, sizeof *r, by_rank);
    for (size_t i = 0; i < n; i++) {
        long at = index_of(s, server, r[i].v, key);
        if (at == -2)
            goto fail;
        r[i].rank = at;
    }
    return r;
fail:
    free(r);
    return NULL;
}

/* apimachinery's ordering of a merged list, NEW: the elements present in patch_order in
 * its order, the others in server's order, and the two interleaved where server orders
 * both (a patch's element first when server does not know it). */
static json_t *ordered(struct smp *s, const json_t *merged, const json_t *patch_order,
                       const json_t *server, const char *key)
{
    const json_t *lists[] = {merged, patch_order};
    if (keys_present(s, lists, 2, key) < 0)
        return NULL;
    json_t *mine = json_array(), *theirs = json_array(), *out = NULL;
    struct ranked *left = NULL, *right = NULL;
    if (partition(s, merged, patch_order, key, mine, theirs) < 0)
        goto out;
    left = rank(s, theirs, server, server, key);
    right = left ? rank(s, mine, patch_order, server, key) : NULL;
    if (!right)
        goto out;
    size_t nl = json_array_size(theirs), nr = json_array_size(mine), a = 0, b = 0;
    out = json_array();
    while (a < nl || b < nr) {
        bool take_left = b >= nr || (a < nl && left[a].rank >= 0 && right[b].rank >= 0 &&
                                     left[a].rank < right[b].rank);
        json_array_append(out, take_left ? left[a++].v : right[b++].v);
    }
out:
    free(left);
    free(right);
    json_decref(mine);
    json_decref(theirs);
    return out;
}

/* orig without the values of del, NEW ($deleteFromPrimitiveList). */
static json_t *without(struct smp *s, const json_t *orig, const json_t *del)
{
    json_t *out = json_array();
    if (partition(s, orig, del, NULL, NULL, out) < 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* Applies the directive elements of a merging list of objects: *base becomes orig
 * without the deleted elements (or the patch's other elements, for "$patch": "replace"),
 * *items the patch's other elements (none after a replace). Both NEW. */
static int specials(struct smp *s, json_t *orig, json_t *patch, const char *key, const char *path,
                    json_t **base, json_t **items)
{
    json_t *rest = json_array(), *kept = json_copy(orig);
    bool replace = false;
    size_t i;
    json_t *e;
    json_array_foreach(patch, i, e)
    {
        const json_t *d = json_object_get(e, DIRECTIVE);
        const char *t = json_string_value(d);
        if (!d) {
            json_array_append(rest, e);
        } else if (t && strcmp(t, "delete") == 0) {
            if (!json_object_get(e, key)) {
                no_merge_key(s, e, key);
                goto fail;
            }
            long at;
            while ((at = index_of(s, kept, e, key)) >= 0)
                json_array_remove(kept, (size_t)at);
            if (at == -2)
                goto fail;
        } else if (t && strcmp(t, "replace") == 0) {
            replace = true;
        } else if (t && strcmp(t, "merge") == 0) {
            bad(s, "merging lists cannot yet be specified in the patch", NULL);
            goto fail;
        } else {
            bad(s, "unknown patch type in a list element", e);
            goto fail;
        }
    }
    if (replace) {
        json_array_clear(kept);
        json_array_foreach(rest, i, e)
        {
            json_t *v = fresh(s, e, path);
            if (!v)
                goto fail;
            json_array_append_new(kept, v);
        }
        json_array_clear(rest);
    }
    *base = kept;
    *items = rest;
    return 0;
fail:
    json_decref(rest);
    json_decref(kept);
    return -1;
}

/* base with each of items merged into the element of the same key, or appended. NEW. */
static json_t *merge_items(struct smp *s, const json_t *base, json_t *items, const char *key,
                           const char *path)
{
    json_t *out = json_copy((json_t *)base);
    size_t i;
    json_t *e;
    json_array_foreach(items, i, e)
    {
        if (!json_object_get(e, key)) {
            no_merge_key(s, e, key);
            goto fail;
        }
        long at = index_of(s, out, e, key);
        if (at == -2)
            goto fail;
        json_t *v =
            at >= 0 ? merge_map(s, json_array_get(out, (size_t)at), e, path) : fresh(s, e, path);
        if (!v)
            goto fail;
        if (at >= 0)
            json_array_set_new(out, (size_t)at, v);
        else
            json_array_append_new(out, v);
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

/* A merging list: scalars by value (deleting: the values of patch removed), objects by
 * the field's merge key; then ordered. NEW. */
static json_t *merge_list(struct smp *s, json_t *orig, json_t *patch, const char *path,
                          bool deleting)
{
    const char *key = field_at(s, path)->merge_key;
    json_t *base = NULL, *items = NULL, *merged = NULL, *out = NULL;
    char c;
    if (element_category(s, orig, patch, &c) < 0)
        return NULL;
    if (!c)
        return json_array();
    if (c != 'o' && deleting)
        return without(s, orig, patch);
    if (c != 'o') {
        key = NULL;
        base = json_incref(orig);
        items = json_incref(patch);
        merged = json_copy(orig);
        /* each value of patch not there yet, once */
        if (partition(s, patch, merged, NULL, NULL, merged) < 0)
            goto out;
    } else if (!key) {
        bad(s, "cannot merge lists without merge key for type map", NULL);
        goto out;
    } else {
        if (specials(s, orig, patch, key, path, &base, &items) < 0)
            goto out;
        if (!(merged = merge_items(s, base, items, key, path)))
            goto out;
    }
    out = ordered(s, merged, items, base, key);
out:
    json_decref(base);
    json_decref(items);
    json_decref(merged);
    return out;
}

/* A list member both sides have: merged when its field says so, else the patch's. */
static json_t *merge_list_field(struct smp *s, json_t *orig, json_t *patch, const char *path,
                                bool deleting)
{
    if (field_at(s, path)->strategy == ND_SMP_MERGE)
        return merge_list(s, orig, patch, path, deleting);
    drop_nulls(patch);
    return json_incref(patch);
}

/* $retainKeys: the members of orig it does not name are cleared; the patch may set
 * only members it names. */
static int retain_keys(struct smp *s, json_t *orig, json_t *patch)
{
    json_t *keep = json_incref(json_object_get(patch, RETAIN));
    const char *k;
    json_t *v;
    void *tmp;
    int rc = -1;
    if (!keep)
        return 0;
    json_object_del(patch, RETAIN);
    if (!json_is_array(keep))
        goto bad;
    json_object_foreach(patch, k, v)
    {
        json_t *name = json_string(k);
        long at = json_is_null(v) || strncmp(k, DELETE_FROM, strlen(DELETE_FROM)) == 0 ||
                          strncmp(k, ORDER, strlen(ORDER)) == 0
                      ? 0
                      : index_of(s, keep, name, NULL);
        json_decref(name);
        if (at == -2)
            goto out;
        if (at == -1)
            goto bad;
    }
    json_object_foreach_safe(orig, tmp, k, v)
    {
        json_t *name = json_string(k);
        long at = index_of(s, keep, name, NULL);
        json_decref(name);
        if (at == -2)
            goto out;
        if (at == -1)
            json_object_del(orig, k);
    }
    rc = 0;
    goto out;
bad:
    bad(s, "invalid patch format of retainKeys", NULL);
out:
    json_decref(keep);
    return rc;
}

/* The patch's list keeps the relative order of $setElementOrder (deletions aside). */
static int check_order(struct smp *s, const json_t *list, const json_t *order, const char *key)
{
    size_t p = 0, o = 0, n = json_array_size(list), m = json_array_size(order);
    if (!n || !m)
        return 0;
    while (p < n && o < m) {
        const json_t *e = json_array_get(list, p);
        const char *d = json_string_value(json_object_get(e, DIRECTIVE));
        if (key && !json_is_object(e))
            return bad(s, "expected a map in the patch list", e);
        if (d || (key && json_object_get(e, DIRECTIVE))) {
            p++;
            continue;
        }
        if (spend(s, 1) < 0)
            return -1;
        const json_t *want = json_array_get(order, o);
        if (key && (!json_object_get(e, key) || !json_object_get(want, key)))
            return no_merge_key(s, json_object_get(e, key) ? want : e, key);
        if (nd_json_equal(ident(e, key), ident(want, key)))
            p++;
        o++;
    }
    if (p < n && o >= m) {
        char *a = text(list), *b = text(order);
        nd_status_set(s->st, "BadRequest", FIX_DIRECTIVE,
                      "The order in patch list: %s doesn't match $setElementOrder list: %s", a, b);
        free(a);
        free(b);
        return -1;
    }
    return 0;
}

/* One $setElementOrder/NAME: NAME merged now and put in that order. */
static int set_order(struct smp *s, json_t *orig, json_t *patch, const char *name,
                     const json_t *order, const char *path)
{
    char sub[PATH_CAP];
    json_t *ol = json_object_get(orig, name), *pl = json_object_get(patch, name);
    json_t *merged = NULL, *out = NULL;
    char c;
    if (!json_is_array(order) || (ol && !json_is_array(ol)) || (pl && !json_is_array(pl)))
        return bad(s, "invalid patch format of setElementOrder list", order);
    join(sub, path, name);
    const char *key = field_at(s, sub)->merge_key;
    if (check_order(s, pl, order, key) < 0)
        return -1;
    if (!ol && !pl)
        return 0;
    if (element_category(s, ol, pl, &c) < 0)
        return -1;
    merged = ol && pl ? merge_list_field(s, ol, pl, sub, false)
             : ol     ? json_incref(ol)
                      : fresh(s, pl, sub);
    if (!merged)
        return -1;
    out = c ? ordered(s, merged, order, ol, c == 'o' ? key : NULL) : json_incref(merged);
    json_decref(merged);
    if (!out)
        return -1;
    json_object_set_new(orig, name, out);
    json_object_del(patch, name);
    return 0;
}

/* Every $setElementOrder/NAME of patch, consumed with its list. */
static int set_orders(struct smp *s, json_t *orig, json_t *patch, const char *path)
{
    json_t *names = json_array();
    const char *k, *name;
    json_t *v;
    int rc = -1;
    json_object_foreach(patch, k, v)
    {
        if (directive_key(s, k, ORDER, &name) < 0)
            goto out;
        if (name)
            json_array_append_new(names, json_string(k));
    }
    size_t i;
    json_array_foreach(names, i, v)
    {
        k = json_string_value(v);
        json_t *order = json_incref(json_object_get(patch, k));
        json_object_del(patch, k);
        int r = set_order(s, orig, patch, k + strlen(ORDER) + 1, order, path);
        json_decref(order);
        if (r < 0)
            goto out;
    }
    rc = 0;
out:
    json_decref(names);
    return rc;
}

/* One member of patch into orig. */
static int merge_member(struct smp *s, json_t *orig, const char *key, json_t *pv, const char *path)
{
    const char *name;
    if (directive_key(s, key, DELETE_FROM, &name) < 0)
        return -1;
    bool deleting = name != NULL;
    if (!name)
        name = key;
    if (json_is_null(pv)) {
        json_object_del(orig, name);
        return 0;
    }
    char sub[PATH_CAP];
    join(sub, path, name);
    json_t *ov = json_object_get(orig, name), *nv;
    if (!ov || category(ov) != category(pv)) {
        if (deleting)
            return 0;
        nv = fresh(s, pv, sub);
    } else if (json_is_object(ov)) {
        nv = field_at(s, sub)->strategy == ND_SMP_REPLACE ? fresh(s, pv, sub)
                                                          : merge_map(s, ov, pv, sub);
    } else if (json_is_array(ov)) {
        nv = merge_list_field(s, ov, pv, sub, deleting);
    } else {
        nv = json_incref(pv);
    }
    if (!nv)
        return -1;
    json_object_set_new(orig, name, nv);
    return 0;
}

/* patch merged into orig (modified in place), NEW reference to the result (orig, or
 * another object for a "$patch" directive). */
static json_t *merge_map(struct smp *s, json_t *orig, json_t *patch, const char *path)
{
    const json_t *d = json_object_get(patch, DIRECTIVE);
    if (d) {
        const char *t = json_string_value(d);
        if (t && strcmp(t, "delete") == 0)
            return json_object();
        if (!t || strcmp(t, "replace") != 0) {
            bad(s, "unknown patch type in map", patch);
            return NULL;
        }
        json_object_del(patch, DIRECTIVE);
        json_t *empty = json_object(), *out = merge_map(s, empty, patch, path);
        json_decref(empty);
        return out;
    }
    if (retain_keys(s, orig, patch) < 0 || set_orders(s, orig, patch, path) < 0)
        return NULL;
    const char *key;
    json_t *pv;
    json_object_foreach(patch, key, pv)
    {
        if (merge_member(s, orig, key, pv, path) < 0)
            return NULL;
    }
    return json_incref(orig);
}

json_t *nd_strategic_patch_apply(const json_t *target, const json_t *patch,
                                 const struct nd_smp_field *fields,
                                 const struct nd_patch_limits *lim, struct nd_status *st)
{
    if (!json_is_object(patch)) {
        nd_status_set(st, "BadRequest", "send a JSON object as the patch",
                      "a strategic merge patch must be a JSON object, not %s",
                      nd_json_type_phrase(patch));
        return NULL;
    }
    struct smp s = {fields, 0, lim ? lim->max_steps : 0, st};
    json_t *orig = json_is_object(target) ? json_deep_copy(target) : json_object();
    json_t *p = json_deep_copy(patch);
    json_t *out = merge_map(&s, orig, p, "");
    json_decref(orig);
    json_decref(p);
    return out;
}
