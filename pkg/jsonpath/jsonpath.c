/* jsonpath.c: the public face of the JSONPath module: parse, execute, eval, relaxed. */
#include <stdlib.h>
#include <string.h>

#include "jsonpath/internal.h"
#include "jsonpath/jsonpath.h"
#include "util/xmalloc.h"

#define FIX                                                                                        \
    "write expressions such as {.items[*].metadata.name} or "                                      \
    "{range .items[*]}{.metadata.name}{\"\\n\"}{end}"

static int char_pos(const char *s, size_t off)
{
    int n = 1;
    for (size_t i = 0; i < off && s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            n++;
    return n;
}

struct nd_jsonpath *nd_jsonpath_parse(const char *tmpl, struct nd_status *st)
{
    struct nd_buf err = ND_BUF_INIT;
    size_t err_pos = 0;
    tmpl = tmpl ? tmpl : "";
    struct jp_node *root = jp_parse(tmpl, strlen(tmpl), &err, &err_pos);
    if (!root) {
        nd_status_set(st, "BadRequest", FIX, "%s (at character %d)", err.data,
                      char_pos(tmpl, err_pos));
        nd_buf_release(&err);
        return NULL;
    }
    nd_buf_release(&err);
    struct nd_jsonpath *jp = nd_xcalloc(1, sizeof *jp);
    jp->root = root;
    return jp;
}

void nd_jsonpath_free(struct nd_jsonpath *jp)
{
    if (!jp)
        return;
    jp_node_free(jp->root);
    free(jp);
}

static void release_lists(struct jp_vlist *lists, size_t n)
{
    for (size_t i = 0; i < n; i++)
        jp_vlist_release(&lists[i]);
    free(lists);
}

int nd_jsonpath_execute(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing_keys,
                        struct nd_buf *out, struct nd_status *st)
{
    struct nd_buf err = ND_BUF_INIT;
    struct jp_vlist *lists;
    size_t n;
    if (jp_find(jp, data, allow_missing_keys, &err, &lists, &n) < 0) {
        nd_status_set(st, "BadRequest", NULL, "%s", err.data);
        nd_buf_release(&err);
        return -1;
    }
    nd_buf_release(&err);
    size_t start = out->len;
    bool was_full = out->overflow;
    out->overflow = false;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < lists[i].n; k++) {
            jp_print_val(out, &lists[i].v[k]);
            if (k + 1 < lists[i].n)
                nd_buf_addch(out, ' ');
        }
    }
    release_lists(lists, n);
    if (out->overflow) {
        nd_buf_truncate(out, start);
        return nd_status_set(st, "BadRequest", NULL, "jsonpath output is larger than %zu bytes",
                             out->max);
    }
    out->overflow = was_full;
    return 0;
}

json_t *nd_jsonpath_eval(const struct nd_jsonpath *jp, const json_t *data, bool allow_missing_keys,
                         struct nd_status *st)
{
    struct nd_buf err = ND_BUF_INIT;
    struct jp_vlist *lists;
    size_t n;
    if (jp_find(jp, data, allow_missing_keys, &err, &lists, &n) < 0) {
        nd_status_set(st, "BadRequest", NULL, "%s", err.data);
        nd_buf_release(&err);
        return NULL;
    }
    nd_buf_release(&err);
    json_t *all = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *one = json_array();
        for (size_t k = 0; k < lists[i].n; k++) {
            json_t *v = lists[i].v[k].j;
            json_array_append(one, v ? v : json_null());
        }
        json_array_append_new(all, one);
    }
    release_lists(lists, n);
    return all;
}

/* ^\{\.?([^{}]+)\}$|^\.?([^{}]+)$ : the field spec, or NULL. */
static char *relaxed_spec(const char *s, size_t n)
{
    if (n >= 2 && s[0] == '{' && s[n - 1] == '}') {
        const char *in = s + 1;
        size_t m = n - 2;
        if (m > 1 && in[0] == '.')
            in++, m--;
        if (m > 0 && !memchr(in, '{', m) && !memchr(in, '}', m))
            return nd_xstrndup(in, m);
    }
    if (n > 1 && s[0] == '.')
        s++, n--;
    if (n > 0 && !memchr(s, '{', n) && !memchr(s, '}', n))
        return nd_xstrndup(s, n);
    return NULL;
}

char *nd_jsonpath_relaxed(const char *expr)
{
    if (!expr || !*expr)
        return nd_xstrdup("");
    char *spec = relaxed_spec(expr, strlen(expr));
    if (!spec)
        return NULL;
    char *out = nd_xasprintf("{.%s}", spec);
    free(spec);
    return out;
}
