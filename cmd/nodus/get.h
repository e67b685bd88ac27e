/* get.h: what get.c and get_watch.c share. */
#ifndef ND_GET_H
#define ND_GET_H

#include "cli.h"
#include "print/print.h"
#include "resolve.h"

#define ND_TABLE_ACCEPT "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

/* The flags of get (verbs/get.c's table). */
struct get_opts {
    const char *output;
    const char *selector;
    const char *field_selector;
    bool watch;
    bool watch_only;
    bool output_watch_events;
    const char *sort_by;
    bool show_labels;
    struct nd_strings label_columns;
    bool no_headers;
    long long chunk_size;
    bool show_kind;
    bool ignore_not_found;
    const char *raw;
    bool show_managed_fields;
};

struct get_run {
    struct nd_ctx *ctx;
    const struct get_opts *opt;
    struct nd_client *client;
    struct nd_print_opts popts;
    const char *ns;        /* NULL: every project */
    const char *label_sel; /* -l */
    const char *field_sel; /* --field-selector */
    long chunk;
    bool table;            /* a table format */
    bool events;           /* --output-watch-events */
    const char **label_columns;
    bool json_bytes;       /* -o json of one kind's list: from the answers' bytes */
    bool table_bytes;      /* a table of a kind's list: from the Table answers' bytes */
};

/* Appends the query of a list or watch (selectors and extra terms) to path. */
void get_query(const struct get_run *g, struct nd_buf *path, const char *extra);
/* Lists one kind page by page (chunk-size): Table answers merged into *table (NEW),
 * other answers' objects appended to objects; *rv the list's resourceVersion. */
int get_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
             char **rv, struct nd_status *st);
/* get_list from the page after continue token from (NULL: the first), bytes already
 * read by the pages before. */
int get_list_from(struct get_run *g, const struct nd_kind *k, const char *from, size_t bytes,
                  json_t **table, json_t *objects, char **rv, struct nd_status *st);
/* The path of one page of k's list (chunk size, continue token cont, selectors). */
void get_list_path(const struct get_run *g, const struct nd_kind *k, const char *cont,
                   struct nd_buf *path);
/* One GET of path into resp (initialised by the caller); a non-2xx answer becomes st
 * (-1). */
int get_fetch(struct get_run *g, const char *path, struct nd_response *resp,
              struct nd_status *st);
/* Adds an answer (a Table, a list or one object) to what was collected: rows appended
 * to *table (NEW when it was NULL), objects to objects. */
void get_collect(json_t **table, json_t *objects, json_t *answer);
/* get -o json of one kind's whole list written from the answers' bytes (get_json.c): the
 * List document appended to out and *printed set; or, when an answer needs the tree
 * (not a list, a key with an escape, not JSON ...), what get_list collects instead.
 * -1 with st filled when the list failed. */
int get_json_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
                  struct nd_buf *out, bool *printed, struct nd_status *st);
/* The answers' bodies of a list's pages read so far (the bytes paths keep them for the
 * tree path), bytes of them in all. */
struct get_pages {
    struct nd_buf *body;
    size_t n, bytes;
};
/* Fetches the page of k's list after cont (NULL: the first) and appends its body to pg:
 * 0, or -1 with st filled when the pages so far pass the response limit or the request
 * failed. */
int get_fetch_page(struct get_run *g, const struct nd_kind *k, const char *cont,
                   struct get_pages *pg, struct nd_status *st);
void get_pages_release(struct get_pages *pg);
/* The tree path from where a list's pages stand (pg): each answer loaded and collected as
 * get_list does, then the pages after the last one's continue token. */
int get_pages_to_tree(struct get_run *g, const struct nd_kind *k, const struct get_pages *pg,
                      json_t **table, json_t *objects, struct nd_status *st);
/* The table of one kind's whole list read from the Table answers' bytes (get_table.c):
 * fast filled (initialised by the caller) and *built set; or, when an answer needs the
 * tree (see nd_table_bytes_page), fast left empty and what get_list collects instead.
 * -1 with st filled when the list failed. */
int get_table_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
                   struct nd_table *fast, bool *built, struct nd_status *st);

/* Watches one kind and prints every event until interrupted (get_watch.c). rv: where
 * the list left off ("" to start with the current objects). table (a Table answer) or
 * objects (an array): what the list found, both BORROWED and either may be NULL;
 * printed first as ADDED unless --watch-only. Returns the exit code. */
int get_watch(struct get_run *g, const struct nd_kind *k, const char *rv, json_t *table,
              json_t *objects);

#endif
