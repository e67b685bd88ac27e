/* get and list, with pages (limit/continue) served from a consistent snapshot. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "http.h"
#include "objects.h"
#include "table.h"
#include "util/base64.h"
#include "util/xmalloc.h"

#define LIST_DEFAULT 500
#define LIST_MAX 1000

int em_api_get(struct em_api *a)
{
    int64_t want;
    if (em_api_query_rv(a, &want) < 0)
        return -1;
    json_t *obj = em_store_get(&a->srv->store, a->kind->plural, a->ns, a->path.name);
    if (!obj)
        return em_api_not_found(a, a->path.name);
    em_api_answer(a, 200, obj);
    return 0;
}

static char *obj_key(const json_t *obj)
{
    return nd_xasprintf("%s/%s", em_obj_ns(obj), em_obj_name(obj));
}

static int cmp_key(const void *x, const void *y)
{
    const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
    int c = strcmp(em_obj_ns(a), em_obj_ns(b));
    return c ? c : strcmp(em_obj_name(a), em_obj_name(b));
}

/* The objects of a plural as they were at revision rv: the current ones, with every
 * change made after rv undone from the journal. NEW array, sorted. */
static json_t *list_at(struct em_server *srv, const char *plural, const char *ns, int64_t rv)
{
    json_t *current = em_store_list(&srv->store, plural, *ns ? ns : NULL);
    size_t from = em_journal_after(&srv->journal, rv);
    if (from == srv->journal.len)
        return current;
    json_t *then = json_object(); /* key -> object at rv, or null when absent */
    for (size_t i = from; i < srv->journal.len; i++) {
        struct em_event *e = &srv->journal.ev[i];
        if (strcmp(e->plural, plural) != 0 || (*ns && strcmp(em_obj_ns(e->obj), ns) != 0))
            continue;
        char *key = obj_key(e->obj);
        if (!json_object_get(then, key))
            json_object_set(then, key, e->prev ? e->prev : json_null());
        free(key);
    }
    size_t n = json_array_size(current) + json_object_size(then);
    json_t **items = nd_xcalloc(n ? n : 1, sizeof *items);
    size_t k = 0;
    size_t i;
    json_t *o;
    json_array_foreach(current, i, o) {
        char *key = obj_key(o);
        if (!json_object_get(then, key))
            items[k++] = o;
        free(key);
    }
    const char *key;
    json_object_foreach(then, key, o) if (!json_is_null(o)) items[k++] = o;
    qsort(items, k, sizeof *items, cmp_key);
    json_t *out = json_array();
    for (size_t j = 0; j < k; j++)
        json_array_append(out, items[j]);
    free(items);
    json_decref(then);
    json_decref(current);
    return out;
}

static int parse_continue(struct em_api *a, const char *token, int64_t *rv, char **start)
{
    struct nd_buf raw = ND_BUF_INIT;
    json_t *j = NULL;
    int rc = -1;
    bool decoded = nd_base64_decode(token, strlen(token), &raw) == 0;
    if (decoded)
        j = json_loadb(raw.data, raw.len, 0, NULL);
    const char *s = json_string_value(json_object_get(j, "start"));
    json_int_t r = json_integer_value(json_object_get(j, "rv"));
    if (!s || r <= 0) {
        /* the token is not echoed: it may be 16 KiB of anything */
        nd_status_set(&a->st, "BadRequest",
                      "list again without continue, or with the token the last page gave",
                      "invalid continue token: continue key is not valid: %s",
                      !decoded ? "it is not base64 (URL alphabet)"
                      : !j     ? "it does not decode to a continue key"
                               : "it names no start or resourceVersion");
        goto out;
    }
    *rv = r;
    *start = nd_xstrdup(s);
    rc = 0;
out:
    json_decref(j);
    nd_buf_release(&raw);
    return rc;
}

static char *make_continue(int64_t rv, const json_t *last)
{
    char *key = obj_key(last);
    json_t *j = json_pack("{sIss}", "rv", (json_int_t)rv, "start", key);
    char *text = json_dumps(j, JSON_COMPACT);
    struct nd_buf b = ND_BUF_INIT;
    nd_base64_encode(text, strlen(text), true, &b);
    free(text);
    json_decref(j);
    free(key);
    return nd_buf_detach(&b);
}

static int parse_limit(struct em_api *a, long *limit)
{
    const char *s = em_req_query(a->req, "limit");
    *limit = LIST_DEFAULT;
    if (!s || !*s)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0)
        return nd_status_set(&a->st, "BadRequest", NULL,
                             "limit: %s is not a non-negative integer", s);
    if (v == 0)
        v = LIST_DEFAULT;
    *limit = v > LIST_MAX ? LIST_MAX : v;
    return 0;
}

int em_api_list(struct em_api *a)
{
    struct em_server *srv = a->srv;
    long limit;
    int64_t rv = srv->store.revision;
    char *start = NULL;
    json_t *all = NULL, *selected = NULL, *page = NULL, *meta = NULL;
    int rc = -1;
    int64_t want;
    if (parse_limit(a, &limit) < 0 || em_api_query_rv(a, &want) < 0)
        goto out;
    const char *cont = em_req_query(a->req, "continue");
    if (cont && *cont && want > 0) {
        nd_status_set(&a->st, "BadRequest", "leave resourceVersion out when you pass continue",
                      "specifying resource version is not allowed when using continue");
        goto out;
    }
    if (cont && *cont) {
        if (parse_continue(a, cont, &rv, &start) < 0)
            goto out;
        if (!em_journal_covers(&srv->journal, rv)) {
            nd_status_set(&a->st, "Expired", "list again without the continue token",
                          "The provided continue parameter is too old to display a consistent "
                          "list result. You can start a new list without the continue "
                          "parameter.");
            goto out;
        }
        all = list_at(srv, a->kind->plural, a->ns, rv);
    } else {
        all = em_store_list(&srv->store, a->kind->plural, *a->ns ? a->ns : NULL);
    }
    selected = em_api_select(a, all);
    if (!selected)
        goto out;
    page = json_array();
    size_t i, taken = 0, remaining = 0;
    json_t *o;
    json_array_foreach(selected, i, o) {
        if (start) {
            char *key = obj_key(o);
            int c = strcmp(key, start);
            free(key);
            if (c <= 0)
                continue;
        }
        if ((long)taken < limit) {
            json_array_append(page, o);
            taken++;
        } else {
            remaining++;
        }
    }
    char rvs[24];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    meta = json_pack("{ss}", "resourceVersion", rvs);
    if (remaining) {
        char *token = make_continue(rv, json_array_get(page, taken - 1));
        json_object_set_new(meta, "continue", json_string(token));
        free(token);
        json_object_set_new(meta, "remainingItemCount", json_integer((json_int_t)remaining));
    }
    bool ok;
    json_t *body;
    if (em_accept_table(a->req, &ok)) {
        body = em_table_build(srv, a->kind, page, a->req, meta);
    } else {
        body = json_pack("{sssssOsO}", "apiVersion", a->kind->api_version, "kind",
                         a->kind->list_kind, "metadata", meta, "items", page);
    }
    em_resp_json(a->resp, 200, body);
    json_decref(body);
    rc = 0;
out:
    free(start);
    json_decref(meta);
    json_decref(page);
    json_decref(selected);
    json_decref(all);
    return rc;
}
