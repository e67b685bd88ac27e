/* Unit tests of emulator/sim/controllers/budget_math.c: the arithmetic of Budgets
 * (periods, baselines, accrual, thresholds, when the next threshold falls, first holds,
 * the Block rule). Every time is given, never read: the emulated clock is a parameter.
 * Money is micro-dollars ($1 = 1000000). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "controllers/budget_math.h"
#include "util/status.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define USD(x) ((int64_t)((x) * 1000000.0 + 0.5)) /* x >= 0 */
#define HOUR_MS (3600LL * 1000)
#define NEVER INT64_MAX

/* An RFC 3339 time (whole seconds) in ms since the epoch. */
static int64_t T(const char *s)
{
    int64_t sec;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_time_parse(s, &sec, &st) < 0)
        fail_msg("bad test time %s: %s", s, st.message);
    nd_status_release(&st);
    return sec * 1000;
}

/* ---- periods ---- */

struct period_case {
    const char *kind;    /* spec.period; NULL: absent */
    const char *created; /* creationTimestamp; NULL: none */
    const char *now;
    int64_t now_plus_ms; /* added to now (for the last ms of a period) */
    const char *start, *end; /* end NULL: Total (no end) */
};

/* clang-format off */
static const struct period_case periods[] = {
    /* Daily: 00:00 UTC to 00:00 UTC */
    {"Daily",   NULL, "2026-03-15T13:45:10Z", 0,  "2026-03-15T00:00:00Z", "2026-03-16T00:00:00Z"},
    {"Daily",   NULL, "2026-03-15T00:00:00Z", 0,  "2026-03-15T00:00:00Z", "2026-03-16T00:00:00Z"},
    {"Daily",   NULL, "2026-03-15T23:59:59Z", 999, "2026-03-15T00:00:00Z", "2026-03-16T00:00:00Z"},
    /* Weekly: from Monday (2026-03-15 is a Sunday, 2026-03-16 a Monday) */
    {"Weekly",  NULL, "2026-03-15T23:59:59Z", 999, "2026-03-09T00:00:00Z", "2026-03-16T00:00:00Z"},
    {"Weekly",  NULL, "2026-03-16T00:00:00Z", 0,  "2026-03-16T00:00:00Z", "2026-03-23T00:00:00Z"},
    {"Weekly",  NULL, "2026-03-18T12:00:00Z", 0,  "2026-03-16T00:00:00Z", "2026-03-23T00:00:00Z"},
    /* 1970-01-01 was a Thursday: its week began on Monday 1969-12-29 */
    {"Weekly",  NULL, "1970-01-01T10:00:00Z", 0,  "1969-12-29T00:00:00Z", "1970-01-05T00:00:00Z"},
    /* Monthly, the default; a year's end; a leap February */
    {"Monthly", NULL, "2026-02-10T08:00:00Z", 0,  "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"},
    {NULL,      NULL, "2026-02-10T08:00:00Z", 0,  "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"},
    {"Yearly",  NULL, "2026-02-10T08:00:00Z", 0,  "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"},
    {"Monthly", NULL, "2026-12-31T23:59:59Z", 999, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"},
    {"Monthly", NULL, "2028-02-29T12:00:00Z", 0,  "2028-02-01T00:00:00Z", "2028-03-01T00:00:00Z"},
    {"Monthly", NULL, "2026-04-30T12:00:00Z", 0,  "2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"},
    /* Total: from the Budget's creation, never ends; without a creation time, from now */
    {"Total", "2026-01-05T10:00:00Z", "2026-03-15T13:45:10Z", 0, "2026-01-05T10:00:00Z", NULL},
    {"Total",   NULL, "2026-03-15T13:45:10Z", 0,  "2026-03-15T13:45:10Z", NULL},
};
/* clang-format on */

static void test_periods(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
        const struct period_case *c = &periods[i];
        int64_t now = T(c->now) + c->now_plus_ms;
        struct em_budget_period p =
            em_budget_period_of(c->kind, c->created ? T(c->created) : -1, now);
        int64_t end = c->end ? T(c->end) : -1;
        if (p.start != T(c->start) || p.end != end || p.total != !c->end)
            fail_msg("case %zu (%s at %s): got start %lld end %lld total %d, want %s .. %s", i,
                     c->kind ? c->kind : "(none)", c->now, (long long)p.start, (long long)p.end,
                     p.total, c->start, c->end ? c->end : "(none)");
        /* now is inside its period */
        assert_true(p.start <= now);
        if (!p.total)
            assert_true(now < p.end);
    }
}

/* Before the epoch, days still start at 00:00 (division rounds down, not to zero). */
static void test_periods_before_epoch(void **state)
{
    (void)state;
    const int64_t day = EM_BUDGET_DAY_MS;
    struct em_budget_period p = em_budget_period_of("Daily", -1, -day / 2);
    assert_int_equal(p.start, -day);
    assert_int_equal(p.end, 0);
    p = em_budget_period_of("Daily", -1, -1);
    assert_int_equal(p.start, -day);
    p = em_budget_period_of("Monthly", -1, -1);
    assert_int_equal(p.start, T("1969-12-01T00:00:00Z"));
    assert_int_equal(p.end, 0);
}

/* ---- baselines, spending, accrual ---- */

struct baseline_case {
    const char *name;
    bool has_entry;
    int64_t entry_base;
    bool total;
    int64_t created, start, cost;
    int64_t base, spent;
};

/* clang-format off */
static const struct baseline_case baselines[] = {
    {"the ledger's baseline wins",      true,  USD(2), false, 0,    1000, USD(5), USD(2), USD(3)},
    {"created in the period: from 0",   false, 0,      false, 1000, 1000, USD(5), 0,      USD(5)},
    {"older than the period: from now", false, 0,      false, 999,  1000, USD(5), USD(5), 0},
    {"a Total budget counts it all",    false, 0,      true,  0,    1000, USD(5), 0,      USD(5)},
    {"no creation time: older",         false, 0,      false, -1,   1000, USD(5), USD(5), 0},
    {"a cost below its base spends 0",  true,  USD(7), false, 0,    1000, USD(5), USD(7), 0},
};
/* clang-format on */

static void test_baselines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof baselines / sizeof baselines[0]; i++) {
        const struct baseline_case *c = &baselines[i];
        int64_t base = em_budget_baseline(c->has_entry, c->entry_base, c->total, c->created,
                                          c->start, c->cost);
        int64_t spent = em_budget_spent(c->cost, base);
        if (base != c->base || spent != c->spent)
            fail_msg("%s: got base %lld spent %lld, want %lld %lld", c->name, (long long)base,
                     (long long)spent, (long long)c->base, (long long)c->spent);
    }
}

struct accrual_case {
    const char *name;
    int64_t cost, rate, since, now, want;
};

/* clang-format off */
static const struct accrual_case accruals[] = {
    {"H100 for half an hour",         USD(1), USD(2.49), 0,    HOUR_MS / 2, USD(1) + USD(1.245)},
    {"an hour on 2 H100s",            0,      USD(4.98), 5000, 5000 + HOUR_MS, USD(4.98)},
    {"no time passed",                USD(1), USD(2.49), 7000, 7000,    USD(1)},
    {"a clock behind accruedAt",      USD(1), USD(2.49), 7000, 6000,    USD(1)},
    {"half a micro-dollar rounds up", 0,      1,         0,    HOUR_MS / 2, 1},
    {"just under half rounds down",   0,      1,         0,    HOUR_MS / 2 - 1, 0},
    {"a second at $3600/h",           0,      USD(3600), 0,    1000,    USD(1)},
    {"a ms at $3600/h",               0,      USD(3600), 0,    1,       1000},
    {"an overflow adds nothing",      USD(1), INT64_MAX, 0,    10 * HOUR_MS, USD(1)},
};
/* clang-format on */

static void test_accrual(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof accruals / sizeof accruals[0]; i++) {
        const struct accrual_case *c = &accruals[i];
        int64_t got = em_budget_accrued(c->cost, c->rate, c->since, c->now);
        if (got != c->want)
            fail_msg("%s: got %lld, want %lld", c->name, (long long)got, (long long)c->want);
    }
}

/* ---- thresholds ---- */

static json_t *J(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
    if (!j)
        fail_msg("bad test JSON %s: %s", text, err.text);
    return j;
}

struct thresholds_case {
    const char *json; /* spec.thresholds; NULL: absent */
    size_t n;
    int64_t want[EM_BUDGET_MAX_THRESHOLDS];
};

/* clang-format off */
static const struct thresholds_case threshold_lists[] = {
    {NULL,                  3,  {50, 80, 100}},
    {"\"50\"",              3,  {50, 80, 100}},
    {"[]",                  0,  {0}},
    {"[90, \"x\", 10, 1.5]", 2, {90, 10}},
    {"[1,2,3,4,5,6,7,8,9,10,11,12]", 10, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
};
/* clang-format on */

static void test_thresholds(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof threshold_lists / sizeof threshold_lists[0]; i++) {
        const struct thresholds_case *c = &threshold_lists[i];
        json_t *t = c->json ? J(c->json) : NULL;
        int64_t out[EM_BUDGET_MAX_THRESHOLDS] = {0};
        size_t n = em_budget_thresholds(t, out);
        if (n != c->n)
            fail_msg("%s: %zu thresholds, want %zu", c->json ? c->json : "(none)", n, c->n);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(out[k], c->want[k]);
        json_decref(t);
    }
}

struct reached_case {
    int64_t spent, limit, pct;
    bool want;
};

/* clang-format off */
static const struct reached_case reach[] = {
    {USD(5),           USD(10),   50,  true},
    {USD(5) - 1,       USD(10),   50,  false},
    {USD(10),          USD(10),   100, true},
    {USD(10) - 1,      USD(10),   100, false},
    {USD(11),          USD(10),   110, true},
    {0,                0,         100, true},  /* a zero limit is reached at once */
    {0,                USD(10),   0,   true},
    {1,                3,         34,  false}, /* 100 < 102: no rounding in the comparison */
    {1,                3,         33,  true},
    {INT64_MAX,        INT64_MAX, 100, true},  /* no overflow */
    {INT64_MAX,        INT64_MAX, 101, false},
};
/* clang-format on */

static void test_reached(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reach / sizeof reach[0]; i++) {
        const struct reached_case *c = &reach[i];
        if (em_budget_reached(c->spent, c->limit, c->pct) != c->want)
            fail_msg("case %zu: %lld of %lld at %lld%%: want %s", i, (long long)c->spent,
                     (long long)c->limit, (long long)c->pct, c->want ? "reached" : "not reached");
    }
}

/* ---- when the next threshold falls ---- */

struct crossing_case {
    const char *name;
    size_t n;
    int64_t th[4];
    int64_t spent, limit, rate;
    int64_t after; /* ms after now, or NEVER */
};

/* clang-format off */
static const struct crossing_case crossings[] = {
    {"$5 (50%) at $1/h: 5 h",          3, {50, 80, 100}, 0,       USD(10), USD(1), 5 * HOUR_MS},
    {"at 50%, the next is 80%: 3 h",   3, {50, 80, 100}, USD(5),  USD(10), USD(1), 3 * HOUR_MS},
    {"the order of the list is not",   3, {100, 80, 50}, USD(6),  USD(10), USD(1), 2 * HOUR_MS},
    {"at 80%, the limit: 2 h",         3, {50, 80, 100}, USD(8),  USD(10), USD(2), HOUR_MS},
    {"no thresholds: the limit",       0, {0},           0,       USD(10), USD(10), HOUR_MS},
    {"all reached: never",             3, {50, 80, 100}, USD(10), USD(10), USD(1), NEVER},
    {"past the limit, a 120% one",     1, {120},         USD(11), USD(10), USD(1), HOUR_MS},
    {"nothing accrues: never",         3, {50, 80, 100}, 0,       USD(10), 0,      NEVER},
    {"a negative rate: never",         3, {50, 80, 100}, 0,       USD(10), -1,     NEVER},
    /* 50% of 3 micro-dollars is 1.5: the threshold is at 2 (rounded up) */
    {"a threshold rounds up",          1, {50},          0,       3,       HOUR_MS, 2},
    /* 1% of 101 micro-dollars is 1.01: at 2 */
    {"by any fraction",                1, {1},           0,       101,     HOUR_MS, 2},
    /* 1 micro-dollar at 7 per hour: 514285.7 ms, rounded up */
    {"the time rounds up",             0, {0},           9,       10,      7,      514286},
    /* $1,000,000 at a micro-dollar per hour is 114 000 years away */
    {"too far away: never",            0, {0},           0,       USD(1000000), 1, NEVER},
};
/* clang-format on */

static void test_next_crossing(void **state)
{
    (void)state;
    const int64_t now = T("2026-03-15T13:45:10Z");
    for (size_t i = 0; i < sizeof crossings / sizeof crossings[0]; i++) {
        const struct crossing_case *c = &crossings[i];
        int64_t got =
            em_budget_next_crossing(c->th, c->n, now, c->spent, c->limit, c->rate, NEVER);
        int64_t want = c->after == NEVER ? NEVER : now + c->after;
        if (got != want)
            fail_msg("%s: got %lld, want %lld", c->name, (long long)(got - now),
                     (long long)(want - now));
    }
}

/* ---- first holds and the Block rule ---- */

static void test_hold_ms(void **state)
{
    (void)state;
    static const struct {
        const char *json; /* holds.firstHoldHours; NULL: absent */
        int64_t want;
    } cases[] = {
        {NULL, HOUR_MS},         {"1", HOUR_MS},      {"2", 2 * HOUR_MS},
        {"0.5", HOUR_MS / 2},    {"0", 0},            {"-1", HOUR_MS},
        {"8760", 8760 * HOUR_MS}, {"8760.5", HOUR_MS}, {"\"2\"", HOUR_MS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *h = cases[i].json ? J(cases[i].json) : NULL;
        int64_t got = em_budget_hold_ms(h);
        if (got != cases[i].want)
            fail_msg("firstHoldHours %s: got %lld ms, want %lld", cases[i].json,
                     (long long)got, (long long)cases[i].want);
        json_decref(h);
    }
}

struct hold_case {
    int64_t rate, ms, max, want;
};

/* clang-format off */
static const struct hold_case holds[] = {
    {USD(2.49), HOUR_MS,     -1,        USD(2.49)},
    {USD(2.49), HOUR_MS,     USD(1),    USD(1)},     /* capped at maxCostUSD */
    {USD(2.49), HOUR_MS,     USD(2.49), USD(2.49)},
    {USD(2.49), HOUR_MS,     0,         0},
    {USD(2.49), HOUR_MS / 2, USD(5),    USD(1.245)},
    {USD(0.04), 1000,        -1,        11},         /* 11.11 micro-dollars */
    {0,         HOUR_MS,     -1,        0},
};
/* clang-format on */

static void test_capped_hold(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof holds / sizeof holds[0]; i++) {
        const struct hold_case *c = &holds[i];
        int64_t got = em_budget_capped_hold(c->rate, c->ms, c->max);
        if (got != c->want)
            fail_msg("case %zu: got %lld, want %lld", i, (long long)got, (long long)c->want);
    }
}

static void test_blocks(void **state)
{
    (void)state;
    /* exactly at the limit passes; a micro-dollar more is blocked */
    assert_false(em_budget_blocks(USD(9), USD(1), USD(10)));
    assert_true(em_budget_blocks(USD(9), USD(1) + 1, USD(10)));
    assert_false(em_budget_blocks(0, 0, 0));
    assert_true(em_budget_blocks(USD(10), 1, USD(10)));
    assert_false(em_budget_blocks(0, USD(2.49), USD(10)));
    assert_true(em_budget_blocks(USD(8), USD(2.49), USD(10)));
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods),       cmocka_unit_test(test_periods_before_epoch),
        cmocka_unit_test(test_baselines),     cmocka_unit_test(test_accrual),
        cmocka_unit_test(test_thresholds),    cmocka_unit_test(test_reached),
        cmocka_unit_test(test_next_crossing), cmocka_unit_test(test_hold_ms),
        cmocka_unit_test(test_capped_hold),   cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
