/* table.h: the meta.k8s.io/v1 Table answers that kubectl's get asks for. */
#ifndef EM_TABLE_H
#define EM_TABLE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/registry.h"
#include "server.h"

/* A Table of items with the kind's printer columns (every column, with its priority:
 * kubectl shows priority 1 only with -o wide), cells rendered as a person reads them
 * (ages, money). Each row's `object` follows ?includeObject= : Metadata (default) a
 * PartialObjectMetadata, Object the whole object, None nothing. list_meta (may be NULL)
 * becomes the Table's metadata. with_columns false leaves columnDefinitions empty (the
 * events of a Table watch after the first). NEW. */
json_t *em_table_build_ex(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                          const struct em_req *req, const json_t *list_meta, bool with_columns);
json_t *em_table_build(struct em_server *srv, const struct nd_kind *k, const json_t *items,
                       const struct em_req *req, const json_t *list_meta);

#endif
