/* json.h: JSON in and out with kubectl's conventions, and the manifest loader.
 *
 * Reading refuses duplicate keys, NUL characters in strings and nesting deeper than
 * ND_JSON_MAX_DEPTH; errors are BadRequest with "source:line:column: message" (1-based;
 * "-" shows as "<stdin>", a NULL source as "line L, column C: ").
 *
 * Writing keeps key order (or sorts it), never escapes '/', keeps UTF-8 as is, and
 * prints numbers as Go's encoding/json does, which is what kubectl prints: integers as
 * they are, reals in their shortest form that reads back equal, so a real 100.0 prints
 * as 100 (and reads back as an integer), 1.5e-7 as 1.5e-7, 1e21 as 1e+21.
 */
#ifndef ND_JSON_H
#define ND_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/status.h"

/* Collections nested deeper than this are refused (a scalar is depth 0, `[]` depth 1). */
#define ND_JSON_MAX_DEPTH 100

/* One JSON value of any type, alone in the text (white space around it is fine). NEW
 * reference, or NULL with st filled (BadRequest). No bound but the depth: for answers
 * the CLI reads (a list may be large); what a client sends is read with
 * nd_json_load_limited. */
json_t *nd_json_load(const char *data, size_t len, const char *source, struct nd_status *st);

/* What one text (a stream of documents) may expand to once loaded, decided before the
 * memory is spent. bytes: every scalar and key as written, a YAML alias's copy counted
 * again; the YAML loader also holds it to ND_LOAD_EXPANSION times the text's length
 * (at least ND_LOAD_FLOOR_BYTES), so a 1 MB scalar aliased a thousand times is refused
 * after the 8th copy. nodes: values and keys, copies counted again (JSON: counted in
 * one pass over the text before jansson builds anything). Past either, the load fails
 * with RequestEntityTooLarge (413) and the position where the text went over. */
struct nd_load_limits {
    size_t bytes;
    size_t nodes;
};
#define ND_LOAD_EXPANSION 8
#define ND_LOAD_FLOOR_BYTES ((size_t)1 << 20)
/* The limits of the files the CLI reads (-f, --seed, kubeconfig): 64 MiB, 4,000,000
 * nodes; what nd_yaml_load* and nd_manifest_load* apply. */
extern const struct nd_load_limits nd_load_file_limits;

/* nd_json_load within lim. */
json_t *nd_json_load_limited(const char *data, size_t len, const char *source,
                             const struct nd_load_limits *lim, struct nd_status *st);

/* A stream of JSON objects or arrays one after another ("{...} {...}", as kubectl
 * reads a JSON file), within nd_load_file_limits. Returns a NEW array of them (empty for blank input), or NULL with
 * st filled. When lines is not NULL, *lines is a NEW array of the 1-based line where
 * each value starts (NULL on error). */
json_t *nd_json_load_stream(const char *data, size_t len, const char *source, json_t **lines,
                            struct nd_status *st);

/* Flags of nd_json_dump. */
enum {
    ND_JSON_COMPACT = 0,     /* {"a":1,"b":[1,2]} as json.Marshal */
    ND_JSON_PRETTY = 1,      /* 4-space indent, "key": value, as kubectl -o json */
    ND_JSON_SORT_KEYS = 2,   /* keys in byte order, as Go marshals a map (kubectl) */
    ND_JSON_ESCAPE_HTML = 4, /* <, >, & and U+2028/U+2029 as \u003c ... like Go's
                                encoding/json (byte-for-byte kubectl output) */
};

/* Appends v to out (no trailing newline). kubectl -o json is
 * ND_JSON_PRETTY | ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML and a newline. Returns 0, or -1 when v holds a real that is
 * not finite or out is capped and full. */
int nd_json_dump(const json_t *v, struct nd_buf *out, int flags);

/* Appends the n bytes of s (UTF-8, no NUL) as a JSON string, escaped as nd_json_dump
 * escapes with flags (ND_JSON_ESCAPE_HTML). */
void nd_json_add_string(struct nd_buf *out, const char *s, size_t n, int flags);

/* Reformatting JSON text without building a tree (json_pretty.c): what nd_json_dump
 * writes of the value nd_json_load reads from the same text, made from the bytes.
 * A span of the text: */
struct nd_json_span {
    const char *p;
    size_t n;
};
/* A member of an object: its key (as written, between the quotes; escaped says it holds
 * a backslash) and its value (the text of it). */
struct nd_json_member {
    struct nd_json_span key, val;
    int escaped;
};
/* What nd_json_reformat does. */
struct nd_json_reformat {
    int flags;          /* nd_json_dump's */
    int level;          /* the indent level the value starts at (ND_JSON_PRETTY) */
    int max_depth;      /* nesting allowed inside the value (a scalar 0, [] 1) */
    const char *drop[2]; /* when both set: leave out member drop[1] of the object in
                          * member drop[0] of the value (metadata.managedFields) */
    int each;            /* when the value is an array, drop applies to each element */
};
/* Appends the value in text (white space around it is fine) as nd_json_dump(o->flags)
 * writes what nd_json_load reads of it, at indent level o->level. Returns 0, or -1 with
 * nothing appended when the text is not JSON or holds what this does not do alone: a
 * key with an escape, duplicate keys, nesting past o->max_depth, out capped and full.
 * A caller falls back on nd_json_load and nd_json_dump, which then say what is wrong.
 * Any text it takes, it writes byte for byte as they do (tests/fuzz/fuzz_reformat.c). */
int nd_json_reformat(const char *text, size_t len, const struct nd_json_reformat *o,
                     struct nd_buf *out);
/* The members of the object in text (white space around it is fine), in the order
 * written, into *members (NEW: free it), *n of them; values are checked only for their
 * extent (read them with nd_json_reformat or nd_json_load). -1 when text is not one
 * object as far as that shows. */
int nd_json_object_members(const char *text, size_t len, struct nd_json_member **members,
                           size_t *n);

/* The string whose opening quote is at p (before end): *s its bytes between the quotes,
 * *escaped whether one is a backslash (the escapes are jansson's to check). Returns the
 * byte after its closing quote, or NULL when it is unterminated or holds a control byte
 * or bytes that are not UTF-8 (what jansson refuses). */
const char *nd_json_scan_string(const char *p, const char *end, struct nd_json_span *s,
                                int *escaped);
/* Past the value at p by its extent alone (what it holds is not checked; containers in
 * it count from depth, NULL past ND_JSON_MAX_DEPTH or when it does not end before end). */
const char *nd_json_skip_value(const char *p, const char *end, int depth);

/* Nesting depth: 0 for a scalar, 1 for [] or {"a":1}, 2 for [[1]] ... */
size_t nd_json_depth(const json_t *v);

/* Shortest decimal digits that read back as |v| (v finite and not zero): writes them
 * NUL-terminated to digits (at least 18 bytes) and sets *point so that
 * |v| = 0.DIGITS x 10^point (1.5 is "15" with point 1). Returns the number of digits. */
int nd_json_real_digits(double v, char *digits, int *point);

/* Appends v as Go's encoding/json writes a float64. -1 (nothing appended) when v is not
 * finite. */
int nd_json_add_real(struct nd_buf *out, double v);

/* Appends v as Go's strconv.FormatFloat(v, 'g', -1, 64), which go-yaml uses: shortest
 * digits, exponent form below 1e-4 or from 1e6 up (1e-05, 1.5, 123456.5, 1.2345675e+06).
 * -1 when v is not finite. */
int nd_json_add_real_g(struct nd_buf *out, double v);

/* Reads -f input: JSON (a stream of objects when the text starts with '{') or YAML
 * (multi-document). Documents that are null or empty are skipped; a `kind: List` (or
 * any kind ending in "List" with an items array) is replaced by its items, recursively.
 * Returns a NEW array of objects, or NULL with st filled (BadRequest) when the text is
 * malformed or a document or list item is not an object. */
json_t *nd_manifest_load_all(const char *data, size_t len, const char *source,
                             struct nd_status *st);

/* The same, and when where is not NULL sets *where to a NEW array with, for each object
 * returned, {"line": where it starts, "fields": the line of each of its fields (YAML
 * only; see nd_yaml_load_all_fields)}, for nd_manifest_field_line. */
json_t *nd_manifest_load_all_where(const char *data, size_t len, const char *source,
                                   json_t **where, struct nd_status *st);

/* The line of the file where the field at path ("spec.resources.gpu",
 * "spec.env[0].name", "metadata.labels[a/b]") is written, for one element of
 * nd_manifest_load_all_where's *where: its deepest part the file writes, else the line
 * where the object starts. */
size_t nd_manifest_field_line(const json_t *where, const char *path);

/* "an object", "an array", "a string", "a number", "a boolean" or "null": a value's
 * type as messages name it. Static string. */
const char *nd_json_type_phrase(const json_t *v);

/* The strings of a JSON array as a NULL-terminated vector (an argv): NEW, every string
 * too (a member that is not a string is ""); free it with nd_strv_free. */
char **nd_json_strv(const json_t *arr);
/* Frees a vector of nd_json_strv (NULL is fine). */
void nd_strv_free(char **v);
/* The keys of obj sorted by strcmp, *n of them, NULL-terminated (an empty vector when obj
 * is not an object): the vector is NEW (free it), the keys BORROWED from obj. */
const char **nd_json_sorted_keys(const json_t *obj, size_t *n);

#endif
