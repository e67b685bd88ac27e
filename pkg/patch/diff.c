/* Creating merge patches: the two-way diff and kubectl's three-way apply patch. */
#include <stdbool.h>

#include "kinds/object.h"
#include "patch/patch.h"

/* The merge patch between two objects (evanphx/json-patch's CreateMergePatch). */
static json_t *diff_objects(const json_t *from, const json_t *to)
{
    json_t *out = json_object();
    const char *key;
    json_t *tv;
    json_object_foreach((json_t *)to, key, tv)
    {
        const json_t *fv = json_object_get(from, key);
        if (json_is_object(fv) && json_is_object(tv)) {
            json_t *sub = diff_objects(fv, tv);
            if (json_object_size(sub))
                json_object_set_new(out, key, sub);
            else
                json_decref(sub);
        } else if (!fv || !nd_json_equal(fv, tv)) {
            json_object_set_new(out, key, json_deep_copy(tv));
        }
    }
    json_t *fv;
    json_object_foreach((json_t *)from, key, fv)
    {
        if (!json_object_get(to, key))
            json_object_set_new(out, key, json_null());
    }
    return out;
}

json_t *nd_merge_patch_create(const json_t *from, const json_t *to)
{
    if (json_is_object(from) && json_is_object(to))
        return diff_objects(from, to);
    return to ? json_deep_copy(to) : json_null();
}

/* A copy of patch keeping only its nulls (deletions) or only its other values
 * (additions and changes), recursively through objects; sub-objects left empty by the
 * filter are dropped, while an object that was empty in the patch is a value (set by
 * the user) and stays with the additions. As apimachinery's keepOrDeleteNullInObj. */
static json_t *filter_nulls(const json_t *patch, bool keep_null)
{
    json_t *out = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)patch, key, v)
    {
        if (json_is_null(v)) {
            if (keep_null)
                json_object_set_new(out, key, json_null());
        } else if (json_is_object(v) && json_object_size(v) == 0) {
            if (!keep_null)
                json_object_set_new(out, key, json_object());
        } else if (json_is_object(v)) {
            json_t *sub = filter_nulls(v, keep_null);
            if (json_object_size(sub))
                json_object_set_new(out, key, sub);
            else
                json_decref(sub);
        } else if (!keep_null) {
            json_object_set_new(out, key, json_deep_copy(v));
        }
    }
    return out;
}

static int check_object(const json_t *v, const char *what, struct nd_status *st)
{
    if (!v || json_is_object(v))
        return 0;
    return nd_status_set(st, "BadRequest", NULL,
                         "three-way merge: the %s configuration must be an object", what);
}

json_t *nd_merge_patch_three_way(const json_t *original, const json_t *modified,
                                 const json_t *current, struct nd_status *st)
{
    if (check_object(original, "original (last-applied)", st) < 0 ||
        check_object(modified, "modified", st) < 0 || check_object(current, "current", st) < 0)
        return NULL;
    json_t *empty = json_object();
    if (!original)
        original = empty;
    if (!modified)
        modified = empty;
    if (!current)
        current = empty;

    json_t *changes = diff_objects(current, modified);
    json_t *additions = filter_nulls(changes, false);
    json_decref(changes);
    changes = diff_objects(original, modified);
    json_t *patch = filter_nulls(changes, true);
    json_decref(changes);
    json_decref(empty);

    /* apimachinery checks the two halves for conflicts before merging them; none can
     * occur: a deletion of k needs k absent from modified, an addition of k needs it
     * present, and where both go through k both are objects. So a plain merge is the
     * union. */
    json_t *merged = nd_merge_patch_apply(patch, additions);
    json_decref(patch);
    json_decref(additions);

    /* kubectl apply's preconditions: the patch may not change what identifies the
     * object. */
    static const char *const fixed[] = {"apiVersion", "kind", "metadata.name"};
    bool changed = false;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (!nd_obj_get(merged, fixed[i]))
            continue;
        if (!changed)
            nd_status_set(st, "Invalid", NULL,
                          "At least one of apiVersion, kind and name was changed");
        changed = true;
        nd_status_add_cause(st, "FieldValueInvalid", fixed[i], "%s may not change in an apply",
                            fixed[i]);
    }
    if (changed) {
        json_decref(merged);
        return NULL;
    }
    return merged;
}
