/* ssa.c: server-side apply (merge, prune, conflicts) and ownership of ordinary writes,
 * over metadata.managedFields. The rules are structured-merge-diff's Updater.Apply and
 * Updater.Update with kube-apiserver's fieldmanager around them; see ssa.h. */
#include "patch/ssa.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "patch/ssa_int.h"
#include "util/buf.h"
#include "util/quote.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* One managedFields entry, read. */
struct entry {
    char *manager, *operation, *api_version, *time, *subresource; /* NULL: absent */
    struct nd_fieldset *set;
    json_t *fields_v1; /* as read (own reference), written back while the set is unchanged */
    bool dirty;        /* the set changed: fieldsV1 is written anew */
};

struct entries {
    struct entry *v;
    size_t n, cap;
};

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static char *dup_member(const json_t *o, const char *name)
{
    const char *s = json_string_value(json_object_get(o, name));
    return s ? nd_xstrdup(s) : NULL;
}

static void replace(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? nd_xstrdup(s) : NULL;
}

static void entries_release(struct entries *es)
{
    for (size_t i = 0; i < es->n; i++) {
        struct entry *e = &es->v[i];
        free(e->manager);
        free(e->operation);
        free(e->api_version);
        free(e->time);
        free(e->subresource);
        nd_fieldset_free(e->set);
        json_decref(e->fields_v1);
    }
    free(es->v);
    memset(es, 0, sizeof *es);
}

static struct entry *entries_push(struct entries *es, const char *manager, const char *op,
                                  const char *api_version, const char *sub)
{
    if (es->n == es->cap) {
        es->cap = es->cap ? 2 * es->cap : 4;
        es->v = nd_xrealloc(es->v, es->cap * sizeof *es->v);
    }
    struct entry *e = &es->v[es->n++];
    memset(e, 0, sizeof *e);
    e->manager = nd_xstrdup(manager);
    e->operation = nd_xstrdup(op);
    e->api_version = api_version ? nd_xstrdup(api_version) : NULL;
    e->subresource = sub && *sub ? nd_xstrdup(sub) : NULL;
    e->set = nd_fieldset_new();
    e->dirty = true;
    return e;
}

/* Reads a managedFields list (NULL or null: none) into es. -1 with st = Invalid when
 * it cannot be read. */
static int entries_read(const json_t *mf, struct entries *es, struct nd_status *st)
{
    if (!mf || json_is_null(mf))
        return 0;
    if (!json_is_array(mf))
        return nd_status_set(st, "Invalid", NULL, "metadata.managedFields: must be a list");
    size_t i;
    json_t *o;
    json_array_foreach(mf, i, o)
    {
        if (!json_is_object(o))
            return nd_status_set(st, "Invalid", NULL,
                                 "metadata.managedFields[%zu]: must be an object", i);
        char *field = nd_xasprintf("metadata.managedFields[%zu].fieldsV1", i);
        const json_t *fv = json_object_get(o, "fieldsV1");
        struct nd_fieldset *set = nd_fieldset_from_json(fv, field, st);
        free(field);
        if (!set)
            return -1;
        if (es->n == es->cap) {
            es->cap = es->cap ? 2 * es->cap : 4;
            es->v = nd_xrealloc(es->v, es->cap * sizeof *es->v);
        }
        struct entry *e = &es->v[es->n++];
        e->manager = dup_member(o, "manager");
        e->operation = dup_member(o, "operation");
        e->api_version = dup_member(o, "apiVersion");
        e->time = dup_member(o, "time");
        e->subresource = dup_member(o, "subresource");
        e->set = set;
        e->fields_v1 = json_is_object(fv) ? json_incref((json_t *)fv) : NULL;
        e->dirty = e->fields_v1 == NULL;
    }
    return 0;
}

/* The entries as a managedFields list, NEW; NULL when every entry is empty (dropped). */
static json_t *entries_write(const struct entries *es)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < es->n; i++) {
        const struct entry *e = &es->v[i];
        if (nd_fieldset_empty(e->set))
            continue;
        json_t *o = json_object();
        if (e->manager)
            json_object_set_new(o, "manager", json_string(e->manager));
        if (e->operation)
            json_object_set_new(o, "operation", json_string(e->operation));
        if (e->api_version)
            json_object_set_new(o, "apiVersion", json_string(e->api_version));
        if (e->time)
            json_object_set_new(o, "time", json_string(e->time));
        json_object_set_new(o, "fieldsType", json_string("FieldsV1"));
        json_object_set_new(o, "fieldsV1",
                            e->dirty ? nd_fieldset_to_json(e->set) : json_deep_copy(e->fields_v1));
        if (e->subresource && *e->subresource)
            json_object_set_new(o, "subresource", json_string(e->subresource));
        json_array_append_new(arr, o);
    }
    if (json_array_size(arr) == 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* Sets (or, for NULL, removes) obj's metadata.managedFields, stealing mf. */
static void put_managed_fields(json_t *obj, json_t *mf)
{
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(meta)) {
        if (!mf)
            return;
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    if (mf)
        json_object_set_new(meta, "managedFields", mf);
    else
        json_object_del(meta, "managedFields");
}

/* kube-apiserver's manager identity: Update entries differ by apiVersion too. */
static bool is_manager(const struct entry *e, const char *manager, const char *op,
                       const char *api_version, const char *sub)
{
    if (strcmp(or_empty(e->manager), manager) != 0 || strcmp(or_empty(e->operation), op) != 0 ||
        strcmp(or_empty(e->subresource), or_empty(sub)) != 0)
        return false;
    return strcmp(op, "Update") != 0 ||
           strcmp(or_empty(e->api_version), or_empty(api_version)) == 0;
}

/* Index of the manager's entry, or es->n. */
static size_t find_entry(const struct entries *es, const char *manager, const char *op,
                         const char *api_version, const char *sub)
{
    for (size_t i = 0; i < es->n; i++)
        if (is_manager(&es->v[i], manager, op, api_version, sub))
            return i;
    return es->n;
}

/* Takes the fields of s away from e. */
static void entry_take(struct entry *e, const struct nd_fieldset *s)
{
    struct nd_fieldset *lost = nd_fieldset_intersection(e->set, s);
    if (!nd_fieldset_empty(lost)) {
        nd_fieldset_remove_all(e->set, s);
        e->dirty = true;
    }
    nd_fieldset_free(lost);
}

static char *now_text(const char *now)
{
    if (now)
        return nd_xstrdup(now);
    struct nd_buf b = ND_BUF_INIT;
    nd_time_format(nd_time_now(), &b);
    return nd_buf_detach(&b);
}

/* ---- conflicts ---- */

/* The manager identity kube-apiserver sorts conflicts by: its JSON encoding. */
static char *identity(const struct entry *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "manager", json_string(or_empty(e->manager)));
    json_object_set_new(o, "operation", json_string(or_empty(e->operation)));
    if (strcmp(or_empty(e->operation), "Apply") != 0 && e->api_version && *e->api_version)
        json_object_set_new(o, "apiVersion", json_string(e->api_version));
    json_object_set_new(o, "fieldsType", json_string("FieldsV1"));
    if (e->subresource && *e->subresource)
        json_object_set_new(o, "subresource", json_string(e->subresource));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* The manager as conflict messages name it. */
static void print_manager(struct nd_buf *b, const struct entry *e)
{
    nd_quote(b, or_empty(e->manager), 0);
    if (e->subresource && *e->subresource) {
        nd_buf_adds(b, " with subresource ");
        nd_quote(b, e->subresource, 0);
    }
    if (strcmp(or_empty(e->operation), "Update") == 0)
        nd_buf_addf(b, " using %s", or_empty(e->api_version));
}

struct conflict {
    const struct entry *e;
    char *id;
    json_t *paths;
};

static int by_identity(const void *a, const void *b)
{
    return strcmp(((const struct conflict *)a)->id, ((const struct conflict *)b)->id);
}

/* Fails with every field another manager owns that changes: 0 when there is none. */
static int check_conflicts(const struct entries *es, size_t me, const struct nd_fieldset *changes,
                           struct nd_status *st)
{
    struct conflict *cs = nd_xcalloc(es->n + 1, sizeof *cs);
    size_t n = 0, total = 0;
    for (size_t i = 0; i < es->n; i++) {
        if (i == me)
            continue;
        struct nd_fieldset *c = nd_fieldset_intersection(es->v[i].set, changes);
        if (!nd_fieldset_empty(c)) {
            cs[n].e = &es->v[i];
            cs[n].id = identity(&es->v[i]);
            cs[n].paths = nd_fieldset_paths(c);
            total += json_array_size(cs[n].paths);
            n++;
        }
        nd_fieldset_free(c);
    }
    if (n == 0) {
        free(cs);
        return 0;
    }
    qsort(cs, n, sizeof *cs, by_identity);

    struct nd_buf msg = ND_BUF_INIT, who = ND_BUF_INIT;
    if (total == 1) {
        print_manager(&who, cs[0].e);
        nd_buf_addf(&msg, "Apply failed with 1 conflict: conflict with %s: %s", who.data,
                    json_string_value(json_array_get(cs[0].paths, 0)));
    } else {
        nd_buf_addf(&msg, "Apply failed with %zu conflicts: ", total);
        for (size_t i = 0; i < n; i++) {
            nd_buf_reset(&who);
            print_manager(&who, cs[i].e);
            nd_buf_addf(&msg, "%sconflicts with %s:", i ? "\n" : "", who.data);
            size_t j;
            json_t *p;
            json_array_foreach(cs[i].paths, j, p) nd_buf_addf(&msg, "\n- %s", json_string_value(p));
        }
    }
    nd_status_set(st, "Conflict",
                  "Remove these fields from your configuration, or take them over: "
                  "nodus apply -f FILE --force-conflicts",
                  "%s", msg.data);
    for (size_t i = 0; i < n; i++) {
        nd_buf_reset(&who);
        print_manager(&who, cs[i].e);
        size_t j;
        json_t *p;
        json_array_foreach(cs[i].paths, j, p)
        {
            nd_status_add_cause(st, "FieldManagerConflict", json_string_value(p),
                                "conflict with %s", who.data);
        }
        free(cs[i].id);
        json_decref(cs[i].paths);
    }
    nd_buf_release(&msg);
    nd_buf_release(&who);
    free(cs);
    return -1;
}

/* ---- merging ---- */

static bool contains(json_t *const *v, size_t n, const json_t *x)
{
    for (size_t i = 0; i < n; i++)
        if (nd_json_equal(v[i], x))
            return true;
    return false;
}

/* The items of arr without repeats (BORROWED pointers, the array is NEW). */
static json_t **distinct(const json_t *arr, size_t *n)
{
    json_t **v = nd_xmalloc((json_array_size(arr) + 1) * sizeof *v);
    size_t i;
    json_t *x;
    *n = 0;
    json_array_foreach(arr, i, x)
    {
        if (!contains(v, *n, x))
            v[(*n)++] = x;
    }
    return v;
}

/* Two sets merged as structured-merge-diff merges a listType=set: items only the live
 * list has stay where they are, the applied list's items come in its order. NEW. */
static json_t *merge_set_list(const json_t *live, const json_t *applied)
{
    size_t ln, rn, sn = 0, si = 0, li = 0, ri = 0;
    json_t **lo = distinct(live, &ln), **ro = distinct(applied, &rn);
    json_t **shared = nd_xmalloc((rn + 1) * sizeof *shared);
    for (size_t i = 0; i < rn; i++)
        if (contains(lo, ln, ro[i]))
            shared[sn++] = ro[i];
    json_t *out = json_array();
    while (li < ln || ri < rn) {
        const json_t *next = si < sn ? shared[si] : NULL;
        if (li < ln && ri < rn) {
            if (nd_json_equal(lo[li], ro[ri])) {
                json_array_append_new(out, json_deep_copy(ro[ri]));
                li++, ri++, si++;
                continue;
            }
            /* a shared item, but not the one whose turn it is: it comes later */
            if (contains(ro, rn, lo[li]) && next && !nd_json_equal(next, lo[li])) {
                li++;
                continue;
            }
        }
        if (li < ln && !contains(ro, rn, lo[li])) {
            json_array_append_new(out, json_deep_copy(lo[li++]));
        } else if (ri < rn) {
            if (next && nd_json_equal(next, ro[ri]))
                si++;
            json_array_append_new(out, json_deep_copy(ro[ri++]));
        } else {
            li++; /* a shared item already taken from the applied list */
        }
    }
    free(lo);
    free(ro);
    free(shared);
    return out;
}

/* Sets every tracked field of src into dst: objects member by member, the rest whole. */
static void merge_obj(json_t *dst, const json_t *src, enum nd_ssa_level l)
{
    const char *key;
    json_t *sv;
    json_object_foreach((json_t *)src, key, sv)
    {
        if (!nd_ssa_tracked(l, key, ""))
            continue;
        json_t *dv = json_object_get(dst, key);
        enum nd_ssa_level nl = nd_ssa_level_next(l, key);
        if (nl == ND_SSA_META && !json_is_object(sv))
            continue; /* metadata that is not an object sets nothing */
        if (json_is_object(sv) && (json_is_object(dv) || nl == ND_SSA_META)) {
            if (!json_is_object(dv)) {
                dv = json_object();
                json_object_set_new(dst, key, dv);
            }
            merge_obj(dv, sv, nl);
        } else if (nd_ssa_is_set_list(l, key) && json_is_array(sv)) {
            json_t *empty = json_array();
            json_object_set_new(dst, key, merge_set_list(json_is_array(dv) ? dv : empty, sv));
            json_decref(empty);
        } else {
            json_object_set_new(dst, key, json_deep_copy(sv));
        }
    }
}

/* ---- pruning ---- */

static const struct nd_fieldset *below(const struct nd_fieldset *s, const char *key)
{
    return s ? nd_fieldset_child(s, key) : NULL;
}

/* Removes the set items of last that neither the new set nor another manager owns. */
static void prune_items(json_t *obj, const char *name, const struct nd_fieldset *last,
                        const struct nd_fieldset *now, const struct nd_fieldset *others)
{
    json_t *arr = json_object_get(obj, name);
    bool gone = false;
    for (size_t i = 0; i < last->n; i++) {
        const char *vk = last->kids[i]->key;
        const struct nd_fieldset *n = below(now, vk);
        if (vk[0] != 'v' || !last->kids[i]->member || (n && n->member) || below(others, vk))
            continue;
        for (size_t j = json_array_size(arr); j-- > 0;) {
            char *k = nd_fieldset_vkey(json_array_get(arr, j));
            if (strcmp(k, vk) == 0) {
                json_array_remove(arr, j);
                gone = true;
            }
            free(k);
        }
    }
    if (gone && json_array_size(arr) == 0)
        json_object_del(obj, name);
}

/* Removes what the manager's last applied set had and its new set has not, unless
 * another manager owns it or something below it (structured-merge-diff's prune, with
 * every object a named field: an object nobody owns anything in goes whole). */
static void prune_obj(json_t *obj, const struct nd_fieldset *last, const struct nd_fieldset *now,
                      const struct nd_fieldset *others, enum nd_ssa_level l)
{
    for (size_t i = 0; i < last->n; i++) {
        const struct nd_fieldset *k = last->kids[i];
        if (strncmp(k->key, "f:", 2) != 0)
            continue;
        const char *name = k->key + 2;
        json_t *v = json_object_get(obj, name);
        if (!v || !nd_ssa_tracked(l, name, ""))
            continue;
        const struct nd_fieldset *n = below(now, k->key), *o = below(others, k->key);
        if (!n && !o && !nd_ssa_never_member(l, name)) {
            json_object_del(obj, name);
        } else if (json_is_object(v) && k->n) {
            size_t before = json_object_size(v);
            prune_obj(v, k, n, o, nd_ssa_level_next(l, name));
            if (before && !json_object_size(v) && !nd_ssa_never_member(l, name))
                json_object_del(obj, name);
        } else if (nd_ssa_is_set_list(l, name) && json_is_array(v)) {
            prune_items(obj, name, k, n, o);
        }
    }
}

/* ---- apply ---- */

static int read_live(const json_t *live, struct entries *es, struct nd_status *st)
{
    struct nd_status why = ND_STATUS_INIT;
    if (entries_read(nd_obj_get(live, "metadata.managedFields"), es, &why) == 0)
        return 0;
    nd_status_set(st, "InternalError", NULL, "failed to decode managed fields: %s", why.message);
    nd_status_release(&why);
    return -1;
}

/* The object a create on PATCH stores, NEW: the configuration without status, with one
 * entry for the manager (set is stolen). */
static json_t *apply_create(const json_t *applied, const char *manager, const char *api_version,
                            struct nd_fieldset *set, const char *now)
{
    struct entries es = {0};
    json_t *obj = json_deep_copy(applied);
    json_object_del(obj, "status");
    put_managed_fields(obj, NULL);
    struct entry *e = entries_push(&es, manager, "Apply", api_version, "");
    nd_fieldset_free(e->set);
    e->set = set;
    e->time = nd_xstrdup(now);
    put_managed_fields(obj, entries_write(&es));
    entries_release(&es);
    return obj;
}

int nd_ssa_apply(const json_t *live, const json_t *applied, const struct nd_ssa_opts *o,
                 json_t **out, struct nd_status *st)
{
    int rc = -1;
    struct entries es = {0};
    struct nd_fieldset *set = NULL, *others = NULL, *added = NULL, *modified = NULL,
                       *removed = NULL, *changes = NULL;
    json_t *merged = NULL;
    char *now = NULL;
    *out = NULL;
    const char *manager = o->manager, *api_version = o->api_version;

    if (nd_ssa_validate_manager(manager, "fieldManager", st) < 0)
        return -1;
    if (!json_is_object(applied))
        return nd_status_set(st, "BadRequest", NULL, "the apply configuration must be an object");
    const json_t *amf = nd_obj_get(applied, "metadata.managedFields");
    if (amf && !json_is_null(amf))
        return nd_status_set(st, "BadRequest", "Remove metadata.managedFields from the file.",
                             "metadata.managedFields must be nil");
    if (live && !json_is_object(live))
        return nd_status_set(st, "InternalError", NULL, "the stored object is not an object");
    if (!api_version)
        api_version = or_empty(json_string_value(json_object_get(applied, "apiVersion")));
    set = nd_fieldset_from_object(applied, "");
    now = now_text(o->now);

    if (!live) {
        *out = apply_create(applied, manager, api_version, set, now);
        set = NULL;
        rc = 0;
        goto out;
    }

    if (read_live(live, &es, st) < 0)
        goto out;
    size_t me = find_entry(&es, manager, "Apply", NULL, "");
    merged = json_deep_copy(live);
    merge_obj(merged, applied, ND_SSA_ROOT);
    if (o->normalize)
        o->normalize(merged, o->cls); /* compare with what would be stored (defaults filled) */

    others = nd_fieldset_new();
    for (size_t i = 0; i < es.n; i++)
        if (i != me)
            nd_fieldset_add_all(others, es.v[i].set);
    nd_fieldset_compact(others);
    if (me < es.n)
        prune_obj(merged, es.v[me].set, set, others, ND_SSA_ROOT);

    nd_fieldset_compare(live, merged, "", &added, &modified, &removed);
    changes = nd_fieldset_union(added, modified);
    if (!o->force && check_conflicts(&es, me, changes, st) < 0)
        goto out;
    for (size_t i = 0; i < es.n; i++) {
        if (i == me)
            continue;
        entry_take(&es.v[i], changes); /* with force: the conflicting fields */
        entry_take(&es.v[i], removed);
    }

    bool changed = !nd_json_equal(live, merged);
    struct entry *e;
    if (me == es.n) {
        e = entries_push(&es, manager, "Apply", api_version, "");
        changed = true;
    } else {
        e = &es.v[me];
        if (!nd_fieldset_equal(e->set, set)) {
            e->dirty = true;
            changed = true;
        }
        replace(&e->api_version, api_version);
    }
    nd_fieldset_free(e->set);
    e->set = set;
    set = NULL;
    if (changed)
        replace(&e->time, now);
    put_managed_fields(merged, entries_write(&es));

    *out = merged;
    merged = NULL;
    rc = 0;
out:
    entries_release(&es);
    nd_fieldset_free(set);
    nd_fieldset_free(others);
    nd_fieldset_free(added);
    nd_fieldset_free(modified);
    nd_fieldset_free(removed);
    nd_fieldset_free(changes);
    json_decref(merged);
    free(now);
    return rc;
}

/* ---- ordinary writes ---- */

/* The entries a write starts from (kube-apiserver's decodeManagedFields). */
static void start_entries(const json_t *old_obj, const json_t *new_obj, const char *sub,
                          struct entries *es)
{
    struct nd_status st = ND_STATUS_INIT;
    if (!*sub) {
        if (nd_ssa_reset_requested(new_obj))
            return;
        const json_t *mf = nd_obj_get(new_obj, "metadata.managedFields");
        if (json_array_size(mf) > 0 && entries_read(mf, es, &st) == 0 && es->n > 0)
            return;
        entries_release(es);
        nd_status_release(&st);
    }
    if (old_obj && entries_read(nd_obj_get(old_obj, "metadata.managedFields"), es, &st) < 0)
        entries_release(es);
    nd_status_release(&st);
}

void nd_ssa_record_update(const json_t *old_obj, json_t *new_obj, const char *manager,
                          const char *api_version, const char *subresource, const char *now_rfc3339)
{
    if (!json_is_object(new_obj))
        return;
    const char *sub = or_empty(subresource);
    manager = or_empty(manager);
    if (!api_version)
        api_version = or_empty(json_string_value(json_object_get(new_obj, "apiVersion")));
    struct entries es = {0};
    struct nd_fieldset *added, *modified, *removed;
    start_entries(json_is_object(old_obj) ? old_obj : NULL, new_obj, sub, &es);
    nd_fieldset_compare(json_is_object(old_obj) ? old_obj : NULL, new_obj, sub, &added, &modified,
                        &removed);
    struct nd_fieldset *changes = nd_fieldset_union(added, modified);
    size_t me = find_entry(&es, manager, "Update", api_version, sub);
    for (size_t i = 0; i < es.n; i++) {
        if (i != me)
            entry_take(&es.v[i], changes);
        entry_take(&es.v[i], removed);
    }
    nd_fieldset_remove_all(changes, removed);
    if (!nd_fieldset_empty(changes)) {
        struct entry *e =
            me < es.n ? &es.v[me] : entries_push(&es, manager, "Update", api_version, sub);
        nd_fieldset_add_all(e->set, changes);
        nd_fieldset_compact(e->set);
        e->dirty = true;
        free(e->time);
        e->time = now_text(now_rfc3339);
    }
    put_managed_fields(new_obj, entries_write(&es));
    entries_release(&es);
    nd_fieldset_free(added);
    nd_fieldset_free(modified);
    nd_fieldset_free(removed);
    nd_fieldset_free(changes);
}
