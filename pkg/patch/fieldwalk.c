/* fieldwalk.c: field sets built from objects: which fields are tracked, the set an
 * apply configuration sets (ToFieldSet), and what changed between two objects (Compare). */
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "patch/ssa_int.h"

/* System metadata: set by the server, never owned by a manager. */
static const char *const system_meta[] = {
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
    "generateName",
};

bool nd_ssa_tracked(enum nd_ssa_level l, const char *key, const char *subresource)
{
    if (l == ND_SSA_ROOT) {
        if (subresource && *subresource)
            return strcmp(key, subresource) == 0;
        return strcmp(key, "apiVersion") != 0 && strcmp(key, "kind") != 0 &&
               strcmp(key, "status") != 0;
    }
    if (l == ND_SSA_META)
        for (size_t i = 0; i < sizeof system_meta / sizeof system_meta[0]; i++)
            if (strcmp(key, system_meta[i]) == 0)
                return false;
    return true;
}

enum nd_ssa_level nd_ssa_level_next(enum nd_ssa_level l, const char *key)
{
    return l == ND_SSA_ROOT && strcmp(key, "metadata") == 0 ? ND_SSA_META : ND_SSA_INNER;
}

bool nd_ssa_is_set_list(enum nd_ssa_level l, const char *key)
{
    return l == ND_SSA_META && strcmp(key, "finalizers") == 0;
}

bool nd_ssa_never_member(enum nd_ssa_level l, const char *key)
{
    return l == ND_SSA_ROOT && strcmp(key, "metadata") == 0;
}

/* The child f:<key> of s, added when absent. */
static struct nd_fieldset *fchild(struct nd_fieldset *s, const char *key)
{
    char *fk = nd_fieldset_fkey(key);
    struct nd_fieldset *k = nd_fieldset_child_add(s, fk);
    free(fk);
    return k;
}

static void add_item(struct nd_fieldset *k, const json_t *item)
{
    char *vk = nd_fieldset_vkey(item);
    nd_fieldset_child_add(k, vk)->member = true;
    free(vk);
}

/* ---- ToFieldSet ---- */

static void walk_apply(struct nd_fieldset *s, const json_t *obj, enum nd_ssa_level l,
                       const char *sub)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        if (!nd_ssa_tracked(l, key, sub))
            continue;
        struct nd_fieldset *k = fchild(s, key);
        if (nd_ssa_is_set_list(l, key) && json_is_array(v)) {
            size_t i;
            json_t *item;
            json_array_foreach(v, i, item) add_item(k, item);
        } else if (json_is_object(v)) {
            /* An object is not a member itself: only what it holds (an empty one sets
             * nothing), as for a struct field in structured-merge-diff. */
            walk_apply(k, v, nd_ssa_level_next(l, key), sub);
        } else if (!nd_ssa_never_member(l, key)) {
            k->member = true;
        }
    }
}

struct nd_fieldset *nd_fieldset_from_object(const json_t *obj, const char *subresource)
{
    struct nd_fieldset *s = nd_fieldset_new();
    if (json_is_object(obj))
        walk_apply(s, obj, ND_SSA_ROOT, subresource);
    nd_fieldset_compact(s);
    return s;
}

/* ---- Compare ---- */

struct diff {
    struct nd_fieldset *a, *m, *r;
};

static void mark(struct nd_fieldset *s, const char *key, const json_t *v, enum nd_ssa_level l,
                 const char *sub);

/* Marks everything inside v (the value of key at level l) under k. */
static void mark_inside(struct nd_fieldset *k, const char *key, const json_t *v,
                        enum nd_ssa_level l, const char *sub)
{
    if (nd_ssa_is_set_list(l, key) && json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) add_item(k, item);
    } else if (json_is_object(v)) {
        enum nd_ssa_level nl = nd_ssa_level_next(l, key);
        const char *kk;
        json_t *vv;
        json_object_foreach((json_t *)v, kk, vv)
        {
            if (nd_ssa_tracked(nl, kk, sub))
                mark(k, kk, vv, nl, sub);
        }
    }
}

/* Marks key (a member unless it never is) and everything inside its value. */
static void mark(struct nd_fieldset *s, const char *key, const json_t *v, enum nd_ssa_level l,
                 const char *sub)
{
    struct nd_fieldset *k = fchild(s, key);
    if (!nd_ssa_never_member(l, key))
        k->member = true;
    mark_inside(k, key, v, l, sub);
}

static bool has_item(const json_t *arr, const json_t *item)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
    {
        if (nd_json_equal(x, item))
            return true;
    }
    return false;
}

static void cmp_obj(struct diff *d, const json_t *a, const json_t *b, enum nd_ssa_level l,
                    const char *sub);

static void cmp_val(struct diff *d, const char *key, const json_t *av, const json_t *bv,
                    enum nd_ssa_level l, const char *sub)
{
    struct diff k = {fchild(d->a, key), fchild(d->m, key), fchild(d->r, key)};
    if (json_is_object(av) && json_is_object(bv)) {
        cmp_obj(&k, av, bv, nd_ssa_level_next(l, key), sub);
    } else if (nd_ssa_is_set_list(l, key) && json_is_array(av) && json_is_array(bv)) {
        size_t i;
        json_t *item;
        json_array_foreach(av, i, item)
        {
            if (!has_item(bv, item))
                add_item(k.r, item);
        }
        json_array_foreach(bv, i, item)
        {
            if (!has_item(av, item))
                add_item(k.a, item);
        }
    } else if (!nd_json_equal(av, bv)) {
        if (!nd_ssa_never_member(l, key))
            k.m->member = true;
        /* A value whose type changed: what was inside is gone, what is inside is new. */
        mark_inside(k.r, key, av, l, sub);
        mark_inside(k.a, key, bv, l, sub);
    }
}

static void cmp_obj(struct diff *d, const json_t *a, const json_t *b, enum nd_ssa_level l,
                    const char *sub)
{
    const char *key;
    json_t *v;
    if (a) {
        json_object_foreach((json_t *)a, key, v)
        {
            if (!nd_ssa_tracked(l, key, sub))
                continue;
            const json_t *bv = b ? json_object_get(b, key) : NULL;
            if (bv)
                cmp_val(d, key, v, bv, l, sub);
            else
                mark(d->r, key, v, l, sub);
        }
    }
    if (b) {
        json_object_foreach((json_t *)b, key, v)
        {
            if (nd_ssa_tracked(l, key, sub) && !(a && json_object_get(a, key)))
                mark(d->a, key, v, l, sub);
        }
    }
}

void nd_fieldset_compare(const json_t *old_obj, const json_t *new_obj, const char *subresource,
                         struct nd_fieldset **added, struct nd_fieldset **modified,
                         struct nd_fieldset **removed)
{
    struct diff d = {nd_fieldset_new(), nd_fieldset_new(), nd_fieldset_new()};
    cmp_obj(&d, json_is_object(old_obj) ? old_obj : NULL, json_is_object(new_obj) ? new_obj : NULL,
            ND_SSA_ROOT, subresource);
    nd_fieldset_compact(d.a);
    nd_fieldset_compact(d.m);
    nd_fieldset_compact(d.r);
    *added = d.a;
    *modified = d.m;
    *removed = d.r;
}
