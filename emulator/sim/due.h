/* due.h: the scheduler's due queue: per object (kind, project, name), the emulated time
 * its controller next needs to run.
 *
 * A binary min-heap ordered by (time, arrival), plus an index from the object to its
 * item, so the earliest time is O(1), setting, finding and removing one object O(log N),
 * and the objects due by a time O(k log k) for the k due, whatever N is. Arrival is the
 * order in which objects first entered the queue (kept when an object is rescheduled, new
 * when one removed comes back): among objects due at once, the one waiting longest runs
 * first, and em_due_collect hands them out in that order.
 *
 * An item set to EM_NEVER stays (keeping its arrival) until em_due_prune removes it: the
 * scheduler parks what it runs there and prunes once its run is over.
 *
 * Not thread-safe: the scheduler calls it with the server lock held.
 */
#ifndef EM_SIM_DUE_H
#define EM_SIM_DUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds/registry.h"

#define EM_NEVER INT64_MAX

/* One object's place in the queue. Read its fields; change it only through em_due_*. */
struct em_due_item {
    const struct nd_kind *kind;
    char *ns;            /* "" for cluster-scoped kinds */
    char *name;
    int64_t at;          /* emulated ms, or EM_NEVER (parked, see em_due_prune) */
    uint64_t arrival;    /* the order it entered the queue */
    size_t slot;         /* its position in the heap */
    bool parked;         /* on the list em_due_prune looks at */
};

struct em_due;

/* A new, empty queue (never NULL) and its end (NULL is a no-op). */
struct em_due *em_due_new(void);
void em_due_free(struct em_due *q);

/* Makes (kind, ns, name) due at `at`, adding it (with a new arrival) when absent. */
struct em_due_item *em_due_set(struct em_due *q, const struct nd_kind *kind, const char *ns,
                               const char *name, int64_t at);
/* Changes an item's time (EM_NEVER parks it). */
void em_due_move(struct em_due *q, struct em_due_item *it, int64_t at);
/* The item of (kind, ns, name), or NULL. */
struct em_due_item *em_due_find(const struct em_due *q, const struct nd_kind *kind,
                                const char *ns, const char *name);
/* Removes and frees an item. */
void em_due_remove(struct em_due *q, struct em_due_item *it);
/* Removes every parked item still at EM_NEVER (the others stay, unparked). */
void em_due_prune(struct em_due *q);

/* The earliest item (lowest time, then earliest arrival), or NULL when empty. */
struct em_due_item *em_due_peek(const struct em_due *q);
/* Its time, or EM_NEVER when nothing is pending. */
int64_t em_due_next(const struct em_due *q);
size_t em_due_count(const struct em_due *q);
/* The items due at or before now, in arrival order, into *out (grown with nd_xrealloc;
 * *cap its capacity): how many. Each pointer stays valid until its item is removed
 * (em_due_remove, em_due_prune); moving items does not invalidate them. */
size_t em_due_collect(const struct em_due *q, int64_t now, struct em_due_item ***out,
                      size_t *cap);
/* True when the heap holds its order and every item knows its slot (for tests). */
bool em_due_check(const struct em_due *q);

#endif
