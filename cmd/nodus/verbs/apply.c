/* nodus apply -f: make objects look like their manifests. Server-side apply by default
 * (field manager "nodus"); --server-side=false does kubectl's client-side three-way
 * merge with the last-applied-configuration annotation. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "manifest.h"
#include "patch/patch.h"
#include "write.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"

struct apply_opts {
    struct nd_strings filename;
    bool recursive;
    bool server_side;
    bool server_side_given;
    bool force_conflicts;
    bool force_conflicts_given;
    const char *field_manager;
    bool prune;
    const char *selector;
    const char *dry_run;
    const char *output;
    bool review;
    bool yes;
    const char *validate;
};

#define TO(f) ND_TO(struct apply_opts, f)
const struct nd_flag cmd_apply_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "manifest file, directory, or - for standard input",
     "files", TO(filename)},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL,
     TO(recursive)},
    {"server-side", 0, ND_BOOL, NULL,
     "apply on the server, tracking field ownership (default true; =false: client-side)", NULL,
     TO(server_side), TO(server_side_given)},
    {"force-conflicts", 0, ND_BOOL, NULL, "take over fields another manager owns", NULL,
     TO(force_conflicts), TO(force_conflicts_given)},
    {"field-manager", 0, ND_STRING, "NAME", "the manager name for field ownership (default nodus)",
     NULL, TO(field_manager)},
    {"prune", 0, ND_BOOL, NULL, "delete objects matching -l that the manifests no longer contain",
     NULL, TO(prune)},
    {"selector", 'l', ND_STRING, "SELECTOR", "label selector for --prune", NULL, TO(selector)},
    {"dry-run", 0, ND_STRING, "MODE", "none, client or server (server: everything but storing)",
     "=none client server", TO(dry_run)},
    {"output", 'o', ND_STRING, "FORMAT", "print the applied objects: name, json, yaml ...",
     "=name json yaml", TO(output)},
    {"review", 0, ND_BOOL, NULL,
     "show each object's estimate, ask, then apply exactly what was reviewed (If-Match)", NULL,
     TO(review)},
    {"yes", 'y', ND_BOOL, NULL, "answer yes to --review's question (for scripts)", NULL, TO(yes)},
    ND_VALIDATE_FLAG(struct apply_opts),
    ND_FLAGS_END(struct apply_opts),
};

struct applied {
    const struct nd_kind *k;
    char *ns;
    char *name;
};

static char *object_path(const struct nd_manifest *m, const char *ns, const char *extra)
{
    struct nd_buf p = ND_BUF_INIT;
    const char *name =
        json_string_value(json_object_get(json_object_get(m->obj, "metadata"), "name"));
    nd_kind_path(m->kind, ns, name, NULL, &p);
    if (extra)
        nd_buf_addf(&p, "?%s", extra);
    return nd_buf_detach(&p);
}

/* One server-side apply: a dry run or not, with If-Match (NULL: none), forced or not;
 * the answer in *out, how it went in *op ("created", "serverside-applied"), its ETag in
 * *etag (NULL: not wanted). */
struct ssa_call {
    enum nd_dry_run dry;
    const char *if_match;
    char **etag;
    json_t **out;
    const char **op;
    bool force;
};

static int ssa_request(struct nd_ctx *ctx, const struct apply_opts *opt,
                       const struct nd_manifest *m, const char *ns, const struct ssa_call *c,
                       struct nd_status *st)
{
    enum nd_dry_run dry = c->dry;
    const char *mgr = opt->field_manager ? opt->field_manager : "nodus";
    struct nd_buf q = ND_BUF_INIT;
    nd_buf_adds(&q, "fieldManager=");
    nd_buf_add_urlencoded(&q, mgr);
    nd_buf_addf(&q, "&force=%s", c->force ? "true" : "false");
    if (dry == ND_DRY_SERVER)
        nd_buf_adds(&q, "&dryRun=All");
    enum nd_validate v;
    struct nd_status vst = ND_STATUS_INIT;
    nd_validate_parse(opt->validate, &v, &vst); /* checked by cmd_apply */
    nd_status_release(&vst);
    char *path = object_path(m, ns, q.data);
    nd_buf_release(&q);
    struct nd_buf vp = ND_BUF_INIT;
    nd_buf_adds(&vp, path);
    nd_validate_query(v, &vp);
    free(path);
    path = nd_buf_detach(&vp);
    json_t *body = json_deep_copy(m->obj);
    if (*ns)
        json_object_set_new(json_object_get(body, "metadata"), "namespace", json_string(ns));
    int code = 0;
    char *hdr = c->if_match ? nd_xasprintf("If-Match: %s", c->if_match) : NULL;
    const char *headers[] = {hdr, NULL};
    int rc = nd_call(ctx,
                      &(struct nd_call_req){.method = "PATCH",
                                             .path = path,
                                             .content_type = "application/apply-patch+yaml",
                                             .body = body,
                                             .headers = hdr ? headers : NULL,
                                             .out = c->out,
                                             .code = &code,
                                             .etag = c->etag},
                      st);
    *c->op = code == 201 ? "created" : "serverside-applied";
    free(hdr);
    json_decref(body);
    free(path);
    return rc;
}

/* A conflict cause a client-side apply would not have had: a field an imperative write
 * of nodus (or kubectl) set, i.e. an Update (" using VERSION", no subresource) by a
 * manager named nodus-* (suspend, resume, run ...) or kubectl-* (the names nodus's patch,
 * edit, label, annotate, replace and create share with kubectl's). The message is the
 * API server's: `conflict with "kubectl-patch" using nodus.dev/v1`. */
static bool imperative_cause(const json_t *cause)
{
    const char *reason = json_string_value(json_object_get(cause, "reason"));
    const char *msg = json_string_value(json_object_get(cause, "message"));
    const char *head = "conflict with \"";
    if (!reason || strcmp(reason, "FieldManagerConflict") != 0 || !msg ||
        strncmp(msg, head, strlen(head)) != 0)
        return false;
    const char *name = msg + strlen(head);
    const char *end = strchr(name, '"');
    if (!end || strncmp(end, "\" using ", 8) != 0 || strchr(end + 8, ' '))
        return false;
    size_t n = (size_t)(end - name);
    if (memchr(name, '\\', n))
        return false;
    return (n > 6 && !strncmp(name, "nodus-", 6)) || (n > 8 && !strncmp(name, "kubectl-", 8));
}

/* True when every field of a Conflict is one that an imperative write set. */
static bool only_imperative(const struct nd_status *st)
{
    if (!nd_status_is(st, ND_REASON_CONFLICT) || nd_status_cause_count(st) == 0)
        return false;
    size_t i;
    json_t *cause;
    json_array_foreach(json_object_get(st->details, "causes"), i, cause)
    {
        if (!imperative_cause(cause))
            return false;
    }
    return true;
}

/* A server-side apply as a user of kubectl apply expects it: the manifest wins over what
 * nodus's own imperative verbs (patch, edit, label, suspend ...) set, as kubectl's
 * client-side apply would, so such conflicts are retried once with force; a field another
 * applier owns stays a conflict (unless --force-conflicts), and so does every field with
 * an explicit --force-conflicts=false. Its fix names the file the manifest came from. */
static int server_side(struct nd_ctx *ctx, const struct apply_opts *opt,
                       const struct nd_manifest *m, const char *ns, const struct ssa_call *c,
                       struct nd_status *st)
{
    struct ssa_call call = *c;
    call.force = opt->force_conflicts;
    int rc = ssa_request(ctx, opt, m, ns, &call, st);
    if (rc < 0 && !opt->force_conflicts_given && only_imperative(st)) {
        nd_status_release(st);
        call.force = true;
        rc = ssa_request(ctx, opt, m, ns, &call, st);
    }
    if (rc < 0 && nd_status_is(st, ND_REASON_CONFLICT) && nd_status_cause_count(st)) {
        struct nd_buf fix = ND_BUF_INIT;
        const char *file = strcmp(m->source, "STDIN") ? m->source : "-";
        nd_buf_adds(&fix, "Remove these fields from ");
        nd_buf_adds(&fix, strcmp(file, "-") ? file : "the manifest");
        nd_buf_adds(&fix, ", or take them over: nodus apply -f ");
        nd_shell_word(&fix, file);
        nd_buf_adds(&fix, " --force-conflicts");
        nd_status_set_fix(st, "%s", fix.data);
        nd_buf_release(&fix);
    }
    return rc;
}

int nd_apply_server_side(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns,
                         const struct nd_apply_call *c, struct nd_status *st)
{
    const struct apply_opts opt = {0};
    const char *op;
    return server_side(ctx, &opt, m, ns,
                       &(struct ssa_call){.dry = c->dry ? ND_DRY_SERVER : ND_DRY_NONE,
                                          .if_match = c->if_match,
                                          .etag = c->etag,
                                          .out = c->out,
                                          .op = c->op ? c->op : &op},
                       st);
}

/* --review: a server dry run shows what the object would cost; after a yes, the real
 * apply carries the dry run's ETag as If-Match, so it does exactly what was reviewed
 * (a changed spec or price book fails PreconditionFailed). *declined when the answer
 * was no. */
static int reviewed(struct nd_ctx *ctx, const struct apply_opts *opt, const struct nd_manifest *m,
                    const char *ns, json_t **out, const char **op, bool *declined,
                    struct nd_status *st)
{
    json_t *preview = NULL;
    char *etag = NULL;
    const char *pop;
    *declined = false;
    int rc = server_side(
        ctx, opt, m, ns,
        &(struct ssa_call){.dry = ND_DRY_SERVER, .etag = &etag, .out = &preview, .op = &pop}, st);
    if (rc == 0) {
        const json_t *meta = json_object_get(preview, "metadata");
        char kn[ND_KIND_NAME_MAX];
        printf("%s/%s: review\n", nd_kind_display_name(m->kind, kn, sizeof kn),
               json_string_value(json_object_get(meta, "name")));
        nd_print_estimate(preview);
        fflush(stdout);
        bool yes = opt->yes;
        if (!yes) {
            char q[256];
            snprintf(q, sizeof q, "apply %s/%s?", m->kind->singular,
                     json_string_value(json_object_get(meta, "name")));
            rc = nd_prompt_yes(q, "--yes", &yes, st);
        }
        if (rc == 0 && !yes)
            *declined = true;
        else if (rc == 0)
            rc = server_side(
                ctx, opt, m, ns,
                &(struct ssa_call){.dry = ND_DRY_NONE, .if_match = etag, .out = out, .op = op}, st);
    }
    free(etag);
    json_decref(preview);
    return rc;
}

/* kubectl's client-side apply: create with the annotation, or patch the three-way
 * difference between the last applied manifest, this one and the live object. */
static int client_side(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns,
                       enum nd_dry_run dry, enum nd_validate v, json_t **out, const char **op,
                       struct nd_status *st)
{
    json_t *modified = json_deep_copy(m->obj);
    json_t *meta = json_object_get(modified, "metadata");
    if (*ns)
        json_object_set_new(meta, "namespace", json_string(ns));
    /* the annotation holds the manifest itself, without the annotation */
    json_t *ann = json_object_get(meta, "annotations");
    if (ann)
        json_object_del(ann, LAST_APPLIED);
    char *text = json_dumps(modified, JSON_COMPACT);
    if (!json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(meta, "annotations", ann);
    }
    json_object_set_new(ann, LAST_APPLIED, json_string(text));
    free(text);
    const char *dq = dry == ND_DRY_SERVER ? "dryRun=All&fieldManager=kubectl-client-side-apply"
                                          : "fieldManager=kubectl-client-side-apply";
    char *path = object_path(m, ns, NULL);
    json_t *live = NULL, *patch = NULL, *original = NULL;
    struct nd_status gst = ND_STATUS_INIT;
    int rc = -1;
    if (nd_call_get(ctx, path, &live, &gst) < 0) {
        if (!nd_status_is(&gst, ND_REASON_NOT_FOUND)) {
            nd_status_move(st, &gst);
            goto out;
        }
        /* create */
        struct nd_buf cp = ND_BUF_INIT;
        nd_kind_path(m->kind, ns, NULL, NULL, &cp);
        nd_buf_addf(&cp, "?%s", dq);
        nd_validate_query(v, &cp);
        *op = "created";
        if (dry == ND_DRY_CLIENT) {
            *out = json_incref(modified);
            rc = 0;
        } else {
            rc = nd_call(ctx,
                          &(struct nd_call_req){
                              .method = "POST", .path = cp.data, .body = modified, .out = out},
                          st);
        }
        nd_buf_release(&cp);
        goto out;
    }
    const char *last = json_string_value(
        json_object_get(json_object_get(json_object_get(live, "metadata"), "annotations"),
                        LAST_APPLIED));
    original = last ? json_loads(last, 0, NULL) : json_object();
    if (!original)
        original = json_object();
    patch = nd_merge_patch_three_way(original, modified, live, st);
    if (!patch)
        goto out;
    if (json_object_size(patch) == 0) {
        *op = "unchanged";
        *out = json_incref(live);
        rc = 0;
        goto out;
    }
    *op = "configured";
    if (dry == ND_DRY_CLIENT) {
        *out = nd_merge_patch_apply(live, patch);
        rc = 0;
        goto out;
    }
    char *ppath = object_path(m, ns, dq);
    struct nd_buf pp = ND_BUF_INIT;
    nd_buf_adds(&pp, ppath);
    nd_validate_query(v, &pp);
    rc = nd_call(ctx,
                  &(struct nd_call_req){.method = "PATCH",
                                         .path = pp.data,
                                         .content_type = "application/merge-patch+json",
                                         .body = patch,
                                         .out = out},
                  st);
    nd_buf_release(&pp);
    free(ppath);
out:
    nd_status_release(&gst);
    json_decref(original);
    json_decref(patch);
    json_decref(live);
    json_decref(modified);
    free(path);
    return rc;
}

static bool was_applied(const struct applied *a, size_t n, const struct nd_kind *k,
                        const char *ns, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].k == k && !strcmp(a[i].ns, ns) && !strcmp(a[i].name, name))
            return true;
    return false;
}

/* Made by an apply (as kubectl, which prunes only what apply created): the
 * last-applied annotation, or a managedFields entry of a server-side apply. */
static bool made_by_apply(const json_t *obj)
{
    const json_t *meta = json_object_get(obj, "metadata");
    if (json_object_get(json_object_get(meta, "annotations"), LAST_APPLIED))
        return true;
    size_t i;
    json_t *mf;
    json_array_foreach(json_object_get(meta, "managedFields"), i, mf) {
        const char *op = json_string_value(json_object_get(mf, "operation"));
        if (op && !strcmp(op, "Apply"))
            return true;
    }
    return false;
}

/* --prune: objects of the applied kinds and projects that match -l, that an apply made,
 * and that this one did not apply. */
static int prune(struct nd_ctx *ctx, const struct apply_opts *opt, const struct applied *a,
                 size_t n, enum nd_dry_run dry, int *worst)
{
    const char *sel = opt->selector;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= a[j].k == a[i].k && !strcmp(a[j].ns, a[i].ns);
        if (seen)
            continue;
        struct nd_buf p = ND_BUF_INIT;
        nd_kind_path(a[i].k, a[i].ns, NULL, NULL, &p);
        nd_buf_adds(&p, "?labelSelector=");
        nd_buf_add_urlencoded(&p, sel);
        json_t *list = NULL;
        struct nd_status st = ND_STATUS_INIT;
        if (nd_call_get(ctx, p.data, &list, &st) < 0) {
            *worst = nd_cli_error(ctx, &st);
            nd_status_release(&st);
            nd_buf_release(&p);
            continue;
        }
        nd_buf_release(&p);
        size_t k;
        json_t *obj;
        json_array_foreach(json_object_get(list, "items"), k, obj) {
            const char *name =
                json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
            if (!name || was_applied(a, n, a[i].k, a[i].ns, name) || !made_by_apply(obj))
                continue;
            struct nd_buf dp = ND_BUF_INIT;
            nd_kind_path(a[i].k, a[i].ns, name, NULL, &dp);
            json_t *gone = NULL;
            int rc = 0;
            if (dry != ND_DRY_CLIENT) {
                if (dry == ND_DRY_SERVER)
                    nd_buf_adds(&dp, "?dryRun=All");
                rc = nd_call(
                    ctx, &(struct nd_call_req){.method = "DELETE", .path = dp.data, .out = &gone},
                    &st);
            }
            if (rc < 0) {
                *worst = nd_cli_error(ctx, &st);
            } else {
                struct nd_print_opts none;
                nd_print_opts_init(&none);
                nd_print_result(&none, false, obj, "pruned", dry, 0, &st);
                nd_print_opts_release(&none);
            }
            json_decref(gone);
            nd_buf_release(&dp);
            nd_status_release(&st);
        }
        json_decref(list);
    }
    return 0;
}

struct apply {
    const struct apply_opts *opt;
    enum nd_dry_run dry;
    enum nd_validate validate;
    bool ssa, review;
    struct applied *done; /* for --prune */
    size_t ndone;
};

static int apply_one(struct nd_ctx *ctx, const struct nd_manifest *m, const char *ns, void *cls,
                     struct nd_write_done *d, struct nd_status *st)
{
    const struct apply *a = cls;
    d->op = "configured";
    if (!nd_manifest_name(m, "applying", st))
        return -1;
    if (a->review) {
        bool declined = false;
        int rc = reviewed(ctx, a->opt, m, ns, &d->obj, &d->op, &declined, st);
        if (rc == 0 && declined) {
            printf("not applied\n");
            d->skipped = true;
        }
        return rc;
    }
    if (a->ssa && a->dry != ND_DRY_CLIENT)
        return server_side(ctx, a->opt, m, ns,
                           &(struct ssa_call){.dry = a->dry, .out = &d->obj, .op = &d->op}, st);
    return client_side(ctx, m, ns, a->dry, a->validate, &d->obj, &d->op, st);
}

static void remember(void *cls, const struct nd_manifest *m, const char *ns)
{
    struct apply *a = cls;
    a->done = nd_xrealloc(a->done, (a->ndone + 1) * sizeof *a->done);
    a->done[a->ndone].k = m->kind;
    a->done[a->ndone].ns = nd_xstrdup(ns);
    a->done[a->ndone].name =
        nd_xstrdup(json_string_value(json_object_get(json_object_get(m->obj, "metadata"), "name")));
    a->ndone++;
}

int cmd_apply(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct apply_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    struct apply a = {.opt = &opt};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &a.dry, &st) < 0 ||
        nd_validate_parse(opt.validate, &a.validate, &st) < 0 ||
        nd_write_output_parse(opt.output, &popts, &st) < 0 ||
        nd_manifests_read(&opt.filename, opt.recursive, &ms, &st) <
            0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (opt.prune && !opt.selector) {
        worst = nd_cli_usage(ctx, "--prune needs a label selector (-l) naming the objects it may "
                                  "delete");
        goto out;
    }
    a.ssa = !opt.server_side_given || opt.server_side;
    a.review = opt.review;
    if (a.review && (a.dry != ND_DRY_NONE || !a.ssa)) {
        worst = nd_cli_usage(ctx, "--review reviews a server-side apply: it cannot be combined "
                                  "with --dry-run or --server-side=false");
        goto out;
    }
    worst =
        nd_write_manifests(ctx, &ms,
                           &(struct nd_write_each){.fn = apply_one,
                                                   .cls = &a,
                                                   .popts = &popts,
                                                   .has_output = opt.output != NULL,
                                                   .dry = a.dry,
                                                   .estimate = true,
                                                   .printed = remember});
    if (opt.prune)
        prune(ctx, &opt, a.done, a.ndone, a.dry, &worst);
out:
    for (size_t i = 0; i < a.ndone; i++) {
        free(a.done[i].ns);
        free(a.done[i].name);
    }
    free(a.done);
    nd_manifests_release(&ms);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
