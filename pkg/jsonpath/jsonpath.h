/* jsonpath.h: kubectl's JSONPath templates (k8s.io/client-go/util/jsonpath).
 *
 * A template is text mixed with `{...}` actions: `{.a.b}`, `{.items[*].metadata.name}`,
 * `{.a['b']}`, `[n]` and negative `[-1]`, slices `[a:b:c]`, unions `[0,2]` and
 * `['a','b']`, recursive descent `..x`, wildcard `.*`, filters
 * `[?(@.x=="y")]` (==, !=, <, <=, >, >=; `[?(@.x)]` tests existence), `{range ...}{end}`,
 * literals `{"\n"}` and `{'x'}`, `{@}` / `{$}` for the current object. There is no escape
 * for `{` in text, exactly as in kubectl, and a template without braces is plain text
 * (`-o jsonpath=.metadata.name` prints ".metadata.name"; only custom-columns and
 * `wait --for=jsonpath` relax expressions, see nd_jsonpath_relaxed).
 *
 * Results print as kubectl prints them: strings raw, integers plain, floats as Go's %v
 * (`1.2345675e+06`), booleans, `null`, maps and lists as compact JSON with sorted keys
 * (Go's json.Marshal, `<` `>` `&` escaped); the results of one action are separated by
 * one space. The quirks of client-go are kept (a dotted key in `['a.b']` is a path, a
 * failed index inside an existence filter counts as a match, ...), map keys are visited
 * in sorted order where Go's order is random.
 *
 * Errors: a `BadRequest` status. Parse errors carry client-go's text followed by
 * " (at character N)" (N counts characters of the template from 1), e.g.
 *   unrecognized character in action: U+0021 '!' (at character 5)
 * Execution errors carry client-go's text alone (`status is not found`, `array index out
 * of bounds: index 5, length 3`). `st` must not be NULL.
 */
#ifndef ND_JSONPATH_H
#define ND_JSONPATH_H

#include <jansson.h>
#include <stdbool.h>

#include "util/buf.h"
#include "util/status.h"

struct nd_jsonpath;

/* The message kubectl gives when nd_jsonpath_relaxed refuses an expression. */
#define ND_JSONPATH_RELAXED_ERROR                                                                  \
    "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "    \
    "'{.name1.name2}'"

/* Parses a template (NULL is taken as ""). New object, or NULL and a BadRequest status. */
struct nd_jsonpath *nd_jsonpath_parse(const char *tmpl, struct nd_status *st);
void nd_jsonpath_free(struct nd_jsonpath *jp);

/* Runs the template on `data` (borrowed) and appends the text kubectl prints to `out`.
 * allow_missing_keys: a missing field gives no result instead of the error
 * `<field> is not found` (kubectl's -o jsonpath and custom-columns allow them).
 * Returns 0, or -1 with a BadRequest status and nothing appended. */
int nd_jsonpath_execute(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing_keys,
                        struct nd_buf *out, struct nd_status *st);

/* Runs the template and returns its results as client-go's FindResults does: a NEW array
 * with one array per top-level piece (each text piece and each `{...}` action, repeated per
 * item inside a range), holding that piece's values. The values are references to the
 * nodes of `data` (json_incref'd, so they stay valid after data is released) or new
 * values for literals. NULL and a BadRequest status on error. */
json_t *nd_jsonpath_eval(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing_keys,
                         struct nd_status *st);

/* client-go's RelaxedJSONPathExpression (custom-columns, wait --for=jsonpath):
 * "metadata.name", ".metadata.name", "{metadata.name}" and "{.metadata.name}" all become
 * "{.metadata.name}"; "" stays "". New string, or NULL when the expression is not of one
 * of those forms (kubectl then says ND_JSONPATH_RELAXED_ERROR). */
char *nd_jsonpath_relaxed(const char *expr);

/* Appends one value as kubectl's jsonpath prints a result (see above). */
void nd_jsonpath_format_value(const json_t *v, struct nd_buf *out);
/* Appends v as Go's json.Marshal would (compact, sorted keys, HTML-safe). */
void nd_jsonpath_format_json(const json_t *v, struct nd_buf *out);
/* Appends v as Go's fmt %v prints it: what custom-columns shows for a value
 * (`map[a:b c:1]`, `[x y]`, `<nil>` for null). */
void nd_jsonpath_format_go(const json_t *v, struct nd_buf *out);

#endif
