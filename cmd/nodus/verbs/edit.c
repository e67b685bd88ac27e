/* nodus edit: open objects as YAML in $NODUS_EDITOR (or $KUBE_EDITOR, $EDITOR, vi), and save what
 * changed as a merge patch, conditional on the version that was opened. A save the
 * server refuses reopens the file with the error on top. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kinds/object.h"
#include "kinds/schema.h"
#include "commands.h"
#include "json/json.h"
#include "patch/patch.h"
#include "resolve.h"
#include "write.h"
#include "util/suggest.h"
#include "util/term.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

struct edit_opts {
    const char *output;
    const char *validate;
};

#define TO(f) ND_TO(struct edit_opts, f)
const struct nd_flag cmd_edit_flags[] = {
    {"output", 'o', ND_STRING, "FORMAT", "edit as yaml (default) or json", "=yaml json",
     TO(output)},
    ND_VALIDATE_FLAG(struct edit_opts),
    ND_FLAGS_END(struct edit_opts),
};

static const char header[] =
    "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
    "# and an empty file will abort the edit. If an error occurs while saving this file "
    "will be\n# reopened with the relevant failures.\n#\n";

static int run_editor(const char *file)
{
    /* nodus's own variable, then kubectl's order: KUBE_EDITOR, EDITOR, vi */
    const char *ed = getenv("NODUS_EDITOR");
    if (!ed || !*ed)
        ed = getenv("KUBE_EDITOR");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", ed, file, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int write_file(const char *path, const char *head, const char *body)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(head, f);
    fputs(body, f);
    return fclose(f);
}

/* The file without its comment lines; empty when nothing else is left. */
static char *read_back(const char *path)
{
    struct nd_buf all = ND_BUF_INIT, b = ND_BUF_INIT;
    if (nd_buf_read_file(&all, path) < 0) {
        nd_buf_release(&all);
        return NULL;
    }
    for (size_t at = 0; at < all.len;) {
        const char *nl = memchr(all.data + at, '\n', all.len - at);
        size_t n = nl ? (size_t)(nl - all.data) - at + 1 : all.len - at;
        if (all.data[at] != '#')
            nd_buf_add(&b, all.data + at, n);
        at += n;
    }
    nd_buf_release(&all);
    return nd_buf_detach(&b);
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r')
            return false;
    return true;
}

/* Is name a field a Kind's objects must have at parent ("" the top, "metadata")? The
 * kind's schema says, and every object has apiVersion, kind and metadata.name. */
static bool required_at(const struct nd_kind *k, const char *parent, const char *name)
{
    if ((!*parent && (!strcmp(name, "apiVersion") || !strcmp(name, "kind"))) ||
        (!strcmp(parent, "metadata") && !strcmp(name, "name")))
        return true;
    const json_t *ps = *parent ? nd_schema_at(nd_kind_schema(k), parent) : nd_kind_schema(k);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(nd_schema_deref(ps), "required"), i, r)
    {
        if (!strcmp(json_string_value(r), name))
            return true;
    }
    return false;
}

/* After an unknown field (a misspelling, most often) in the comment: the field it stands
 * for, closest of those the edit removed beside it, else of the kind's schema, and
 * whether that one is required (the server may not say: it keeps metadata.name and kind
 * from the object it has). Appends ` (did you mean "name"? metadata.name is required)`. */
static void field_hint(const struct nd_kind *k, const json_t *orig, const json_t *edited,
                       const char *field, struct nd_buf *out)
{
    const char *dot = strrchr(field, '.');
    const char *name = dot ? dot + 1 : field;
    char *parent = nd_xstrndup(field, dot ? (size_t)(dot - field) : 0);
    const char *best = NULL;
    size_t bestd = ND_SUGGEST_DISTANCE + 1;
    if (!strchr(field, '[')) {
        const json_t *op = *parent ? nd_obj_get(orig, parent) : orig;
        const json_t *ep = *parent ? nd_obj_get(edited, parent) : edited;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)op, key, v)
        {
            size_t d = nd_suggest_distance(name, key);
            if (!json_object_get(ep, key) && d < bestd) {
                bestd = d;
                best = key;
            }
        }
    }
    if (!best)
        best = nd_field_did_you_mean(k, field);
    if (best) {
        nd_buf_addf(out, " (did you mean \"%s\"?", best);
        if (required_at(k, parent, best))
            nd_buf_addf(out, " %s%s%s is required", parent, *parent ? "." : "", best);
        nd_buf_addch(out, ')');
    }
    free(parent);
}

/* One object being edited: where it lives and the version that was opened. */
struct session {
    struct nd_ctx *ctx;
    const struct nd_kind *k;
    const char *name;
    const char *path; /* its API path */
    enum nd_validate validate;
    json_t *orig; /* as opened, without managedFields */
};

/* Saves what changed from s->orig to edited as a merge patch over the version that was
 * opened: 0 saved, 1 nothing changed, -1 with st. */
static int save(const struct session *s, const json_t *edited, struct nd_status *st)
{
    json_t *patch = nd_merge_patch_create(s->orig, edited);
    if (json_object_size(patch) == 0) {
        json_decref(patch);
        return 1;
    }
    /* save only over the version that was opened */
    json_t *pm = json_object_get(patch, "metadata");
    if (!json_is_object(pm)) {
        pm = json_object();
        json_object_set_new(patch, "metadata", pm);
    }
    json_object_set(pm, "resourceVersion",
                    json_object_get(json_object_get(s->orig, "metadata"), "resourceVersion"));
    struct nd_buf pp = ND_BUF_INIT;
    nd_buf_addf(&pp, "%s?fieldManager=kubectl-edit", s->path);
    nd_validate_query(s->validate, &pp);
    json_t *after = NULL;
    int w = nd_call(s->ctx,
                     &(struct nd_call_req){.method = "PATCH",
                                            .path = pp.data,
                                            .content_type = "application/merge-patch+json",
                                            .body = patch,
                                            .out = &after},
                     st);
    nd_buf_release(&pp);
    json_decref(after);
    json_decref(patch);
    return w < 0 ? -1 : 0;
}

/* The comment the file reopens with after the save failed with st: the header, then the
 * message, or (as kubectl) what was not valid and one line per cause. */
static void error_header(const struct session *s, const json_t *edited, const struct nd_status *st,
                         struct nd_buf *head)
{
    const struct nd_kind *k = s->k;
    nd_buf_reset(head);
    nd_buf_adds(head, header);
    const json_t *causes = json_object_get(st->details, "causes");
    if (json_array_size(causes) == 0) {
        nd_buf_addf(head, "# %s\n#\n", st->message ? st->message : "the save failed");
        return;
    }
    nd_buf_addf(head, "# %s%s%s \"%s\" was not valid:\n", k->plural, *k->group ? "." : "", k->group,
                s->name);
    size_t i;
    json_t *c;
    json_array_foreach(causes, i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        const char *m = json_string_value(json_object_get(c, "message"));
        /* the server's text, one comment line: no line break, no control */
        char *sf = nd_term_safe(f ? f : "", 0), *sm = nd_term_safe(m ? m : "", 0);
        nd_buf_addf(head, "# * %s%s%s", sf, f ? ": " : "", sm);
        if (f && m && !strncmp(m, "unknown field ", 14) && edited)
            field_hint(k, s->orig, edited, sf, head);
        nd_buf_addch(head, '\n');
        free(sf);
        free(sm);
    }
    nd_buf_adds(head, "#\n");
}

/* The object as the editor shows it: YAML (or JSON), then a line break. */
static int dump_doc(const json_t *obj, bool as_json, struct nd_buf *doc, struct nd_status *st)
{
    if (as_json ? nd_json_dump(obj, doc, ND_JSON_PRETTY) < 0 : nd_yaml_dump(obj, doc, st) < 0)
        return -1;
    nd_buf_addch(doc, '\n');
    return 0;
}

/* 0 saved or cancelled; -1 with st; -2 gave up with the message printed (exit 1). */
static int edit_one(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns, const char *name,
                    bool as_json, enum nd_validate validate, struct nd_status *st)
{
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, ns, name, NULL, &path);
    struct session s = {.ctx = ctx, .k = k, .name = name, .path = path.data, .validate = validate};
    json_t *edited = NULL;
    char *dir = nd_tmpdir_template("nodus-edit");
    char *file = NULL;
    int fd = -1, rc = -1;
    char *text = NULL, *failed = NULL;
    struct nd_buf head = ND_BUF_INIT, doc = ND_BUF_INIT;
    if (nd_call_get(ctx, path.data, &s.orig, st) < 0)
        goto out;
    json_object_del(json_object_get(s.orig, "metadata"), "managedFields");
    if (dump_doc(s.orig, as_json, &doc, st) < 0)
        goto out;
    if (!mkdtemp(dir)) {
        nd_status_set(st, "Usage", NULL, "cannot make a temporary directory: %s",
                      strerror(errno));
        goto out;
    }
    fd = 0;
    file = nd_xasprintf("%s/%s-%s.%s", dir, k->singular, name, as_json ? "json" : "yaml");
    nd_buf_adds(&head, header);
    const char *body = doc.data;
    for (;;) {
        if (write_file(file, head.data, body) < 0 || run_editor(file) < 0) {
            nd_status_set(st, "Usage", "set NODUS_EDITOR, KUBE_EDITOR or EDITOR to your editor",
                          "the editor failed or could not be started");
            goto out;
        }
        free(text);
        text = read_back(file);
        bool empty = !text || blank(text);
        if (!empty && failed && !strcmp(failed, text)) {
            /* reopened after an error and saved as it was: give up (exit 1), as kubectl */
            rc = -2;
            goto out;
        }
        int saved = 1; /* 1: nothing to save, 0: saved, -1: failed with st */
        if (!empty) {
            json_decref(edited);
            edited = nd_yaml_load(text, strlen(text), file, st);
            saved = edited ? save(&s, edited, st) : -1;
        }
        if (saved > 0)
            fprintf(stderr, "Edit cancelled, no changes made.\n");
        if (saved == 0) {
            char res[ND_KIND_NAME_MAX];
            nd_kind_display_name(k, res, sizeof res);
            printf("%s/%s edited\n", res, name);
        }
        if (saved >= 0) {
            rc = 0;
            goto out;
        }
        /* reopen with the error on top, keeping what was written */
        error_header(&s, edited, st, &head);
        nd_status_release(st);
        free(failed);
        failed = nd_xstrdup(text);
        body = failed;
    }
out:
    if (fd >= 0 && rc == 0) {
        unlink(file);
        rmdir(dir);
    } else if (fd >= 0) {
        fprintf(stderr, "A copy of your changes has been stored to \"%s\"\n", file);
    }
    if (rc == -2)
        fprintf(stderr, "error: Edit cancelled, no valid changes were saved.\n");
    free(dir);
    free(file);
    free(failed);
    free(text);
    nd_buf_release(&head);
    nd_buf_release(&doc);
    json_decref(s.orig);
    json_decref(edited);
    nd_buf_release(&path);
    return rc;
}

int cmd_edit(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct edit_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    enum nd_validate validate;
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_validate_parse(opt.validate, &validate, &st) < 0 ||
        nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (!res.by_name) {
        worst = nd_cli_usage(ctx, "name the object to edit: nodus edit KIND NAME");
        goto out;
    }
    const char *fmt = opt.output;
    bool as_json = fmt && !strcmp(fmt, "json");
    for (size_t i = 0; i < res.n; i++) {
        const struct nd_kind *k = res.v[i].k;
        for (size_t j = 0; j < json_array_size(res.v[i].names); j++) {
            int rc = edit_one(ctx, k, k->namespaced ? nd_ctx_project(ctx) : NULL,
                              json_string_value(json_array_get(res.v[i].names, j)), as_json,
                              validate, &st);
            if (rc < 0) {
                int c = rc == -2 ? 1 : nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
            }
            nd_status_release(&st);
        }
    }
out:
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
