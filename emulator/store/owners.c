/* The owner index: uids and owner references to objects; see owners.h. */
#include "owners.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "util/xmalloc.h"

/* Keys up to this long are built on the stack. */
#define EM_OWNERS_KEY_BUF 512

/* What an object was recorded with: its uid (when it has one) and its owners' uids, each
 * NUL-terminated, one after the other in data. */
struct rec {
    uint32_t nowners;
    uint32_t len; /* bytes of data */
    bool has_uid;
    char data[];
};

/* NEW record of uid (NULL: none) and the n owner uids, or NULL when there is nothing. */
static struct rec *rec_make(const char *uid, const char *const *owners, size_t n)
{
    if (!uid && !n)
        return NULL;
    size_t len = uid ? strlen(uid) + 1 : 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(owners[i]) + 1;
    struct rec *rec = nd_xmalloc(sizeof *rec + len);
    *rec = (struct rec){.nowners = (uint32_t)n, .len = (uint32_t)len, .has_uid = uid != NULL};
    char *p = rec->data;
    if (uid)
        p = stpcpy(p, uid) + 1;
    for (size_t i = 0; i < n; i++)
        p = stpcpy(p, owners[i]) + 1;
    return rec;
}

static bool rec_same(const struct rec *a, const struct rec *b)
{
    if (!a || !b)
        return a == b;
    return a->nowners == b->nowners && a->has_uid == b->has_uid && a->len == b->len &&
           memcmp(a->data, b->data, a->len) == 0;
}

/* A key: parts joined by "\x01", into buf when it fits (no allocation on the hot path),
 * else NEW; free it with key_free(key, buf). */
static char *key_join(char *buf, size_t cap, const char *const *parts, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(parts[i]) + 1;
    char *key = len <= cap ? buf : nd_xmalloc(len), *p = key;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        memcpy(p, parts[i], l);
        p += l;
        *p++ = i + 1 < n ? '\x01' : '\0';
    }
    return key;
}

static void key_free(char *key, const char *buf)
{
    if (key != buf)
        free(key);
}

/* Adds (add) or removes the uid and dependents keys of rec, the object (plural, ns, name). */
static void rec_keys(struct em_owners *o, const struct rec *rec, const char *plural,
                     const char *ns, const char *name, bool add)
{
    const char *p = rec->data;
    for (uint32_t i = 0; i < rec->nowners + (rec->has_uid ? 1u : 0u); i++) {
        bool is_uid = rec->has_uid && i == 0;
        struct em_index **ix = is_uid ? &o->uids : &o->dependents;
        char buf[EM_OWNERS_KEY_BUF];
        char *key = key_join(buf, sizeof buf, (const char *const[]){p, ns, plural, name}, 4);
        if (add) {
            if (!*ix)
                *ix = em_index_new();
            em_index_put(*ix, key, NULL);
        } else if (*ix) {
            em_index_del(*ix, key);
        }
        key_free(key, buf);
        p += strlen(p) + 1;
    }
}

/* fn(ctx, what obj says): its metadata.uid and ownerReferences[].uid. */
static void of_obj(const struct nd_kind *k, const char *ns, const char *name, const json_t *obj,
                   void (*fn)(void *ctx, const struct em_owners_obj *ob), void *ctx)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const json_t *refs = json_object_get(meta, "ownerReferences");
    const char *few[8], **owners = few;
    size_t n = 0, i;
    if (json_array_size(refs) > sizeof few / sizeof *few)
        owners = nd_xmalloc(json_array_size(refs) * sizeof *owners);
    json_t *r;
    json_array_foreach(refs, i, r) {
        const char *u = json_string_value(json_object_get(r, "uid"));
        if (u)
            owners[n++] = u;
    }
    fn(ctx, &(struct em_owners_obj){.kind = k, .ns = ns, .name = name, .present = obj,
                                    .uid = json_string_value(json_object_get(meta, "uid")),
                                    .owners = owners, .nowners = n});
    if (owners != few)
        free(owners);
}

static void put_obj(void *o, const struct em_owners_obj *ob)
{
    em_owners_put(o, ob);
}

void em_owners_set(struct em_owners *o, const struct nd_kind *k, const char *ns,
                   const char *name, const json_t *obj)
{
    of_obj(k, ns, name, obj, put_obj, o);
}

void em_owners_put(struct em_owners *o, const struct em_owners_obj *ob)
{
    const struct nd_kind *k = ob->kind;
    const char *ns = ob->ns, *name = ob->name;
    struct rec *rec = ob->present ? rec_make(ob->uid, ob->owners, ob->nowners) : NULL;
    char buf[EM_OWNERS_KEY_BUF];
    char *key = key_join(buf, sizeof buf, (const char *const[]){k->plural, ns, name}, 3);
    struct rec *old = o->objects ? em_index_get(o->objects, key) : NULL;
    if (rec_same(old, rec)) { /* most writes: nothing the index holds changed */
        free(rec);
        key_free(key, buf);
        return;
    }
    if (old) {
        rec_keys(o, old, k->plural, ns, name, false);
        free(em_index_del(o->objects, key));
    }
    if (rec) {
        if (!o->objects)
            o->objects = em_index_new();
        em_index_put(o->objects, key, rec);
        rec_keys(o, rec, k->plural, ns, name, true);
    }
    key_free(key, buf);
}

/* Adds the uid and dependents keys of rec, the object (plural, ns, name), to the run. */
static void run_keys(struct em_owners_run *r, const struct rec *rec, const char *plural,
                     const char *ns, const char *name)
{
    const char *p = rec->data;
    for (uint32_t i = 0; i < rec->nowners + (rec->has_uid ? 1u : 0u); i++) {
        bool is_uid = rec->has_uid && i == 0;
        char buf[EM_OWNERS_KEY_BUF];
        char *key = key_join(buf, sizeof buf, (const char *const[]){p, ns, plural, name}, 4);
        em_index_run_add(is_uid ? &r->uids : &r->dependents, key, NULL);
        key_free(key, buf);
        p += strlen(p) + 1;
    }
}

static void run_add(void *run, const struct em_owners_obj *ob)
{
    struct em_owners_run *r = run;
    struct rec *rec = ob->present ? rec_make(ob->uid, ob->owners, ob->nowners) : NULL;
    if (!rec)
        return;
    const char *plural = ob->kind->plural;
    char buf[EM_OWNERS_KEY_BUF];
    char *key = key_join(buf, sizeof buf, (const char *const[]){plural, ob->ns, ob->name}, 3);
    em_index_run_add(&r->objects, key, rec);
    key_free(key, buf);
    run_keys(r, rec, plural, ob->ns, ob->name);
}

void em_owners_run_set(struct em_owners_run *r, const struct nd_kind *k, const char *ns,
                       const char *name, const json_t *obj)
{
    of_obj(k, ns, name, obj, run_add, r);
}

void em_owners_run_sort(struct em_owners_run *r)
{
    em_index_run_sort(&r->objects);
    em_index_run_sort(&r->uids);
    em_index_run_sort(&r->dependents);
}

/* Puts the n runs of one map into *ix (made when they hold anything). */
static void take_map(struct em_index **ix, struct em_index_run *maps, size_t n,
                     void (*free_value)(void *value))
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += maps[i].n;
    if (total && !*ix)
        *ix = em_index_new();
    if (*ix) {
        em_index_put_runs(*ix, maps, n, free_value);
        return;
    }
    for (size_t i = 0; i < n; i++)
        em_index_run_free(&maps[i], free_value);
}

/* The n runs' entries by map (NEW): the objects' n runs, then the uids', then the
 * dependents'; the runs are left empty. */
static struct em_index_run *gather(struct em_owners_run *runs, size_t n)
{
    struct em_index_run *maps = nd_xcalloc(3 * (n ? n : 1), sizeof *maps);
    for (size_t i = 0; i < n; i++) {
        maps[i] = runs[i].objects;
        maps[n + i] = runs[i].uids;
        maps[2 * n + i] = runs[i].dependents;
        runs[i] = (struct em_owners_run){0};
    }
    return maps;
}

void em_owners_take(struct em_owners *o, struct em_owners_run *runs, size_t n)
{
    struct em_index_run *maps = gather(runs, n);
    take_map(&o->objects, maps, n, free);
    take_map(&o->uids, maps + n, n, NULL);
    take_map(&o->dependents, maps + 2 * n, n, NULL);
    free(maps);
}

/* The objects' and the dependents' maps; em_owners_take_end does the uids' meanwhile
 * (each map its own index: nothing shared). */
static void *take_thread(void *arg)
{
    struct em_owners_taking *t = arg;
    take_map(&t->o->objects, t->maps, t->n, free);
    take_map(&t->o->dependents, t->maps + 2 * t->n, t->n, NULL);
    return NULL;
}

void em_owners_take_begin(struct em_owners_taking *t, struct em_owners *o,
                          struct em_owners_run *runs, size_t n, bool thread)
{
    *t = (struct em_owners_taking){.o = o, .runs = runs, .n = n};
    if (!thread)
        return;
    t->maps = gather(runs, n);
    t->threaded = pthread_create(&t->th, NULL, take_thread, t) == 0;
}

void em_owners_take_end(struct em_owners_taking *t)
{
    if (!t->maps) {
        em_owners_take(t->o, t->runs, t->n);
        return;
    }
    take_map(&t->o->uids, t->maps + t->n, t->n, NULL);
    if (t->threaded)
        pthread_join(t->th, NULL);
    else
        take_thread(t);
    free(t->maps);
    t->maps = NULL;
    t->threaded = false;
}

void em_owners_run_free(struct em_owners_run *r)
{
    em_index_run_free(&r->objects, free);
    em_index_run_free(&r->uids, NULL);
    em_index_run_free(&r->dependents, NULL);
}

void em_owners_clear(struct em_owners *o)
{
    em_index_free(o->objects, free);
    em_index_free(o->uids, NULL);
    em_index_free(o->dependents, NULL);
    o->objects = o->uids = o->dependents = NULL;
}

/* The keys uid "\x01" ns "\x01" plural "\x01" name of ix for exactly (uid, ns), in key
 * order: the key starts with uid "\x01" ns "\x01", and what follows holds one "\x01"
 * (a longer uid that starts the same holds more). */
static int scan(struct em_owners *o, struct em_index *ix, const char *ns, const char *uid,
                em_owned_fn fn, void *ctx)
{
    if (!ix)
        return 0;
    char *lo = nd_xasprintf("%s\x01%s\x01", uid, ns);
    size_t lolen = strlen(lo);
    int rc = 0;
    for (struct em_index_iter it = em_index_seek(ix, lo); em_index_iter_valid(&it);
         em_index_iter_next(&it)) {
        const char *key = em_index_iter_key(&it);
        if (strncmp(key, lo, lolen) != 0)
            break;
        o->visited++;
        const char *rest = key + lolen, *sep = strchr(rest, '\x01');
        if (!sep || strchr(sep + 1, '\x01'))
            continue;
        struct em_owned found = {
            .plural = rest, .plural_len = (size_t)(sep - rest), .name = sep + 1};
        if ((rc = fn(&found, ctx)) != 0)
            break;
    }
    free(lo);
    return rc;
}

int em_owners_holders(struct em_owners *o, const char *ns, const char *uid, em_owned_fn fn,
                      void *ctx)
{
    return scan(o, o->uids, ns, uid, fn, ctx);
}

int em_owners_dependents(struct em_owners *o, const char *ns, const char *uid, em_owned_fn fn,
                         void *ctx)
{
    return scan(o, o->dependents, ns, uid, fn, ctx);
}

size_t em_owners_objects(const struct em_owners *o)
{
    return o->objects ? em_index_count(o->objects) : 0;
}

size_t em_owners_references(const struct em_owners *o)
{
    return o->dependents ? em_index_count(o->dependents) : 0;
}

/* ---- the store's lookups through the index (store.h) ---- */

/* An object found, with its kind's place in the store's order (em_store_kinds). */
struct hit {
    size_t kind;
    const char *name;
    const struct em_entry *e;
};

struct hits {
    struct em_store *s;
    const char *ns;
    struct hit *v;
    size_t n, cap;
};

static int add_hit(const struct em_owned *found, void *ctx)
{
    struct hits *h = ctx;
    for (size_t i = 0; i < h->s->nkinds; i++) {
        const char *plural = h->s->kinds[i].kind->plural;
        if (strncmp(plural, found->plural, found->plural_len) != 0 ||
            plural[found->plural_len])
            continue;
        const struct em_entry *e = em_store_entry(h->s, h->s->kinds[i].kind, h->ns, found->name);
        if (!e)
            return 0;
        if (h->n == h->cap) {
            h->cap = h->cap ? h->cap * 2 : 8;
            h->v = nd_xrealloc(h->v, h->cap * sizeof *h->v);
        }
        h->v[h->n++] = (struct hit){.kind = i, .name = found->name, .e = e};
        return 0;
    }
    return 0;
}

/* em_store_walk's order: kind by kind, then by name (as the kind's index orders them). */
static int hit_cmp(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void find_hits(struct em_store *s, const char *ns, const char *uid, bool holders,
                      struct hits *h)
{
    *h = (struct hits){.s = s, .ns = ns};
    if (holders)
        em_owners_holders(&s->owners, ns, uid, add_hit, h);
    else
        em_owners_dependents(&s->owners, ns, uid, add_hit, h);
    if (h->n > 1) /* (qsort takes no NULL, even for nothing) */
        qsort(h->v, h->n, sizeof *h->v, hit_cmp);
}

int em_store_dependents(struct em_store *s, const char *ns, const char *uid, em_store_walk_fn fn,
                        void *ctx)
{
    struct hits h;
    find_hits(s, ns, uid, false, &h);
    int rc = 0;
    for (size_t i = 0; i < h.n && !rc; i++)
        rc = fn(s->kinds[h.v[i].kind].kind, h.v[i].e, ctx);
    free(h.v);
    return rc;
}

const struct em_entry *em_store_by_uid(struct em_store *s, const char *ns, const char *uid,
                                       const struct nd_kind **k)
{
    struct hits h;
    find_hits(s, ns, uid, true, &h);
    const struct em_entry *e = h.n ? h.v[0].e : NULL;
    if (e && k)
        *k = s->kinds[h.v[0].kind].kind;
    free(h.v);
    return e;
}
