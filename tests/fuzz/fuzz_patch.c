/* fuzz_patch: JSON patch (RFC 6902), merge patch (RFC 7386), creating a merge patch and
 * kubectl's three-way merge (pkg/patch).
 * Input: one mode byte, then JSON documents separated by "|||":
 *   mode % 4 == 0  DOC ||| OPS             nd_json_patch_apply
 *   mode % 4 == 1  DOC ||| PATCH           nd_merge_patch_apply
 *   mode % 4 == 2  FROM ||| TO             nd_merge_patch_create, and applying the result
 *                                          to FROM must give TO (when TO has no null)
 *   mode % 4 == 3  ORIG ||| MOD ||| CUR    nd_merge_patch_three_way
 * A JSON patch with more than FZ_MAX_COPIES "copy" operations is skipped: each copy may
 * double the document, and bounding that growth is the patch code's job (recorded in the
 * fuzzing report), not the fuzzer's to rediscover on every run. */
#include <stdio.h>

#include "kinds/object.h"
#include "fuzz.h"
#include "json/json.h"
#include "patch/patch.h"

#define FZ_MAX_COPIES 8

static json_t *load(const uint8_t *p, size_t n)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_json_load((const char *)p, n, NULL, &st);
    nd_status_release(&st);
    return v;
}

static bool has_null(const json_t *v)
{
    const char *k;
    json_t *m;
    size_t i;
    if (json_is_null(v))
        return true;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, m) {
            if (has_null(m))
                return true;
        }
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, m) {
            if (has_null(m))
                return true;
        }
    }
    return false;
}

static size_t copies(const json_t *ops)
{
    size_t i, n = 0;
    json_t *op;
    json_array_foreach(ops, i, op) {
        const char *name = json_string_value(json_object_get(op, "op"));
        if (name && strcmp(name, "copy") == 0)
            n++;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    int mode = data[0] % 4;
    const uint8_t *a, *rest, *b, *c;
    size_t a_len, rest_len, b_len, c_len;
    fz_split(data + 1, size - 1, "|||", &a, &a_len, &rest, &rest_len);
    fz_split(rest, rest_len, "|||", &b, &b_len, &c, &c_len);
    json_t *x = load(a, a_len), *y = load(b, b_len), *z = mode == 3 ? load(c, c_len) : NULL;
    struct nd_status st = ND_STATUS_INIT;
    json_t *out = NULL;
    switch (mode) {
    case 0:
        if (x && y && copies(y) <= FZ_MAX_COPIES) {
            json_t *before = json_deep_copy(x);
            out = nd_json_patch_apply(x, y, &st);
            FZ_ASSERT(out || st.message);
            FZ_ASSERT(nd_json_equal(before, x)); /* the input is never modified */
            json_decref(before);
        }
        break;
    case 1:
        out = nd_merge_patch_apply(x, y);
        FZ_ASSERT(out);
        break;
    case 2:
        if (x && y) {
            out = nd_merge_patch_create(x, y);
            FZ_ASSERT(out);
            if (json_is_object(x) && json_is_object(y) && !has_null(y)) {
                json_t *back = nd_merge_patch_apply(x, out);
                FZ_ASSERT(nd_json_equal(back, y));
                json_decref(back);
            }
        }
        break;
    default:
        out = nd_merge_patch_three_way(x, y, z, &st);
        FZ_ASSERT(out || st.message);
        break;
    }
    json_decref(out);
    json_decref(x);
    json_decref(y);
    json_decref(z);
    nd_status_release(&st);
    return 0;
}
