/* GET /emulator/v1/spend[?watch=true]: the spend per project and kind (core/spend.h),
 * and a stream of its samples.
 *
 * The stream sends one line per sample, {"type":"SAMPLE","object":{sample}}: the newest
 * kept sample first (the client merges by seq), then each new one as it is taken. It
 * reads the samples from the ring (core/spend.c) under the server lock only when it has
 * sent what it holds, so it holds at most one ring's worth of lines; a reader so slow
 * that the ring dropped a sample it had not sent yet (or a reset emptied it) is ended
 * with an ERROR line (a Status 410, Expired: read GET /emulator/v1/spend again). A
 * sample that replaces one at the same emulated time comes again with a new seq: a
 * client keys samples by timeMs. It ends at shutdown, and when
 * timeoutSeconds (real seconds) pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "admin.h"
#include "errors.h"
#include "query.h"
#include "spend.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct spend_stream {
    struct em_server *srv;
    uint64_t after; /* the seq of the last sample sent */
    int64_t deadline_real_ms; /* 0: none */
    bool ended;
    struct nd_buf pending;
    size_t sent;
    struct em_stream *stream;
};

static void line(struct spend_stream *w, const char *type, json_t *obj)
{
    json_t *ev = json_pack("{ssso}", "type", type, "object", obj);
    char *s = json_dumps(ev, JSON_COMPACT);
    nd_buf_adds(&w->pending, s);
    nd_buf_addch(&w->pending, '\n');
    free(s);
    json_decref(ev);
}

/* The samples not sent yet into pending (lock held): at most the ring's. */
static void collect(struct spend_stream *w)
{
    bool expired;
    json_t *samples = em_spend_after(w->srv, w->after, &expired);
    if (expired) {
        json_t *st = json_pack("{sssss{}sssssssi}", "kind", "Status", "apiVersion", "v1",
                               "metadata", "status", "Failure", "message",
                               "samples this stream had not sent were dropped: read GET "
                               "/emulator/v1/spend again",
                               "reason", "Expired", "code", 410);
        line(w, "ERROR", st);
        w->ended = true;
    }
    size_t i;
    json_t *s;
    json_array_foreach(samples, i, s) {
        w->after = (uint64_t)json_integer_value(json_object_get(s, "seq"));
        line(w, "SAMPLE", json_incref(s));
    }
    json_decref(samples);
}

static ssize_t spend_read(void *cls, char *buf, size_t max)
{
    struct spend_stream *w = cls;
    struct em_server *srv = w->srv;
    ssize_t n = 0;
    pthread_mutex_lock(&srv->lock);
    for (;;) {
        if ((n = (ssize_t)nd_buf_take(&w->pending, &w->sent, buf, max)) > 0)
            break;
        if (w->ended || srv->stopping)
            break;
        int64_t real_now = em_real_now_ms();
        if (w->deadline_real_ms && real_now >= w->deadline_real_ms)
            break;
        collect(w);
        if (w->pending.len)
            continue;
        if (em_stream_gone(w->stream))
            break;
        int64_t ms = 1000; /* at most a second: to notice a client that went away */
        if (w->deadline_real_ms && w->deadline_real_ms - real_now < ms)
            ms = w->deadline_real_ms - real_now;
        struct timespec ts;
        nd_time_deadline(&ts, ms < 1 ? 1 : ms);
        pthread_cond_timedwait(&srv->changed, &srv->lock, &ts);
    }
    pthread_mutex_unlock(&srv->lock);
    return n;
}

static void spend_free(void *cls)
{
    struct spend_stream *w = cls;
    pthread_mutex_lock(&w->srv->lock);
    w->srv->stats.watches_open--;
    pthread_mutex_unlock(&w->srv->lock);
    nd_buf_release(&w->pending);
    free(w);
}

/* ?watch= and ?timeoutSeconds= of the request, checked: 0, or -1 with st set. */
static int spend_query(const struct em_req *req, bool *watch, int64_t *timeout_s,
                       struct nd_status *st)
{
    const char *w = em_req_query(req, "watch"), *t = em_req_query(req, "timeoutSeconds");
    *watch = false;
    *timeout_s = 0;
    if (w && em_query_parse_bool(w, watch) < 0)
        return nd_status_set(st, "BadRequest", "send watch=true, or leave it out",
                             "invalid value for query parameter watch: \"%s\" (want true or "
                             "false)", w);
    char *end = NULL;
    errno = 0;
    long long v = t ? strtoll(t, &end, 10) : 0;
    if (t && (!*t || *end || errno || v < 0 || v > 100LL * 365 * 24 * 3600))
        return nd_status_set(st, "BadRequest", "send timeoutSeconds=0 or more, or leave it out",
                             "invalid value for query parameter timeoutSeconds: \"%s\" (want a "
                             "whole number of seconds, 0 or more)", t);
    *timeout_s = v;
    return 0;
}

int em_spend_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                    struct nd_status *st)
{
    bool watch;
    int64_t timeout_s;
    if (spend_query(req, &watch, &timeout_s, st) < 0)
        return -1;
    if (!watch) {
        json_t *j = em_spend_json(srv); /* counts what is new first */
        em_resp_json(resp, 200, j);
        json_decref(j);
        return 0;
    }
    em_spend_publish(srv); /* what is new first */
    struct spend_stream *w = nd_xcalloc(1, sizeof *w);
    w->srv = srv;
    w->after = em_spend_start(srv); /* the newest sample first */
    if (timeout_s > 0)
        w->deadline_real_ms = em_real_now_ms() + timeout_s * 1000;
    nd_buf_init(&w->pending, 0);
    srv->stats.watches_open++;
    srv->stats.watches_total++;
    w->stream = em_resp_stream(resp, "application/json", spend_read, spend_free, w);
    return 0;
}
