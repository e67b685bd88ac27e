/* The store's list of changes to undo when the disk refuses them; see store_ix.h. */
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "store_ix.h"
#include "util/xmalloc.h"

/* A NEW entry holding what e holds (its bytes and record, not its tree). */
static struct em_entry *entry_copy(const struct em_entry *e)
{
    struct em_entry *c = em_entry_new(em_bytes_ref(e->json), json_incref(e->rec), NULL);
    c->stamp = e->stamp;
    c->text_hash = e->text_hash;
    return c;
}

void em_store_undo_release(struct em_undo *u)
{
    free(u->ns);
    free(u->name);
    em_entry_free(u->prev);
}

void em_store_undo_push(struct em_store *s, uint64_t ticket, int64_t rev, const struct nd_kind *k,
                        const char *ns, const char *name, const struct em_entry *cur)
{
    pthread_mutex_lock(&s->journal.lock);
    uint64_t settled = s->journal.broken ? 0 : s->journal.durable;
    pthread_mutex_unlock(&s->journal.lock);
    size_t drop = 0;
    while (drop < s->nundo && s->undo[drop].ticket <= settled)
        em_store_undo_release(&s->undo[drop++]);
    if (drop) {
        memmove(s->undo, s->undo + drop, (s->nundo - drop) * sizeof *s->undo);
        s->nundo -= drop;
    }
    if (s->nundo == s->capundo) {
        s->capundo = s->capundo ? s->capundo * 2 : 64;
        s->undo = nd_xrealloc(s->undo, s->capundo * sizeof *s->undo);
    }
    struct em_undo *u = &s->undo[s->nundo++];
    *u = (struct em_undo){
        .ticket = ticket, .rev = rev, .kind = k, .ns = nd_xstrdup(ns), .name = nd_xstrdup(name)};
    if (cur)
        u->prev = entry_copy(cur);
}

void em_store_undo_clear(struct em_store *s)
{
    for (size_t i = 0; i < s->nundo; i++)
        em_store_undo_release(&s->undo[i]);
    free(s->undo);
    s->undo = NULL;
    s->nundo = s->capundo = 0;
}
