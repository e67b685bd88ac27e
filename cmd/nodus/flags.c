/* Command-line parsing driven by the flag tables (pflag's rules, as kubectl). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/quantity.h"
#include "util/suggest.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* Flags every verb takes. */
const struct nd_flag nd_global_flags[] = {
    {"kubeconfig", 0, ND_STRING, "FILE", "configuration file to use", "files"},
    {"context", 0, ND_STRING, "NAME", "context of the configuration to use", "contexts"},
    {"server", 's', ND_STRING, "URL", "address of the API server (overrides the context)", NULL},
    {"token", 0, ND_STRING, "TOKEN", "bearer token for the API server", NULL},
    {"project", 'n', ND_STRING, "NAME", "project to act in (alias --namespace)", "projects"},
    {"namespace", 0, ND_STRING, "NAME", "same as --project", "projects"},
    {"all-projects", 'A', ND_BOOL, NULL, "act in every project (alias --all-namespaces)", NULL},
    {"all-namespaces", 0, ND_BOOL, NULL, "same as --all-projects", NULL},
    {"request-timeout", 0, ND_DURATION, "DURATION",
     "give up on a request after this long, retries included (e.g. 10s; 0: no limit)", NULL},
    {"max-response-bytes", 0, ND_STRING, "SIZE",
     "largest answer read from the server (default 256Mi; a watch or log line may be 1/16 of "
     "it, the headers 1/256)",
     NULL},
    {"read-idle-timeout", 0, ND_DURATION, "DURATION",
     "give up when the server sends nothing for this long (default 5m; 0: no limit); watches "
     "and followed logs start again instead",
     NULL},
    {"v", 'v', ND_INT, "LEVEL", "log level: 6 requests, 7 headers, 8 bodies, 9 curl commands",
     NULL},
    {"no-color", 0, ND_BOOL, NULL, "never colour the output (also NO_COLOR)", NULL},
    {"certificate-authority", 0, ND_STRING, "FILE", "PEM file of the CA to trust", "files"},
    {"insecure-skip-tls-verify", 0, ND_BOOL, NULL, "do not verify the server's certificate",
     NULL},
    {"help", 'h', ND_BOOL, NULL, "show help for the command", NULL},
    {NULL},
};

void nd_opts_release(struct nd_opts *o)
{
    json_decref(o->values);
    free(o->pos);
    memset(o, 0, sizeof *o);
}

static const struct nd_flag *find_long(const struct nd_flag *t, const char *name, size_t n)
{
    for (; t && t->name; t++)
        if (strlen(t->name) == n && strncmp(t->name, name, n) == 0)
            return t;
    return NULL;
}

static const struct nd_flag *find_short(const struct nd_flag *t, char c)
{
    for (; t && t->name; t++)
        if (t->shorthand && t->shorthand == c)
            return t;
    return NULL;
}

static bool is_global(const struct nd_flag *f)
{
    return f >= nd_global_flags &&
           f < nd_global_flags + sizeof nd_global_flags / sizeof nd_global_flags[0];
}

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "t") || !strcmp(v, "T") ||
        !strcmp(v, "TRUE") || !strcmp(v, "True")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "f") || !strcmp(v, "F") ||
        !strcmp(v, "FALSE") || !strcmp(v, "False")) {
        *out = false;
        return 0;
    }
    return -1;
}

/* Durations take Go syntax ("30s", "2m") or a bare number of seconds, as kubectl. */
static int parse_duration(const char *v, int64_t *ms, struct nd_status *st)
{
    char *end;
    errno = 0;
    long long secs = strtoll(v, &end, 10);
    if (*v && !*end && !errno && secs >= 0) {
        *ms = secs * 1000;
        return 0;
    }
    return nd_duration_parse(v, ms, st);
}

/* --max-response-bytes: a byte quantity ("512Mi", "1Gi", "300000000") of at least 1Mi. */
static int parse_max_response(struct nd_ctx *ctx, const char *value, const char *shown, json_t *v,
                              struct nd_status *st)
{
    json_decref(v);
    struct nd_quantity q;
    struct nd_status qst = ND_STATUS_INIT;
    int64_t n = 0;
    if (nd_quantity_parse(value, &q, &qst) < 0 || nd_quantity_bytes(&q, &n) < 0 || n < (1 << 20)) {
        nd_status_release(&qst);
        return nd_status_set(st, "Usage",
                             "Give a size of at least 1Mi, e.g. --max-response-bytes=1Gi.",
                             "invalid argument \"%s\" for \"%s\" flag: want a size such as 512Mi "
                             "or 1Gi, at least 1Mi",
                             value, shown);
    }
    ctx->max_response_bytes = n;
    return 0;
}

static int store(struct nd_ctx *ctx, json_t *values, const struct nd_flag *f, const char *shown,
                 const char *value, struct nd_status *st)
{
    json_t *v = NULL;
    switch (f->type) {
    case ND_BOOL: {
        bool b = true;
        if (value && parse_bool(value, &b) < 0)
            return nd_status_set(st, "Usage", NULL,
                                 "invalid argument \"%s\" for \"%s\" flag: want true or false",
                                 value, shown);
        v = json_boolean(b);
        break;
    }
    case ND_STRING: v = json_string(value); break;
    case ND_INT: {
        char *end;
        errno = 0;
        long long n = strtoll(value, &end, 10);
        if (!*value || *end || errno)
            return nd_status_set(st, "Usage", NULL,
                                 "invalid argument \"%s\" for \"%s\" flag: not an integer", value,
                                 shown);
        v = json_integer(n);
        break;
    }
    case ND_DURATION: {
        int64_t ms;
        struct nd_status dst = ND_STATUS_INIT;
        if (parse_duration(value, &ms, &dst) < 0) {
            nd_status_set(st, "Usage", NULL, "invalid argument \"%s\" for \"%s\" flag: %s", value,
                          shown, dst.message);
            nd_status_release(&dst);
            return -1;
        }
        v = json_integer(ms);
        break;
    }
    case ND_STRINGS: {
        json_t *arr = json_object_get(values, f->name);
        if (!arr) {
            arr = json_array();
            json_object_set_new(values, f->name, arr);
        }
        /* a comma-separated list, as pflag's StringSlice */
        const char *p = value;
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            if (n)
                json_array_append_new(arr, json_stringn(p, n));
            if (!comma)
                break;
            p = comma + 1;
        }
        return 0;
    }
    }
    if (!v)
        return nd_status_set(st, "Usage", NULL, "invalid value for \"%s\" flag", shown);
    if (!is_global(f)) {
        json_object_set_new(values, f->name, v);
        return 0;
    }
    /* global flags land in the context */
    const char *name = f->name;
    if (!strcmp(name, "kubeconfig"))
        ctx->kubeconfig = value;
    else if (!strcmp(name, "context"))
        ctx->context = value;
    else if (!strcmp(name, "server"))
        ctx->server = value;
    else if (!strcmp(name, "token"))
        ctx->token = value;
    else if (!strcmp(name, "project") || !strcmp(name, "namespace"))
        ctx->namespace_flag = value;
    else if (!strcmp(name, "all-projects") || !strcmp(name, "all-namespaces"))
        ctx->all_projects = json_is_true(v);
    else if (!strcmp(name, "request-timeout"))
        ctx->request_timeout_ms = json_integer_value(v);
    else if (!strcmp(name, "max-response-bytes"))
        return parse_max_response(ctx, value, shown, v, st);
    else if (!strcmp(name, "read-idle-timeout"))
        ctx->read_idle_ms = json_integer_value(v) ? json_integer_value(v) : -1;
    else if (!strcmp(name, "v"))
        ctx->verbosity = (int)json_integer_value(v);
    else if (!strcmp(name, "no-color"))
        ctx->no_color = json_is_true(v);
    else if (!strcmp(name, "certificate-authority"))
        ctx->ca_file = value;
    else if (!strcmp(name, "insecure-skip-tls-verify"))
        ctx->insecure = json_is_true(v);
    else if (!strcmp(name, "help"))
        ctx->help = json_is_true(v);
    json_decref(v);
    return 0;
}

static const struct nd_flag *lookup_long(struct nd_ctx *ctx, const char *name, size_t n)
{
    const struct nd_flag *f = ctx->cmd ? find_long(ctx->cmd->flags, name, n) : NULL;
    return f ? f : find_long(nd_global_flags, name, n);
}

static const struct nd_flag *lookup_short(struct nd_ctx *ctx, char c)
{
    const struct nd_flag *f = ctx->cmd ? find_short(ctx->cmd->flags, c) : NULL;
    return f ? f : find_short(nd_global_flags, c);
}

/* `unknown flag: --wach` with the fix `did you mean --watch? ...`, from the verb's flags and
 * the global ones */
static int unknown_flag(struct nd_ctx *ctx, const char *name, size_t n, struct nd_status *st)
{
    char *typed = nd_xstrndup(name, n);
    struct nd_suggest sg;
    nd_suggest_init_strict(&sg, typed);
    for (const struct nd_flag *f = ctx->cmd ? ctx->cmd->flags : NULL; f && f->name; f++)
        nd_suggest_add(&sg, f->name, NULL);
    for (const struct nd_flag *f = nd_global_flags; f->name; f++)
        nd_suggest_add(&sg, f->name, NULL);
    struct nd_buf b;
    nd_buf_init(&b, 0);
    nd_status_set(st, "Usage", NULL, "unknown flag: --%s", typed);
    if (nd_suggest_join(&sg, "--", NULL, &b) && ctx->cmd)
        nd_status_set_fix(st, "did you mean %s? see 'nodus %s --help' for the flags", b.data,
                          ctx->cmd->name);
    nd_buf_release(&b);
    nd_suggest_release(&sg);
    free(typed);
    return -1;
}

static int parse_args(struct nd_ctx *ctx, int argc, char **argv, struct nd_opts *o,
                      struct nd_status *st)
{
    memset(o, 0, sizeof *o);
    o->values = json_object();
    o->pos = nd_xcalloc((size_t)argc + 1, sizeof *o->pos);
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            o->dash = argv + i + 1;
            o->ndash = argc - i - 1;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            o->pos[o->npos++] = a;
            continue;
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            const struct nd_flag *f = lookup_long(ctx, name, n);
            if (!f)
                return unknown_flag(ctx, name, n, st);
            char shown[80];
            snprintf(shown, sizeof shown, "--%s", f->name);
            const char *value = eq ? eq + 1 : NULL;
            /* a flag whose value may be left out, as kubectl's NoOptDefVal: --validate
             * alone is --validate=strict */
            if (!value && f->type == ND_STRING && !strcmp(f->name, "validate"))
                value = "strict";
            if (!value && f->type != ND_BOOL) {
                if (i + 1 >= argc)
                    return nd_status_set(st, "Usage", NULL, "flag needs an argument: --%s",
                                         f->name);
                value = argv[++i];
            }
            if (store(ctx, o->values, f, shown, value, st) < 0)
                return -1;
            continue;
        }
        /* one or more shorthands: -A, -it, -ojson, -o json, -n=x */
        for (const char *p = a + 1; *p; p++) {
            const struct nd_flag *f = lookup_short(ctx, *p);
            if (!f)
                return nd_status_set(st, "Usage", NULL, "unknown shorthand flag: '%c' in %s", *p,
                                     a);
            char shown[8];
            snprintf(shown, sizeof shown, "-%c", *p);
            if (f->type == ND_BOOL) {
                const char *value = p[1] == '=' ? p + 2 : NULL;
                if (store(ctx, o->values, f, shown, value, st) < 0)
                    return -1;
                if (value)
                    break;
                continue;
            }
            const char *value = p[1] == '=' ? p + 2 : p[1] ? p + 1 : NULL;
            if (!value) {
                if (i + 1 >= argc)
                    return nd_status_set(st, "Usage", NULL,
                                         "flag needs an argument: '%c' in -%c", *p, *p);
                value = argv[++i];
            }
            if (store(ctx, o->values, f, shown, value, st) < 0)
                return -1;
            break;
        }
    }
    return 0;
}

int nd_cli_parse(struct nd_ctx *ctx, int argc, char **argv, struct nd_opts *o,
                 struct nd_status *st)
{
    if (parse_args(ctx, argc, argv, o, st) == 0)
        return 0;
    if (!st->fix && ctx->cmd)
        nd_status_set_fix(st, "see 'nodus %s --help' for the flags", ctx->cmd->name);
    return -1;
}

const char *nd_opt_str(const struct nd_opts *o, const char *name)
{
    return json_string_value(json_object_get(o->values, name));
}

bool nd_opt_bool(const struct nd_opts *o, const char *name)
{
    return json_is_true(json_object_get(o->values, name));
}

bool nd_opt_set(const struct nd_opts *o, const char *name)
{
    return json_object_get(o->values, name) != NULL;
}

long long nd_opt_int(const struct nd_opts *o, const char *name, long long def)
{
    json_t *v = json_object_get(o->values, name);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

int64_t nd_opt_ms(const struct nd_opts *o, const char *name, int64_t def)
{
    json_t *v = json_object_get(o->values, name);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

const json_t *nd_opt_list(const struct nd_opts *o, const char *name)
{
    return json_object_get(o->values, name);
}
