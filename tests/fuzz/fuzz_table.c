/* fuzz_table: nd_table_bytes_page (pkg/print/table_bytes.c), get's table read from a
 * Table answer's bytes, against the tree path it stands in for: whatever pages it takes,
 * nd_json_load must take each, the pages merged as get merges them (get_collect: the
 * first Table's rows, the later pages' rows appended) must make
 * nd_print_table_from_server succeed, and both tables must render the same bytes; the
 * continue tokens must be the tree's. The first input byte picks the options (-o wide,
 * --no-headers, --show-kind, -A, --show-labels, -L app, colour); the rest is the pages,
 * separated by a byte 0x01 (which no JSON text holds outside a string, nor inside). */
#include <stdio.h>

#include "fuzz.h"
#include "json/json.h"
#include "print/print.h"

#define MAX_PAGES 4

/* get_collect's merge of a Table page into the first (cmd/nodus/verbs/get.c). */
static void collect(json_t **table, json_t *answer)
{
    if (!*table) {
        *table = json_incref(answer);
        return;
    }
    json_array_extend(json_object_get(*table, "rows"), json_object_get(answer, "rows"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (!size)
        return 0;
    unsigned pick = data[0];
    static const char *const labels[] = {"app", "nodus.dev/team", NULL};
    struct nd_print_opts o;
    nd_print_opts_init(&o);
    o.output = pick & 1 ? ND_OUTPUT_WIDE : ND_OUTPUT_TABLE;
    o.no_headers = pick & 2;
    o.show_kind = pick & 4;
    o.all_projects = pick & 8;
    o.show_labels = pick & 16;
    o.label_columns = pick & 32 ? labels : NULL;
    o.color = pick & 64;
    const struct nd_kind *k = nd_kind_lookup(pick & 128 ? "pools" : "jobs");

    const char *page[MAX_PAGES];
    size_t len[MAX_PAGES], n = 0;
    const char *p = (const char *)data + 1, *e = (const char *)data + size;
    while (n < MAX_PAGES) {
        const char *sep = memchr(p, 0x01, (size_t)(e - p));
        page[n] = p;
        len[n++] = (size_t)((sep ? sep : e) - p);
        if (!sep)
            break;
        p = sep + 1;
    }

    struct nd_table fast;
    nd_table_init(&fast);
    struct nd_table_bytes tb = {.t = &fast, .k = k, .opts = &o};
    char *cont[MAX_PAGES] = {NULL};
    bool took = true;
    for (size_t i = 0; took && i < n; i++)
        took = nd_table_bytes_page(&tb, page[i], len[i], &cont[i]) == 0;
    nd_table_bytes_release(&tb);

    if (took) {
        json_t *table = NULL;
        for (size_t i = 0; i < n; i++) {
            struct nd_status st = ND_STATUS_INIT;
            json_t *v = nd_json_load(page[i], len[i], NULL, &st);
            if (!v) {
                fprintf(stderr, "page %zu: the loader refuses it: %s\n", i, st.message);
                FZ_ASSERT(!"the bytes path took a page the loader refuses");
            }
            const char *kind = json_string_value(json_object_get(v, "kind"));
            FZ_ASSERT(kind && strcmp(kind, "Table") == 0);
            const char *c =
                json_string_value(json_object_get(json_object_get(v, "metadata"), "continue"));
            bool some = c && *c;
            FZ_ASSERT(some == (cont[i] != NULL) && (!some || strcmp(c, cont[i]) == 0));
            collect(&table, v);
            json_decref(v);
            nd_status_release(&st);
        }
        struct nd_status st = ND_STATUS_INIT;
        struct nd_table tree;
        nd_table_init(&tree);
        if (nd_print_table_from_server(&tree, table, k, &o, &st) < 0) {
            fprintf(stderr, "the tree path refuses it: %s\n", st.message);
            FZ_ASSERT(!"the bytes path took a Table the tree path refuses");
        }
        struct nd_buf a = ND_BUF_INIT, b = ND_BUF_INIT;
        fast.no_headers = tree.no_headers = o.no_headers;
        FZ_ASSERT(nd_table_render(&fast, &a) == 0 && nd_table_render(&tree, &b) == 0);
        if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len))) {
            fprintf(stderr, "tree:\n%s\nbytes:\n%s\n", b.data ? b.data : "",
                    a.data ? a.data : "");
            FZ_ASSERT(!"the bytes path's table differs from the tree's");
        }
        nd_buf_release(&a);
        nd_buf_release(&b);
        nd_table_release(&tree);
        nd_status_release(&st);
        json_decref(table);
    }
    for (size_t i = 0; i < n; i++)
        free(cont[i]);
    nd_table_release(&fast);
    nd_print_opts_release(&o);
    return 0;
}
