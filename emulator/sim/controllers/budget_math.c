/* The arithmetic of Budgets; see budget_math.h. */
#include "budget_math.h"

#include <string.h>

#include "util/money.h"
#include "util/time.h"

struct em_budget_period em_budget_period_of(const char *kind, int64_t created_ms, int64_t now)
{
    struct em_budget_period p = {0, -1, false};
    if (!kind)
        kind = "Monthly";
    const int64_t day = EM_BUDGET_DAY_MS;
    int64_t days = now >= 0 ? now / day : (now - day + 1) / day;
    if (!strcmp(kind, "Daily")) {
        p.start = days * day;
        p.end = p.start + day;
    } else if (!strcmp(kind, "Weekly")) {
        int64_t monday = days - ((days % 7 + 7 + 3) % 7); /* 1970-01-01 was a Thursday */
        p.start = monday * day;
        p.end = p.start + 7 * day;
    } else if (!strcmp(kind, "Total")) {
        p.total = true;
        p.start = created_ms >= 0 ? created_ms : now;
    } else {
        int64_t y;
        int m, d;
        nd_civil_from_days(days, &y, &m, &d);
        p.start = nd_days_from_civil(y, m, 1) * day;
        p.end = nd_days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) * day;
    }
    return p;
}

int64_t em_budget_baseline(bool has_entry, int64_t entry_base, bool total, int64_t created_ms,
                           int64_t period_start, int64_t cost)
{
    if (has_entry)
        return entry_base;
    if (total || created_ms >= period_start)
        return 0;
    return cost; /* older than the period: counted from now on */
}

int64_t em_budget_spent(int64_t cost, int64_t base)
{
    return cost > base ? cost - base : 0;
}

int64_t em_budget_accrued(int64_t cost, int64_t rate, int64_t since, int64_t now)
{
    int64_t add = 0;
    if (now > since)
        nd_money_mul_rate(rate, now - since, &add);
    return cost + add;
}

size_t em_budget_thresholds(const json_t *t, int64_t out[EM_BUDGET_MAX_THRESHOLDS])
{
    if (!json_is_array(t)) {
        out[0] = 50;
        out[1] = 80;
        out[2] = 100;
        return 3;
    }
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(t) && n < EM_BUDGET_MAX_THRESHOLDS; i++)
        if (json_is_integer(json_array_get(t, i)))
            out[n++] = json_integer_value(json_array_get(t, i));
    return n;
}

bool em_budget_reached(int64_t spent, int64_t limit, int64_t pct)
{
    return (__int128)spent * 100 >= (__int128)limit * pct;
}

int64_t em_budget_next_crossing(const int64_t *th, size_t n, int64_t now, int64_t spent,
                                int64_t limit, int64_t rate, int64_t never)
{
    if (rate <= 0)
        return never;
    int64_t target = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t at = (int64_t)(((__int128)limit * th[i] + 99) / 100);
        if (at > spent && (target < 0 || at < target))
            target = at;
    }
    if (limit > spent && (target < 0 || limit < target))
        target = limit;
    if (target < 0)
        return never;
    __int128 ms = ((__int128)(target - spent) * 3600000 + rate - 1) / rate;
    return ms > (__int128)(never / 4) ? never : now + (ms > 0 ? (int64_t)ms : 1);
}

int64_t em_budget_hold_ms(const json_t *h)
{
    double hours = json_is_number(h) ? json_number_value(h) : 1.0;
    if (!(hours >= 0) || hours > 24 * 365)
        hours = 1.0;
    return (int64_t)(hours * 3600 * 1000);
}

int64_t em_budget_capped_hold(int64_t rate, int64_t ms, int64_t max)
{
    int64_t hold = 0;
    nd_money_mul_rate(rate, ms, &hold);
    return max >= 0 && hold > max ? max : hold;
}

bool em_budget_blocks(int64_t spent, int64_t hold, int64_t limit)
{
    return spent + hold > limit;
}
