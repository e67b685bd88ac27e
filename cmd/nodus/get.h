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
};

/* Appends the query of a list or watch (selectors and extra terms) to path. */
void get_query(const struct get_run *g, struct nd_buf *path, const char *extra);
/* Lists one kind page by page (chunk-size): Table answers merged into *table (NEW),
 * other answers' objects appended to objects; *rv the list's resourceVersion. */
int get_list(struct get_run *g, const struct nd_kind *k, json_t **table, json_t *objects,
             char **rv, struct nd_status *st);
/* Watches one kind and prints every event until interrupted (get_watch.c). rv: where
 * the list left off ("" to start with the current objects). table (a Table answer) or
 * objects (an array): what the list found, both BORROWED and either may be NULL;
 * printed first as ADDED unless --watch-only. Returns the exit code. */
int get_watch(struct get_run *g, const struct nd_kind *k, const char *rv, json_t *table,
              json_t *objects);

#endif
