/* pricebook.h: the prices and default delays the emulator simulates with.
 *
 * Kept in DIR/pricebook.json (written with the defaults when absent) so a person can
 * read and edit it. Money is integer micro-dollars inside, decimal strings in the file.
 * `version` changes with any change but a move of a market rate (api.md: a moved rate
 * does not invalidate a reviewed estimate; a changed price book does).
 */
#ifndef EM_PRICEBOOK_H
#define EM_PRICEBOOK_H

#include <jansson.h>
#include <stdint.h>

#include "util/status.h"

struct em_server;

/* Loads DIR/pricebook.json, writing the defaults first when it is absent. -1 with st
 * when it exists and is not a valid price book. */
int em_pricebook_load(struct em_server *srv, struct nd_status *st);
void em_pricebook_release(struct em_server *srv);
/* The price book as JSON. BORROWED. */
const json_t *em_pricebook(const struct em_server *srv);
int64_t em_pricebook_version(const struct em_server *srv);
/* How many books this process has taken (any change, a market rate's move too): what a
 * rate worked out from a spec and the book stays right for while it stays the same. */
uint64_t em_pricebook_serial(const struct em_server *srv);
/* Hourly rate of a GPU model in micro-dollars, on the market or in a Pool; -1 when
 * the model is not in the price book. */
int64_t em_gpu_rate(const struct em_server *srv, const char *model, int pool);
/* The delays the simulation reads; each is read into ms once, when a book is taken. */
enum em_delay {
    EM_DELAY_QUEUED,
    EM_DELAY_PROVISIONING,
    EM_DELAY_PENDING,
    EM_DELAY_STARTING,
    EM_DELAY_JOB_RUN,
    EM_DELAY_FINAL_CHARGE,
    EM_DELAY_COUNT
};
/* A default delay by name ("queued", "provisioning", "pending", "starting", "jobRun",
 * "finalCharge") in ms, as read when the book was taken (0 for another name). */
int64_t em_delay_ms(const struct em_server *srv, const char *name);
/* A rate of the book in micro-dollars, read once when the book was taken. */
enum em_book_rate {
    EM_RATE_PREDICT_FEE,  /* predictFeeUSDPerHour */
    EM_RATE_STORAGE_MONTH /* storageGiBMonthUSD (per GiB-month) */
};
int64_t em_book_rate(const struct em_server *srv, enum em_book_rate which);

/* The hourly rate (micro-dollars) of an object's spec: GPUs (market, or Pool when
 * spec.placement.pool is set), CPU cores and memory, or a Volume's storage. */
int64_t em_spec_rate(const struct em_server *srv, const char *plural, const json_t *spec);
/* status.estimate for a dry run of a kind that uses compute, or NULL (NEW):
 * {rateUSDPerHour, expectedCostUSD, firstHoldUSD, startTime}. */
json_t *em_estimate(struct em_server *srv, const char *plural, const json_t *obj);
/* The ETag of a reviewed object: a hash of its spec and the price book version, and the
 * hourly rate quoted ("<hash>-<micro-dollars>"). NEW string. */
char *em_review_etag(struct em_server *srv, const char *plural, const json_t *obj);
/* Whether an If-Match ETag still matches obj (same spec, same price book version; a
 * moved market rate does not matter): 0 with the reviewed rate, or -1. */
int em_review_check(struct em_server *srv, const json_t *obj, const char *etag,
                    int64_t *reviewed_rate);

/* PUT /emulator/v1/pricebook: a whole price book (JSON). Checked, then taken: its
 * version moves on any change but a market-rate move; written to pricebook.json; every
 * object looks again at its prices. -1 with st (Invalid, BadRequest). */
int em_pricebook_put(struct em_server *srv, const char *data, size_t len, struct nd_status *st);
/* Takes pricebook.json again when a person edited it (a broken edit is reported and
 * ignored). Cheap: one stat. */
void em_pricebook_poll(struct em_server *srv);

#endif
