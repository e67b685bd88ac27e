/* "Did you mean": see suggest.h. */
#include "util/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

static int lower(char c)
{
    return tolower((unsigned char)c);
}

size_t nd_suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    /* three rows: i-2, i-1, i */
    size_t *rows = nd_xcalloc(3 * (m + 1), sizeof *rows);
    size_t *pp = rows, *p = rows + (m + 1), *c = rows + 2 * (m + 1);
    for (size_t j = 0; j <= m; j++)
        p[j] = j;
    for (size_t i = 1; i <= n; i++) {
        c[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            size_t d = p[j] + 1;
            if (c[j - 1] + 1 < d)
                d = c[j - 1] + 1;
            if (p[j - 1] + cost < d)
                d = p[j - 1] + cost;
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]) && pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1;
            c[j] = d;
        }
        size_t *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    size_t d = p[m];
    free(rows);
    return d;
}

static bool has_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (!*s || lower(*s) != lower(*prefix))
            return false;
    return true;
}

bool nd_suggest_matches(const char *typed, const char *candidate)
{
    if (!typed || !*typed || !candidate || !*candidate)
        return false;
    return has_prefix(candidate, typed) ||
           nd_suggest_distance(typed, candidate) <= ND_SUGGEST_DISTANCE;
}

void nd_suggest_init(struct nd_suggest *s, const char *typed)
{
    memset(s, 0, sizeof *s);
    s->typed = typed;
    s->max = ND_SUGGEST_DISTANCE;
}

void nd_suggest_init_strict(struct nd_suggest *s, const char *typed)
{
    nd_suggest_init(s, typed);
    size_t third = strlen(typed) / 3;
    s->max = third < 1 ? 1 : third > ND_SUGGEST_DISTANCE ? ND_SUGGEST_DISTANCE : third;
}

void nd_suggest_release(struct nd_suggest *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static bool before(const struct nd_suggest_item *a, const struct nd_suggest_item *b)
{
    return a->distance < b->distance || (a->distance == b->distance && a->order < b->order);
}

void nd_suggest_add(struct nd_suggest *s, const char *candidate, const void *key)
{
    size_t order = s->added++;
    if (!s->typed || !*s->typed || !candidate || !*candidate)
        return;
    if (!has_prefix(candidate, s->typed) && nd_suggest_distance(s->typed, candidate) > s->max)
        return;
    struct nd_suggest_item it = {candidate, key, nd_suggest_distance(s->typed, candidate), order};
    for (size_t i = 0; i < s->n; i++) {
        if (!strcmp(s->v[i].word, candidate))
            return;
        if (key && s->v[i].key == key) {
            if (before(&it, &s->v[i])) {
                it.order = s->v[i].order; /* the kind keeps its place */
                memmove(s->v + i, s->v + i + 1, (s->n - i - 1) * sizeof *s->v);
                s->n--;
                break;
            }
            return;
        }
    }
    size_t at = s->n;
    while (at > 0 && before(&it, &s->v[at - 1]))
        at--;
    s->v = nd_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof *s->v);
    s->v[at] = it;
    s->n++;
}

size_t nd_suggest_count(const struct nd_suggest *s)
{
    return s->n;
}

const char *nd_suggest_at(const struct nd_suggest *s, size_t i)
{
    return i < s->n ? s->v[i].word : NULL;
}

size_t nd_suggest_join(const struct nd_suggest *s, const char *before_w, const char *after_w,
                       struct nd_buf *out)
{
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            nd_buf_adds(out, i + 1 == s->n ? " or " : ", ");
        nd_buf_addf(out, "%s%s%s", before_w ? before_w : "", s->v[i].word, after_w ? after_w : "");
    }
    return s->n;
}
