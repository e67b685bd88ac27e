/* GET /emulator/v1/spend[?watch=true]: the spend per project and kind (core/spend.h),
 * and a stream of its samples.
 *
 * The stream sends one line per sample, {"type":"SAMPLE","object":{sample}}: the newest
 * kept sample first (the client merges by seq), then each new one as it is taken. It
 * reads the samples from the ring (core/spend.c) under the server lock only when it has
 * sent what it holds, so it holds at most one ring's worth of lines; a reader so slow
 * that the ring dropped a sample it had not sent yet, and every stream open at a reset, is
 * ended with an ERROR line (a Status 410, Expired: read GET /emulator/v1/spend again). A
 * sample that replaces one at the same emulated time comes again with a new seq: a
 * client keys samples by timeMs. It ends at shutdown, and when
 * timeoutSeconds (real seconds) pass.
 */
#include <stdlib.h>

#include "admin.h"
#include "line_stream.h"
#include "spend.h"
#include "util/xmalloc.h"

/* The samples not sent yet (lock held): at most the ring's; an ERROR line and the end
 * when some were dropped before this stream sent them. cls: the seq of the last sample
 * sent. */
static void collect(struct em_line_stream *ls, void *cls)
{
    uint64_t *after = cls;
    bool expired;
    json_t *samples = em_spend_after(ls->srv, *after, &expired);
    if (expired) {
        json_t *st = json_pack("{sssss{}sssssssi}", "kind", "Status", "apiVersion", "v1",
                               "metadata", "status", "Failure", "message",
                               "samples this stream had not sent were dropped: read GET "
                               "/emulator/v1/spend again",
                               "reason", "Expired", "code", 410);
        em_line_stream_add(ls, "ERROR", st);
        em_line_stream_end(ls);
    }
    size_t i;
    json_t *s;
    json_array_foreach(samples, i, s) {
        *after = (uint64_t)json_integer_value(json_object_get(s, "seq"));
        em_line_stream_add(ls, "SAMPLE", json_incref(s));
    }
    json_decref(samples);
}

int em_spend_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                    struct nd_status *st)
{
    bool watch;
    int64_t timeout_s;
    if (em_line_stream_query(req, &watch, &timeout_s, st) < 0)
        return -1;
    if (!watch) {
        json_t *j = em_spend_json(srv); /* counts what is new first */
        em_resp_json(resp, 200, j);
        json_decref(j);
        return 0;
    }
    em_spend_publish(srv); /* what is new first */
    uint64_t *after = nd_xmalloc(sizeof *after);
    *after = em_spend_start(srv); /* the newest sample first */
    em_line_stream_start(srv, resp, timeout_s, collect, after, free);
    return 0;
}
