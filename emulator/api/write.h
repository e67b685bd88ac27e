/* write.h: the pipeline every write request goes through (api_write.c), shared by
 * create, replace, the patches and server-side apply. */
#ifndef EM_WRITE_H
#define EM_WRITE_H

#include "api.h"

/* How the write records field ownership. */
struct em_write {
    bool dry_run;
    enum nd_field_validation fv;
    char manager[128];
    bool status_only; /* the status subresource */
    bool apply;       /* server-side apply: managedFields already computed */
};

/* Reads dryRun, fieldValidation and fieldManager. -1 with a->st on a bad value. */
int em_write_options(struct em_api *a, struct em_write *w);
/* Checks apiVersion, kind, metadata.namespace and metadata.name of a body against the
 * path, and fills what it leaves out. -1 with a->st. */
int em_write_check_header(struct em_api *a, json_t *obj, const char *path_name);
/* Creates obj (a body already checked by em_write_check_header): server metadata,
 * defaults, validation, the same-spec retry rule, then store (unless dry run) and answer
 * 201 (200 for a retry). Steals nothing. */
int em_write_create(struct em_api *a, struct em_write *w, json_t *obj);
/* Replaces old (the stored object) with obj (a full object): conditional on
 * resourceVersion, carries server-set metadata and status over, validates, checks
 * immutable and reserved fields, then stores (unless dry run or no change) and
 * answers 200. Steals nothing. */
int em_write_update(struct em_api *a, struct em_write *w, json_t *old, json_t *obj);

#endif
