/* nodus config: show and change the configuration file, as kubectl config does (same
 * subcommands, messages and tables), on top of pkg/config. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config/config.h"
#include "json/json.h"
#include "print/print.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

/* One table for every subcommand (flags a subcommand does not take are refused). Some
 * shadow global flags of the same name (--server, --token, --namespace ...): here they
 * are what the subcommand writes, not how to connect. */
struct config_opts {
    bool raw;
    bool minify;
    const char *output;
    bool no_headers;
    bool current;
    const char *cluster;
    const char *user;
    const char *namespace;
    const char *server;
    const char *certificate_authority;
    bool insecure_skip_tls_verify;
    bool insecure_skip_tls_verify_given;
    const char *token;
    const char *token_file;
    const char *client_certificate;
    const char *client_key;
};

#define TO(f) ND_TO(struct config_opts, f)
const struct nd_flag cmd_config_flags[] = {
    {"raw", 0, ND_BOOL, NULL, "view: show tokens and certificate data as they are", NULL, TO(raw)},
    {"minify", 0, ND_BOOL, NULL, "view: only what the current context (or --context) uses", NULL,
     TO(minify)},
    {"output", 'o', ND_STRING, "FORMAT",
     "view: yaml, json or jsonpath=TEMPLATE; get-contexts: name",
     "=yaml json name jsonpath=", TO(output)},
    {"no-headers", 0, ND_BOOL, NULL, "get-contexts: leave the header line out", NULL,
     TO(no_headers)},
    {"current", 0, ND_BOOL, NULL, "set-context: change the current context", NULL, TO(current)},
    {"cluster", 0, ND_STRING, "NAME", "set-context: the context's cluster", NULL, TO(cluster)},
    {"user", 0, ND_STRING, "NAME", "set-context: the context's user", NULL, TO(user)},
    {"namespace", 0, ND_STRING, "NAME", "set-context: the context's project", "projects",
     TO(namespace)},
    {"server", 0, ND_STRING, "URL", "set-cluster: the API server's address", NULL, TO(server)},
    {"certificate-authority", 0, ND_STRING, "FILE", "set-cluster: PEM file of the CA to trust",
     "files", TO(certificate_authority)},
    {"insecure-skip-tls-verify", 0, ND_BOOL, NULL,
     "set-cluster: do not verify the server's certificate (=false turns it off)", NULL,
     TO(insecure_skip_tls_verify), TO(insecure_skip_tls_verify_given)},
    {"token", 0, ND_STRING, "TOKEN", "set-credentials: bearer token", NULL, TO(token)},
    {"token-file", 0, ND_STRING, "FILE", "set-credentials: file holding the bearer token", "files",
     TO(token_file)},
    {"client-certificate", 0, ND_STRING, "FILE", "set-credentials: client certificate (PEM)",
     "files", TO(client_certificate)},
    {"client-key", 0, ND_STRING, "FILE", "set-credentials: client key (PEM)", "files",
     TO(client_key)},
    ND_FLAGS_END(struct config_opts),
};

struct sub {
    const char *name;
    int (*run)(struct nd_ctx *ctx, const struct nd_opts *o, const struct config_opts *opt,
               struct nd_config *cfg);
    int min_args, max_args;
    const char *flags; /* the flags it takes, space-separated */
    const char *usage; /* for a wrong number of arguments */
};

/* `error: <message>` and the given exit code, for errors kubectl prints in its own words. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static int save(struct nd_ctx *ctx, struct nd_config *cfg)
{
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_config_save(cfg, &st) < 0 ? nd_cli_error(ctx, &st) : 0;
    nd_status_release(&st);
    return rc;
}

static bool has_context(const struct nd_config *cfg, const char *name)
{
    return name && nd_config_get(cfg, "contexts", name) != NULL;
}

/* ---- view ---- */

/* Replaces the secrets of entries' bodies as kubectl does without --raw. */
static void redact(json_t *doc, const char *list, const char *inner)
{
    static const char *const data[] = {"certificate-authority-data", "client-certificate-data",
                                       "client-key-data", NULL};
    static const char *const secret[] = {"token", "password", NULL};
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, list), i, e)
    {
        json_t *body = json_object_get(e, inner);
        for (const char *const *k = data; *k; k++)
            if (json_string_length(json_object_get(body, *k)))
                json_object_set_new(body, *k, json_string("DATA+OMITTED"));
        for (const char *const *k = secret; *k; k++)
            if (json_string_length(json_object_get(body, *k)))
                json_object_set_new(body, *k, json_string("REDACTED"));
    }
}

/* Keeps only the entry of list called name (none when name is NULL or ""). -1 when a
 * name is given and there is no such entry. */
static int keep_only(json_t *doc, const char *list, const char *name)
{
    json_t *arr = json_object_get(doc, list), *kept = json_array();
    size_t i;
    json_t *e;
    bool found = false;
    json_array_foreach(arr, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (name && n && !strcmp(n, name)) {
            json_array_append(kept, e);
            found = true;
        }
    }
    json_object_set_new(doc, list, kept);
    return !name || !*name || found ? 0 : -1;
}

/* A string member, or "". BORROWED. */
static const char *strval(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static int minify(json_t *doc, const char *current)
{
    if (!current || !*current)
        return fail(1, "current-context must exist in order to minify");
    json_t *c = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "contexts"), i, e)
    {
        if (!strcmp(strval(e, "name"), current))
            c = json_object_get(e, "context");
    }
    if (!c)
        return fail(1, "cannot locate context %s", current);
    char *cluster = nd_xstrdup(strval(c, "cluster"));
    char *user = nd_xstrdup(strval(c, "user"));
    int rc = 0;
    keep_only(doc, "contexts", current);
    if (keep_only(doc, "clusters", cluster) < 0)
        rc = fail(1, "cannot locate cluster %s", cluster);
    else if (keep_only(doc, "users", user) < 0)
        rc = fail(1, "cannot locate user %s", user);
    json_object_set_new(doc, "current-context", json_string(current));
    free(cluster);
    free(user);
    return rc;
}

static int cfg_view(struct nd_ctx *ctx, const struct nd_opts *o, const struct config_opts *opt,
               struct nd_config *cfg)
{
    (void)o;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_print_opts po;
    struct nd_buf out = ND_BUF_INIT;
    json_t *doc = json_deep_copy(cfg->doc);
    int rc = 0;
    nd_print_opts_init(&po);
    const char *fmt = opt->output;
    if (fmt && *fmt && strcmp(fmt, "yaml") && strcmp(fmt, "json") && strncmp(fmt, "jsonpath=", 9)) {
        rc = nd_cli_usage(ctx, "--output must be yaml, json or jsonpath=TEMPLATE, not %s", fmt);
        goto out;
    }
    if (opt->minify) {
        const char *cur =
            ctx->context && *ctx->context ? ctx->context : nd_config_current_context(cfg);
        if ((rc = minify(doc, cur)) != 0)
            goto out;
    }
    if (!opt->raw) {
        redact(doc, "clusters", "cluster");
        redact(doc, "users", "user");
    }
    /* As kubectl shows them: empty lists are null, current-context always there. */
    static const char *const lists[] = {"clusters", "users", "contexts", NULL};
    for (const char *const *l = lists; *l; l++)
        if (!json_array_size(json_object_get(doc, *l)))
            json_object_set_new(doc, *l, json_null());
    if (!json_is_string(json_object_get(doc, "current-context")))
        json_object_set_new(doc, "current-context", json_string(""));
    if (fmt && !strcmp(fmt, "json")) {
        /* kubectl's field order at the top, then every member as it is */
        static const char *const order[] = {"kind",  "apiVersion", "preferences",     "clusters",
                                            "users", "contexts",   "current-context", NULL};
        json_t *j = json_object();
        for (const char *const *k = order; *k; k++)
            if (json_object_get(doc, *k))
                json_object_set(j, *k, json_object_get(doc, *k));
        json_object_update_missing(j, doc);
        for (const char *const *l = lists; *l; l++) {
            size_t i;
            json_t *e;
            json_array_foreach(json_object_get(j, *l), i, e)
            {
                json_t *named = json_object(), *name = json_object_get(e, "name");
                if (name)
                    json_object_set(named, "name", name);
                json_object_update_missing(named, e);
                json_array_set_new(json_object_get(j, *l), i, named);
            }
        }
        nd_json_dump(j, &out, ND_JSON_PRETTY | ND_JSON_ESCAPE_HTML);
        nd_buf_addch(&out, '\n');
        json_decref(j);
    } else if (fmt && !strncmp(fmt, "jsonpath=", 9)) {
        json_t *one = json_pack("[O]", doc);
        if (nd_print_parse_output(fmt, &po, &st) < 0 ||
            nd_print_objects(one, true, &po, &out, &st) < 0)
            rc = nd_cli_error(ctx, &st);
        json_decref(one);
    } else if (nd_yaml_dump_flags(doc, &out, ND_YAML_SORT_KEYS, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
    }
    if (rc == 0)
        nd_out(&out);
out:
    nd_print_opts_release(&po);
    nd_buf_release(&out);
    json_decref(doc);
    nd_status_release(&st);
    return rc;
}

/* ---- get-contexts, current-context, use-context, delete-context ---- */

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cfg_get_contexts(struct nd_ctx *ctx, const struct nd_opts *o,
                            const struct config_opts *opt, struct nd_config *cfg)
{
    const char *fmt = opt->output;
    if (fmt && *fmt && strcmp(fmt, "name"))
        return nd_cli_usage(ctx, "output must be one of '' or 'name'");
    for (int i = 1; i < o->npos; i++)
        if (!has_context(cfg, o->pos[i]))
            return fail(2, "context %s not found", o->pos[i]);
    json_t *names = nd_config_context_names(cfg);
    size_t n = json_array_size(names), k = 0;
    const char **v = nd_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const char *name = json_string_value(json_array_get(names, i));
        bool wanted = o->npos < 2;
        for (int j = 1; j < o->npos && !wanted; j++)
            wanted = !strcmp(o->pos[j], name);
        if (wanted)
            v[k++] = name;
    }
    qsort(v, k, sizeof *v, cmp_name);
    struct nd_buf out = ND_BUF_INIT;
    if (fmt && *fmt) {
        for (size_t i = 0; i < k; i++)
            nd_buf_addf(&out, "%s\n", v[i]);
    } else {
        struct nd_table t;
        nd_table_init(&t);
        static const char *const headers[] = {"CURRENT", "NAME", "CLUSTER", "AUTHINFO",
                                              "NAMESPACE"};
        for (size_t c = 0; c < 5; c++)
            nd_table_add_column(&t, headers[c]);
        t.header_if_empty = true;
        t.no_headers = opt->no_headers;
        const char *cur = nd_config_current_context(cfg);
        for (size_t i = 0; i < k; i++) {
            const json_t *body = nd_config_get(cfg, "contexts", v[i]);
            size_t row = nd_table_add_row(&t);
            const char *cells[5] = {cur && !strcmp(cur, v[i]) ? "*" : "", v[i],
                                    json_string_value(json_object_get(body, "cluster")),
                                    json_string_value(json_object_get(body, "user")),
                                    json_string_value(json_object_get(body, "namespace"))};
            for (size_t c = 0; c < 5; c++)
                nd_table_set(&t, row, c, cells[c] ? cells[c] : "");
        }
        nd_table_render(&t, &out);
        nd_table_release(&t);
    }
    nd_out(&out);
    nd_buf_release(&out);
    free(v);
    json_decref(names);
    return 0;
}

static int cfg_current_context(struct nd_ctx *ctx, const struct nd_opts *o,
                               const struct config_opts *opt, struct nd_config *cfg)
{
    (void)opt;
    (void)ctx;
    (void)o;
    const char *cur = nd_config_current_context(cfg);
    if (!cur)
        return fail(1, "current-context is not set");
    printf("%s\n", cur);
    return 0;
}

static int cfg_use_context(struct nd_ctx *ctx, const struct nd_opts *o,
                           const struct config_opts *opt, struct nd_config *cfg)
{
    (void)opt;
    const char *name = o->pos[1];
    struct nd_status st = ND_STATUS_INIT;
    int rc;
    if (!has_context(cfg, name))
        rc = fail(2, "no context exists with the name: \"%s\"", name);
    else if (nd_config_use_context(cfg, name, &st) < 0)
        rc = nd_cli_error(ctx, &st);
    else if ((rc = save(ctx, cfg)) == 0)
        printf("Switched to context \"%s\".\n", name);
    nd_status_release(&st);
    return rc;
}

static int cfg_delete_context(struct nd_ctx *ctx, const struct nd_opts *o,
                              const struct config_opts *opt, struct nd_config *cfg)
{
    (void)opt;
    const char *name = o->pos[1];
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0, was_current = 0;
    if (!has_context(cfg, name))
        rc = fail(2, "cannot delete context %s, not in %s", name, cfg->path);
    else if ((was_current = nd_config_delete_context(cfg, name, &st)) < 0)
        rc = nd_cli_error(ctx, &st);
    if (rc == 0 && was_current)
        fprintf(stderr, "warning: this removed your active context, use \"nodus config "
                        "use-context\" to select a different one\n");
    if (rc == 0 && (rc = save(ctx, cfg)) == 0)
        printf("deleted context %s from %s\n", name, cfg->path);
    nd_status_release(&st);
    return rc;
}

/* ---- set-context, set-cluster, set-credentials ---- */

static int cfg_set_context(struct nd_ctx *ctx, const struct nd_opts *o,
                           const struct config_opts *opt, struct nd_config *cfg)
{
    const char *name = o->npos > 1 ? o->pos[1] : NULL;
    if (opt->current) {
        if (name)
            return nd_cli_usage(ctx, "you cannot specify both a context name and --current");
        name = nd_config_current_context(cfg);
        if (!name)
            return fail(1, "current-context is not set");
    }
    if (!name || !*name)
        return nd_cli_usage(ctx, "you must specify a non-empty context name or --current");
    char *copy = nd_xstrdup(name);
    bool existed = has_context(cfg, copy);
    /* -n (the global --project) names the project too */
    const char *ns = opt->namespace ? opt->namespace : ctx->project_flag;
    struct nd_status st = ND_STATUS_INIT;
    int rc;
    if (nd_config_set_context(cfg, copy, opt->cluster, opt->user, ns, &st) <
        0)
        rc = nd_cli_error(ctx, &st);
    else if ((rc = save(ctx, cfg)) == 0)
        printf("Context \"%s\" %s.\n", copy, existed ? "modified" : "created");
    nd_status_release(&st);
    free(copy);
    return rc;
}

static int cfg_set_cluster(struct nd_ctx *ctx, const struct nd_opts *o,
                           const struct config_opts *opt, struct nd_config *cfg)
{
    const char *name = o->pos[1];
    int insecure =
        opt->insecure_skip_tls_verify_given ? opt->insecure_skip_tls_verify : -1;
    struct nd_status st = ND_STATUS_INIT;
    int rc;
    if (nd_config_set_cluster(cfg, name, opt->server,
                              opt->certificate_authority, insecure, &st) < 0)
        rc = nd_cli_error(ctx, &st);
    else if ((rc = save(ctx, cfg)) == 0)
        printf("Cluster \"%s\" set.\n", name);
    nd_status_release(&st);
    return rc;
}

static int cfg_set_credentials(struct nd_ctx *ctx, const struct nd_opts *o,
                               const struct config_opts *opt, struct nd_config *cfg)
{
    const char *name = o->pos[1];
    struct nd_status st = ND_STATUS_INIT;
    int rc;
    if (nd_config_set_credentials(cfg, name, opt->token, opt->token_file,
                                  opt->client_certificate, opt->client_key,
                                  &st) < 0)
        rc = nd_cli_error(ctx, &st);
    else if ((rc = save(ctx, cfg)) == 0)
        printf("User \"%s\" set.\n", name);
    nd_status_release(&st);
    return rc;
}

static const struct sub subs[] = {
    {"current-context", cfg_current_context, 0, 0, "", "current-context"},
    {"delete-context", cfg_delete_context, 1, 1, "", "delete-context NAME"},
    {"get-contexts", cfg_get_contexts, 0, -1, "output no-headers", "get-contexts [NAME...]"},
    {"set-cluster", cfg_set_cluster, 1, 1, "server certificate-authority insecure-skip-tls-verify",
     "set-cluster NAME [--server URL] [--certificate-authority FILE] "
     "[--insecure-skip-tls-verify]"},
    {"set-context", cfg_set_context, 0, 1, "current cluster user namespace",
     "set-context NAME|--current [--cluster NAME] [--user NAME] [--namespace NAME]"},
    {"set-credentials", cfg_set_credentials, 1, 1, "token token-file client-certificate client-key",
     "set-credentials NAME [--token TOKEN] [--token-file FILE] [--client-certificate FILE] "
     "[--client-key FILE]"},
    {"use-context", cfg_use_context, 1, 1, "", "use-context NAME"},
    {"view", cfg_view, 0, 0, "raw minify output", "view [--raw] [--minify] [-o yaml|json]"},
};

/* True when word is one of the space-separated words of list. */
static bool listed(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

int cmd_config(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct config_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos == 0) {
        rc = nd_cli_usage(ctx, "a subcommand is required: view, get-contexts, current-context, "
                               "use-context, set-context, set-cluster, set-credentials or "
                               "delete-context");
        goto out;
    }
    const struct sub *s = NULL;
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (!strcmp(subs[i].name, o.pos[0]))
            s = &subs[i];
    if (!s) {
        rc = nd_cli_usage(ctx, "unknown command \"%s\" for \"nodus config\"", o.pos[0]);
        goto out;
    }
    for (const struct nd_flag **f = o.given; *f; f++) {
        if (!listed(s->flags, (*f)->name)) {
            rc = nd_cli_usage(ctx, "unknown flag for config %s: --%s", s->name, (*f)->name);
            goto out;
        }
    }
    int nargs = o.npos - 1;
    if (nargs < s->min_args || (s->max_args >= 0 && nargs > s->max_args)) {
        rc = nd_cli_usage(ctx, "usage: nodus config %s", s->usage);
        goto out;
    }
    struct nd_config *cfg = nd_ctx_config(ctx, &st);
    if (!cfg) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    rc = s->run(ctx, &o, &opt, cfg);
out:
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
