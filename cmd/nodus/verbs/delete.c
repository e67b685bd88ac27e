/* nodus delete: delete objects by name, by manifest (-f), by selector (-l,
 * --field-selector) or all of a kind (--all), with the propagation policy of --cascade, and wait until they are gone
 * (by watching) unless --wait=false. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "commands.h"
#include "manifest.h"
#include "resolve.h"
#include "watchobj.h"
#include "write.h"
#include "selector/selector.h"
#include "util/term.h"
#include "util/xmalloc.h"

const struct nd_flag cmd_delete_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "delete the objects of these manifests", "files"},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL},
    {"selector", 'l', ND_STRING, "SELECTOR", "delete the objects matching a label selector", NULL},
    {"field-selector", 0, ND_STRING, "SELECTOR",
     "delete the objects matching a field selector (status.phase=Failed)", NULL},
    {"all", 0, ND_BOOL, NULL, "delete every object of the kinds given", NULL},
    {"cascade", 0, ND_STRING, "POLICY",
     "background (default), foreground or orphan: what happens to owned objects",
     "=background foreground orphan"},
    {"wait", 0, ND_BOOL, NULL, "wait until the objects are gone (default true)", NULL},
    {"timeout", 0, ND_DURATION, "DURATION", "how long to wait (default: forever)", NULL},
    {"ignore-not-found", 0, ND_BOOL, NULL, "a missing object is not an error", NULL},
    {"dry-run", 0, ND_STRING, "MODE", "none, client or server", "=none client server"},
    {"output", 'o', ND_STRING, "FORMAT", "name: print kind.group/name of each deleted object",
     "=name"},
    {"yes", 'y', ND_BOOL, NULL, "do not ask before deleting several objects", NULL},
    {NULL},
};

struct target {
    const struct nd_kind *k;
    char *ns;
    char *name;
    char *uid;
    const char *source; /* the -f file it came from (BORROWED), or NULL */
};

struct targets {
    struct target *v;
    size_t n;
};

static void add(struct targets *t, const struct nd_kind *k, const char *ns, const char *name)
{
    t->v = nd_xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    t->v[t->n].k = k;
    t->v[t->n].ns = nd_xstrdup(ns ? ns : "");
    t->v[t->n].name = nd_xstrdup(name);
    t->v[t->n].uid = NULL;
    t->v[t->n].source = NULL;
    t->n++;
}

static void targets_release(struct targets *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].ns);
        free(t->v[i].name);
        free(t->v[i].uid);
    }
    free(t->v);
}

/* The selectors of a delete, checked as the server checks a collection write before
 * anything is listed: an empty value selects nothing here (selector.h). */
struct sels {
    const char *labels, *fields; /* -l, --field-selector; NULL: not given */
};

/* Every object of a kind (matching -l and --field-selector when given) becomes a target. */
static int add_listed(struct nd_ctx *ctx, struct targets *t, const struct nd_kind *k,
                      const char *ns, const struct sels *sel, struct nd_status *st)
{
    struct nd_select check;
    struct nd_status bad = ND_STATUS_INIT;
    if (nd_select_parse(&check, sel->labels, sel->fields, k->field_selectors, ND_SELECT_WRITE,
                        &bad) < 0) {
        /* the client's own refusal (exit 2), in the server's words */
        nd_status_set(st, "Usage", bad.fix, "%s", bad.message);
        nd_status_release(&bad);
        return -1;
    }
    nd_select_release(&check);
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(k, ns, NULL, NULL, &p);
    char sep = '?';
    if (sel->labels) {
        nd_buf_addf(&p, "%clabelSelector=", sep);
        nd_buf_add_urlencoded(&p, sel->labels);
        sep = '&';
    }
    if (sel->fields) {
        nd_buf_addf(&p, "%cfieldSelector=", sep);
        nd_buf_add_urlencoded(&p, sel->fields);
    }
    json_t *list = NULL;
    int rc = nd_get(ctx, p.data, &list, st);
    nd_buf_release(&p);
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(list, "items"), i, obj) {
        const json_t *m = json_object_get(obj, "metadata");
        add(t, k, json_string_value(json_object_get(m, "namespace")),
            json_string_value(json_object_get(m, "name")));
    }
    json_decref(list);
    return rc;
}

static const char *policy(const char *cascade, struct nd_status *st)
{
    if (!cascade || !strcmp(cascade, "background") || !strcmp(cascade, "true"))
        return "Background";
    if (!strcmp(cascade, "foreground"))
        return "Foreground";
    if (!strcmp(cascade, "orphan") || !strcmp(cascade, "false"))
        return "Orphan";
    nd_status_set(st, "Usage", NULL,
                  "invalid cascade value (%s). Must be \"background\", \"foreground\", or "
                  "\"orphan\"",
                  cascade);
    return NULL;
}

/* Gone: absent, DELETED, or replaced by another object of the same name. */
static int gone(void *cls, const char *type, const json_t *obj, struct nd_status *st)
{
    (void)st;
    const struct target *t = cls;
    if (!obj || (type && !strcmp(type, "DELETED")))
        return 1;
    const char *uid = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    return t->uid && uid && strcmp(uid, t->uid) != 0;
}

static int wait_gone(struct nd_ctx *ctx, const struct target *t, int64_t deadline_ms,
                     struct nd_status *st)
{
    char what[160], rn[ND_KIND_NAME_MAX];
    snprintf(what, sizeof what, "the deletion of %s/%s", nd_kind_resource_name(t->k, rn, sizeof rn),
             t->name);
    return nd_watch_object(ctx, t->k, t->ns, t->name,
                           &(struct nd_watch_opts){.fn = gone,
                                                   .cls = (void *)t,
                                                   .deadline_ms = deadline_ms,
                                                   .what = what,
                                                   .note = "its deletion"},
                           st) < 0
               ? -1
               : 0;
}

int cmd_delete(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    struct targets t = {0};
    struct nd_manifests ms = {0};
    struct nd_res_list res = {0};
    enum nd_dry_run dry;
    int worst = 0;
    const char *pp;
    if (nd_cli_parse(ctx, argc, argv, &o, &st) < 0 ||
        nd_dry_run_parse(nd_opt_str(&o, "dry-run"), &dry, &st) < 0 ||
        !(pp = policy(nd_opt_str(&o, "cascade"), &st))) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *ns = ctx->all_projects ? NULL : nd_ctx_namespace(ctx);
    const struct sels sel = {nd_opt_str(&o, "selector"), nd_opt_str(&o, "field-selector")};
    bool selected = sel.labels || sel.fields;
    bool all = nd_opt_bool(&o, "all");
    if (nd_opt_list(&o, "filename")) {
        if (nd_manifests_read(nd_opt_list(&o, "filename"), nd_opt_bool(&o, "recursive"), &ms,
                              &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
        for (size_t i = 0; i < ms.n; i++) {
            const char *mns, *mname;
            if (nd_manifest_namespace(&ms.v[i], nd_ctx_namespace(ctx),
                                      ctx->namespace_flag != NULL, &mns, &st) < 0 ||
                !(mname = nd_manifest_name(&ms.v[i], "deleting", &st))) {
                worst = nd_cli_error(ctx, &st);
                goto out;
            }
            add(&t, ms.v[i].kind, mns, mname);
            t.v[t.n - 1].source = ms.v[i].source;
        }
    } else {
        if (nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
        if (!res.by_name && ((sel.labels && !*sel.labels) || (sel.fields && !*sel.fields))) {
            /* "-l $EMPTY" would list, and delete, every object */
            worst = nd_cli_usage(ctx, "an empty selector selects every object (use --all to "
                                      "delete every one)");
            goto out;
        }
        if (!res.by_name && !selected && !all) {
            worst = nd_cli_usage(ctx, "resource(s) were provided, but no name was specified "
                                      "(use --all to delete every one, or -l or "
                                      "--field-selector to select)");
            goto out;
        }
        for (size_t i = 0; i < res.n; i++) {
            const struct nd_kind *k = res.v[i].k;
            const char *kns = k->namespaced ? (ns ? ns : NULL) : "";
            if (res.by_name) {
                for (size_t j = 0; j < json_array_size(res.v[i].names); j++)
                    add(&t, k, k->namespaced ? nd_ctx_namespace(ctx) : "",
                        json_string_value(json_array_get(res.v[i].names, j)));
            } else if (add_listed(ctx, &t, k, kns, &sel, &st) < 0) {
                worst = nd_cli_error(ctx, &st);
                goto out;
            }
        }
        if (!res.by_name && t.n == 0) {
            fprintf(stderr, "No resources found\n");
            goto out;
        }
    }
    /* a prompt before deleting several objects, only on a terminal */
    if (t.n > 1 && !nd_opt_bool(&o, "yes") && !all && !selected && isatty(STDIN_FILENO) &&
        isatty(STDERR_FILENO) && dry == ND_DRY_NONE) {
        char question[64];
        snprintf(question, sizeof question, "Delete %zu objects?", t.n);
        bool yes = false;
        if (nd_prompt_yes(question, "--yes", &yes, &st) < 0) {
            worst = nd_cli_error(ctx, &st);
            goto out;
        }
        if (!yes) {
            fprintf(stderr, "Nothing deleted.\n");
            worst = 1;
            goto out;
        }
    }
    bool wait = !nd_opt_set(&o, "wait") || nd_opt_bool(&o, "wait");
    int64_t timeout = nd_opt_ms(&o, "timeout", 0);
    int64_t deadline = timeout ? nd_now_ms() + timeout : 0;
    bool *sent = nd_xcalloc(t.n ? t.n : 1, sizeof *sent);
    for (size_t i = 0; i < t.n; i++) {
        struct nd_buf p = ND_BUF_INIT;
        nd_kind_path(t.v[i].k, t.v[i].ns, t.v[i].name, NULL, &p);
        json_t *body = json_pack("{ssss}", "kind", "DeleteOptions", "propagationPolicy", pp);
        if (dry == ND_DRY_SERVER)
            json_object_set_new(body, "dryRun", json_pack("[s]", "All"));
        json_t *res_obj = NULL;
        int rc = 0;
        if (dry != ND_DRY_CLIENT)
            rc = nd_write(ctx,
                          &(struct nd_write_req){
                              .method = "DELETE", .path = p.data, .body = body, .out = &res_obj},
                          &st);
        json_decref(body);
        nd_buf_release(&p);
        if (rc < 0) {
            if (!(nd_opt_bool(&o, "ignore-not-found") && st.reason &&
                  !strcmp(st.reason, "NotFound"))) {
                if (t.v[i].source)
                    nd_write_error_source(&st, "deleting", t.v[i].source);
                int c = nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
            }
            nd_status_release(&st);
            json_decref(res_obj);
            continue;
        }
        const char *uid =
            json_string_value(json_object_get(json_object_get(res_obj, "metadata"), "uid"));
        if (uid)
            t.v[i].uid = nd_xstrdup(uid);
        json_decref(res_obj);
        sent[i] = true;
        char what[ND_KIND_NAME_MAX];
        nd_kind_display_name(t.v[i].k, what, sizeof what);
        char *shown = nd_term_safe(t.v[i].name, 0); /* a name a server's list may have given */
        if (nd_opt_str(&o, "output") && !strcmp(nd_opt_str(&o, "output"), "name"))
            printf("%s/%s\n", what, shown);
        else
            printf("%s \"%s\" deleted%s\n", what, shown,
                   dry == ND_DRY_SERVER ? " (server dry run)" : dry == ND_DRY_CLIENT ? " (dry run)" : "");
        free(shown);
        fflush(stdout);
    }
    if (wait && dry == ND_DRY_NONE) {
        for (size_t i = 0; i < t.n; i++) {
            if (sent[i] && wait_gone(ctx, &t.v[i], deadline, &st) < 0) {
                int c = nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
                nd_status_release(&st);
            }
        }
    }
    free(sent);
out:
    nd_res_list_release(&res);
    nd_manifests_release(&ms);
    targets_release(&t);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
