/* fuzz_strategic: strategic merge patch (pkg/patch/strategic.c) with Namespace's patch
 * strategies and a few merging lists of the fuzzer's own.
 * Input: DOC ||| PATCH (JSON). Asserts: an answer or an error with a message; neither
 * input is modified; the result is an object; and, for a patch without directives ('$'
 * members) or lists, the result equals the merge patch's (RFC 7386), which a strategic
 * merge patch then is. */
#include <stdio.h>

#include "kinds/object.h"
#include "fuzz.h"
#include "json/json.h"
#include "patch/strategic.h"

static const struct nd_smp_field fields[] = {
    {"spec.finalizers", ND_SMP_REPLACE, NULL},
    {"spec.l", ND_SMP_MERGE, "k"},
    {"spec.l.m", ND_SMP_MERGE, NULL},
    {"spec.t", ND_SMP_MERGE, NULL},
    {NULL, 0, NULL},
};

static json_t *load(const uint8_t *p, size_t n)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_json_load((const char *)p, n, NULL, &st);
    nd_status_release(&st);
    return v;
}

/* No list and no member starting with '$' anywhere in v. */
static bool plain(const json_t *v)
{
    const char *k;
    json_t *m;
    if (json_is_array(v))
        return false;
    json_object_foreach((json_t *)v, k, m)
    {
        if (k[0] == '$' || !plain(m))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const uint8_t *a, *b;
    size_t a_len, b_len;
    fz_split(data, size, "|||", &a, &a_len, &b, &b_len);
    json_t *doc = load(a, a_len), *patch = load(b, b_len);
    if (!patch) {
        json_decref(doc);
        return 0;
    }
    json_t *doc0 = doc ? json_deep_copy(doc) : NULL, *patch0 = json_deep_copy(patch);
    struct nd_status st = ND_STATUS_INIT;
    json_t *out = nd_strategic_patch_apply(doc, patch, fields, &nd_patch_default_limits, &st);
    FZ_ASSERT(out ? json_is_object(out) : st.message && st.fix);
    FZ_ASSERT(nd_json_equal(patch, patch0)); /* the inputs are never modified */
    FZ_ASSERT(!doc || nd_json_equal(doc, doc0));
    if (out && plain(patch)) {
        json_t *merged = nd_merge_patch_apply(json_is_object(doc) ? doc : NULL, patch);
        FZ_ASSERT(nd_json_equal(out, merged));
        json_decref(merged);
    }
    json_decref(out);
    json_decref(doc);
    json_decref(doc0);
    json_decref(patch);
    json_decref(patch0);
    nd_status_release(&st);
    return 0;
}
