/* fuzz_json: JSON loading (pkg/json): one value (nd_json_load) and a stream of values
 * (nd_json_load_stream). A value that loads is dumped in every style and must read back
 * equal, unless it holds an integral real of magnitude 2^63 or more: the dumper writes
 * those as encoding/json does (1e20 as 100000000000000000000, what kubectl prints) and
 * the loader, like jansson, refuses an integer outside int64 (found by this target;
 * kept as it is: see tests/fuzz/regress/json/). */
#include <math.h>
#include <stdio.h>

#include "kinds/object.h"
#include "fuzz.h"
#include "json/json.h"

static bool has_big_real(const json_t *v)
{
    const char *k;
    json_t *m;
    size_t i;
    if (json_is_real(v)) {
        double d = json_real_value(v);
        return d == floor(d) && fabs(d) >= 9223372036854775808.0 && fabs(d) < 1e21;
    }
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, m) {
            if (has_big_real(m))
                return true;
        }
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, m) {
            if (has_big_real(m))
                return true;
        }
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const char *text = (const char *)data;
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_json_load(text, size, "fuzz.json", &st);
    if (v && has_big_real(v)) {
        struct nd_buf out = ND_BUF_INIT;
        nd_json_dump(v, &out, ND_JSON_COMPACT); /* written, not read back */
        nd_buf_release(&out);
    } else if (v) {
        FZ_ASSERT(nd_json_depth(v) <= ND_JSON_MAX_DEPTH);
        static const int flags[] = {ND_JSON_COMPACT, ND_JSON_PRETTY | ND_JSON_SORT_KEYS,
                                    ND_JSON_PRETTY | ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML};
        for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
            struct nd_buf out = ND_BUF_INIT;
            if (nd_json_dump(v, &out, flags[i]) == 0) {
                struct nd_status st2 = ND_STATUS_INIT;
                json_t *back = nd_json_load(out.data, out.len, NULL, &st2);
                if (!back || !nd_json_equal(back, v)) {
                    fprintf(stderr, "dumped: %s\nreload: %s\n", out.data,
                            st2.message ? st2.message : "differs");
                    FZ_ASSERT(!"JSON dump does not read back equal");
                }
                json_decref(back);
                nd_status_release(&st2);
            }
            nd_buf_release(&out);
        }
    } else {
        FZ_ASSERT(st.message);
    }
    json_decref(v);
    nd_status_release(&st);

    json_t *lines = NULL;
    json_t *all = nd_json_load_stream(text, size, NULL, &lines, &st);
    if (all)
        FZ_ASSERT(json_array_size(all) == json_array_size(lines));
    json_decref(all);
    json_decref(lines);
    nd_status_release(&st);
    return 0;
}
