/* Kinds and names from the command line; see resolve.h. */
#include "resolve.h"

#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"
#include "util/xmalloc.h"

/* Names made for the suggestions (kind.group forms), freed with the suggestions. */
struct made {
    char **v;
    size_t n;
};

static const char *make(struct made *m, char *s)
{
    m->v = nd_xrealloc(m->v, (m->n + 1) * sizeof *m->v);
    return m->v[m->n++] = s;
}

static void made_release(struct made *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i]);
    free(m->v);
}

/* Adds the names of one kind: plural, singular, short names, and with a dotted input
 * their `.group` forms. */
static void add_names(struct nd_suggest *sg, struct made *m, const void *key, const char *plural,
                      const char *singular, const char *const *shorts, const char *group,
                      bool dotted)
{
    nd_suggest_add(sg, plural, key);
    if (singular && *singular)
        nd_suggest_add(sg, singular, key);
    for (size_t i = 0; shorts && shorts[i]; i++)
        nd_suggest_add(sg, shorts[i], key);
    if (dotted && group && *group) {
        nd_suggest_add(sg, make(m, nd_xasprintf("%s.%s", plural, group)), key);
        if (singular && *singular)
            nd_suggest_add(sg, make(m, nd_xasprintf("%s.%s", singular, group)), key);
    }
}

/* The fix of an unknown kind: `did you mean jobs? list the kinds: nodus api-resources`. */
static void set_unknown(struct nd_suggest *sg, const char *name, struct nd_status *st)
{
    struct nd_buf b;
    nd_buf_init(&b, 0);
    nd_status_set(st, "Usage", "list the kinds: nodus api-resources",
                  "the server doesn't have a resource type \"%s\"", name);
    if (nd_suggest_join(sg, NULL, NULL, &b))
        nd_status_set_fix(st, "did you mean %s? list the kinds: nodus api-resources", b.data);
    nd_buf_release(&b);
}

const struct nd_kind *nd_resolve_kind(const char *name, struct nd_status *st)
{
    const struct nd_kind *k = nd_kind_lookup(name);
    if (k)
        return k;
    struct nd_suggest sg;
    struct made m = {0};
    bool dotted = strchr(name, '.') != NULL;
    nd_suggest_init_strict(&sg, name);
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *c = &nd_kinds[i];
        if (c->alias_plural)
            add_names(&sg, &m, c, c->alias_plural, c->alias_singular, NULL, NULL, false);
        add_names(&sg, &m, c, c->plural, c->singular, c->short_names, c->group, dotted);
    }
    set_unknown(&sg, name, st);
    nd_suggest_release(&sg);
    made_release(&m);
    return NULL;
}

void nd_resolve_unknown_served(const json_t *resources, const char *name, struct nd_status *st)
{
    struct nd_suggest sg;
    struct made m = {0};
    bool dotted = strchr(name, '.') != NULL;
    nd_suggest_init_strict(&sg, name);
    size_t i;
    const json_t *r;
    json_array_foreach(resources, i, r)
    {
        const char *plural = json_string_value(json_object_get(r, "name"));
        if (!plural)
            continue;
        const json_t *sn = json_object_get(r, "shortNames");
        size_t ns = json_array_size(sn);
        const char **shorts = nd_xcalloc(ns + 1, sizeof *shorts);
        for (size_t j = 0, k = 0; j < ns; j++)
            if (json_string_value(json_array_get(sn, j)))
                shorts[k++] = json_string_value(json_array_get(sn, j));
        add_names(&sg, &m, r, plural, json_string_value(json_object_get(r, "singularName")),
                  shorts, json_string_value(json_object_get(r, "group")), dotted);
        free(shorts);
    }
    set_unknown(&sg, name, st);
    nd_suggest_release(&sg);
    made_release(&m);
}

static struct nd_res *add(struct nd_res_list *l, const struct nd_kind *k)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].k == k)
            return &l->v[i];
    l->v = nd_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n].k = k;
    l->v[l->n].names = json_array();
    return &l->v[l->n++];
}

static bool is_category(const char *name)
{
    for (size_t i = 0; i < nd_kind_count(); i++)
        if (nd_kind_in_category(&nd_kinds[i], name))
            return true;
    return false;
}

/* Adds the kinds of a comma-separated list (categories expanded). */
static int add_kinds(struct nd_res_list *l, const char *list, struct nd_status *st)
{
    char *copy = nd_xstrdup(list);
    char *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!nd_kind_lookup(t) && is_category(t)) {
            for (size_t i = 0; i < nd_kind_count(); i++)
                if (nd_kind_in_category(&nd_kinds[i], t))
                    add(l, &nd_kinds[i]);
            l->several = true;
            continue;
        }
        const struct nd_kind *k = nd_resolve_kind(t, st);
        if (!k) {
            rc = -1;
            break;
        }
        add(l, k);
    }
    free(copy);
    if (rc == 0 && l->n == 0)
        return nd_status_set(st, "Usage", "list the kinds: nodus api-resources",
                             "the server doesn't have a resource type \"\"");
    return rc;
}

int nd_resolve_args(int npos, char **pos, struct nd_res_list *out, struct nd_status *st)
{
    memset(out, 0, sizeof *out);
    if (npos == 0)
        return nd_status_set(st, "Usage", "list the kinds: nodus api-resources",
                             "You must specify the type of resource.");
    bool slash = strchr(pos[0], '/') != NULL;
    if (slash) {
        /* KIND/NAME pairs only */
        for (int i = 0; i < npos; i++) {
            const char *s = strchr(pos[i], '/');
            if (!s)
                return nd_status_set(st, "Usage", NULL,
                                     "there is no need to specify a resource type as a separate "
                                     "argument when passing arguments in resource/name form (e.g. "
                                     "'nodus get resource/<resource_name>' instead of 'nodus get "
                                     "resource resource/<resource_name>'");
            if (s == pos[i] || !s[1])
                return nd_status_set(st, "Usage", NULL, "arguments in resource/name form must "
                                                        "have a single resource and name");
            if (strchr(s + 1, '/'))
                return nd_status_set(st, "Usage", NULL, "arguments in resource/name form may "
                                                        "not have more than one slash");
            char *kind = nd_xstrndup(pos[i], (size_t)(s - pos[i]));
            const struct nd_kind *k = nd_resolve_kind(kind, st);
            free(kind);
            if (!k)
                return -1;
            json_array_append_new(add(out, k)->names, json_string(s + 1));
        }
        out->by_name = true;
        out->several = out->n > 1;
        return 0;
    }
    if (add_kinds(out, pos[0], st) < 0)
        return -1;
    if (out->n > 1)
        out->several = true;
    for (int i = 1; i < npos; i++) {
        if (strchr(pos[i], '/'))
            return nd_status_set(st, "Usage", NULL,
                                 "there is no need to specify a resource type as a separate "
                                 "argument when passing arguments in resource/name form (e.g. "
                                 "'nodus get resource/<resource_name>' instead of 'nodus get "
                                 "resource resource/<resource_name>'");
        for (size_t j = 0; j < out->n; j++)
            json_array_append_new(out->v[j].names, json_string(pos[i]));
        out->by_name = true;
    }
    return 0;
}

void nd_res_list_release(struct nd_res_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        json_decref(l->v[i].names);
    free(l->v);
    memset(l, 0, sizeof *l);
}
