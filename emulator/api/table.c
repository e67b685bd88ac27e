/* Table answers; see table.h. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "http.h"

static json_t *partial(const json_t *obj, const char *version)
{
    /* references to the stored values (never changed in place) */
    json_t *meta = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(obj, "metadata"), key, v)
        json_object_set(meta, key, v);
    json_t *api_version = json_sprintf("meta.k8s.io/%s", version);
    return json_pack("{ssso so}", "kind", "PartialObjectMetadata", "apiVersion", api_version,
                     "metadata", meta);
}

json_t *em_partial_object(const json_t *obj, const char *version)
{
    return partial(obj, version);
}

json_t *em_partial_list(const json_t *items, const json_t *list_meta, const char *version)
{
    json_t *out = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(items, i, obj)
        json_array_append_new(out, partial(obj, version));
    return json_pack("{sosssoso}", "apiVersion", json_sprintf("meta.k8s.io/%s", version), "kind",
                     "PartialObjectMetadataList", "metadata",
                     list_meta ? json_deep_copy(list_meta) : json_object(), "items", out);
}

/* The columnDefinitions array of k, compact JSON. */
static void add_definitions(const struct nd_kind *k, struct nd_buf *out)
{
    json_t *defs = json_array();
    for (const struct nd_column *c = k->columns; c->name; c++)
        json_array_append_new(defs, nd_column_definition(c));
    char *text = json_dumps(defs, JSON_COMPACT);
    nd_buf_adds(out, text);
    free(text);
    json_decref(defs);
}

/* A row's object as ?includeObject= asks (include: "Object", "None", else metadata). */
static void add_object(struct em_table_cells *cells, const struct nd_kind *k,
                       const struct em_table_row *r, const char *include, const char *version,
                       struct nd_buf *out)
{
    if (strcmp(include, "None") == 0)
        return;
    nd_buf_adds(out, ",\"object\":");
    if (strcmp(include, "Object") == 0) {
        if (r->obj_bytes) {
            nd_buf_add(out, r->obj_bytes->data, r->obj_bytes->len);
        } else {
            char *text = json_dumps(r->o.obj, JSON_COMPACT);
            nd_buf_adds(out, text);
            free(text);
        }
        return;
    }
    nd_buf_addf(out, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/%s\","
                     "\"metadata\":",
                version);
    em_table_cells_meta(cells, k, &r->o, out);
    nd_buf_addch(out, '}');
}

void em_table_write(struct em_server *srv, const struct nd_kind *k, const struct em_table_row *rows,
                    size_t n, const struct em_table_opts *o, struct nd_buf *out)
{
    const char *include = em_req_query(o->req, "includeObject");
    if (!include || !*include)
        include = "Metadata";
    int64_t now = em_clock_now_ms(&srv->clock) / 1000;
    nd_buf_addf(out, "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":",
                o->version);
    char *meta = o->list_meta ? json_dumps(o->list_meta, JSON_COMPACT) : NULL;
    nd_buf_adds(out, meta ? meta : "{}");
    free(meta);
    nd_buf_adds(out, ",\"columnDefinitions\":");
    if (o->with_columns)
        add_definitions(k, out);
    else
        nd_buf_adds(out, "[]");
    nd_buf_adds(out, ",\"rows\":[");
    struct em_table_cells *cells = srv->table_cells;
    em_table_cells_lock(cells);
    for (size_t i = 0; i < n; i++) {
        nd_buf_adds(out, i ? ",{\"cells\":" : "{\"cells\":");
        em_table_cells_row(cells, k, &rows[i].o, now, out);
        add_object(cells, k, &rows[i], include, o->version, out);
        nd_buf_addch(out, '}');
    }
    em_table_cells_unlock(cells);
    nd_buf_adds(out, "]}");
}

void em_table_answer(struct em_server *srv, const struct nd_kind *k,
                     const struct em_table_row *rows, size_t n, const struct em_table_opts *o,
                     struct em_resp *resp)
{
    resp->code = 200;
    nd_buf_reset(&resp->body);
    em_table_write(srv, k, rows, n, o, &resp->body);
    nd_buf_addch(&resp->body, '\n');
    em_resp_set_type(resp, "application/json");
}
