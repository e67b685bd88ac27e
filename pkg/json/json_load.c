/* json_load.c: JSON text -> jansson values, with positions in every error. */
#include "json/json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A 1-based position in the text; columns count characters, as jansson's do. */
struct pos {
    size_t line, col;
};

static void advance(struct pos *p, const char *data, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n') {
            p->line++;
            p->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            p->col++;
        }
    }
}

static int fail_as(struct nd_status *st, const char *reason, const char *fix,
                   const char *source, struct pos p, const char *msg)
{
    if (!source)
        return nd_status_set(st, reason, fix, "line %zu, column %zu: %s", p.line, p.col, msg);
    return nd_status_set(st, reason, fix, "%s:%zu:%zu: %s",
                         strcmp(source, "-") == 0 ? "<stdin>" : source, p.line, p.col, msg);
}

static int fail(struct nd_status *st, const char *source, struct pos p, const char *msg)
{
    return fail_as(st, "BadRequest", NULL, source, p, msg);
}

/* Where a scan of valid JSON text stands in strings. */
struct str_state {
    bool in;  /* inside a string */
    bool esc; /* after its backslash */
};

/* Whether byte c belongs to a string already open (its closing quote included), moving
 * q past it: the scanners below skip such bytes. */
static bool in_string(struct str_state *q, unsigned char c)
{
    if (!q->in)
        return false;
    if (q->esc)
        q->esc = false;
    else if (c == '\\')
        q->esc = true;
    else if (c == '"')
        q->in = false;
    return true;
}

/* Position (relative to where the value starts) of the first bracket that passes the
 * depth limit. The text up to there is valid JSON, so strings are easy to skip. */
static struct pos deep_position(const char *data, size_t len)
{
    struct pos p = {1, 0};
    size_t depth = 0;
    struct str_state q = {false, false};
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n') {
            p.line++;
            p.col = 0;
        } else if ((c & 0xC0) != 0x80) {
            p.col++;
        }
        if (in_string(&q, c)) {
            continue;
        } else if (c == '"') {
            q.in = true;
        } else if (c == '[' || c == '{') {
            if (++depth > ND_JSON_MAX_DEPTH)
                return p;
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
    }
    return p;
}

/* Maps a position jansson reports relative to the value's start onto the whole text. */
static struct pos shift(struct pos base, size_t line, size_t col)
{
    struct pos p = base;
    if (line <= 1) {
        p.col = base.col + (col ? col - 1 : 0);
    } else {
        p.line = base.line + line - 1;
        p.col = col ? col : 1;
    }
    return p;
}

/* Reads one value at data[off]; *used receives the bytes it took. */
static json_t *load_at(const char *data, size_t len, size_t off, struct pos base, size_t flags,
                       const char *source, size_t *used, struct nd_status *st)
{
    json_error_t err;
    json_t *v = json_loadb(data + off, len - off, flags | JSON_REJECT_DUPLICATES, &err);
    bool too_deep = false;
    if (!v) {
        if (strstr(err.text, "maximum parsing depth")) {
            too_deep = true;
        } else {
            const char *msg = err.text;
            if (strstr(err.text, "\\u0000 is not allowed"))
                msg = "strings may not contain NUL characters (\\u0000)";
            fail(st, source, shift(base, (size_t)err.line, (size_t)err.column), msg);
            return NULL;
        }
    } else if (nd_json_depth(v) > ND_JSON_MAX_DEPTH) {
        too_deep = true;
        json_decref(v);
        v = NULL;
    }
    if (too_deep) {
        struct pos d = deep_position(data + off, len - off);
        char msg[64];
        snprintf(msg, sizeof msg, "nesting deeper than %d levels", ND_JSON_MAX_DEPTH);
        fail(st, source, shift(base, d.line, d.col), msg);
        return NULL;
    }
    *used = (size_t)err.position;
    return v;
}

/* Position of byte off. */
static struct pos shift_to(const char *data, size_t off)
{
    struct pos p = {1, 1};
    advance(&p, data, 0, off);
    return p;
}

const struct nd_load_limits nd_load_file_limits = {64u << 20, 4000000};

static bool literal_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '+' || c == '.';
}

/* The offset of the node that takes the text past max nodes (a string, a key, a
 * number, a literal or a bracket each count one), or len when it stays within or nests
 * past ND_JSON_MAX_DEPTH first (refused by the parser, which stops there, with its
 * position). One pass over the bytes, nothing allocated: jansson builds nothing a
 * refusal would waste. */
static size_t over_nodes(const char *data, size_t len, size_t max)
{
    size_t nodes = 0, depth = 0;
    struct str_state q = {false, false};
    bool in_lit = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)data[i];
        if (in_string(&q, c))
            continue;
        bool lit = literal_char(c);
        bool starts = c == '"' || c == '[' || c == '{' || (lit && !in_lit);
        in_lit = lit;
        q.in = c == '"';
        if ((c == '[' || c == '{') && ++depth > ND_JSON_MAX_DEPTH)
            return len;
        if ((c == ']' || c == '}') && depth)
            depth--;
        if (starts && ++nodes > max)
            return i;
    }
    return len;
}

/* Refuses a text past lim before it is parsed (RequestEntityTooLarge). */
static int check_limits(const char *data, size_t len, const char *source,
                        const struct nd_load_limits *lim, struct nd_status *st)
{
    static const char fix[] = "split it into smaller documents";
    char msg[96];
    if (len > lim->bytes) {
        snprintf(msg, sizeof msg, "the text is %zu bytes, more than the %zu it may be", len,
                 lim->bytes);
        return fail_as(st, "RequestEntityTooLarge", fix, source, (struct pos){1, 1}, msg);
    }
    size_t at = over_nodes(data, len, lim->nodes);
    if (at == len)
        return 0;
    snprintf(msg, sizeof msg, "the text holds more than %zu values and keys", lim->nodes);
    return fail_as(st, "RequestEntityTooLarge", fix, source, shift_to(data, at), msg);
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

json_t *nd_json_load(const char *data, size_t len, const char *source, struct nd_status *st)
{
    static const struct nd_load_limits none = {SIZE_MAX, SIZE_MAX};
    return nd_json_load_limited(data, len, source, &none, st);
}

json_t *nd_json_load_limited(const char *data, size_t len, const char *source,
                             const struct nd_load_limits *lim, struct nd_status *st)
{
    struct pos base = {1, 1};
    size_t used, i = 0;
    if (!data) {
        data = "";
        len = 0;
    }
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3; /* a UTF-8 byte order mark */
    while (i < len && space(data[i]))
        i++;
    if (i == len) {
        advance(&base, data, 0, len);
        fail(st, source, base, "no JSON value (the input is empty)");
        return NULL;
    }
    if (check_limits(data, len, source, lim, st) < 0)
        return NULL;
    return load_at(data, len, i, shift_to(data, i), JSON_DECODE_ANY, source, &used, st);
}

json_t *nd_json_load_stream(const char *data, size_t len, const char *source, json_t **lines,
                            struct nd_status *st)
{
    if (!data) {
        data = "";
        len = 0;
    }
    json_t *docs = json_array();
    json_t *starts = json_array();
    struct pos p = {1, 1};
    size_t off = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        off = 3; /* a UTF-8 byte order mark */
    if (check_limits(data, len, source, &nd_load_file_limits, st) < 0)
        goto fail;
    for (;;) {
        size_t from = off;
        while (off < len && space(data[off]))
            off++;
        advance(&p, data, from, off);
        if (off == len)
            break;
        if (data[off] != '{' && data[off] != '[') {
            fail(st, source, p, "expected a JSON object or array");
            goto fail;
        }
        size_t used = 0;
        json_t *v = load_at(data, len, off, p, JSON_DISABLE_EOF_CHECK, source, &used, st);
        if (!v)
            goto fail;
        json_array_append_new(docs, v);
        json_array_append_new(starts, json_integer((json_int_t)p.line));
        advance(&p, data, off, off + used);
        off += used;
    }
    if (lines)
        *lines = starts;
    else
        json_decref(starts);
    return docs;
fail:
    json_decref(docs);
    json_decref(starts);
    if (lines)
        *lines = NULL;
    return NULL;
}

const char *nd_json_type_phrase(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}
