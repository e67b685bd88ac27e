/* eval.c: walking the syntax tree over JSON, as client-go's jsonpath.go does.
 *
 * Each step maps a list of values to a list of values. On an error a step still hands
 * back what client-go's would (its input or the results so far), because an existence
 * filter ignores errors and counts whatever came back. Ranges are driven by the same
 * counters as client-go's FindResults, so unbalanced {range}/{end} behave the same. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath/internal.h"
#include "util/xmalloc.h"

struct ev {
    bool allow_missing;
    int begin_range, in_range, end_range;
    struct jp_node *const *last_end;
    struct nd_buf err;
};

/* ---- value lists ---- */

static void vl_push(struct jp_vlist *l, json_t *j, enum jp_go go)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = nd_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (struct jp_val){j, go};
}

/* Pushes a borrowed JSON value (a new reference is taken). */
static void vl_ref(struct jp_vlist *l, const json_t *j, enum jp_go go)
{
    vl_push(l, j ? json_incref((json_t *)j) : NULL, go);
}

void jp_vlist_release(struct jp_vlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        json_decref(l->v[i].j);
    free(l->v);
    *l = (struct jp_vlist){0};
}

static void vl_copy(struct jp_vlist *dst, const struct jp_vlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        vl_ref(dst, src->v[i].j, src->v[i].go);
}

static void vl_append(struct jp_vlist *dst, struct jp_vlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        vl_push(dst, src->v[i].j, src->v[i].go);
    free(src->v);
    *src = (struct jp_vlist){0};
}

static int fail(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ev *e, const char *fmt, ...)
{
    va_list ap;
    nd_buf_reset(&e->err);
    va_start(ap, fmt);
    nd_buf_vaddf(&e->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Go's reflect: a nil interface (JSON null) is skipped by most steps. */
static bool is_nil(const struct jp_val *v)
{
    return v->j && json_is_null(v->j);
}

static int walk(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                struct jp_vlist *out);

static int eval_list(struct ev *e, const struct jp_vlist *in, const struct jp_node *list,
                     struct jp_vlist *out)
{
    struct jp_vlist cur = {0};
    vl_copy(&cur, in);
    for (size_t i = 0; i < list->nkids; i++) {
        struct jp_vlist next = {0};
        int rc = walk(e, &cur, list->kids[i], &next);
        jp_vlist_release(&cur);
        cur = next;
        if (rc < 0) {
            *out = cur;
            return -1;
        }
    }
    *out = cur;
    return 0;
}

static int eval_field(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                      struct jp_vlist *out)
{
    if (in->n == 0)
        return 0;
    for (size_t i = 0; i < in->n; i++) {
        const json_t *j = in->v[i].j;
        if (j && json_is_object(j)) {
            const json_t *v = json_object_getn(j, node->text, node->text_len);
            if (v)
                vl_ref(out, v, GO_JSON);
        }
    }
    if (out->n == 0 && !e->allow_missing)
        return fail(e, "%s is not found", node->text);
    return 0;
}

static int eval_array(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                      struct jp_vlist *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const struct jp_val *v = &in->v[i];
        if (!v->j || is_nil(v))
            continue;
        if (!json_is_array(v->j)) {
            jp_vlist_release(out);
            vl_copy(out, in);
            return fail(e, "%s is not array or slice", jp_go_type(v));
        }
        struct jp_param p[3];
        memcpy(p, node->params, sizeof p);
        long long len = (long long)json_array_size(v->j);
        if (!p[0].known)
            p[0].value = 0;
        if (p[0].value < 0)
            p[0].value += len;
        if (!p[1].known)
            p[1].value = len;
        if (p[1].value < 0 || (p[1].value == 0 && p[1].derived))
            p[1].value += len;
        if (p[1].value == p[0].value)
            return 0; /* client-go stops here, even with inputs left */
        if (p[0].value >= len || p[0].value < 0 || p[1].value > len || p[1].value < 0 ||
            p[0].value > p[1].value || (p[2].known && p[2].value <= 0)) {
            jp_vlist_release(out);
            vl_copy(out, in);
            if (p[0].value >= len || p[0].value < 0)
                return fail(e, "array index out of bounds: index %lld, length %lld", p[0].value,
                            len);
            if (p[1].value > len || p[1].value < 0)
                return fail(e, "array index out of bounds: index %lld, length %lld", p[1].value - 1,
                            len);
            if (p[0].value > p[1].value)
                return fail(e, "starting index %lld is greater than ending index %lld", p[0].value,
                            p[1].value);
            return fail(e, "step must be > 0");
        }
        long long step = p[2].known ? p[2].value : 1;
        for (long long k = p[0].value; k < p[1].value; k += step) {
            vl_ref(out, json_array_get(v->j, (size_t)k), GO_JSON);
            if (step > p[1].value - k)
                break;
        }
    }
    return 0;
}

/* ---- comparisons (text/template's eq, lt ... on basic kinds) ---- */

enum kind { K_INVALID, K_BOOL, K_INT, K_UINT, K_FLOAT, K_STRING };

static enum kind kind_of(const struct jp_val *v)
{
    if (v->go == GO_INT)
        return K_INT;
    if (v->go == GO_UINT8)
        return K_UINT;
    if (!v->j)
        return K_INVALID;
    switch (json_typeof(v->j)) {
    case JSON_STRING:
        return K_STRING;
    case JSON_INTEGER:
        return K_INT;
    case JSON_REAL:
        return K_FLOAT;
    case JSON_TRUE:
    case JSON_FALSE:
        return K_BOOL;
    default:
        return K_INVALID;
    }
}

static int cmp_strings(const json_t *a, const json_t *b)
{
    size_t la = json_string_length(a), lb = json_string_length(b);
    int c = memcmp(json_string_value(a), json_string_value(b), la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* op: '=' equal, '<' less. Returns 0/1, or -1 with the error set. */
static int compare(struct ev *e, const struct jp_val *a, const struct jp_val *b, char op)
{
    enum kind ka = kind_of(a), kb = kind_of(b);
    if (ka == K_INVALID || kb == K_INVALID)
        return fail(e, "invalid type for comparison");
    /* the integer value for K_INT and K_UINT (json_integer_value is 0 for the others) */
    json_int_t x = json_integer_value(a->j), y = json_integer_value(b->j);
    if (ka != kb) {
        /* integers compare across signedness; uint8 values are never negative */
        if (ka == K_INT && kb == K_UINT)
            return op == '=' ? x >= 0 && x == y : x < 0 || x < y;
        if (ka == K_UINT && kb == K_INT)
            return op == '=' ? y >= 0 && x == y : y >= 0 && x < y;
        return fail(e, "incompatible types for comparison");
    }
    switch (ka) {
    case K_BOOL:
        if (op == '<')
            return fail(e, "invalid type for comparison");
        return json_is_true(a->j) == json_is_true(b->j);
    case K_FLOAT: {
        double p = json_real_value(a->j), q = json_real_value(b->j);
        return op == '=' ? p == q : p < q;
    }
    case K_STRING: {
        int c = cmp_strings(a->j, b->j);
        return op == '=' ? c == 0 : c < 0;
    }
    default:
        return op == '=' ? x == y : x < y;
    }
}

static int apply_op(struct ev *e, const char *op, const struct jp_val *a, const struct jp_val *b)
{
    int lt, eq;
    if (strcmp(op, "==") == 0)
        return compare(e, a, b, '=');
    if (strcmp(op, "!=") == 0)
        return (eq = compare(e, a, b, '=')) < 0 ? -1 : !eq;
    if (strcmp(op, "<") == 0)
        return compare(e, a, b, '<');
    if (strcmp(op, ">=") == 0)
        return (lt = compare(e, a, b, '<')) < 0 ? -1 : !lt;
    if (strcmp(op, "<=") == 0 || strcmp(op, ">") == 0) {
        int le = compare(e, a, b, '<');
        if (le == 0)
            le = compare(e, a, b, '=');
        if (le < 0)
            return -1;
        return op[0] == '<' ? le : !le;
    }
    return fail(e, "unrecognized filter operator %s", op);
}

/* Evaluates one side of a comparison on one element; -1 on error, else the count. */
static int one_side(struct ev *e, const struct jp_vlist *temp, const struct jp_node *side,
                    struct jp_vlist *out)
{
    if (eval_list(e, temp, side, out) < 0)
        return -1;
    if (out->n > 1)
        return fail(e, "can only compare one element at a time");
    return (int)out->n;
}

static int eval_filter(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                       struct jp_vlist *out)
{
    bool exists = strcmp(node->text, "exists") == 0;
    for (size_t i = 0; i < in->n; i++) {
        const struct jp_val *v = &in->v[i];
        if (!v->j || !json_is_array(v->j)) {
            struct nd_buf b = ND_BUF_INIT;
            jp_print_go(&b, v->j);
            fail(e, "%s is not array or slice and cannot be filtered", b.data);
            nd_buf_release(&b);
            jp_vlist_release(out);
            vl_copy(out, in);
            return -1;
        }
        for (size_t k = 0; k < json_array_size(v->j); k++) {
            json_t *el = json_array_get(v->j, k);
            struct jp_vlist temp = {0}, lefts = {0}, rights = {0};
            vl_ref(&temp, el, GO_JSON);
            int nl = one_side(e, &temp, node->kids[0], &lefts), nr = 0, pass = 0;
            if (exists) {
                if (lefts.n > 0)
                    vl_ref(out, el, GO_JSON);
                nl = 0;
            } else if (nl > 0) {
                nr = one_side(e, &temp, node->kids[1], &rights);
                if (nr > 0)
                    pass = apply_op(e, node->text, &lefts.v[0], &rights.v[0]);
            }
            jp_vlist_release(&temp);
            jp_vlist_release(&lefts);
            jp_vlist_release(&rights);
            if (nl < 0 || nr < 0) {
                jp_vlist_release(out);
                vl_copy(out, in);
                return -1;
            }
            if (pass < 0)
                return -1;
            if (pass)
                vl_ref(out, el, GO_JSON);
        }
    }
    return 0;
}

/* Children in Go's reflect order (maps: sorted keys here, random in Go). */
static void children(const struct jp_val *v, struct jp_vlist *out)
{
    if (!v->j)
        return;
    if (json_is_object(v->j)) {
        size_t n;
        const char **keys = jp_sorted_keys(v->j, &n);
        for (size_t i = 0; i < n; i++)
            vl_ref(out, json_object_get(v->j, keys[i]), GO_JSON);
        free(keys);
    } else if (json_is_array(v->j)) {
        for (size_t i = 0; i < json_array_size(v->j); i++)
            vl_ref(out, json_array_get(v->j, i), GO_JSON);
    } else if (json_is_string(v->j) && v->go == GO_JSON) {
        const unsigned char *s = (const unsigned char *)json_string_value(v->j);
        for (size_t i = 0; i < json_string_length(v->j); i++)
            vl_push(out, json_integer(s[i]), GO_UINT8);
    }
}

static void eval_recursive(const struct jp_vlist *in, struct jp_vlist *out)
{
    for (size_t i = 0; i < in->n; i++) {
        struct jp_vlist kids = {0}, deeper = {0};
        children(&in->v[i], &kids);
        if (kids.n) {
            vl_ref(out, in->v[i].j, in->v[i].go);
            eval_recursive(&kids, &deeper);
            vl_append(out, &deeper);
        }
        jp_vlist_release(&kids);
    }
}

static int eval_ident(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                      struct jp_vlist *out)
{
    if (strcmp(node->text, "range") == 0) {
        e->begin_range++;
        vl_copy(out, in);
        return 0;
    }
    if (strcmp(node->text, "end") == 0) {
        if (e->in_range > 0) {
            e->end_range++;
            return 0;
        }
        return fail(e, "not in range, nothing to end");
    }
    vl_copy(out, in);
    return fail(e, "unrecognized identifier %s", node->text);
}

static int walk(struct ev *e, const struct jp_vlist *in, const struct jp_node *node,
                struct jp_vlist *out)
{
    *out = (struct jp_vlist){0};
    switch (node->kind) {
    case JP_LIST:
        return eval_list(e, in, node, out);
    case JP_TEXT:
        vl_push(out, json_stringn_nocheck(node->text, node->text_len), GO_JSON);
        return 0;
    case JP_FIELD:
        return eval_field(e, in, node, out);
    case JP_ARRAY:
        return eval_array(e, in, node, out);
    case JP_FILTER:
        return eval_filter(e, in, node, out);
    case JP_INT:
    case JP_FLOAT:
    case JP_BOOL:
        for (size_t i = 0; i < in->n; i++) {
            if (node->kind == JP_INT)
                vl_push(out, json_integer(node->ival), GO_INT);
            else if (node->kind == JP_FLOAT)
                vl_push(out, json_real(node->fval), GO_JSON);
            else
                vl_push(out, json_boolean(node->bval), GO_JSON);
        }
        return 0;
    case JP_WILDCARD:
        for (size_t i = 0; i < in->n; i++)
            children(&in->v[i], out);
        return 0;
    case JP_RECURSIVE:
        eval_recursive(in, out);
        return 0;
    case JP_UNION:
        for (size_t i = 0; i < node->nkids; i++) {
            struct jp_vlist part;
            if (eval_list(e, in, node->kids[i], &part) < 0) {
                jp_vlist_release(&part);
                jp_vlist_release(out);
                vl_copy(out, in);
                return -1;
            }
            vl_append(out, &part);
        }
        return 0;
    case JP_IDENT:
        return eval_ident(e, in, node, out);
    }
    return fail(e, "unexpected node");
}

/* One value list per top-level node; a {range} repeats the nodes after it per result. */
struct results {
    struct jp_vlist *lists;
    size_t n;
};

static void results_release(struct results *r)
{
    for (size_t i = 0; i < r->n; i++)
        jp_vlist_release(&r->lists[i]);
    free(r->lists);
    *r = (struct results){0};
}

static int find(struct ev *e, struct jp_node *const *nodes, size_t n, const struct jp_val *data,
                struct results *full)
{
    struct jp_vlist cur = {0};
    /* client-go passes value.Interface(): a JSON null becomes an invalid value */
    vl_ref(&cur, data->j && !json_is_null(data->j) ? data->j : NULL, data->go);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct jp_vlist res;
        if (walk(e, &cur, nodes[i], &res) < 0) {
            jp_vlist_release(&res);
            rc = -1;
            break;
        }
        if (e->end_range > 0 && e->end_range <= e->in_range) {
            e->end_range--;
            e->last_end = &nodes[i];
            jp_vlist_release(&res);
            break;
        }
        if (e->begin_range > 0) {
            e->begin_range--;
            e->in_range++;
            if (res.n > 0) {
                for (size_t k = 0; k < res.n && rc == 0; k++)
                    rc = find(e, nodes + i + 1, n - i - 1, &res.v[k], full);
            } else {
                struct results skipped = {0};
                struct jp_val none = {NULL, GO_JSON};
                rc = find(e, nodes + i + 1, n - i - 1, &none, &skipped);
                results_release(&skipped);
            }
            e->in_range--;
            jp_vlist_release(&res);
            if (rc < 0)
                break;
            for (size_t k = i + 1; k < n; k++) {
                if (&nodes[k] == e->last_end) {
                    i = k;
                    break;
                }
            }
            continue;
        }
        full->lists = nd_xrealloc(full->lists, (full->n + 1) * sizeof *full->lists);
        full->lists[full->n++] = res;
    }
    jp_vlist_release(&cur);
    return rc;
}

/* Runs the template; fills `full`, or returns -1 with the message in err. */
int jp_find(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing,
            struct nd_buf *err, struct jp_vlist **lists, size_t *n)
{
    struct ev e = {.allow_missing = allow_missing};
    struct results full = {0};
    struct jp_val top = {(json_t *)data, GO_JSON};
    nd_buf_init(&e.err, 0);
    int rc = find(&e, (struct jp_node *const *)jp->root->kids, jp->root->nkids, &top, &full);
    if (rc < 0) {
        nd_buf_adds(err, e.err.data);
        results_release(&full);
    }
    nd_buf_release(&e.err);
    *lists = full.lists;
    *n = full.n;
    return rc;
}
