/* event_v1.h: the events.k8s.io/v1 view of the stored core v1 Events.
 *
 * Events are stored once, as core v1 Events (what /api/v1 serves and nodus describe
 * reads); /apis/events.k8s.io/v1 serves the same objects, with the same names, uids and
 * resourceVersions, converted on the way out as kube-apiserver converts them. The kind
 * row of the view (kinds.c) names this function as its from_stored.
 */
#ifndef ND_API_EVENT_V1_H
#define ND_API_EVENT_V1_H

#include <jansson.h>

/* The events.k8s.io/v1 Event of a core v1 Event (borrowed): involvedObject is regarding,
 * message note, reportingComponent reportingController, source deprecatedSource,
 * firstTimestamp and lastTimestamp deprecatedFirstTimestamp and deprecatedLastTimestamp,
 * count deprecatedCount; metadata, reason, type, action, related, series and
 * reportingInstance as they are. eventTime is the Event's, or its firstTimestamp with
 * microseconds when it has none (events.k8s.io requires one). NEW. */
json_t *nd_event_v1_from_core(const json_t *core);

#endif
