/* Committing object changes; see objects.h. */
#include "objects.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "util/id.h"
#include "util/time.h"
#include "util/xmalloc.h"

const char *em_now_rfc3339(struct em_server *srv, char out[32])
{
    struct nd_buf b = ND_BUF_INIT;
    int64_t ms = em_clock_now_ms(&srv->clock);
    nd_time_format(ms / 1000, &b);
    snprintf(out, 32, "%s", b.data);
    nd_buf_release(&b);
    return out;
}

const char *em_obj_name(const json_t *obj)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
}

const char *em_obj_ns(const json_t *obj)
{
    const char *ns =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
    return ns ? ns : "";
}

json_t *em_obj_meta(json_t *obj)
{
    json_t *m = json_object_get(obj, "metadata");
    if (!json_is_object(m)) {
        m = json_object();
        json_object_set_new(obj, "metadata", m);
    }
    return m;
}

bool em_obj_has_finalizer(const json_t *obj, const char *f)
{
    json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    size_t i;
    json_t *v;
    json_array_foreach(fins, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), f) == 0)
            return true;
    }
    return false;
}

bool em_obj_drop_finalizer(json_t *obj, const char *f)
{
    json_t *meta = em_obj_meta(obj);
    json_t *fins = json_object_get(meta, "finalizers");
    for (size_t i = 0; i < json_array_size(fins); i++) {
        const char *s = json_string_value(json_array_get(fins, i));
        if (s && strcmp(s, f) == 0) {
            json_array_remove(fins, i);
            if (json_array_size(fins) == 0)
                json_object_del(meta, "finalizers");
            return true;
        }
    }
    return false;
}

/* metadata.finalizers, and a project's spec.finalizers (held until it is empty). */
static bool has_finalizers(const json_t *obj)
{
    return json_array_size(json_object_get(json_object_get(obj, "metadata"), "finalizers")) > 0 ||
           json_array_size(json_object_get(json_object_get(obj, "spec"), "finalizers")) > 0;
}

static const char *const top_order[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const meta_order[] = {
    "name", "generateName", "namespace", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields", NULL};

/* Whether obj's members are in order already: those order names in its order, before
 * any it does not (what reorder would make of them). */
static bool in_order(json_t *obj, const char *const *order)
{
    int at = 0; /* where in order the next named member may be */
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int i = at;
        while (order[i] && strcmp(order[i], key) != 0)
            i++;
        if (order[i]) {
            at = i + 1;
            continue;
        }
        for (int j = 0; j < at; j++) { /* named before the last named one */
            if (strcmp(order[j], key) == 0)
                return false;
        }
        while (order[at]) /* not named: none named may follow */
            at++;
    }
    return true;
}

static void reorder(json_t *obj, const char *const *order)
{
    if (!json_is_object(obj) || in_order(obj, order))
        return; /* (a write of an object read from the store: most of them) */
    json_t *copy = json_copy(obj);
    json_object_clear(obj);
    for (int i = 0; order[i]; i++) {
        json_t *v = json_object_get(copy, order[i]);
        if (v)
            json_object_set(obj, order[i], v);
    }
    const char *key;
    json_t *v;
    json_object_foreach(copy, key, v) {
        if (!json_object_get(obj, key))
            json_object_set(obj, key, v);
    }
    json_decref(copy);
}

void em_obj_normalize(json_t *obj)
{
    reorder(obj, top_order);
    json_t *meta = json_object_get(obj, "metadata");
    /* empty maps and lists are left out, as kube-apiserver does (so `kubectl diff` of a
     * patch carrying `annotations: {}` shows no change) */
    static const char *const empties[] = {"labels", "annotations", "finalizers",
                                          "ownerReferences", "managedFields", NULL};
    for (int i = 0; empties[i]; i++) {
        json_t *v = json_object_get(meta, empties[i]);
        if ((json_is_object(v) && !json_object_size(v)) ||
            (json_is_array(v) && !json_array_size(v)) || json_is_null(v))
            json_object_del(meta, empties[i]);
    }
    reorder(meta, meta_order);
}

static void set_rv(struct em_server *srv, json_t *obj)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)em_store_next_revision(&srv->store));
    json_object_set_new(em_obj_meta(obj), "resourceVersion", json_string(rv));
}

static void record(struct em_server *srv, const char *type, const struct nd_kind *k, json_t *obj,
                   json_t *prev, struct em_bytes *json)
{
    int64_t rev = strtoll(json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                                            "resourceVersion")),
                          NULL, 10);
    em_history_append(&srv->history, rev, em_clock_now_ms(&srv->clock), type, k->plural, obj,
                      prev, json);
    em_bytes_unref(json);
    /* streams (watches, followed logs) are woken once the change is on disk, by whoever
     * commits it (router.c, sim.c, the journal's thread): not here, a flush early */
    /* the scheduler reads what changed from the history, as a watch does (sim.h): this
     * only rings its bell */
    if (srv->sim_due)
        pthread_cond_signal(&srv->sim_wake);
}

int64_t em_obj_rollback(struct em_server *srv)
{
    int64_t rev = em_store_rollback(&srv->store);
    if (rev < 0)
        return -1;
    em_history_drop_after(&srv->history, rev);
    if (srv->sim_seen_rev > rev)
        srv->sim_seen_rev = rev;
    return rev;
}

int em_obj_add(struct em_server *srv, const struct nd_kind *k, json_t *obj, struct nd_status *st)
{
    set_rv(srv, obj);
    em_obj_normalize(obj);
    struct em_bytes *json;
    if (em_store_put(&srv->store, k, obj, "ADDED", em_clock_now_ms(&srv->clock), &json, st) < 0)
        return -1;
    record(srv, "ADDED", k, obj, NULL, json);
    return 0;
}

int em_obj_update(struct em_server *srv, const struct nd_kind *k, json_t *old, json_t *obj,
                  struct nd_status *st)
{
    json_t *meta = em_obj_meta(obj);
    if (json_object_get(meta, "deletionTimestamp") && !has_finalizers(obj))
        return em_obj_remove(srv, k, obj, st);
    json_incref(old); /* the store drops its reference when obj replaces it */
    json_int_t gen = json_integer_value(json_object_get(json_object_get(old, "metadata"),
                                                        "generation"));
    if (!nd_json_equal(json_object_get(old, "spec"), json_object_get(obj, "spec")))
        gen++;
    if (gen > 0)
        json_object_set_new(meta, "generation", json_integer(gen));
    set_rv(srv, obj);
    em_obj_normalize(obj);
    /* old's bytes, when it is the stored tree (a controller's commit, a request's write):
     * the history's previous object shares them */
    struct em_bytes *old_json = em_bytes_ref(em_entry_bytes_of(
        em_store_entry(&srv->store, k, em_obj_ns(old), em_obj_name(old)), old));
    struct em_bytes *json = NULL;
    int rc = em_store_put(&srv->store, k, obj, "MODIFIED", em_clock_now_ms(&srv->clock), &json, st);
    if (rc == 0) {
        record(srv, "MODIFIED", k, obj, old, json);
        em_history_set_prev_json(&srv->history, old_json);
    }
    em_bytes_unref(old_json);
    json_decref(old);
    return rc;
}

int em_obj_update_bytes(struct em_server *srv, const struct nd_kind *k,
                        const struct em_entry *cur, int64_t rev, struct em_bytes *json,
                        json_t *rec, struct nd_status *st)
{
    /* cur goes with the write: the history's previous object shares its bytes and record */
    json_t *prev_rec = json_incref((json_t *)em_entry_rec(cur));
    struct em_bytes *prev_json = em_bytes_ref(em_store_entry_json(cur));
    int64_t now = em_clock_now_ms(&srv->clock);
    int rc = em_store_put_bytes(&srv->store, k, rev, now, em_bytes_ref(json), json_incref(rec), st);
    if (rc == 0) {
        em_history_append_rec(&srv->history, rev, now, k->plural, json, rec, prev_json,
                              prev_rec);
        if (srv->sim_due) /* (as record() does) */
            pthread_cond_signal(&srv->sim_wake);
    }
    em_bytes_unref(json);
    json_decref(rec);
    em_bytes_unref(prev_json);
    json_decref(prev_rec);
    return rc;
}

static int add_dependent(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    json_array_append_new(ctx, json_pack("[sO]", k->plural, em_entry_obj(e)));
    return 0;
}

/* NEW array of [kind-plural, object] pairs of the objects in ns owned by uid (kind by
 * kind, each in name order), from the store's owner index: no walk of the project. */
static json_t *dependents(struct em_server *srv, const char *ns, const char *uid)
{
    json_t *out = json_array();
    em_store_dependents(&srv->store, ns, uid, add_dependent, out);
    return out;
}

static json_t *find_by_uid(struct em_server *srv, const char *ns, const char *uid,
                           const struct nd_kind **kind)
{
    const struct em_entry *e = em_store_by_uid(&srv->store, ns, uid, kind);
    return e ? em_entry_obj(e) : NULL;
}

/* An owner waiting in foreground deletion goes once its last dependent is gone. */
static void release_foreground_owners(struct em_server *srv, const json_t *removed)
{
    json_t *refs = json_object_get(json_object_get(removed, "metadata"), "ownerReferences");
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r) {
        const char *uid = json_string_value(json_object_get(r, "uid"));
        const struct nd_kind *ok = NULL;
        json_t *owner = uid ? find_by_uid(srv, em_obj_ns(removed), uid, &ok) : NULL;
        if (!owner || !ok || !em_obj_has_finalizer(owner, EM_FINALIZER_FOREGROUND) ||
            !json_object_get(json_object_get(owner, "metadata"), "deletionTimestamp"))
            continue;
        json_t *deps = dependents(srv, em_obj_ns(removed), uid);
        size_t left = json_array_size(deps);
        json_decref(deps);
        if (left)
            continue;
        json_t *copy = json_deep_copy(owner);
        em_obj_drop_finalizer(copy, EM_FINALIZER_FOREGROUND);
        struct nd_status st = ND_STATUS_INIT;
        em_obj_update(srv, ok, owner, copy, &st);
        nd_status_release(&st);
        json_decref(copy);
    }
}

static int any_object(const struct nd_kind *k, const struct em_entry *e, void *ctx)
{
    (void)k, (void)e, (void)ctx;
    return 1;
}

/* A project being deleted goes once it is empty. */
static void release_project(struct em_server *srv, const char *ns)
{
    if (!*ns)
        return;
    json_t *nsobj = em_store_get(&srv->store, nd_kind_by_plural(NULL, "namespaces"), "", ns);
    if (!nsobj || !json_object_get(json_object_get(nsobj, "metadata"), "deletionTimestamp"))
        return;
    if (em_store_walk(&srv->store, NULL, ns, any_object, NULL))
        return;
    const struct nd_kind *nk = nd_kind_by_plural("", "namespaces");
    struct nd_status st = ND_STATUS_INIT;
    em_obj_remove(srv, nk, nsobj, &st);
    nd_status_release(&st);
}

int em_obj_remove(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                  struct nd_status *st)
{
    const char *ns = em_obj_ns(obj);
    json_t *stored = em_store_get(&srv->store, k, ns, em_obj_name(obj));
    if (!stored)
        return 0;
    json_incref(stored);
    json_t *gone = json_deep_copy(obj);
    set_rv(srv, gone);
    em_obj_normalize(gone);
    char *nsc = nd_xstrdup(ns);
    struct em_bytes *json = NULL;
    int rc = em_store_delete(&srv->store, k, gone, em_clock_now_ms(&srv->clock), &json, st);
    if (rc == 0) {
        record(srv, "DELETED", k, gone, stored, json);
        const char *uid = json_string_value(json_object_get(json_object_get(gone, "metadata"), "uid"));
        if (uid) {
            /* Owned objects go too (the orphan policy took its dependents off earlier). */
            json_t *deps = dependents(srv, nsc, uid);
            size_t i;
            json_t *d;
            json_array_foreach(deps, i, d) {
                const struct nd_kind *dk = nd_kind_by_plural(NULL, json_string_value(json_array_get(d, 0)));
                json_t *dobj = json_array_get(d, 1);
                json_t *res = NULL;
                struct nd_status dst = ND_STATUS_INIT;
                if (dk && !json_object_get(json_object_get(dobj, "metadata"), "deletionTimestamp"))
                    em_obj_delete(srv, dk, dobj, "Background", false, &res, &dst);
                json_decref(res);
                nd_status_release(&dst);
            }
            json_decref(deps);
        }
        release_foreground_owners(srv, gone);
        if (*k->group) /* a nodus.dev object: not a project, nor one of its Events */
            release_project(srv, nsc);
    }
    free(nsc);
    json_decref(gone);
    json_decref(stored);
    return rc;
}

bool em_billing_settled(struct em_server *srv, const struct nd_kind *k, const json_t *obj)
{
    (void)k;
    if (srv->opt.no_simulation)
        return true; /* nothing runs, nothing is owed */
    /* An object that never started owes nothing; one that ran settles when its final
     * charge posts (status.billing.settled, written by the controllers). */
    const json_t *status = json_object_get(obj, "status");
    if (!json_object_get(status, "startTime"))
        return true;
    return json_is_true(nd_obj_get(obj, "status.billing.settled"));
}

static void orphan_dependents(struct em_server *srv, const json_t *owner)
{
    const char *uid = json_string_value(json_object_get(json_object_get(owner, "metadata"), "uid"));
    if (!uid)
        return;
    json_t *deps = dependents(srv, em_obj_ns(owner), uid);
    size_t i;
    json_t *d;
    json_array_foreach(deps, i, d) {
        const struct nd_kind *dk = nd_kind_by_plural(NULL, json_string_value(json_array_get(d, 0)));
        json_t *dobj = json_array_get(d, 1);
        json_t *copy = json_deep_copy(dobj);
        json_t *meta = em_obj_meta(copy);
        json_t *refs = json_object_get(meta, "ownerReferences");
        for (size_t j = json_array_size(refs); j-- > 0;) {
            const char *u = json_string_value(json_object_get(json_array_get(refs, j), "uid"));
            if (u && strcmp(u, uid) == 0)
                json_array_remove(refs, j);
        }
        if (!json_array_size(refs))
            json_object_del(meta, "ownerReferences");
        struct nd_status st = ND_STATUS_INIT;
        if (dk)
            em_obj_update(srv, dk, dobj, copy, &st);
        nd_status_release(&st);
        json_decref(copy);
    }
    json_decref(deps);
}

int em_obj_delete(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                  const char *propagation, bool dry_run, json_t **result, struct nd_status *st)
{
    *result = NULL;
    json_t *copy = json_deep_copy(obj);
    json_t *meta = em_obj_meta(copy);
    bool already = json_object_get(meta, "deletionTimestamp") != NULL;
    if (!propagation || !*propagation)
        propagation = "Background";
    if (!already) {
        char now[32];
        json_object_set_new(meta, "deletionTimestamp", json_string(em_now_rfc3339(srv, now)));
        json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(0));
        const char *phase = json_string_value(nd_obj_get(copy, "status.phase"));
        const char *deleting = nd_phase_deleting(k->family);
        if (deleting && !(phase && nd_phase_terminal(k->family, phase))) {
            json_t *status = json_object_get(copy, "status");
            if (!json_is_object(status)) {
                status = json_object();
                json_object_set_new(copy, "status", status);
            }
            json_object_set_new(status, "phase", json_string(deleting));
        }
    }
    if (em_obj_has_finalizer(copy, EM_FINALIZER_BILLING) && em_billing_settled(srv, k, copy))
        em_obj_drop_finalizer(copy, EM_FINALIZER_BILLING);
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    json_t *deps = uid ? dependents(srv, em_obj_ns(copy), uid) : json_array();
    bool foreground = strcmp(propagation, "Foreground") == 0 && json_array_size(deps) > 0;
    if (foreground && !em_obj_has_finalizer(copy, EM_FINALIZER_FOREGROUND)) {
        json_t *fins = json_object_get(meta, "finalizers");
        if (!json_is_array(fins)) {
            fins = json_array();
            json_object_set_new(meta, "finalizers", fins);
        }
        json_array_append_new(fins, json_string(EM_FINALIZER_FOREGROUND));
    }
    int rc = 0;
    if (dry_run) {
        *result = json_incref(copy);
        goto out;
    }
    if (strcmp(propagation, "Orphan") == 0)
        orphan_dependents(srv, copy);
    if (!has_finalizers(copy))
        rc = em_obj_remove(srv, k, copy, st);
    else if (!already || !nd_json_equal(obj, copy))
        rc = em_obj_update(srv, k, obj, copy, st);
    if (rc == 0 && foreground) {
        /* the owner holds foregroundDeletion (stored above) while its dependents go;
         * when they went at once, release it now */
        size_t i;
        json_t *d;
        json_array_foreach(deps, i, d) {
            const struct nd_kind *dk =
                nd_kind_by_plural(NULL, json_string_value(json_array_get(d, 0)));
            json_t *dobj = json_array_get(d, 1);
            json_t *res = NULL;
            struct nd_status dst = ND_STATUS_INIT;
            if (dk && !json_object_get(json_object_get(dobj, "metadata"), "deletionTimestamp"))
                em_obj_delete(srv, dk, dobj, "Foreground", false, &res, &dst);
            json_decref(res);
            nd_status_release(&dst);
        }
        json_t *owner = em_store_get(&srv->store, k, em_obj_ns(copy), em_obj_name(copy));
        json_t *left = owner && uid ? dependents(srv, em_obj_ns(copy), uid) : NULL;
        if (owner && em_obj_has_finalizer(owner, EM_FINALIZER_FOREGROUND) &&
            json_array_size(left) == 0) {
            json_t *released = json_deep_copy(owner);
            em_obj_drop_finalizer(released, EM_FINALIZER_FOREGROUND);
            rc = em_obj_update(srv, k, owner, released, st);
            json_decref(released);
        }
        json_decref(left);
    }
    if (rc == 0) {
        if (!already)
            em_event_record(srv, k, copy, "Normal", "Deleting", "deletion requested (%s)",
                            propagation);
        json_t *now_obj = em_store_get(&srv->store, k, em_obj_ns(copy), em_obj_name(copy));
        *result = json_incref(now_obj ? now_obj : copy);
    }
out:
    json_decref(deps);
    json_decref(copy);
    return rc;
}

void em_event_record(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                     const char *type, const char *reason, const char *fmt, ...)
{
    if (!*k->group)
        return; /* Events are about nodus.dev objects: not projects, nor Events */
    const char *ns = em_obj_ns(obj);
    if (!*ns || !em_store_get(&srv->store, nd_kind_by_plural(NULL, "namespaces"), "", ns))
        return;
    const struct nd_kind *ek = nd_kind_by_plural("", "events");
    static unsigned long long seq;
    struct nd_buf msg = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    char now[32];
    em_now_rfc3339(srv, now);
    const json_t *meta = json_object_get(obj, "metadata");
    /* the counter starts again at each start, and a stopped clock stands where it stood
     * (so a name of the last run may come round again): the first name not taken */
    char *name = NULL;
    for (int tries = 0; tries < 4096; tries++) {
        free(name);
        name = nd_xasprintf("%s.%013llx%03llx", em_obj_name(obj),
                            (unsigned long long)em_clock_now_ms(&srv->clock), ++seq % 4096);
        if (!em_store_get(&srv->store, nd_kind_by_plural(NULL, "events"), ns, name))
            break;
    }
    char *uid = nd_uid_new(ek->uid_prefix);
    json_t *ev = json_pack(
        "{ss ss s{ss ss ss ss sI} s{ss ss ss ss ss ss} ss ss ss sI ss ss s{ss} ss ss}",
        "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace", ns, "uid", uid,
        "creationTimestamp", now, "generation", (json_int_t)1, "involvedObject", "apiVersion",
        k->api_version, "kind", k->kind, "name", em_obj_name(obj), "namespace", ns, "uid",
        json_string_value(json_object_get(meta, "uid")) ? json_string_value(json_object_get(meta, "uid")) : "",
        "resourceVersion",
        json_string_value(json_object_get(meta, "resourceVersion"))
            ? json_string_value(json_object_get(meta, "resourceVersion"))
            : "",
        "reason", reason, "message", msg.data, "type", type, "count", (json_int_t)1,
        "firstTimestamp", now, "lastTimestamp", now, "source", "component", "nodus",
        "reportingComponent", "nodus", "reportingInstance", "nodus-emulator");
    struct nd_status st = ND_STATUS_INIT;
    if (ev)
        em_obj_add(srv, ek, ev, &st);
    nd_status_release(&st);
    json_decref(ev);
    free(uid);
    free(name);
    nd_buf_release(&msg);
}
