/* label and annotate: KEY=VALUE sets, KEY- removes, with --overwrite for changes. */
#include <stdlib.h>
#include <string.h>

#include "metadata.h"
#include "resolve.h"
#include "write.h"
#include "util/validate.h"
#include "util/xmalloc.h"

struct change {
    char *key;
    char *value; /* NULL: remove */
};

static int parse_changes(const struct nd_opts *o, int first, struct change **out, size_t *n,
                         bool labels, struct nd_status *st)
{
    *out = NULL;
    *n = 0;
    for (int i = first; i < o->npos; i++) {
        const char *a = o->pos[i];
        const char *eq = strchr(a, '=');
        size_t len = strlen(a);
        struct change c = {0};
        if (eq) {
            c.key = nd_xstrndup(a, (size_t)(eq - a));
            c.value = nd_xstrdup(eq + 1);
        } else if (len > 1 && a[len - 1] == '-') {
            c.key = nd_xstrndup(a, len - 1);
        } else {
            return nd_status_set(st, "Usage", NULL, "invalid %s format: %s (want KEY=VALUE or "
                                                    "KEY-)",
                                 labels ? "label" : "annotation", a);
        }
        int bad = labels ? nd_validate_label_key(c.key, c.key, st)
                         : nd_validate_annotation_key(c.key, c.key, st);
        if (!bad && labels && c.value)
            bad = nd_validate_label_value(c.value, c.key, st);
        *out = nd_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = c;
        if (bad) {
            free(st->reason);
            st->reason = nd_xstrdup("Usage");
            return -1;
        }
    }
    if (!*n)
        return nd_status_set(st, "Usage", NULL, "at least one %s update is required",
                             labels ? "label" : "annotation");
    return 0;
}

/* What one label/annotate run applies to every object it names. */
struct meta_edit {
    struct nd_ctx *ctx;
    const struct nd_kind *k;
    const char *ns;
    const char *map; /* "labels" or "annotations" */
    const char *verb, *unverb;
    bool labels, overwrite;
    const struct change *ch;
    size_t nch;
};

/* Append to `names` the objects of e->k matching --selector (or all of them). */
static int select_names(const struct meta_edit *e, const char *selector, json_t *names,
                        struct nd_status *st)
{
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(e->k, e->ns, NULL, NULL, &p);
    if (selector) {
        nd_buf_adds(&p, "?labelSelector=");
        nd_buf_add_urlencoded(&p, selector);
    }
    json_t *list = NULL;
    int rc = nd_call_get(e->ctx, p.data, &list, st);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item)
        json_array_append(names, json_object_get(json_object_get(item, "metadata"), "name"));
    json_decref(list);
    nd_buf_release(&p);
    return rc;
}

/* Fill patch_map with the changes that differ from `cur`; *changed if any, *set if any is
 * a set (not a removal). Refuses to change a value without --overwrite. */
static int diff_changes(const struct meta_edit *e, json_t *cur, json_t *patch_map, bool *changed,
                        bool *set, struct nd_status *st)
{
    for (size_t c = 0; c < e->nch; c++) {
        const struct change *ch = &e->ch[c];
        const char *old = json_string_value(json_object_get(cur, ch->key));
        if (!ch->value) {
            if (old) {
                json_object_set_new(patch_map, ch->key, json_null());
                *changed = true;
            } else if (e->labels) {
                fprintf(stderr, "label \"%s\" not found.\n", ch->key);
            }
            continue;
        }
        if (old && !strcmp(old, ch->value))
            continue;
        if (old && !e->overwrite)
            return nd_status_set(st, "Usage", "add --overwrite to change it",
                                 "'%s' already has a value (%s), and --overwrite is false", ch->key,
                                 old);
        json_object_set_new(patch_map, ch->key, json_string(ch->value));
        *changed = *set = true;
    }
    return 0;
}

/* Merge-patch obj's map with patch_map, guarded by obj's resourceVersion. p is its path. */
static int send_patch(const struct meta_edit *e, struct nd_buf *p, json_t *obj, json_t *patch_map,
                      json_t **after, struct nd_status *st)
{
    json_t *patch = json_pack("{s{sOsO}}", "metadata", e->map, patch_map, "resourceVersion",
                              json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    char *fm = nd_xasprintf("?fieldManager=kubectl-%s", e->ctx->cmd->name);
    nd_buf_adds(p, fm);
    free(fm);
    int rc = nd_call(e->ctx,
                      &(struct nd_call_req){.method = "PATCH",
                                             .path = p->data,
                                             .content_type = "application/merge-patch+json",
                                             .body = patch,
                                             .out = after},
                      st);
    json_decref(patch);
    return rc;
}

/* Apply the changes to the object `name` and print what happened; 0 or its exit code. */
static int edit_object(const struct meta_edit *e, const char *name)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(e->k, e->ns, name, NULL, &p);
    json_t *obj = NULL, *after = NULL;
    int rc = nd_call_get(e->ctx, p.data, &obj, &st);
    json_t *cur = json_object_get(json_object_get(obj, "metadata"), e->map);
    json_t *patch_map = json_object();
    bool changed = false, set = false;
    if (rc == 0)
        rc = diff_changes(e, cur, patch_map, &changed, &set, &st);
    if (rc == 0 && changed)
        rc = send_patch(e, &p, obj, patch_map, &after, &st);
    int code = 0;
    if (rc == 0) {
        char what[ND_KIND_NAME_MAX];
        nd_kind_display_name(e->k, what, sizeof what);
        printf("%s/%s %s\n", what, name,
               !changed ? (e->labels ? "not labeled" : "not annotated")
               : set    ? e->verb
                        : e->unverb);
        fflush(stdout);
    } else {
        code = nd_cli_error(e->ctx, &st);
    }
    nd_status_release(&st);
    json_decref(patch_map);
    json_decref(obj);
    json_decref(after);
    nd_buf_release(&p);
    return code;
}

int nd_edit_metadata(int argc, char **argv, struct nd_ctx *ctx, const char *map,
                     const char *verb, const char *unverb)
{
    struct nd_opts o;
    struct nd_metadata_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct change *ch = NULL;
    size_t nch = 0;
    struct nd_res_list res = {0};
    int worst = 0;
    bool labels = !strcmp(map, "labels");
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    /* KIND NAME KEY=V...  or  KIND/NAME KEY=V...  or  KIND -l SEL KEY=V... */
    int nargs = 1;
    if (o.npos >= 1 && !strchr(o.pos[0], '/') && !opt.selector &&
        !opt.all)
        nargs = 2;
    if (o.npos < nargs || nd_resolve_args(nargs, o.pos, &res, &st) < 0 ||
        parse_changes(&o, nargs, &ch, &nch, labels, &st) < 0) {
        if (!nd_status_failed(&st))
            nd_status_set(&st, "Usage", NULL, "name an object: nodus %s KIND NAME KEY=VALUE",
                          ctx->cmd->name);
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    bool overwrite = opt.overwrite;
    const struct nd_kind *k = res.v[0].k;
    struct meta_edit e = {.ctx = ctx,
                          .k = k,
                          .ns = k->namespaced ? nd_ctx_project(ctx) : NULL,
                          .map = map,
                          .verb = verb,
                          .unverb = unverb,
                          .labels = labels,
                          .overwrite = overwrite,
                          .ch = ch,
                          .nch = nch};
    json_t *names = json_deep_copy(res.v[0].names);
    if (!res.by_name && select_names(&e, opt.selector, names, &st) < 0)
        worst = nd_cli_error(ctx, &st);
    for (size_t i = 0; i < json_array_size(names); i++) {
        int c = edit_object(&e, json_string_value(json_array_get(names, i)));
        if (!worst)
            worst = c;
    }
    json_decref(names);
out:
    for (size_t i = 0; i < nch; i++) {
        free(ch[i].key);
        free(ch[i].value);
    }
    free(ch);
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
