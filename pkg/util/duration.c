/* duration.c: Go durations (time.ParseDuration, Duration.String) and kubectl's human
 * ages. Declared in time.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/time.h"

#define POW63 ((uint64_t)1 << 63)

/* Go's time package quotes a duration its own way (not strconv.Quote): bytes outside
 * printable ASCII become \xNN. Reproduced so our messages are Go's byte for byte,
 * except that a huge input is cut after 256 bytes (see quote.h). */
static void go_quote(struct nd_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    nd_buf_addch(b, '"');
    for (i = 0; i < n && i < 256; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80 || c < ' ') {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            nd_buf_add(b, esc, sizeof esc);
        } else {
            if (c == '"' || c == '\\')
                nd_buf_addch(b, '\\');
            nd_buf_addch(b, (char)c);
        }
    }
    nd_buf_addch(b, '"');
    if (i < n)
        nd_buf_adds(b, "...");
}

/* "time: <what> [<unit> in duration ]<orig>", as Go words it. */
static int derr(struct nd_status *st, const char *what, const char *unit, size_t unit_len,
                const char *orig)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "time: %s ", what);
    if (unit) {
        go_quote(&b, unit, unit_len);
        nd_buf_adds(&b, " in duration ");
    }
    go_quote(&b, orig, strlen(orig));
    nd_status_set(st, "Invalid", NULL, "%s", b.data);
    nd_buf_release(&b);
    return -1;
}

static const struct {
    const char *name;
    uint64_t ns;
} units[] = {
    {"ns", 1},           {"us", 1000},      {"\xc2\xb5s", 1000}, /* U+00B5 micro sign */
    {"\xce\xbcs", 1000},                                         /* U+03BC Greek small letter mu */
    {"ms", 1000000},     {"s", 1000000000}, {"m", 60000000000ULL}, {"h", 3600000000000ULL},
};

static uint64_t unit_ns(const char *u, size_t n)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
            return units[i].ns;
    return 0;
}

static bool isdig(char c)
{
    return c >= '0' && c <= '9';
}

int nd_duration_parse_ns(const char *orig, int64_t *ns_out, struct nd_status *st)
{
    const char *s = orig ? orig : "";
    bool neg = false;
    uint64_t d = 0;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    if (strcmp(s, "0") == 0) {
        *ns_out = 0;
        return 0;
    }
    if (!*s)
        return derr(st, "invalid duration", NULL, 0, orig ? orig : "");
    while (*s) {
        if (!(*s == '.' || isdig(*s)))
            return derr(st, "invalid duration", NULL, 0, orig);
        /* The integer part: more than 2^63 is an overflow, as in Go's leadingInt. */
        uint64_t v = 0;
        const char *start = s;
        for (; isdig(*s); s++) {
            if (v > POW63 / 10)
                return derr(st, "invalid duration", NULL, 0, orig);
            v = v * 10 + (uint64_t)(*s - '0');
            if (v > POW63)
                return derr(st, "invalid duration", NULL, 0, orig);
        }
        bool pre = s != start, post = false;
        /* The fraction: digits past what fits are ignored (Go's leadingFraction). */
        uint64_t f = 0;
        int scale = 0; /* f is f / 10^scale */
        if (*s == '.') {
            s++;
            start = s;
            bool overflow = false;
            for (; isdig(*s); s++) {
                if (overflow)
                    continue;
                /* 10^scale must fit the 128-bit divisor below; digits past the 38th are
                 * worth less than a nanosecond of any unit */
                if (f > (POW63 - 1) / 10 || scale >= 38) {
                    overflow = true;
                    continue;
                }
                uint64_t y = f * 10 + (uint64_t)(*s - '0');
                if (y > POW63) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale++;
            }
            post = s != start;
        }
        if (!pre && !post)
            return derr(st, "invalid duration", NULL, 0, orig);
        const char *u = s;
        while (*s && *s != '.' && !isdig(*s))
            s++;
        if (s == u)
            return derr(st, "missing unit in duration", NULL, 0, orig);
        uint64_t unit = unit_ns(u, (size_t)(s - u));
        if (!unit)
            return derr(st, "unknown unit", u, (size_t)(s - u), orig);
        if (v > POW63 / unit)
            return derr(st, "invalid duration", NULL, 0, orig);
        v *= unit;
        if (f > 0) {
            /* Go computes this in float64; exact integer arithmetic (truncated) gives
             * the same result except, rarely, in the last nanosecond. */
            unsigned __int128 p = 1;
            for (int i = 0; i < scale; i++)
                p *= 10;
            v += (uint64_t)((unsigned __int128)f * unit / p);
            if (v > POW63)
                return derr(st, "invalid duration", NULL, 0, orig);
        }
        d += v;
        if (d > POW63)
            return derr(st, "invalid duration", NULL, 0, orig);
    }
    if (neg) {
        *ns_out = d == POW63 ? INT64_MIN : -(int64_t)d;
        return 0;
    }
    if (d > POW63 - 1)
        return derr(st, "invalid duration", NULL, 0, orig);
    *ns_out = (int64_t)d;
    return 0;
}

int nd_duration_parse(const char *s, int64_t *ms_out, struct nd_status *st)
{
    int64_t ns;
    if (nd_duration_parse_ns(s, &ns, st) != 0)
        return -1;
    *ms_out = ns / 1000000; /* C division truncates toward zero, as Go's Milliseconds() */
    return 0;
}

/* Magnitude of ms, safe for INT64_MIN. */
static uint64_t magnitude(int64_t ms)
{
    return ms < 0 ? (uint64_t)(-(ms + 1)) + 1 : (uint64_t)ms;
}

/* Appends "S[.fff]s" for u milliseconds' seconds part, trailing zeros trimmed. */
static int add_seconds(struct nd_buf *out, uint64_t secs, unsigned frac_ms)
{
    if (!frac_ms)
        return nd_buf_addf(out, "%llus", (unsigned long long)secs);
    char f[4] = {(char)('0' + frac_ms / 100), (char)('0' + frac_ms / 10 % 10),
                 (char)('0' + frac_ms % 10), 0};
    for (int i = 2; i > 0 && f[i] == '0'; i--)
        f[i] = 0;
    return nd_buf_addf(out, "%llu.%ss", (unsigned long long)secs, f);
}

static int format(int64_t ms, struct nd_buf *out, bool shortest)
{
    uint64_t u = magnitude(ms);
    if (u == 0)
        return nd_buf_adds(out, "0s");
    int rc = ms < 0 ? nd_buf_addch(out, '-') : 0;
    if (u < 1000)
        return rc | nd_buf_addf(out, "%llums", (unsigned long long)u);
    uint64_t secs = u / 1000 % 60, mins = u / 60000 % 60, hours = u / 3600000;
    unsigned frac = (unsigned)(u % 1000);
    if (hours)
        rc |= nd_buf_addf(out, "%lluh", (unsigned long long)hours);
    if (shortest) {
        if (mins)
            rc |= nd_buf_addf(out, "%llum", (unsigned long long)mins);
        if (secs || frac)
            rc |= add_seconds(out, secs, frac);
    } else {
        if (hours || mins)
            rc |= nd_buf_addf(out, "%llum", (unsigned long long)mins);
        rc |= add_seconds(out, secs, frac);
    }
    return rc ? -1 : 0;
}

int nd_duration_format(int64_t ms, struct nd_buf *out)
{
    return format(ms, out, false);
}

int nd_duration_format_short(int64_t ms, struct nd_buf *out)
{
    return format(ms, out, true);
}

int nd_human_age(int64_t seconds, struct nd_buf *out)
{
    /* The thresholds of k8s.io/apimachinery/pkg/util/duration.HumanDuration: about
     * two to three significant figures, the second unit shown only while small. */
    if (seconds < -1)
        return nd_buf_adds(out, "<invalid>");
    if (seconds < 0)
        return nd_buf_adds(out, "0s");
    if (seconds < 60 * 2)
        return nd_buf_addf(out, "%llds", (long long)seconds);
    long long minutes = (long long)(seconds / 60);
    if (minutes < 10) {
        long long s = (long long)(seconds % 60);
        if (s == 0)
            return nd_buf_addf(out, "%lldm", minutes);
        return nd_buf_addf(out, "%lldm%llds", minutes, s);
    }
    if (minutes < 60 * 3)
        return nd_buf_addf(out, "%lldm", minutes);
    long long hours = minutes / 60;
    if (hours < 8) {
        long long m = minutes % 60;
        if (m == 0)
            return nd_buf_addf(out, "%lldh", hours);
        return nd_buf_addf(out, "%lldh%lldm", hours, m);
    }
    if (hours < 48)
        return nd_buf_addf(out, "%lldh", hours);
    if (hours < 24 * 8) {
        long long h = hours % 24;
        if (h == 0)
            return nd_buf_addf(out, "%lldd", hours / 24);
        return nd_buf_addf(out, "%lldd%lldh", hours / 24, h);
    }
    if (hours < 24 * 365 * 2)
        return nd_buf_addf(out, "%lldd", hours / 24);
    if (hours < 24 * 365 * 8) {
        long long dy = hours / 24 % 365;
        if (dy == 0)
            return nd_buf_addf(out, "%lldy", hours / 24 / 365);
        return nd_buf_addf(out, "%lldy%lldd", hours / 24 / 365, dy);
    }
    return nd_buf_addf(out, "%lldy", hours / 24 / 365);
}
