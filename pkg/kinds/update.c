/* update.c: what a replace or patch may change (kinds.md "mutable spec fields"). */
#include "kinds/schema.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/formats.h"
#include "kinds/object.h"
#include "util/buf.h"
#include "util/xmalloc.h"

struct check {
    const struct nd_kind *k;
    const json_t *old_obj, *new_obj;
    struct nd_field_errors errs;
    bool immutable; /* some cause is an immutable field */
};

static void immutable(struct check *c, const char *field)
{
    nd_field_errors_forbidden(&c->errs, field, "field is immutable");
    c->immutable = true;
}

static void check_meta(struct check *c, const char *member)
{
    const json_t *o = json_object_get(json_object_get(c->old_obj, "metadata"), member);
    const json_t *n = json_object_get(json_object_get(c->new_obj, "metadata"), member);
    if (json_is_string(o) && json_is_string(n) && json_string_length(n) > 0 && !json_equal(o, n)) {
        struct nd_buf f = ND_BUF_INIT;
        nd_buf_addf(&f, "metadata.%s", member);
        immutable(c, f.data);
        nd_buf_release(&f);
    }
}

static void check_raise(struct check *c, const char *field)
{
    const json_t *o = nd_obj_get(c->old_obj, field);
    const json_t *n = nd_obj_get(c->new_obj, field);
    if (!n || json_is_null(n))
        return; /* removing a limit raises it */
    if (!o || json_is_null(o)) {
        nd_field_errors_invalid(&c->errs, field, n, "may only be raised (it had no limit)");
        return;
    }
    const json_t *s = nd_schema_at(nd_kind_schema(c->k), field);
    const char *format = json_string_value(json_object_get(s, "format"));
    int cmp;
    if (nd_format_compare(format, n, o, &cmp) == 0 && cmp < 0) {
        struct nd_buf was = ND_BUF_INIT;
        nd_field_errors_format_value(&was, o);
        nd_field_errors_invalid(&c->errs, field, n, "may only be raised (it is %s)", was.data);
        nd_buf_release(&was);
    }
}

static void check_while(struct check *c, const struct nd_mutable *m, const char *field)
{
    const char *old = nd_obj_get_string(c->old_obj, field);
    if (!old || strcmp(old, m->while_value) == 0)
        return;
    size_t first = nd_field_errors_count(&c->errs);
    nd_field_errors_forbidden(&c->errs, field, "may only change while it is %s (it is %s)",
                              m->while_value, old);
    nd_field_errors_fix(&c->errs, first, "leave %s as it is (%s): it changes only while %s", field,
                        old, m->while_value);
}

static void check_state(struct check *c)
{
    const char *phase = nd_obj_get_string(c->old_obj, "status.phase");
    if (!nd_phase_terminal(c->k->family, phase))
        return;
    const json_t *n = nd_obj_get(c->new_obj, "spec.state");
    nd_field_errors_invalid(&c->errs, "spec.state", n && !json_is_null(n) ? n : NULL,
                            "the %s has finished (%s); its state can no longer change", c->k->kind,
                            phase);
}

/* "spec" + a path relative to spec, as nd_obj_diff gives it. */
static void spec_path(struct nd_buf *b, const char *rel)
{
    nd_buf_reset(b);
    nd_buf_adds(b, "spec");
    if (*rel && *rel != '[')
        nd_buf_addch(b, '.');
    nd_buf_adds(b, rel);
}

int nd_kind_check_update(const struct nd_kind *k, const json_t *old_obj, const json_t *new_obj,
                         struct nd_status *st)
{
    struct check c = {k, old_obj, new_obj, {NULL, NULL}, false};
    nd_field_errors_init(&c.errs);
    check_meta(&c, "name");
    check_meta(&c, "namespace");
    check_meta(&c, "uid");

    json_t *diff =
        nd_obj_diff_atomic(json_object_get(old_obj, "spec"), json_object_get(new_obj, "spec"));
    struct nd_buf field = ND_BUF_INIT;
    size_t i;
    json_t *p;
    json_array_foreach(diff, i, p)
    {
        spec_path(&field, json_string_value(p));
        const struct nd_mutable *m = nd_kind_mutable(k, field.data);
        if (!m)
            immutable(&c, field.data);
        else if (m->rule == ND_MUT_RAISE_ONLY && strcmp(m->path, field.data) == 0)
            check_raise(&c, field.data);
        else if (m->rule == ND_MUT_WHILE)
            check_while(&c, m, m->path);
        if (strcmp(field.data, "spec.state") == 0)
            check_state(&c);
    }
    nd_buf_release(&field);
    json_decref(diff);

    const char *name =
        json_string_value(json_object_get(json_object_get(old_obj, "metadata"), "name"));
    int rc =
        nd_field_errors_to_status(&c.errs, c.immutable ? "FieldImmutable" : "Invalid", k, name, st);
    nd_field_errors_release(&c.errs);
    return rc;
}

#define RESERVED       "nodus.dev/"
#define REQUEST_SUFFIX "-requested-at"

/* nodus.dev/<action>-requested-at, <action> lower-case letters, digits and '-'. */
static bool is_request(const char *key)
{
    const char *action = key + strlen(RESERVED);
    size_t n = strlen(action), suffix = strlen(REQUEST_SUFFIX);
    if (n <= suffix || strcmp(action + n - suffix, REQUEST_SUFFIX) != 0)
        return false;
    for (size_t i = 0; i < n - suffix; i++)
        if (!((action[i] >= 'a' && action[i] <= 'z') || (action[i] >= '0' && action[i] <= '9') ||
              action[i] == '-'))
            return false;
    return true;
}

/* A request annotation (key, value v) set to a new value for an action the kind does not
 * take: Unsupported, naming the actions it takes, or Forbidden when it takes none.
 * Returns true when it added a problem. */
static bool check_request(struct nd_field_errors *errs, const struct nd_kind *k, const char *key,
                          const char *field)
{
    const char *action = key + strlen(RESERVED);
    size_t n = strlen(action) - strlen(REQUEST_SUFFIX);
    char *name = nd_xstrndup(action, n);
    bool bad = !nd_kind_takes_request(k, name);
    if (bad && k->requests) {
        json_t *v = json_string(name);
        nd_field_errors_not_supported(errs, field, v, k->requests);
        json_decref(v);
    } else if (bad) {
        nd_field_errors_forbidden(errs, field, "a %s takes no requests (%s)", k->kind, name);
    }
    free(name);
    return bad;
}

/* Labels and annotations under nodus.dev/ that changed: refused, but for the request
 * annotations (annotations only, requests set) of an action the kind takes. Sets
 * *bad_request when a request was refused. */
static void check_reserved(struct nd_field_errors *errs, const json_t *old_map,
                           const json_t *new_map, const char *member, const struct nd_kind *k,
                           bool *bad_request)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)new_map, key, v)
    {
        if (strncmp(key, RESERVED, strlen(RESERVED)) != 0)
            continue;
        if (json_equal(v, json_object_get(old_map, key)))
            continue;
        struct nd_buf f = ND_BUF_INIT;
        nd_buf_addf(&f, "metadata.%s[%s]", member, key);
        if (!k || !is_request(key))
            nd_field_errors_forbidden(errs, f.data, "%s under %s are set by Nodus", member,
                                      RESERVED);
        else if (check_request(errs, k, key, f.data))
            *bad_request = true;
        nd_buf_release(&f);
    }
}

int nd_kind_check_reserved(const struct nd_kind *k, const json_t *old_obj, const json_t *new_obj,
                           struct nd_status *st)
{
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    const json_t *om = json_object_get(old_obj, "metadata");
    const json_t *nm = json_object_get(new_obj, "metadata");
    bool bad_request = false;
    check_reserved(&errs, json_object_get(om, "labels"), json_object_get(nm, "labels"), "labels",
                   NULL, &bad_request);
    check_reserved(&errs, json_object_get(om, "annotations"), json_object_get(nm, "annotations"),
                   "annotations", k, &bad_request);
    const char *name = json_string_value(json_object_get(nm, "name"));
    int rc = nd_field_errors_to_status(&errs, "Invalid", k, name, st);
    if (rc < 0 && bad_request && k->requests)
        nd_status_set_fix(st, "ask for an action a %s takes: nodus request %s %s/%s", k->kind,
                          k->requests[0], k->singular, name ? name : "NAME");
    else if (rc < 0 && bad_request)
        nd_status_set_fix(st,
                          "remove the annotation, a %s takes no requests; what each kind "
                          "takes: nodus request --help",
                          k->kind);
    nd_field_errors_release(&errs);
    return rc;
}
