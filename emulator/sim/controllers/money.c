/* Each object's money as integers; see money.h. */
#include "money.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/money.h"
#include "util/xmalloc.h"

#define NBUCKETS 1024

struct em_money_index {
    struct em_money *bucket[NBUCKETS];
    struct em_money scratch; /* objects without a uid */
    size_t count;
};

struct em_money_index *em_money_index_new(void)
{
    struct em_money_index *ix = nd_xcalloc(1, sizeof *ix);
    ix->scratch.generation = -1;
    return ix;
}

static void money_free(struct em_money *m)
{
    free(m->uid);
    free(m->rv);
    free(m);
}

void em_money_index_free(struct em_money_index *ix)
{
    if (!ix)
        return;
    for (size_t i = 0; i < NBUCKETS; i++) {
        for (struct em_money *m = ix->bucket[i], *next; m; m = next) {
            next = m->next;
            money_free(m);
        }
    }
    free(ix);
}

static const char *meta_string(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

static struct em_money **slot_of(struct em_money_index *ix, const char *uid)
{
    size_t b = nd_fnv64(ND_FNV64_INIT, uid, strlen(uid)) % NBUCKETS;
    struct em_money **p = &ix->bucket[b];
    while (*p && strcmp((*p)->uid, uid) != 0)
        p = &(*p)->next;
    return p;
}

/* A money field's micro-dollars, or def when absent or not money. */
static int64_t money_text(const json_t *parent, const char *key, int64_t def)
{
    return nd_money_or(json_string_value(json_object_get(parent, key)), def);
}

static void read_spec(struct em_money *m, const json_t *obj)
{
    const json_t *spec = json_object_get(obj, "spec");
    m->max_cost = money_text(spec, "maxCostUSD", -1);
    m->max_rate = money_text(json_object_get(spec, "placement"), "maxRateUSDPerHour", -1);
    m->limit = money_text(spec, "limitUSD", 0);
}

static void read_status(struct em_money *m, const json_t *obj)
{
    const json_t *status = json_object_get(obj, "status");
    m->cost = money_text(status, "costUSD", 0);
    m->rate = money_text(status, "rateUSDPerHour", -1);
    m->capped = money_text(status, "maxRateUSDPerHour", -1);
}

struct em_money *em_money_of(struct em_money_index *ix, const json_t *obj)
{
    const char *uid = meta_string(obj, "uid");
    struct em_money *m = &ix->scratch;
    if (uid) {
        struct em_money **p = slot_of(ix, uid);
        if (!*p) {
            *p = nd_xcalloc(1, sizeof **p);
            (*p)->uid = nd_xstrdup(uid);
            (*p)->generation = -1;
            ix->count++;
        }
        m = *p;
    }
    const json_t *gen = json_object_get(json_object_get(obj, "metadata"), "generation");
    if (!uid || !json_is_integer(gen) || json_integer_value(gen) != m->generation) {
        read_spec(m, obj);
        m->priced_ok = false;
        m->generation = uid && json_is_integer(gen) ? json_integer_value(gen) : -1;
    }
    const char *rv = meta_string(obj, "resourceVersion");
    if (!uid || !rv || !m->rv || strcmp(rv, m->rv) != 0) {
        read_status(m, obj);
        m->priced_ok = m->written = false;
        free(m->rv);
        m->rv = uid && rv ? nd_xstrdup(rv) : NULL;
    }
    return m;
}

struct em_money *em_money_find(struct em_money_index *ix, const char *uid)
{
    return ix && uid ? *slot_of(ix, uid) : NULL;
}

void em_money_wrote(struct em_money *m, const json_t *obj, bool ok)
{
    const char *rv = meta_string(obj, "resourceVersion");
    free(m->rv);
    m->rv = ok && m->uid && rv ? nd_xstrdup(rv) : NULL;
    m->written = m->rv != NULL;
}

void em_money_forget(struct em_money_index *ix, const json_t *obj)
{
    const char *uid = meta_string(obj, "uid");
    if (!uid)
        return;
    struct em_money **p = slot_of(ix, uid);
    if (*p) {
        struct em_money *m = *p;
        *p = m->next;
        money_free(m);
        ix->count--;
    }
}

size_t em_money_count(const struct em_money_index *ix)
{
    return ix->count;
}
