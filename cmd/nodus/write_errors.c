/* What the verbs that write objects from files share about validation and errors:
 * --validate (the fieldValidation sent), the errors of invalid fields shown at their
 * line in the file, and one message per distinct error; see write.h. */
#include <stdlib.h>
#include <string.h>

#include "kinds/schema.h"
#include "manifest.h"
#include "write.h"
#include "util/suggest.h"
#include "util/xmalloc.h"

int nd_validate_parse(const char *v, enum nd_validate *out, struct nd_status *st)
{
    *out = ND_VALIDATE_STRICT;
    if (!v || !strcmp(v, "strict") || !strcmp(v, "true"))
        return 0;
    if (!strcmp(v, "warn")) {
        *out = ND_VALIDATE_WARN;
        return 0;
    }
    if (!strcmp(v, "ignore") || !strcmp(v, "false")) {
        *out = ND_VALIDATE_IGNORE;
        return 0;
    }
    return nd_status_set(st, "Usage", "for example: --validate=warn",
                         "invalid - validate option \"%s\"; must be one of: strict (or true), "
                         "warn, ignore (or false)",
                         v);
}

void nd_validate_query(enum nd_validate v, struct nd_buf *path)
{
    static const char *const names[] = {"Strict", "Warn", "Ignore"};
    nd_buf_addf(path, "%cfieldValidation=%s", strchr(path->data, '?') ? '&' : '?', names[v]);
}

/* An Invalid answer about an object of a file, with causes: shown at their lines. */
static bool located(const struct nd_status *st, const struct nd_manifest *m)
{
    return m && m->where && nd_status_is(st, ND_REASON_INVALID) &&
           json_array_size(json_object_get(st->details, "causes")) &&
           json_object_get(st->details, "name") && json_object_get(st->details, "kind");
}

const char *nd_field_did_you_mean(const struct nd_kind *k, const char *field)
{
    const char *dot = strrchr(field, '.');
    const char *name = dot ? dot + 1 : field;
    if (!*name || strchr(name, '['))
        return NULL;
    char *parent = dot ? nd_xstrndup(field, (size_t)(dot - field)) : NULL;
    const json_t *schema = nd_kind_schema(k);
    const json_t *ps = parent ? nd_schema_at(schema, parent) : schema;
    free(parent);
    const char *best = NULL;
    size_t bestd = 99, n = strlen(name);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(ps, "properties"), key, v) {
        size_t d = nd_suggest_distance(name, key);
        if (d == 0 && strcmp(name, key) != 0)
            d = 1; /* only the case differs */
        if (d < bestd) {
            bestd = d;
            best = key;
        }
    }
    /* close: a typo or two, in a name long enough that it is not a guess */
    return best && bestd > 0 && bestd <= (n > 5 ? 2 : 1) ? best : NULL;
}

/* The error's text up to its requestId (exclusive), each line ending in '\n'. An Invalid
 * answer about an object of a file names each cause at its line:
 *   The Job "train-a" is invalid:
 *   * job.yaml:14: unknown field "spec.resourcse"
 *   * job.yaml:20: spec.maxCostUSD: Required value
 * (one cause on the first line: `The Job "a" is invalid: job.yaml:9: spec.x: ...`). */
static void render(struct nd_ctx *ctx, const struct nd_status *server_st,
                   const struct nd_manifest *m, struct nd_buf *b)
{
    if (!located(server_st, m)) {
        nd_cli_render(ctx, server_st, b); /* as every other error */
        return;
    }
    struct nd_status safe;
    nd_cli_safe_status(server_st, &safe);
    const struct nd_status *st = &safe;
    const json_t *d = st->details;
    const json_t *causes = json_object_get(d, "causes");
    bool one = json_array_size(causes) == 1;
    /* one cause on the line, as kubectl; several one per line, as kubectl */
    nd_buf_addf(b, "The %s \"%s\" is invalid:%s", json_string_value(json_object_get(d, "kind")),
                json_string_value(json_object_get(d, "name")), one ? " " : "\n");
    size_t i;
    json_t *c;
    json_array_foreach(causes, i, c) {
        const char *f = json_string_value(json_object_get(c, "field"));
        const char *cm = json_string_value(json_object_get(c, "message"));
        char *at = nd_manifest_line(m, f);
        /* "unknown field "spec.x"" names its field already */
        bool named = f && cm && strstr(cm, f);
        nd_buf_addf(b, "%s%s: %s%s%s", one ? "" : "* ", at, f && !named ? f : "",
                    f && !named ? ": " : "", cm ? cm : "");
        const char *near = f && cm && !strncmp(cm, "unknown field ", 14)
                               ? nd_field_did_you_mean(m->kind, f)
                               : NULL;
        if (near)
            nd_buf_addf(b, " (did you mean \"%s\"?)", near);
        nd_buf_addch(b, '\n');
        free(at);
    }
    nd_cli_render_tail(ctx, st, b);
    nd_status_release(&safe);
}

static char *object_name(const struct nd_manifest *m)
{
    const json_t *meta = json_object_get(m->obj, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!name || !*name)
        name = json_string_value(json_object_get(meta, "generateName"));
    return nd_xasprintf("%s/%s", m->kind->singular, name && *name ? name : "?");
}

/* Objects named in a summary before "and N more". */
#define NAMED 3

int nd_errors_add(struct nd_ctx *ctx, struct nd_errors *e, const struct nd_status *st,
                  const struct nd_manifest *m)
{
    struct nd_buf text = ND_BUF_INIT;
    render(ctx, st, m, &text);
    int code = nd_status_exit_code(st);
    if (!code)
        code = 1;
    if (!e->worst)
        e->worst = code;
    for (size_t i = 0; m && i < e->n; i++) {
        struct nd_error_group *g = &e->v[i];
        if (strcmp(g->text, text.data) != 0)
            continue;
        /* the same error again: counted, and named in the summary at the end */
        g->count++;
        if (g->count - 1 <= NAMED) {
            g->names = nd_xrealloc(g->names, g->count * sizeof *g->names);
            g->names[g->count - 2] = object_name(m);
        }
        nd_buf_release(&text);
        return code;
    }
    fflush(stdout);
    if (located(st, m) || !m) {
        fputs(text.data, stderr);
        if (st->request_id && *st->request_id)
            fprintf(stderr, "requestId: %s\n", st->request_id);
    } else {
        nd_cli_error(ctx, st);
    }
    if (m) {
        e->v = nd_xrealloc(e->v, (e->n + 1) * sizeof *e->v);
        e->v[e->n] = (struct nd_error_group){nd_buf_detach(&text), 1, NULL};
        /* the first line, for the summary */
        char *nl = strchr(e->v[e->n].text, '\n');
        e->v[e->n].first_len = nl ? (size_t)(nl - e->v[e->n].text) : strlen(e->v[e->n].text);
        e->n++;
    }
    nd_buf_release(&text);
    return code;
}

void nd_errors_finish(struct nd_errors *e)
{
    for (size_t i = 0; i < e->n; i++) {
        struct nd_error_group *g = &e->v[i];
        if (g->count < 2)
            continue;
        size_t more = g->count - 1, named = more < NAMED ? more : NAMED;
        fprintf(stderr, "error: %zu more object%s failed the same way (%.*s): ", more,
                more == 1 ? "" : "s", (int)g->first_len, g->text);
        for (size_t j = 0; j < named; j++)
            fprintf(stderr, "%s%s", j ? ", " : "", g->names[j]);
        if (more > named)
            fprintf(stderr, " and %zu more", more - named);
        fputc('\n', stderr);
    }
}

void nd_errors_release(struct nd_errors *e)
{
    for (size_t i = 0; i < e->n; i++) {
        size_t named = e->v[i].count - 1 < NAMED ? e->v[i].count - 1 : NAMED;
        for (size_t j = 0; j < named; j++)
            free(e->v[i].names[j]);
        free(e->v[i].names);
        free(e->v[i].text);
    }
    free(e->v);
    memset(e, 0, sizeof *e);
}
