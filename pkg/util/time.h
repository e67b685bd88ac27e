/* time.h: RFC 3339 times, Go durations and kubectl's human ages.
 *
 * Times are whole seconds (or microseconds) since the Unix epoch, UTC. Formatting and
 * parsing use their own civil-calendar arithmetic (no timegm, no TZ), for years 0000
 * to 9999 (the four digits RFC 3339 allows).
 *
 * Durations are milliseconds (int64_t). The text form is Go's time.Duration: parsing
 * accepts exactly what Go's time.ParseDuration accepts (the same overflow limit, about
 * 2562047h, because Go counts nanoseconds in an int64), and sub-millisecond parts are
 * TRUNCATED toward zero, as Go's Duration.Milliseconds() does ("1500us" is 1 ms,
 * "999us" and "-999us" are 0). nd_duration_parse_ns keeps the nanoseconds. (Go turns
 * a fraction into nanoseconds in float64; this is exact integer arithmetic, so a value
 * can rarely differ from Go's in the last nanosecond, never in what is accepted.)
 *
 * Every function here appends to the caller's nd_buf (nothing is cleared first) and
 * returns 0, or -1 when the buffer's cap overflowed or the input is out of range.
 * Parsers return 0, or -1 with st = reason "Invalid" and a message quoting the input
 * (cut after 256 bytes): time messages name the character position (1-based) of the
 * problem and quote as quote.h does; duration messages are Go's, byte for byte,
 * including Go's quoting (bytes outside printable ASCII as \xNN).
 */
#ifndef ND_TIME_H
#define ND_TIME_H

#include <stdint.h>

#include "util/buf.h"
#include "util/status.h"

/* Seconds since the epoch of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z. */
#define ND_TIME_MIN (-62167219200LL)
#define ND_TIME_MAX 253402300799LL

/* The wall clock (CLOCK_REALTIME) in seconds, milliseconds and microseconds. */
int64_t nd_time_now(void);
int64_t nd_time_now_ms(void);
int64_t nd_time_now_micros(void);
/* The monotonic clock (CLOCK_MONOTONIC) in milliseconds: for intervals, never dates. */
int64_t nd_time_mono_ms(void);

struct timespec;
/* Moves ts on by ms milliseconds (either sign), tv_nsec kept within [0, 1e9). */
void nd_timespec_add_ms(struct timespec *ts, int64_t ms);
/* The wall-clock (CLOCK_REALTIME) instant ms milliseconds from now: the deadline
 * pthread_cond_timedwait takes on a condition variable with the default clock. */
void nd_time_deadline(struct timespec *ts, int64_t ms);

/* "2026-11-29T16:59:19Z" (Kubernetes metav1.Time). -1 (nothing appended) when the
 * time is outside ND_TIME_MIN..ND_TIME_MAX. */
int nd_time_format(int64_t unix_seconds, struct nd_buf *out);
/* "2026-11-29T16:59:19.123456Z": always six fraction digits (Kubernetes MicroTime). */
int nd_time_format_micro(int64_t unix_micros, struct nd_buf *out);

/* Parses an RFC 3339 time: "YYYY-MM-DDTHH:MM:SS", an optional fraction ".d..." (any
 * number of digits, truncated), then "Z" or a numeric offset "+HH:MM" / "-HH:MM".
 * Like Go's time.Parse(time.RFC3339): upper-case T and Z only, seconds 00..59, days
 * checked against the month (leap years included), offsets up to 23:59.
 * On error: -1, st = Invalid, e.g. `invalid time "2026-13-01T00:00:00Z": month out of
 * range at character 6 (want RFC 3339, e.g. "2026-11-29T16:59:19Z")`. */
int nd_time_parse(const char *s, int64_t *unix_seconds_out, struct nd_status *st);
/* The same, keeping microseconds (fraction digits past the sixth are truncated). */
int nd_time_parse_micro(const char *s, int64_t *unix_micros_out, struct nd_status *st);

/* An HTTP date (RFC 9110's IMF-fixdate, the Date header): "Sun, 06 Nov 1994 08:49:37 GMT".
 * Formatting: -1 (nothing appended) before 1970 or past ND_TIME_MAX. Parsing takes that
 * form only (the obsolete RFC 850 and asctime forms are refused): 0, or -1 when s is not
 * one (the weekday is not checked). */
int nd_http_date_format(int64_t unix_seconds, struct nd_buf *out);
int nd_http_date_parse(const char *s, int64_t *unix_seconds_out);

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12, day 1..31; not
 * checked), and back. Exposed for callers doing calendar arithmetic. */
int64_t nd_days_from_civil(int64_t year, int month, int day);
void nd_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* Go's time.ParseDuration: a possibly signed sequence of decimal numbers, each with
 * an optional fraction and a unit (ns, us, µs, μs, ms, s, m, h), such as "300ms",
 * "-1.5h", "2h45m30.5s"; or "0". The messages are Go's: `time: invalid duration "1x1"`,
 * `time: missing unit in duration "1"`, `time: unknown unit "d" in duration "1d"`. */
int nd_duration_parse(const char *s, int64_t *ms_out, struct nd_status *st);
int nd_duration_parse_ns(const char *s, int64_t *ns_out, struct nd_status *st);
/* Go's Duration.String() of ms milliseconds: "1h30m0s", "1m30s", "1.5s", "500ms",
 * "0s", "-1m0s". Hours grow without limit (no day unit). */
int nd_duration_format(int64_t ms, struct nd_buf *out);
/* The shortest Go-style form that parses back to the same value: zero units left out
 * ("30m", "168h", "1h30m", "1h0.5s", "1m30s", "500ms", "0s"). */
int nd_duration_format_short(int64_t ms, struct nd_buf *out);

/* kubectl's AGE column (k8s.io/apimachinery/pkg/util/duration.HumanDuration):
 * "59s", "119s", "2m", "5m30s", "10m", "179m", "3h", "7h59m", "8h", "47h", "2d",
 * "7d23h", "8d", "729d", "2y", "3y2d", "8y". -1 s shows "0s" (clock skew); earlier
 * than that shows "<invalid>". */
int nd_human_age(int64_t seconds, struct nd_buf *out);

#endif
