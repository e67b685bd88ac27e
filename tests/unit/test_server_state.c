/* Two emulators in one process (issue 22, item 3): what was process-wide state (the price
 * book, the discovery documents, the exec sessions, the upload stage, the HTTP layer's
 * limits and upgrades) is the server's own, so two servers side by side share none of it.
 * Each server is a bare struct em_server over a store in its own scratch directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "discovery.h"
#include "exec.h"
#include "exec_session.h"
#include "fsutil.h"
#include "pricebook.h"
#include "server.h"
#include "store_tmpdir.h"
#include "util/buf.h"
#include "util/status.h"

static struct em_server srv[2];
static char *dir[2];

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        memset(&srv[i], 0, sizeof srv[i]);
        dir[i] = store_tmpdir(i ? "server-b" : "server-a");
        struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
        if (em_store_open(&srv[i].store, dir[i], EM_FSYNC_NEVER, false, &report, &err) < 0)
            fail_msg("em_store_open: %s", err.data);
        nd_buf_release(&report);
        nd_buf_release(&err);
        pthread_mutex_init(&srv[i].lock, NULL);
        em_clock_init(&srv[i].clock, 0, 0);
        struct nd_status st = ND_STATUS_INIT;
        if (em_pricebook_load(&srv[i], &st) < 0)
            fail_msg("em_pricebook_load: %s", st.message);
        nd_status_release(&st);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        em_pricebook_release(&srv[i]);
        em_discovery_release(&srv[i]);
        em_exec_release(&srv[i]);
        em_store_close(&srv[i].store);
        pthread_mutex_destroy(&srv[i].lock);
        em_rm_rf(dir[i]);
        free(dir[i]);
    }
    return 0;
}

static void test_price_books_are_each_servers_own(void **state)
{
    (void)state;
    assert_int_equal(em_gpu_rate(&srv[0], "H100", 0), 2490000);
    assert_int_equal(em_gpu_rate(&srv[1], "H100", 0), 2490000);
    static const char book[] =
        "{\"gpu\": {\"market\": {\"H100\": \"9.99\", \"A100\": \"1.29\", \"L40S\": \"0.99\","
        " \"L4\": \"0.39\"}, \"pool\": {\"H100\": \"0.00\", \"A100\": \"0.00\", \"L40S\": "
        "\"0.00\", \"L4\": \"0.00\"}}, \"cpuCoreHourUSD\": \"0.04\", \"memoryGiBHourUSD\": "
        "\"0.005\", \"storageGiBMonthUSD\": \"0.08\", \"predictFeeUSDPerHour\": \"0.10\", "
        "\"holds\": {\"firstHoldHours\": 1}, \"delays\": {\"queued\": \"7s\", \"provisioning\": "
        "\"30s\", \"pending\": \"2s\", \"starting\": \"10s\", \"jobRun\": \"10m\", "
        "\"finalCharge\": \"30s\"}}";
    struct nd_status st = ND_STATUS_INIT;
    if (em_pricebook_put(&srv[0], book, strlen(book), &st) < 0)
        fail_msg("em_pricebook_put: %s", st.message);
    nd_status_release(&st);
    assert_int_equal(em_gpu_rate(&srv[0], "H100", 0), 9990000);
    assert_int_equal(em_delay_ms(&srv[0], "queued"), 7000);
    /* the other server's book is as it was */
    assert_int_equal(em_gpu_rate(&srv[1], "H100", 0), 2490000);
    assert_int_equal(em_delay_ms(&srv[1], "queued"), 5000);
    /* and a release frees one server's book only */
    em_pricebook_release(&srv[0]);
    assert_null(em_pricebook(&srv[0]));
    assert_non_null(em_pricebook(&srv[1]));
    assert_int_equal(em_gpu_rate(&srv[1], "H100", 0), 2490000);
}

/* GET path from server i's discovery: the status code (0: not a discovery path) */
static int discover(int i, const char *path, struct nd_buf *body)
{
    struct em_req req = {.method = "GET", .path = path, .headers = json_object()};
    struct em_resp resp;
    em_resp_init(&resp);
    int code = em_discovery_handle(&srv[i], &req, &resp) ? resp.code : 0;
    nd_buf_reset(body);
    nd_buf_add(body, resp.body.data, resp.body.len);
    em_resp_release(&resp);
    json_decref(req.headers);
    return code;
}

static void test_discovery_documents_are_each_servers_own(void **state)
{
    (void)state;
    struct nd_buf err = ND_BUF_INIT, a = ND_BUF_INIT, b = ND_BUF_INIT;
    for (int i = 0; i < 2; i++)
        if (em_discovery_init(&srv[i], &err) < 0)
            fail_msg("em_discovery_init: %s", err.data);
    assert_ptr_not_equal(srv[0].discovery, srv[1].discovery);
    assert_int_equal(discover(0, "/version", &a), 200);
    assert_int_equal(discover(1, "/version", &b), 200);
    assert_true(a.len > 0 && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    /* one server's release leaves the other's documents whole */
    em_discovery_release(&srv[0]);
    assert_null(srv[0].discovery);
    assert_int_equal(discover(1, "/version", &b), 200);
    assert_true(b.len == a.len && memcmp(a.data, b.data, a.len) == 0);
    assert_int_equal(discover(1, "/apis", &b), 200);
    nd_buf_release(&a);
    nd_buf_release(&b);
    nd_buf_release(&err);
}

static void test_exec_sessions_are_each_servers_own(void **state)
{
    (void)state;
    json_t *sandbox = json_pack("{s{ss}}", "metadata", "uid", "u-1");
    struct em_exec_session s = {.srv = &srv[0],
                                .kind = nd_kind_by_plural(NULL, "jobs"),
                                .ns = "p",
                                .name = "j",
                                .uid = "u-1"};
    em_exec_session_open(&s);
    em_exec_session_open(&s);
    assert_int_equal(em_sandbox_sessions(&srv[0], sandbox), 2);
    assert_int_equal(em_sandbox_sessions(&srv[1], sandbox), 0);
    em_exec_session_closed(&s);
    em_exec_session_closed(&s);
    assert_int_equal(em_sandbox_sessions(&srv[0], sandbox), 0);
    /* with none live, a stop waits for nothing: neither server waits on the other's */
    struct em_exec_session t = {.srv = &srv[1],
                                .kind = nd_kind_by_plural(NULL, "jobs"),
                                .ns = "p",
                                .name = "j",
                                .uid = "u-1"};
    em_exec_session_open(&t);
    em_exec_shutdown(&srv[0]); /* returns at once: srv[1]'s session is not srv[0]'s */
    assert_int_equal(em_sandbox_sessions(&srv[1], sandbox), 1);
    em_exec_session_closed(&t);
    json_decref(sandbox);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_price_books_are_each_servers_own, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discovery_documents_are_each_servers_own, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_exec_sessions_are_each_servers_own, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
