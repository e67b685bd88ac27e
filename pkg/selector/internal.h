/* internal.h: what the selector files share; not part of libnodus' API. */
#ifndef ND_SELECTOR_INTERNAL_H
#define ND_SELECTOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "selector/selector.h"
#include "util/buf.h"

/* Operators of a label requirement, named as k8s.io/apimachinery/pkg/selection. */
enum sel_op {
    SEL_EXISTS,
    SEL_NOT_EXISTS,
    SEL_EQUALS,
    SEL_DOUBLE_EQUALS,
    SEL_NOT_EQUALS,
    SEL_IN,
    SEL_NOT_IN,
    SEL_GT,
    SEL_LT,
};

struct sel_req {
    char *key;
    enum sel_op op;
    char **values;
    size_t nvalues;
};

struct nd_selector {
    bool nothing; /* a nil LabelSelector: matches no object */
    struct sel_req *reqs;
    size_t n;
};

/* The one rule on empty values, for label and field terms alike (selector.h): what a term
 * with operator negated (!=, notin) and these values may not be under `use`. */
enum sel_empty {
    SEL_EMPTY_OK,
    SEL_EMPTY_ALL,   /* negated, its only value empty: selects (nearly) every object */
    SEL_EMPTY_WRITE, /* an empty value in a collection write */
};
enum sel_empty sel_empty_rule(bool negated, const char *const *values, size_t n,
                              enum nd_select_use use);
/* Words for a refused term (after "KEY "), and the fix of its Status. */
const char *sel_empty_why(enum sel_empty rule);
const char *sel_empty_fix(enum sel_empty rule);

/* The parsers behind nd_selector_parse and nd_field_selector_parse, for a use. */
struct nd_selector *sel_parse_labels(const char *s, enum nd_select_use use, struct nd_status *st);
struct nd_field_selector *sel_parse_fields(const char *s, const char *const *allowed_fields,
                                           enum nd_select_use use, struct nd_status *st);

/* Sorts the requirements by key, keeping the order of equal keys (Kubernetes' ByKey). */
void sel_sort_reqs(struct nd_selector *sel);

/* Kubernetes' validation messages (k8s.io/apimachinery/pkg/util/validation). Each fills
 * msgs with up to 4 static strings and returns how many; 0 means valid. */
size_t sel_check_qualified_name(const char *s, const char *msgs[4]);
size_t sel_check_label_value(const char *s, const char *msgs[4]);

/* Appends s quoted as Go's %q does (strconv.Quote). */
void sel_go_quote(struct nd_buf *b, const char *s);
/* Parses s as Go's strconv.ParseInt(s, 10, 64); false when it is not one. */
bool sel_parse_int(const char *s, long long *out);
/* 1-based character (UTF-8 code point) number of byte offset `off` in s. */
int sel_char_pos(const char *s, size_t off);

#endif
