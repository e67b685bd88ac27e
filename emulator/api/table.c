/* Table answers; see table.h. */
#include "table.h"

#include <string.h>

#include "http.h"

static json_t *partial(const json_t *obj, const char *version, bool managed)
{
    /* references to the stored values (never changed in place) */
    json_t *meta = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(obj, "metadata"), key, v) {
        if (managed || strcmp(key, "managedFields") != 0)
            json_object_set(meta, key, v);
    }
    json_t *api_version = json_sprintf("meta.k8s.io/%s", version);
    return json_pack("{ssso so}", "kind", "PartialObjectMetadata", "apiVersion", api_version,
                     "metadata", meta);
}

json_t *em_partial_object(const json_t *obj, const char *version)
{
    return partial(obj, version, true);
}

json_t *em_partial_list(const json_t *items, const json_t *list_meta, const char *version)
{
    json_t *out = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(items, i, obj)
        json_array_append_new(out, partial(obj, version, true));
    return json_pack("{sosssoso}", "apiVersion", json_sprintf("meta.k8s.io/%s", version), "kind",
                     "PartialObjectMetadataList", "metadata",
                     list_meta ? json_deep_copy(list_meta) : json_object(), "items", out);
}

json_t *em_table_build_ex(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                          const struct em_table_opts *o)
{
    const struct em_req *req = o->req;
    const char *include = em_req_query(req, "includeObject");
    if (!include || !*include)
        include = "Metadata";
    int64_t now = em_clock_now_ms(&srv->clock) / 1000;
    json_t *defs = json_array();
    if (o->with_columns)
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
            json_object_set_new(row, "object", partial(obj, o->version, false));
        json_array_append_new(rows, row);
    }
    json_t *meta = o->list_meta ? json_deep_copy(o->list_meta) : json_object();
    return json_pack("{ssso so so so}", "kind", "Table", "apiVersion",
                     json_sprintf("meta.k8s.io/%s", o->version), "metadata", meta,
                     "columnDefinitions", defs, "rows", rows);
}

json_t *em_table_build(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                       const struct em_req *req, const char *version, const json_t *list_meta)
{
    return em_table_build_ex(
        srv, k, items,
        &(struct em_table_opts){
            .req = req, .version = version, .list_meta = list_meta, .with_columns = true});
}
