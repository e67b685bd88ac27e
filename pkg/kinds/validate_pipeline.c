/* validate_pipeline.c: a Pipeline's steps form a DAG of uniquely named Jobs. */
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "kinds/validate_extra.h"
#include "util/buf.h"
#include "util/validate.h"
#include "util/xmalloc.h"

enum color { WHITE, GRAY, BLACK };

struct graph {
    size_t n;
    const json_t *steps;
    const char **names; /* names[i]: step i's name, NULL when it has none */
    enum color *color;
    size_t *stack; /* the DFS path */
    size_t depth;
    bool found;
};

static ssize_t index_of(const struct graph *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->names[i] && strcmp(g->names[i], name) == 0)
            return (ssize_t)i;
    return -1;
}

/* Depth-first from u; reports the first cycle at the dependsOn entry that closes it. */
static void visit(struct graph *g, size_t u, struct nd_field_errors *errs)
{
    g->color[u] = GRAY;
    g->stack[g->depth++] = u;
    const json_t *deps = json_object_get(json_array_get(g->steps, u), "dependsOn");
    for (size_t j = 0; j < json_array_size(deps) && !g->found; j++) {
        const char *name = json_string_value(json_array_get(deps, j));
        ssize_t v = name ? index_of(g, name) : -1;
        if (v < 0 || (size_t)v == u)
            continue; /* reported already: not found, or itself */
        if (g->color[v] == GRAY) {
            struct nd_buf cycle = ND_BUF_INIT, field = ND_BUF_INIT;
            size_t start = 0;
            while (g->stack[start] != (size_t)v)
                start++;
            for (size_t s = start; s < g->depth; s++)
                nd_buf_addf(&cycle, "%s -> ", g->names[g->stack[s]]);
            nd_buf_adds(&cycle, g->names[v]);
            nd_buf_addf(&field, "spec.steps[%zu].dependsOn[%zu]", u, j);
            nd_field_errors_invalid(errs, field.data, json_array_get(deps, j),
                                    "dependency cycle: %s", cycle.data);
            nd_buf_release(&cycle);
            nd_buf_release(&field);
            g->found = true;
        } else if (g->color[v] == WHITE) {
            visit(g, (size_t)v, errs);
        }
    }
    g->depth--;
    g->color[u] = BLACK;
}

static void check_names(struct graph *g, const char *pipeline, struct nd_field_errors *errs)
{
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 0; i < g->n; i++) {
        const json_t *name = json_object_get(json_array_get(g->steps, i), "name");
        if (!json_is_string(name))
            continue;
        const char *s = json_string_value(name);
        nd_buf_reset(&p);
        nd_buf_addf(&p, "spec.steps[%zu].name", i);
        ssize_t first = index_of(g, s);
        if (first >= 0 && (size_t)first < i) {
            nd_field_errors_duplicate(errs, p.data, name);
            continue;
        }
        g->names[i] = s;
        if (pipeline && nd_is_dns_label(s) && strlen(pipeline) + 1 + strlen(s) > ND_DNS_LABEL_MAX)
            nd_field_errors_invalid(errs, p.data, name,
                                    "the step's Job name \"%s-%s\" must be no more than %d "
                                    "characters",
                                    pipeline, s, ND_DNS_LABEL_MAX);
    }
    nd_buf_release(&p);
}

static void check_refs(struct graph *g, struct nd_field_errors *errs)
{
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 0; i < g->n; i++) {
        const json_t *deps = json_object_get(json_array_get(g->steps, i), "dependsOn");
        for (size_t j = 0; j < json_array_size(deps); j++) {
            const json_t *d = json_array_get(deps, j);
            const char *name = json_string_value(d);
            if (!name)
                continue;
            nd_buf_reset(&p);
            nd_buf_addf(&p, "spec.steps[%zu].dependsOn[%zu]", i, j);
            bool repeated = false;
            for (size_t k = 0; k < j && !repeated; k++)
                repeated = json_equal(d, json_array_get(deps, k));
            if (repeated)
                nd_field_errors_duplicate(errs, p.data, d);
            else if (g->names[i] && strcmp(name, g->names[i]) == 0)
                nd_field_errors_invalid(errs, p.data, d, "a step cannot depend on itself");
            else if (index_of(g, name) < 0)
                nd_field_errors_invalid(errs, p.data, d, "no step of this Pipeline has that name");
        }
    }
    nd_buf_release(&p);
}

void nd_validate_pipeline(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs)
{
    (void)k;
    const json_t *steps = json_object_get(json_object_get(obj, "spec"), "steps");
    if (!json_is_array(steps) || json_array_size(steps) == 0)
        return;
    const char *pipeline =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    struct graph g = {0};
    g.n = json_array_size(steps);
    g.steps = steps;
    g.names = nd_xcalloc(g.n, sizeof *g.names);
    g.color = nd_xcalloc(g.n, sizeof *g.color);
    g.stack = nd_xcalloc(g.n, sizeof *g.stack);
    check_names(&g, pipeline, errs);
    check_refs(&g, errs);
    for (size_t i = 0; i < g.n && !g.found; i++)
        if (g.names[i] && g.color[i] == WHITE)
            visit(&g, i, errs);
    struct nd_buf p = ND_BUF_INIT;
    for (size_t i = 0; i < g.n; i++) {
        const json_t *job = json_object_get(json_array_get(steps, i), "job");
        if (!json_is_object(job))
            continue;
        nd_buf_reset(&p);
        nd_buf_addf(&p, "spec.steps[%zu].job", i);
        nd_validate_job_spec(job, p.data, errs);
    }
    nd_buf_release(&p);
    free(g.names);
    free(g.color);
    free(g.stack);
}
