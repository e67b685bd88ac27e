/* table.h: the meta.k8s.io answers: the Tables kubectl's get asks for, and the
 * PartialObjectMetadata(List) of metadata-only clients (accept.h chooses). */
#ifndef EM_TABLE_H
#define EM_TABLE_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "server.h"
#include "table_cells.h"

/* How a Table is made. */
struct em_table_opts {
    const struct em_req *req; /* its ?includeObject= */
    const char *version;      /* meta.k8s.io's: "v1" or "v1beta1" */
    const json_t *list_meta;  /* the Table's metadata; may be NULL */
    bool with_columns;        /* false: columnDefinitions empty (a Table watch after the
                               * first event) */
};

/* One row of a Table: its object, the cache's key (table_cells.h), and the object's
 * own compact JSON when made (obj_bytes; NULL: dumped from o.obj when the row carries
 * the object). */
struct em_table_row {
    struct em_table_obj o;
    struct em_bytes *obj_bytes;
};

/* Appends a Table (compact JSON, no newline) of the n rows with the kind's printer
 * columns (every column, with its priority: kubectl shows priority 1 only with -o wide),
 * cells rendered as a person reads them (ages, money): each revision's cells are made once
 * and kept in srv->table_cells (NULL: made for this answer), ages rendered against the
 * emulator's clock now. Each row's `object` follows ?includeObject= : Metadata (default)
 * a PartialObjectMetadata (without managedFields), Object the whole object, None
 * nothing. */
void em_table_write(struct em_server *srv, const struct nd_kind *k, const struct em_table_row *rows,
                    size_t n, const struct em_table_opts *o, struct nd_buf *out);
/* em_table_write as resp's 200 answer (application/json, a newline after it). */
void em_table_answer(struct em_server *srv, const struct nd_kind *k,
                     const struct em_table_row *rows, size_t n, const struct em_table_opts *o,
                     struct em_resp *resp);

/* The PartialObjectMetadata of obj in meta.k8s.io/version: kind, apiVersion and the whole
 * metadata (managedFields too, as kube-apiserver sends it). NEW. */
json_t *em_partial_object(const json_t *obj, const char *version);
/* A PartialObjectMetadataList of items, with list_meta (may be NULL: {}) as its
 * metadata. NEW. */
json_t *em_partial_list(const json_t *items, const json_t *list_meta, const char *version);

#endif
