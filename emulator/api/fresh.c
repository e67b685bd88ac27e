/* Reads at a resourceVersion newer than the server's: kube-apiserver's watch cache waits
 * up to 3 s for the version to exist (a write may be on its way), then answers 504 Timeout
 * "Too large resource version". Here the request's own thread waits on srv->changed (the
 * server lock released meanwhile, as a watch stream waits), so other requests and the
 * simulation go on; past waits_max() waiting reads, the answer comes at once. */
#include <time.h>

#include "api.h"
#include "util/time.h"

#define EM_FRESH_WAIT_MS 3000
#define EM_FRESH_SLICE_MS 250 /* a write that wakes no one is still seen this soon */

/* 504 Timeout, as kube-apiserver's NewTooLargeResourceVersionError. Returns -1. */
int em_api_too_large(struct em_api *a, int64_t want, int retry_s)
{
    long long cur = (long long)a->srv->store.revision;
    nd_status_set(&a->st, "Timeout", NULL,
                  "Timeout: Too large resource version: %lld, current: %lld", (long long)want, cur);
    nd_status_set_fix(&a->st,
                      "resourceVersion %lld is newer than this server's (%lld): retry in a "
                      "second if a write is on its way, else read without resourceVersion or "
                      "with one the server gave (%lld or older)",
                      (long long)want, cur, cur);
    nd_status_add_cause(&a->st, "ResourceVersionTooLarge", NULL, "Too large resource version");
    if (retry_s > 0)
        json_object_set_new(nd_status_details(&a->st), "retryAfterSeconds",
                            json_integer(retry_s));
    return -1;
}

/* The waiting reads a server holds at once: half its connections (each holds one), at
 * least one; none without connections (a harness calling the router: fuzz_router). */
static uint64_t waits_max(const struct em_server *srv)
{
    unsigned conns = srv->opt.front.max_connections;
    return conns ? (conns / 2 ? conns / 2 : 1) : 0;
}

int em_api_wait_fresh(struct em_api *a, int64_t want)
{
    struct em_server *srv = a->srv;
    if (want <= srv->store.revision)
        return 0;
    if (srv->stats.reads_waiting >= waits_max(srv))
        return em_api_too_large(a, want, 1);
    srv->stats.reads_waiting++;
    int64_t end = em_real_now_ms() + EM_FRESH_WAIT_MS;
    for (int64_t now; want > srv->store.revision && !srv->stopping &&
                      (now = em_real_now_ms()) < end;) {
        struct timespec ts;
        nd_time_deadline(&ts, end - now < EM_FRESH_SLICE_MS ? end - now : EM_FRESH_SLICE_MS);
        pthread_cond_timedwait(&srv->changed, &srv->lock, &ts);
    }
    srv->stats.reads_waiting--;
    return want > srv->store.revision ? em_api_too_large(a, want, 1) : 0;
}
