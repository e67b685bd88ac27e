/* The table of controllers. */
#include <string.h>

#include "controllers.h"

static const struct em_controller *const table[] = {
    &em_job_controller,
    &em_sandbox_controller,
    &em_budget_controller,
    &em_pipeline_controller,
    &em_volume_controller,
    &em_function_controller,
    &em_pool_controller,
    &em_host_controller,
    &em_poolaction_controller,
    NULL,
};

const struct em_controller *em_controller_find(const struct nd_kind *k)
{
    for (int i = 0; k && table[i]; i++)
        if (!strcmp(table[i]->plural, k->plural))
            return table[i];
    return NULL;
}
