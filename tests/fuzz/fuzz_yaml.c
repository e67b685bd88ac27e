/* fuzz_yaml: the libyaml <-> jansson bridge (pkg/yaml) and the -f manifest loader.
 * Input: a YAML stream. Every document that loads is dumped back as YAML and must read
 * back equal (the dumper quotes what would change type). Also nd_yaml_load (exactly one
 * document) and nd_manifest_load_all (YAML or JSON, Lists flattened). */
#include <stdio.h>

#include "kinds/object.h"
#include "fuzz.h"
#include "json/json.h"
#include "yaml/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    const char *text = (const char *)data;
    struct nd_status st = ND_STATUS_INIT;
    json_t *lines = NULL;
    json_t *docs = nd_yaml_load_all_lines(text, size, "fuzz.yaml", &lines, &st);
    if (docs) {
        FZ_ASSERT(json_is_array(docs) && json_array_size(lines) == json_array_size(docs));
        for (int sorted = 0; sorted < 2; sorted++) {
            struct nd_buf out = ND_BUF_INIT;
            struct nd_status st2 = ND_STATUS_INIT;
            if (nd_yaml_dump_all(docs, &out, sorted ? ND_YAML_SORT_KEYS : 0, &st2) == 0) {
                struct nd_status st3 = ND_STATUS_INIT;
                json_t *back = nd_yaml_load_all(out.data, out.len, NULL, &st3);
                if (!back || !nd_json_equal(back, docs)) {
                    fprintf(stderr, "dumped:\n%s\nreload: %s\n", out.data,
                            st3.message ? st3.message : "differs");
                    FZ_ASSERT(!"YAML dump does not read back equal");
                }
                json_decref(back);
                nd_status_release(&st3);
            }
            nd_status_release(&st2);
            nd_buf_release(&out);
        }
    }
    json_decref(docs);
    json_decref(lines);
    nd_status_release(&st);

    json_t *one = nd_yaml_load(text, size, NULL, &st);
    json_decref(one);
    nd_status_release(&st);

    json_t *objs = nd_manifest_load_all(text, size, "-", &st);
    FZ_ASSERT(objs || st.message);
    json_decref(objs);
    nd_status_release(&st);
    return 0;
}
