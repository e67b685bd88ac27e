/* validate_extra.c: per-kind rules beyond the schemas. */
#include "kinds/validate_extra.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/formats.h"
#include "kinds/schema.h"
#include "util/buf.h"
#include "util/validate.h"
#include "util/xmalloc.h"

/* "<base>.<name>" or "<base>[<i>]..." built into a reusable buffer. */
static const char *path(struct nd_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *path(struct nd_buf *b, const char *fmt, ...)
{
    va_list ap;
    nd_buf_reset(b);
    va_start(ap, fmt);
    nd_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return b->data;
}

/* Reports the second and later elements of arr whose member `key` repeats an earlier one. */
static void unique_member(const json_t *arr, const char *key, const char *base,
                          struct nd_field_errors *errs)
{
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_object_get(json_array_get(arr, i), key);
        if (!v || json_is_null(v))
            continue;
        for (size_t j = 0; j < i; j++) {
            if (json_equal(v, json_object_get(json_array_get(arr, j), key))) {
                nd_field_errors_duplicate(errs, path(&p, "%s[%zu].%s", base, i, key), v);
                break;
            }
        }
    }
    nd_buf_release(&p);
}

void nd_validate_job_spec(const json_t *spec, const char *base, struct nd_field_errors *errs)
{
    struct nd_buf p = ND_BUF_INIT;
    const json_t *vols = json_object_get(spec, "volumes");
    if (json_is_array(vols)) {
        path(&p, "%s.volumes", base);
        unique_member(vols, "name", p.data, errs);
        unique_member(vols, "mountPath", p.data, errs);
    }
    nd_buf_release(&p);
}

void nd_validate_job(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    (void)k;
    const json_t *spec = json_object_get(obj, "spec");
    if (json_is_object(spec))
        nd_validate_job_spec(spec, "spec", errs);
}

void nd_validate_sandbox(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    (void)k;
    const json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        return;
    nd_validate_job_spec(spec, "spec", errs);
    const json_t *ports = json_object_get(spec, "ports");
    if (json_is_array(ports)) {
        unique_member(ports, "name", "spec.ports", errs);
        unique_member(ports, "port", "spec.ports", errs);
    }
}

/* An integer member, or the schema's default for it when absent. */
static json_int_t int_or_default(const struct nd_kind *k, const json_t *obj, const char *field,
                                 bool *known)
{
    const json_t *v = json_object_get(obj, strrchr(field, '.') + 1);
    if (!v) {
        const json_t *s = nd_schema_at(nd_kind_schema(k), field);
        v = json_object_get(s, "default");
    }
    *known = json_is_integer(v);
    return json_integer_value(v);
}

void nd_validate_function(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    const json_t *scaling = json_object_get(json_object_get(obj, "spec"), "scaling");
    if (!json_is_object(scaling))
        return;
    bool kmin, kmax;
    json_int_t min = int_or_default(k, scaling, "spec.scaling.minReplicas", &kmin);
    json_int_t max = int_or_default(k, scaling, "spec.scaling.maxReplicas", &kmax);
    if (kmin && kmax && min > max) {
        json_t *v = json_integer(min);
        nd_field_errors_invalid(errs, "spec.scaling.minReplicas", v,
                                "must be less than or equal to maxReplicas (%lld)", (long long)max);
        json_decref(v);
    }
}

void nd_validate_budget(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    (void)k;
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *th = json_object_get(spec, "thresholds");
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 1; i < json_array_size(th); i++) {
        const json_t *prev = json_array_get(th, i - 1), *cur = json_array_get(th, i);
        if (json_is_integer(prev) && json_is_integer(cur) &&
            json_integer_value(cur) <= json_integer_value(prev))
            nd_field_errors_invalid(errs, path(&p, "spec.thresholds[%zu]", i), cur,
                                    "must be greater than the threshold before it (%lld)",
                                    (long long)json_integer_value(prev));
    }
    const json_t *sel = json_object_get(spec, "selector");
    struct nd_status st = ND_STATUS_INIT;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(sel, "matchLabels"), key, v)
    {
        path(&p, "spec.selector.matchLabels");
        if (!nd_is_label_key(key))
            nd_validate_label_key(key, p.data, &st);
        if (json_is_string(v) && !nd_is_label_value(json_string_value(v)))
            nd_validate_label_value(json_string_value(v), p.data, &st);
    }
    nd_field_errors_add_status(errs, &st);
    nd_status_release(&st);
    const json_t *exprs = json_object_get(sel, "matchExpressions");
    for (size_t i = 0; i < json_array_size(exprs); i++) {
        const json_t *e = json_array_get(exprs, i);
        const char *op = json_string_value(json_object_get(e, "operator"));
        size_t nvalues = json_array_size(json_object_get(e, "values"));
        if (!op)
            continue;
        bool set_op = strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0;
        path(&p, "spec.selector.matchExpressions[%zu].values", i);
        if (set_op && nvalues == 0)
            nd_field_errors_required(errs, p.data,
                                     "must be specified when `operator` is 'In' or 'NotIn'");
        else if (!set_op && nvalues > 0)
            nd_field_errors_forbidden(
                errs, p.data, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
    nd_buf_release(&p);
}

/* The fields each Act policy action may set. */
static const struct {
    const char *action;
    const char *fields[3];
} policy_fields[] = {
    {"IdleReclaim", {"idleFor"}},
    {"Drain", {"schedule", "duration"}},
    {"Defragment", {NULL}},
    {"WaitTuning", {"minWaitTimeout", "maxWaitTimeout"}},
    {"Burst", {"maxGPUs", "maxRateUSDPerHour"}},
};

/* The action whose field `field` is, or NULL for `action` itself and unknown fields. */
static const char *owner_of(const char *field)
{
    for (size_t i = 0; i < sizeof policy_fields / sizeof policy_fields[0]; i++)
        for (size_t j = 0; j < 3 && policy_fields[i].fields[j]; j++)
            if (strcmp(policy_fields[i].fields[j], field) == 0)
                return policy_fields[i].action;
    return NULL;
}

void nd_validate_pool(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    (void)k;
    const json_t *policies =
        json_object_get(json_object_get(json_object_get(obj, "spec"), "act"), "policies");
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 0; i < json_array_size(policies); i++) {
        const json_t *pol = json_array_get(policies, i);
        const char *action = json_string_value(json_object_get(pol, "action"));
        if (!action || !json_is_object(pol))
            continue;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)pol, key, v)
        {
            const char *owner = owner_of(key);
            if (owner && strcmp(owner, action) != 0 && !json_is_null(v))
                nd_field_errors_forbidden(errs, path(&p, "spec.act.policies[%zu].%s", i, key),
                                          "may only be set when action is %s", owner);
        }
        const json_t *min = json_object_get(pol, "minWaitTimeout");
        const json_t *max = json_object_get(pol, "maxWaitTimeout");
        int cmp;
        if (strcmp(action, "WaitTuning") == 0 && json_is_string(min) && json_is_string(max) &&
            nd_format_compare("duration", min, max, &cmp) == 0 && cmp > 0)
            nd_field_errors_invalid(errs, path(&p, "spec.act.policies[%zu].minWaitTimeout", i), min,
                                    "must not be greater than maxWaitTimeout (%s)",
                                    json_string_value(max));
    }
    nd_buf_release(&p);
}
