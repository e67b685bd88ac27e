/* labels.c: label selector strings: lexer, parser, matching and canonical form.
 *
 * The lexer and the recursive-descent parser follow k8s.io/apimachinery/pkg/labels token
 * for token, so the same inputs are accepted and the same messages come out; each token
 * also keeps its byte offset so an error can say where it happened. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "selector/internal.h"
#include "selector/selector.h"
#include "util/buf.h"
#include "util/xmalloc.h"

enum tok {
    T_ERROR,
    T_EOS,
    T_CLOSE_PAR,
    T_COMMA,
    T_NOT,
    T_DOUBLE_EQUALS,
    T_EQUALS,
    T_GT,
    T_ID,
    T_IN,
    T_LT,
    T_NOT_EQUALS,
    T_NOT_IN,
    T_OPEN_PAR,
};

struct item {
    enum tok tok;
    char *lit;
    size_t pos;
};

struct parser {
    const char *s;
    size_t pos; /* lexer position */
    struct item *items;
    size_t n, cap, cur;
    struct nd_buf err; /* message of the first error */
    size_t err_pos;
    const char *fix;        /* the error's fix; NULL: the syntax's */
    enum nd_select_use use; /* the empty-value rule's (selector.h) */
};

/* A value of an in/notin/= requirement and where it was written. */
struct val {
    char *s;
    size_t pos;
};

static const struct {
    const char *lit;
    enum tok tok;
} literals[] = {
    {")", T_CLOSE_PAR},   {",", T_COMMA},      {"!", T_NOT},      {"==", T_DOUBLE_EQUALS},
    {"=", T_EQUALS},      {">", T_GT},         {"in", T_IN},      {"<", T_LT},
    {"!=", T_NOT_EQUALS}, {"notin", T_NOT_IN}, {"(", T_OPEN_PAR},
};

static enum tok literal_tok(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++)
        if (strlen(literals[i].lit) == n && memcmp(literals[i].lit, s, n) == 0)
            return literals[i].tok;
    return T_ERROR;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
    return c && strchr("=!(),><", c) != NULL;
}

static void push(struct parser *p, enum tok tok, char *lit, size_t pos)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->items = nd_xrealloc(p->items, p->cap * sizeof *p->items);
    }
    p->items[p->n++] = (struct item){tok, lit, pos};
}

/* One token; the longest run of special characters that still forms an operator. */
static enum tok lex(struct parser *p)
{
    const char *s = p->s;
    while (is_space(s[p->pos]))
        p->pos++;
    size_t start = p->pos;
    if (!s[start]) {
        push(p, T_EOS, nd_xstrdup(""), start);
        return T_EOS;
    }
    if (is_special(s[start])) {
        size_t end = start, best = 0;
        enum tok tok = T_ERROR;
        while (is_special(s[end])) {
            end++;
            enum tok t = literal_tok(s + start, end - start);
            if (t != T_ERROR) {
                tok = t;
                best = end;
            } else if (tok != T_ERROR) {
                break;
            }
        }
        if (tok == T_ERROR) {
            p->pos = end;
            push(
                p, T_ERROR,
                nd_xasprintf("error expected: keyword found '%.*s'", (int)(end - start), s + start),
                start);
            return T_ERROR;
        }
        p->pos = best;
        push(p, tok, nd_xstrndup(s + start, best - start), start);
        return tok;
    }
    while (s[p->pos] && !is_special(s[p->pos]) && !is_space(s[p->pos]))
        p->pos++;
    size_t n = p->pos - start;
    enum tok tok = literal_tok(s + start, n);
    if (tok == T_ERROR)
        tok = T_ID;
    push(p, tok, nd_xstrndup(s + start, n), start);
    return tok;
}

/* In a values context `in` and `notin` are plain identifiers. */
static enum tok as_value(enum tok t)
{
    return t == T_IN || t == T_NOT_IN ? T_ID : t;
}

static struct item *peek(struct parser *p)
{
    return &p->items[p->cur < p->n ? p->cur : p->n - 1];
}

static struct item *take(struct parser *p)
{
    struct item *it = peek(p);
    if (p->cur < p->n)
        p->cur++;
    return it;
}

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
{
    va_list ap;
    nd_buf_reset(&p->err);
    va_start(ap, fmt);
    nd_buf_vaddf(&p->err, fmt, ap);
    va_end(ap);
    p->err_pos = pos;
    return -1;
}

static void free_vals(struct val *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].s);
    free(v);
}

static void add_val(struct val **v, size_t *n, const char *s, size_t pos)
{
    *v = nd_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = (struct val){nd_xstrdup(s), pos};
}

static int cmp_val(const void *a, const void *b)
{
    const struct val *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Kubernetes keeps values in a set: sorted, each once. */
static void sort_unique(struct val *v, size_t *n)
{
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_val);
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        if (out && strcmp(v[out - 1].s, v[i].s) == 0) {
            free(v[i].s);
            continue;
        }
        v[out++] = v[i];
    }
    *n = out;
}

/* "(x,y)" after in/notin; "()" and empty entries mean the value "". */
static int parse_values(struct parser *p, struct val **v, size_t *n)
{
    struct item *it = take(p);
    if (it->tok != T_OPEN_PAR)
        return fail(p, it->pos, "found '%s' expected: '('", it->lit);
    struct item *la = peek(p);
    enum tok t = as_value(la->tok);
    /* apimachinery reads "()" as the set {""}; an empty set is almost always a script's
     * empty variable, so it is refused rather than guessed at. */
    if (t == T_CLOSE_PAR)
        return fail(p, la->pos, "found ')', expected: identifier (an empty set of values "
                                "selects nothing; name at least one value)");
    if (t != T_ID && t != T_COMMA)
        return fail(p, la->pos, "found '%s', expected: ',', ')' or identifier", la->lit);
    for (;;) {
        it = take(p);
        t = as_value(it->tok);
        if (t == T_ID) {
            add_val(v, n, it->lit, it->pos);
            if (*n > ND_SELECTOR_MAX_VALUES)
                return fail(p, it->pos, "found %zu values in a set, more than the limit of %d", *n,
                            ND_SELECTOR_MAX_VALUES);
            struct item *next = peek(p);
            enum tok t2 = as_value(next->tok);
            if (t2 == T_COMMA)
                continue;
            if (t2 == T_CLOSE_PAR)
                break;
            return fail(p, next->pos, "found '%s', expected: ',' or ')'", next->lit);
        } else if (t == T_COMMA) {
            if (*n == 0)
                add_val(v, n, "", it->pos);
            struct item *next = peek(p);
            enum tok t2 = as_value(next->tok);
            if (t2 == T_CLOSE_PAR) {
                add_val(v, n, "", next->pos);
                break;
            }
            if (t2 == T_COMMA) {
                take(p);
                add_val(v, n, "", next->pos);
                if (*n > ND_SELECTOR_MAX_VALUES)
                    return fail(p, next->pos,
                                "found %zu values in a set, more than the limit of %d", *n,
                                ND_SELECTOR_MAX_VALUES);
            }
        } else {
            return fail(p, it->pos, "found '%s', expected: ',', or identifier", it->lit);
        }
    }
    it = take(p);
    if (it->tok != T_CLOSE_PAR)
        return fail(p, it->pos, "found '%s', expected: ')'", la->lit);
    return 0;
}

static int parse_exact_value(struct parser *p, struct val **v, size_t *n)
{
    struct item *la = peek(p);
    enum tok t = as_value(la->tok);
    if (t == T_EOS || t == T_COMMA) {
        add_val(v, n, "", la->pos);
        return 0;
    }
    struct item *it = take(p);
    if (as_value(it->tok) != T_ID)
        return fail(p, it->pos, "found '%s', expected: identifier", it->lit);
    add_val(v, n, it->lit, it->pos);
    return 0;
}

/* Joins the "; "-separated messages of a failed check after `Invalid value: "x": `. */
static void add_invalid(struct nd_buf *b, const char *field, const char *value, const char **msgs,
                        size_t n)
{
    nd_buf_addf(b, "%s: Invalid value: ", field);
    sel_go_quote(b, value);
    nd_buf_adds(b, ": ");
    for (size_t i = 0; i < n; i++)
        nd_buf_addf(b, "%s%s", i ? "; " : "", msgs[i]);
}

/* labels.NewRequirement's checks of the values; errors aggregate as "[a, b]". */
static int check_values(struct parser *p, const char *key, enum sel_op op, const struct val *v,
                        size_t n)
{
    struct nd_buf errs[8];
    size_t nerr = 0, first = 0;
    for (size_t i = 0; i < n && nerr < 8 && (op == SEL_GT || op == SEL_LT); i++) {
        long long x;
        if (sel_parse_int(v[i].s, &x))
            continue;
        nd_buf_init(&errs[nerr], 0);
        nd_buf_addf(&errs[nerr], "values[%zu]: Invalid value: ", i);
        sel_go_quote(&errs[nerr], v[i].s);
        nd_buf_adds(&errs[nerr], ": for 'Gt', 'Lt' operators, the value must be an integer");
        if (!nerr++)
            first = v[i].pos;
    }
    for (size_t i = 0; i < n && nerr < 8; i++) {
        const char *msgs[4];
        size_t m = sel_check_label_value(v[i].s, msgs);
        if (!m)
            continue;
        char *field = nd_xasprintf("values[%zu][%s]", i, key);
        nd_buf_init(&errs[nerr], 0);
        add_invalid(&errs[nerr], field, v[i].s, msgs, m);
        free(field);
        if (!nerr++)
            first = v[i].pos;
    }
    if (!nerr)
        return 0;
    struct nd_buf all = ND_BUF_INIT;
    if (nerr > 1)
        nd_buf_addch(&all, '[');
    for (size_t i = 0; i < nerr; i++) {
        nd_buf_addf(&all, "%s%s", i ? ", " : "", errs[i].data);
        nd_buf_release(&errs[i]);
    }
    if (nerr > 1)
        nd_buf_addch(&all, ']');
    fail(p, first, "%s", all.data);
    nd_buf_release(&all);
    return -1;
}

/* The empty-value rule (selector.h), as the field parser applies it. */
static int check_empty(struct parser *p, const char *key, enum sel_op op, size_t op_pos,
                       const struct val *v, size_t n)
{
    const char *vals[ND_SELECTOR_MAX_VALUES + 1];
    for (size_t i = 0; i < n && i <= ND_SELECTOR_MAX_VALUES; i++)
        vals[i] = v[i].s;
    bool neg = op == SEL_NOT_EQUALS || op == SEL_NOT_IN;
    enum sel_empty rule =
        sel_empty_rule(neg, vals, n <= ND_SELECTOR_MAX_VALUES ? n : ND_SELECTOR_MAX_VALUES, p->use);
    if (rule == SEL_EMPTY_OK)
        return 0;
    p->fix = sel_empty_fix(rule);
    /* "key!=" keeps the words it had before the rule was shared */
    if (rule == SEL_EMPTY_ALL && op == SEL_NOT_EQUALS)
        return fail(p, op_pos, "found '!=' without a value, expected: identifier (to select "
                               "objects without the label, write !%s)", key);
    size_t pos = op_pos;
    for (size_t i = 0; i < n; i++)
        if (!*v[i].s)
            pos = v[i].pos;
    return fail(p, rule == SEL_EMPTY_ALL ? op_pos : pos, "%s %s", key, sel_empty_why(rule));
}

static int parse_requirement(struct parser *p, struct sel_req *r)
{
    struct val *v = NULL;
    size_t n = 0;
    bool not_exists = false;
    struct item *it = take(p);
    if (it->tok == T_NOT) {
        not_exists = true;
        it = take(p);
    }
    if (as_value(it->tok) != T_ID)
        return fail(p, it->pos, "found '%s', expected: identifier", it->lit);
    const char *msgs[4];
    size_t m = sel_check_qualified_name(it->lit, msgs);
    if (m) {
        struct nd_buf b = ND_BUF_INIT;
        add_invalid(&b, "<nil>", it->lit, msgs, m);
        fail(p, it->pos, "%s", b.data);
        nd_buf_release(&b);
        return -1;
    }
    const char *key = it->lit;
    enum tok la = as_value(peek(p)->tok);
    if (not_exists || la == T_EOS || la == T_COMMA) {
        r->key = nd_xstrdup(key);
        r->op = not_exists ? SEL_NOT_EXISTS : SEL_EXISTS;
        return 0;
    }
    it = take(p);
    enum sel_op op;
    switch (it->tok) {
    case T_IN:
        op = SEL_IN;
        break;
    case T_EQUALS:
        op = SEL_EQUALS;
        break;
    case T_DOUBLE_EQUALS:
        op = SEL_DOUBLE_EQUALS;
        break;
    case T_GT:
        op = SEL_GT;
        break;
    case T_LT:
        op = SEL_LT;
        break;
    case T_NOT_IN:
        op = SEL_NOT_IN;
        break;
    case T_NOT_EQUALS:
        op = SEL_NOT_EQUALS;
        break;
    default:
        return fail(p, it->pos, "found '%s', expected: in, notin, =, ==, !=, gt, lt", it->lit);
    }
    size_t op_pos = it->pos;
    int rc =
        op == SEL_IN || op == SEL_NOT_IN ? parse_values(p, &v, &n) : parse_exact_value(p, &v, &n);
    if (rc == 0) {
        sort_unique(v, &n);
        rc = check_empty(p, key, op, op_pos, v, n);
    }
    if (rc == 0)
        rc = check_values(p, key, op, v, n);
    if (rc < 0) {
        free_vals(v, n);
        return -1;
    }
    r->key = nd_xstrdup(key);
    r->op = op;
    r->nvalues = n;
    r->values = nd_xcalloc(n, sizeof *r->values);
    for (size_t i = 0; i < n; i++)
        r->values[i] = v[i].s;
    free(v);
    return 0;
}

static void release_req(struct sel_req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->values);
}

static void add_req(struct nd_selector *sel, struct sel_req *r)
{
    sel->reqs = nd_xrealloc(sel->reqs, (sel->n + 1) * sizeof *sel->reqs);
    sel->reqs[sel->n++] = *r;
}

/* The top level: requirements separated by commas. */
static int parse_all(struct parser *p, struct nd_selector *sel)
{
    for (;;) {
        struct item *la = peek(p);
        enum tok t = as_value(la->tok);
        if (t == T_EOS)
            return 0;
        if (t != T_ID && t != T_NOT)
            return fail(p, la->pos, "found '%s', expected: !, identifier, or 'end of string'",
                        la->lit);
        if (sel->n == ND_SELECTOR_MAX_REQS)
            return fail(p, la->pos, "found %d requirements, more than the limit of %d",
                        ND_SELECTOR_MAX_REQS + 1, ND_SELECTOR_MAX_REQS);
        struct sel_req r = {0};
        if (parse_requirement(p, &r) < 0) {
            char *msg = nd_buf_detach(&p->err);
            fail(p, p->err_pos, "unable to parse requirement: %s", msg);
            free(msg);
            return -1;
        }
        add_req(sel, &r);
        struct item *it = take(p);
        t = as_value(it->tok);
        if (t == T_EOS)
            return 0;
        if (t != T_COMMA)
            return fail(p, it->pos, "found '%s', expected: ',' or 'end of string'", it->lit);
        struct item *next = peek(p);
        enum tok t2 = as_value(next->tok);
        if (t2 != T_ID && t2 != T_NOT)
            return fail(p, next->pos, "found '%s', expected: identifier after ','", next->lit);
    }
}

struct nd_selector *nd_selector_parse(const char *s, struct nd_status *st)
{
    return sel_parse_labels(s, ND_SELECT_READ, st);
}

struct nd_selector *sel_parse_labels(const char *s, enum nd_select_use use, struct nd_status *st)
{
    struct parser p = {.s = s ? s : "", .use = use};
    size_t len = strlen(p.s);
    if (len > ND_SELECTOR_MAX_LEN) {
        nd_status_set(st, "BadRequest", "select with fewer or shorter requirements",
                      "label selector is %zu bytes long, more than the limit of %d", len,
                      ND_SELECTOR_MAX_LEN);
        return NULL;
    }
    struct nd_selector *sel = nd_xcalloc(1, sizeof *sel);
    nd_buf_init(&p.err, 0);
    while (lex(&p) != T_EOS)
        ;
    if (parse_all(&p, sel) < 0) {
        nd_status_set(st, "BadRequest",
                      p.fix ? p.fix
                            : "write requirements such as key=value, key!=value, key in (a,b), "
                              "key notin (a), key or !key, separated by commas",
                      "%s (at character %d)", p.err.data, sel_char_pos(p.s, p.err_pos));
        nd_selector_free(sel);
        sel = NULL;
    } else {
        sel_sort_reqs(sel);
    }
    for (size_t i = 0; i < p.n; i++)
        free(p.items[i].lit);
    free(p.items);
    nd_buf_release(&p.err);
    return sel;
}

void sel_sort_reqs(struct nd_selector *sel)
{
    /* insertion sort: stable, and selectors are short */
    for (size_t i = 1; i < sel->n; i++) {
        struct sel_req r = sel->reqs[i];
        size_t j = i;
        while (j > 0 && strcmp(sel->reqs[j - 1].key, r.key) > 0) {
            sel->reqs[j] = sel->reqs[j - 1];
            j--;
        }
        sel->reqs[j] = r;
    }
}

static bool has_value(const struct sel_req *r, const char *v)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

static bool req_matches(const struct sel_req *r, const json_t *labels)
{
    json_t *lv = labels && json_is_object(labels) ? json_object_get(labels, r->key) : NULL;
    const char *v = lv && json_is_string(lv) ? json_string_value(lv) : "";
    long long a, b;
    switch (r->op) {
    case SEL_IN:
    case SEL_EQUALS:
    case SEL_DOUBLE_EQUALS:
        return lv && has_value(r, v);
    case SEL_NOT_IN:
    case SEL_NOT_EQUALS:
        return !lv || !has_value(r, v);
    case SEL_EXISTS:
        return lv != NULL;
    case SEL_NOT_EXISTS:
        return lv == NULL;
    case SEL_GT:
    case SEL_LT:
        if (!lv || r->nvalues != 1 || !sel_parse_int(v, &a) || !sel_parse_int(r->values[0], &b))
            return false;
        return r->op == SEL_GT ? a > b : a < b;
    }
    return false;
}

bool nd_selector_matches(const struct nd_selector *sel, const json_t *labels)
{
    if (!sel || sel->nothing)
        return false;
    for (size_t i = 0; i < sel->n; i++)
        if (!req_matches(&sel->reqs[i], labels))
            return false;
    return true;
}

bool nd_selector_empty(const struct nd_selector *sel)
{
    return sel && !sel->nothing && sel->n == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *nd_selector_string(const struct nd_selector *sel)
{
    struct nd_buf b = ND_BUF_INIT;
    static const char *const ops[] = {
        [SEL_EQUALS] = "=", [SEL_DOUBLE_EQUALS] = "==", [SEL_NOT_EQUALS] = "!=",
        [SEL_IN] = " in (", [SEL_NOT_IN] = " notin (",  [SEL_GT] = ">",
        [SEL_LT] = "<",
    };
    for (size_t i = 0; sel && !sel->nothing && i < sel->n; i++) {
        const struct sel_req *r = &sel->reqs[i];
        if (i)
            nd_buf_addch(&b, ',');
        if (r->op == SEL_NOT_EXISTS)
            nd_buf_addch(&b, '!');
        nd_buf_adds(&b, r->key);
        if (r->op == SEL_EXISTS || r->op == SEL_NOT_EXISTS)
            continue;
        nd_buf_adds(&b, ops[r->op]);
        /* values print sorted without reordering the selector itself */
        char **vals = nd_xcalloc(r->nvalues ? r->nvalues : 1, sizeof *vals);
        if (r->nvalues) {
            memcpy(vals, r->values, r->nvalues * sizeof *vals);
            qsort(vals, r->nvalues, sizeof *vals, cmp_str);
        }
        for (size_t j = 0; j < r->nvalues; j++)
            nd_buf_addf(&b, "%s%s", j ? "," : "", vals[j]);
        /* the set {""} alone: "()" does not parse (an empty set), "(,)" reads back as it */
        bool set = r->op == SEL_IN || r->op == SEL_NOT_IN;
        if (set && r->nvalues == 1 && !*vals[0])
            nd_buf_addch(&b, ',');
        free(vals);
        if (r->op == SEL_IN || r->op == SEL_NOT_IN)
            nd_buf_addch(&b, ')');
    }
    return nd_buf_detach(&b);
}

const char *nd_selector_value(const struct nd_selector *sel, const char *key)
{
    for (size_t i = 0; sel && !sel->nothing && i < sel->n; i++) {
        const struct sel_req *r = &sel->reqs[i];
        if (strcmp(r->key, key) != 0)
            continue;
        bool pins = r->op == SEL_EQUALS || r->op == SEL_DOUBLE_EQUALS || r->op == SEL_IN;
        return pins && r->nvalues == 1 ? r->values[0] : NULL;
    }
    return NULL;
}

void nd_selector_free(struct nd_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++)
        release_req(&sel->reqs[i]);
    free(sel->reqs);
    free(sel);
}
