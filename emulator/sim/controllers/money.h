/* money.h: each object's money as integers (micro-dollars) inside the simulation.
 *
 * On the wire and in the store money is decimal text (status.costUSD, spec.maxCostUSD);
 * the controllers work on a record of integers kept per object (keyed by its uid) and
 * write text only into the status they commit. A record is read from the object's text
 * only when it is not current: its spec money when metadata.generation moved (a new
 * spec), its status money when metadata.resourceVersion is not the one the simulation
 * last wrote (after a restart, or a change the simulation did not make).
 *
 * Not thread-safe: the controllers use it with the server lock held.
 */
#ifndef EM_CTL_MONEY_H
#define EM_CTL_MONEY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* One object's money. Read the fields; em_ctl_* (common.h) change them with the text. */
struct em_money {
    int64_t max_cost; /* spec.maxCostUSD, -1 when unset */
    int64_t max_rate; /* spec.placement.maxRateUSDPerHour, -1 when unset */
    int64_t limit;    /* spec.limitUSD (a Budget), 0 when unset */
    int64_t cost;     /* status.costUSD, 0 when unset */
    int64_t rate;     /* status.rateUSDPerHour, -1 when unset */
    int64_t capped;   /* status.maxRateUSDPerHour (set at create), -1 when unset */
    /* The price check of the spec (em_ctl_spec_rate), when it found every GPU model
     * priced: its rate, under the price book em_pricebook_serial gave then. Forgotten
     * when the spec or the status is read again (someone else wrote the object). */
    bool priced_ok;
    int64_t priced_rate;
    uint64_t priced_book;
    /* the index's own */
    char *uid;
    int64_t generation; /* the spec read (-1: none; read again each time without one) */
    char *rv;           /* the status read or written at this resourceVersion, or NULL */
    bool written;       /* rv is one the simulation wrote (em_money_wrote), not one read */
    struct em_money *next;
};

struct em_money_index;

/* A new, empty index (never NULL) and its end (NULL is a no-op). */
struct em_money_index *em_money_index_new(void);
void em_money_index_free(struct em_money_index *ix);

/* obj's record, made current with obj (see above): never NULL; an object without a uid
 * gets the index's scratch record, read afresh each time. */
struct em_money *em_money_of(struct em_money_index *ix, const json_t *obj);
/* The record of the object of that uid, or NULL (nothing read or made current). */
struct em_money *em_money_find(struct em_money_index *ix, const char *uid);
/* The simulation stored obj with m's money in its text: m is current at obj's
 * resourceVersion (ok), or must be read again (!ok: the write failed). */
void em_money_wrote(struct em_money *m, const json_t *obj, bool ok);
/* Drops the record of an object that is gone. */
void em_money_forget(struct em_money_index *ix, const json_t *obj);
/* How many records hold (for tests). */
size_t em_money_count(const struct em_money_index *ix);

#endif
