/* nodus crds: the CustomResourceDefinitions of the nodus.dev kinds (kinds/crd.h), for
 * `nodus crds | kubectl apply -f -`. Offline: everything comes from the kind registry
 * built into nodus, not from a server. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kinds/crd.h"
#include "kinds/registry.h"
#include "commands.h"
#include "json/json.h"
#include "print/print.h"
#include "util/suggest.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

struct crds_opts {
    const char *output;
    struct nd_strings kind;
};

#define TO(f) ND_TO(struct crds_opts, f)
const struct nd_flag cmd_crds_flags[] = {
    {"output", 'o', ND_STRING, "FORMAT",
     "yaml (the default: documents separated by ---) or json (a List)", "=yaml json", TO(output)},
    {"kind", 0, ND_STRINGS, "KIND",
     "only this kind (Job, jobs, nj ...; repeatable, or comma-separated)", "kinds", TO(kind)},
    ND_FLAGS_END(struct crds_opts),
};

static bool is_nodus(const struct nd_kind *k)
{
    return strcmp(k->group, "nodus.dev") == 0;
}

/* The nodus.dev kind `name` names (any case; Kind, plural, singular, short name,
 * name.nodus.dev), or NULL with st: Usage, with the names it may have meant. */
static const struct nd_kind *find_kind(const char *name, struct nd_status *st)
{
    const struct nd_kind *k = nd_kind_lookup(name);
    if (k && is_nodus(k))
        return k;
    if (k) {
        nd_status_set(st, "Usage", "without --kind, every nodus.dev kind: nodus crds",
                      "%s is a core Kubernetes kind, which every cluster serves already: "
                      "nodus crds prints the nodus.dev kinds only",
                      k->kind);
        return NULL;
    }
    struct nd_suggest sg;
    nd_suggest_init_strict(&sg, name);
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *c = &nd_kinds[i];
        if (!is_nodus(c))
            continue;
        nd_suggest_add(&sg, c->plural, c);
        nd_suggest_add(&sg, c->singular, c);
        for (const char *const *s = c->short_names; s && *s; s++)
            nd_suggest_add(&sg, *s, c);
        nd_suggest_add(&sg, c->kind, c);
    }
    nd_status_set(st, "Usage", "without --kind, every nodus.dev kind: nodus crds",
                  "no nodus.dev kind \"%s\"", name);
    struct nd_buf b = ND_BUF_INIT;
    if (nd_suggest_join(&sg, NULL, NULL, &b))
        nd_status_set_fix(st, "did you mean %s? without --kind, every nodus.dev kind: nodus crds",
                          b.data);
    nd_buf_release(&b);
    nd_suggest_release(&sg);
    return NULL;
}

int cmd_crds(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct crds_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    json_t *crds = json_array(), *list = NULL;
    bool *want = nd_xcalloc(nd_kind_count(), sizeof *want);
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos > 0) {
        rc = nd_cli_usage(ctx, "unexpected argument \"%s\": name kinds with --kind", o.pos[0]);
        goto out;
    }
    const char *fmt = opt.output;
    bool json = fmt && strcasecmp(fmt, "json") == 0;
    if (fmt && !json && strcasecmp(fmt, "yaml") != 0) {
        rc = nd_cli_usage(ctx, "--output %s is not available: use yaml or json", fmt);
        goto out;
    }
    size_t i;
    for (i = 0; i < opt.kind.n; i++) {
        const struct nd_kind *k = find_kind(opt.kind.v[i], &st);
        if (!k) {
            rc = nd_cli_error(ctx, &st);
            goto out;
        }
        want[k - nd_kinds] = true;
    }
    /* in the registry's order, each kind once, whatever order --kind named them in */
    for (i = 0; i < nd_kind_count(); i++) {
        if (!is_nodus(&nd_kinds[i]) || (opt.kind.n > 0 && !want[i]))
            continue;
        json_t *crd = nd_crd_new(&nd_kinds[i], &st);
        if (!crd) {
            fflush(stdout);
            fprintf(stderr, "error: %s\n", st.message ? st.message : "cannot build a CRD");
            rc = 1;
            goto out;
        }
        json_array_append_new(crds, crd);
    }
    if (json) {
        list = json_array_size(crds) == 1 ? json_incref(json_array_get(crds, 0))
                                          : nd_print_list_new(crds);
        nd_json_dump(list, &out, ND_JSON_PRETTY);
        nd_buf_addch(&out, '\n');
    } else if (nd_yaml_dump_all(crds, &out, 0, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    nd_out(&out);
out:
    free(want);
    json_decref(list);
    json_decref(crds);
    nd_buf_release(&out);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
