/* yaml_load.c: YAML text -> JSON values, from libyaml's event parser.
 *
 * The tree is built by recursive descent over the events; recursion is bounded by
 * ND_YAML_MAX_DEPTH, checked before each collection is entered. Anchored nodes are
 * kept per document with their size and height so an alias can be refused before it
 * is expanded (a deep copy) past the node or depth limits.
 */
#include "yaml/yaml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "json/json.h"
#include "util/xmalloc.h"
#include "yaml/scalar.h"

struct anchor {
    char *name;
    json_t *node; /* NULL while the node is still being read */
    size_t nodes, height, bytes;
};

struct loader {
    yaml_parser_t parser;
    const char *data;
    size_t len;
    const char *source;
    struct nd_status *st;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    size_t nodes, alias_nodes; /* of the current document */
    /* of the whole stream, against max_bytes (nd_load_limits and the text's length) and
     * lim->nodes */
    size_t total_nodes, total_bytes, max_bytes;
    const struct nd_load_limits *lim;
    /* When fields is not NULL: the line of each mapping key and sequence item of the
     * current document, by path (segments joined with ND_YAML_PATH_SEP). */
    json_t *fields;
    struct nd_buf path;
};

/* Records the line of the node at the current path plus one segment (a key, or an item's
 * index when key is NULL); returns the path's length before, for unpush. */
static size_t push_field(struct loader *l, const char *key, size_t index, const yaml_mark_t *m)
{
    size_t len = l->path.len;
    if (!l->fields)
        return len;
    if (len)
        nd_buf_addch(&l->path, ND_YAML_PATH_SEP);
    if (key)
        nd_buf_adds(&l->path, key);
    else
        nd_buf_addf(&l->path, "%zu", index);
    if (!json_object_get(l->fields, l->path.data))
        json_object_set_new(l->fields, l->path.data, json_integer((json_int_t)m->line + 1));
    return len;
}

static void unpush(struct loader *l, size_t len)
{
    if (l->fields)
        nd_buf_truncate(&l->path, len);
}

/* Size of a node: how many nodes it expands to, how deep its collections go, how many
 * bytes of scalars and keys it holds. */
struct shape {
    size_t nodes, height, bytes;
};

static void where(struct nd_buf *b, const char *source, size_t line, size_t col)
{
    if (!source)
        nd_buf_addf(b, "line %zu, column %zu: ", line, col);
    else
        nd_buf_addf(b, "%s:%zu:%zu: ", strcmp(source, "-") == 0 ? "<stdin>" : source, line, col);
}

/* libyaml reports input (encoding) errors as a byte offset only. */
static void offset_position(const char *data, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= len || data[i + 1] != '\n'))) {
            (*line)++;
            *col = 1;
        } else if (c != '\r' && (c & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

/* The byte at a libyaml mark's index (which counts characters, not bytes); 0 past the
 * end. */
static char char_at(const char *data, size_t len, size_t index)
{
    size_t chars = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)data[i] & 0xC0) == 0x80)
            continue;
        if (chars++ == index)
            return data[i];
    }
    return '\0';
}

/* Characters (not bytes) in the input. */
static size_t chars(const struct loader *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->len; i++)
        if (((unsigned char)l->data[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* 1-based position of a mark. At the end of input libyaml moves to a new line even when
 * the text does not end with one; such a mark points at the end of the last line. */
static void mark_position(const struct loader *l, const yaml_mark_t *m, size_t *line, size_t *col)
{
    *line = m->line + 1;
    *col = m->column + 1;
    if (l->len && l->data[l->len - 1] != '\n' && m->index >= chars(l))
        offset_position(l->data, l->len, l->len, line, col);
}

static int vfail(struct loader *l, const yaml_mark_t *m, const char *reason, const char *fix,
                 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static int vfail(struct loader *l, const yaml_mark_t *m, const char *reason, const char *fix,
                 const char *fmt, va_list ap)
{
    struct nd_buf b = ND_BUF_INIT;
    size_t line, col;
    mark_position(l, m, &line, &col);
    where(&b, l->source, line, col);
    nd_buf_vaddf(&b, fmt, ap);
    nd_status_set(l->st, reason, fix, "%s", b.data);
    nd_buf_release(&b);
    return -1;
}

static int fail_at(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(l, m, "BadRequest", NULL, fmt, ap);
    va_end(ap);
    return -1;
}

/* A limit of nd_load_limits: RequestEntityTooLarge, with a fix. */
static int too_large(struct loader *l, const yaml_mark_t *m, const char *fix, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));

static int too_large(struct loader *l, const yaml_mark_t *m, const char *fix, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(l, m, "RequestEntityTooLarge", fix, fmt, ap);
    va_end(ap);
    return -1;
}

static void parser_error(struct loader *l)
{
    yaml_parser_t *p = &l->parser;
    const char *problem = p->problem ? p->problem : "cannot read YAML";
    struct nd_buf b = ND_BUF_INIT;
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        nd_status_set(l->st, "InternalError", NULL, "out of memory while reading YAML");
        return;
    case YAML_READER_ERROR: {
        size_t line, col;
        offset_position(l->data, l->len, p->problem_offset, &line, &col);
        where(&b, l->source, line, col);
        nd_buf_adds(&b, problem);
        if (strstr(problem, "octet") && p->problem_value >= 0)
            nd_buf_addf(&b, " 0x%02x", (unsigned)p->problem_value);
        else if (p->problem_value >= 0)
            nd_buf_addf(&b, " (U+%04X)", (unsigned)p->problem_value);
        break;
    }
    default: {
        size_t line, col;
        mark_position(l, &p->problem_mark, &line, &col);
        where(&b, l->source, line, col);
        if (char_at(l->data, l->len, p->problem_mark.index) == '\t') {
            nd_buf_addf(&b, "found a tab character where YAML does not allow one "
                            "(indent with spaces)");
            break;
        }
        nd_buf_adds(&b, problem);
        if (p->context) {
            mark_position(l, &p->context_mark, &line, &col);
            nd_buf_addf(&b, " (%s that started at %zu:%zu)", p->context, line, col);
        }
        break;
    }
    }
    nd_status_set(l->st, "BadRequest", NULL, "%s", b.data);
    nd_buf_release(&b);
}

static int next(struct loader *l, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&l->parser, ev)) {
        parser_error(l);
        return -1;
    }
    return 0;
}

/* Counts what a node adds (an alias: its whole copy, before it is made). */
static int count(struct loader *l, const yaml_mark_t *m, const struct shape *add, bool alias)
{
    l->nodes += add->nodes;
    l->total_nodes += add->nodes;
    l->total_bytes += add->bytes;
    if (alias)
        l->alias_nodes += add->nodes;
    if (l->alias_nodes > ND_YAML_MAX_ALIAS_NODES)
        return fail_at(l, m, "aliases expand to more than %d nodes in one document",
                       ND_YAML_MAX_ALIAS_NODES);
    if (l->nodes > ND_YAML_MAX_NODES)
        return fail_at(l, m, "the document has more than %d nodes", ND_YAML_MAX_NODES);
    const char *what = alias ? "this alias takes the text to" : "the text holds";
    if (l->total_bytes > l->max_bytes)
        return too_large(l, m,
                         alias ? "write the value out once instead of through aliases"
                               : "split it into smaller documents",
                         "%s more than %zu bytes of values and keys, the most a text of %zu "
                         "bytes may expand to",
                         what, l->max_bytes, l->len);
    if (l->total_nodes > l->lim->nodes)
        return too_large(l, m, "split it into smaller documents",
                         "%s more than %zu values and keys", what, l->lim->nodes);
    return 0;
}

static void clear_anchors(struct loader *l)
{
    for (size_t i = 0; i < l->n_anchors; i++) {
        free(l->anchors[i].name);
        json_decref(l->anchors[i].node);
    }
    l->n_anchors = 0;
}

/* Opens an anchor (its node not read yet); returns its index. */
static size_t open_anchor(struct loader *l, const char *name)
{
    if (l->n_anchors == l->cap_anchors) {
        l->cap_anchors = l->cap_anchors ? l->cap_anchors * 2 : 8;
        l->anchors = nd_xrealloc(l->anchors, l->cap_anchors * sizeof *l->anchors);
    }
    struct anchor *a = &l->anchors[l->n_anchors];
    a->name = nd_xstrdup(name);
    a->node = NULL;
    a->nodes = a->height = a->bytes = 0;
    return l->n_anchors++;
}

static void close_anchor(struct loader *l, size_t i, json_t *node, const struct shape *sh)
{
    l->anchors[i].node = json_incref(node);
    l->anchors[i].nodes = sh->nodes;
    l->anchors[i].height = sh->height;
    l->anchors[i].bytes = sh->bytes;
}

/* The most recent anchor of that name (a later definition overrides an earlier one). */
static const struct anchor *find_anchor(struct loader *l, const char *name)
{
    for (size_t i = l->n_anchors; i-- > 0;)
        if (strcmp(l->anchors[i].name, name) == 0)
            return &l->anchors[i];
    return NULL;
}

static json_t *read_node(struct loader *l, yaml_event_t *ev, size_t depth, struct shape *sh);

static json_t *alias(struct loader *l, const yaml_event_t *ev, size_t depth, struct shape *sh)
{
    const char *name = (const char *)ev->data.alias.anchor;
    const struct anchor *a = find_anchor(l, name);
    if (!a) {
        fail_at(l, &ev->start_mark, "unknown alias *%s (no anchor &%s before it)", name, name);
        return NULL;
    }
    if (!a->node) {
        fail_at(l, &ev->start_mark, "alias *%s refers to the node &%s that contains it", name,
                name);
        return NULL;
    }
    if (depth + a->height > ND_YAML_MAX_DEPTH) {
        fail_at(l, &ev->start_mark, "nesting deeper than %d levels (through alias *%s)",
                ND_YAML_MAX_DEPTH, name);
        return NULL;
    }
    sh->nodes = a->nodes;
    sh->height = a->height;
    sh->bytes = a->bytes;
    if (count(l, &ev->start_mark, sh, true) < 0)
        return NULL;
    return json_deep_copy(a->node);
}

static json_t *scalar(struct loader *l, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    if (memchr(s, '\0', n)) {
        fail_at(l, &ev->start_mark, "strings may not contain NUL characters");
        return NULL;
    }
    struct nd_buf why = ND_BUF_INIT;
    json_t *v;
    if (ev->data.scalar.tag)
        v = nd_yaml_tagged_value((const char *)ev->data.scalar.tag, s, n, &why);
    else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        v = nd_yaml_plain_value(s, n, &why);
    else
        v = json_stringn(s, n);
    if (!v)
        fail_at(l, &ev->start_mark, "%s", why.len ? why.data : "invalid UTF-8 in a string");
    nd_buf_release(&why);
    return v;
}

static void grow(struct shape *sh, const struct shape *child)
{
    sh->nodes += child->nodes;
    sh->bytes += child->bytes;
    if (child->height + 1 > sh->height)
        sh->height = child->height + 1;
}

static json_t *sequence(struct loader *l, size_t depth, struct shape *sh)
{
    json_t *arr = json_array();
    for (;;) {
        yaml_event_t ev;
        if (next(l, &ev) < 0)
            goto fail;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return arr;
        }
        struct shape c;
        size_t at = push_field(l, NULL, json_array_size(arr), &ev.start_mark);
        json_t *item = read_node(l, &ev, depth, &c);
        unpush(l, at);
        if (!item)
            goto fail;
        json_array_append_new(arr, item);
        grow(sh, &c);
    }
fail:
    json_decref(arr);
    return NULL;
}

/* A key's text when the key came through an alias. NULL for a collection. */
static char *key_text(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        return nd_xstrndup(json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return nd_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL: {
        struct nd_buf b = ND_BUF_INIT;
        nd_json_add_real_g(&b, json_real_value(v)); /* as go-yaml spells a float key */
        return nd_buf_detach(&b);
    }
    case JSON_TRUE:
        return nd_xstrdup("true");
    case JSON_FALSE:
        return nd_xstrdup("false");
    case JSON_NULL:
        return nd_xstrdup("null");
    default:
        return NULL;
    }
}

/* Merges src (a mapping, or a sequence of mappings: earlier ones win) into obj: a key
 * already there, written out or merged before, keeps its value. */
static int merge(struct loader *l, json_t *obj, const json_t *src, const yaml_mark_t *m)
{
    if (json_is_object(src)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)src, k, v) if (!json_object_get(obj, k))
            json_object_set(obj, k, v);
        return 0;
    }
    if (!json_is_array(src))
        return fail_at(l, m,
                       "the value of the merge key << must be a mapping or a sequence "
                       "of mappings");
    size_t i;
    json_t *item;
    json_array_foreach(src, i, item)
    {
        if (!json_is_object(item))
            return fail_at(l, m, "the merge key << takes mappings, but element %zu is not one", i);
        merge(l, obj, item, m);
    }
    return 0;
}

static bool is_merge_key(const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag)
        return strcmp(tag, ND_YAML_TAG_PREFIX "merge") == 0;
    return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && ev->data.scalar.length == 2 &&
           memcmp(ev->data.scalar.value, "<<", 2) == 0;
}

static json_t *mapping(struct loader *l, size_t depth, struct shape *sh)
{
    json_t *obj = json_object();
    json_t *seen = json_object(); /* key -> line where it was written */
    char *key = NULL;
    for (;;) {
        yaml_event_t ev;
        if (next(l, &ev) < 0)
            goto fail;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        yaml_mark_t km = ev.start_mark;
        bool is_merge = false;
        struct shape c = {1, 0, 0};
        if (ev.type == YAML_SCALAR_EVENT && !ev.data.scalar.anchor) {
            /* a key is its text: `1`, `true` or `.inf` as a key is "1", "true", ".inf" */
            is_merge = is_merge_key(&ev);
            key = nd_xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
            bool nul = strlen(key) != ev.data.scalar.length;
            yaml_event_delete(&ev);
            if (nul) {
                fail_at(l, &km, "strings may not contain NUL characters");
                goto fail;
            }
            c.bytes = strlen(key);
            if (count(l, &km, &c, false) < 0)
                goto fail;
        } else if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT) {
            /* an anchored key (whose value an alias may use later) or an alias */
            if (ev.type == YAML_SCALAR_EVENT)
                key = nd_xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
            json_t *kv = read_node(l, &ev, depth, &c);
            if (!kv)
                goto fail;
            if (!key && !(key = key_text(kv))) {
                json_decref(kv);
                fail_at(l, &km, "a mapping key must be a scalar, but this alias is a collection");
                goto fail;
            }
            json_decref(kv);
        } else {
            fail_at(l, &km, "a mapping key must be a scalar, not a %s",
                    ev.type == YAML_SEQUENCE_START_EVENT ? "sequence" : "mapping");
            yaml_event_delete(&ev);
            goto fail;
        }
        grow(sh, &c);

        if (next(l, &ev) < 0)
            goto fail;
        size_t at = is_merge ? l->path.len : push_field(l, key, 0, &km);
        json_t *val = read_node(l, &ev, depth, &c);
        unpush(l, at);
        if (!val)
            goto fail;
        grow(sh, &c);

        json_t *first = json_object_get(seen, key);
        if (first) {
            json_decref(val);
            struct nd_buf q = ND_BUF_INIT;
            nd_yaml_quote_for_message(&q, key, strlen(key));
            fail_at(l, &km, "duplicate key %s (first at line %" JSON_INTEGER_FORMAT ")", q.data,
                    json_integer_value(first));
            nd_buf_release(&q);
            goto fail;
        }
        json_object_set_new(seen, key, json_integer((json_int_t)km.line + 1));
        if (is_merge) {
            int rc = merge(l, obj, val, &km);
            json_decref(val);
            if (rc < 0)
                goto fail;
        } else {
            /* replaces a merged value in place: written keys win over merged ones */
            json_object_set_new(obj, key, val);
        }
        free(key);
        key = NULL;
    }
    json_decref(seen);
    return obj;
fail:
    free(key);
    json_decref(seen);
    json_decref(obj);
    return NULL;
}

static bool collection_tag_ok(const char *tag, const char *want)
{
    return !tag || strcmp(tag, "!") == 0 || strcmp(tag, want) == 0;
}

/* Reads the node that begins with *ev (deleted here); depth counts the collections
 * around it. */
static json_t *read_node(struct loader *l, yaml_event_t *ev, size_t depth, struct shape *sh)
{
    yaml_mark_t mark = ev->start_mark;
    json_t *v = NULL;
    const char *anchor = NULL, *tag = NULL, *want = NULL;
    *sh = (struct shape){1, 0, 0};
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        v = alias(l, ev, depth, sh);
        yaml_event_delete(ev);
        return v;
    case YAML_SCALAR_EVENT:
        sh->bytes = ev->data.scalar.length;
        if (count(l, &mark, sh, false) < 0)
            break;
        v = scalar(l, ev);
        if (v && ev->data.scalar.anchor)
            close_anchor(l, open_anchor(l, (const char *)ev->data.scalar.anchor), v, sh);
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
        anchor =
            (const char *)(seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor);
        tag = (const char *)(seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag);
        want = seq ? ND_YAML_TAG_PREFIX "seq" : ND_YAML_TAG_PREFIX "map";
        if (!collection_tag_ok(tag, want)) {
            struct nd_buf t = ND_BUF_INIT;
            nd_yaml_tag_for_message(&t, tag);
            fail_at(l, &mark, "unsupported tag %s on a %s", t.data, seq ? "sequence" : "mapping");
            nd_buf_release(&t);
            break;
        }
        if (depth + 1 > ND_YAML_MAX_DEPTH) {
            fail_at(l, &mark, "nesting deeper than %d levels", ND_YAML_MAX_DEPTH);
            break;
        }
        if (count(l, &mark, &(struct shape){1, 0, 0}, false) < 0)
            break;
        sh->height = 1;
        size_t slot = anchor ? open_anchor(l, anchor) : 0;
        v = seq ? sequence(l, depth + 1, sh) : mapping(l, depth + 1, sh);
        if (v && anchor)
            close_anchor(l, slot, v, sh);
        break;
    }
    default:
        fail_at(l, &mark, "unexpected YAML event %d", (int)ev->type);
        break;
    }
    yaml_event_delete(ev);
    return v;
}

/* An empty document: libyaml gives it an empty plain scalar with no tag or anchor. */
static bool empty_document(const yaml_event_t *ev)
{
    return ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length == 0 &&
           ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag &&
           !ev->data.scalar.anchor;
}

/* Reads the whole stream into docs; marks (when not NULL) receives [line, column] of
 * each document's start. */
static int load_stream(struct loader *l, json_t *docs, json_t *marks, json_t *fields)
{
    yaml_event_t ev;
    if (next(l, &ev) < 0)
        return -1;
    yaml_event_delete(&ev); /* STREAM-START */
    for (;;) {
        if (next(l, &ev) < 0)
            return -1;
        if (ev.type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            return 0;
        }
        yaml_event_delete(&ev); /* DOCUMENT-START */
        if (next(l, &ev) < 0)
            return -1;
        yaml_mark_t start = ev.start_mark; /* the content, after any `---` and comments */
        bool empty = empty_document(&ev);
        struct shape sh;
        if (fields) {
            json_decref(l->fields);
            l->fields = json_object();
            nd_buf_reset(&l->path);
        }
        json_t *root = read_node(l, &ev, 0, &sh);
        if (!root)
            return -1;
        if (!empty) {
            json_array_append_new(docs, root);
            if (fields)
                json_array_append(fields, l->fields);
            if (marks)
                json_array_append_new(marks, json_pack("[II]", (json_int_t)start.line + 1,
                                                       (json_int_t)start.column + 1));
        } else {
            json_decref(root);
        }
        if (next(l, &ev) < 0)
            return -1;
        yaml_event_delete(&ev); /* DOCUMENT-END */
        clear_anchors(l);
        l->nodes = l->alias_nodes = 0;
    }
}

/* What a text of len bytes may expand to: ND_LOAD_EXPANSION times it, at least
 * ND_LOAD_FLOOR_BYTES, at most lim->bytes. */
static size_t max_bytes(size_t len, const struct nd_load_limits *lim)
{
    size_t n = len > SIZE_MAX / ND_LOAD_EXPANSION ? SIZE_MAX : len * ND_LOAD_EXPANSION;
    if (n < ND_LOAD_FLOOR_BYTES)
        n = ND_LOAD_FLOOR_BYTES;
    return n < lim->bytes ? n : lim->bytes;
}

/* The loader's options (past what fits in eight parameters). */
struct load_opts {
    const char *source;
    const struct nd_load_limits *lim;
    json_t **marks_out, **fields_out;
};

static json_t *load(const char *data, size_t len, const struct load_opts *o,
                    struct nd_status *st)
{
    struct loader l = {0};
    const char *source = o->source;
    json_t **marks_out = o->marks_out, **fields_out = o->fields_out;
    nd_buf_init(&l.path, 0);
    l.data = data;
    l.len = len;
    l.source = source;
    l.st = st;
    l.lim = o->lim;
    l.max_bytes = max_bytes(data ? len : 0, o->lim);
    if (!yaml_parser_initialize(&l.parser)) {
        nd_status_set(st, "InternalError", NULL, "cannot start the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_string(&l.parser, (const unsigned char *)(data ? data : ""),
                                 data ? len : 0);
    json_t *docs = json_array();
    json_t *marks = marks_out ? json_array() : NULL;
    json_t *fields = fields_out ? json_array() : NULL;
    if (load_stream(&l, docs, marks, fields) < 0) {
        json_decref(docs);
        json_decref(marks);
        json_decref(fields);
        docs = marks = fields = NULL;
    }
    if (fields_out)
        *fields_out = fields;
    json_decref(l.fields);
    nd_buf_release(&l.path);
    clear_anchors(&l);
    free(l.anchors);
    yaml_parser_delete(&l.parser);
    if (marks_out)
        *marks_out = marks;
    return docs;
}

json_t *nd_yaml_load_all(const char *data, size_t len, const char *source, struct nd_status *st)
{
    return load(data, len, &(struct load_opts){.source = source, .lim = &nd_load_file_limits},
                st);
}

json_t *nd_yaml_load_all_lines(const char *data, size_t len, const char *source, json_t **lines,
                               struct nd_status *st)
{
    return nd_yaml_load_all_fields(data, len, source, lines, NULL, st);
}

json_t *nd_yaml_load_all_fields(const char *data, size_t len, const char *source, json_t **lines,
                                json_t **fields, struct nd_status *st)
{
    json_t *marks = NULL;
    json_t *docs = load(data, len,
                        &(struct load_opts){.source = source,
                                            .lim = &nd_load_file_limits,
                                            .marks_out = lines ? &marks : NULL,
                                            .fields_out = fields},
                        st);
    if (lines) {
        *lines = NULL;
        if (docs) {
            *lines = json_array();
            size_t i;
            json_t *m;
            json_array_foreach(marks, i, m) json_array_append(*lines, json_array_get(m, 0));
        }
        json_decref(marks);
    }
    return docs;
}

json_t *nd_yaml_load(const char *data, size_t len, const char *source, struct nd_status *st)
{
    return nd_yaml_load_limited(data, len, source, &nd_load_file_limits, st);
}

json_t *nd_yaml_load_limited(const char *data, size_t len, const char *source,
                             const struct nd_load_limits *lim, struct nd_status *st)
{
    json_t *marks = NULL;
    json_t *docs = load(
        data, len, &(struct load_opts){.source = source, .lim = lim, .marks_out = &marks}, st);
    if (!docs)
        return NULL;
    json_t *v = NULL;
    if (json_array_size(docs) == 1) {
        v = json_incref(json_array_get(docs, 0));
    } else if (json_array_size(docs) == 0) {
        struct nd_buf b = ND_BUF_INIT;
        if (source)
            nd_buf_addf(&b, "%s: ", strcmp(source, "-") == 0 ? "<stdin>" : source);
        nd_status_set(st, "BadRequest", NULL,
                      "%sno YAML document found (the input is empty or only comments)", b.data);
        nd_buf_release(&b);
    } else {
        json_t *m = json_array_get(marks, 1);
        struct nd_buf b = ND_BUF_INIT;
        where(&b, source, (size_t)json_integer_value(json_array_get(m, 0)),
              (size_t)json_integer_value(json_array_get(m, 1)));
        nd_status_set(st, "BadRequest", NULL,
                      "%sexpected a single YAML document, but a second one starts here", b.data);
        nd_buf_release(&b);
    }
    json_decref(docs);
    json_decref(marks);
    return v;
}
