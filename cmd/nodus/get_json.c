/* get -o json of a list, written from the answers' bytes (see get.h, get_json_list).
 *
 * What kubectl prints is the List {"apiVersion": "v1", "items": [...], "kind": "List",
 * "metadata": {"resourceVersion": ""}}: keys sorted, 4-space indent, Go's escapes. The
 * tree path loads every page with jansson, gathers the items, then dumps the List: most
 * of its time is malloc. Here each page is split by its members' extents
 * (nd_json_object_members), its small members read by jansson, and every item written by
 * nd_json_reformat straight from the bytes, metadata.managedFields left out. Anything
 * unusual (an answer that is not a list, a key with an escape, text that is not JSON, no
 * items at all) goes back to the tree path with the pages already read, so what is
 * printed, and every error, is the tree path's. */
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "get.h"
#include "json/json.h"
#include "util/xmalloc.h"

/* What the pages of one list gave so far. */
struct pages {
    struct get_pages raw; /* each page's answer, kept for the tree path */
    struct nd_buf items;  /* each page's items written, after a comma */
    size_t nitems;        /* pages with items */
    bool tree;            /* an answer needs the tree path */
};

/* A small member's value read by jansson (checked as the tree's loader would). NEW. */
static json_t *load_small(const struct nd_json_member *m)
{
    return json_loadb(m->val.p, m->val.n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
}

/* Writes the items of one page into pg->items; *cont (NEW, NULL when none) its continue
 * token. -1: the page needs the tree. */
static int page_items(struct get_run *g, struct pages *pg, const struct nd_buf *body,
                      char **cont)
{
    struct nd_json_member *m = NULL;
    size_t n = 0;
    json_t *meta = NULL;
    const struct nd_json_member *items = NULL;
    int rc = -1;
    *cont = NULL;
    if (nd_json_object_members(body->data, body->len, &m, &n) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const struct nd_json_member *mb = &m[i];
        for (size_t j = 0; j < i; j++) /* duplicates are the loader's to refuse */
            if (m[j].key.n == mb->key.n && memcmp(m[j].key.p, mb->key.p, mb->key.n) == 0)
                goto out;
        if (mb->escaped)
            goto out;
        if (mb->key.n == 5 && memcmp(mb->key.p, "items", 5) == 0) {
            items = mb;
            continue;
        }
        json_t *v = load_small(mb);
        if (!v)
            goto out;
        if (mb->key.n == 8 && memcmp(mb->key.p, "metadata", 8) == 0) {
            json_decref(meta);
            meta = v;
            continue;
        }
        bool kind = mb->key.n == 4 && memcmp(mb->key.p, "kind", 4) == 0;
        const char *s = json_string_value(v);
        bool table = kind && s && strcmp(s, "Table") == 0;
        json_decref(v);
        if (table)
            goto out;
    }
    if (!items)
        goto out;
    const char *c = json_string_value(json_object_get(meta, "continue"));
    struct nd_json_reformat o = {
        .flags = ND_JSON_PRETTY | ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML,
        .level = 1,
        .max_depth = ND_JSON_MAX_DEPTH - 1, /* the answer holds the array */
        .each = 1,
    };
    if (!g->opt->show_managed_fields) {
        o.drop[0] = "metadata";
        o.drop[1] = "managedFields";
    }
    /* the array written at level 1: "[\n        ITEM,\n        ITEM\n    ]", or "[]";
     * kept without its brackets, after a comma: the pages' items joined */
    struct nd_buf arr = ND_BUF_INIT;
    if (nd_json_reformat(items->val.p, items->val.n, &o, &arr) < 0) {
        nd_buf_release(&arr);
        goto out;
    }
    static const char tail[] = "\n    ]";
    if (arr.len > 2) {
        nd_buf_addch(&pg->items, ',');
        nd_buf_add(&pg->items, arr.data + 1, arr.len - 1 - (sizeof tail - 1));
        pg->nitems++;
    }
    nd_buf_release(&arr);
    if (c && *c)
        *cont = nd_xstrdup(c);
    rc = 0;
out:
    json_decref(meta);
    free(m);
    return rc;
}

int get_fetch_page(struct get_run *g, const struct nd_kind *k, const char *cont,
                   struct get_pages *pg, struct nd_status *st)
{
    if (pg->bytes > nd_client_max_response(g->client))
        return nd_client_too_large("the list (all its pages)", g->client, st);
    struct nd_buf path = ND_BUF_INIT;
    get_list_path(g, k, cont, &path);
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = get_fetch(g, path.data, &resp, st);
    nd_buf_release(&path);
    if (rc == 0) {
        pg->bytes += resp.body.len;
        pg->body = nd_xrealloc(pg->body, (pg->n + 1) * sizeof *pg->body);
        pg->body[pg->n++] = resp.body;
        resp.body = (struct nd_buf)ND_BUF_INIT;
    }
    nd_response_release(&resp);
    return rc;
}

void get_pages_release(struct get_pages *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        nd_buf_release(&pg->body[i]);
    free(pg->body);
    memset(pg, 0, sizeof *pg);
}

int get_pages_to_tree(struct get_run *g, const struct nd_kind *k, const struct get_pages *pg,
                      json_t **table, json_t *objects, struct nd_status *st)
{
    char *cont = NULL;
    for (size_t i = 0; i < pg->n; i++) {
        json_t *answer = nd_json_load(pg->body[i].data, pg->body[i].len, "answer", st);
        if (!answer) {
            free(cont);
            return -1;
        }
        get_collect(table, objects, answer);
        const char *c =
            json_string_value(json_object_get(json_object_get(answer, "metadata"), "continue"));
        free(cont);
        cont = c && *c ? nd_xstrdup(c) : NULL;
        json_decref(answer);
    }
    int rc = 0;
    if (cont) {
        char *rv = NULL;
        rc = get_list_from(g, k, cont, pg->bytes, table, objects, &rv, st);
        free(rv);
    }
    free(cont);
    return rc;
}

int get_json_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
                  struct nd_buf *out, bool *printed, struct nd_status *st)
{
    struct pages pg = {.items = ND_BUF_INIT};
    char *cont = NULL;
    int rc = 0;
    do {
        if ((rc = get_fetch_page(g, k, cont, &pg.raw, st)) < 0)
            goto out;
        free(cont);
        if (page_items(g, &pg, &pg.raw.body[pg.raw.n - 1], &cont) < 0) {
            pg.tree = true;
            break;
        }
    } while (cont);
    if (pg.tree || !pg.nitems) {
        rc = get_pages_to_tree(g, k, &pg.raw, table, objects, st);
        goto out;
    }
    nd_buf_adds(out, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [");
    nd_buf_add(out, pg.items.data + 1, pg.items.len - 1); /* the first page's comma out */
    nd_buf_adds(out, "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n"
                     "        \"resourceVersion\": \"\"\n    }\n}\n");
    *printed = true;
out:
    free(cont);
    get_pages_release(&pg.raw);
    nd_buf_release(&pg.items);
    return rc;
}
