/* selector.h: Kubernetes label selectors and field selectors.
 *
 * Label selectors follow k8s.io/apimachinery/pkg/labels exactly: `a=b`, `a==b`, `a!=b`,
 * `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>5`, `a<5` (integers), requirements joined by
 * commas (AND), whitespace between tokens ignored, the empty selector matches everything.
 * `!=` and `notin` also match objects that lack the key. Keys must be qualified names
 * (`[prefix/]name`) and values label values, as Kubernetes checks them.
 *
 * Field selectors follow k8s.io/apimachinery/pkg/fields: `key=value`, `key==value`,
 * `key!=value` joined by commas; in a value `\,` `\=` and `\\` stand for `,` `=` and `\`
 * (Kubernetes knows no other escape). A missing field reads as "".
 *
 * Empty values (one rule for both kinds, sel_empty_rule in select.c): a negated term whose
 * only value is empty (`a!=`, `a notin (,)`, `status.phase!=`) selects (nearly) every object
 * and is refused wherever it comes; in a collection write (ND_SELECT_WRITE: a DELETE of a
 * collection, the CLI's delete -l/--field-selector) every term with an empty value
 * (`a=`, `a in (x,)`, `status.phase=`) is refused too, since a missing field reads as ""
 * and a script's empty variable must not choose what is deleted. Kubernetes accepts both.
 *
 * Errors: every parse error is a `BadRequest` status whose message is Kubernetes' own text
 * followed by " (at character N)", N counting characters of the input from 1 (one past
 * the end when the input ended too early), e.g.
 *   unable to parse requirement: found '', expected: ',' or ')' (at character 9)
 * A `metav1.LabelSelector` object that fails validation is an `Invalid` status with one
 * cause per field (`matchExpressions[0].operator` ...).
 *
 * `st` must not be NULL in any function taking one.
 */
#ifndef ND_SELECTOR_H
#define ND_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>

#include "util/status.h"

struct nd_selector;
struct nd_field_selector;

/* Bounds on what a selector string may ask (Kubernetes sets none; a server matching
 * every object against it needs some). Past one, parsing fails with a BadRequest naming
 * the limit:
 *   "label selector is 20000 bytes long, more than the limit of 16384"
 *   "found 101 requirements, more than the limit of 100 (at character N)"
 *   "unable to parse requirement: found 101 values in a set, more than the limit of 100
 *    (at character N)"
 *   "field selector has 101 terms, more than the limit of 100" */
#define ND_SELECTOR_MAX_LEN (16 * 1024) /* bytes of a label or field selector string */
#define ND_SELECTOR_MAX_REQS                                                                       \
    100                            /* requirements of a label selector, terms of a                 \
                                      field selector */
#define ND_SELECTOR_MAX_VALUES 100 /* values of one in/notin set */

/* ---- label selectors ---- */

/* What a selector is for: the empty-value rule above is stricter for writes. */
enum nd_select_use {
    ND_SELECT_READ,  /* a list or a watch */
    ND_SELECT_WRITE, /* a collection write: what it selects is deleted */
};

/* Parses a label selector string (NULL is taken as "") for a read. Returns a new selector (free with
 * nd_selector_free), or NULL with a BadRequest status. */
struct nd_selector *nd_selector_parse(const char *s, struct nd_status *st);

/* Builds a selector from a metav1.LabelSelector object ({matchLabels, matchExpressions}
 * with operators In, NotIn, Exists, DoesNotExist). `ls` is borrowed. NULL or JSON null
 * gives a selector that matches nothing (as a nil LabelSelector in Kubernetes); `{}`
 * matches everything. Invalid input: NULL and an `Invalid` status whose causes name each
 * field relative to the selector (`matchExpressions[0].operator`). */
struct nd_selector *nd_selector_from_json(const json_t *ls, struct nd_status *st);
/* The same with field paths prefixed by `path` (e.g. "spec.selector" gives
 * `spec.selector.matchExpressions[0].operator`); path may be NULL or "". */
struct nd_selector *nd_selector_from_json_at(const json_t *ls, const char *path,
                                             struct nd_status *st);

/* True when `labels` (a JSON object of string -> string, borrowed; NULL means no labels)
 * satisfies every requirement. */
bool nd_selector_matches(const struct nd_selector *sel, const json_t *labels);
/* True when the selector does not restrict anything (parsed from "" or `{}`). */
bool nd_selector_empty(const struct nd_selector *sel);
/* Canonical form, as Kubernetes' Selector.String(): requirements sorted by key, values of
 * in/notin sorted, e.g. "app=web,tier in (a,b),!x". New string; "" for the empty and the
 * nothing selector. */
char *nd_selector_string(const struct nd_selector *sel);
/* The value a selector requires for `key` when it pins one (`key=v`, `key==v` or
 * `key in (v)`), as Kubernetes' RequiresExactMatch; NULL otherwise. Borrowed. */
const char *nd_selector_value(const struct nd_selector *sel, const char *key);
void nd_selector_free(struct nd_selector *sel);

/* ---- field selectors ---- */

/* Parses a field selector (NULL is taken as ""). `allowed_fields` is a NULL-terminated list
 * such as {"metadata.name", "metadata.namespace", "status.phase", NULL}; a field outside
 * it fails with `field label not supported: <field>` (its fix lists the allowed labels).
 * An entry "LABEL=PATH" allows LABEL and reads its value at PATH (an Event's `source` is
 * `source.component`; events.k8s.io's `regarding.kind` is the stored
 * `involvedObject.kind`); any other entry is read at its own path. allowed_fields NULL
 * accepts any field. Returns a new selector, or NULL with a BadRequest status. */
struct nd_field_selector *nd_field_selector_parse(const char *s, const char *const *allowed_fields,
                                                  struct nd_status *st);
/* True when every requirement holds for `obj` (borrowed): each field is a dotted path
 * into the object; a missing field or null reads as "", numbers and booleans as their
 * JSON text. */
bool nd_field_selector_matches(const struct nd_field_selector *fs, const json_t *obj);
/* The value an equality requirement (`=` or `==`) pins `field` to, so a server can look
 * `metadata.name=x` up directly. Borrowed; NULL when there is none. */
const char *nd_field_selector_value(const struct nd_field_selector *fs, const char *field);
/* True when the selector has no requirement. */
bool nd_field_selector_empty(const struct nd_field_selector *fs);
/* Canonical form: terms sorted, values escaped, e.g. "metadata.name=a\,b,status.phase!=X".
 * New string. */
char *nd_field_selector_string(const struct nd_field_selector *fs);
void nd_field_selector_free(struct nd_field_selector *fs);

/* ---- one request's selectors ---- */

/* A request's label and field selectors together (?labelSelector= and ?fieldSelector=,
 * or the CLI's -l and --field-selector); a NULL member was not given. */
struct nd_select {
    struct nd_selector *labels;
    struct nd_field_selector *fields;
};

/* Parses both (NULL or "" for one not given) with the rules of `use`; allowed_fields as
 * for nd_field_selector_parse. 0, or -1 with a BadRequest status and *out empty. */
int nd_select_parse(struct nd_select *out, const char *labels, const char *fields,
                    const char *const *allowed_fields, enum nd_select_use use,
                    struct nd_status *st);
/* True when obj (borrowed) satisfies both. */
bool nd_select_matches(const struct nd_select *s, const json_t *obj);
/* True when neither restricts anything. */
bool nd_select_everything(const struct nd_select *s);
void nd_select_release(struct nd_select *s);

#endif
