/* suggest.h: "did you mean" for what a user mistyped (verbs, kinds, flags), as cobra
 * suggests commands: a candidate is offered when its Damerau-Levenshtein distance to the
 * typed word is at most ND_SUGGEST_DISTANCE, or when it starts with the typed word, both
 * ignoring case. */
#ifndef ND_UTIL_SUGGEST_H
#define ND_UTIL_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define ND_SUGGEST_DISTANCE 2

/* The optimal-string-alignment distance (insertions, deletions, substitutions and
 * transpositions of two neighbours each count 1), ignoring ASCII case. */
size_t nd_suggest_distance(const char *a, const char *b);
/* True when candidate is worth suggesting for typed (see above; typed not empty). */
bool nd_suggest_matches(const char *typed, const char *candidate);

struct nd_suggest_item {
    const char *word; /* BORROWED from the caller */
    const void *key;  /* what it names: one suggestion per key */
    size_t distance;
    size_t order; /* order of addition, to break ties */
};

struct nd_suggest {
    const char *typed; /* BORROWED */
    size_t max;        /* the largest distance suggested (ND_SUGGEST_DISTANCE) */
    struct nd_suggest_item *v;
    size_t n;
    size_t added;
};

void nd_suggest_init(struct nd_suggest *s, const char *typed);
/* The same, stricter for short words (kinds, flags): a third of typed's length, at least
 * 1 and at most ND_SUGGEST_DISTANCE, so that "frobs" is not taken for "jobs". */
void nd_suggest_init_strict(struct nd_suggest *s, const char *typed);
void nd_suggest_release(struct nd_suggest *s);
/* Considers candidate (BORROWED: it must outlive s). Several candidates with one non-NULL
 * key (a kind's plural, singular and short names) give one suggestion, the closest. A
 * candidate equal to one already kept is ignored. */
void nd_suggest_add(struct nd_suggest *s, const char *candidate, const void *key);
/* The suggestions, closest first, ties in the order they were added. */
size_t nd_suggest_count(const struct nd_suggest *s);
const char *nd_suggest_at(const struct nd_suggest *s, size_t i);
/* Appends the suggestions as prose, each wrapped in before/after: "a", "a or b",
 * "a, b or c". Nothing when there is none. Returns the number appended. */
size_t nd_suggest_join(const struct nd_suggest *s, const char *before, const char *after,
                       struct nd_buf *out);

#endif
