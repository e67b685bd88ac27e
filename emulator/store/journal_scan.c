/* The start's reader of journal lines as the store writes them, without a tree; see
 * journal_scan.h. */
#include "journal_scan.h"

#include <stdio.h>
#include <string.h>

#include "util/quote.h"

/* The deepest nesting it follows, and the most members an object may have for it to
 * find duplicate names (beyond either, jansson decides). */
#define SCAN_DEPTH 64
#define SCAN_KEYS 64

struct span {
    const char *p;
    size_t len;
};

/* What a scan of one object keeps of metadata: the string values of three members. */
struct meta {
    struct span name, ns, rv;
    bool name_str, ns_str, rv_str;
};

struct scan {
    const char *p, *end;
};

static bool lit(struct scan *s, const char *w, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
        return false;
    s->p += n;
    return true;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* An escape (at its backslash) jansson takes to the same character: the short ones, and
 * \u of a character that is neither NUL nor half of a surrogate pair. */
static bool escape(struct scan *s)
{
    if (s->end - s->p < 2)
        return false;
    char c = s->p[1];
    if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
        c == 't') {
        s->p += 2;
        return true;
    }
    if (c != 'u' || s->end - s->p < 6)
        return false;
    int v = 0;
    for (int i = 2; i < 6; i++) {
        int h = hex(s->p[i]);
        if (h < 0)
            return false;
        v = v * 16 + h;
    }
    if (v == 0 || (v >= 0xd800 && v <= 0xdfff))
        return false;
    s->p += 6;
    return true;
}

/* A string (at its opening quote) of well-formed UTF-8 with no control byte, and the
 * escapes escape() takes. *plain: it had no escape. */
static bool string(struct scan *s, struct span *out, bool *plain)
{
    if (s->p == s->end || *s->p != '"')
        return false;
    const char *start = ++s->p;
    bool esc = false;
    while (s->p < s->end) {
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            if (out)
                *out = (struct span){start, (size_t)(s->p - start)};
            if (plain)
                *plain = !esc;
            s->p++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (!escape(s))
                return false;
            esc = true;
        } else if (c >= 0x80) {
            size_t n = nd_utf8_seq_len((const unsigned char *)s->p, (size_t)(s->end - s->p));
            if (!n)
                return false;
            s->p += n;
        } else {
            s->p++;
        }
    }
    return false;
}

/* An integer jansson holds exactly (at most 18 digits, no fraction, no exponent). */
static bool integer(struct scan *s)
{
    if (s->p < s->end && *s->p == '-')
        s->p++;
    const char *d = s->p;
    if (s->p == s->end || *s->p < '0' || *s->p > '9')
        return false;
    if (*s->p == '0')
        s->p++;
    else
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    if (s->p - d > 18)
        return false;
    return s->p == s->end || (*s->p != '.' && *s->p != 'e' && *s->p != 'E' &&
                              !(*s->p >= '0' && *s->p <= '9'));
}

static bool value(struct scan *s, int depth, struct meta *m);

static bool key_is(struct span k, const char *w)
{
    return k.len == strlen(w) && memcmp(k.p, w, k.len) == 0;
}

/* An object (at its brace) with no member named twice; m: keep these members' strings. */
static bool object(struct scan *s, int depth, struct meta *m, struct meta *meta_of_member)
{
    struct span keys[SCAN_KEYS];
    size_t n = 0;
    s->p++;
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return true;
    }
    for (;;) {
        struct span k;
        bool plain;
        if (n == SCAN_KEYS || !string(s, &k, &plain) || !plain || !lit(s, ":", 1))
            return false;
        for (size_t i = 0; i < n; i++) {
            if (keys[i].len == k.len && memcmp(keys[i].p, k.p, k.len) == 0)
                return false;
        }
        keys[n++] = k;
        if (m && s->p < s->end && *s->p == '"') {
            struct span v;
            bool vplain;
            if (!string(s, &v, &vplain))
                return false;
            /* an escape in what is kept: jansson unescapes it */
            if (!vplain && (key_is(k, "name") || key_is(k, "namespace") ||
                            key_is(k, "resourceVersion")))
                return false;
            if (key_is(k, "name"))
                m->name = v, m->name_str = true;
            else if (key_is(k, "namespace"))
                m->ns = v, m->ns_str = true;
            else if (key_is(k, "resourceVersion"))
                m->rv = v, m->rv_str = true;
        } else if (meta_of_member && key_is(k, "metadata") && s->p < s->end && *s->p == '{') {
            if (!object(s, depth + 1, meta_of_member, NULL))
                return false;
        } else if (!value(s, depth + 1, NULL)) {
            return false;
        }
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        return lit(s, "}", 1);
    }
}

static bool value(struct scan *s, int depth, struct meta *m)
{
    if (s->p == s->end || depth > SCAN_DEPTH)
        return false;
    switch (*s->p) {
    case '{':
        return object(s, depth, NULL, m);
    case '[':
        s->p++;
        if (s->p < s->end && *s->p == ']') {
            s->p++;
            return true;
        }
        for (;;) {
            if (!value(s, depth + 1, NULL))
                return false;
            if (s->p < s->end && *s->p == ',') {
                s->p++;
                continue;
            }
            return lit(s, "]", 1);
        }
    case '"':
        return string(s, NULL, NULL);
    case 't':
        return lit(s, "true", 4);
    case 'f':
        return lit(s, "false", 5);
    case 'n':
        return lit(s, "null", 4);
    default:
        return integer(s);
    }
}

/* A member's integer value written as %lld does: *v, true. */
static bool head_int(struct scan *s, const char *name, bool first, int64_t *v)
{
    char want[32];
    int n = snprintf(want, sizeof want, "%s\"%s\":", first ? "{" : ",", name);
    if (!lit(s, want, (size_t)n))
        return false;
    const char *d = s->p;
    if (!integer(s))
        return false;
    /* no "-0": %lld never writes it */
    if (d[0] == '-' && d[1] == '0')
        return false;
    int64_t x = 0;
    for (const char *q = *d == '-' ? d + 1 : d; q < s->p; q++)
        x = x * 10 + (*q - '0');
    *v = *d == '-' ? -x : x;
    return true;
}

/* A member's string of these characters only (what the store writes in the head). */
static bool head_word(struct scan *s, const char *name, const char *chars, struct span *out)
{
    char want[32];
    int n = snprintf(want, sizeof want, ",\"%s\":", name);
    bool plain;
    if (!lit(s, want, (size_t)n) || !string(s, out, &plain) || !plain || !out->len)
        return false;
    for (size_t i = 0; i < out->len; i++) {
        if (!strchr(chars, out->p[i]))
            return false;
    }
    return true;
}

int em_journal_scan_line(const char *line, size_t len, struct em_journal_scan *out)
{
    memset(out, 0, sizeof *out);
    struct scan s = {line, line + len};
    int64_t applied;
    if (head_int(&s, "wall", true, &out->wall)) {
        return head_int(&s, "applied", false, &applied) && lit(&s, "}", 1) && s.p == s.end &&
                       (out->applied = applied, true)
                   ? EM_SCAN_MARKER
                   : EM_SCAN_UNSURE;
    }
    s.p = line;
    struct span type, plural;
    if (!head_int(&s, "rev", true, &out->rev) || out->rev <= 0 ||
        !head_int(&s, "time", false, &out->time_ms) ||
        !head_word(&s, "type", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", &type) ||
        !head_word(&s, "plural", "abcdefghijklmnopqrstuvwxyz0123456789-.", &plural) ||
        !lit(&s, ",\"object\":", 10) || s.p == s.end || *s.p != '{')
        return EM_SCAN_UNSURE;
    const char *obj = s.p;
    struct meta m = {0};
    if (!object(&s, 1, NULL, &m) || s.p + 1 != s.end || *s.p != '}')
        return EM_SCAN_UNSURE;
    if (type.len >= sizeof out->type || plural.len >= sizeof out->plural)
        return EM_SCAN_UNSURE;
    memcpy(out->type, type.p, type.len);
    memcpy(out->plural, plural.p, plural.len);
    out->object = obj;
    out->object_len = (size_t)(s.p - obj);
    out->name.p = m.name.p, out->name.len = m.name.len;
    out->ns.p = m.ns.p, out->ns.len = m.ns.len;
    out->rv.p = m.rv.p, out->rv.len = m.rv.len;
    out->has_ns = m.ns_str;
    out->has_name = m.name_str;
    out->has_rv = m.rv_str;
    return EM_SCAN_RECORD;
}
