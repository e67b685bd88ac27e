/* parser.c: JSONPath templates to a syntax tree, following client-go's parser.go step by
 * step (the same inputs are accepted, the same messages come out). Like client-go, the
 * pieces inside brackets and filters are parsed again as actions of their own
 * ("{[0]}", "{.key}", "{@.x}"); an error inside such a piece points at the piece. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpath/internal.h"
#include "util/xmalloc.h"

struct parser {
    const char *in;
    size_t len, pos, start, width;
    bool sub; /* a re-parsed piece: errors point at `at` in the template */
    size_t at;
    struct nd_buf *err;
    size_t *err_pos;
};

struct jp_node *jp_node_new(enum jp_kind kind)
{
    struct jp_node *n = nd_xcalloc(1, sizeof *n);
    n->kind = kind;
    return n;
}

void jp_node_add(struct jp_node *list, struct jp_node *kid)
{
    list->kids = nd_xrealloc(list->kids, (list->nkids + 1) * sizeof *list->kids);
    list->kids[list->nkids++] = kid;
}

void jp_node_free(struct jp_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        jp_node_free(n->kids[i]);
    free(n->kids);
    free(n->text);
    free(n);
}

static struct jp_node *text_node(enum jp_kind kind, const char *s, size_t n)
{
    struct jp_node *node = jp_node_new(kind);
    node->text = nd_xstrndup(s, n);
    node->text_len = n;
    return node;
}

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
{
    if (p->err->len == 0) {
        va_list ap;
        va_start(ap, fmt);
        nd_buf_vaddf(p->err, fmt, ap);
        va_end(ap);
        *p->err_pos = p->sub ? p->at : pos;
    }
    return -1;
}

static long next(struct parser *p)
{
    if (p->pos >= p->len) {
        p->width = 0;
        return JP_EOF;
    }
    long r = jp_decode(p->in + p->pos, p->len - p->pos, &p->width);
    p->pos += p->width;
    return r;
}

static void backup(struct parser *p)
{
    p->pos -= p->width;
}

static long peek(struct parser *p)
{
    long r = next(p);
    backup(p);
    return r;
}

/* The text since the last consume. */
static const char *consume(struct parser *p, size_t *n)
{
    const char *s = p->in + p->start;
    *n = p->pos - p->start;
    p->start = p->pos;
    return s;
}

static int parse_text(struct parser *p, struct jp_node *root);

/* Parses "{" text "}" on its own and returns the action's list (client-go's parseAction). */
static struct jp_node *parse_piece(struct parser *outer, const char *text, size_t n, size_t at)
{
    struct nd_buf src = ND_BUF_INIT;
    nd_buf_addch(&src, '{');
    nd_buf_add(&src, text, n);
    nd_buf_addch(&src, '}');
    struct parser p = {src.data,   src.len,       0, 0, 0, true, outer->sub ? outer->at : at,
                       outer->err, outer->err_pos};
    struct jp_node *root = jp_node_new(JP_LIST), *list = NULL;
    if (parse_text(&p, root) == 0) {
        list = root->kids[0];
        root->kids[0] = NULL;
    }
    jp_node_free(root);
    nd_buf_release(&src);
    return list;
}

static int parse_field(struct parser *p, struct jp_node *cur)
{
    size_t n;
    consume(p, &n);
    for (;;) {
        long r = next(p);
        if (r == '\\') {
            next(p);
        } else if (jp_is_terminator(r)) {
            backup(p);
            break;
        }
    }
    const char *s = consume(p, &n);
    if (n == 1 && s[0] == '*') {
        jp_node_add(cur, jp_node_new(JP_WILDCARD));
        return 0;
    }
    /* client-go drops every backslash of a field name */
    struct jp_node *f = text_node(JP_FIELD, s, n);
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\\')
            f->text[out++] = s[i];
    f->text[out] = '\0';
    f->text_len = out;
    jp_node_add(cur, f);
    return 0;
}

static int parse_recursive(struct parser *p, struct jp_node *cur)
{
    if (cur->nkids && cur->kids[cur->nkids - 1]->kind == JP_RECURSIVE)
        return fail(p, p->pos, "invalid multiple recursive descent");
    size_t n;
    p->pos += 2;
    consume(p, &n);
    jp_node_add(cur, jp_node_new(JP_RECURSIVE));
    if (jp_is_alnum(peek(p)))
        return parse_field(p, cur);
    return 0;
}

static int parse_number(struct parser *p, struct jp_node *cur)
{
    size_t at = p->pos, n;
    long r = peek(p);
    if (r == '+' || r == '-')
        next(p);
    do
        r = next(p);
    while (r == '.' || jp_is_digit(r));
    backup(p);
    const char *s = consume(p, &n);
    struct jp_node *node;
    long long i;
    double d;
    if (jp_atoi(s, n, &i)) {
        node = jp_node_new(JP_INT);
        node->ival = i;
    } else if (jp_parse_float(s, n, &d)) {
        node = jp_node_new(JP_FLOAT);
        node->fval = d;
    } else {
        return fail(p, at, "cannot parse number %.*s", (int)n, s);
    }
    jp_node_add(cur, node);
    return 0;
}

static int parse_identifier(struct parser *p, struct jp_node *cur)
{
    size_t n;
    while (!jp_is_terminator(next(p)))
        ;
    backup(p);
    const char *s = consume(p, &n);
    if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0)) {
        struct jp_node *b = jp_node_new(JP_BOOL);
        b->bval = n == 4;
        jp_node_add(cur, b);
    } else {
        jp_node_add(cur, text_node(JP_IDENT, s, n));
    }
    return 0;
}

/* ^(-?\d*)(:-?\d*)?(:-?\d*)?$ : fills the three groups (NULL when absent). */
static bool slice_groups(const char *t, size_t n, const char *g[3], size_t gl[3])
{
    size_t i = 0;
    for (int k = 0; k < 3; k++) {
        size_t s = i;
        g[k] = NULL;
        gl[k] = 0;
        if (k > 0) {
            if (i >= n || t[i] != ':')
                continue;
            i++;
        }
        if (i < n && t[i] == '-')
            i++;
        while (i < n && t[i] >= '0' && t[i] <= '9')
            i++;
        g[k] = t + s;
        gl[k] = i - s;
    }
    return i == n;
}

static int parse_slice(struct parser *p, struct jp_node *cur, const char *t, size_t n, size_t at)
{
    const char *g[3];
    size_t gl[3];
    if (!slice_groups(t, n, g, gl))
        return fail(p, at, "invalid array index %.*s", (int)n, t);
    struct jp_node *a = jp_node_new(JP_ARRAY);
    for (int i = 0; i < 3; i++) {
        struct jp_param *pr = &a->params[i];
        if (gl[i] == 0) {
            if (i == 1) {
                /* [n] is [n:n+1], marked so that [-1] can reach the end */
                pr->known = true;
                pr->value = (long long)((unsigned long long)a->params[0].value + 1);
                pr->derived = true;
            }
            continue;
        }
        const char *v = i > 0 ? g[i] + 1 : g[i];
        size_t vl = i > 0 ? gl[i] - 1 : gl[i];
        if (i > 0 && vl == 0)
            continue;
        pr->known = true;
        if (!jp_atoi(v, vl, &pr->value)) {
            jp_node_free(a);
            return fail(p, at, "array index %.*s is not a number", (int)vl, v);
        }
    }
    jp_node_add(cur, a);
    return 0;
}

static int parse_array(struct parser *p, struct jp_node *cur, size_t at)
{
    for (;;) {
        long r = next(p);
        if (r == JP_EOF || r == '\n')
            return fail(p, at, "unterminated array");
        if (r == ']')
            break;
    }
    size_t n;
    const char *s = consume(p, &n);
    const char *t = s + 1;
    size_t tn = n - 2;
    if (tn == 1 && t[0] == '*')
        t = ":";
    if (memchr(t, ',', tn)) {
        struct jp_node *u = jp_node_new(JP_UNION);
        const char *piece = t, *end = t + tn;
        for (;;) {
            const char *comma = memchr(piece, ',', (size_t)(end - piece));
            const char *stop = comma ? comma : end, *a = piece;
            while (a < stop && *a == ' ')
                a++;
            while (stop > a && stop[-1] == ' ')
                stop--;
            struct nd_buf b = ND_BUF_INIT;
            nd_buf_addf(&b, "[%.*s]", (int)(stop - a), a);
            struct jp_node *list = parse_piece(p, b.data, b.len, at);
            nd_buf_release(&b);
            if (!list) {
                jp_node_free(u);
                return -1;
            }
            jp_node_add(u, list);
            if (!comma)
                break;
            piece = comma + 1;
        }
        jp_node_add(cur, u);
        return 0;
    }
    if (tn >= 2 && t[0] == '\'' && t[tn - 1] == '\'' && !memchr(t + 1, '\'', tn - 2)) {
        /* ['key'] is .key, re-parsed: a dotted key becomes a path, as in client-go */
        struct nd_buf b = ND_BUF_INIT;
        nd_buf_addf(&b, ".%.*s", (int)(tn - 2), t + 1);
        struct jp_node *list = parse_piece(p, b.data, b.len, at);
        nd_buf_release(&b);
        if (!list)
            return -1;
        for (size_t i = 0; i < list->nkids; i++)
            jp_node_add(cur, list->kids[i]);
        list->nkids = 0;
        jp_node_free(list);
        return 0;
    }
    return parse_slice(p, cur, t, tn, at + 1);
}

static bool is_op_char(char c)
{
    return c == '!' || c == '<' || c == '>' || c == '=';
}

static int parse_filter(struct parser *p, struct jp_node *cur)
{
    size_t at = p->pos, n;
    bool begin = false, end = false;
    long pair = 0;
    p->pos += 3;
    consume(p, &n);
    for (;;) {
        long r = next(p);
        if (r == JP_EOF || r == '\n')
            return fail(p, at, "unterminated filter");
        if (r == '"' || r == '\'') {
            if (!begin) {
                begin = true;
                pair = r;
                continue;
            }
            if (p->in[p->pos - 2] != '\\' && r == pair)
                end = true;
        } else if (r == ')' && begin == end) {
            break;
        }
    }
    size_t close_at = p->pos;
    if (next(p) != ']')
        return fail(p, close_at, "unclosed array expect ]");
    const char *t = consume(p, &n);
    size_t tn = n - 2;
    /* ^([^!<>=]+)([!<>=]+)(.+?)$ */
    size_t i = 0, j;
    while (i < tn && !is_op_char(t[i]))
        i++;
    for (j = i; j < tn && is_op_char(t[j]); j++)
        ;
    if (j == tn && j - i >= 2)
        j--; /* the right side takes one character back */
    struct jp_node *f = jp_node_new(JP_FILTER), *left, *right;
    if (i == 0 || j == i || j == tn) {
        left = parse_piece(p, t, tn, at);
        right = jp_node_new(JP_LIST);
        f->text = nd_xstrdup("exists");
    } else {
        left = parse_piece(p, t, i, at);
        right = left ? parse_piece(p, t + j, tn - j, at) : NULL;
        f->text = nd_xstrndup(t + i, j - i);
    }
    f->text_len = strlen(f->text);
    if (left)
        jp_node_add(f, left);
    if (right)
        jp_node_add(f, right);
    if (!left || !right) {
        jp_node_free(f);
        return -1;
    }
    jp_node_add(cur, f);
    return 0;
}

static int parse_quote(struct parser *p, struct jp_node *cur, long quote, size_t at)
{
    for (;;) {
        long r = next(p);
        if (r == JP_EOF || r == '\n')
            return fail(p, at, "unterminated quoted string");
        if (r == quote && p->in[p->pos - 2] != '\\')
            break;
    }
    size_t n, vn;
    const char *s = consume(p, &n);
    char *v = jp_unquote(s, n, &vn);
    if (!v)
        return fail(p, at, "unquote string %.*s error invalid syntax", (int)n, s);
    struct jp_node *t = jp_node_new(JP_TEXT);
    t->text = v;
    t->text_len = vn;
    jp_node_add(cur, t);
    return 0;
}

/* Inside "{...}" up to and including the closing brace. */
static int parse_action(struct parser *p, struct jp_node *cur)
{
    for (;;) {
        const char *rest = p->in + p->pos;
        size_t rl = p->len - p->pos, n;
        int rc = 0;
        if (rl >= 1 && rest[0] == '}') {
            p->pos++;
            consume(p, &n);
            return 0;
        }
        if (rl >= 3 && memcmp(rest, "[?(", 3) == 0) {
            rc = parse_filter(p, cur);
        } else if (rl >= 2 && memcmp(rest, "..", 2) == 0) {
            rc = parse_recursive(p, cur);
        } else {
            size_t at = p->pos;
            long r = next(p);
            if (r == JP_EOF || r == '\r' || r == '\n') {
                rc = fail(p, at, "unclosed action");
            } else if (r == ' ' || r == '@' || r == '$') {
                consume(p, &n);
            } else if (r == '[') {
                rc = parse_array(p, cur, at);
            } else if (r == '"' || r == '\'') {
                rc = parse_quote(p, cur, r, at);
            } else if (r == '.') {
                rc = parse_field(p, cur);
            } else if (r == '+' || r == '-' || jp_is_digit(r)) {
                backup(p);
                rc = parse_number(p, cur);
            } else if (jp_is_alnum(r)) {
                backup(p);
                rc = parse_identifier(p, cur);
            } else {
                struct nd_buf d = ND_BUF_INIT;
                jp_add_rune_desc(&d, r);
                rc = fail(p, at, "unrecognized character in action: %s", d.data);
                nd_buf_release(&d);
            }
        }
        if (rc < 0)
            return -1;
    }
}

static int parse_text(struct parser *p, struct jp_node *root)
{
    for (;;) {
        const char *brace = memchr(p->in + p->pos, '{', p->len - p->pos);
        size_t n;
        p->pos = brace ? (size_t)(brace - p->in) : p->len;
        if (p->pos > p->start) {
            const char *s = consume(p, &n);
            jp_node_add(root, text_node(JP_TEXT, s, n));
        }
        if (!brace)
            return 0;
        p->pos++;
        consume(p, &n);
        struct jp_node *list = jp_node_new(JP_LIST);
        jp_node_add(root, list);
        if (parse_action(p, list) < 0)
            return -1;
    }
}

struct jp_node *jp_parse(const char *in, size_t len, struct nd_buf *err, size_t *err_pos)
{
    struct parser p = {in, len, 0, 0, 0, false, 0, err, err_pos};
    struct jp_node *root = jp_node_new(JP_LIST);
    if (parse_text(&p, root) < 0) {
        jp_node_free(root);
        return NULL;
    }
    return root;
}
