#include "util/money.h"

#include <stdbool.h>
#include <string.h>

#include "util/quote.h"

static int merr(struct nd_status *st, const char *s, const char *what)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_quote(&b, s, ND_QUOTE_MAX);
    nd_status_set(st, "Invalid", NULL, "invalid amount %s: %s", b.data, what);
    nd_buf_release(&b);
    return -1;
}

#define BAD_FORM "must be a decimal number of US dollars such as \"40.00\""

int nd_money_parse(const char *s, int64_t *micros, struct nd_status *st)
{
    const char *p = s ? s : "";
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (*p < '0' || *p > '9')
        return merr(st, s, BAD_FORM);
    /* Whole dollars, capped: anything past 10^13 dollars is out of range anyway, and
     * the cap keeps the multiplication below within a uint64_t. */
    uint64_t whole = 0;
    bool overflow = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > 10000000000000ULL) {
            overflow = true;
            whole = 0;
        }
    }
    int decimals = 0;
    uint64_t frac = 0;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return merr(st, s, BAD_FORM);
        for (; *p >= '0' && *p <= '9'; p++, decimals++)
            if (decimals < 6)
                frac = frac * 10 + (uint64_t)(*p - '0');
    }
    if (*p != '\0')
        return merr(st, s, BAD_FORM);
    if (decimals > 6)
        return merr(st, s, "more than 6 decimal places");
    for (int i = decimals; i < 6; i++)
        frac *= 10;
    uint64_t m = whole * (uint64_t)ND_MONEY_ONE + frac;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (overflow || m > limit)
        return merr(st, s, "out of range");
    *micros = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return 0;
}

static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
}

int64_t nd_money_or(const char *s, int64_t def)
{
    int64_t m;
    struct nd_status st = ND_STATUS_INIT;
    if (!s || nd_money_parse(s, &m, &st) < 0)
        m = def;
    nd_status_release(&st);
    return m;
}

int nd_money_format(int64_t micros, struct nd_buf *out)
{
    uint64_t u = magnitude(micros);
    unsigned frac = (unsigned)(u % 1000000);
    char f[7];
    snprintf(f, sizeof f, "%06u", frac);
    int keep = 6;
    while (keep > 2 && f[keep - 1] == '0')
        keep--;
    f[keep] = '\0';
    return nd_buf_addf(out, "%s%llu.%s", micros < 0 ? "-" : "", (unsigned long long)(u / 1000000),
                       f);
}

int nd_money_human(int64_t micros, struct nd_buf *out)
{
    /* Cents, rounded half away from zero: 5000 micros is half a cent. */
    uint64_t cents = (magnitude(micros) + 5000) / 10000;
    return nd_buf_addf(out, "%s$%llu.%02u", micros < 0 && cents ? "-" : "",
                       (unsigned long long)(cents / 100), (unsigned)(cents % 100));
}

int nd_money_add(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return -1;
    *out = a + b;
    return 0;
}

int nd_money_sub(int64_t a, int64_t b, int64_t *out)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
        return -1;
    *out = a - b;
    return 0;
}

int nd_money_cmp(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* n / d rounded to the nearest integer, halves away from zero; d > 0. -1 when the
 * result does not fit an int64_t. */
static int div_round(__int128 n, __int128 d, int64_t *out)
{
    __int128 q = n / d, r = n % d;
    if (r < 0)
        r = -r;
    if (2 * r >= d)
        q += n < 0 ? -1 : 1;
    if (q > INT64_MAX || q < INT64_MIN)
        return -1;
    *out = (int64_t)q;
    return 0;
}

int nd_money_mul_rate(int64_t rate_micros_per_hour, int64_t millis, int64_t *out)
{
    return div_round((__int128)rate_micros_per_hour * millis, 3600000, out);
}

int nd_money_percent(int64_t amount, int64_t pct, int64_t *out)
{
    return div_round((__int128)amount * pct, 100, out);
}
