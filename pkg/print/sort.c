/* sort.c: --sort-by, comparing values as kubectl's sorter does
 * (k8s.io/kubectl/pkg/cmd/get/sorter.go, isLess on unstructured values): numbers of one
 * type numerically, strings as quantities when both parse as one, else byte by byte.
 * The sort itself is a stable merge sort. */
#include "print/print.h"

#include <stdlib.h>
#include <string.h>

#include "jsonpath/jsonpath.h"
#include "util/quantity.h"
#include "util/quote.h"
#include "util/xmalloc.h"

enum vclass { V_MISSING, V_NULL, V_INT, V_REAL, V_STRING, V_BOOL, V_OBJECT, V_ARRAY };

static const char *class_names[] = {"missing", "null",    "integer", "real",
                                    "string",  "boolean", "object",  "array"};

struct key {
    enum vclass c;
    const json_t *v; /* borrowed from found */
    json_t *found;   /* the evaluation, owned */
    bool is_q;
    struct nd_quantity q;
};

static enum vclass class_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
        return V_NULL;
    case JSON_INTEGER:
        return V_INT;
    case JSON_REAL:
        return V_REAL;
    case JSON_STRING:
        return V_STRING;
    case JSON_TRUE:
    case JSON_FALSE:
        return V_BOOL;
    case JSON_OBJECT:
        return V_OBJECT;
    case JSON_ARRAY:
        return V_ARRAY;
    }
    return V_NULL;
}

static int cmp_keys(const struct key *a, const struct key *b)
{
    if (a->c == V_MISSING || b->c == V_MISSING || a->c == V_NULL || b->c == V_NULL)
        return (int)a->c - (int)b->c; /* missing < null < any value */
    if (a->c == V_INT) {
        json_int_t x = json_integer_value(a->v), y = json_integer_value(b->v);
        return x < y ? -1 : x > y;
    }
    if (a->c == V_REAL) {
        double x = json_real_value(a->v), y = json_real_value(b->v);
        return x < y ? -1 : x > y;
    }
    if (a->is_q && b->is_q)
        return nd_quantity_cmp(&a->q, &b->q);
    size_t la = json_string_length(a->v), lb = json_string_length(b->v);
    int c = memcmp(json_string_value(a->v), json_string_value(b->v), la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}

/* Stable merge sort of the indexes idx[0..n) by keys. */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const struct key *keys)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(idx, tmp, h, keys);
    merge_sort(idx + h, tmp, n - h, keys);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_keys(&keys[idx[j]], &keys[idx[i]]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

/* Sorts arr's elements by the value at path in each element (or in its member `member`). */
static int sort_array(json_t *arr, const char *member, const char *path, struct nd_status *st)
{
    if (!json_is_array(arr))
        return nd_status_set(st, "Invalid", NULL, "nothing to sort: not a list");
    char *field = nd_jsonpath_relaxed(path);
    if (!field)
        return nd_status_set(st, "Invalid", NULL, "%s", ND_JSONPATH_RELAXED_ERROR);
    size_t n = json_array_size(arr);
    struct key *keys = nd_xcalloc(n + 1, sizeof *keys);
    size_t *idx = nd_xcalloc(n + 1, sizeof *idx), *tmp = nd_xcalloc(n + 1, sizeof *tmp);
    struct nd_buf q = ND_BUF_INIT;
    int rc = -1;
    struct nd_status pst = ND_STATUS_INIT;
    struct nd_jsonpath *jp = nd_jsonpath_parse(field, &pst);
    if (!jp) {
        nd_status_set(st, "Invalid", NULL, "%s", pst.message);
        goto out;
    }
    bool found_once = false;
    size_t nvalues = 0;
    enum vclass seen = V_MISSING, unsortable = V_MISSING;
    for (size_t i = 0; i < n; i++) {
        const json_t *el = json_array_get(arr, i);
        const json_t *target = member ? json_object_get(el, member) : el;
        idx[i] = i;
        keys[i].c = V_MISSING;
        if (!target)
            continue;
        keys[i].found = nd_jsonpath_eval(jp, target, true, &pst);
        if (!keys[i].found) {
            nd_status_set(st, "Invalid", NULL, "%s", pst.message);
            goto out;
        }
        const json_t *first = json_array_get(json_array_get(keys[i].found, 0), 0);
        if (!first)
            continue;
        found_once = true;
        keys[i].v = first;
        keys[i].c = class_of(first);
        if (keys[i].c == V_NULL)
            continue;
        nvalues++;
        if (keys[i].c >= V_BOOL) {
            unsortable = keys[i].c;
        } else if (seen == V_MISSING) {
            seen = keys[i].c;
        } else if (keys[i].c != seen) {
            nd_status_set(st, "Invalid", NULL, "Field %s is an unsortable type: %s and %s", field,
                          class_names[seen], class_names[keys[i].c]);
            goto out;
        }
        if (keys[i].c == V_STRING) {
            struct nd_status qst = ND_STATUS_INIT;
            keys[i].is_q = nd_quantity_parse(json_string_value(first), &keys[i].q, &qst) == 0;
            nd_status_release(&qst);
        }
    }
    if (n > 0 && !found_once) {
        nd_quote(&q, field, 0);
        nd_status_set(st, "Invalid", NULL,
                      "couldn't find any field with path %s in the list of objects", q.data);
        goto out;
    }
    /* kubectl fails when it compares two of them; with one alone it never compares */
    if (unsortable != V_MISSING && nvalues >= 2) {
        nd_status_set(st, "Invalid", NULL, "Field %s is an unsortable type: %s", field,
                      class_names[unsortable]);
        goto out;
    }
    merge_sort(idx, tmp, n, keys);
    json_t *sorted = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append(sorted, json_array_get(arr, idx[i]));
    json_array_clear(arr);
    json_array_extend(arr, sorted);
    json_decref(sorted);
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        json_decref(keys[i].found);
    free(keys);
    free(idx);
    free(tmp);
    free(field);
    nd_jsonpath_free(jp);
    nd_status_release(&pst);
    nd_buf_release(&q);
    return rc;
}

int nd_print_sort(json_t *objects, const char *jsonpath, struct nd_status *st)
{
    return sort_array(objects, NULL, jsonpath, st);
}

int nd_print_sort_table(json_t *table, const char *jsonpath, struct nd_status *st)
{
    json_t *rows = json_object_get(table, "rows");
    if (!rows || json_is_null(rows)) {
        json_t *none = json_array(); /* still checks the path */
        int rc = sort_array(none, "object", jsonpath, st);
        json_decref(none);
        return rc;
    }
    return sort_array(rows, "object", jsonpath, st);
}
