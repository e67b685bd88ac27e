/* fields.c: field selectors (k8s.io/apimachinery/pkg/fields).
 *
 * Terms are split at unescaped commas and sorted as strings before they are parsed, as
 * Kubernetes does, so errors come in the same order and String() gives the same text. */
#include <stdlib.h>
#include <string.h>

#include "selector/internal.h"
#include "selector/selector.h"
#include "util/buf.h"
#include "util/xmalloc.h"

struct fterm {
    char *field;
    char *path; /* where the value is read: the field, or the path its allowed entry names */
    char *value;
    bool neg; /* != */
};

struct nd_field_selector {
    struct fterm *terms;
    size_t n;
};

struct span {
    size_t start, len;
    const char *s;
};

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s + x->start, y->s + y->start, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* Unescapes a value; on error fills err and *bad (offset in v of the culprit). */
static char *unescape(const char *v, size_t n, struct nd_buf *err, size_t *bad)
{
    struct nd_buf out = ND_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (c == '\\') {
            if (i + 1 == n) {
                nd_buf_adds(err, "invalid field selector: invalid escape sequence: \\");
                *bad = i;
                goto fail;
            }
            char e = v[i + 1];
            if (e != '\\' && e != ',' && e != '=') {
                /* the whole next character, which may take several bytes */
                size_t len = 1;
                while (i + 1 + len < n && ((unsigned char)v[i + 1 + len] & 0xc0) == 0x80)
                    len++;
                nd_buf_addf(err, "invalid field selector: invalid escape sequence: \\%.*s",
                            (int)len, v + i + 1);
                *bad = i;
                goto fail;
            }
            nd_buf_addch(&out, e);
            i++;
        } else if (c == ',' || c == '=') {
            /* Kubernetes prints the rune's number here */
            nd_buf_addf(err, "invalid field selector: unescaped character in value: %d", c);
            *bad = i;
            goto fail;
        } else {
            nd_buf_addch(&out, c);
        }
    }
    return nd_buf_detach(&out);
fail:
    nd_buf_release(&out);
    return NULL;
}

/* The dotted path a field label reads: the label itself, or PATH of an allowed entry
 * "LABEL=PATH"; NULL when the list does not allow the label (any label without a list). */
static const char *allowed(const char *field, const char *const *list)
{
    if (!list)
        return field;
    size_t n = strlen(field);
    for (; *list; list++)
        if (strncmp(*list, field, n) == 0 && ((*list)[n] == '\0' || (*list)[n] == '='))
            return (*list)[n] ? *list + n + 1 : field;
    return NULL;
}

/* "select on one of: a, b, c" with the labels of an allowed list. */
static char *allowed_fix(const char *const *list)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "select on one of:");
    for (const char *sep = " "; *list; list++, sep = ", ")
        nd_buf_addf(&b, "%s%.*s", sep, (int)strcspn(*list, "="), *list);
    return nd_buf_detach(&b);
}

struct nd_field_selector *nd_field_selector_parse(const char *s, const char *const *allowed_fields,
                                                  struct nd_status *st)
{
    return sel_parse_fields(s, allowed_fields, ND_SELECT_READ, st);
}

/* Splits s (len bytes) at unescaped commas into *parts (NEW); the non-empty terms. */
static size_t split_terms(const char *s, size_t len, struct span **parts, size_t *nparts)
{
    size_t start = 0, nterms = 0;
    bool slash = false;
    *parts = NULL;
    *nparts = 0;
    for (size_t i = 0; len && i <= len; i++) {
        if (i < len && slash) {
            slash = false;
        } else if (i < len && s[i] == '\\') {
            slash = true;
        } else if (i == len || s[i] == ',') {
            *parts = nd_xrealloc(*parts, (*nparts + 1) * sizeof **parts);
            (*parts)[(*nparts)++] = (struct span){start, i - start, s};
            nterms += i > start;
            start = i + 1;
        }
    }
    return nterms;
}

/* A parse error: what, where in the selector, and what to do. */
struct perr {
    struct nd_buf msg;
    size_t pos;
    const char *fix;
};

/* Parses the term p of s (FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE) into fs; -1 with e. */
static int parse_term(const char *s, const struct span *p, enum nd_select_use use,
                      struct nd_field_selector *fs, struct perr *e)
{
    const char *t = s + p->start;
    size_t n = p->len, i, oplen = 0;
    if (n == 0) {
        /* apimachinery skips empty terms, so "," selects everything: a script's empty
         * variable that a collection DELETE would turn into "all". Refused. */
        nd_buf_addf(&e->msg, "invalid selector: '%s'; an empty term (a stray comma)", s);
        e->pos = p->start;
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (i + 1 < n && (t[i] == '!' || t[i] == '=') && t[i + 1] == '=')
            oplen = 2;
        else if (t[i] == '=')
            oplen = 1;
        if (oplen)
            break;
    }
    if (!oplen) {
        nd_buf_addf(&e->msg, "invalid selector: '%s'; can't understand '%.*s'", s, (int)n, t);
        e->pos = p->start;
        return -1;
    }
    size_t bad = 0;
    char *value = unescape(t + i + oplen, n - i - oplen, &e->msg, &bad);
    if (!value) {
        e->pos = p->start + i + oplen + bad;
        return -1;
    }
    enum sel_empty rule = sel_empty_rule(t[i] == '!', (const char *const[]){value}, 1, use);
    if (rule != SEL_EMPTY_OK) {
        nd_buf_addf(&e->msg, "invalid selector: '%s'; '%.*s' %s", s, (int)n, t,
                    sel_empty_why(rule));
        e->pos = p->start + i;
        e->fix = sel_empty_fix(rule);
        free(value);
        return -1;
    }
    fs->terms = nd_xrealloc(fs->terms, (fs->n + 1) * sizeof *fs->terms);
    fs->terms[fs->n++] = (struct fterm){nd_xstrndup(t, i), NULL, value, t[i] == '!'};
    return 0;
}

/* The path each term's field reads; -1 with st for a field the list does not allow. */
static int term_paths(struct nd_field_selector *fs, const char *const *allowed_fields,
                      struct nd_status *st)
{
    for (size_t j = 0; j < fs->n; j++) {
        struct fterm *term = &fs->terms[j];
        const char *path = allowed(term->field, allowed_fields);
        if (!path) {
            /* Kubernetes' exact words: the field names the problem, a position adds nothing */
            char *labels = allowed_fix(allowed_fields);
            nd_status_set(st, "BadRequest", labels, "field label not supported: %s", term->field);
            free(labels);
            return -1;
        }
        term->path = nd_xstrdup(path);
    }
    return 0;
}

struct nd_field_selector *sel_parse_fields(const char *s, const char *const *allowed_fields,
                                           enum nd_select_use use, struct nd_status *st)
{
    s = s ? s : "";
    size_t nparts = 0, len = strlen(s);
    if (len > ND_SELECTOR_MAX_LEN) {
        nd_status_set(st, "BadRequest", "select with fewer or shorter terms",
                      "field selector is %zu bytes long, more than the limit of %d", len,
                      ND_SELECTOR_MAX_LEN);
        return NULL;
    }
    struct nd_field_selector *fs = nd_xcalloc(1, sizeof *fs);
    struct span *parts = NULL;
    struct perr e = {.msg = ND_BUF_INIT,
                     .fix = "write terms such as metadata.name=x or status.phase!=Failed, "
                            "separated by commas"};
    size_t nterms = split_terms(s, len, &parts, &nparts);
    if (nterms > ND_SELECTOR_MAX_REQS) {
        nd_status_set(st, "BadRequest", "select with fewer terms",
                      "field selector has %zu terms, more than the limit of %d", nterms,
                      ND_SELECTOR_MAX_REQS);
        goto out;
    }
    if (nparts > 1)
        qsort(parts, nparts, sizeof *parts, cmp_span);
    for (size_t k = 0; k < nparts; k++) {
        if (parse_term(s, &parts[k], use, fs, &e) < 0) {
            nd_status_set(st, "BadRequest", e.fix, "%s (at character %d)", e.msg.data,
                          sel_char_pos(s, e.pos));
            goto out;
        }
    }
    if (term_paths(fs, allowed_fields, st) < 0)
        goto out;
    free(parts);
    return fs;
out:
    nd_buf_release(&e.msg);
    free(parts);
    nd_field_selector_free(fs);
    return NULL;
}

/* The text of a dotted path in obj; "" when missing, null or not a scalar. */
static char *field_text(const json_t *obj, const char *path)
{
    const json_t *cur = obj;
    const char *p = path;
    for (;;) {
        if (!json_is_object(cur)) {
            cur = NULL;
            break;
        }
        const char *dot = strchr(p, '.');
        cur = json_object_getn(cur, p, dot ? (size_t)(dot - p) : strlen(p));
        if (!cur || !dot)
            break;
        p = dot + 1;
    }
    if (!cur)
        return nd_xstrdup("");
    if (json_is_string(cur))
        return nd_xstrdup(json_string_value(cur));
    if (json_is_number(cur) || json_is_boolean(cur)) {
        char *s = json_dumps(cur, JSON_ENCODE_ANY);
        return s ? s : nd_xstrdup("");
    }
    return nd_xstrdup("");
}

bool nd_field_selector_matches(const struct nd_field_selector *fs, const json_t *obj)
{
    for (size_t i = 0; fs && i < fs->n; i++) {
        char *v = field_text(obj, fs->terms[i].path);
        bool eq = strcmp(v, fs->terms[i].value) == 0;
        free(v);
        if (eq == fs->terms[i].neg)
            return false;
    }
    return true;
}

const char *nd_field_selector_value(const struct nd_field_selector *fs, const char *field)
{
    for (size_t i = 0; fs && i < fs->n; i++)
        if (!fs->terms[i].neg && strcmp(fs->terms[i].field, field) == 0)
            return fs->terms[i].value;
    return NULL;
}

bool nd_field_selector_empty(const struct nd_field_selector *fs)
{
    return !fs || fs->n == 0;
}

char *nd_field_selector_string(const struct nd_field_selector *fs)
{
    struct nd_buf b = ND_BUF_INIT;
    for (size_t i = 0; fs && i < fs->n; i++) {
        nd_buf_addf(&b, "%s%s%s", i ? "," : "", fs->terms[i].field, fs->terms[i].neg ? "!=" : "=");
        for (const char *v = fs->terms[i].value; *v; v++) {
            if (*v == '\\' || *v == ',' || *v == '=')
                nd_buf_addch(&b, '\\');
            nd_buf_addch(&b, *v);
        }
    }
    return nd_buf_detach(&b);
}

void nd_field_selector_free(struct nd_field_selector *fs)
{
    if (!fs)
        return;
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->terms[i].field);
        free(fs->terms[i].path);
        free(fs->terms[i].value);
    }
    free(fs->terms);
    free(fs);
}
