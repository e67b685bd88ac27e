/* PATCH: JSON merge patch, JSON patch, server-side apply, and strategic merge patch for
 * the kinds that take one as kube-apiserver's built-in kinds do (nd_kind.strategic:
 * Namespace). The nodus.dev kinds refuse a strategic merge patch with 415, as
 * kube-apiserver refuses it for a custom resource. */
#include <string.h>
#include <strings.h>

#include "errors.h"
#include "json/json.h"
#include "objects.h"
#include "patch/patch.h"
#include "patch/ssa.h"
#include "patch/strategic.h"
#include "write.h"
#include "yaml/yaml.h"

enum patch_type { PATCH_MERGE, PATCH_JSON, PATCH_APPLY, PATCH_STRATEGIC, PATCH_UNKNOWN };

static enum patch_type patch_type(const char *ct)
{
    if (!ct)
        return PATCH_UNKNOWN;
    if (strncasecmp(ct, "application/merge-patch+json", 28) == 0)
        return PATCH_MERGE;
    if (strncasecmp(ct, "application/json-patch+json", 27) == 0)
        return PATCH_JSON;
    if (strncasecmp(ct, "application/apply-patch+yaml", 28) == 0)
        return PATCH_APPLY;
    if (strncasecmp(ct, "application/strategic-merge-patch+json", 38) == 0)
        return PATCH_STRATEGIC;
    return PATCH_UNKNOWN;
}

static int unsupported(struct em_api *a)
{
    char res[ND_KIND_NAME_MAX];
    const char *name = a->path.name ? a->path.name : "NAME";
    nd_kind_resource_name(a->kind, res, sizeof res);
    if (a->kind->strategic) {
        nd_status_set(&a->st, "UnsupportedMediaType", NULL,
                      "the body of the request was in an unknown format - accepted media "
                      "types include: application/json-patch+json, "
                      "application/merge-patch+json, application/strategic-merge-patch+json, "
                      "application/apply-patch+yaml");
        nd_status_set_fix(&a->st,
                          "send the patch with one of those Content-Types: nodus patch "
                          "%s %s -p PATCH",
                          res, name);
        return -1;
    }
    nd_status_set(&a->st, "UnsupportedMediaType", NULL,
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json-patch+json, application/merge-patch+json, "
                  "application/apply-patch+yaml");
    nd_status_set_fix(&a->st,
                      "%s takes a merge patch, a JSON patch or apply, as a custom resource "
                      "does (not a strategic merge patch): nodus patch %s %s --type merge -p "
                      "PATCH; kubectl patch --type merge",
                      res, res, name);
    return -1;
}

static void default_obj(json_t *obj, void *cls)
{
    nd_kind_default(cls, obj);
}

static int apply(struct em_api *a, struct em_write *w, json_t *old)
{
    bool force;
    if (em_api_query_bool(a, "force", &force) < 0)
        return -1;
    if (!em_req_query(a->req, "fieldManager") || !*em_req_query(a->req, "fieldManager"))
        return nd_status_set(&a->st, "BadRequest", "add ?fieldManager=NAME",
                             "PATCH, fieldManager is required for apply requests");
    json_t *applied = em_api_body(a, true);
    if (!applied)
        return -1;
    int rc = -1;
    json_t *merged = NULL;
    if (!json_object_get(applied, "apiVersion") || !json_object_get(applied, "kind")) {
        nd_status_set(&a->st, "BadRequest", "set apiVersion and kind in the applied object",
                      "apiVersion and kind must be set in an applied configuration");
        goto out;
    }
    if (em_write_check_header(a, applied, a->path.name) < 0)
        goto out;
    const char *rv = json_string_value(
        json_object_get(json_object_get(applied, "metadata"), "resourceVersion"));
    const char *cur = json_string_value(
        json_object_get(json_object_get(old, "metadata"), "resourceVersion"));
    if (rv && *rv && (!old || !cur || strcmp(rv, cur) != 0)) {
        char res[ND_KIND_NAME_MAX];
        nd_status_set(&a->st, old ? "Conflict" : "NotFound",
                      "read the object again, then retry: nodus get KIND NAME -o yaml",
                      old ? "Operation cannot be fulfilled on %s \"%s\": the object has been "
                            "modified; please apply your changes to the latest version and try "
                            "again"
                          : "%s \"%s\" not found",
                      nd_kind_resource_name(a->kind, res, sizeof res), a->path.name);
        nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
        goto out;
    }
    char now[32];
    em_now_rfc3339(a->srv, now);
    w->apply = true;
    if (!old) {
        /* create on PATCH, as kubectl apply --server-side expects */
        if (nd_ssa_apply(NULL, applied,
                         &(struct nd_ssa_opts){.manager = w->manager,
                                               .force = force,
                                               .api_version = a->kind->api_version,
                                               .now = now},
                         &merged, &a->st) < 0)
            goto out;
        if (nd_patch_check_result(merged, &nd_patch_default_limits, &a->st) < 0)
            goto out;
        rc = em_write_create(a, w, merged);
        goto out;
    }
    if (nd_ssa_apply(old, applied,
                     &(struct nd_ssa_opts){.manager = w->manager,
                                           .force = force,
                                           .api_version = a->kind->api_version,
                                           .now = now,
                                           .normalize = default_obj,
                                           .cls = (void *)a->kind},
                     &merged, &a->st) < 0) {
        nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
        goto out;
    }
    if (nd_patch_check_result(merged, &nd_patch_default_limits, &a->st) < 0) {
        nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
        goto out;
    }
    rc = em_write_update(a, w, old, merged);
out:
    json_decref(merged);
    json_decref(applied);
    return rc;
}

int em_api_patch(struct em_api *a)
{
    struct em_write w;
    if (em_write_options(a, &w) < 0)
        return -1;
    enum patch_type t = patch_type(em_req_header(a->req, "content-type"));
    if (t == PATCH_UNKNOWN || (t == PATCH_STRATEGIC && !a->kind->strategic))
        return unsupported(a);
    json_t *old = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (t == PATCH_APPLY)
        return apply(a, &w, old);
    if (!old)
        return em_api_not_found(a, a->path.name);
    json_t *patch = nd_json_load_limited(a->req->body.data, a->req->body.len, "patch",
                                         &em_body_limits, &a->st);
    if (!patch)
        return -1;
    json_t *obj = NULL;
    int rc = -1;
    if (t == PATCH_MERGE) {
        if (!json_is_object(patch)) {
            nd_status_set(&a->st, "BadRequest", NULL, "a merge patch must be a JSON object");
            goto out;
        }
        obj = nd_merge_patch_apply(old, patch);
    } else if (t == PATCH_STRATEGIC) {
        /* the kind's patch strategies; bounded by the steps of merging its lists */
        obj = nd_strategic_patch_apply(old, patch, a->kind->strategic,
                                       &nd_patch_default_limits, &a->st);
        if (!obj) {
            nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
            goto out;
        }
    } else {
        if (!json_is_array(patch)) {
            nd_status_set(&a->st, "BadRequest", NULL,
                          "a JSON patch must be an array of operations");
            goto out;
        }
        /* bounded as it applies (pkg/patch/patch.h): 10,000 operations, 3 MiB of copies */
        obj = nd_json_patch_apply_limited(old, patch, &nd_patch_default_limits, &a->st);
        if (!obj) {
            nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
            goto out;
        }
    }
    if (nd_patch_check_result(obj, &nd_patch_default_limits, &a->st) < 0) {
        nd_status_set_target(&a->st, a->path.name, a->kind->group, a->kind->plural);
        goto out;
    }
    if (!json_is_object(obj) || !json_is_object(json_object_get(obj, "metadata"))) {
        nd_status_set(&a->st, "BadRequest", NULL, "the patched object is not an object with "
                                                  "metadata");
        goto out;
    }
    if (em_write_check_header(a, obj, a->path.name) < 0)
        goto out;
    /* The resourceVersion in the result is the one the patch asked for (a precondition),
     * or the stored one when the patch did not mention it. */
    rc = em_write_update(a, &w, old, obj);
out:
    json_decref(obj);
    json_decref(patch);
    return rc;
}
