/* get's table of a list, read from the Table answers' bytes (see get.h, get_table_list).
 *
 * The tree path loads every page with jansson and merges their rows into the first
 * page's Table, then builds the table from that tree: at 1,000 Jobs jansson's parse and
 * its frees were most of `get jobs`. Here each page's rows are read from its bytes into
 * the table as it comes (pkg/print/table_bytes.c). Anything unusual sends every page
 * read so far to the tree path, so what is printed, and every error, is the tree
 * path's. NODUS_GET_TREE=1 in the environment takes the tree path always (the oracle of
 * tests/cli/52-get-table-bytes.bats). */
#include <stdlib.h>

#include "client/client.h"
#include "get.h"
#include "util/xmalloc.h"

int get_table_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
                   struct nd_table *fast, bool *built, struct nd_status *st)
{
    struct get_pages pg = {0};
    char *cont = NULL;
    int rc = 0;
    /* as render_table: -A adds the NAMESPACE column to namespaced kinds only */
    g->popts.all_projects = g->ctx->all_projects && k->namespaced;
    struct nd_table_bytes tb = {.t = fast, .k = k, .opts = &g->popts};
    do {
        if ((rc = get_fetch_page(g, k, cont, &pg, st)) < 0)
            goto out;
        free(cont);
        if (nd_table_bytes_page(&tb, pg.body[pg.n - 1].data, pg.body[pg.n - 1].len, &cont) < 0) {
            nd_table_bytes_release(&tb);
            nd_table_release(fast);
            rc = get_pages_to_tree(g, k, &pg, table, objects, st);
            goto out;
        }
    } while (cont);
    *built = true;
out:
    nd_table_bytes_release(&tb);
    free(cont);
    get_pages_release(&pg);
    return rc;
}
