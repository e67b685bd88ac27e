/* time.c: RFC 3339 times and the civil calendar. Durations are in duration.c. */
#include "util/time.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "util/quote.h"

int64_t nd_days_from_civil(int64_t year, int month, int day)
{
    /* Count from 0000-03-01 in 400-year eras of 146097 days, so the leap day is the
     * last day of each year and needs no special case. */
    int64_t y = year - (month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t mp = month > 2 ? month - 3 : month + 9;
    int64_t doy = (153 * mp + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void nd_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = m;
    *year = yoe + era * 400 + (m <= 2);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t nd_time_now(void)
{
    return now_ns() / 1000000000;
}

int64_t nd_time_now_ms(void)
{
    return now_ns() / 1000000;
}

int64_t nd_time_now_micros(void)
{
    return now_ns() / 1000;
}

int64_t nd_time_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nd_timespec_add_ms(struct timespec *ts, int64_t ms)
{
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    } else if (ts->tv_nsec < 0) {
        ts->tv_sec--;
        ts->tv_nsec += 1000000000L;
    }
}

void nd_time_deadline(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    nd_timespec_add_ms(ts, ms);
}

/* Floor division: times before 1970 belong to the previous day / second. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int add_civil(int64_t secs, struct nd_buf *out)
{
    if (secs < ND_TIME_MIN || secs > ND_TIME_MAX)
        return -1;
    int64_t days = floor_div(secs, 86400);
    int64_t rem = secs - days * 86400;
    int64_t y;
    int m, d;
    nd_civil_from_days(days, &y, &m, &d);
    return nd_buf_addf(out, "%04d-%02d-%02dT%02d:%02d:%02d", (int)y, m, d, (int)(rem / 3600),
                       (int)(rem / 60 % 60), (int)(rem % 60));
}

int nd_time_format(int64_t unix_seconds, struct nd_buf *out)
{
    if (add_civil(unix_seconds, out) != 0)
        return -1;
    return nd_buf_addch(out, 'Z');
}

int nd_time_format_micro(int64_t unix_micros, struct nd_buf *out)
{
    int64_t secs = floor_div(unix_micros, 1000000);
    if (add_civil(secs, out) != 0)
        return -1;
    return nd_buf_addf(out, ".%06dZ", (int)(unix_micros - secs * 1000000));
}

/* ---- parsing ---- */

struct tparse {
    const char *s;
    size_t pos;
    struct nd_status *st;
};

static int terr(struct tparse *p, size_t pos, const char *what)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_quote(&b, p->s, ND_QUOTE_MAX);
    nd_status_set(p->st, "Invalid", NULL,
                  "invalid time %s: %s at character %zu (want RFC 3339, e.g. "
                  "\"2026-11-29T16:59:19Z\")",
                  b.data, what, pos + 1);
    nd_buf_release(&b);
    return -1;
}

/* Reads exactly n digits. */
static int digits(struct tparse *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = p->s[p->pos];
        if (c < '0' || c > '9')
            return terr(p, p->pos, "expected a digit");
        v = v * 10 + (c - '0');
        p->pos++;
    }
    *out = v;
    return 0;
}

static int expect(struct tparse *p, char c, const char *what)
{
    if (p->s[p->pos] != c)
        return terr(p, p->pos, what);
    p->pos++;
    return 0;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* A number of n digits at `at` that must lie in lo..hi. */
static int field(struct tparse *p, int n, int lo, int hi, const char *name, int *out)
{
    size_t at = p->pos;
    if (digits(p, n, out) != 0)
        return -1;
    if (*out < lo || *out > hi)
        return terr(p, at, name);
    return 0;
}

static int parse_rfc3339(const char *s, int64_t *micros, struct nd_status *st)
{
    struct tparse p = {s ? s : "", 0, st};
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (!*p.s)
        return terr(&p, 0, "empty value");
    if (field(&p, 4, 0, 9999, "year out of range", &y) || expect(&p, '-', "expected '-'") ||
        field(&p, 2, 1, 12, "month out of range", &mo) || expect(&p, '-', "expected '-'"))
        return -1;
    size_t day_at = p.pos;
    if (digits(&p, 2, &d) != 0)
        return -1;
    if (d < 1 || d > month_days(y, mo))
        return terr(&p, day_at, "day out of range");
    if (expect(&p, 'T', "expected 'T'") || field(&p, 2, 0, 23, "hour out of range", &h) ||
        expect(&p, ':', "expected ':'") || field(&p, 2, 0, 59, "minute out of range", &mi) ||
        expect(&p, ':', "expected ':'") || field(&p, 2, 0, 59, "second out of range", &sec))
        return -1;
    int64_t frac = 0; /* microseconds */
    if (p.s[p.pos] == '.') {
        p.pos++;
        if (p.s[p.pos] < '0' || p.s[p.pos] > '9')
            return terr(&p, p.pos, "expected a digit");
        int n = 0;
        for (; p.s[p.pos] >= '0' && p.s[p.pos] <= '9'; p.pos++, n++)
            if (n < 6)
                frac = frac * 10 + (p.s[p.pos] - '0');
        for (; n < 6; n++)
            frac *= 10;
    }
    int64_t offset = 0;
    char c = p.s[p.pos];
    if (c == 'Z') {
        p.pos++;
    } else if (c == '+' || c == '-') {
        int oh = 0, om = 0;
        p.pos++;
        if (field(&p, 2, 0, 23, "offset hour out of range", &oh) ||
            expect(&p, ':', "expected ':' in the offset") ||
            field(&p, 2, 0, 59, "offset minute out of range", &om))
            return -1;
        offset = (oh * 60 + om) * 60;
        if (c == '-')
            offset = -offset;
    } else {
        return terr(&p, p.pos, "expected 'Z' or a numeric offset such as +02:00");
    }
    if (p.s[p.pos] != '\0')
        return terr(&p, p.pos, "unexpected text after the time");
    int64_t secs = nd_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    *micros = secs * 1000000 + frac;
    return 0;
}

int nd_time_parse(const char *s, int64_t *unix_seconds_out, struct nd_status *st)
{
    int64_t micros;
    if (parse_rfc3339(s, &micros, st) != 0)
        return -1;
    *unix_seconds_out = floor_div(micros, 1000000);
    return 0;
}

int nd_time_parse_micro(const char *s, int64_t *unix_micros_out, struct nd_status *st)
{
    return parse_rfc3339(s, unix_micros_out, st);
}

/* ---- HTTP dates (RFC 9110 IMF-fixdate) ---- */

static const char *const wdays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int nd_http_date_format(int64_t unix_seconds, struct nd_buf *out)
{
    if (unix_seconds < 0 || unix_seconds > ND_TIME_MAX)
        return -1;
    int64_t days = unix_seconds / 86400, rem = unix_seconds % 86400;
    int64_t y;
    int m, d;
    nd_civil_from_days(days, &y, &m, &d);
    return nd_buf_addf(out, "%s, %02d %s %04d %02d:%02d:%02d GMT", wdays[days % 7], d,
                       months[m - 1], (int)y, (int)(rem / 3600), (int)(rem / 60 % 60),
                       (int)(rem % 60));
}

/* n decimal digits at s into *out; false when one is not a digit. */
static bool num(const char *s, int n, int *out)
{
    *out = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *out = *out * 10 + (s[i] - '0');
    }
    return true;
}

int nd_http_date_parse(const char *s, int64_t *unix_seconds_out)
{
    /* "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, every one in its place */
    if (!s || strlen(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' ||
        s[16] != ' ' || s[19] != ':' || s[22] != ':' || strcmp(s + 25, " GMT") != 0)
        return -1;
    int d, y, hh, mm, ss, m = -1;
    for (int i = 0; i < 12; i++)
        if (!strncmp(s + 8, months[i], 3))
            m = i + 1;
    if (m < 0 || !num(s + 5, 2, &d) || !num(s + 12, 4, &y) || !num(s + 17, 2, &hh) ||
        !num(s + 20, 2, &mm) || !num(s + 23, 2, &ss))
        return -1;
    if (d < 1 || d > month_days(y, m) || hh > 23 || mm > 59 || ss > 60)
        return -1;
    *unix_seconds_out = nd_days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
    return 0;
}
