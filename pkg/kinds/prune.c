/* prune.c: dropping the fields a kind's schema does not know, as kube-apiserver prunes
 * custom resources with a structural schema. */
#include "kinds/schema.h"

static void prune(const json_t *schema, json_t *v)
{
    schema = nd_schema_deref(schema);
    if (!schema || json_is_true(json_object_get(schema, "x-kubernetes-preserve-unknown-fields")))
        return;
    if (json_is_array(v)) {
        const json_t *items = json_object_get(schema, "items");
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) prune(items, e);
        return;
    }
    if (!json_is_object(v))
        return;
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    const char *key;
    json_t *member;
    void *tmp;
    json_object_foreach_safe(v, tmp, key, member) {
        const json_t *ps = json_object_get(props, key);
        if (ps)
            prune(ps, member);
        else if (json_is_object(extra) && json_object_size(extra))
            prune(extra, member);
        else if (!json_is_true(extra) && !json_is_object(extra))
            json_object_del(v, key);
    }
}

void nd_kind_prune(const struct nd_kind *k, json_t *obj)
{
    const json_t *schema = nd_kind_schema(k);
    if (schema)
        prune(schema, obj);
}
