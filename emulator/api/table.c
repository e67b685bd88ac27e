/* Table answers; see table.h. */
#include "table.h"

#include <string.h>

#include "http.h"

static json_t *partial_metadata(const json_t *obj)
{
    /* references to the stored values (never changed in place), without managedFields */
    json_t *meta = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(obj, "metadata"), key, v) {
        if (strcmp(key, "managedFields") != 0)
            json_object_set(meta, key, v);
    }
    return json_pack("{ssssso}", "kind", "PartialObjectMetadata", "apiVersion", "meta.k8s.io/v1",
                     "metadata", meta);
}

json_t *em_table_build_ex(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                          const struct em_req *req, const json_t *list_meta, bool with_columns)
{
    const char *include = em_req_query(req, "includeObject");
    if (!include || !*include)
        include = "Metadata";
    int64_t now = em_clock_now_ms(&srv->clock) / 1000;
    json_t *defs = json_array();
    if (with_columns)
        for (const struct nd_column *c = k->columns; c->name; c++)
            json_array_append_new(defs, nd_column_definition(c));
    json_t *rows = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(items, i, obj) {
        json_t *cells = json_array();
        for (const struct nd_column *c = k->columns; c->name; c++) {
            struct nd_buf cell = ND_BUF_INIT;
            nd_column_render(c, obj, now, &cell);
            json_t *s = json_string(cell.data);
            json_array_append_new(cells, s ? s : json_string(""));
            nd_buf_release(&cell);
        }
        json_t *row = json_pack("{so}", "cells", cells);
        if (strcmp(include, "Object") == 0)
            json_object_set(row, "object", (json_t *)obj);
        else if (strcmp(include, "None") != 0)
            json_object_set_new(row, "object", partial_metadata(obj));
        json_array_append_new(rows, row);
    }
    json_t *meta = list_meta ? json_deep_copy(list_meta) : json_object();
    return json_pack("{sssssososo}", "kind", "Table", "apiVersion", "meta.k8s.io/v1", "metadata",
                     meta, "columnDefinitions", defs, "rows", rows);
}

json_t *em_table_build(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                       const struct em_req *req, const json_t *list_meta)
{
    return em_table_build_ex(srv, k, items, req, list_meta, true);
}
