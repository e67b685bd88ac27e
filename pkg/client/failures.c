/* The client's failures, worded alike for both transports (plain.c, curl.c): a server
 * that is not there, TLS, time-outs, malformed answers, and answers past the limits
 * (--max-response-bytes, --read-idle-timeout). */
#include "client/internal.h"

#include <stdarg.h>

#include "util/quantity.h"
#include "util/time.h"

#define FIX_SERVER                                                                                 \
    "Check the server address (--server, or the cluster in nodus config view); to run a local "    \
    "emulator: nodus emulator start."

int nd_client_fail_refused(const struct nd_client *c, struct nd_exchange *x, struct nd_status *st)
{
    x->retryable = true;
    return nd_status_set(st, "Unreachable", FIX_SERVER,
                         "The connection to the server %s was refused - did you specify the "
                         "right host or port?",
                         c->url.hostport);
}

int nd_client_fail_dns(const struct nd_client *c, const char *why, struct nd_status *st)
{
    return nd_status_set(st, "Unreachable",
                         "Check the server's host name (--server, or the cluster's server): "
                         "nodus config view",
                         "Unable to connect to the server: dial tcp: lookup %s: %s", c->url.host,
                         why);
}

int nd_client_fail_connect(const struct nd_client *c, const char *why, struct nd_status *st)
{
    return nd_status_set(st, "Unreachable", FIX_SERVER,
                         "Unable to connect to the server: dial tcp %s: %s", c->url.hostport, why);
}

int nd_client_fail_tls(const struct nd_client *c, const char *why, struct nd_status *st)
{
    (void)c;
    return nd_status_set(
        st, "Unreachable",
        "Check the cluster's certificate-authority (or certificate-authority-data) "
        "and the client certificate in the kubeconfig; "
        "insecure-skip-tls-verify: true skips the server check.",
        "Unable to connect to the server: %s", why);
}

int nd_client_fail_timeout(const struct nd_client *c, struct nd_status *st)
{
    struct nd_buf d = ND_BUF_INIT;
    nd_duration_format_short(c->timeout_ms, &d);
    nd_status_set(st, "Timeout", "Retry with a longer --request-timeout.",
                  "the server did not answer within %s (--request-timeout)", d.data);
    nd_buf_release(&d);
    return -1;
}

int nd_client_fail_closed(const struct nd_client *c, struct nd_exchange *x, const char *why,
                          struct nd_status *st)
{
    x->retryable = true;
    return nd_status_set(st, "Unreachable", "Retry; if it persists, look at the server's logs.",
                         "the server %s closed the connection %s (%s)", c->url.hostport,
                         x->got_answer ? "in the middle of its answer" : "before answering", why);
}

int nd_client_fail_malformed(struct nd_status *st, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    nd_status_set(st, "InternalError",
                  "Check that the server URL names a Nodus API server (not a proxy or another "
                  "service).",
                  "malformed answer from the server: %s", b.data);
    nd_buf_release(&b);
    return -1;
}

int nd_client_too_large(const char *what, const struct nd_client *c, struct nd_status *st)
{
    return nd_client_fail_too_large(what, c->max_body, st);
}

int nd_client_fail_idle(struct nd_exchange *x, struct nd_status *st)
{
    struct nd_buf d = ND_BUF_INIT;
    nd_duration_format_short(x->idle_ms, &d);
    x->idled = true;
    nd_status_set(st, "Timeout",
                  "Retry; if the server is alive but quiet for longer, raise the limit: "
                  "--read-idle-timeout=30m (0: wait for ever).",
                  "the server sent nothing for %s %s (--read-idle-timeout)", d.data,
                  x->got_answer ? "in the middle of its answer" : "after the request");
    nd_buf_release(&d);
    return -1;
}

int nd_client_fail_too_large(const char *what, size_t limit, struct nd_status *st)
{
    struct nd_buf n = ND_BUF_INIT;
    nd_quantity_format_bytes((int64_t)limit, &n);
    nd_status_set(st, "InternalError",
                  "Check that the server URL names a Nodus API server you trust; if the answer "
                  "is really this large, raise the limits: --max-response-bytes=1Gi (a watch or "
                  "log line may be 1/16 of it, the headers 1/256).",
                  "the server's answer is too large: %s is longer than %sB (--max-response-bytes)",
                  what, n.data);
    nd_buf_release(&n);
    return -1;
}
