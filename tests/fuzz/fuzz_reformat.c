/* fuzz_reformat: nd_json_reformat (pkg/json/json_pretty.c), the -o json printer that
 * writes from the bytes, against the tree path it stands in for: whatever text it takes,
 * nd_json_load must take too and nd_json_dump must write the same bytes (managedFields
 * left out of metadata as get -o json leaves it out). The first input byte picks the
 * flags, the indent level, whether managedFields goes and whether from each element of
 * an array; the rest is the text. nd_json_object_members runs on it too (it must only
 * not crash). */
#include <stdio.h>

#include "fuzz.h"
#include "json/json.h"

static void drop_managed(json_t *v)
{
    json_t *meta = json_object_get(v, "metadata");
    if (json_is_object(meta))
        json_object_del(meta, "managedFields");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (!size)
        return 0;
    static const int flags[] = {ND_JSON_PRETTY | ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML,
                                ND_JSON_SORT_KEYS, ND_JSON_PRETTY | ND_JSON_SORT_KEYS,
                                ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML};
    unsigned pick = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    struct nd_json_reformat o = {.flags = flags[pick & 3], .level = (int)((pick >> 3) & 3),
                                 .max_depth = ND_JSON_MAX_DEPTH};
    if (pick & 4) {
        o.drop[0] = "metadata";
        o.drop[1] = "managedFields";
    }
    o.each = (pick & 0x20) != 0;
    struct nd_buf fast = ND_BUF_INIT;
    if (nd_json_reformat(text, len, &o, &fast) == 0) {
        struct nd_status st = ND_STATUS_INIT;
        json_t *v = nd_json_load(text, len, NULL, &st);
        if (!v) {
            fprintf(stderr, "reformatted what the loader refuses (%s): %.*s\n", st.message,
                    (int)fast.len, fast.data);
            FZ_ASSERT(!"reformat took text the loader refuses");
        }
        if ((pick & 4) && o.each && json_is_array(v)) {
            size_t i;
            json_t *el;
            json_array_foreach(v, i, el) drop_managed(el);
        } else if (pick & 4) {
            drop_managed(v);
        }
        struct nd_buf tree = ND_BUF_INIT, want = ND_BUF_INIT;
        FZ_ASSERT(nd_json_dump(v, &tree, o.flags) == 0);
        /* at level L every line break is followed by 4L more spaces (a string's own
         * line breaks are escaped) */
        for (size_t i = 0; i < tree.len; i++) {
            nd_buf_addch(&want, tree.data[i]);
            if (tree.data[i] == '\n')
                for (int l = 0; l < o.level; l++)
                    nd_buf_adds(&want, "    ");
        }
        if (want.len != fast.len || (want.len && memcmp(want.data, fast.data, want.len))) {
            fprintf(stderr, "tree: %s\nfast: %s\n", want.data, fast.data);
            FZ_ASSERT(!"reformat differs from the tree's dump");
        }
        nd_buf_release(&want);
        nd_buf_release(&tree);
        json_decref(v);
        nd_status_release(&st);
    }
    nd_buf_release(&fast);

    struct nd_json_member *m;
    size_t n;
    if (nd_json_object_members(text, len, &m, &n) == 0)
        free(m);
    return 0;
}
