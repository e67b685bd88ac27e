/* A loader thread's records, their equal parts shared; see rec_share.h. */
#include "rec_share.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "rec_arena.h"
#include "util/xmalloc.h"

#define SLOTS 4096 /* the cache (a power of two): 64 KB a keeper */
#define KIDS 32    /* a larger object or array is copied without a look (kids still shared) */

struct slot {
    uint64_t hash;
    json_t *v; /* a reference */
};

struct em_rec_share {
    struct slot slot[SLOTS];
    uint64_t shared, copied;
};

/* Whether a key of a record's metadata names what is unique to its object (copied, never
 * looked for): name, uid, resourceVersion. */
static bool unique_meta(const char *k, size_t kn)
{
    return (kn == 4 && !memcmp(k, "name", 4)) || (kn == 3 && !memcmp(k, "uid", 3)) ||
           (kn == 15 && !memcmp(k, "resourceVersion", 15));
}

struct em_rec_share *em_rec_share_new(void)
{
    return nd_xcalloc(1, sizeof(struct em_rec_share));
}

void em_rec_share_free(struct em_rec_share *sh)
{
    if (!sh)
        return;
    for (size_t i = 0; i < SLOTS; i++)
        json_decref(sh->slot[i].v);
    free(sh);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
    return mix(em_hash64(s, n, h), n);
}

/* A value of hash h may sit in either of two slots (its hash's low bits, or its high
 * bits): two values whose first slots collide both stay, where with one slot each the
 * newer took the older's (a state of a few dozen repeated values lost one of them to a
 * collision about once in fifty keepers: test_store_rec_share). */
static struct slot *slot_of(struct em_rec_share *sh, uint64_t h, int way)
{
    return &sh->slot[(way ? h >> 32 : h) & (SLOTS - 1)];
}

/* Puts v (taken) in a slot of hash h: an empty one, else the first, its value dropped. */
static void remember(struct em_rec_share *sh, uint64_t h, json_t *v)
{
    struct slot *s = slot_of(sh, h, 0);
    if (s->v && !slot_of(sh, h, 1)->v)
        s = slot_of(sh, h, 1);
    json_decref(s->v);
    s->hash = h;
    s->v = json_incref(v);
}

static json_t *keep(struct em_rec_share *sh, const json_t *v, bool look);

/* ---- leaves: equal by value ---- */

static uint64_t leaf_hash(const json_t *v)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)json_typeof(v);
    if (json_is_string(v))
        return hash_bytes(h, json_string_value(v), json_string_length(v));
    if (json_is_integer(v))
        return mix(h, (uint64_t)json_integer_value(v));
    double d = json_real_value(v);
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return mix(h, bits);
}

static bool leaf_same(const json_t *a, const json_t *b)
{
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_string(a))
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    if (json_is_integer(a))
        return json_integer_value(a) == json_integer_value(b);
    double x = json_real_value(a), y = json_real_value(b);
    return memcmp(&x, &y, sizeof x) == 0;
}

static json_t *keep_leaf(struct em_rec_share *sh, const json_t *v, bool look)
{
    uint64_t h = look ? leaf_hash(v) : 0;
    for (int way = 0; look && way < 2; way++) {
        struct slot *s = slot_of(sh, h, way);
        if (s->v && s->hash == h && leaf_same(s->v, v)) {
            sh->shared++;
            return json_incref(s->v);
        }
    }
    json_t *c = json_is_string(v)    ? json_stringn_nocheck(json_string_value(v), json_string_length(v))
                : json_is_integer(v) ? json_integer(json_integer_value(v))
                                     : json_real(json_real_value(v));
    sh->copied++;
    if (look)
        remember(sh, h, c);
    return c;
}

/* ---- objects and arrays: the same keys, in order, of the same kept values ---- */

/* A copy of object v, its kids kept (looked for, but for the unique ones of a record's
 * metadata when meta). */
static json_t *copy_object(struct em_rec_share *sh, const json_t *v, bool meta)
{
    json_t *o = json_object();
    const char *k;
    size_t kn;
    json_t *x;
    json_object_keylen_foreach((json_t *)v, k, kn, x) {
        json_object_setn_new_nocheck(o, k, kn, keep(sh, x, !(meta && unique_meta(k, kn))));
    }
    sh->copied++;
    return o;
}

static json_t *copy_array(struct em_rec_share *sh, const json_t *v)
{
    json_t *a = json_array();
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x)
        json_array_append_new(a, keep(sh, x, true));
    sh->copied++;
    return a;
}

struct kids {
    size_t n;
    const char *key[KIDS];
    size_t klen[KIDS];
    json_t *v[KIDS]; /* kept: references */
};

static bool container_same(const json_t *c, bool obj, const struct kids *kd)
{
    if (obj != json_is_object(c))
        return false;
    if (!obj) {
        if (json_array_size(c) != kd->n)
            return false;
        for (size_t i = 0; i < kd->n; i++) {
            if (json_array_get(c, i) != kd->v[i])
                return false;
        }
        return true;
    }
    if (json_object_size(c) != kd->n)
        return false;
    size_t i = 0;
    for (void *it = json_object_iter((json_t *)c); it; it = json_object_iter_next((json_t *)c, it), i++) {
        if (json_object_iter_value(it) != kd->v[i] || json_object_iter_key_len(it) != kd->klen[i] ||
            memcmp(json_object_iter_key(it), kd->key[i], kd->klen[i]) != 0)
            return false;
    }
    return true;
}

static json_t *keep_container(struct em_rec_share *sh, const json_t *v)
{
    bool obj = json_is_object(v);
    size_t n = obj ? json_object_size(v) : json_array_size(v);
    if (n > KIDS)
        return obj ? copy_object(sh, v, false) : copy_array(sh, v);
    struct kids kd = {.n = 0};
    uint64_t h = obj ? 0x6f626a ^ n : 0x617272 ^ n;
    if (obj) {
        const char *k;
        size_t kn;
        json_t *x;
        json_object_keylen_foreach((json_t *)v, k, kn, x) {
            kd.key[kd.n] = k;
            kd.klen[kd.n] = kn;
            kd.v[kd.n] = keep(sh, x, true);
            h = mix(hash_bytes(h, k, kn), (uint64_t)(uintptr_t)kd.v[kd.n++]);
        }
    } else {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            kd.v[kd.n] = keep(sh, x, true);
            h = mix(h, (uint64_t)(uintptr_t)kd.v[kd.n++]);
        }
    }
    for (int way = 0; way < 2; way++) {
        struct slot *s = slot_of(sh, h, way);
        if (s->v && s->hash == h && container_same(s->v, obj, &kd)) {
            for (size_t i = 0; i < kd.n; i++)
                json_decref(kd.v[i]);
            sh->shared++;
            return json_incref(s->v);
        }
    }
    json_t *c = obj ? json_object() : json_array();
    for (size_t i = 0; i < kd.n; i++) {
        if (obj)
            json_object_setn_new_nocheck(c, kd.key[i], kd.klen[i], kd.v[i]);
        else
            json_array_append_new(c, kd.v[i]);
    }
    sh->copied++;
    remember(sh, h, c);
    return c;
}

static json_t *keep(struct em_rec_share *sh, const json_t *v, bool look)
{
    switch (json_typeof(v)) {
    case JSON_TRUE:
    case JSON_FALSE:
    case JSON_NULL: /* jansson's own, never allocated */
        return json_incref((json_t *)v);
    case JSON_OBJECT:
        return look ? keep_container(sh, v) : copy_object(sh, v, false);
    case JSON_ARRAY:
        return look ? keep_container(sh, v) : copy_array(sh, v);
    default:
        return keep_leaf(sh, v, look);
    }
}

static json_t *keep_rec(struct em_rec_share *sh, const json_t *rec, bool arena)
{
    bool was = em_rec_arena_on();
    em_rec_arena_use(arena);
    json_t *r;
    if (json_is_object(rec)) { /* the record and its metadata: unique to the object */
        r = json_object();
        const char *k;
        size_t kn;
        json_t *x;
        json_object_keylen_foreach((json_t *)rec, k, kn, x) {
            json_t *c = kn == 8 && !memcmp(k, "metadata", 8) && json_is_object(x)
                            ? copy_object(sh, x, true)
                            : keep(sh, x, true);
            json_object_setn_new_nocheck(r, k, kn, c);
        }
    } else {
        r = keep(sh, rec, true);
    }
    em_rec_arena_use(was);
    return r;
}

json_t *em_rec_keep(struct em_rec_share *sh, const json_t *rec)
{
    return keep_rec(sh, rec, true);
}

json_t *em_rec_keep_heap(struct em_rec_share *sh, const json_t *rec)
{
    return keep_rec(sh, rec, false);
}

void em_rec_share_stats(const struct em_rec_share *sh, struct em_rec_share_stats *out)
{
    out->shared = sh->shared;
    out->copied = sh->copied;
}
