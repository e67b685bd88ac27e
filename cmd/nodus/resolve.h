/* resolve.h: turning what a user typed (`jobs`, `job/a`, `jobs,sandboxes a b`, `all`)
 * into kinds and names, as kubectl does. Kinds are found in the kind registry by any
 * name (plural, singular, short name, Kind, kind.group); categories (`all`, `nodus`)
 * expand to their kinds. */
#ifndef ND_RESOLVE_H
#define ND_RESOLVE_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "util/status.h"

struct nd_res {
    const struct nd_kind *k;
    json_t *names; /* array of strings; empty: every object of the kind */
};

struct nd_res_list {
    struct nd_res *v;
    size_t n;
    bool by_name;  /* names were given (KIND NAME... or KIND/NAME) */
    bool several;  /* several kinds were asked for (show kinds in tables) */
};

/* Resolves positional arguments. -1 with st (Usage) for no argument, an unknown kind
 * (`the server doesn't have a resource type "x"`) or a mix of forms. */
int nd_resolve_args(int npos, char **pos, struct nd_res_list *out, struct nd_status *st);
void nd_res_list_release(struct nd_res_list *l);
/* One kind by name, or NULL with st (Usage) naming it. */
const struct nd_kind *nd_resolve_kind(const char *name, struct nd_status *st);
/* The same error for a name none of the resources a server serves answers to (discovery's
 * APIResource objects with "group"), suggesting the closest of their names. */
void nd_resolve_unknown_served(const json_t *resources, const char *name, struct nd_status *st);

#endif
