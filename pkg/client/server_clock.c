/* server_clock.c: the server's clock as its answers tell it (the Date header); see
 * nd_client_server_now_ms in client.h. */
#include "client/internal.h"
#include "util/time.h"

void nd_client_note_date(struct nd_client *c, const struct nd_response *resp, int64_t at_ms)
{
    int64_t secs;
    if (nd_http_date_parse(nd_response_header(resp, "date"), &secs) < 0)
        return;
    c->skew_ms = secs * 1000 - at_ms;
    c->skew_known = true;
}

int64_t nd_client_server_now_ms(const struct nd_client *c)
{
    int64_t now = nd_time_now_ms();
    return c && c->skew_known ? now + c->skew_ms : now;
}
