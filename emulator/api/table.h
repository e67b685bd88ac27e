/* table.h: the meta.k8s.io answers: the Tables kubectl's get asks for, and the
 * PartialObjectMetadata(List) of metadata-only clients (accept.h chooses). */
#ifndef EM_TABLE_H
#define EM_TABLE_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "server.h"

/* How a Table is made. */
struct em_table_opts {
    const struct em_req *req; /* its ?includeObject= */
    const char *version;      /* meta.k8s.io's: "v1" or "v1beta1" */
    const json_t *list_meta;  /* the Table's metadata; may be NULL */
    bool with_columns;        /* false: columnDefinitions empty (a Table watch after the
                               * first event) */
};

/* A Table of items with the kind's printer columns (every column, with its priority:
 * kubectl shows priority 1 only with -o wide), cells rendered as a person reads them
 * (ages, money). Each row's `object` follows ?includeObject= : Metadata (default) a
 * PartialObjectMetadata (without managedFields), Object the whole object, None nothing.
 * NEW. */
json_t *em_table_build_ex(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                          const struct em_table_opts *o);
/* The same with columns, list_meta may be NULL. NEW. */
json_t *em_table_build(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                       const struct em_req *req, const char *version, const json_t *list_meta);

/* The PartialObjectMetadata of obj in meta.k8s.io/version: kind, apiVersion and the whole
 * metadata (managedFields too, as kube-apiserver sends it). NEW. */
json_t *em_partial_object(const json_t *obj, const char *version);
/* A PartialObjectMetadataList of items, with list_meta (may be NULL: {}) as its
 * metadata. NEW. */
json_t *em_partial_list(const json_t *items, const json_t *list_meta, const char *version);

#endif
