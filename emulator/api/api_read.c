/* get and list, with pages (limit/continue) served from a consistent snapshot. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "http.h"
#include "objects.h"
#include "selector/selector.h"
#include "table.h"
#include "util/base64.h"
#include "util/xmalloc.h"

#define LIST_DEFAULT 500
#define LIST_MAX 1000

int em_api_get(struct em_api *a)
{
    int64_t want;
    /* resourceVersion: 0 any, R not older than R (a newer one is waited for, then 504) */
    if (em_api_query_rv(a, &want) < 0 || em_api_wait_fresh(a, want) < 0)
        return -1;
    const struct em_entry *e = em_store_entry(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!e)
        return em_api_not_found(a, a->path.name);
    if (a->kind->from_stored) { /* a view: the stored object converted */
        json_t *seen = a->kind->from_stored(em_entry_obj(e));
        em_api_answer(a, 200, seen);
        json_decref(seen);
        return 0;
    }
    if (a->accept.repr != EM_REPR_OBJECT) {
        em_api_answer(a, 200, em_entry_obj(e));
        return 0;
    }
    /* the bytes made once for this revision */
    struct em_bytes *json = em_store_entry_json(e);
    a->resp->code = 200;
    nd_buf_reset(&a->resp->body);
    nd_buf_add(&a->resp->body, json->data, json->len);
    nd_buf_addch(&a->resp->body, '\n');
    em_resp_set_type(a->resp, "application/json");
    return 0;
}

/* "project/name": where a continue token resumes after. NEW. */
static char *obj_key(const json_t *obj)
{
    return nd_xasprintf("%s/%s", em_obj_ns(obj), em_obj_name(obj));
}

/* The index key of an object (store.h): project "\x01" name, NEW. */
static char *ix_key_of(const json_t *obj)
{
    return nd_xasprintf("%s\x01%s", em_obj_ns(obj), em_obj_name(obj));
}

/* The keys of plural (in project ns, "" for every project) changed after rv, each with
 * the object as it was at rv (null when it did not exist then): NEW object. What a page
 * at rv must show instead of the current objects. */
static json_t *changed_since(struct em_server *srv, const char *plural, const char *ns, int64_t rv)
{
    json_t *then = json_object();
    for (size_t i = em_history_after(&srv->history, rv); i < srv->history.len; i++) {
        struct em_change *e = &srv->history.ev[i];
        if (strcmp(e->plural, plural) != 0)
            continue;
        json_t *obj = em_change_obj(e), *prev = em_change_prev(e);
        if (*ns && strcmp(em_obj_ns(obj), ns) != 0)
            continue;
        char *key = ix_key_of(obj);
        if (!json_object_get(then, key))
            json_object_set(then, key, prev ? prev : json_null());
        free(key);
    }
    return then;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The objects of a list, in order, as they were at a revision: the kind's index from a
 * position on, with the keys changed since that revision taken from the history instead
 * (merged in order). Costs O(log N + what it walks + changes since). */
struct walk {
    struct em_store_cursor c;
    json_t *then;        /* changed_since, or NULL */
    const char **keys;   /* its keys after the start, sorted */
    size_t nkeys, k;
    const char *hi;      /* range end (one project), or NULL */
};

static void walk_init(struct walk *w, struct em_server *srv, const struct nd_kind *kind,
                      const char *ns, const char *start_ns, const char *start_name, int64_t rv)
{
    memset(w, 0, sizeof *w);
    em_store_seek(&srv->store, kind, *ns ? ns : NULL, start_ns, start_name, &w->c);
    if (rv >= srv->store.revision)
        return;
    w->then = changed_since(srv, kind->plural, ns, rv);
    if (!json_object_size(w->then))
        return;
    char *start = start_name ? nd_xasprintf("%s\x01%s", start_ns, start_name) : NULL;
    w->keys = nd_xcalloc(json_object_size(w->then), sizeof *w->keys);
    const char *key;
    json_t *v;
    json_object_foreach(w->then, key, v) {
        if (!start || strcmp(key, start) > 0)
            w->keys[w->nkeys++] = key;
    }
    qsort(w->keys, w->nkeys, sizeof *w->keys, cmp_str);
    free(start);
}

/* The next object (BORROWED) and its entry when it is the stored revision (else NULL);
 * NULL at the end. For a stored revision the object is its record (entry.h: what
 * selectors and the continue token read), else the whole object as it was then. */
static const json_t *walk_next(struct walk *w, const struct em_entry **ent)
{
    for (;;) {
        const struct em_entry *e = em_store_peek(&w->c);
        const char *ck = e ? em_store_cursor_key(&w->c) : NULL;
        const char *ok = w->k < w->nkeys ? w->keys[w->k] : NULL;
        if (!ck && !ok)
            return NULL;
        int c = !ck ? 1 : !ok ? -1 : strcmp(ck, ok);
        if (c < 0) {
            em_store_next(&w->c);
            *ent = e;
            return em_entry_rec(e);
        }
        /* the key changed since: the object as it was then, if it was */
        w->k++;
        if (c == 0)
            em_store_next(&w->c);
        json_t *then = json_object_get(w->then, ok);
        if (!json_is_null(then)) {
            *ent = NULL;
            return then;
        }
    }
}

static void walk_release(struct walk *w)
{
    free(w->keys);
    json_decref(w->then);
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

/* The revision a first page shows: the current one, or want under resourceVersionMatch=Exact
 * (410 Expired when the history no longer reaches back to it, 504 at once when the server
 * has not reached it, as etcd's future revision). Without a match, a limit makes it Exact
 * too (kube-apiserver's legacy rule, which client-go's paged relists rely on). Else a
 * newer want is waited for (NotOlderThan; 0 is any). */
static int list_version(struct em_api *a, int64_t want, int64_t *rv)
{
    struct em_server *srv = a->srv;
    const char *match = em_req_query(a->req, "resourceVersionMatch");
    int64_t limit = 0;
    bool paged;
    if (em_api_query_int(a, "limit", &limit, &paged) < 0)
        return -1;
    bool exact = match && *match ? !strcmp(match, "Exact") : paged && limit > 0;
    if (!exact || want <= 0)
        return em_api_wait_fresh(a, want) < 0 ? -1 : (*rv = srv->store.revision, 0);
    if (want > srv->store.revision)
        return em_api_too_large(a, want, 0);
    if (!em_history_covers(&srv->history, want)) {
        nd_status_set(&a->st, "Expired", NULL,
                      "The resourceVersion for the provided list is too old.");
        nd_status_set_fix(&a->st,
                          "the kept history reaches back to resourceVersion %lld: list with "
                          "that or a newer one, or without resourceVersion",
                          (long long)srv->history.oldest_rev);
        return -1;
    }
    *rv = want;
    return 0;
}

static int parse_limit(struct em_api *a, long *limit)
{
    int64_t v;
    bool given;
    *limit = LIST_DEFAULT;
    /* a whole number, 0 or more (query.h checked it): 0 is the default page */
    if (em_api_query_int(a, "limit", &v, &given) < 0)
        return -1;
    if (given && v > 0)
        *limit = v > LIST_MAX ? LIST_MAX : (long)v;
    return 0;
}

/* What a list keeps: what the caller may see and the selectors pick. */
struct keep {
    struct nd_select sel;
    const struct em_identity *who;
    const struct nd_kind *kind;
    bool all; /* keeps everything: counts come from the index */
};

static bool keeps(const struct keep *k, const json_t *o)
{
    if (!em_authz_sees_object(k->who, k->kind, o))
        return false;
    return nd_select_matches(&k->sel, o);
}

static void add_item(struct nd_buf *b, bool first, const json_t *o, struct em_bytes *json)
{
    if (!first)
        nd_buf_addch(b, ',');
    if (json) {
        nd_buf_add(b, json->data, json->len);
    } else {
        char *t = json_dumps(o, JSON_COMPACT);
        nd_buf_adds(b, t);
        free(t);
    }
}

/* Where a list starts and at which revision, from ?continue= (a token of an earlier
 * page: *start is "ns/name" of its last object, NEW) or ?resourceVersion=, and what it
 * keeps (?labelSelector=, ?fieldSelector=). 0, or -1 with a->st. */
static int list_from(struct em_api *a, struct keep *keep, int64_t *rv, char **start)
{
    struct em_server *srv = a->srv;
    int64_t want;
    if (em_api_query_rv(a, &want) < 0)
        return -1;
    const char *cont = em_req_query(a->req, "continue");
    if (cont && *cont && want > 0)
        return nd_status_set(&a->st, "BadRequest",
                             "leave resourceVersion out when you pass continue",
                             "specifying resource version is not allowed when using continue");
    if (cont && *cont) {
        if (parse_continue(a, cont, rv, start) < 0)
            return -1;
        if (!em_history_covers(&srv->history, *rv))
            return nd_status_set(&a->st, "Expired", "list again without the continue token",
                                 "The provided continue parameter is too old to display a "
                                 "consistent list result. You can start a new list without the "
                                 "continue parameter.");
    }
    if (em_api_selectors(a, ND_SELECT_READ, &keep->sel) < 0 ||
        (!*start && list_version(a, want, rv) < 0))
        return -1;
    keep->all = nd_select_everything(&keep->sel) &&
                (!a->who->projects || (*a->ns && a->kind->namespaced));
    return 0;
}

/* Starts w at rv after start ("ns/name" of the previous page's last object; NULL: from
 * the first). */
static void list_walk(struct em_api *a, struct walk *w, const char *start, int64_t rv)
{
    char *start_ns = NULL;
    const char *start_name = NULL;
    if (start) {
        const char *slash = strchr(start, '/');
        start_ns = slash ? nd_xstrndup(start, (size_t)(slash - start)) : nd_xstrdup("");
        start_name = slash ? slash + 1 : start;
    }
    walk_init(w, a->srv, a->kind, a->ns, start_ns, start_name, rv);
    free(start_ns);
}

/* What a page collects: the Table's rows, the objects to convert (metadata), or the
 * items' JSON text. */
struct page {
    struct em_table_row *rows; /* each holds a reference to its object and bytes */
    size_t nrows;
    json_t *objs;
    struct nd_buf items;
};

static void page_add_row(struct page *pg, json_t *seen, struct em_bytes *rev, bool view)
{
    if ((pg->nrows & (pg->nrows - 1)) == 0) /* 0, 1, 2, 4 ... full: double */
        pg->rows = nd_xrealloc(pg->rows, (pg->nrows ? pg->nrows * 2 : 1) * sizeof *pg->rows);
    pg->rows[pg->nrows++] = (struct em_table_row){
        .o = {.obj = json_incref(seen), .rev = em_bytes_ref(rev)},
        .obj_bytes = view ? NULL : rev};
}

/* A row of a stored object (not a view) by its entry: no tree asked for yet. */
static void page_add_entry(struct page *pg, const struct em_entry *e, struct em_bytes *rev)
{
    if ((pg->nrows & (pg->nrows - 1)) == 0)
        pg->rows = nd_xrealloc(pg->rows, (pg->nrows ? pg->nrows * 2 : 1) * sizeof *pg->rows);
    pg->rows[pg->nrows++] = (struct em_table_row){
        .o = {.rev = em_bytes_ref(rev), .entry = e}, .obj_bytes = rev};
}

static void page_release(struct page *pg)
{
    for (size_t i = 0; i < pg->nrows; i++) {
        json_decref((json_t *)pg->rows[i].o.obj);
        em_bytes_unref(pg->rows[i].o.rev);
    }
    free(pg->rows);
    json_decref(pg->objs);
    nd_buf_release(&pg->items);
}

/* A page: up to limit objects keep keeps, into pg (as the answer's representation needs
 * them). Returns how many; *last is the last one taken. */
static size_t list_page(struct em_api *a, struct walk *w, const struct keep *keep, long limit,
                        struct page *pg, const json_t **last)
{
    enum em_repr repr = a->accept.repr;
    bool view = a->kind->from_stored != NULL;
    size_t taken = 0;
    const json_t *o;
    const struct em_entry *e;
    while ((long)taken < limit && (o = walk_next(w, &e))) {
        /* a view selects on its own fields of the stored object: the whole of it */
        json_t *full = e && view ? em_entry_obj(e) : e ? NULL : (json_t *)o;
        if (!keep->all && !keeps(keep, full ? full : o))
            continue;
        struct em_bytes *json = e ? em_store_entry_json(e) : NULL; /* the revision's */
        if (repr == EM_REPR_OBJECT && !view) { /* the bytes, or the old object's */
            add_item(&pg->items, taken == 0, full, json);
        } else if (repr == EM_REPR_TABLE && !view && e) {
            /* the row from the cache: the tree only if the row must be made */
            page_add_entry(pg, e, json);
        } else {
            if (!full)
                full = em_entry_obj(e);
            /* a view's items: the stored objects converted */
            json_t *seen = view ? a->kind->from_stored(full) : json_incref(full);
            if (repr == EM_REPR_TABLE)
                page_add_row(pg, seen, json, view);
            else if (repr != EM_REPR_OBJECT)
                json_array_append(pg->objs, seen);
            else
                add_item(&pg->items, taken == 0, seen, NULL);
            json_decref(seen);
        }
        *last = o;
        taken++;
    }
    return taken;
}

/* How many objects after a full page keep keeps: the index counts them unless the page
 * merges changes or something filters. */
static size_t list_remaining(struct walk *w, const struct keep *keep)
{
    if (keep->all && !w->nkeys)
        return em_store_remaining(&w->c);
    size_t remaining = 0;
    const json_t *o;
    const struct em_entry *e;
    while ((o = walk_next(w, &e)))
        remaining += keep->all ||
                     keeps(keep, e && keep->kind->from_stored ? em_entry_obj(e) : o);
    return remaining;
}

/* The answer: the list of the page (what pg collected), at rv, with
 * a continue token after last when remaining. */
static void list_answer(struct em_api *a, int64_t rv, size_t remaining, const json_t *last,
                        const struct page *pg)
{
    char rvs[24];
    snprintf(rvs, sizeof rvs, "%lld", (long long)rv);
    json_t *meta = json_pack("{ss}", "resourceVersion", rvs);
    if (remaining) {
        char *token = make_continue(rv, last);
        json_object_set_new(meta, "continue", json_string(token));
        free(token);
        json_object_set_new(meta, "remainingItemCount", json_integer((json_int_t)remaining));
    }
    if (a->accept.repr == EM_REPR_TABLE) {
        em_table_answer(a->srv, a->kind, pg->rows, pg->nrows,
                        &(struct em_table_opts){.req = a->req, .version = a->accept.version,
                                                .list_meta = meta, .with_columns = true},
                        a->resp);
    } else if (a->accept.repr != EM_REPR_OBJECT) {
        json_t *body = em_partial_list(pg->objs, meta, a->accept.version);
        em_resp_json(a->resp, 200, body);
        json_decref(body);
    } else {
        /* the list's own fields, then the items' bytes as made for their revision */
        char *m = json_dumps(meta, JSON_COMPACT);
        struct nd_buf *b = &a->resp->body;
        a->resp->code = 200;
        nd_buf_reset(b);
        nd_buf_addf(b, "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":%s,\"items\":[",
                    a->kind->api_version, a->kind->list_kind, m);
        nd_buf_add(b, pg->items.data, pg->items.len);
        nd_buf_adds(b, "]}\n");
        em_resp_set_type(a->resp, "application/json");
        free(m);
    }
    json_decref(meta);
}

int em_api_list(struct em_api *a)
{
    long limit;
    int64_t rv = a->srv->store.revision;
    char *start = NULL;
    struct keep keep = {.who = a->who, .kind = a->kind};
    int rc = -1;
    if (parse_limit(a, &limit) == 0 && list_from(a, &keep, &rv, &start) == 0) {
        struct walk w;
        list_walk(a, &w, start, rv);
        struct page pg = {.objs = json_array(), .items = ND_BUF_INIT};
        const json_t *last = NULL;
        size_t taken = list_page(a, &w, &keep, limit, &pg, &last);
        size_t remaining = (long)taken == limit ? list_remaining(&w, &keep) : 0;
        list_answer(a, rv, remaining, last, &pg);
        page_release(&pg);
        walk_release(&w);
        rc = 0;
    }
    nd_select_release(&keep.sel);
    free(start);
    return rc;
}
