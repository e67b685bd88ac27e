/* phase.c: the one table of phases, enum <-> wire string. */
#include "kinds/phase.h"

#include <string.h>

static const char *const names[ND_PHASE_COUNT] = {
    [ND_PHASE_NONE] = "",
    [ND_PHASE_QUEUED] = "Queued",
    [ND_PHASE_PROVISIONING] = "Provisioning",
    [ND_PHASE_RUNNING] = "Running",
    [ND_PHASE_SUCCEEDED] = "Succeeded",
    [ND_PHASE_FAILED] = "Failed",
    [ND_PHASE_CANCELLED] = "Cancelled",
    [ND_PHASE_CANCELLING] = "Cancelling",
    [ND_PHASE_PENDING] = "Pending",
    [ND_PHASE_STARTING] = "Starting",
    [ND_PHASE_STOPPED] = "Stopped",
    [ND_PHASE_TERMINATING] = "Terminating",
    [ND_PHASE_ACTIVE] = "Active",
    [ND_PHASE_UNKNOWN] = NULL,
};

enum nd_phase nd_phase_parse(const char *s)
{
    if (!s || !*s)
        return ND_PHASE_NONE;
    for (int p = ND_PHASE_NONE + 1; p < ND_PHASE_COUNT; p++)
        if (names[p] && strcmp(names[p], s) == 0)
            return (enum nd_phase)p;
    return ND_PHASE_UNKNOWN;
}

const char *nd_phase_name(enum nd_phase p)
{
    return (int)p >= 0 && p < ND_PHASE_COUNT ? names[p] : NULL;
}

enum nd_phase nd_phase_of(const json_t *obj)
{
    const json_t *status = json_object_get(obj, "status");
    return nd_phase_parse(json_string_value(json_object_get(status, "phase")));
}

bool nd_phase_ended(enum nd_phase p)
{
    return p == ND_PHASE_SUCCEEDED || p == ND_PHASE_FAILED || p == ND_PHASE_CANCELLED;
}
