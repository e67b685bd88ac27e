/* admit.h: the platform's rules a write must pass before it is stored (or answered, for
 * a dry run), beyond the schema: a Budget with action Block refusing a launch
 * (BudgetExceeded), a Pool enabling Predict without billing:write or price consent
 * (Forbidden, ConsentRequired), a price that moved above a reviewed estimate
 * (PriceAboveEstimate). Each kind's rules live in its controller's file. */
#ifndef EM_CTL_ADMIT_H
#define EM_CTL_ADMIT_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "server.h"
#include "util/status.h"

/* What the rules need of the write and who asks (the API layer fills it from the
 * request: the simulation sees no HTTP). */
struct em_admission {
    struct em_server *srv;
    const struct nd_kind *kind;
    const char *identity;      /* who asks (nodus.dev/created-by) */
    bool may_bill;             /* who asks holds billing:write */
    bool seeding;              /* --seed creates it: no consent is asked */
    const char *price_consent; /* the Nodus-Price-Consent header, or NULL */
    struct nd_status *st;      /* the refusal */
};

/* old is the stored object (NULL on create); obj what would be stored. 0 to go on, or
 * -1 with a->st filled. Never changes the store. */
int em_admit(struct em_admission *a, const json_t *old, json_t *obj);

/* Per kind (pool.c, budget.c). */
int em_pool_admit(struct em_admission *a, const json_t *old, json_t *obj);
/* A decision on a PoolAction (poolaction.c). */
int em_poolaction_admit(struct em_admission *a, const json_t *old, json_t *obj);
/* A launch (create of a billed kind, or spec.state back to Running) against the
 * project's Budgets. */
int em_budget_admit(struct em_admission *a, const json_t *old, json_t *obj);

#endif
