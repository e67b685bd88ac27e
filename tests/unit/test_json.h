/* test_json.h: JSON for the unit tests' tables. Include after cmocka.h and jansson. */
#ifndef ND_TEST_JSON_H
#define ND_TEST_JSON_H

#include <jansson.h>
#include <stdlib.h>

#include "util/xmalloc.h"

/* Parses JSON written with ' for " (tables stay readable); fails the test when it is not
 * JSON. NEW; NULL for NULL. */
static inline json_t *J(const char *text)
{
    if (!text)
        return NULL;
    char *s = nd_xstrdup(text);
    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    json_error_t err;
    json_t *j = json_loads(s, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
    if (!j)
        fail_msg("bad test JSON %s: %s (column %d)", s, err.text, err.column);
    free(s);
    return j;
}

/* Canonical text of a value: compact, sorted keys. NEW (free it). */
static inline char *canon(const json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

#endif
