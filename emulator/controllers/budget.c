/* The Budget controller (not built yet): admission only. */
#include "admit.h"

int em_budget_admit(struct em_api *a, const json_t *old, json_t *obj)
{
    (void)a;
    (void)old;
    (void)obj;
    return 0;
}
