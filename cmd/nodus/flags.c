/* Command-line parsing driven by the flag tables (pflag's rules, as kubectl). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/quantity.h"
#include "util/suggest.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* Flags every verb takes; they land in the context. */
#define CTX(f) ND_TO(struct nd_ctx, f)
const struct nd_flag nd_global_flags[] = {
    {"kubeconfig", 0, ND_STRING, "FILE", "configuration file to use", "files", CTX(kubeconfig)},
    {"context", 0, ND_STRING, "NAME", "context of the configuration to use", "contexts",
     CTX(context)},
    {"server", 's', ND_STRING, "URL", "address of the API server (overrides the context)", NULL,
     CTX(server)},
    {"token", 0, ND_STRING, "TOKEN", "bearer token for the API server", NULL, CTX(token)},
    {"project", 'n', ND_STRING, "NAME", "project to act in (alias --namespace)", "projects",
     CTX(project_flag)},
    {"namespace", 0, ND_STRING, "NAME", "same as --project", "projects", CTX(project_flag)},
    {"all-projects", 'A', ND_BOOL, NULL, "act in every project (alias --all-namespaces)", NULL,
     CTX(all_projects)},
    {"all-namespaces", 0, ND_BOOL, NULL, "same as --all-projects", NULL, CTX(all_projects)},
    {"request-timeout", 0, ND_DURATION, "DURATION",
     "give up on a request after this long, retries included (e.g. 10s; 0: no limit)", NULL,
     CTX(request_timeout_ms)},
    {"max-response-bytes", 0, ND_BYTES, "SIZE",
     "largest answer read from the server (default 256Mi; a watch or log line may be 1/16 of "
     "it, the headers 1/256)",
     NULL, CTX(max_response_bytes)},
    {"read-idle-timeout", 0, ND_DURATION, "DURATION",
     "give up when the server sends nothing for this long (default 5m; 0: no limit); watches "
     "and followed logs start again instead",
     NULL, CTX(read_idle_ms), CTX(read_idle_given)},
    {"v", 'v', ND_INT, "LEVEL", "log level: 6 requests, 7 headers, 8 bodies, 9 curl commands", NULL,
     CTX(verbosity)},
    {"no-color", 0, ND_BOOL, NULL, "never colour the output (also NO_COLOR)", NULL, CTX(no_color)},
    {"certificate-authority", 0, ND_STRING, "FILE", "PEM file of the CA to trust", "files",
     CTX(ca_file)},
    {"insecure-skip-tls-verify", 0, ND_BOOL, NULL, "do not verify the server's certificate", NULL,
     CTX(insecure)},
    {"help", 'h', ND_BOOL, NULL, "show help for the command", NULL, CTX(help)},
    ND_FLAGS_END(struct nd_ctx),
};

/* The field a binding names in the struct at base. */
static void *field(void *base, struct nd_bind b)
{
    return (char *)base + b.at;
}

void nd_opts_release(struct nd_opts *o)
{
    for (const struct nd_flag *f = o->table; o->flags && f && f->name; f++) {
        if (f->type != ND_STRINGS)
            continue;
        struct nd_strings *l = field(o->flags, f->to);
        for (size_t i = 0; i < l->n; i++)
            free(l->v[i]);
        free(l->v);
        memset(l, 0, sizeof *l);
    }
    free(o->given);
    free(o->pos);
    memset(o, 0, sizeof *o);
}

static enum nd_field field_of(enum nd_flag_type t)
{
    switch (t) {
    case ND_BOOL: return ND_FIELD_BOOL;
    case ND_STRING: return ND_FIELD_STR;
    case ND_INT: return ND_FIELD_LL;
    case ND_DURATION:
    case ND_BYTES: return ND_FIELD_I64;
    case ND_STRINGS: return ND_FIELD_STRS;
    }
    return ND_FIELD_NONE;
}

static size_t field_size(enum nd_field k)
{
    switch (k) {
    case ND_FIELD_BOOL: return sizeof(bool);
    case ND_FIELD_STR: return sizeof(const char *);
    case ND_FIELD_LL: return sizeof(long long);
    case ND_FIELD_I64: return sizeof(int64_t);
    case ND_FIELD_STRS: return sizeof(struct nd_strings);
    case ND_FIELD_NONE: break;
    }
    return 0;
}

size_t nd_flags_size(const struct nd_flag *t)
{
    while (t && t->name)
        t++;
    return t ? t->to.at : 0;
}

/* Whether the fields of two bindings share a byte (the same field twice is an alias:
 * --project and --namespace). */
static bool overlap(struct nd_bind a, struct nd_bind b)
{
    if (a.at == b.at)
        return a.kind != b.kind;
    return a.at < b.at + field_size(b.kind) && b.at < a.at + field_size(a.kind);
}

static const char *bad_binding(const struct nd_flag *t, const struct nd_flag *f, size_t size)
{
    if (f->to.kind != field_of(f->type))
        return "is bound to a field of another type";
    if (f->to.at + field_size(f->to.kind) > size)
        return "is bound outside its struct";
    if (f->given.kind != ND_FIELD_NONE &&
        (f->given.kind != ND_FIELD_BOOL || f->given.at + sizeof(bool) > size))
        return "has a given field that is not a bool of its struct";
    for (const struct nd_flag *g = t; g < f; g++) {
        if (!strcmp(g->name, f->name) || (f->shorthand && g->shorthand == f->shorthand))
            return "is in the table twice";
        if (overlap(g->to, f->to) || (g->given.kind && overlap(g->given, f->to)) ||
            (f->given.kind && overlap(f->given, g->to)))
            return "shares its field with another flag";
    }
    return NULL;
}

const struct nd_flag *nd_flags_check(const struct nd_flag *t, size_t size, const char **why)
{
    *why = NULL;
    if (t && nd_flags_size(t) != size) {
        *why = "ends with another struct's size (ND_FLAGS_END)";
        return t;
    }
    for (const struct nd_flag *f = t; f && f->name; f++)
        if ((*why = bad_binding(t, f, size)))
            return f;
    return NULL;
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

/* A byte quantity ("512Mi", "1Gi", "300000000") of at least 1Mi. */
static int parse_bytes(const struct nd_flag *f, const char *value, const char *shown,
                       int64_t *out, struct nd_status *st)
{
    struct nd_quantity q;
    struct nd_status qst = ND_STATUS_INIT;
    int64_t n = 0;
    if (nd_quantity_parse(value, &q, &qst) < 0 || nd_quantity_bytes(&q, &n) < 0 || n < (1 << 20)) {
        nd_status_release(&qst);
        nd_status_set(st, "Usage", NULL,
                      "invalid argument \"%s\" for \"%s\" flag: want a size such as 512Mi or "
                      "1Gi, at least 1Mi",
                      value, shown);
        nd_status_set_fix(st, "Give a size of at least 1Mi, e.g. --%s=1Gi.", f->name);
        return -1;
    }
    *out = n;
    return 0;
}

/* Appends the comma-separated values of value to l, as pflag's StringSlice. */
static void append_list(struct nd_strings *l, const char *value)
{
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n || !l->v) {
            l->v = nd_xrealloc(l->v, (l->n + 2) * sizeof *l->v);
            if (n)
                l->v[l->n++] = nd_xstrndup(p, n);
            l->v[l->n] = NULL;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
}

static int parse_int(const char *value, const char *shown, long long *out, struct nd_status *st)
{
    char *end;
    errno = 0;
    long long n = strtoll(value, &end, 10);
    if (!*value || *end || errno)
        return nd_status_set(st, "Usage", NULL,
                             "invalid argument \"%s\" for \"%s\" flag: not an integer", value,
                             shown);
    *out = n;
    return 0;
}

static int parse_ms(const char *value, const char *shown, int64_t *out, struct nd_status *st)
{
    struct nd_status dst = ND_STATUS_INIT;
    if (parse_duration(value, out, &dst) < 0) {
        nd_status_set(st, "Usage", NULL, "invalid argument \"%s\" for \"%s\" flag: %s", value,
                      shown, dst.message);
        nd_status_release(&dst);
        return -1;
    }
    return 0;
}

/* Stores value (NULL: a bool flag given alone) in f's field of base. */
static int store(void *base, const struct nd_flag *f, const char *shown, const char *value,
                 struct nd_status *st)
{
    void *to = field(base, f->to);
    if (f->given.kind == ND_FIELD_BOOL)
        *(bool *)field(base, f->given) = true;
    switch (f->type) {
    case ND_BOOL:
        if (value && parse_bool(value, to) < 0)
            return nd_status_set(st, "Usage", NULL,
                                 "invalid argument \"%s\" for \"%s\" flag: want true or false",
                                 value, shown);
        if (!value)
            *(bool *)to = true;
        return 0;
    case ND_STRING: *(const char **)to = value; return 0;
    case ND_INT: return parse_int(value, shown, to, st);
    case ND_DURATION: return parse_ms(value, shown, to, st);
    case ND_BYTES: return parse_bytes(f, value, shown, to, st);
    case ND_STRINGS: append_list(to, value); return 0;
    }
    return nd_status_set(st, "Usage", NULL, "invalid value for \"%s\" flag", shown);
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

/* Where flag f's value lands: the context for a global flag, else the verb's struct. */
static int store_flag(struct nd_ctx *ctx, struct nd_opts *o, const struct nd_flag *f,
                      const char *shown, const char *value, struct nd_status *st)
{
    if (is_global(f))
        return store(ctx, f, shown, value, st);
    size_t n = 0;
    while (o->given[n] && o->given[n] != f)
        n++;
    o->given[n] = f;
    return store(o->flags, f, shown, value, st);
}

static int parse_args(struct nd_ctx *ctx, int argc, char **argv, struct nd_opts *o,
                      struct nd_status *st)
{
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
            if (store_flag(ctx, o, f, shown, value, st) < 0)
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
                if (store_flag(ctx, o, f, shown, value, st) < 0)
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
            if (store_flag(ctx, o, f, shown, value, st) < 0)
                return -1;
            break;
        }
    }
    return 0;
}

/* A table bound to another struct than the verb's is the program's error, found by
 * every run of the verb (and by test_flags for every table). */
static int check_binding(const struct nd_flag *t, size_t size, struct nd_status *st)
{
    const char *why;
    const struct nd_flag *f = nd_flags_check(t, size, &why);
    if (!f)
        return 0;
    return nd_status_set(st, "InternalError",
                         "the verb's flag table and its options struct disagree: fix the table",
                         "flag %s%s %s", f->name ? "--" : "", f->name ? f->name : "table", why);
}

int nd_cli_parse(struct nd_ctx *ctx, int argc, char **argv, struct nd_opts *o, void *flags,
                 size_t flags_size, struct nd_status *st)
{
    const struct nd_flag *t = ctx->cmd ? ctx->cmd->flags : NULL;
    size_t rows = 0;
    while (t && t[rows].name)
        rows++;
    memset(o, 0, sizeof *o);
    if (check_binding(t, t ? flags_size : 0, st) < 0 ||
        check_binding(nd_global_flags, sizeof *ctx, st) < 0)
        return -1;
    o->table = t; /* nd_opts_release frees its lists, once it is known to be flags' */
    o->flags = flags;
    o->given = nd_xcalloc(rows + 1, sizeof *o->given);
    int rc = parse_args(ctx, argc, argv, o, st);
    /* --read-idle-timeout=0: no limit (the field's 0 is the client's default) */
    if (ctx->read_idle_given && ctx->read_idle_ms == 0)
        ctx->read_idle_ms = -1;
    if (rc == 0)
        return 0;
    if (!st->fix && ctx->cmd)
        nd_status_set_fix(st, "see 'nodus %s --help' for the flags", ctx->cmd->name);
    return -1;
}
