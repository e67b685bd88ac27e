/* The feed's keys: the streams waiting under one kind and project; see feed.h. */
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "util/hash.h"
#include "util/xmalloc.h"

/* the key's hash: its plural's and its project's */
static uint64_t key_hash(const char *plural, uint64_t ns_hash)
{
    return nd_fnv64(ns_hash, plural, strlen(plural));
}

static struct em_feed_key *find(struct em_feed *f, const char *plural, uint64_t ns_hash)
{
    uint64_t h = key_hash(plural, ns_hash);
    for (struct em_feed_key *k = f->keys[h % EM_FEED_KEY_SLOTS]; k; k = k->next)
        if (k->hash == h && k->ns_hash == ns_hash && strcmp(k->plural, plural) == 0)
            return k;
    return NULL;
}

struct em_feed_key *em_feed_key_get(struct em_feed *f, const char *plural, const char *ns)
{
    uint64_t ns_hash = em_ns_hash(ns);
    struct em_feed_key *k = find(f, plural, ns_hash);
    if (!k) {
        k = nd_xcalloc(1, sizeof *k);
        k->hash = key_hash(plural, ns_hash);
        k->ns_hash = ns_hash;
        k->plural = nd_xstrdup(plural);
        em_feed_list_init(&k->waiting);
        /* any change that has left the ring may have been one of its own */
        k->gone_rev = f->ring_gone_rev;
        struct em_feed_key **slot = &f->keys[k->hash % EM_FEED_KEY_SLOTS];
        k->next = *slot;
        *slot = k;
    }
    k->refs++;
    return k;
}

void em_feed_key_put(struct em_feed *f, struct em_feed_key *k)
{
    if (!k || --k->refs)
        return;
    for (struct em_feed_key **p = &f->keys[k->hash % EM_FEED_KEY_SLOTS]; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    free(k->plural);
    free(k);
}

bool em_feed_catch_up(struct em_feed *f, const struct em_feed_waiter *w, int64_t *last_rev)
{
    const struct em_feed_key *k = w->key;
    if (!k || *last_rev < f->reset_rev || *last_rev < k->gone_rev || *last_rev < f->blind_rev) {
        f->behind_ring++;
        return false;
    }
    if (*last_rev < f->ring_gone_rev)
        *last_rev = f->ring_gone_rev;
    f->skipped_ahead++;
    return true;
}

static void due(struct em_feed *f, struct em_feed_key *k)
{
    if (k)
        em_feed_list_move(&f->due, &k->waiting);
}

void em_feed_keys_touch(struct em_feed *f, const char *plural, uint64_t ns_hash)
{
    due(f, find(f, plural, ns_hash));
    if (ns_hash != f->all_hash) /* the streams of every project too */
        due(f, find(f, plural, f->all_hash));
}

void em_feed_keys_gone(struct em_feed *f, const char *plural, uint64_t ns_hash, int64_t rev)
{
    f->ring_gone_rev = rev;
    if (!ns_hash) {
        f->blind_rev = rev;
        return;
    }
    struct em_feed_key *k = find(f, plural, ns_hash);
    if (k)
        k->gone_rev = rev;
    if (ns_hash != f->all_hash && (k = find(f, plural, f->all_hash)))
        k->gone_rev = rev;
}

void em_feed_keys_all_due(struct em_feed *f)
{
    for (size_t i = 0; i < EM_FEED_KEY_SLOTS; i++)
        for (struct em_feed_key *k = f->keys[i]; k; k = k->next)
            due(f, k);
}

void em_feed_keys_free(struct em_feed *f)
{
    for (size_t i = 0; i < EM_FEED_KEY_SLOTS; i++)
        while (f->keys[i]) {
            struct em_feed_key *k = f->keys[i];
            f->keys[i] = k->next;
            free(k->plural);
            free(k);
        }
}
