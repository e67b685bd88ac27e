/* event_v1.c: core v1 Event -> events.k8s.io/v1 Event (event_v1.h). */
#include "kinds/event_v1.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* Sets out[to] to a copy of core[from] when core has it. */
static void copy(json_t *out, const char *to, const json_t *core, const char *from)
{
    json_t *v = json_object_get(core, from);
    if (v && !json_is_null(v))
        json_object_set_new(out, to, json_deep_copy(v));
}

/* An RFC 3339 time with microseconds (a MicroTime): "...T10:00:00Z" -> "...T10:00:00.000000Z".
 * NEW string, or NULL when t is not a time of whole seconds in UTC. */
static char *micro_time(const char *t)
{
    size_t n = t ? strlen(t) : 0;
    if (n != 20 || t[19] != 'Z')
        return NULL;
    return nd_xasprintf("%.19s.000000Z", t);
}

json_t *nd_event_v1_from_core(const json_t *core)
{
    json_t *out = json_pack("{ss ss}", "apiVersion", "events.k8s.io/v1", "kind", "Event");
    copy(out, "metadata", core, "metadata");
    const json_t *et = json_object_get(core, "eventTime");
    if (json_is_string(et)) {
        json_object_set(out, "eventTime", (json_t *)et);
    } else {
        const char *first = json_string_value(json_object_get(core, "firstTimestamp"));
        char *micro = micro_time(first);
        json_object_set_new(out, "eventTime", micro ? json_string(micro) : json_null());
        free(micro);
    }
    copy(out, "series", core, "series");
    copy(out, "reportingController", core, "reportingComponent");
    copy(out, "reportingInstance", core, "reportingInstance");
    copy(out, "action", core, "action");
    copy(out, "reason", core, "reason");
    copy(out, "regarding", core, "involvedObject");
    copy(out, "related", core, "related");
    copy(out, "note", core, "message");
    copy(out, "type", core, "type");
    copy(out, "deprecatedSource", core, "source");
    copy(out, "deprecatedFirstTimestamp", core, "firstTimestamp");
    copy(out, "deprecatedLastTimestamp", core, "lastTimestamp");
    copy(out, "deprecatedCount", core, "count");
    return out;
}
