/* yaml.h: the libyaml <-> jansson bridge.
 *
 * Loading turns a YAML stream into JSON values, typing plain scalars the way
 * go-yaml v3 / sigs.k8s.io/yaml do under the YAML 1.2 core schema:
 *
 *   null, Null, NULL, ~, (empty)          -> null
 *   true/True/TRUE, false/False/FALSE     -> boolean (yes/no/on/off stay strings)
 *   12, -3, 0x1F, 0o17, 0b101, 1_000      -> integer (underscores are dropped and a
 *                                            leading 0 means octal, 0644 = 420, as go-yaml)
 *   1.5, -2e3, .5                         -> real
 *   .inf, -.Inf, .nan                     -> error: JSON holds neither
 *   anything else                         -> string
 *
 * Quoted and block scalars are strings. Tags !!str, !!int, !!float, !!bool, !!null,
 * !!timestamp (a string), !!map, !!seq and the non-specific "!" are honoured; other
 * tags (!!binary, local !tags) are errors. An integer outside int64 is an error (it
 * never silently becomes a real). Mapping keys must be scalars and become strings with
 * their text as written (a key `1` is "1"); a key repeated in one mapping is an error.
 * Anchors, aliases and merge keys (`<<: *base`, `<<: [*a, *b]`) are supported; an alias
 * is expanded as a deep copy, within the limits below (they stop "billion laughs").
 *
 * Errors are BadRequest with the position: "job.yaml:3:5: mapping values are not
 * allowed in this context" (1-based line:column). `source` is the file name shown in
 * front ("-" shows as "<stdin>"); when NULL, messages start "line 3, column 5: ".
 * Numbers are read and written in the "C" locale's format (nodus never calls
 * setlocale for LC_NUMERIC).
 *
 * Dumping writes YAML as `kubectl get -o yaml` does (go-yaml v2 through libyaml's
 * emitter): block style, 2-space indent, sequences under a key not indented, `{}` and
 * `[]` inline, strings quoted only when a plain scalar would read back as another type
 * ("true", "yes", "1", "", "2024-01-01" ... double-quoted) or could not be plain
 * (' x', 'a: b', '#x' ... single-quoted; control characters double-quoted with escapes),
 * multi-line strings as literal blocks (`|`, `|-`, `|+`), lines folded near 80 columns.
 */
#ifndef ND_YAML_H
#define ND_YAML_H

#include <jansson.h>
#include <stddef.h>

#include "json/json.h"
#include "util/buf.h"
#include "util/status.h"

/* Collections nested deeper than this fail (a scalar is depth 0, `[]` depth 1). */
#define ND_YAML_MAX_DEPTH 100
/* Nodes one document may expand to, counting every alias expansion. */
#define ND_YAML_MAX_NODES 1000000
/* Nodes that alias expansion alone may add to one document. */
#define ND_YAML_MAX_ALIAS_NODES 100000
/* And a whole stream is held to a struct nd_load_limits (json.h): the bytes of every
 * scalar and key, an alias's copy counted again before it is made, and the nodes. The
 * functions below apply nd_load_file_limits; nd_yaml_load_limited takes others. */

/* Every document of a YAML stream. Returns a NEW array with one element per document;
 * empty documents (nothing, or only comments, between `---` separators) are skipped,
 * so a stream of only comments gives []. An explicit `null` or `~` document is kept as
 * JSON null. On error returns NULL and fills st (BadRequest). */
json_t *nd_yaml_load_all(const char *data, size_t len, const char *source, struct nd_status *st);

/* The same, and when lines is not NULL sets *lines to a NEW array holding, for each
 * returned document, the 1-based line where its content starts (after any `---` and
 * comments; for messages about a document). *lines is NULL on error. */
json_t *nd_yaml_load_all_lines(const char *data, size_t len, const char *source, json_t **lines,
                               struct nd_status *st);

/* Separates the segments of a path in the fields of nd_yaml_load_all_fields. */
#define ND_YAML_PATH_SEP '\x1f'

/* The same, and when fields is not NULL sets *fields to a NEW array holding, for each
 * returned document, an object mapping the path of each mapping key and sequence item
 * (segments, keys or item indexes, joined with ND_YAML_PATH_SEP: "spec\x1fenv\x1f0") to
 * the 1-based line where it is written. Keys merged in with `<<` and the inside of an
 * alias's copy have no line of their own. *fields is NULL on error. */
json_t *nd_yaml_load_all_fields(const char *data, size_t len, const char *source, json_t **lines,
                                json_t **fields, struct nd_status *st);

/* Exactly one document: NEW reference, or NULL with st filled (BadRequest) when the
 * stream is malformed, holds no document or holds more than one. */
json_t *nd_yaml_load(const char *data, size_t len, const char *source, struct nd_status *st);

/* nd_yaml_load within lim (a request's body in the emulator). */
json_t *nd_yaml_load_limited(const char *data, size_t len, const char *source,
                             const struct nd_load_limits *lim, struct nd_status *st);

/* Flags of nd_yaml_dump_flags. */
enum {
    /* Order mapping keys as go-yaml's Marshal of a map does (what kubectl prints):
     * character by character, non-letters before letters, runs of digits compared as
     * numbers ("a2" < "a10"). That order is not transitive for some keys ("v1beta1",
     * "v10", "v2"; "1", "08", "0x"), and kubectl's output for those varies from run to
     * run; ours is stable. Without the flag keys keep their insertion order. */
    ND_YAML_SORT_KEYS = 1,
};

/* Appends v as one YAML document (no leading `---`; ends with a newline) to out, keys
 * in insertion order (kubectl -o yaml is nd_yaml_dump_flags with ND_YAML_SORT_KEYS).
 * Returns 0, or -1 with st filled (InternalError) when out is capped and full or v
 * holds something YAML cannot carry; out is then left as it was. */
int nd_yaml_dump(const json_t *v, struct nd_buf *out, struct nd_status *st);
int nd_yaml_dump_flags(const json_t *v, struct nd_buf *out, int flags, struct nd_status *st);

/* Appends every element of the array as its own document, separated by "---\n" as
 * kubectl prints several objects (nothing for an empty array). Returns 0 or -1. */
int nd_yaml_dump_all(const json_t *array, struct nd_buf *out, int flags, struct nd_status *st);

#endif
