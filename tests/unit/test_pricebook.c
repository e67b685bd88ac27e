/* Unit tests of emulator/sim/pricebook.c: the price book's rates and delays, the hourly
 * rate of a spec (GPUs, CPU, memory, storage) and its rounding, estimates (expected cost,
 * first hold, start time) on a stopped emulated clock, review ETags, and the rules of a
 * new price book (checks, version, who is told). The server is a bare struct em_server
 * with a store in a scratch directory; the clock never reads the wall: it stands still
 * (speed 0) at a given time and moves only when advanced. Money is micro-dollars. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "pricebook.h"
#include "server.h"
#include "sim.h" /* em_sim_touch_all, defined here */
#include "store_tmpdir.h"
#include "util/buf.h"
#include "util/status.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "test_json.h"

#define NOW "2026-03-15T13:45:10Z"

/* ---- the fixture: a server with a stopped clock ---- */

static int touched; /* em_sim_touch_all calls: a new price book makes everything look again */

void em_sim_touch_all(struct em_server *srv)
{
    (void)srv;
    touched++;
}

static struct em_server srv;
static char *dir;

static int64_t T(const char *s)
{
    int64_t sec;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_time_parse(s, &sec, &st) < 0)
        fail_msg("bad test time %s: %s", s, st.message);
    nd_status_release(&st);
    return sec * 1000;
}

static int setup(void **state)
{
    (void)state;
    memset(&srv, 0, sizeof srv);
    dir = store_tmpdir("pricebook");
    struct nd_buf report = ND_BUF_INIT, err = ND_BUF_INIT;
    if (em_store_open(&srv.store, dir, EM_FSYNC_NEVER, false, &report, &err) < 0)
        fail_msg("em_store_open: %s", err.data);
    nd_buf_release(&report);
    nd_buf_release(&err);
    /* the fake clock: stopped at NOW */
    srv.clock.speed = 0;
    srv.clock.base_real_ms = 0;
    srv.clock.base_emu_ms = T(NOW);
    struct nd_status st = ND_STATUS_INIT;
    if (em_pricebook_load(&srv, &st) < 0)
        fail_msg("em_pricebook_load: %s", st.message);
    nd_status_release(&st);
    touched = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    em_pricebook_release(&srv);
    em_store_close(&srv.store);
    em_rm_rf(dir);
    free(dir);
    return 0;
}

static void assert_json(const json_t *got, const char *want, const char *name)
{
    json_t *w = J(want);
    if (!json_equal(got, w)) {
        char *g = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : nd_xstrdup("NULL");
        char *ws = json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("%s:\n got  %s\n want %s", name, g, ws);
    }
    json_decref(w);
}

/* ---- the default price book ---- */

static void test_gpu_rates(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        int pool;
        int64_t want;
    } cases[] = {
        {"H100", 0, 2490000}, {"A100", 0, 1290000}, {"L40S", 0, 990000}, {"L4", 0, 390000},
        {"H100", 1, 0},       {"L4", 1, 0},         {"B200", 0, -1},     {"B200", 1, -1},
        {NULL, 0, -1},        {"h100", 0, -1}, /* models are case-sensitive */
    };
    assert_int_equal(em_pricebook_version(&srv), 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = em_gpu_rate(&srv, cases[i].model, cases[i].pool);
        if (got != cases[i].want)
            fail_msg("%s (%s): got %lld, want %lld", cases[i].model ? cases[i].model : "NULL",
                     cases[i].pool ? "pool" : "market", (long long)got,
                     (long long)cases[i].want);
    }
}

static void test_delays(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t want;
    } cases[] = {
        {"queued", 5000},    {"provisioning", 30000}, {"pending", 2000},  {"starting", 10000},
        {"jobRun", 600000},  {"finalCharge", 30000},  {"unknown", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (em_delay_ms(&srv, cases[i].name) != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].name,
                     (long long)em_delay_ms(&srv, cases[i].name), (long long)cases[i].want);
}

/* ---- the hourly rate of a spec ---- */

struct rate_case {
    const char *plural;
    const char *spec;
    int64_t want; /* micro-dollars per hour */
};

/* clang-format off */
static const struct rate_case rates[] = {
    {"jobs",      "{'resources':{'gpu':{'model':'H100','count':2}}}",           4980000},
    {"jobs",      "{'resources':{'gpu':{'model':'H100'}}}",                     2490000},
    {"jobs",      "{'resources':{'gpu':{'model':'H100','count':0}}}",           2490000},
    {"sandboxes", "{'resources':{'gpu':{'model':'A100','count':3}}}",           3870000},
    /* in a Pool the GPU is already paid for */
    {"jobs",      "{'resources':{'gpu':{'model':'H100','count':2}},"
                  "'placement':{'pool':'p1'}}",                                  0},
    {"jobs",      "{'resources':{'gpu':{'model':'B200','count':1}}}",           0},
    /* CPU: $0.04 a core-hour */
    {"jobs",      "{'resources':{'cpu':'2'}}",                                   80000},
    {"jobs",      "{'resources':{'cpu':'500m'}}",                                20000},
    {"jobs",      "{'resources':{'cpu':4}}",                                     160000},
    {"jobs",      "{'resources':{'cpu':'1m'}}",                                  40},
    {"jobs",      "{'resources':{'cpu':'lots'}}",                                0},
    /* memory: $0.005 a GiB-hour, truncated to a micro-dollar */
    {"jobs",      "{'resources':{'memory':'16Gi'}}",                             80000},
    {"jobs",      "{'resources':{'memory':'512Mi'}}",                            2500},
    {"jobs",      "{'resources':{'memory':'1G'}}",                               4656},
    {"jobs",      "{'resources':{'gpu':{'model':'H100','count':1},"
                  "'cpu':'8','memory':'32Gi'}}",                                 2970000},
    {"functions", "{}",                                                          0},
    /* storage: $0.08 a GiB-month of 730 hours, whole GiB, truncated */
    {"volumes",   "{'size':'100Gi'}",                                            10958},
    {"volumes",   "{'size':'730Gi'}",                                            80000},
    {"volumes",   "{'size':'1536Mi'}",                                           109},
    {"volumes",   "{'size':'500Mi'}",                                            0},
    {"volumes",   "{}",                                                          0},
};
/* clang-format on */

static void test_spec_rates(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        json_t *spec = J(rates[i].spec);
        int64_t got = em_spec_rate(&srv, rates[i].plural, spec);
        if (got != rates[i].want)
            fail_msg("%s %s: got %lld, want %lld", rates[i].plural, rates[i].spec,
                     (long long)got, (long long)rates[i].want);
        json_decref(spec);
    }
}

/* ---- estimates ---- */

struct estimate_case {
    const char *name, *plural, *obj;
    const char *want; /* status.estimate, or NULL */
};

/* clang-format off */
#define H100 "'resources':{'gpu':{'model':'H100','count':1}}"
static const struct estimate_case estimates[] = {
    /* a Job runs the price book's jobRun (10m); it starts after queued + provisioning */
    {"a Job", "jobs", "{'spec':{" H100 "}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'0.415','firstHoldUSD':'2.49',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"a Job's duration annotation", "jobs",
     "{'metadata':{'annotations':{'emulator.nodus.dev/duration':'2h'}},'spec':{" H100 "}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'4.98','firstHoldUSD':'2.49',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"bounded by maxDuration", "jobs",
     "{'metadata':{'annotations':{'emulator.nodus.dev/duration':'2h'}},"
     "'spec':{'maxDuration':'30m'," H100 "}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'1.245','firstHoldUSD':'2.49',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"capped at maxCostUSD", "jobs",
     "{'metadata':{'annotations':{'emulator.nodus.dev/duration':'2h'}},"
     "'spec':{'maxCostUSD':'1.00'," H100 "}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'1.00','firstHoldUSD':'1.00',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"capped a micro-dollar below the hold", "jobs",
     "{'spec':{'maxCostUSD':'2.489999'," H100 "}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'0.415','firstHoldUSD':'2.489999',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    /* long-running kinds: an hour; they start after pending + starting */
    {"a Sandbox", "sandboxes", "{'spec':{'resources':{'cpu':'2','memory':'4Gi'}}}",
     "{'rateUSDPerHour':'0.10','expectedCostUSD':'0.10','firstHoldUSD':'0.10',"
     "'startTime':'2026-03-15T13:45:22Z'}"},
    {"a Function", "functions", "{'spec':{'resources':{'cpu':'1m'}}}",
     "{'rateUSDPerHour':'0.00004','expectedCostUSD':'0.00004','firstHoldUSD':'0.00004',"
     "'startTime':'2026-03-15T13:45:22Z'}"},
    /* a Pipeline: the sum of its steps, the rate of its dearest */
    {"a Pipeline", "pipelines",
     "{'spec':{'steps':[{'name':'a','job':{" H100 "}},"
     "{'name':'b','job':{'resources':{'gpu':{'model':'A100','count':2}}}}]}}",
     "{'rateUSDPerHour':'2.58','expectedCostUSD':'0.845','firstHoldUSD':'2.58',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"the dearest step first", "pipelines",
     "{'spec':{'steps':[{'name':'b','job':{'resources':{'gpu':{'model':'A100','count':2}}}},"
     "{'name':'a','job':{" H100 "}}]}}",
     "{'rateUSDPerHour':'2.58','expectedCostUSD':'0.845','firstHoldUSD':'2.58',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"a step's maxDuration", "pipelines",
     "{'spec':{'steps':[{'name':'a','job':{'maxDuration':'1m'," H100 "}}]}}",
     "{'rateUSDPerHour':'2.49','expectedCostUSD':'0.0415','firstHoldUSD':'2.49',"
     "'startTime':'2026-03-15T13:45:45Z'}"},
    {"nothing for a Volume", "volumes", "{'spec':{'size':'100Gi'}}", NULL},
    {"nothing for a Budget", "budgets", "{'spec':{'limitUSD':'10'}}", NULL},
};
#undef H100
/* clang-format on */

static void test_estimates(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof estimates / sizeof estimates[0]; i++) {
        const struct estimate_case *c = &estimates[i];
        json_t *obj = J(c->obj);
        json_t *e = em_estimate(&srv, c->plural, obj);
        if (c->want)
            assert_json(e, c->want, c->name);
        else if (e)
            fail_msg("%s: an estimate where none is due", c->name);
        json_decref(e);
        json_decref(obj);
    }
}

/* The start time follows the emulated clock, never the wall. */
static void test_estimate_follows_the_clock(void **state)
{
    (void)state;
    json_t *obj = J("{'spec':{'resources':{'cpu':'1'}}}");
    json_t *e = em_estimate(&srv, "jobs", obj);
    assert_string_equal(json_string_value(json_object_get(e, "startTime")),
                        "2026-03-15T13:45:45Z");
    json_decref(e);
    em_clock_advance(&srv.clock, 3600 * 1000);
    e = em_estimate(&srv, "jobs", obj);
    assert_string_equal(json_string_value(json_object_get(e, "startTime")),
                        "2026-03-15T14:45:45Z");
    json_decref(e);
    json_decref(obj);
}

/* ---- review ETags ---- */

static void test_review_etag(void **state)
{
    (void)state;
    json_t *obj = J("{'spec':{'resources':{'gpu':{'model':'H100','count':2}}}}");
    char *etag = em_review_etag(&srv, "jobs", obj);
    size_t n = strlen(etag);
    /* "<16 hex>-<the rate quoted>" */
    assert_int_equal(n, 1 + 16 + 1 + 7 + 1);
    assert_int_equal(etag[0], '"');
    assert_string_equal(etag + 17, "-4980000\"");
    int64_t rate = -1;
    assert_int_equal(em_review_check(&srv, obj, etag, &rate), 0);
    assert_int_equal(rate, 4980000);
    /* without the quotes too */
    char *bare = nd_xstrndup(etag + 1, n - 2);
    rate = -1;
    assert_int_equal(em_review_check(&srv, obj, bare, &rate), 0);
    assert_int_equal(rate, 4980000);
    /* what does not match */
    static const char *const bad[] = {"", "\"\"", "-4980000", "\"0123456789abcdef-4980000\"",
                                      "nonsense"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (em_review_check(&srv, obj, bad[i], &rate) != -1)
            fail_msg("etag %s matched", bad[i]);
    char *neg = nd_xasprintf("%.17s--1\"", etag);
    assert_int_equal(em_review_check(&srv, obj, neg, &rate), -1);
    char *junk = nd_xasprintf("%.17s-4980000x\"", etag);
    assert_int_equal(em_review_check(&srv, obj, junk, &rate), -1);
    /* another spec: another hash */
    json_t *other = J("{'spec':{'resources':{'gpu':{'model':'H100','count':3}}}}");
    assert_int_equal(em_review_check(&srv, other, etag, &rate), -1);
    /* a Pipeline quotes its dearest step; a Volume quotes nothing */
    json_t *pl = J("{'spec':{'steps':[{'job':{'resources':{'cpu':'1'}}},"
                   "{'job':{'resources':{'gpu':{'model':'L4','count':1}}}}]}}");
    char *pe = em_review_etag(&srv, "pipelines", pl);
    assert_string_equal(pe + 17, "-390000\"");
    json_t *vol = J("{'spec':{'size':'100Gi'}}");
    char *ve = em_review_etag(&srv, "volumes", vol);
    assert_string_equal(ve + 17, "-0\"");
    free(ve);
    free(pe);
    free(junk);
    free(neg);
    free(bare);
    free(etag);
    json_decref(vol);
    json_decref(pl);
    json_decref(other);
    json_decref(obj);
}

/* ---- a new price book ---- */

/* text with `from` replaced by `to` (NEW). */
static char *splice(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("%s not in %s", from, text);
    return nd_xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* The price book now, compact, with one change (NEW). */
static char *book_with(const char *from, const char *to)
{
    char *text = json_dumps(em_pricebook(&srv), JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *out = splice(text, from, to);
    free(text);
    return out;
}

static int put(const char *text, struct nd_status *st)
{
    return em_pricebook_put(&srv, text, strlen(text), st);
}

struct refused_case {
    const char *from, *to; /* the change to the default book; from NULL: `to` is all */
    const char *reason, *message;
};

/* clang-format off */
static const struct refused_case refused[] = {
    {NULL, "[]",        "BadRequest", "pricebook: must be a JSON object"},
    {"\"version\":1",   "\"version\":\"2\"", "Invalid", "pricebook: version must be an integer"},
    {"\"H100\":\"2.49\"", "\"H100\":\"cheap\"", "Invalid",
     "pricebook: gpu.market.H100: not a decimal amount"},
    {"\"pool\":{",      "\"pool\":7,\"x\":{", "Invalid",
     "pricebook: gpu.pool must be an object of model -> hourly rate"},
    {"\"cpuCoreHourUSD\":\"0.04\"", "\"cpuCoreHourUSD\":4", "Invalid",
     "pricebook: cpuCoreHourUSD: not a decimal amount"},
    {"\"queued\":\"5s\"", "\"queued\":\"soon\"", "Invalid",
     "pricebook: delays.queued: not a duration"},
};
/* clang-format on */

static void test_put_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const struct refused_case *c = &refused[i];
        char *text = c->from ? book_with(c->from, c->to) : nd_xstrdup(c->to);
        struct nd_status st = ND_STATUS_INIT;
        if (put(text, &st) != -1)
            fail_msg("case %zu: taken: %s", i, text);
        assert_string_equal(st.reason, c->reason);
        assert_string_equal(st.message, c->message);
        nd_status_release(&st);
        free(text);
    }
    /* nothing moved */
    assert_int_equal(em_pricebook_version(&srv), 1);
    assert_int_equal(em_gpu_rate(&srv, "H100", 0), 2490000);
    assert_int_equal(touched, 0);
}

static int64_t file_version(void)
{
    char *path = nd_xasprintf("%s/pricebook.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        fail_msg("%s: %s", path, err.text);
    int64_t v = json_integer_value(json_object_get(j, "version"));
    json_decref(j);
    free(path);
    return v;
}

/* A moved market rate keeps the version (a reviewed estimate stays valid); any other
 * change moves it, whatever version the caller sends; the same book changes nothing. */
static void test_put_versions(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    json_t *obj = J("{'spec':{'resources':{'gpu':{'model':'H100','count':1}}}}");
    char *etag = em_review_etag(&srv, "jobs", obj);
    int64_t rate;

    char *text = book_with("\"H100\":\"2.49\"", "\"H100\":\"3.10\"");
    assert_int_equal(put(text, &st), 0);
    free(text);
    assert_int_equal(em_pricebook_version(&srv), 1);
    assert_int_equal(file_version(), 1);
    assert_int_equal(em_gpu_rate(&srv, "H100", 0), 3100000);
    assert_int_equal(touched, 1);
    assert_int_equal(em_review_check(&srv, obj, etag, &rate), 0);
    assert_int_equal(rate, 2490000); /* the rate reviewed, not today's */

    text = book_with("\"cpuCoreHourUSD\":\"0.04\"", "\"cpuCoreHourUSD\":\"0.05\"");
    assert_int_equal(put(text, &st), 0);
    free(text);
    assert_int_equal(em_pricebook_version(&srv), 2);
    assert_int_equal(file_version(), 2);
    assert_int_equal(touched, 2);
    json_t *cpu = J("{'resources':{'cpu':'2'}}");
    assert_int_equal(em_spec_rate(&srv, "jobs", cpu), 100000);
    json_decref(cpu);
    assert_int_equal(em_review_check(&srv, obj, etag, &rate), -1);

    /* the same book again: nothing moves, nobody is told */
    text = json_dumps(em_pricebook(&srv), JSON_COMPACT);
    assert_int_equal(put(text, &st), 0);
    free(text);
    assert_int_equal(em_pricebook_version(&srv), 2);
    assert_int_equal(touched, 2);

    /* the version is the server's: 99 is not taken, a change still counts one */
    char *t1 = book_with("\"version\":2", "\"version\":99");
    text = splice(t1, "\"predictFeeUSDPerHour\":\"0.10\"", "\"predictFeeUSDPerHour\":\"0.20\"");
    free(t1);
    assert_int_equal(put(text, &st), 0);
    free(text);
    assert_int_equal(em_pricebook_version(&srv), 3);
    assert_int_equal(file_version(), 3);
    assert_int_equal(touched, 3);

    /* left out, the version stays as it was (a market move) */
    text = book_with("\"version\":3,", "");
    t1 = splice(text, "\"L4\":\"0.39\"", "\"L4\":\"0.45\"");
    free(text);
    assert_int_equal(put(t1, &st), 0);
    free(t1);
    assert_int_equal(em_pricebook_version(&srv), 3);
    assert_int_equal(em_gpu_rate(&srv, "L4", 0), 450000);
    assert_int_equal(touched, 4);
    nd_status_release(&st);
    free(etag);
    json_decref(obj);
}

/* A person edits pricebook.json: the next poll takes it, and counts a version. */
static void test_poll_takes_an_edit(void **state)
{
    (void)state;
    em_pricebook_poll(&srv); /* nothing changed */
    assert_int_equal(touched, 0);
    char *path = nd_xasprintf("%s/pricebook.json", dir);
    char *text = book_with("\"memoryGiBHourUSD\":\"0.005\"", "\"memoryGiBHourUSD\":\"0.0100\"");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    em_pricebook_poll(&srv);
    assert_int_equal(touched, 1);
    assert_int_equal(em_pricebook_version(&srv), 2);
    assert_int_equal(file_version(), 2); /* written back with its new version */
    json_t *mem = J("{'resources':{'memory':'16Gi'}}");
    assert_int_equal(em_spec_rate(&srv, "jobs", mem), 160000);
    json_decref(mem);
    em_pricebook_poll(&srv); /* taken once */
    assert_int_equal(touched, 1);
    free(text);
    free(path);
}

/* Prices are micro-dollars taken once, when a book is taken: the book's text is for the
 * file and the wire, not read again on every rate (a reconcile asks for many). */
static void test_rates_taken_once(void **state)
{
    (void)state;
    json_t *spec = J("{\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":2},"
                     "\"cpu\":\"2\",\"memory\":\"4Gi\"}}");
    int64_t want = 2 * 2490000 + 2 * 40000 + 4 * 5000;
    assert_int_equal(em_spec_rate(&srv, "jobs", spec), want);
    /* the text changed under the book (nothing does this but this test): rates stay */
    json_t *book = (json_t *)em_pricebook(&srv);
    json_object_set_new(book, "cpuCoreHourUSD", json_string("9.00"));
    json_object_set_new(json_object_get(json_object_get(book, "gpu"), "market"), "H100",
                        json_string("99.00"));
    assert_int_equal(em_spec_rate(&srv, "jobs", spec), want);
    assert_int_equal(em_gpu_rate(&srv, "H100", 0), 2490000);
    /* a book taken through the API is read, once, into the new prices */
    json_t *nb = json_deep_copy(book);
    json_object_set_new(nb, "cpuCoreHourUSD", json_string("0.05"));
    json_object_set_new(json_object_get(json_object_get(nb, "gpu"), "market"), "H100",
                        json_string("3.00"));
    char *text = json_dumps(nb, JSON_COMPACT);
    json_decref(nb);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(em_pricebook_put(&srv, text, strlen(text), &st), 0);
    nd_status_release(&st);
    free(text);
    assert_int_equal(em_gpu_rate(&srv, "H100", 0), 3000000);
    assert_int_equal(em_spec_rate(&srv, "jobs", spec), 2 * 3000000 + 2 * 50000 + 4 * 5000);
    json_decref(spec);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gpu_rates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spec_rates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_estimates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_estimate_follows_the_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_review_etag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_poll_takes_an_edit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rates_taken_once, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
