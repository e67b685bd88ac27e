/* internal.h: the JSONPath syntax tree, values and helpers shared by lexer.c, parser.c,
 * eval.c, print.c and jsonpath.c; not part of libnodus' API. */
#ifndef ND_JSONPATH_INTERNAL_H
#define ND_JSONPATH_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* ---- syntax tree (client-go's node types) ---- */

enum jp_kind {
    JP_LIST,      /* kids: a sequence evaluated left to right */
    JP_TEXT,      /* text, text_len */
    JP_FIELD,     /* text: the key */
    JP_ARRAY,     /* params: [start:end:step] */
    JP_FILTER,    /* kids[0] left list, kids[1] right list, text: operator or "exists" */
    JP_INT,       /* ival */
    JP_FLOAT,     /* fval */
    JP_BOOL,      /* bval */
    JP_WILDCARD,  /* .* */
    JP_RECURSIVE, /* .. */
    JP_UNION,     /* kids: one list per alternative */
    JP_IDENT,     /* text: range, end, or an unknown word */
};

struct jp_param {
    long long value;
    bool known, derived;
};

struct jp_node {
    enum jp_kind kind;
    char *text;
    size_t text_len;
    long long ival;
    double fval;
    bool bval;
    struct jp_param params[3];
    struct jp_node **kids;
    size_t nkids;
};

struct nd_jsonpath {
    struct jp_node *root; /* a list of JP_TEXT and JP_LIST (one per action) */
};

struct jp_node *jp_node_new(enum jp_kind kind);
void jp_node_add(struct jp_node *list, struct jp_node *kid);
void jp_node_free(struct jp_node *n);

/* Parses a template; on error returns NULL and fills err with client-go's message and
 * *err_pos with the byte offset to report. */
struct jp_node *jp_parse(const char *in, size_t len, struct nd_buf *err, size_t *err_pos);

/* ---- lexer helpers ---- */

#define JP_EOF (-1L)

/* Decodes the rune at s[0..n) (n > 0); invalid bytes give U+FFFD and width 1. */
long jp_decode(const char *s, size_t n, size_t *width);
bool jp_is_alnum(long r); /* '_', letters, digits (unicode.IsLetter/IsDigit) */
bool jp_is_digit(long r); /* unicode.IsDigit */
bool jp_is_terminator(long r);
/* Appends r as Go's %#U: "U+0021 '!'" or "U+0009" when not printable. */
void jp_add_rune_desc(struct nd_buf *b, long r);
/* client-go's UnquoteExtend: s[0..n) including its quotes to a new string (length in
 * *out_len), or NULL when it is not a valid Go-style quoted string. */
char *jp_unquote(const char *s, size_t n, size_t *out_len);
/* strconv.Atoi / strconv.ParseFloat on what parseNumber scanned. */
bool jp_atoi(const char *s, size_t n, long long *out);
bool jp_parse_float(const char *s, size_t n, double *out);

/* ---- values during evaluation ---- */

/* The Go type a generated value had, where it differs from what its JSON says. */
enum jp_go {
    GO_JSON,  /* whatever unstructured JSON decodes to */
    GO_INT,   /* an integer literal of the template (Go int) */
    GO_UINT8, /* a byte of a string reached by a wildcard (Go uint8) */
};

struct jp_val {
    json_t *j; /* owned reference; NULL is Go's invalid reflect.Value */
    enum jp_go go;
};

struct jp_vlist {
    struct jp_val *v;
    size_t n, cap;
};

/* Runs the template (eval.c): one value list per top-level piece, as client-go's
 * FindResults; -1 with client-go's message appended to err. *lists is new (release each
 * with jp_vlist_release, then free). */
int jp_find(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing,
            struct nd_buf *err, struct jp_vlist **lists, size_t *n);
void jp_vlist_release(struct jp_vlist *l);

/* ---- printing (print.c) ---- */

/* One result as kubectl's PrintResults writes it. */
void jp_print_val(struct nd_buf *b, const struct jp_val *v);
/* Go's %v of a value (j may be NULL: "<invalid reflect.Value>"). */
void jp_print_go(struct nd_buf *b, const json_t *j);
/* The Go type name of a value ("map[string]interface {}", "int64", ...). */
const char *jp_go_type(const struct jp_val *v);

/* Sorted keys of an object (a new array of borrowed key pointers; *n set). */
const char **jp_sorted_keys(const json_t *obj, size_t *n);

#endif
