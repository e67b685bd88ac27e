/* A stream of JSON lines made under the server lock (see line_stream.h). */
#include "line_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "clock.h"
#include "query.h"
#include "util/time.h"
#include "util/xmalloc.h"

int em_line_stream_query(const struct em_req *req, bool *watch, int64_t *timeout_s,
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

void em_line_stream_add(struct em_line_stream *ls, const char *type, json_t *obj)
{
    json_t *line = type ? json_pack("{ssso}", "type", type, "object", obj) : obj;
    char *s = json_dumps(line, JSON_COMPACT);
    nd_buf_adds(&ls->pending, s);
    nd_buf_addch(&ls->pending, '\n');
    free(s);
    json_decref(line);
}

void em_line_stream_end(struct em_line_stream *ls)
{
    ls->ended = true;
}

static ssize_t line_read(void *cls, char *buf, size_t max)
{
    struct em_line_stream *ls = cls;
    struct em_server *srv = ls->srv;
    ssize_t n = 0;
    pthread_mutex_lock(&srv->lock);
    for (;;) {
        if ((n = (ssize_t)nd_buf_take(&ls->pending, &ls->sent, buf, max)) > 0)
            break;
        if (ls->ended || srv->stopping)
            break;
        int64_t real_now = em_real_now_ms();
        if (ls->deadline_real_ms && real_now >= ls->deadline_real_ms)
            break;
        ls->fill(ls, ls->cls);
        if (ls->pending.len)
            continue;
        if (em_stream_gone(ls->stream))
            break;
        int64_t ms = 1000; /* at most a second: to notice a client that went away */
        if (ls->deadline_real_ms && ls->deadline_real_ms - real_now < ms)
            ms = ls->deadline_real_ms - real_now;
        struct timespec ts;
        nd_time_deadline(&ts, ms < 1 ? 1 : ms);
        pthread_cond_timedwait(&srv->changed, &srv->lock, &ts);
    }
    pthread_mutex_unlock(&srv->lock);
    return n;
}

static void line_free(void *cls)
{
    struct em_line_stream *ls = cls;
    pthread_mutex_lock(&ls->srv->lock);
    ls->srv->stats.watches_open--;
    pthread_mutex_unlock(&ls->srv->lock);
    if (ls->release)
        ls->release(ls->cls);
    nd_buf_release(&ls->pending);
    free(ls);
}

void em_line_stream_start(struct em_server *srv, struct em_resp *resp, int64_t timeout_s,
                          em_line_fill_fn fill, void *cls, void (*release)(void *cls))
{
    struct em_line_stream *ls = nd_xcalloc(1, sizeof *ls);
    ls->srv = srv;
    ls->fill = fill;
    ls->cls = cls;
    ls->release = release;
    if (timeout_s > 0)
        ls->deadline_real_ms = em_real_now_ms() + timeout_s * 1000;
    nd_buf_init(&ls->pending, 0);
    srv->stats.watches_open++;
    srv->stats.watches_total++;
    ls->stream = em_resp_stream(resp, "application/json", line_read, line_free, ls);
}
