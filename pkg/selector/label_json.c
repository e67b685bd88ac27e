/* label_json.c: a metav1.LabelSelector object as a selector.
 *
 * Validation follows k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateLabelSelector
 * (every problem becomes one cause with its field path); the conversion follows
 * metav1.LabelSelectorAsSelector. */
#include <stdlib.h>
#include <string.h>

#include "selector/internal.h"
#include "selector/selector.h"
#include "util/buf.h"
#include "util/xmalloc.h"

struct problem {
    const char *reason; /* FieldValueInvalid, FieldValueRequired ... */
    char *field;
    char *body; /* "Invalid value: \"x\": detail" */
};

struct check {
    const char *path; /* prefix, "" for none */
    struct problem *p;
    size_t n;
};

/* "<path>.<name>[idx]<suffix>" (no index when idx < 0, no prefix when the path is ""). */
static char *fpath(const struct check *c, const char *name, long idx, const char *suffix)
{
    struct nd_buf b = ND_BUF_INIT;
    if (*c->path)
        nd_buf_addf(&b, "%s.", c->path);
    nd_buf_adds(&b, name);
    if (idx >= 0)
        nd_buf_addf(&b, "[%ld]", idx);
    nd_buf_adds(&b, suffix);
    return nd_buf_detach(&b);
}

static void add(struct check *c, const char *reason, char *field, char *body)
{
    c->p = nd_xrealloc(c->p, (c->n + 1) * sizeof *c->p);
    c->p[c->n++] = (struct problem){reason, field, body};
}

/* The bad value as Kubernetes prints it: strings quoted as Go does, the rest as JSON. */
static void add_value(struct nd_buf *b, const json_t *v)
{
    if (json_is_string(v)) {
        sel_go_quote(b, json_string_value(v));
    } else if (!v || json_is_null(v)) {
        nd_buf_adds(b, "null");
    } else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        nd_buf_adds(b, s ? s : "");
        free(s);
    }
}

static void invalid(struct check *c, char *field, const json_t *v, const char *detail)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Invalid value: ");
    add_value(&b, v);
    nd_buf_addf(&b, ": %s", detail);
    add(c, "FieldValueInvalid", field, nd_buf_detach(&b));
}

static void invalid_str(struct check *c, const char *field, const char *s, const char **msgs,
                        size_t n)
{
    json_t *v = json_string(s);
    for (size_t i = 0; i < n; i++)
        invalid(c, nd_xstrdup(field), v, msgs[i]);
    json_decref(v);
}

static void check_labels(struct check *c, const json_t *ml)
{
    char *field = fpath(c, "matchLabels", -1, "");
    if (!json_is_object(ml)) {
        invalid(c, field, ml, "must be an object of label names to values");
        return;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ml, k, v)
    {
        const char *msgs[4];
        invalid_str(c, field, k, msgs, sel_check_qualified_name(k, msgs));
        if (!json_is_string(v)) {
            invalid(c, nd_xstrdup(field), v, "must be a string");
            continue;
        }
        invalid_str(c, field, json_string_value(v), msgs,
                    sel_check_label_value(json_string_value(v), msgs));
    }
    free(field);
}

static const char *const operators[] = {"In", "NotIn", "Exists", "DoesNotExist"};

static int op_index(const json_t *op)
{
    for (int i = 0; json_is_string(op) && i < 4; i++)
        if (strcmp(json_string_value(op), operators[i]) == 0)
            return i;
    return -1;
}

static void check_expr(struct check *c, const json_t *e, size_t i)
{
    if (!json_is_object(e)) {
        invalid(c, fpath(c, "matchExpressions", (long)i, ""), e, "must be an object");
        return;
    }
    const json_t *key = json_object_get(e, "key"), *op = json_object_get(e, "operator");
    const json_t *vals = json_object_get(e, "values");
    size_t nvals = json_is_array(vals) ? json_array_size(vals) : 0;
    int o = op_index(op);
    if (o < 0) {
        json_t *shown = op ? json_incref((json_t *)op) : json_string("");
        invalid(c, fpath(c, "matchExpressions", (long)i, ".operator"), shown,
                "not a valid selector operator");
        json_decref(shown);
    } else if (o <= 1 && nvals == 0) {
        add(c, "FieldValueRequired", fpath(c, "matchExpressions", (long)i, ".values"),
            nd_xstrdup("Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (o >= 2 && nvals > 0) {
        add(c, "FieldValueForbidden", fpath(c, "matchExpressions", (long)i, ".values"),
            nd_xstrdup("Forbidden: may not be specified when `operator` is 'Exists' or "
                       "'DoesNotExist'"));
    }
    if (key && !json_is_string(key)) {
        invalid(c, fpath(c, "matchExpressions", (long)i, ".key"), key, "must be a string");
    } else {
        const char *msgs[4], *k = key ? json_string_value(key) : "";
        char *field = fpath(c, "matchExpressions", (long)i, ".key");
        invalid_str(c, field, k, msgs, sel_check_qualified_name(k, msgs));
        free(field);
    }
    if (vals && !json_is_array(vals) && !json_is_null(vals)) {
        invalid(c, fpath(c, "matchExpressions", (long)i, ".values"), vals,
                "must be a list of strings");
        return;
    }
    for (size_t j = 0; j < nvals; j++) {
        const json_t *v = json_array_get(vals, j);
        char *field = fpath(c, "matchExpressions", (long)i, ".values");
        char *item = nd_xasprintf("%s[%zu]", field, j);
        free(field);
        if (!json_is_string(v)) {
            invalid(c, item, v, "must be a string");
            continue;
        }
        const char *msgs[4];
        invalid_str(c, item, json_string_value(v), msgs,
                    sel_check_label_value(json_string_value(v), msgs));
        free(item);
    }
}

static void to_status(struct check *c, struct nd_status *st)
{
    struct nd_buf msg = ND_BUF_INIT;
    if (c->n > 1)
        nd_buf_addch(&msg, '[');
    for (size_t i = 0; i < c->n; i++)
        nd_buf_addf(&msg, "%s%s: %s", i ? ", " : "", c->p[i].field, c->p[i].body);
    if (c->n > 1)
        nd_buf_addch(&msg, ']');
    nd_status_set(st, "Invalid", NULL, "%s", msg.data);
    for (size_t i = 0; i < c->n; i++)
        nd_status_add_cause(st, c->p[i].reason, c->p[i].field, "%s", c->p[i].body);
    nd_buf_release(&msg);
}

static void add_req(struct nd_selector *sel, const char *key, enum sel_op op, const json_t *vals)
{
    struct sel_req r = {nd_xstrdup(key), op, NULL, 0};
    size_t n = json_is_array(vals) ? json_array_size(vals) : json_is_string(vals) ? 1 : 0;
    r.values = nd_xcalloc(n ? n : 1, sizeof *r.values);
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_is_array(vals) ? json_array_get(vals, i) : vals;
        r.values[r.nvalues++] = nd_xstrdup(json_string_value(v));
    }
    sel->reqs = nd_xrealloc(sel->reqs, (sel->n + 1) * sizeof *sel->reqs);
    sel->reqs[sel->n++] = r;
}

struct nd_selector *nd_selector_from_json_at(const json_t *ls, const char *path,
                                             struct nd_status *st)
{
    struct nd_selector *sel = nd_xcalloc(1, sizeof *sel);
    struct check c = {path ? path : "", NULL, 0};
    if (!ls || json_is_null(ls)) {
        sel->nothing = true;
        return sel;
    }
    if (!json_is_object(ls)) {
        invalid(&c, nd_xstrdup(*c.path ? c.path : "selector"), ls, "must be an object");
    } else {
        const json_t *ml = json_object_get(ls, "matchLabels");
        const json_t *me = json_object_get(ls, "matchExpressions");
        if (ml && !json_is_null(ml))
            check_labels(&c, ml);
        if (me && !json_is_null(me) && !json_is_array(me))
            invalid(&c, fpath(&c, "matchExpressions", -1, ""), me,
                    "must be a list of requirements");
        for (size_t i = 0; json_is_array(me) && i < json_array_size(me); i++)
            check_expr(&c, json_array_get(me, i), i);
        if (c.n == 0) {
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)ml, k, v) add_req(sel, k, SEL_EQUALS, v);
            for (size_t i = 0; json_is_array(me) && i < json_array_size(me); i++) {
                const json_t *e = json_array_get(me, i);
                static const enum sel_op ops[] = {SEL_IN, SEL_NOT_IN, SEL_EXISTS, SEL_NOT_EXISTS};
                add_req(sel, json_string_value(json_object_get(e, "key")),
                        ops[op_index(json_object_get(e, "operator"))],
                        json_object_get(e, "values"));
            }
            sel_sort_reqs(sel);
        }
    }
    if (c.n > 0) {
        to_status(&c, st);
        nd_selector_free(sel);
        sel = NULL;
    }
    for (size_t i = 0; i < c.n; i++) {
        free(c.p[i].field);
        free(c.p[i].body);
    }
    free(c.p);
    return sel;
}

struct nd_selector *nd_selector_from_json(const json_t *ls, struct nd_status *st)
{
    return nd_selector_from_json_at(ls, NULL, st);
}
