/* money.h: US-dollar amounts as integer micro-dollars (int64_t), never floats.
 *
 * One dollar is 1000000 micros; an int64_t holds up to about 9.2 trillion dollars.
 * On the wire money is a decimal string ("40.00", kinds.md): nd_money_parse reads it,
 * nd_money_format writes it, nd_money_human shows it to a person ("$12.40").
 *
 * Negative amounts are allowed (credits, refunds, a balance below zero).
 * Arithmetic never wraps: functions that can overflow return -1 and leave *out alone.
 * Rounding, where a result has more precision than a micro-dollar, is to the nearest
 * micro-dollar with halves away from zero (0.5 -> 1, -0.5 -> -1).
 */
#ifndef ND_MONEY_H
#define ND_MONEY_H

#include <stdint.h>

#include "util/buf.h"
#include "util/status.h"

#define ND_MONEY_ONE 1000000LL /* micros in one dollar */

/* Parses "40", "40.0", "40.00", "0.000001", "-1.5": an optional '-', one or more
 * digits, and optionally '.' followed by 1 to 6 digits. Rejected (st = Invalid, the
 * message quotes the input): empty or NULL, '+', spaces, "$1", "1.2.3", "1.", ".5",
 * exponents ("1e3"), more than 6 decimals (even zeros), and amounts beyond int64_t
 * micros. Messages: `invalid amount "1.2.3": must be a decimal number of US dollars
 * such as "40.00"`, `invalid amount "0.0000001": more than 6 decimal places`,
 * `invalid amount "99999999999999": out of range`. */
int nd_money_parse(const char *s, int64_t *micros, struct nd_status *st);
/* s's micro-dollars, or def when s is NULL or not an amount nd_money_parse takes. */
int64_t nd_money_or(const char *s, int64_t def);
/* The wire form: at least 2 decimals, more only when needed (up to 6):
 * 40000000 -> "40.00", 1234500 -> "1.2345", 1 -> "0.000001", -1500000 -> "-1.50". */
int nd_money_format(int64_t micros, struct nd_buf *out);
/* For people: "$12.40", 2 decimals rounded half away from zero (0.004999 -> "$0.00",
 * 0.005 -> "$0.01"), negative "-$1.00"; an amount that rounds to zero is "$0.00". */
int nd_money_human(int64_t micros, struct nd_buf *out);

/* *out = a + b, or -1 on overflow. */
int nd_money_add(int64_t a, int64_t b, int64_t *out);
/* *out = a - b, or -1 on overflow. */
int nd_money_sub(int64_t a, int64_t b, int64_t *out);
/* -1, 0 or 1 as a is less than, equal to or greater than b. */
int nd_money_cmp(int64_t a, int64_t b);
/* The cost of running `millis` milliseconds at `rate_micros_per_hour`:
 * rate * millis / 3600000, exact (128-bit) and rounded to the nearest micro-dollar,
 * halves away from zero. -1 when the result does not fit an int64_t. Callers
 * accruing cost should compute it from the total elapsed time, not sum rounded ticks. */
int nd_money_mul_rate(int64_t rate_micros_per_hour, int64_t millis, int64_t *out);
/* pct percent of amount (amount * pct / 100), rounded like nd_money_mul_rate: e.g. the
 * 80 % alert threshold of a budget, or 110 % of a reviewed rate. -1 on overflow. */
int nd_money_percent(int64_t amount, int64_t pct, int64_t *out);

#endif
