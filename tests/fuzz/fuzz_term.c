/* fuzz_term: the terminal escaper (pkg/util/term.h) every string from a server passes
 * before a table, describe or an error shows it. Input: one flags byte, then any bytes
 * (NUL included). The escaped text holds no control a terminal acts on (C0 but the kept
 * LF and TAB, DEL, C1 U+0080..U+009F) and only UTF-8; escaping it again changes nothing;
 * a JSON document's strings, escaped by nd_term_safe_json, hold none either. */
#include "fuzz.h"
#include "util/quote.h"
#include "util/term.h"

static void check(const char *s, size_t n, unsigned flags)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        FZ_ASSERT(!(c < 0x20 && !((c == '\n' && (flags & ND_TERM_KEEP_NL)) ||
                                  (c == '\t' && (flags & ND_TERM_KEEP_TAB)))));
        FZ_ASSERT(c != 0x7f);
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = nd_utf8_seq_len((const unsigned char *)s + i, n - i);
        FZ_ASSERT(len > 0);
        FZ_ASSERT(!(c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f));
        i += len;
    }
}

static void walk(const json_t *v, unsigned flags)
{
    if (json_is_string(v)) {
        check(json_string_value(v), json_string_length(v), flags);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) walk(item, flags);
    } else if (json_is_object(v)) {
        const char *key;
        json_t *item;
        json_object_foreach((json_t *)v, key, item) {
            check(key, strlen(key), 0);
            walk(item, flags);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    unsigned flags = data[0] & (ND_TERM_KEEP_NL | ND_TERM_KEEP_TAB);
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    struct nd_buf out = ND_BUF_INIT, again = ND_BUF_INIT;
    nd_term_escape(&out, s, n, flags);
    check(out.data, out.len, flags);
    FZ_ASSERT(nd_term_is_safe(out.data, out.len, flags));
    FZ_ASSERT(nd_term_is_safe(s, n, flags) == (out.len == n && !memcmp(out.data, s, n)));
    nd_term_escape(&again, out.data, out.len, flags);
    FZ_ASSERT(again.len == out.len && !memcmp(again.data, out.data, out.len));
    json_t *doc = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (doc) {
        json_t *safe = nd_term_safe_json(doc, flags);
        walk(safe, flags);
        json_decref(safe);
        json_decref(doc);
    }
    nd_buf_release(&out);
    nd_buf_release(&again);
    return 0;
}
