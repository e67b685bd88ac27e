/* Reading the store: cursors over a kind's objects, lists, counts and walks; see
 * store.h. */
#include "store.h"

#include <string.h>

#include "index.h"
#include "store_ix.h"

void em_store_seek(struct em_store *s, const struct nd_kind *k, const char *ns,
                   const char *after_ns, const char *after_name, struct em_store_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->ix = em_store_index(s, em_store_kind(k), false);
    if (!c->ix)
        return;
    c->bounded = ns != NULL;
    char lo[EM_STORE_KEY_MAX];
    if (ns) {
        /* a project's objects: the keys in [ns "\x01", ns "\x02") */
        snprintf(lo, sizeof lo, "%s\x01", ns);
        snprintf(c->hi, sizeof c->hi, "%s\x02", ns);
    }
    if (after_name) {
        char ak[EM_STORE_KEY_MAX];
        em_store_ix_key(after_ns ? after_ns : "", after_name, ak, sizeof ak);
        if (ns && strcmp(ak, lo) < 0)
            c->it = em_index_seek(c->ix, lo);
        else
            c->it = em_index_seek_after(c->ix, ak);
    } else {
        c->it = ns ? em_index_seek(c->ix, lo) : em_index_first(c->ix);
    }
}

const struct em_entry *em_store_peek(const struct em_store_cursor *c)
{
    if (!c->ix || !em_index_iter_valid(&c->it))
        return NULL;
    if (c->bounded && strcmp(em_index_iter_key(&c->it), c->hi) >= 0)
        return NULL;
    return em_index_iter_value(&c->it);
}

const struct em_entry *em_store_next(struct em_store_cursor *c)
{
    const struct em_entry *e = em_store_peek(c);
    if (e)
        em_index_iter_next(&c->it);
    return e;
}

size_t em_store_remaining(const struct em_store_cursor *c)
{
    if (!c->ix || !em_index_iter_valid(&c->it))
        return 0;
    size_t end = c->bounded ? em_index_rank(c->ix, c->hi) : em_index_count(c->ix);
    size_t at = em_index_iter_rank(&c->it);
    return end > at ? end - at : 0;
}

const char *em_store_cursor_key(const struct em_store_cursor *c)
{
    return em_store_peek(c) ? em_index_iter_key(&c->it) : NULL;
}

json_t *em_store_list(struct em_store *s, const struct nd_kind *k, const char *ns)
{
    json_t *arr = json_array();
    struct em_store_cursor c;
    em_store_seek(s, k, ns, NULL, NULL, &c);
    const struct em_entry *e;
    while ((e = em_store_next(&c)))
        json_array_append(arr, em_entry_obj(e));
    return arr;
}

size_t em_store_count(struct em_store *s, const struct nd_kind *k)
{
    struct em_index *ix = em_store_index(s, em_store_kind(k), false);
    return ix ? em_index_count(ix) : 0;
}

size_t em_store_count_in(struct em_store *s, const struct nd_kind *k, const char *ns)
{
    if (!ns)
        return em_store_count(s, k);
    struct em_store_cursor c;
    em_store_seek(s, k, ns, NULL, NULL, &c);
    return em_store_remaining(&c);
}

int em_store_kinds(struct em_store *s, em_store_kind_fn fn, void *ctx)
{
    for (size_t i = 0; i < s->nkinds; i++) {
        size_t n = em_index_count(s->kinds[i].ix);
        int rc = n ? fn(s->kinds[i].kind, n, ctx) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static int walk_kind(struct em_store *s, const struct nd_kind *k, const char *ns,
                     em_store_walk_fn fn, void *ctx)
{
    struct em_store_cursor c;
    em_store_seek(s, k, ns, NULL, NULL, &c);
    const struct em_entry *e;
    while ((e = em_store_next(&c))) {
        int rc = fn(k, e, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

int em_store_walk(struct em_store *s, const struct nd_kind *k, const char *ns, em_store_walk_fn fn,
                  void *ctx)
{
    if (k)
        return walk_kind(s, em_store_kind(k), ns, fn, ctx);
    for (size_t i = 0; i < s->nkinds; i++) {
        int rc = walk_kind(s, s->kinds[i].kind, ns, fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}
