/* fuzz_limits: what a JSON or YAML text may expand to (struct nd_load_limits, json.h),
 * with small limits so the fuzzer reaches them. Input: a mode byte (bit 0: YAML, else
 * JSON), two bytes of a byte limit (64 + 0..65535), a byte of a node limit (1 + 4 x
 * 0..255), then the text. The oracle, on every input:
 *   - a text that loads holds no more nodes (values and keys) than the node limit, and no
 *     more bytes of strings and keys than the byte limit;
 *   - loading it, refused or not, never has more of jansson's memory live at once than
 *     the limits allow: 512 bytes a node and twice the bytes, plus 64 KiB, measured by an
 *     allocator that counts what jansson holds (what an alias bomb would blow up). */
#include <stdio.h>

#include "fuzz.h"
#include "json/json.h"
#include "yaml/yaml.h"

static size_t live, peak;

struct head {
    size_t size;
    size_t pad; /* keeps the block 16-byte aligned */
};

static void *count_malloc(size_t n)
{
    struct head *h = nd_xmalloc(sizeof *h + n);
    h->size = n;
    live += n;
    if (live > peak)
        peak = live;
    return h + 1;
}

static void count_free(void *p)
{
    if (!p)
        return;
    struct head *h = (struct head *)p - 1;
    live -= h->size;
    free(h);
}

/* Nodes (values and keys) and bytes (strings and keys) of a loaded value. */
static void measure(const json_t *v, size_t *nodes, size_t *bytes)
{
    const char *k;
    json_t *m;
    size_t i;
    (*nodes)++;
    if (json_is_string(v))
        *bytes += json_string_length(v);
    json_object_foreach((json_t *)v, k, m) {
        (*nodes)++;
        *bytes += strlen(k);
        measure(m, nodes, bytes);
    }
    json_array_foreach(v, i, m) measure(m, nodes, bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int installed;
    if (!installed) {
        json_set_alloc_funcs(count_malloc, count_free); /* before any value exists */
        installed = 1;
    }
    if (size < 4)
        return 0;
    bool yaml = data[0] & 1;
    struct nd_load_limits lim = {64 + ((size_t)data[1] << 8 | data[2]), 1 + 4 * (size_t)data[3]};
    const char *text = (const char *)data + 4;
    size_t len = size - 4;

    struct nd_status st = ND_STATUS_INIT;
    size_t before = live;
    peak = live;
    json_t *v = yaml ? nd_yaml_load_limited(text, len, "fuzz", &lim, &st)
                     : nd_json_load_limited(text, len, "fuzz", &lim, &st);
    size_t most = 512 * lim.nodes + 2 * lim.bytes + 65536;
    if (peak - before > most) {
        fprintf(stderr, "%s: %zu bytes of jansson memory live at once, limits %zu bytes %zu "
                        "nodes allow %zu\n", yaml ? "YAML" : "JSON", peak - before, lim.bytes,
                lim.nodes, most);
        FZ_ASSERT(!"the loader held more memory than its limits allow");
    }
    if (v) {
        size_t nodes = 0, bytes = 0;
        measure(v, &nodes, &bytes);
        if (nodes > lim.nodes || bytes > lim.bytes) {
            fprintf(stderr, "loaded %zu nodes, %zu bytes; limits %zu nodes, %zu bytes\n", nodes,
                    bytes, lim.nodes, lim.bytes);
            FZ_ASSERT(!"a loaded text is larger than its limits");
        }
    } else {
        FZ_ASSERT(st.message && st.reason);
    }
    json_decref(v);
    nd_status_release(&st);
    FZ_ASSERT(live == before);
    return 0;
}
