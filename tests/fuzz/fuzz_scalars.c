/* fuzz_scalars: the small parsers of pkg/util every manifest goes through: quantities
 * ("1.5Gi", "500m"), money ("40.00"), RFC 3339 times, Go durations, base64, and the
 * name/label validators. Input: one selector byte, then the text (NUL ends it).
 * What parses is formatted and must parse back to the same value. */
#include <stdio.h>

#include "fuzz.h"
#include "util/base64.h"
#include "util/money.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/validate.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    int which = data[0] % 6;
    char *s = fz_str(data + 1, size - 1);
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    switch (which) {
    case 0: {
        struct nd_quantity q, q2;
        if (nd_quantity_parse(s, &q, &st) == 0) {
            int64_t x;
            nd_quantity_bytes(&q, &x);
            nd_quantity_milli(&q, &x);
            if (nd_quantity_format(&q, &out) == 0) {
                struct nd_status st2 = ND_STATUS_INIT;
                if (nd_quantity_parse(out.data, &q2, &st2) < 0)
                    fprintf(stderr, "quantity %s -> %s: %s\n", s, out.data, st2.message);
                FZ_ASSERT(st2.message == NULL);
                FZ_ASSERT(nd_quantity_cmp(&q, &q2) == 0);
                nd_status_release(&st2);
            }
        }
        break;
    }
    case 1: {
        int64_t m, m2;
        if (nd_money_parse(s, &m, &st) == 0) {
            FZ_ASSERT(nd_money_format(m, &out) == 0);
            struct nd_status st2 = ND_STATUS_INIT;
            FZ_ASSERT(nd_money_parse(out.data, &m2, &st2) == 0 && m2 == m);
            nd_status_release(&st2);
            nd_buf_reset(&out);
            nd_money_human(m, &out);
        }
        break;
    }
    case 2: {
        int64_t t, t2;
        if (nd_time_parse_micro(s, &t, &st) == 0) {
            if (nd_time_format_micro(t, &out) == 0) {
                struct nd_status st2 = ND_STATUS_INIT;
                FZ_ASSERT(nd_time_parse_micro(out.data, &t2, &st2) == 0 && t2 == t);
                nd_status_release(&st2);
            }
        }
        nd_status_release(&st);
        nd_time_parse(s, &t, &st);
        break;
    }
    case 3: {
        int64_t ms, ms2, ns;
        if (nd_duration_parse(s, &ms, &st) == 0) {
            if (nd_duration_format_short(ms, &out) == 0) {
                struct nd_status st2 = ND_STATUS_INIT;
                if (nd_duration_parse(out.data, &ms2, &st2) < 0 || ms2 != ms)
                    fprintf(stderr, "duration %s -> %s\n", s, out.data);
                FZ_ASSERT(st2.message == NULL && ms2 == ms);
                nd_status_release(&st2);
            }
            nd_buf_reset(&out);
            nd_duration_format(ms, &out);
        }
        nd_status_release(&st);
        nd_duration_parse_ns(s, &ns, &st);
        break;
    }
    case 4: {
        if (nd_base64_decode(s, strlen(s), &out) == 0) {
            struct nd_buf enc = ND_BUF_INIT, dec = ND_BUF_INIT;
            nd_base64_encode(out.data, out.len, false, &enc);
            FZ_ASSERT(nd_base64_decode(enc.data, enc.len, &dec) == 0);
            FZ_ASSERT(dec.len == out.len && memcmp(dec.data, out.data, out.len) == 0);
            nd_buf_release(&enc);
            nd_buf_release(&dec);
        }
        break;
    }
    default:
        nd_validate_dns_label(s, "f", &st);
        nd_status_release(&st);
        nd_validate_dns_subdomain(s, "f", &st);
        nd_status_release(&st);
        nd_validate_label_key(s, "f", &st);
        nd_status_release(&st);
        nd_validate_label_value(s, "f", &st);
        nd_status_release(&st);
        nd_validate_annotation_key(s, "f", &st);
        break;
    }
    nd_status_release(&st);
    nd_buf_release(&out);
    free(s);
    return 0;
}
