#include "util/quantity.h"

#include <stdbool.h>
#include <string.h>

#include "util/quote.h"

#define NANO 1000000000LL
#define FORMAT_MSG                                                                                 \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
/* Largest total in nanos: INT64_MAX units and a fraction just below the next unit. */
#define MAX_NANOS ((__int128)INT64_MAX * NANO + (NANO - 1))

static int qerr(struct nd_status *st, const char *s, const char *what)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_quote(&b, s, ND_QUOTE_MAX);
    nd_status_set(st, "Invalid", NULL, "invalid quantity %s: %s", b.data, what);
    nd_buf_release(&b);
    return -1;
}

static bool isdig(char c)
{
    return c >= '0' && c <= '9';
}

static const struct {
    const char *name;
    int dec; /* power of ten */
    int bin; /* power of two */
} suffixes[] = {
    {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
    {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
    {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
};

/* Reads the suffix: the table, or e/E followed by a signed int32 exponent. */
static int suffix(const char *sfx, int64_t *dec, int *bin, enum nd_quantity_format *fmt)
{
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(sfx, suffixes[i].name) == 0) {
            *dec = suffixes[i].dec;
            *bin = suffixes[i].bin;
            *fmt = suffixes[i].bin ? ND_QUANTITY_BINARY_SI : ND_QUANTITY_DECIMAL_SI;
            return 0;
        }
    }
    if ((sfx[0] != 'e' && sfx[0] != 'E') || !sfx[1])
        return -1;
    const char *p = sfx + 1;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!*p)
        return -1;
    int64_t e = 0;
    for (; *p; p++) {
        if (!isdig(*p))
            return -1;
        e = e * 10 + (*p - '0');
        if (e > (int64_t)INT32_MAX + neg) /* Go parses it with strconv.ParseInt(s, 10, 32) */
            return -1;
    }
    *dec = neg ? -e : e;
    *bin = 0;
    *fmt = ND_QUANTITY_DECIMAL_EXPONENT;
    return 0;
}

/* Does the suffix part have the shape Kubernetes' parser accepts: letters of
 * "eEinumkKMGTP", an optional sign, digits? (Which suffixes exist is checked later.) */
static bool suffix_shape(const char *p)
{
    while (*p && strchr("eEinumkKMGTP", *p))
        p++;
    if (*p == '+' || *p == '-')
        p++;
    while (isdig(*p))
        p++;
    return *p == '\0';
}

int nd_quantity_parse(const char *s, struct nd_quantity *q, struct nd_status *st)
{
    if (!s || !*s) /* Kubernetes: ErrFormatWrong */
        return qerr(st, s, FORMAT_MSG);
    size_t len = strlen(s);
    if (len > ND_QUANTITY_MAX_LEN)
        return qerr(st, s, "longer than 256 characters");
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    /* digits[] holds the significant digits of the integer and fraction parts; `fraction`
     * counts the digits written after the point (value = digits * 10^-fraction). */
    char digits[ND_QUANTITY_MAX_LEN + 32];
    size_t nd = 0, fraction = 0;
    bool any = false;
    for (; isdig(*p); p++, any = true)
        if (nd || *p != '0')
            digits[nd++] = *p;
    if (*p == '.') {
        p++;
        for (; isdig(*p); p++, any = true) {
            if (nd || *p != '0')
                digits[nd++] = *p;
            fraction++;
        }
    }
    if (!suffix_shape(p))
        return qerr(st, s, FORMAT_MSG);
    int64_t dec;
    int bin;
    enum nd_quantity_format fmt;
    if (suffix(p, &dec, &bin, &fmt) != 0)
        return qerr(st, s, "unable to parse quantity's suffix");
    /* Kubernetes reads a number without digits ("Gi", "-", ".") as 0; a typo is likelier. */
    if (!any)
        return qerr(st, s, "unable to parse numeric part of quantity");

    /* value = digits * 2^bin * 10^(dec - fraction); no significant digit means 0. */
    q->format = fmt;
    if (nd == 0) {
        q->units = 0;
        q->nanos = 0;
        return 0;
    }
    /* Multiply the decimal digit string by 2^bin in place (at most 19 more digits). */
    for (int i = 0; i < bin; i++) {
        int carry = 0;
        for (size_t k = nd; k-- > 0;) {
            int d = (digits[k] - '0') * 2 + carry;
            digits[k] = (char)('0' + d % 10);
            carry = d / 10;
        }
        if (carry) {
            memmove(digits + 1, digits, nd);
            digits[0] = (char)('0' + carry);
            nd++;
        }
    }
    /* The value in nanos is digits * 10^e with e = dec - fraction + 9. Keep the integer
     * part; any non-zero digit cut off rounds the magnitude up. */
    int64_t e = dec - (int64_t)fraction + 9;
    int64_t keep = (int64_t)nd + e; /* digits of the integer part */
    if (keep > 29)
        return qerr(st, s, "out of range (the largest quantity is 9223372036854775807)");
    unsigned __int128 n = 0;
    bool cut = false;
    for (int64_t k = 0; k < (int64_t)nd; k++) {
        if (k < keep)
            n = n * 10 + (unsigned)(digits[k] - '0');
        else if (digits[k] != '0')
            cut = true;
    }
    for (int64_t k = (int64_t)nd; k < keep; k++)
        n *= 10;
    if (cut)
        n++;
    if (n > (unsigned __int128)MAX_NANOS)
        return qerr(st, s, "out of range (the largest quantity is 9223372036854775807)");
    __int128 v = neg ? -(__int128)n : (__int128)n;
    q->units = (int64_t)(v / NANO);
    q->nanos = (int32_t)(v % NANO);
    return 0;
}

static __int128 total(const struct nd_quantity *q)
{
    return (__int128)q->units * NANO + q->nanos;
}

/* n / d rounded up in magnitude; -1 when it does not fit an int64_t. */
static int div_up(__int128 n, int64_t d, int64_t *out)
{
    __int128 r = n / d;
    if (n % d != 0)
        r += n < 0 ? -1 : 1;
    if (r > INT64_MAX || r < INT64_MIN)
        return -1;
    *out = (int64_t)r;
    return 0;
}

int nd_quantity_bytes(const struct nd_quantity *q, int64_t *out)
{
    return div_up(total(q), NANO, out);
}

int nd_quantity_milli(const struct nd_quantity *q, int64_t *out)
{
    return div_up(total(q), NANO / 1000, out);
}

int nd_quantity_cmp(const struct nd_quantity *a, const struct nd_quantity *b)
{
    __int128 x = total(a), y = total(b);
    return (x > y) - (x < y);
}

/* Appends a signed 128-bit integer (snprintf has no conversion for it). */
static int add_i128(struct nd_buf *out, __int128 v)
{
    char tmp[48];
    size_t i = sizeof tmp;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    tmp[--i] = '\0';
    do {
        tmp[--i] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    return nd_buf_adds(out, tmp + i);
}

/* Kubernetes' canonical form of a value of n nanos in format fmt (CanonicalizeBytes). */
static int canonical(__int128 n, enum nd_quantity_format fmt, struct nd_buf *out)
{
    if (n == 0)
        return nd_buf_addch(out, '0');
    if (fmt == ND_QUANTITY_BINARY_SI) {
        /* Below 1024 in magnitude, or not a whole number, binary would round: decimal. */
        __int128 lim = (__int128)1024 * NANO;
        if ((n > -lim && n < lim) || n % NANO != 0) {
            fmt = ND_QUANTITY_DECIMAL_SI;
        } else {
            static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
            __int128 m = n / NANO;
            int k = 0;
            while (k < 6 && m % 1024 == 0) {
                m /= 1024;
                k++;
            }
            return add_i128(out, m) | nd_buf_adds(out, bin[k]);
        }
    }
    /* Decimal: strip factors of ten, then put the exponent on a multiple of three. */
    __int128 m = n;
    int exp = -9;
    while (m % 10 == 0) {
        m /= 10;
        exp++;
    }
    switch (exp % 3) {
    case 1:
    case -2:
        m *= 10;
        exp -= 1;
        break;
    case 2:
    case -1:
        m *= 100;
        exp -= 2;
        break;
    default:
        break;
    }
    int rc = add_i128(out, m);
    if (fmt == ND_QUANTITY_DECIMAL_EXPONENT) {
        if (exp != 0)
            rc |= nd_buf_addf(out, "e%d", exp);
        return rc ? -1 : 0;
    }
    static const char *const dec[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    return rc | nd_buf_adds(out, dec[(exp + 9) / 3]);
}

int nd_quantity_format(const struct nd_quantity *q, struct nd_buf *out)
{
    return canonical(total(q), q->format, out);
}

int nd_quantity_format_bytes(int64_t bytes, struct nd_buf *out)
{
    return canonical((__int128)bytes * NANO, ND_QUANTITY_BINARY_SI, out);
}
