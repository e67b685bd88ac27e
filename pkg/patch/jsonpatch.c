/* RFC 6902 JSON patch over RFC 6901 JSON pointers.
 *
 * Two passes: the first checks the shape of every operation and parses its pointers
 * (BadRequest), the second applies them to a copy of the document (Invalid). The
 * messages of the second pass follow evanphx/json-patch v4, the library kube-apiserver
 * applies JSON patches with, so a user sees the same text from nodus as from Kubernetes.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

#include "kinds/object.h"
#include "patch/patch.h"
#include "util/buf.h"
#include "util/xmalloc.h"

enum op_kind { OP_ADD, OP_REMOVE, OP_REPLACE, OP_MOVE, OP_COPY, OP_TEST };

static const char *const op_names[] = {"add", "remove", "replace", "move", "copy", "test"};

struct pointer {
    const char *text; /* as written in the operation */
    char **tok;       /* decoded reference tokens */
    size_t n;
};

struct op {
    enum op_kind kind;
    struct pointer path, from;
    const json_t *value; /* borrowed from the operation */
};

/* The bounds of one application and what has been spent of them. */
struct budget {
    const struct nd_patch_limits *lim;
    size_t copied; /* bytes all copies added so far */
    size_t steps;  /* array elements shifted, moved values measured */
    size_t depth;  /* the document nests at most this deep (an upper bound) */
};

static void pointer_release(struct pointer *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->tok[i]);
    free(p->tok);
    p->tok = NULL;
    p->n = 0;
}

/* Parses an RFC 6901 pointer; -1 with a BadRequest naming ops[i].<member>. */
static int pointer_parse(struct pointer *p, const char *text, size_t i, const char *member,
                         struct nd_status *st)
{
    p->text = text;
    p->tok = NULL;
    p->n = 0;
    if (!*text)
        return 0;
    if (*text != '/')
        return nd_status_set(st, "BadRequest", NULL,
                             "ops[%zu].%s: invalid JSON pointer \"%s\": it must be empty or "
                             "start with '/'",
                             i, member, text);
    size_t count = 0;
    for (const char *c = text; *c; c++)
        count += *c == '/';
    p->tok = nd_xcalloc(count, sizeof *p->tok);
    const char *c = text + 1;
    for (;;) {
        struct nd_buf b = ND_BUF_INIT;
        for (; *c && *c != '/'; c++) {
            if (*c != '~') {
                nd_buf_addch(&b, *c);
                continue;
            }
            if (c[1] != '0' && c[1] != '1') {
                nd_buf_release(&b);
                pointer_release(p);
                return nd_status_set(st, "BadRequest", NULL,
                                     "ops[%zu].%s: invalid JSON pointer \"%s\": '~' must be "
                                     "followed by '0' or '1' at character %zu",
                                     i, member, text, (size_t)(c - text) + 1);
            }
            nd_buf_addch(&b, c[1] == '0' ? '~' : '/');
            c++;
        }
        p->tok[p->n++] = nd_buf_detach(&b);
        if (!*c)
            return 0;
        c++;
    }
}

/* Array index token: "0" or digits without a leading zero. 0 and *idx on success
 * (SIZE_MAX when too long to be any real index), -1 when the token is not one. */
static int parse_index(const char *tok, size_t *idx)
{
    size_t len = strlen(tok);
    if (len == 0 || (len > 1 && tok[0] == '0'))
        return -1;
    size_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return -1;
        v = i < 18 ? v * 10 + (size_t)(tok[i] - '0') : SIZE_MAX;
    }
    *idx = v;
    return 0;
}

/* The value the first n tokens name, or NULL. */
static json_t *walk(json_t *root, const struct pointer *p, size_t n)
{
    json_t *cur = root;
    for (size_t i = 0; cur && i < n; i++) {
        size_t idx;
        if (json_is_object(cur))
            cur = json_object_get(cur, p->tok[i]);
        else if (json_is_array(cur) && parse_index(p->tok[i], &idx) == 0)
            cur = json_array_get(cur, idx);
        else
            cur = NULL;
    }
    return cur;
}

/* The container holding the pointer's last token, or NULL when it does not exist. */
static json_t *parent_of(json_t *root, const struct pointer *p)
{
    json_t *parent = walk(root, p, p->n - 1);
    return json_is_object(parent) || json_is_array(parent) ? parent : NULL;
}

static const char *last_tok(const struct pointer *p)
{
    return p->tok[p->n - 1];
}

/* An error while applying operation i. */
static int fail(struct nd_status *st, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct nd_status *st, size_t i, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    nd_status_set(st, "Invalid", NULL, "ops[%zu]: %s", i, b.data);
    nd_buf_release(&b);
    return -1;
}

/* Compact JSON bytes of v, measured without writing them (jansson counts what it would
 * write past a buffer of size 0). */
static size_t json_bytes(const json_t *v)
{
    return json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Nesting depth of v, counting each node visited against *steps; stops (returning what
 * it has) once *steps passes max (0: no limit). */
static size_t depth_counted(const json_t *v, size_t *steps, size_t max)
{
    size_t deepest = 0, d;
    const char *k;
    json_t *val;
    size_t i;
    if (max && ++*steps > max)
        return 0;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, val)
        {
            if ((d = depth_counted(val, steps, max)) > deepest)
                deepest = d;
            if (max && *steps > max)
                break;
        }
        return deepest + 1;
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, val)
        {
            if ((d = depth_counted(val, steps, max)) > deepest)
                deepest = d;
            if (max && *steps > max)
                break;
        }
        return deepest + 1;
    }
    return 0;
}

/* Refuses to put a value nesting vdepth deep at pointer p when the document would then
 * nest deeper than the limit; else raises the document's bound. */
static int check_depth(struct budget *b, const struct pointer *p, size_t vdepth, size_t i,
                       struct nd_status *st)
{
    size_t d = p->n + vdepth;
    if (b->lim && b->lim->max_depth && d > b->lim->max_depth)
        return fail(st, i,
                    "the value at \"%s\" would nest %zu levels deep, more than the limit "
                    "of %zu",
                    p->text, d, b->lim->max_depth);
    if (d > b->depth)
        b->depth = d;
    return 0;
}

static int too_many_steps(struct budget *b, const struct op *op, size_t i, struct nd_status *st)
{
    return fail(st, i,
                "Unable to complete the %s, the patch would take more than %zu steps (array "
                "elements shifted, moved values measured)",
                op_names[op->kind], b->lim->max_steps);
}

/* Counts the elements an insert at (or a removal of) the pointer's last token in parent
 * shifts, when parent is an array. */
static int charge_shift(struct budget *b, const json_t *parent, const struct pointer *p,
                        bool removal, const struct op *op, size_t i, struct nd_status *st)
{
    size_t idx, n = json_array_size(parent);
    if (!b->lim || !b->lim->max_steps || !json_is_array(parent) ||
        parse_index(last_tok(p), &idx) < 0 || idx >= n + !removal)
        return 0;
    b->steps += n - idx - removal;
    return b->steps > b->lim->max_steps ? too_many_steps(b, op, i, st) : 0;
}

/* Puts value (stolen) at the pointer's last token in parent, as "add" does: NULL on
 * success, else the reason as a new string. */
static char *insert(json_t *parent, const struct pointer *p, json_t *value)
{
    const char *tok = last_tok(p);
    size_t idx, n;
    if (json_is_object(parent)) {
        json_object_set_new(parent, tok, value);
        return NULL;
    }
    n = json_array_size(parent);
    char *why = NULL;
    if (strcmp(tok, "-") == 0)
        json_array_append_new(parent, value);
    else if (parse_index(tok, &idx) < 0)
        why = nd_xasprintf("value was not a proper array index: '%s'", tok);
    else if (idx > n)
        why = nd_xasprintf("Unable to access invalid index: %s: invalid index referenced", tok);
    else
        json_array_insert_new(parent, idx, value);
    if (why)
        json_decref(value);
    return why;
}

/* The value at the pointer's last token in parent (borrowed): NULL with *why set when
 * it does not exist. */
static json_t *lookup(json_t *parent, const struct pointer *p, char **why)
{
    const char *tok = last_tok(p);
    size_t idx;
    json_t *v = NULL;
    *why = NULL;
    if (json_is_object(parent)) {
        v = json_object_get(parent, tok);
        if (!v)
            *why = nd_xasprintf("unable to get nonexistent key: %s: missing value", tok);
    } else if (parse_index(tok, &idx) < 0) {
        *why = nd_xasprintf("value was not a proper array index: '%s'", tok);
    } else if (!(v = json_array_get(parent, idx))) {
        *why = nd_xasprintf("Unable to access invalid index: %s: invalid index referenced", tok);
    }
    return v;
}

/* Removes the value lookup found (the pointer's last token in parent). */
static void detach(json_t *parent, const struct pointer *p)
{
    size_t idx;
    if (json_is_object(parent))
        json_object_del(parent, last_tok(p));
    else if (parse_index(last_tok(p), &idx) == 0)
        json_array_remove(parent, idx);
}

static int do_add(json_t **root, const struct op *op, size_t i, struct budget *b,
                  struct nd_status *st)
{
    if (check_depth(b, &op->path, nd_json_depth(op->value), i, st) < 0)
        return -1;
    json_t *value = json_deep_copy(op->value);
    if (op->path.n == 0) {
        json_decref(*root);
        *root = value;
        return 0;
    }
    json_t *parent = parent_of(*root, &op->path);
    if (!parent) {
        json_decref(value);
        return fail(st, i,
                    "add operation does not apply: doc is missing path: \"%s\": missing value",
                    op->path.text);
    }
    if (charge_shift(b, parent, &op->path, false, op, i, st) < 0) {
        json_decref(value);
        return -1;
    }
    char *why = insert(parent, &op->path, value);
    if (!why)
        return 0;
    fail(st, i, "error in add for path: '%s': %s", op->path.text, why);
    free(why);
    return -1;
}

static int do_remove(json_t *root, const struct op *op, size_t i, struct budget *b,
                     struct nd_status *st)
{
    json_t *parent = op->path.n ? parent_of(root, &op->path) : NULL;
    if (!parent)
        return fail(st, i,
                    "remove operation does not apply: doc is missing path: \"%s\": missing value",
                    op->path.text);
    char *why;
    if (lookup(parent, &op->path, &why)) {
        if (charge_shift(b, parent, &op->path, true, op, i, st) < 0)
            return -1;
        detach(parent, &op->path);
        return 0;
    }
    if (json_is_object(parent)) {
        /* evanphx words a missing member differently for remove than for get. */
        free(why);
        why = nd_xasprintf("unable to remove nonexistent key: %s: missing value",
                           last_tok(&op->path));
    }
    fail(st, i, "error in remove for path: '%s': %s", op->path.text, why);
    free(why);
    return -1;
}

static int do_replace(json_t **root, const struct op *op, size_t i, struct budget *b,
                      struct nd_status *st)
{
    if (check_depth(b, &op->path, nd_json_depth(op->value), i, st) < 0)
        return -1;
    if (op->path.n == 0) {
        json_decref(*root);
        *root = json_deep_copy(op->value);
        return 0;
    }
    json_t *parent = parent_of(*root, &op->path);
    if (!parent)
        return fail(st, i,
                    "replace operation does not apply: doc is missing path: %s: missing value",
                    op->path.text);
    char *why;
    if (!lookup(parent, &op->path, &why)) {
        free(why);
        return fail(st, i,
                    "replace operation does not apply: doc is missing key: %s: missing value",
                    op->path.text);
    }
    size_t idx;
    if (json_is_object(parent))
        json_object_set_new(parent, last_tok(&op->path), json_deep_copy(op->value));
    else if (parse_index(last_tok(&op->path), &idx) == 0)
        json_array_set_new(parent, idx, json_deep_copy(op->value));
    return 0;
}

/* move and copy: take the value at from (moved: detached), then add it at path. */
/* Checks a copy of v against the copy budget and the depth bound, before it is made. */
static int copy_allowed(struct budget *b, const struct op *op, const json_t *v, size_t i,
                        struct nd_status *st)
{
    size_t max = b->lim ? b->lim->max_copy_bytes : 0;
    if (max) {
        b->copied += json_bytes(v);
        if (b->copied > max)
            return fail(st, i,
                        "Unable to complete the copy, the accumulated size increase of copy is "
                        "%zu, exceeding the limit %zu",
                        b->copied, max);
    }
    return check_depth(b, &op->path, nd_json_depth(v), i, st);
}

/* Checks that moving v (now at from) to path keeps the depth bound. The document's
 * bound gives v's depth for free; v is measured only when that is not enough, and the
 * values measuring visits count as steps, so moving a large value back and forth cannot
 * keep the server busy. */
static int move_allowed(struct budget *b, const struct op *op, const json_t *v, size_t i,
                        struct nd_status *st)
{
    size_t max = b->lim ? b->lim->max_depth : 0;
    size_t bound = b->depth > op->from.n ? b->depth - op->from.n : 0;
    if (!max || op->path.n + bound <= max)
        return check_depth(b, &op->path, bound, i, st);
    size_t d = depth_counted(v, &b->steps, b->lim->max_steps);
    if (b->lim->max_steps && b->steps > b->lim->max_steps)
        return too_many_steps(b, op, i, st);
    return check_depth(b, &op->path, d, i, st);
}

static int do_move_copy(json_t **root, const struct op *op, size_t i, struct budget *b,
                        struct nd_status *st)
{
    const char *name = op_names[op->kind];
    json_t *value;
    if (op->from.n == 0) {
        if (op->kind == OP_MOVE && op->path.n == 0)
            return 0; /* moving the document onto itself */
        if (op->kind == OP_MOVE)
            return fail(
                st, i, "move operation does not apply: doc is missing from path: %s: missing value",
                op->from.text);
        if (copy_allowed(b, op, *root, i, st) < 0)
            return -1;
        value = json_deep_copy(*root);
    } else {
        json_t *parent = parent_of(*root, &op->from);
        if (!parent)
            return fail(st, i,
                        "%s operation does not apply: doc is missing from path: %s: missing value",
                        name, op->from.text);
        char *why;
        json_t *v = lookup(parent, &op->from, &why);
        if (!v) {
            if (op->kind == OP_MOVE)
                fail(st, i, "error in move for path: '%s': %s", op->from.text, why);
            else
                fail(st, i, "error in copy for from: '%s': %s", op->from.text, why);
            free(why);
            return -1;
        }
        if (op->kind == OP_MOVE) {
            if ((op->path.n && move_allowed(b, op, v, i, st) < 0) ||
                charge_shift(b, parent, &op->from, true, op, i, st) < 0)
                return -1;
            value = json_incref(v);
            detach(parent, &op->from);
        } else {
            if (copy_allowed(b, op, v, i, st) < 0)
                return -1;
            value = json_deep_copy(v);
        }
    }
    if (op->path.n == 0) {
        json_decref(*root);
        *root = value;
        return 0;
    }
    /* After a move's detach, a path under from has lost its parent: that is RFC 6902's
     * "from must not be a proper prefix of path" rule. */
    json_t *parent = parent_of(*root, &op->path);
    if (!parent) {
        json_decref(value);
        return fail(st, i,
                    "%s operation does not apply: doc is missing destination path: %s: missing "
                    "value",
                    name, op->path.text);
    }
    if (charge_shift(b, parent, &op->path, false, op, i, st) < 0) {
        json_decref(value);
        return -1;
    }
    char *why = insert(parent, &op->path, value);
    if (!why)
        return 0;
    fail(st, i, "error in %s for path: '%s': %s", name, op->path.text, why);
    free(why);
    return -1;
}

/* A test that failed: the object is not what the patch was written against. */
static int test_failed(struct nd_status *st, const struct op *op)
{
    nd_status_set_fix(st, "the object does not hold what the patch's test operation expects at %s "
                          "(it changed, or the patch is wrong): read the object again and write "
                          "the patch against what it holds now",
                      op->path.text);
    return -1;
}

static int do_test(json_t *root, const struct op *op, size_t i, struct nd_status *st)
{
    const json_t *v = root;
    if (op->path.n) {
        json_t *parent = parent_of(root, &op->path);
        if (!parent) {
            fail(st, i, "test operation does not apply: is missing path: %s: missing value",
                 op->path.text);
            return test_failed(st, op);
        }
        char *why;
        v = lookup(parent, &op->path, &why);
        if (!v && json_is_array(parent)) {
            fail(st, i, "error in test for path: '%s': %s", op->path.text, why);
            free(why);
            return test_failed(st, op);
        }
        free(why);
    }
    /* A missing member fails the test (RFC 6902 4.6), whatever the value. */
    if (v && nd_json_equal(v, op->value))
        return 0;
    fail(st, i, "testing value %s failed: test failed", op->path.text);
    return test_failed(st, op);
}

/* Checks operation i's shape and parses its pointers into *op. */
static int parse_op(const json_t *j, size_t i, struct op *op, struct nd_status *st)
{
    memset(op, 0, sizeof *op);
    if (!json_is_object(j))
        return nd_status_set(st, "BadRequest", NULL,
                             "ops[%zu]: an operation must be an object, not %s", i,
                             nd_json_type_phrase(j));
    const json_t *name = json_object_get(j, "op");
    if (!name)
        return nd_status_set(st, "BadRequest", NULL, "ops[%zu]: missing \"op\"", i);
    if (!json_is_string(name))
        return nd_status_set(st, "BadRequest", NULL, "ops[%zu].op: must be a string, not %s", i,
                             nd_json_type_phrase(name));
    size_t k = 0;
    while (k < sizeof op_names / sizeof op_names[0] && strcmp(op_names[k], json_string_value(name)))
        k++;
    if (k == sizeof op_names / sizeof op_names[0])
        return nd_status_set(st, "BadRequest", NULL,
                             "ops[%zu].op: unknown operation \"%s\" (expected add, remove, "
                             "replace, move, copy or test)",
                             i, json_string_value(name));
    op->kind = (enum op_kind)k;
    const json_t *path = json_object_get(j, "path");
    if (!path)
        return nd_status_set(st, "BadRequest", NULL, "ops[%zu]: missing \"path\"", i);
    if (!json_is_string(path))
        return nd_status_set(st, "BadRequest", NULL, "ops[%zu].path: must be a string, not %s", i,
                             nd_json_type_phrase(path));
    if (op->kind == OP_ADD || op->kind == OP_REPLACE || op->kind == OP_TEST) {
        op->value = json_object_get(j, "value");
        if (!op->value)
            return nd_status_set(st, "BadRequest", NULL,
                                 "ops[%zu]: missing \"value\" (required by %s)", i, op_names[k]);
    }
    if (op->kind == OP_MOVE || op->kind == OP_COPY) {
        const json_t *from = json_object_get(j, "from");
        if (!from)
            return nd_status_set(st, "BadRequest", NULL,
                                 "ops[%zu]: missing \"from\" (required by %s)", i, op_names[k]);
        if (!json_is_string(from))
            return nd_status_set(st, "BadRequest", NULL, "ops[%zu].from: must be a string, not %s",
                                 i, nd_json_type_phrase(from));
        if (pointer_parse(&op->from, json_string_value(from), i, "from", st) < 0)
            return -1;
    }
    if (pointer_parse(&op->path, json_string_value(path), i, "path", st) < 0) {
        pointer_release(&op->from);
        return -1;
    }
    return 0;
}

const struct nd_patch_limits nd_patch_default_limits = {
    .max_ops = ND_PATCH_MAX_OPS,
    .max_copy_bytes = ND_PATCH_MAX_COPY_BYTES,
    .max_depth = ND_PATCH_MAX_DEPTH,
    .max_result_bytes = ND_PATCH_MAX_RESULT_BYTES,
    .max_steps = ND_PATCH_MAX_STEPS,
};

json_t *nd_json_patch_apply(const json_t *doc, const json_t *ops, struct nd_status *st)
{
    return nd_json_patch_apply_limited(doc, ops, &nd_patch_default_limits, st);
}

json_t *nd_json_patch_apply_limited(const json_t *doc, const json_t *ops,
                                    const struct nd_patch_limits *lim, struct nd_status *st)
{
    if (!json_is_array(ops)) {
        nd_status_set(st, "BadRequest", NULL, "a JSON patch must be an array of operations, not %s",
                      ops ? nd_json_type_phrase(ops) : "nothing");
        return NULL;
    }
    size_t n = json_array_size(ops), parsed = 0;
    if (lim && lim->max_ops && n > lim->max_ops) {
        nd_status_set(st, "RequestEntityTooLarge", "split the patch into several requests",
                      "The allowed maximum operations in a JSON patch is %zu, got %zu",
                      lim->max_ops, n);
        return NULL;
    }
    struct budget b = {.lim = lim};
    struct op *list = nd_xcalloc(n ? n : 1, sizeof *list);
    json_t *root = NULL;
    for (; parsed < n; parsed++)
        if (parse_op(json_array_get(ops, parsed), parsed, &list[parsed], st) < 0)
            goto out;

    root = doc ? json_deep_copy(doc) : json_null();
    b.depth = nd_json_depth(root);
    for (size_t i = 0; i < n; i++) {
        const struct op *op = &list[i];
        int rc = 0;
        switch (op->kind) {
        case OP_ADD:
            rc = do_add(&root, op, i, &b, st);
            break;
        case OP_REMOVE:
            rc = do_remove(root, op, i, &b, st);
            break;
        case OP_REPLACE:
            rc = do_replace(&root, op, i, &b, st);
            break;
        case OP_MOVE:
        case OP_COPY:
            rc = do_move_copy(&root, op, i, &b, st);
            break;
        case OP_TEST:
            rc = do_test(root, op, i, st);
            break;
        }
        if (rc < 0) {
            json_decref(root);
            root = NULL;
            break;
        }
    }
out:
    for (size_t i = 0; i < parsed; i++) {
        pointer_release(&list[i].path);
        pointer_release(&list[i].from);
    }
    free(list);
    return root;
}

int nd_patch_check_result(const json_t *obj, const struct nd_patch_limits *lim,
                          struct nd_status *st)
{
    if (!lim)
        return 0;
    size_t n = lim->max_result_bytes ? json_bytes(obj) : 0;
    if (n > lim->max_result_bytes)
        return nd_status_set(st, "RequestEntityTooLarge",
                             "keep objects small: put large data in a Volume's files",
                             "the patched object is %zu bytes, more than the limit of %zu", n,
                             lim->max_result_bytes);
    size_t d = lim->max_depth ? nd_json_depth(obj) : 0;
    if (d > lim->max_depth)
        return nd_status_set(st, "Invalid", NULL,
                             "the patched object nests %zu levels deep, more than the limit of %zu",
                             d, lim->max_depth);
    return 0;
}
