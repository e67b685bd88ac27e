/* The scheduler's due queue; see due.h. */
#include "due.h"

#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "util/xmalloc.h"

struct em_due {
    struct em_due_item **heap;
    size_t n, cap;
    struct em_index *ix;        /* "plural\nns/name" -> item */
    uint64_t arrivals;
    struct em_due_item **parked; /* items set to EM_NEVER since the last prune */
    size_t nparked, capparked;
};

static char *key_of(const struct nd_kind *kind, const char *ns, const char *name)
{
    return nd_xasprintf("%s\n%s/%s", kind->plural, ns, name);
}

static bool before(const struct em_due_item *a, const struct em_due_item *b)
{
    return a->at < b->at || (a->at == b->at && a->arrival < b->arrival);
}

static void place(struct em_due *q, size_t slot, struct em_due_item *it)
{
    q->heap[slot] = it;
    it->slot = slot;
}

static void sift_up(struct em_due *q, size_t i)
{
    struct em_due_item *it = q->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(it, q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, it);
}

static void sift_down(struct em_due *q, size_t i)
{
    struct em_due_item *it = q->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->n)
            break;
        if (child + 1 < q->n && before(q->heap[child + 1], q->heap[child]))
            child++;
        if (!before(q->heap[child], it))
            break;
        place(q, i, q->heap[child]);
        i = child;
    }
    place(q, i, it);
}

/* Restores the order around slot i after its item's time changed. */
static void fix(struct em_due *q, size_t i)
{
    if (i > 0 && before(q->heap[i], q->heap[(i - 1) / 2]))
        sift_up(q, i);
    else
        sift_down(q, i);
}

struct em_due *em_due_new(void)
{
    struct em_due *q = nd_xcalloc(1, sizeof *q);
    q->ix = em_index_new();
    return q;
}

static void item_free(struct em_due_item *it)
{
    free(it->ns);
    free(it->name);
    free(it);
}

void em_due_free(struct em_due *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->n; i++)
        item_free(q->heap[i]);
    em_index_free(q->ix, NULL);
    free(q->heap);
    free(q->parked);
    free(q);
}

struct em_due_item *em_due_find(const struct em_due *q, const struct nd_kind *kind,
                                const char *ns, const char *name)
{
    char *key = key_of(kind, ns, name);
    struct em_due_item *it = em_index_get(q->ix, key);
    free(key);
    return it;
}

void em_due_move(struct em_due *q, struct em_due_item *it, int64_t at)
{
    it->at = at;
    if (at == EM_NEVER && !it->parked) {
        if (q->nparked == q->capparked) {
            q->capparked = q->capparked ? q->capparked * 2 : 16;
            q->parked = nd_xrealloc(q->parked, q->capparked * sizeof *q->parked);
        }
        q->parked[q->nparked++] = it;
        it->parked = true;
    }
    fix(q, it->slot);
}

struct em_due_item *em_due_set(struct em_due *q, const struct nd_kind *kind, const char *ns,
                               const char *name, int64_t at)
{
    char *key = key_of(kind, ns, name);
    struct em_due_item *it = em_index_get(q->ix, key);
    if (it) {
        free(key);
        em_due_move(q, it, at);
        return it;
    }
    it = nd_xcalloc(1, sizeof *it);
    it->kind = kind;
    it->ns = nd_xstrdup(ns);
    it->name = nd_xstrdup(name);
    it->at = EM_NEVER;
    it->arrival = q->arrivals++;
    em_index_put(q->ix, key, it);
    free(key);
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->heap = nd_xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    place(q, q->n++, it);
    em_due_move(q, it, at);
    return it;
}

void em_due_remove(struct em_due *q, struct em_due_item *it)
{
    for (size_t i = 0; it->parked && i < q->nparked; i++) {
        if (q->parked[i] == it)
            q->parked[i] = q->parked[--q->nparked];
    }
    char *key = key_of(it->kind, it->ns, it->name);
    em_index_del(q->ix, key);
    free(key);
    size_t slot = it->slot;
    struct em_due_item *last = q->heap[--q->n];
    if (last != it) {
        place(q, slot, last);
        fix(q, slot);
    }
    item_free(it);
}

void em_due_prune(struct em_due *q)
{
    while (q->nparked) {
        struct em_due_item *it = q->parked[--q->nparked];
        it->parked = false;
        if (it->at == EM_NEVER)
            em_due_remove(q, it);
    }
}

struct em_due_item *em_due_peek(const struct em_due *q)
{
    return q->n ? q->heap[0] : NULL;
}

int64_t em_due_next(const struct em_due *q)
{
    return q->n ? q->heap[0]->at : EM_NEVER;
}

size_t em_due_count(const struct em_due *q)
{
    return q->n;
}

static int by_arrival(const void *a, const void *b)
{
    const struct em_due_item *x = *(struct em_due_item *const *)a;
    const struct em_due_item *y = *(struct em_due_item *const *)b;
    return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

size_t em_due_collect(const struct em_due *q, int64_t now, struct em_due_item ***out,
                      size_t *cap)
{
    /* the heap's items due by now form a subtree at its root: walk it (a stack of the
     * slots still to visit), then order what it found by arrival */
    size_t n = 0;
    if (!q->n || q->heap[0]->at > now)
        return 0;
    /* the stack grows as it fills: not one of the whole heap's size at each call (a
     * look at a few due among tens of thousands of objects) */
    size_t scap = 64, top = 0;
    size_t *stack = nd_xmalloc(scap * sizeof *stack);
    stack[top++] = 0;
    while (top) {
        if (top + 2 > scap) {
            scap *= 2;
            stack = nd_xrealloc(stack, scap * sizeof *stack);
        }
        size_t i = stack[--top];
        if (n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *out = nd_xrealloc(*out, *cap * sizeof **out);
        }
        (*out)[n++] = q->heap[i];
        for (size_t c = 2 * i + 1; c <= 2 * i + 2 && c < q->n; c++) {
            if (q->heap[c]->at <= now)
                stack[top++] = c;
        }
    }
    free(stack);
    qsort(*out, n, sizeof **out, by_arrival);
    return n;
}

bool em_due_check(const struct em_due *q)
{
    if (em_index_count(q->ix) != q->n)
        return false;
    for (size_t i = 0; i < q->n; i++) {
        if (q->heap[i]->slot != i)
            return false;
        if (i > 0 && before(q->heap[i], q->heap[(i - 1) / 2]))
            return false;
    }
    return true;
}
