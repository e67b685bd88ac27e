/* An object file's text from compact JSON; see pretty.h. */
#include "pretty.h"

#include <string.h>

#include "util/xmalloc.h"

struct out {
    char *p;
    size_t len, cap;
};

static void room(struct out *o, size_t n)
{
    if (o->len + n <= o->cap)
        return;
    while (o->len + n > o->cap)
        o->cap *= 2;
    o->p = nd_xrealloc(o->p, o->cap);
}

static void add(struct out *o, const char *s, size_t n)
{
    room(o, n);
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void newline(struct out *o, int depth)
{
    room(o, 1 + 2 * (size_t)depth);
    o->p[o->len++] = '\n';
    memset(o->p + o->len, ' ', 2 * (size_t)depth);
    o->len += 2 * (size_t)depth;
}

char *em_pretty_from_compact(const char *json, size_t len, size_t *out_len)
{
    struct out o = {NULL, 0, len * 2 + 64};
    o.p = nd_xmalloc(o.cap);
    int depth = 0;
    size_t i = 0;
    while (i < len) {
        char c = json[i];
        if (c == '"') {
            /* a string as it is, escapes and all */
            size_t j = i + 1;
            while (j < len && json[j] != '"')
                j += json[j] == '\\' ? 2 : 1;
            j = j < len ? j + 1 : len;
            add(&o, json + i, j - i);
            i = j;
            continue;
        }
        switch (c) {
        case '{':
        case '[':
            if (i + 1 < len && json[i + 1] == (c == '{' ? '}' : ']')) {
                add(&o, json + i, 2); /* empty: {} or [] */
                i += 2;
                continue;
            }
            add(&o, &c, 1);
            newline(&o, ++depth);
            break;
        case '}':
        case ']':
            newline(&o, depth > 0 ? --depth : 0);
            add(&o, &c, 1);
            break;
        case ',':
            add(&o, ",", 1);
            newline(&o, depth);
            break;
        case ':':
            add(&o, ": ", 2);
            break;
        default:
            add(&o, &c, 1);
        }
        i++;
    }
    room(&o, 2);
    o.p[o.len++] = '\n';
    o.p[o.len] = '\0';
    *out_len = o.len;
    return o.p;
}
