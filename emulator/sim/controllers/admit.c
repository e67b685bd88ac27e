/* The write-time rules of every kind; see admit.h. */
#include "admit.h"

#include <string.h>

#include "objects.h"

int em_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    const char *plural = a->kind->plural;
    if (!strcmp(plural, "pools") && em_pool_admit(a, old, obj) < 0)
        return -1;
    if (!strcmp(plural, "poolactions") && em_poolaction_admit(a, old, obj) < 0)
        return -1;
    if ((em_kind_billed(a->kind) || !strcmp(plural, "pipelines")) &&
        em_budget_admit(a, old, obj) < 0)
        return -1;
    return 0;
}
