/* RFC 7386 JSON merge patch: applying one. */
#include "patch/patch.h"

/* Merges the object patch into the object out, in place. Members keep their place in
 * out; new members are appended in the patch's order. */
static void merge_into(json_t *out, const json_t *patch)
{
    const char *key;
    json_t *pv;
    json_object_foreach((json_t *)patch, key, pv)
    {
        if (json_is_null(pv)) {
            json_object_del(out, key);
        } else if (json_is_object(pv)) {
            json_t *cur = json_object_get(out, key);
            if (!json_is_object(cur)) {
                /* RFC 7386: a target that is not an object becomes {} first. */
                cur = json_object();
                json_object_set_new(out, key, cur);
            }
            merge_into(cur, pv);
        } else {
            json_object_set_new(out, key, json_deep_copy(pv));
        }
    }
}

json_t *nd_merge_patch_apply(const json_t *target, const json_t *patch)
{
    if (!patch)
        return target ? json_deep_copy(target) : json_null();
    if (!json_is_object(patch))
        return json_deep_copy(patch);
    json_t *out = json_is_object(target) ? json_deep_copy(target) : json_object();
    merge_into(out, patch);
    return out;
}
