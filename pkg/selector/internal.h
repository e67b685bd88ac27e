/* internal.h: what the selector files share; not part of libnodus' API. */
#ifndef ND_SELECTOR_INTERNAL_H
#define ND_SELECTOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

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
