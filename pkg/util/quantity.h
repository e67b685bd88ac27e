/* quantity.h: Kubernetes resource quantities ("100Gi", "500m", "1.5", "1e3").
 *
 * Syntax (k8s.io/apimachinery resource.Quantity): an optional sign, a decimal number
 * ("1", "1.5", "1.", ".5"), then an optional suffix: binary Ki Mi Gi Ti Pi Ei (powers
 * of 1024), decimal n u m k M G T P E (powers of 1000), or a decimal exponent e<int>
 * / E<int> ("1e3", "2E-3", "1e+3"). Nothing else: no spaces, no "K", no "Gb".
 * Stricter than Kubernetes in three ways: at least one digit is required (Kubernetes
 * reads "Gi" and "." as 0), at most ND_QUANTITY_MAX_LEN bytes, and magnitudes above
 * INT64_MAX units are rejected (Kubernetes caps binary ones and keeps decimal ones
 * in arbitrary precision).
 *
 * Representation: the exact value rounded to a billionth (1n) the way Kubernetes
 * does, i.e. a value with more precision is rounded UP in magnitude ("0.1n" is 1n):
 * units (the integer part, truncated toward zero) plus nanos (the fraction in
 * billionths, with the sign of the value). 1.5Gi is {1610612736, 0}, 500m is
 * {0, 500000000}, -1.5 is {-1, -500000000}. `format` remembers which kind of suffix
 * was written, which decides the canonical text form, as in Kubernetes.
 */
#ifndef ND_QUANTITY_H
#define ND_QUANTITY_H

#include <stdint.h>

#include "util/buf.h"
#include "util/status.h"

#define ND_QUANTITY_MAX_LEN 256

enum nd_quantity_format {
    ND_QUANTITY_DECIMAL_SI,       /* "", n u m k M G T P E */
    ND_QUANTITY_BINARY_SI,        /* Ki Mi Gi Ti Pi Ei */
    ND_QUANTITY_DECIMAL_EXPONENT, /* e3, E-3 */
};

struct nd_quantity {
    int64_t units; /* -INT64_MAX..INT64_MAX */
    int32_t nanos; /* -999999999..999999999, same sign as units when both are non-zero */
    enum nd_quantity_format format;
};

/* Parses s into *q. On error: -1, st = Invalid with Kubernetes' wording and the input:
 * `invalid quantity "1Gb": quantities must match the regular expression
 * '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
 * `invalid quantity "1K": unable to parse quantity's suffix`,
 * `invalid quantity "8Ei": out of range (the largest quantity is 9223372036854775807)`. */
int nd_quantity_parse(const char *s, struct nd_quantity *q, struct nd_status *st);

/* The value in whole units rounded up in magnitude (Kubernetes Quantity.Value()):
 * "1.5Gi" -> 1610612736, "0.1" -> 1, "-0.1" -> -1. -1 when it does not fit. */
int nd_quantity_bytes(const struct nd_quantity *q, int64_t *out);
/* The value in thousandths rounded up in magnitude (MilliValue()): "500m" -> 500,
 * "2" -> 2000, "0.1m" -> 1. -1 when it does not fit. */
int nd_quantity_milli(const struct nd_quantity *q, int64_t *out);
/* -1, 0 or 1 as a is less than, equal to or greater than b (values, not formats). */
int nd_quantity_cmp(const struct nd_quantity *a, const struct nd_quantity *b);

/* The canonical form Kubernetes prints for q (Quantity.String()): "1536Mi" for 1.5Gi,
 * "500m" for 0.5, "1k" for 1000, "1e3" for 1e3, "0" for zero. A binary quantity whose
 * value is below 1024 in magnitude or not whole is shown in decimal SI form. */
int nd_quantity_format(const struct nd_quantity *q, struct nd_buf *out);
/* The canonical binary form of a byte count, as kubectl shows a BinarySI quantity:
 * 107374182400 -> "100Gi", 1610612736 -> "1536Mi", 2000 -> "2000", 1000 -> "1k"
 * (values below 1024 use decimal SI, as Kubernetes does), 0 -> "0". */
int nd_quantity_format_bytes(int64_t bytes, struct nd_buf *out);

#endif
