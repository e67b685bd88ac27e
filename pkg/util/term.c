/* term.c: see term.h. */
#include "util/term.h"

#include <stdio.h>
#include <string.h>

#include "util/quote.h"
#include "util/xmalloc.h"

/* The escape for the character at s (*len set to its bytes), or NULL when it is kept. */
static const char *escape_at(const unsigned char *s, size_t n, unsigned flags, size_t *len,
                             char tmp[8])
{
    unsigned char c = s[0];
    *len = 1;
    if (c == 0x1b)
        return "^[";
    if (c == '\r')
        return "\\r";
    if ((c == '\n' && (flags & ND_TERM_KEEP_NL)) || (c == '\t' && (flags & ND_TERM_KEEP_TAB)))
        return NULL;
    if (c < 0x20 || c == 0x7f) {
        snprintf(tmp, 8, "\\x%02x", c);
        return tmp;
    }
    if (c < 0x80)
        return NULL;
    size_t l = nd_utf8_seq_len(s, n);
    if (l == 0) {
        snprintf(tmp, 8, "\\x%02x", c);
        return tmp;
    }
    *len = l;
    if (l == 2 && c == 0xc2 && s[1] <= 0x9f) {
        snprintf(tmp, 8, "\\u%04x", (unsigned)s[1]);
        return tmp;
    }
    return NULL;
}

void nd_term_escape(struct nd_buf *out, const char *s, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0, i = 0; /* bytes kept since the last escape start at i - run */
    char tmp[8];
    while (i < n) {
        size_t len;
        const char *e = escape_at(p + i, n - i, flags, &len, tmp);
        if (!e) {
            i += len;
            run += len;
            continue;
        }
        nd_buf_add(out, s + i - run, run);
        nd_buf_adds(out, e);
        run = 0;
        i += len;
    }
    nd_buf_add(out, s + n - run, run);
}

bool nd_term_is_safe(const char *s, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    char tmp[8];
    for (size_t i = 0, len; i < n; i += len)
        if (escape_at(p + i, n - i, flags, &len, tmp))
            return false;
    return true;
}

char *nd_term_safe(const char *s, unsigned flags)
{
    if (!s)
        return NULL;
    struct nd_buf b = ND_BUF_INIT;
    nd_term_escape(&b, s, strlen(s), flags);
    return nd_buf_detach(&b);
}

json_t *nd_term_safe_json(const json_t *v, unsigned flags)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (nd_term_is_safe(s, n, flags))
            return json_incref((json_t *)v);
        struct nd_buf b = ND_BUF_INIT;
        nd_term_escape(&b, s, n, flags);
        json_t *r = json_stringn(b.data, b.len);
        nd_buf_release(&b);
        return r;
    }
    if (json_is_array(v)) {
        json_t *r = json_array();
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) json_array_append_new(r, nd_term_safe_json(item, flags));
        return r;
    }
    if (json_is_object(v)) {
        json_t *r = json_object();
        const char *key;
        json_t *item;
        json_object_foreach((json_t *)v, key, item) {
            char *k = nd_term_safe(key, 0);
            json_object_set_new(r, k, nd_term_safe_json(item, flags));
            free(k);
        }
        return r;
    }
    return json_incref((json_t *)v);
}
