/* The write-time rules of every kind; see admit.h. */
#include "admit.h"

#include "priced.h"
#include "sim.h"

int em_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    const struct em_controller *c = em_controller_find(a->kind);
    if (c && c->admit && c->admit(a, old, obj) < 0)
        return -1;
    if (em_priced_admit(a, old, obj) < 0)
        return -1;
    if (nd_kind_costs(a->kind) && em_budget_admit(a, old, obj) < 0)
        return -1;
    return 0;
}
