/* defaults.c: Kubernetes' structural defaulting and pruning of nulls. */
#include "kinds/schema.h"

#include <string.h>

static void apply(const json_t *schema, json_t *v);

static bool nullable(const json_t *schema)
{
    return json_is_true(json_object_get(schema, "nullable"));
}

static void apply_object(const json_t *schema, json_t *obj)
{
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    const char *key;
    json_t *member;
    void *tmp;
    /* prune nulls the schema does not allow, so they are defaulted like absent members */
    json_object_foreach_safe(obj, tmp, key, member)
    {
        const json_t *ps = json_object_get(props, key);
        if (!ps && json_is_object(extra))
            ps = extra;
        ps = nd_schema_deref(ps);
        if (ps && json_is_null(member) && !nullable(ps))
            json_object_del(obj, key);
    }
    json_object_foreach((json_t *)props, key, member)
    {
        const json_t *ps = nd_schema_deref(member);
        const json_t *def = json_object_get(ps, "default");
        if (def && !json_object_get(obj, key))
            json_object_set_new(obj, key, json_deep_copy(def));
    }
    json_object_foreach(obj, key, member)
    {
        const json_t *ps = json_object_get(props, key);
        if (!ps && json_is_object(extra))
            ps = extra;
        if (ps)
            apply(ps, member);
    }
}

static void apply(const json_t *schema, json_t *v)
{
    schema = nd_schema_deref(schema);
    if (!schema)
        return;
    if (json_is_object(v)) {
        apply_object(schema, v);
    } else if (json_is_array(v)) {
        const json_t *items = json_object_get(schema, "items");
        size_t i;
        json_t *e;
        if (items)
            json_array_foreach(v, i, e) apply(items, e);
    }
}

void nd_kind_default(const struct nd_kind *k, json_t *obj)
{
    const json_t *schema = nd_kind_schema(k);
    if (schema && json_is_object(obj))
        apply(schema, obj);
}
