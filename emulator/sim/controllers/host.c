/* The Host controller: the long-running lifecycle (Pending -> Starting -> Running, the
 * emulator's stand-in for the agent enrolling the host), Ready while Running, Enrolled
 * while its Pool exists, status.allocated {model: devices in use} from the work placed on
 * it, and status.simulation.idleSince (Running with no work since then; IdleReclaim reads
 * it). A host a Drain cordoned (annotation nodus.dev/drained-by) is put back in service
 * once that PoolAction no longer runs. Cordoned hosts take no new work (routing.c).
 */
#include <string.h>

#include "kinds/object.h"
#include "controllers.h"
#include "longrun.h"
#include "objects.h"
#include "pools.h"

/* Lifts the cordon of a Drain that no longer runs. */
static void end_drain(struct em_ctl *c)
{
    json_t *ann = json_object_get(json_object_get(c->obj, "metadata"), "annotations");
    const char *by = json_string_value(json_object_get(ann, EM_ANN_DRAINED_BY));
    if (!by)
        return;
    const char *name = strncmp(by, "poolaction/", 11) == 0 ? by + 11 : by;
    const json_t *pa = em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "poolactions"),
                                    em_obj_ns(c->obj), name);
    const char *phase = nd_obj_get_string(pa, "status.phase");
    if (pa && phase && nd_phase_parse(phase) == ND_PHASE_RUNNING && !em_obj_deleting(pa))
        return;
    em_event_record(c->srv, c->k, c->obj, "Normal", "Uncordoned",
                    "back in service: the drain of %s is over", by);
    json_object_del(ann, EM_ANN_DRAINED_BY);
    json_object_set_new(json_object_get(c->obj, "spec"), "cordoned", json_false());
}

static void host_status(struct em_ctl *c)
{
    const char *pool = nd_obj_get_string(c->obj, "spec.pool");
    const char *ns = em_obj_ns(c->obj), *name = em_obj_name(c->obj);
    const json_t *p =
        pool ? em_store_get(&c->srv->store, nd_kind_by_plural(NULL, "pools"), ns, pool) : NULL;
    struct nd_buf msg = ND_BUF_INIT;
    nd_buf_addf(&msg, p ? "enrolled in pool/%s" : "pool/%s does not exist", pool ? pool : "");
    em_ctl_condition(c, "Enrolled", p != NULL, p ? "Enrolled" : "PoolNotFound", msg.data);
    nd_buf_release(&msg);

    json_t *alloc = pool ? em_pool_allocated(c->srv, ns, pool) : json_object();
    json_t *mine = json_object_get(alloc, name);
    json_t *out = json_object();
    int64_t busy = 0;
    const char *model;
    json_t *v;
    json_object_foreach((json_t *)nd_obj_get(c->obj, "spec.gpus"), model, v)
        json_object_set_new(out, model, json_integer(em_alloc_of(alloc, name, model)));
    json_object_foreach(mine, model, v) {
        json_object_set(out, model, v);
        busy += json_integer_value(v);
    }
    json_object_set_new(c->status, "allocated", out);
    json_decref(alloc);

    if (em_ctl_phase_id(c) == ND_PHASE_RUNNING && !busy) {
        if (em_ctl_sim_get(c, "idleSince", -1) < 0)
            em_ctl_sim_set(c, "idleSince", c->now);
    } else {
        em_ctl_sim_del(c, "idleSince");
    }
    end_drain(c);
}

static const struct em_longrun_ops ops = {
    .status = host_status,
};

static int64_t reconcile(struct em_server *srv, const struct nd_kind *k, json_t *obj, int64_t now)
{
    return em_longrun_reconcile(srv, k, obj, now, &ops);
}

const struct em_controller em_host_controller = {"hosts", reconcile};
