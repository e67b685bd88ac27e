/* The result loop of create, replace and apply -f; see write.h. */
#include <stdio.h>

#include "manifest.h"
#include "write.h"

int nd_write_manifests(struct nd_ctx *ctx, const struct nd_manifests *ms,
                       const struct nd_write_each *e)
{
    struct nd_errors errs = {0};
    struct nd_status st = ND_STATUS_INIT;
    const char *cmd_ns = nd_ctx_project(ctx);
    size_t printed = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const struct nd_manifest *m = &ms->v[i];
        const char *ns;
        struct nd_write_done d = {0};
        int rc = nd_manifest_project(m, cmd_ns, ctx->project_flag != NULL, &ns, &st);
        if (rc == 0)
            rc = e->fn(ctx, m, ns, e->cls, &d, &st);
        if (rc == 0 && d.skipped) {
            /* the action said what it did not do */
        } else if (rc == 0 && nd_print_result(e->popts, e->has_output, d.obj, d.op, e->dry, printed,
                                              &st) == 0) {
            printed++;
            if (e->estimate && e->dry == ND_DRY_SERVER && !e->has_output)
                nd_print_estimate(d.obj);
            if (e->printed)
                e->printed(e->cls, m, ns);
        } else {
            nd_errors_add(ctx, &errs, &st, m);
        }
        fflush(stdout);
        nd_status_release(&st);
        json_decref(d.obj);
    }
    nd_errors_finish(&errs);
    int worst = errs.worst;
    nd_errors_release(&errs);
    return worst;
}
