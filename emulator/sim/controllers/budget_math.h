/* budget_math.h: the arithmetic of Budgets (budget.c), without the store: periods,
 * baselines, thresholds, first holds and when the next threshold falls. Money is integer
 * micro-dollars, times emulated milliseconds since the epoch (UTC). Unit-tested in
 * tests/unit/test_budget_math.c. */
#ifndef EM_BUDGET_MATH_H
#define EM_BUDGET_MATH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_BUDGET_DAY_MS (86400LL * 1000)
#define EM_BUDGET_MAX_THRESHOLDS 10 /* the schema's maxItems */

struct em_budget_period {
    int64_t start, end; /* emulated ms; end -1 for Total */
    bool total;
};

/* The period of spec.period `kind` (NULL: Monthly) holding now: Daily, Weekly (from
 * Monday) and Monthly start at 00:00 UTC; Total starts at created_ms (now when it is
 * negative: no creationTimestamp) and never ends. An unknown kind counts as Monthly. */
struct em_budget_period em_budget_period_of(const char *kind, int64_t created_ms, int64_t now);

/* The baseline of an object in a period: its ledger's (when has_entry), else 0 for an
 * object created in the period (or any object of a Total budget), else its cost now
 * (older than the period: counted from now on). */
int64_t em_budget_baseline(bool has_entry, int64_t entry_base, bool total, int64_t created_ms,
                           int64_t period_start, int64_t cost);
/* What an object spent in the period: cost - base, never below 0. */
int64_t em_budget_spent(int64_t cost, int64_t base);
/* An accruing object's cost at now: cost plus rate (per hour) x (now - since), nothing
 * added when now is not after since (or on overflow). */
int64_t em_budget_accrued(int64_t cost, int64_t rate, int64_t since, int64_t now);

/* spec.thresholds (percents; not an array: 50, 80, 100; items not integers skipped, at
 * most EM_BUDGET_MAX_THRESHOLDS) into out; their number. */
size_t em_budget_thresholds(const json_t *thresholds, int64_t out[EM_BUDGET_MAX_THRESHOLDS]);
/* spent >= pct % of limit (no overflow). */
bool em_budget_reached(int64_t spent, int64_t limit, int64_t pct);
/* When work accruing rate per hour brings spent to the next threshold (pct % of limit,
 * rounded up to a micro-dollar) or the limit: now + the time, rounded up to a ms (at
 * least 1); never (returned as `never`) when rate <= 0, everything is reached, or it is
 * too far away (beyond never / 4 ms). */
int64_t em_budget_next_crossing(const int64_t *th, size_t n, int64_t now, int64_t spent,
                                int64_t limit, int64_t rate, int64_t never);

/* The first hold's length: holds.firstHoldHours (a number, 0 to a year; else 1 hour). */
int64_t em_budget_hold_ms(const json_t *first_hold_hours);
/* rate (per hour) for ms, capped at max when max >= 0. */
int64_t em_budget_capped_hold(int64_t rate, int64_t ms, int64_t max);
/* Whether a launch holding `hold` with `spent` already spent goes past limit. */
bool em_budget_blocks(int64_t spent, int64_t hold, int64_t limit);

#endif
