/* yaml_dump.c: JSON values -> YAML as kubectl prints it.
 *
 * kubectl's YAML comes from go-yaml v2, a port of libyaml's emitter, so libyaml's own
 * emitter gives the same layout, quoting fallbacks (plain -> single -> double quoted),
 * literal blocks and line folding. What go-yaml adds on top is decided here: which
 * strings must be quoted because a plain scalar would read back as something else, that
 * multi-line strings ask for a literal block, and how numbers are spelled.
 */
#include "yaml/yaml.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "json/json.h"
#include "util/xmalloc.h"
#include "yaml/scalar.h"

struct dumper {
    yaml_emitter_t em;
    int flags;
    struct nd_status *st;
};

static int write_out(void *data, unsigned char *bytes, size_t size)
{
    return nd_buf_add(data, bytes, size) == 0;
}

static int emit(struct dumper *d, yaml_event_t *ev)
{
    /* the emitter owns the event from here, even when it fails */
    if (yaml_emitter_emit(&d->em, ev))
        return 0;
    if (d->em.error == YAML_WRITER_ERROR)
        return nd_status_set(d->st, "InternalError", NULL,
                             "the YAML output is larger than its buffer allows");
    return nd_status_set(d->st, "InternalError", NULL, "cannot write YAML: %s",
                         d->em.problem ? d->em.problem : "unknown emitter error");
}

static int scalar(struct dumper *d, const char *s, size_t n, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (n > INT_MAX ||
        !yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style))
        return nd_status_set(d->st, "InternalError", NULL, "cannot write a YAML scalar");
    return emit(d, &ev);
}

/* NEL, LS and PS: line breaks to YAML 1.1 (and libyaml), which a reader folds or
 * turns into \n unless they are escaped in double quotes. */
static bool odd_breaks(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i], c1 = (unsigned char)s[i + 1];
        if ((c == 0xC2 && c1 == 0x85) ||
            (c == 0xE2 && c1 == 0x80 && i + 2 < n &&
             ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)))
            return true;
    }
    return false;
}

static int string(struct dumper *d, const char *s, size_t n, bool key)
{
    yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
    if (odd_breaks(s, n))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (memchr(s, '\n', n))
        style = YAML_LITERAL_SCALAR_STYLE; /* the emitter falls back to "..." if it must */
    else if (!nd_yaml_plain_is_string(s, n) || (key && n == 2 && memcmp(s, "<<", 2) == 0))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    return scalar(d, s, n, style);
}

/* A real as kubectl prints it: the value went through encoding/json and back through
 * go-yaml, so an integral value prints as encoding/json spells it (an integer, shortest
 * digits then zeros) and any other in Go's shortest 'g' format (1.5, 1e-07,
 * 1.2345675e+06). Integral values of magnitude 2^63 and up take the 'g' form too
 * (kubectl would print digits that no int64 reader accepts; -2^63 itself prints as
 * -9223372036854776000, outside int64). */
static int real(struct dumper *d, double v)
{
    if (!isfinite(v))
        return nd_status_set(d->st, "InternalError", NULL,
                             "cannot write a number that is not finite");
    struct nd_buf b = ND_BUF_INIT;
    if (v == floor(v) && v > -9223372036854775808.0 && v < 9223372036854775808.0)
        nd_json_add_real(&b, v == 0 ? 0.0 : v); /* encoding/json: 1e17 is 100000000000000000 */
    else
        nd_json_add_real_g(&b, v);
    int rc = scalar(d, b.data, b.len, YAML_PLAIN_SCALAR_STYLE);
    nd_buf_release(&b);
    return rc;
}

static bool letter(uint32_t r)
{
    if (r < 0x80)
        return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
    /* outside ASCII: letters unless in the usual punctuation and symbol blocks */
    return !(r < 0xC0 || (r >= 0x2000 && r <= 0x2BFF) || (r >= 0x3000 && r <= 0x303F) ||
             (r >= 0xFE30 && r <= 0xFE4F) || (r >= 0x1F000 && r <= 0x1FAFF));
}

static bool dgt(uint32_t r)
{
    return r >= '0' && r <= '9';
}

/* Decodes UTF-8 (jansson keys are valid) into code points; returns the count. */
static size_t runes(const char *s, uint32_t *out)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t r = *p;
        int more = r >= 0xF0 ? 3 : r >= 0xE0 ? 2 : r >= 0xC0 ? 1 : 0;
        if (more)
            r &= 0x3Fu >> more;
        p++;
        for (; more > 0 && (*p & 0xC0) == 0x80; more--, p++)
            r = (r << 6) | (*p & 0x3F);
        out[n++] = r;
    }
    return n;
}

/* go-yaml v2's order of map keys: rune by rune; letters sort after other characters;
 * digit runs compare as numbers ("a2" < "a10"). Returns <0, 0, >0. */
static int key_cmp(const char *sa, const char *sb)
{
    uint32_t *a = nd_xmalloc((strlen(sa) + 1) * sizeof *a);
    uint32_t *b = nd_xmalloc((strlen(sb) + 1) * sizeof *b);
    size_t na = runes(sa, a), nb = runes(sb, b);
    int rc = na < nb ? -1 : na > nb ? 1 : 0;
    for (size_t i = 0; i < na && i < nb; i++) {
        if (a[i] == b[i])
            continue;
        bool al = letter(a[i]), bl = letter(b[i]);
        if (al && bl) {
            rc = a[i] < b[i] ? -1 : 1;
        } else if (al || bl) {
            rc = bl ? -1 : 1;
        } else {
            uint64_t an = 0, bn = 0;
            if (a[i] == '0' || b[i] == '0')
                for (size_t j = i; j-- > 0 && dgt(a[j]);)
                    if (a[j] != '0') {
                        an = bn = 1;
                        break;
                    }
            size_t ai = i, bi = i;
            for (; ai < na && dgt(a[ai]); ai++)
                an = an * 10 + (a[ai] - '0');
            for (; bi < nb && dgt(b[bi]); bi++)
                bn = bn * 10 + (b[bi] - '0');
            if (an != bn)
                rc = an < bn ? -1 : 1;
            else if (ai != bi)
                rc = ai < bi ? -1 : 1;
            else
                rc = a[i] < b[i] ? -1 : 1;
        }
        break;
    }
    free(a);
    free(b);
    return rc;
}

/* A merge sort: go-yaml's order is not transitive for some keys ("1" < "08" < "0x" <
 * "1"; kubectl's own output then varies from run to run), and qsort may misbehave with
 * such a comparison. This one only ever reads inside the array. */
static void sort_keys(const char **keys, size_t n)
{
    if (n < 2)
        return;
    const char **tmp = nd_xmalloc(n * sizeof *tmp);
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = key_cmp(keys[j], keys[i]) < 0 ? keys[j++] : keys[i++];
            while (i < mid)
                tmp[k++] = keys[i++];
            while (j < hi)
                tmp[k++] = keys[j++];
        }
        memcpy(keys, tmp, n * sizeof *keys);
    }
    free(tmp);
}

static int node(struct dumper *d, const json_t *v);

static int mapping(struct dumper *d, const json_t *v)
{
    yaml_event_t ev;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    if (emit(d, &ev) < 0)
        return -1;
    size_t n = json_object_size(v), i = 0;
    const char **keys = nd_xmalloc((n ? n : 1) * sizeof *keys);
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)v, k, val) keys[i++] = k;
    if (d->flags & ND_YAML_SORT_KEYS)
        sort_keys(keys, n);
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++) {
        rc = string(d, keys[i], strlen(keys[i]), true);
        if (rc == 0)
            rc = node(d, json_object_get(v, keys[i]));
    }
    free(keys);
    if (rc < 0)
        return -1;
    yaml_mapping_end_event_initialize(&ev);
    return emit(d, &ev);
}

static int node(struct dumper *d, const json_t *v)
{
    yaml_event_t ev;
    char num[32];
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return mapping(d, v);
    case JSON_ARRAY: {
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if (emit(d, &ev) < 0)
            return -1;
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) if (node(d, item) < 0) return -1;
        yaml_sequence_end_event_initialize(&ev);
        return emit(d, &ev);
    }
    case JSON_STRING:
        return string(d, json_string_value(v), json_string_length(v), false);
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return scalar(d, num, strlen(num), YAML_PLAIN_SCALAR_STYLE);
    case JSON_REAL:
        return real(d, json_real_value(v));
    case JSON_TRUE:
        return scalar(d, "true", 4, YAML_PLAIN_SCALAR_STYLE);
    case JSON_FALSE:
        return scalar(d, "false", 5, YAML_PLAIN_SCALAR_STYLE);
    case JSON_NULL:
        return scalar(d, "null", 4, YAML_PLAIN_SCALAR_STYLE);
    }
    return nd_status_set(d->st, "InternalError", NULL, "cannot write a value of unknown type");
}

int nd_yaml_dump_flags(const json_t *v, struct nd_buf *out, int flags, struct nd_status *st)
{
    if (!v)
        return nd_status_set(st, "InternalError", NULL, "no value to write as YAML");
    if (out->max && out->len >= out->max)
        return nd_status_set(st, "InternalError", NULL,
                             "the YAML output is larger than its buffer allows");
    struct dumper d = {.flags = flags, .st = st};
    if (!yaml_emitter_initialize(&d.em))
        return nd_status_set(st, "InternalError", NULL, "cannot start the YAML emitter");
    struct nd_buf doc = ND_BUF_INIT;
    nd_buf_init(&doc, out->max ? out->max - out->len : 0);
    yaml_emitter_set_output(&d.em, write_out, &doc);
    yaml_emitter_set_unicode(&d.em, 1);
    yaml_emitter_set_break(&d.em, YAML_LN_BREAK);
    yaml_event_t ev;
    int rc = -1;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (emit(&d, &ev) < 0)
        goto out;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if (emit(&d, &ev) < 0 || node(&d, v) < 0)
        goto out;
    yaml_document_end_event_initialize(&ev, 1);
    if (emit(&d, &ev) < 0)
        goto out;
    yaml_stream_end_event_initialize(&ev);
    if (emit(&d, &ev) < 0)
        goto out;
    /* libyaml ends a document whose last line is a plain or "keep" scalar with "...";
     * go-yaml does not */
    if (doc.len >= 4 && strcmp(doc.data + doc.len - 4, "...\n") == 0 &&
        (doc.len == 4 || doc.data[doc.len - 5] == '\n'))
        nd_buf_truncate(&doc, doc.len - 4);
    if (nd_buf_add(out, doc.data, doc.len) < 0) {
        nd_status_set(st, "InternalError", NULL,
                      "the YAML output is larger than its buffer allows");
        goto out;
    }
    rc = 0;
out:
    yaml_emitter_delete(&d.em);
    nd_buf_release(&doc);
    return rc;
}

int nd_yaml_dump(const json_t *v, struct nd_buf *out, struct nd_status *st)
{
    return nd_yaml_dump_flags(v, out, 0, st);
}

int nd_yaml_dump_all(const json_t *array, struct nd_buf *out, int flags, struct nd_status *st)
{
    if (!json_is_array(array))
        return nd_status_set(st, "InternalError", NULL, "nd_yaml_dump_all needs an array");
    size_t len = out->len;
    size_t i;
    json_t *v;
    json_array_foreach(array, i, v)
    {
        if ((i && nd_buf_adds(out, "---\n") < 0) || nd_yaml_dump_flags(v, out, flags, st) < 0) {
            if (!nd_status_failed(st))
                nd_status_set(st, "InternalError", NULL,
                              "the YAML output is larger than its buffer allows");
            nd_buf_truncate(out, len);
            return -1;
        }
    }
    return 0;
}
