/* DELETE of one object and of a collection: options from the body or the query,
 * preconditions, dry run, propagation policy. */
#include <string.h>

#include "errors.h"
#include "json/json.h"
#include "objects.h"
#include "table.h"
#include "write.h"

struct delete_opts {
    bool dry_run;
    const char *propagation;
    const char *pre_rv;
    const char *pre_uid;
    json_t *body; /* owns the strings above when they came from the body */
};

static int delete_options(struct em_api *a, struct delete_opts *o)
{
    memset(o, 0, sizeof *o);
    if (em_api_dry_run(a, &o->dry_run) < 0)
        return -1;
    o->propagation = em_req_query(a->req, "propagationPolicy");
    /* orphanDependents (deprecated) and gracePeriodSeconds were checked by the table of
     * query.h: nothing here waits out a grace period */
    bool orphan;
    if (em_api_query_bool(a, "orphanDependents", &orphan) < 0)
        return -1;
    if (orphan)
        o->propagation = "Orphan";
    if (a->req->body.len) {
        o->body = nd_json_load_limited(a->req->body.data, a->req->body.len, "body",
                                       &em_body_limits, &a->st);
        if (!o->body)
            return -1;
        if (!json_is_object(o->body))
            return nd_status_set(&a->st, "BadRequest", NULL, "DeleteOptions must be an object");
        const char *pp = json_string_value(json_object_get(o->body, "propagationPolicy"));
        if (pp)
            o->propagation = pp;
        if (json_is_true(json_object_get(o->body, "orphanDependents")))
            o->propagation = "Orphan";
        json_t *dr = json_object_get(o->body, "dryRun");
        size_t i;
        json_t *v;
        json_array_foreach(dr, i, v) {
            if (json_is_string(v) && strcmp(json_string_value(v), "All") == 0)
                o->dry_run = true;
            else
                return nd_status_set(&a->st, "BadRequest", NULL,
                                     "invalid dry run value (the only value is All)");
        }
        json_t *gp = json_object_get(o->body, "gracePeriodSeconds");
        if (gp && !json_is_null(gp) && (!json_is_integer(gp) || json_integer_value(gp) < 0))
            return nd_status_set(&a->st, "BadRequest", "give a whole number of seconds, such as 0",
                                 "gracePeriodSeconds: must be a whole number of seconds, 0 or "
                                 "more");
        json_t *pre = json_object_get(o->body, "preconditions");
        o->pre_rv = json_string_value(json_object_get(pre, "resourceVersion"));
        o->pre_uid = json_string_value(json_object_get(pre, "uid"));
    }
    if (o->propagation && strcmp(o->propagation, "Background") != 0 &&
        strcmp(o->propagation, "Foreground") != 0 && strcmp(o->propagation, "Orphan") != 0)
        return nd_status_set(&a->st, "BadRequest", NULL,
                             "propagationPolicy: Unsupported value: \"%s\": supported values: "
                             "\"Background\", \"Foreground\", \"Orphan\"",
                             o->propagation);
    return 0;
}

static bool protected_project(struct em_api *a, const char *name)
{
    if (!nd_kind_is(a->kind, ND_KIND_PROJECT))
        return false;
    if (strcmp(name, "default") != 0 && strcmp(name, "nodus") != 0)
        return false;
    nd_status_set(&a->st, "Forbidden", NULL,
                  "namespaces \"%s\" is forbidden: this namespace may not be deleted", name);
    return true;
}

/* Deleting a project deletes everything in it; it goes when it is empty. */
static int delete_project(struct em_api *a, json_t *ns, bool dry_run, json_t **result)
{
    struct em_server *srv = a->srv;
    const char *name = em_obj_name(ns);
    if (dry_run) {
        *result = json_incref(ns);
        return 0;
    }
    if (!json_object_get(json_object_get(ns, "metadata"), "deletionTimestamp")) {
        json_t *copy = json_deep_copy(ns);
        char now[32];
        json_object_set_new(em_obj_meta(copy), "deletionTimestamp",
                            json_string(em_now_rfc3339(srv, now)));
        json_object_set_new(copy, "status", json_pack("{ss}", "phase", "Terminating"));
        /* held by the server until the project is empty (spec.finalizers, as Kubernetes) */
        json_object_set_new(copy, "spec", json_pack("{s[s]}", "finalizers", "kubernetes"));
        if (em_obj_update(srv, a->kind, ns, copy, &a->st) < 0) {
            json_decref(copy);
            return -1;
        }
        json_decref(copy);
    }
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!k->namespaced)
            continue;
        json_t *items = em_store_list(&srv->store, k, name);
        size_t j;
        json_t *o;
        json_array_foreach(items, j, o) {
            if (json_object_get(json_object_get(o, "metadata"), "deletionTimestamp"))
                continue;
            json_t *res = NULL;
            struct nd_status st = ND_STATUS_INIT;
            em_obj_delete(srv, k, o, "Background", false, &res, &st);
            json_decref(res);
            nd_status_release(&st);
        }
        json_decref(items);
    }
    json_t *now_ns = em_store_get(&srv->store, nd_kind_by_plural(NULL, "namespaces"), "", name);
    if (now_ns) {
        bool empty = true;
        for (size_t i = 0; i < nd_kind_count() && empty; i++) {
            json_t *items = em_store_list(&srv->store, &nd_kinds[i], name);
            empty = !nd_kinds[i].namespaced || json_array_size(items) == 0;
            json_decref(items);
        }
        if (empty) {
            *result = json_incref(now_ns);
            return em_obj_remove(srv, a->kind, now_ns, &a->st);
        }
    }
    *result = json_incref(now_ns ? now_ns : ns);
    return 0;
}

static int delete_one(struct em_api *a, json_t *obj, struct delete_opts *o, json_t **result)
{
    if (protected_project(a, em_obj_name(obj)))
        return -1;
    const json_t *meta = json_object_get(obj, "metadata");
    const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    if (o->pre_rv && (!rv || strcmp(o->pre_rv, rv) != 0))
        return nd_status_set(&a->st, "Conflict",
                             "read the object again, then retry: nodus get KIND NAME -o yaml",
                             "Precondition failed: ResourceVersion in precondition: %s, "
                             "ResourceVersion in object meta: %s",
                             o->pre_rv, rv ? rv : "");
    if (o->pre_uid && (!uid || strcmp(o->pre_uid, uid) != 0))
        return nd_status_set(&a->st, "Conflict", NULL,
                             "Precondition failed: UID in precondition: %s, UID in object meta: "
                             "%s",
                             o->pre_uid, uid ? uid : "");
    if (nd_kind_is(a->kind, ND_KIND_PROJECT))
        return delete_project(a, obj, o->dry_run, result);
    return em_obj_delete(a->srv, a->kind, obj, o->propagation, o->dry_run, result, &a->st);
}

int em_api_delete(struct em_api *a)
{
    struct delete_opts o;
    int rc = -1;
    json_t *result = NULL;
    if (delete_options(a, &o) < 0)
        goto out;
    json_t *obj = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!obj) {
        em_api_not_found(a, a->path.name);
        goto out;
    }
    if (delete_one(a, obj, &o, &result) < 0)
        goto out;
    em_api_answer(a, 200, result);
    rc = 0;
out:
    json_decref(result);
    json_decref(o.body);
    return rc;
}

int em_api_delete_collection(struct em_api *a)
{
    struct delete_opts o;
    int rc = -1;
    json_t *all = NULL, *selected = NULL, *deleted = json_array();
    int64_t list_rv;
    /* a list's options (selectors, resourceVersion) choose what goes: a bad one is 400,
     * never "everything" */
    if (delete_options(a, &o) < 0 || em_api_query_rv(a, &list_rv) < 0)
        goto out;
    all = em_store_list(&a->srv->store, a->kind, *a->ns ? a->ns : NULL);
    selected = em_api_select(a, all);
    if (!selected)
        goto out;
    size_t i;
    json_t *obj;
    json_array_foreach(selected, i, obj) {
        json_t *result = NULL;
        if (nd_kind_is(a->kind, ND_KIND_PROJECT) &&
            (strcmp(em_obj_name(obj), "default") == 0 || strcmp(em_obj_name(obj), "nodus") == 0))
            continue;
        if (delete_one(a, obj, &o, &result) < 0)
            goto out;
        json_array_append_new(deleted, result);
    }
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)a->srv->store.revision);
    json_t *meta = json_pack("{ss}", "resourceVersion", rv);
    json_t *list = a->accept.repr == EM_REPR_META_LIST
                       ? em_partial_list(deleted, meta, a->accept.version)
                       : json_pack("{sssss{ss}sO}", "apiVersion", a->kind->api_version, "kind",
                                   a->kind->list_kind, "metadata", "resourceVersion", rv,
                                   "items", deleted);
    em_resp_json(a->resp, 200, list);
    json_decref(list);
    json_decref(meta);
    rc = 0;
out:
    json_decref(deleted);
    json_decref(selected);
    json_decref(all);
    json_decref(o.body);
    return rc;
}
