/* priced.h: prices are never made up.
 *
 * Every field whose schema says x-nodus-priced: gpu (spec.resources.gpu.model, and a
 * Pipeline's spec.steps[N].job.resources.gpu.model) must name a GPU model something
 * offers: the price book's market (gpu.market), or, for work placed in a Pool
 * (placement.pool of the spec that holds it), the price book's Pool rates (gpu.pool) or
 * the hosts enrolled in that Pool (spec.gpus). The other priced fields (cpu, memory, a
 * Volume's size) are quantities the schema bounds. A create, an update that changes the
 * model and a dry run of a model nothing offers fail Invalid, naming the field, the
 * value, the offered models and the closest one (suggested, never applied). When the
 * price book drops a model later, the objects asking for it say so in the condition
 * Unpriced and are charged the rate they were last priced at, never $0 silently.
 */
#ifndef EM_CTL_PRICED_H
#define EM_CTL_PRICED_H

#include <jansson.h>

#include "admit.h"
#include "common.h"

/* NEW array of the models offered to work of project ns (pool: its spec.placement.pool,
 * or NULL for the market), in the price book's order, each once. */
json_t *em_offered_models(struct em_server *srv, const char *ns, const char *pool);
/* NEW array, one {field, value, offered, pool?} per GPU model in obj's spec that nothing
 * offers; empty when every one is priced. */
json_t *em_unpriced(struct em_server *srv, const struct nd_kind *k, const json_t *obj);
/* The write-time rule (admit.h): 0, or -1 with a->st Invalid. */
int em_priced_admit(struct em_admission *a, const json_t *old, json_t *obj);
/* The hourly rate of c's object by its spec (em_spec_rate), keeping the condition
 * Unpriced: when a model it asks for lost its price, Unpriced=True says so and what it
 * is charged: charged (the rate it runs at, when >= 0), else the rate its spec was last
 * priced at (status.simulation.pricedRate), which is returned. */
int64_t em_ctl_spec_rate(struct em_ctl *c, int64_t charged);

#endif
