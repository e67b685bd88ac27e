/* common.h: what the controllers share: phases with their Events, conditions, times,
 * money, and committing a changed copy of an object.
 *
 * A controller never changes the stored object: it works on a copy (em_ctl_begin) and
 * commits it (em_ctl_commit), which writes only when something changed. Its own
 * bookkeeping lives in status.simulation (emulated ms): phaseTime (the current phase's
 * start), accruedAt (costs are accrued up to it), runMs (time spent Running).
 */
#ifndef EM_CTL_COMMON_H
#define EM_CTL_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kinds/phase.h"
#include "kinds/registry.h"
#include "money.h"
#include "sim.h"

#define EM_ACCRUE_EVERY_MS (60 * 1000) /* costs shown move at least this often */

struct em_ctl {
    struct em_server *srv;
    const struct nd_kind *k;
    json_t *old;  /* the stored object (borrowed) */
    json_t *obj;  /* the working copy (owned) */
    json_t *status, *sim; /* inside obj */
    struct em_money *money; /* obj's money as integers (money.h): read, or em_ctl_set_cost */
    int64_t now;
    int64_t next; /* the earliest time the controller must run again */
};

void em_ctl_begin(struct em_ctl *c, struct em_server *srv, const struct nd_kind *k, json_t *old,
                  int64_t now);
/* em_ctl_begin with a working copy that shares with old all but metadata, status,
 * metadata.finalizers and status.simulation (each an object or array of its own, their
 * members old's) and status.conditions and .billing (copied when the common functions
 * first change them): for a controller that changes nothing else in place (the Job
 * controller: a member of status or of status.simulation it replaces, with
 * json_object_set_new), so a running Job's minute copies a few small values and the
 * write splices the rest of its bytes (store/splice.h). */
void em_ctl_begin_light(struct em_ctl *c, struct em_server *srv, const struct nd_kind *k,
                        json_t *old, int64_t now);
/* Writes obj when it differs from old (after adding the end condition of a
 * run-to-completion object that ended: em_ctl_lacks_end_condition); releases c;
 * returns c->next. */
int64_t em_ctl_commit(struct em_ctl *c);
/* Asks to run again at t (the earliest request wins). */
void em_ctl_due(struct em_ctl *c, int64_t t);

const char *em_ctl_phase(const struct em_ctl *c);
/* The same as an enum (ND_PHASE_NONE while unset): what code compares. */
enum nd_phase em_ctl_phase_id(const struct em_ctl *c);
/* Sets status.phase (and its start time) with an Event (type Normal, or Warning for
 * Failed) carrying reason and message. No-op when already in that phase. */
void em_ctl_set_phase(struct em_ctl *c, const char *phase, const char *reason, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
/* When the current phase began (emulated ms; the creation time when unknown). */
int64_t em_ctl_phase_time(const struct em_ctl *c);
/* Sets a condition (Kubernetes shape, observedGeneration the object's generation);
 * lastTransitionTime moves only when status changes. */
void em_ctl_condition(struct em_ctl *c, const char *type, bool status, const char *reason,
                      const char *message);
bool em_ctl_condition_true(const struct em_ctl *c, const char *type);
/* True when obj is a run-to-completion object that ended (Succeeded, Failed, Cancelled)
 * without the condition Kubernetes Jobs end with: Complete, or Failed. em_ctl_commit
 * adds it (Complete=True when Succeeded, else Failed=True, with the end's reason and
 * message, since completionTime), so every end sets it and an object of an older state
 * gains it when it is next reconciled. */
bool em_ctl_lacks_end_condition(const struct nd_kind *k, const json_t *obj);

/* status.simulation integers. */
int64_t em_ctl_sim_get(const struct em_ctl *c, const char *key, int64_t def);
void em_ctl_sim_set(struct em_ctl *c, const char *key, int64_t v);
void em_ctl_sim_del(struct em_ctl *c, const char *key);

/* Times as RFC 3339 in status. */
void em_ctl_set_time(struct em_ctl *c, const char *field, int64_t ms);
/* A status time, or -1; em_ctl_time_in: of status (an object's, or its record's). */
int64_t em_ctl_time(const struct em_ctl *c, const char *field);
int64_t em_ctl_time_in(const json_t *status, const char *field);
/* metadata.creationTimestamp in ms. */
int64_t em_ctl_created(const struct em_ctl *c);

/* Money (micro-dollars) in status fields as decimal strings. */
int64_t em_ctl_money(const json_t *obj, const char *field, int64_t def);
void em_ctl_set_money(json_t *obj, const char *field, int64_t micros);
/* The money record of a stored object (money.h), current with it: what to read an
 * object's money from, the controller's own (c->money) or another's. */
struct em_money *em_ctl_money_of(struct em_server *srv, const json_t *obj);
/* Sets status.costUSD: c->money->cost and its text. */
void em_ctl_set_cost(struct em_ctl *c, int64_t micros);
/* Sets status.rateUSDPerHour (c->money->rate and its text); em_ctl_clear_rate removes it. */
void em_ctl_set_rate(struct em_ctl *c, int64_t micros);
void em_ctl_clear_rate(struct em_ctl *c);
/* Adds rate x (now - accruedAt) to status.costUSD and the Running time to runMs, then
 * moves accruedAt to now. Nothing when accruedAt is unset (not accruing). */
void em_ctl_accrue(struct em_ctl *c, int64_t rate);
/* Starts or stops accruing. */
void em_ctl_accrue_start(struct em_ctl *c);
void em_ctl_accrue_stop(struct em_ctl *c, int64_t rate);

/* An annotation's duration (emulator.nodus.dev/<name>) in ms, or def. */
int64_t em_ctl_annotation_ms(const struct em_ctl *c, const char *name, int64_t def);
/* An annotation's integer, or def. */
long em_ctl_annotation_int(const struct em_ctl *c, const char *name, long def);

/* Billing: once work has ended at `ended`, the final charge posts finalCharge later;
 * then status.billing.settled is true and, if the object is being deleted, the
 * nodus.dev/billing finalizer goes (so the object can). Objects that never ran settle
 * at once. */
void em_ctl_settle(struct em_ctl *c, int64_t ended);

#endif
