/* select.c: a request's label and field selectors together, and the one rule on empty
 * values both parsers apply (selector.h). */
#include <stdlib.h>
#include <string.h>

#include "selector/internal.h"
#include "selector/selector.h"

enum sel_empty sel_empty_rule(bool negated, const char *const *values, size_t n,
                              enum nd_select_use use)
{
    if (negated && n == 1 && !*values[0])
        return SEL_EMPTY_ALL;
    for (size_t i = 0; use == ND_SELECT_WRITE && i < n; i++)
        if (!*values[i])
            return SEL_EMPTY_WRITE;
    return SEL_EMPTY_OK;
}

const char *sel_empty_why(enum sel_empty rule)
{
    return rule == SEL_EMPTY_ALL
               ? "has no value: 'not empty' selects (nearly) every object, which is what a "
                 "script's empty variable would ask"
               : "has an empty value, refused in a collection write: a missing field or "
                 "label reads as empty, so a script's empty variable would choose what is "
                 "deleted";
}

const char *sel_empty_fix(enum sel_empty rule)
{
    return rule == SEL_EMPTY_ALL
               ? "give the term a value (status.phase!=Failed, app!=web); to select objects "
                 "without a label, write !app"
               : "give every term a value; to delete every object, send no selector "
                 "(nodus delete KIND --all)";
}

int nd_select_parse(struct nd_select *out, const char *labels, const char *fields,
                    const char *const *allowed_fields, enum nd_select_use use,
                    struct nd_status *st)
{
    memset(out, 0, sizeof *out);
    if (labels && *labels && !(out->labels = sel_parse_labels(labels, use, st)))
        return -1;
    if (fields && *fields && !(out->fields = sel_parse_fields(fields, allowed_fields, use, st))) {
        nd_select_release(out);
        return -1;
    }
    return 0;
}

bool nd_select_matches(const struct nd_select *s, const json_t *obj)
{
    if (s->labels &&
        !nd_selector_matches(s->labels, json_object_get(json_object_get(obj, "metadata"),
                                                        "labels")))
        return false;
    return !s->fields || nd_field_selector_matches(s->fields, obj);
}

bool nd_select_everything(const struct nd_select *s)
{
    return !s->labels && !s->fields;
}

void nd_select_release(struct nd_select *s)
{
    nd_selector_free(s->labels);
    nd_field_selector_free(s->fields);
    memset(s, 0, sizeof *s);
}
