/* nodus __complete: the hidden verb `nodus __complete [--] WORD... CURRENT` behind the
 * completion scripts (completion.c says what it answers). It reads the words as the
 * parser would, leniently: an unknown flag is taken for one without a value, and the
 * global flags that choose the server (--kubeconfig, --context, --server, --token,
 * -n, -A, TLS) are honoured, so names come from the project the command would act in.
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "cli.h"
#include "client/client.h"
#include "commands.h"
#include "config/config.h"
#include "util/xmalloc.h"

/* Object names are listed with this request timeout: a shell must not hang on Tab. */
#define LIST_TIMEOUT_MS 2000

const struct nd_flag cmd_complete_flags[] = {
    {NULL},
};

struct comp {
    struct nd_ctx *ctx;
    const struct nd_command *cmd;  /* the verb, or NULL before it */
    bool plugin;                   /* an unknown verb: nothing more to complete */
    bool dashdash;                 /* after -- */
    const struct nd_flag *pending; /* the current word is this flag's value */
    int npos;
    char **pos; /* the verb's arguments before the current word (borrowed) */
    const char *cur;
    struct nd_buf out;
    json_t *seen; /* candidates already printed */
};

/* Prints pre+word when it begins with the current word (once). */
static void emit(struct comp *c, const char *pre, const char *word)
{
    char *full = nd_xasprintf("%s%s", pre, word);
    if (strncmp(full, c->cur, strlen(c->cur)) == 0 && !json_object_get(c->seen, full)) {
        json_object_set_new(c->seen, full, json_true());
        nd_buf_addf(&c->out, "%s\n", full);
    }
    free(full);
}

static const struct nd_flag *by_long(const struct nd_flag *t, const char *name, size_t n)
{
    for (; t && t->name; t++)
        if (strlen(t->name) == n && strncmp(t->name, name, n) == 0)
            return t;
    return NULL;
}

static const struct nd_flag *by_short(const struct nd_flag *t, char ch)
{
    for (; t && t->name; t++)
        if (t->shorthand == ch)
            return t;
    return NULL;
}

/* The verb's flags first, then the global flags (as nd_cli_parse). */
static const struct nd_flag *find_long(const struct comp *c, const char *name, size_t n)
{
    const struct nd_flag *f = c->cmd ? by_long(c->cmd->flags, name, n) : NULL;
    return f ? f : by_long(nd_global_flags, name, n);
}

static const struct nd_flag *find_short(const struct comp *c, char ch)
{
    const struct nd_flag *f = c->cmd ? by_short(c->cmd->flags, ch) : NULL;
    return f ? f : by_short(nd_global_flags, ch);
}

/* Keeps the value of a global flag that decides where names are listed from. */
static void keep(struct comp *c, const struct nd_flag *f, const char *value)
{
    struct nd_ctx *x = c->ctx;
    const char *n = f->name;
    bool on = !value || (strcmp(value, "false") != 0 && strcmp(value, "0") != 0);
    if (f != by_long(nd_global_flags, n, strlen(n)))
        return; /* the verb's own flag */
    if (!strcmp(n, "kubeconfig"))
        x->kubeconfig = value;
    else if (!strcmp(n, "context"))
        x->context = value;
    else if (!strcmp(n, "server"))
        x->server = value;
    else if (!strcmp(n, "token"))
        x->token = value;
    else if (!strcmp(n, "project") || !strcmp(n, "namespace"))
        x->project_flag = value;
    else if (!strcmp(n, "certificate-authority"))
        x->ca_file = value;
    else if (!strcmp(n, "all-projects") || !strcmp(n, "all-namespaces"))
        x->all_projects = on;
    else if (!strcmp(n, "insecure-skip-tls-verify"))
        x->insecure = on;
}

static void scan_word(struct comp *c, char *w)
{
    if (c->pending) {
        keep(c, c->pending, w);
        c->pending = NULL;
    } else if (c->dashdash) {
        c->pos[c->npos++] = w;
    } else if (strcmp(w, "--") == 0) {
        c->dashdash = true;
    } else if (w[0] == '-' && w[1] == '-') {
        const char *eq = strchr(w + 2, '=');
        const struct nd_flag *f = find_long(c, w + 2, eq ? (size_t)(eq - w - 2) : strlen(w + 2));
        if (f && eq)
            keep(c, f, eq + 1);
        else if (f && f->type != ND_BOOL)
            c->pending = f;
        else if (f)
            keep(c, f, NULL);
    } else if (w[0] == '-' && w[1]) {
        /* -A, -it, -ojson, -o json, -n=x */
        for (const char *p = w + 1; *p; p++) {
            const struct nd_flag *f = find_short(c, *p);
            if (!f)
                break;
            if (f->type == ND_BOOL) {
                keep(c, f, NULL);
                continue;
            }
            if (p[1])
                keep(c, f, p[1] == '=' ? p + 2 : p + 1);
            else
                c->pending = f;
            break;
        }
    } else if (!c->cmd && !c->plugin) {
        c->cmd = nd_command_find(w);
        c->plugin = !c->cmd || !c->cmd->group;
    } else {
        c->pos[c->npos++] = w;
    }
}

/* The verbs that act on a subresource take only the kinds that have it; a bare NAME
 * names an object of `bare` (as kubectl logs and exec take a pod's name). */
struct verb_sub {
    const char *verb, *sub, *bare;
};

static const struct verb_sub *verb_sub(const char *verb)
{
    static const struct verb_sub subs[] = {
        {"logs", "log", "Job"},
        {"exec", "exec", "Sandbox"},
        {"cp", "files", "Sandbox"},
        {"invoke", "invoke", "Function"},
    };
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (!strcmp(subs[i].verb, verb))
            return &subs[i];
    return NULL;
}

/* What the arguments after a subcommand complete with (`config use-context NAME`,
 * `emulator clock advance|speed`), as an args hint. */
static const char *subcommand_hint(const char *verb, const char *sub)
{
    static const char *const hints[][3] = {
        {"config", "use-context", "contexts"},   {"config", "delete-context", "contexts"},
        {"config", "set-context", "contexts"},   {"config", "get-contexts", "contexts"},
        {"emulator", "clock", "=advance speed"},
        {"auth", "can-i", "=get list watch create update patch delete"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (!strcmp(hints[i][0], verb) && !strcmp(hints[i][1], sub))
            return hints[i][2];
    return NULL;
}

/* Whether a kind suits the verb: logs, exec, cp and invoke take the kinds with their
 * subresource, the state verbs the kinds with that spec.state, the verbs that change
 * objects leave out read-only kinds. */
static bool kind_fits(const struct comp *c, const struct nd_kind *k)
{
    static const char *const states[][2] = {{"cancel", "Cancelled"},
                                            {"resume", "Suspended"},
                                            {"start", "Stopped"},
                                            {"stop", "Stopped"},
                                            {"suspend", "Suspended"}};
    static const char *const writers[] = {"annotate", "delete", "edit", "label", "patch"};
    const char *verb = c->cmd ? c->cmd->name : "";
    const struct verb_sub *vs = verb_sub(verb);
    if (vs)
        return nd_kind_has_subresource(k, vs->sub);
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strcmp(verb, states[i][0]) == 0)
            return nd_kind_state_valid(k, states[i][1]);
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
        if (strcmp(verb, writers[i]) == 0)
            return !k->read_only;
    return true;
}

enum kinds_form { KINDS_ALL, KINDS_PLAIN, KINDS_SLASH };

/* Kinds: plural names, short names (and "projects") and, unless plain, "singular/". */
static void emit_kinds(struct comp *c, const char *pre, enum kinds_form form)
{
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!kind_fits(c, k))
            continue;
        if (form != KINDS_SLASH) {
            emit(c, pre, k->plural);
            for (const char *const *s = k->short_names; s && *s; s++)
                emit(c, pre, *s);
            if (k->alias_plural)
                emit(c, pre, k->alias_plural);
        }
        if (form != KINDS_PLAIN) {
            char *w = nd_xasprintf("%s/", k->singular);
            emit(c, pre, w);
            free(w);
        }
    }
}

/* The names of k's objects in the project the command acts in (every project with -A),
 * each followed by suffix. */
static void emit_names_then(struct comp *c, const struct nd_kind *k, const char *pre,
                            const char *suffix)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf path = ND_BUF_INIT;
    json_t *list = NULL;
    c->ctx->request_timeout_ms = LIST_TIMEOUT_MS;
    struct nd_client *cl = nd_ctx_client(c->ctx, &st);
    if (!cl)
        goto out;
    const char *ns = k->namespaced && !c->ctx->all_projects ? nd_ctx_project(c->ctx) : NULL;
    nd_kind_path(k, ns, NULL, NULL, &path);
    nd_buf_adds(&path, "?limit=500");
    if (nd_client_json(cl, "GET", path.data, NULL, &list, &st) < 0)
        goto out;
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        const char *name =
            json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
        if (name && !*suffix) {
            emit(c, pre, name);
        } else if (name) {
            char *w = nd_xasprintf("%s%s", name, suffix);
            emit(c, pre, w);
            free(w);
        }
    }
out:
    json_decref(list);
    nd_buf_release(&path);
    nd_status_release(&st);
}

static void emit_names(struct comp *c, const struct nd_kind *k, const char *pre)
{
    emit_names_then(c, k, pre, "");
}

/* cp's remote side: KIND/ of the kinds with files, then KIND/NAME: (bare Sandbox NAME:);
 * nothing after the colon (the shell completes local files). */
static void emit_copy(struct comp *c)
{
    if (strchr(c->cur, ':'))
        return;
    const char *slash = strchr(c->cur, '/');
    if (!slash) {
        emit_kinds(c, "", KINDS_SLASH);
        emit_names_then(c, nd_kind_by_kind("nodus.dev", "Sandbox"), "", ":");
        return;
    }
    char *kind = nd_xstrndup(c->cur, (size_t)(slash - c->cur));
    char *pre = nd_xstrndup(c->cur, (size_t)(slash - c->cur) + 1);
    const struct nd_kind *k = nd_kind_lookup(kind);
    if (k && kind_fits(c, k))
        emit_names_then(c, k, pre, ":");
    free(kind);
    free(pre);
}

static void emit_contexts(struct comp *c, const char *pre)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_config *cfg = nd_ctx_config(c->ctx, &st);
    json_t *names = cfg ? nd_config_context_names(cfg) : NULL;
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n)
    {
        emit(c, pre, json_string_value(n));
    }
    json_decref(names);
    nd_status_release(&st);
}

/* The kind named by the verb's first argument, or NULL. */
static const struct nd_kind *first_kind(const struct comp *c)
{
    return c->npos > 0 && !strchr(c->pos[0], ',') ? nd_kind_lookup(c->pos[0]) : NULL;
}

/* Completes with one hint: "=WORDS", kinds, names, projects or contexts (files and dirs
 * are the shell's). */
static void emit_hint(struct comp *c, const char *hint, size_t n, const char *pre)
{
    if (n > 0 && hint[0] == '=') {
        for (const char *p = hint + 1; *p;) {
            size_t len = strcspn(p, " ");
            if (len) {
                char *w = nd_xstrndup(p, len);
                emit(c, pre, w);
                free(w);
            }
            p += len + (p[len] == ' ');
        }
    } else if (n == 5 && strncmp(hint, "kinds", 5) == 0) {
        emit_kinds(c, pre, KINDS_ALL);
    } else if (n == 5 && strncmp(hint, "names", 5) == 0) {
        const struct nd_kind *k = first_kind(c);
        if (k && kind_fits(c, k))
            emit_names(c, k, pre);
    } else if (n == 8 && strncmp(hint, "projects", 8) == 0) {
        emit_names(c, nd_kind_by_kind("", "Namespace"), pre);
    } else if (n == 8 && strncmp(hint, "contexts", 8) == 0) {
        emit_contexts(c, pre);
    } else if (n == 4 && strncmp(hint, "copy", 4) == 0) {
        emit_copy(c);
    }
}

/* The verb's arguments, by its args hint (see completion.c). */
static void emit_args(struct comp *c)
{
    const char *args = nd_completion_args(c->cmd);
    if (!args || !*args)
        return;
    if (!strcmp(args, "copy")) {
        emit_copy(c); /* either side of cp */
        return;
    }
    if (args[0] == '=') {
        if (c->npos == 0) {
            emit_hint(c, args, strlen(args), "");
        } else if (c->npos == 1) {
            const char *h = subcommand_hint(c->cmd->name, c->pos[0]);
            if (h)
                emit_hint(c, h, strlen(h), "");
        }
        return;
    }
    const char *slash = strchr(c->cur, '/');
    bool kind_names = strncmp(args, "kinds names", 11) == 0;
    /* a name already given is not offered again */
    for (int i = 1; i < c->npos; i++)
        json_object_set_new(c->seen, c->pos[i], json_true());
    if (c->npos > 0 && strchr(c->pos[0], '/'))
        json_object_set_new(c->seen, c->pos[0], json_true());
    if (kind_names && (slash || (c->npos > 0 && strchr(c->pos[0], '/')))) {
        /* KIND/NAME... */
        if (!slash) {
            emit_kinds(c, "", KINDS_SLASH);
            return;
        }
        char *kind = nd_xstrndup(c->cur, (size_t)(slash - c->cur));
        char *pre = nd_xstrndup(c->cur, (size_t)(slash - c->cur) + 1);
        const struct nd_kind *k = nd_kind_lookup(kind);
        if (k && kind_fits(c, k))
            emit_names(c, k, pre);
        free(kind);
        free(pre);
        return;
    }
    /* the hint of this argument; the last one repeats when the usage shows NAME... */
    const char *hint = args;
    size_t len = strcspn(hint, " ");
    for (int i = 0; i < c->npos; i++) {
        if (!hint[len]) {
            if (len == 5 && strncmp(hint, "names", 5) == 0 && strstr(c->cmd->usage, "NAME..."))
                break;
            return;
        }
        hint += len + 1;
        len = strcspn(hint, " ");
    }
    const char *comma = strrchr(c->cur, ',');
    if (len == 5 && strncmp(hint, "kinds", 5) == 0 && comma && strstr(c->cmd->usage, "KIND[,")) {
        char *pre = nd_xstrndup(c->cur, (size_t)(comma - c->cur) + 1);
        emit_kinds(c, pre, KINDS_PLAIN);
        free(pre);
        return;
    }
    emit_hint(c, hint, len, "");
    const struct verb_sub *vs = verb_sub(c->cmd->name);
    if (c->npos == 0 && vs && vs->bare && len == 5 && strncmp(hint, "kinds", 5) == 0)
        emit_names(c, nd_kind_by_kind("nodus.dev", vs->bare), "");
}

static void emit_flags(struct comp *c)
{
    const struct nd_flag *tables[] = {c->cmd ? c->cmd->flags : NULL, nd_global_flags};
    for (size_t t = 0; t < 2; t++) {
        for (const struct nd_flag *f = tables[t]; f && f->name; f++) {
            char *w = nd_xasprintf("--%s", f->name);
            emit(c, "", w);
            free(w);
            if (f->shorthand) {
                char s[3] = {'-', f->shorthand, '\0'};
                emit(c, "", s);
            }
        }
    }
}

int cmd_complete(int argc, char **argv, struct nd_ctx *ctx)
{
    struct comp c = {.ctx = ctx, .out = ND_BUF_INIT, .seen = json_object()};
    int first = 1;
    if (first < argc && strcmp(argv[first], "--") == 0)
        first++;
    int nwords = argc - first;
    c.cur = nwords > 0 ? argv[argc - 1] : "";
    c.pos = nd_xcalloc((size_t)argc + 1, sizeof *c.pos);
    for (int i = first; i < argc - 1; i++)
        scan_word(&c, argv[i]);

    if (c.pending) {
        const char *h = c.pending->complete;
        if (h)
            emit_hint(&c, h, strlen(h), "");
    } else if (!c.dashdash && c.cur[0] == '-' && c.cur[1] && strchr(c.cur + 2, '=') &&
               (c.cur[1] == '-' || c.cur[2] == '=')) {
        /* --flag=value, -f=value */
        size_t n = (size_t)(strchr(c.cur + 2, '=') - c.cur);
        const struct nd_flag *f =
            c.cur[1] == '-' ? find_long(&c, c.cur + 2, n - 2) : find_short(&c, c.cur[1]);
        if (f && f->type != ND_BOOL && f->complete) {
            char *pre = nd_xstrndup(c.cur, n + 1);
            emit_hint(&c, f->complete, strlen(f->complete), pre);
            free(pre);
        }
    } else if (!c.dashdash && c.cur[0] == '-') {
        emit_flags(&c);
    } else if (!c.cmd && !c.plugin && !c.dashdash) {
        for (size_t i = 0; i < nd_command_count; i++)
            if (nd_commands[i].group)
                emit(&c, "", nd_commands[i].name);
    } else if (c.cmd && !c.plugin && !c.dashdash) {
        emit_args(&c);
    }
    nd_out(&c.out);
    nd_buf_release(&c.out);
    json_decref(c.seen);
    free(c.pos);
    return 0;
}
