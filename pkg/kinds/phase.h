/* phase.h: the phases of objects (status.phase) as one enum.
 *
 * The wire carries a phase as a string ("Running"); inside, code reads it once at the
 * edge (nd_phase_of) and compares enums. One table (phase.c) maps each enum to its wire
 * string. The phases of each family and their order are in registry.h (nd_phases).
 */
#ifndef ND_PHASE_H
#define ND_PHASE_H

#include <jansson.h>
#include <stdbool.h>

enum nd_phase {
    ND_PHASE_NONE = 0, /* no status.phase yet (absent or "") */
    ND_PHASE_QUEUED,   /* run-to-completion: Queued -> Provisioning -> Running -> ... */
    ND_PHASE_PROVISIONING,
    ND_PHASE_RUNNING, /* both families */
    ND_PHASE_SUCCEEDED,
    ND_PHASE_FAILED,
    ND_PHASE_CANCELLED,
    ND_PHASE_CANCELLING, /* run-to-completion, while being deleted */
    ND_PHASE_PENDING,    /* long-running: Pending -> Starting -> Running -> Stopped */
    ND_PHASE_STARTING,
    ND_PHASE_STOPPED,
    ND_PHASE_TERMINATING, /* long-running, while being deleted */
    ND_PHASE_ACTIVE,      /* Project (a built-in kind) */
    ND_PHASE_UNKNOWN,     /* a string that is none of the above */
    ND_PHASE_COUNT
};

/* The phase a wire string names: ND_PHASE_NONE for NULL or "", ND_PHASE_UNKNOWN for a
 * string outside the table. */
enum nd_phase nd_phase_parse(const char *s);
/* The wire string of a phase: "" for ND_PHASE_NONE, NULL for ND_PHASE_UNKNOWN and out
 * of range values. */
const char *nd_phase_name(enum nd_phase p);
/* The phase of an object (its status.phase), read once at the edge. */
enum nd_phase nd_phase_of(const json_t *obj);
/* True for the end phases of run-to-completion objects: Succeeded, Failed, Cancelled. */
bool nd_phase_ended(enum nd_phase p);

#endif
