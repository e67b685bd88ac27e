/* write.h: what the verbs that change objects share (create, apply, replace, patch,
 * label, annotate, delete, edit, the state verbs). */
#ifndef ND_CMD_WRITE_H
#define ND_CMD_WRITE_H

#include <jansson.h>

#include "cli.h"
#include "print/print.h"

enum nd_dry_run { ND_DRY_NONE, ND_DRY_CLIENT, ND_DRY_SERVER };

/* --dry-run=none|client|server (a bare --dry-run is client, as kubectl warns). */
int nd_dry_run_parse(const char *v, enum nd_dry_run *out, struct nd_status *st);

/* Sends one write. body may be NULL; its content type defaults to JSON. An
 * idempotency key (fresh for each call) is sent with POST. Warning headers are printed.
 * *out (NEW, may be NULL) is the answer; *code the HTTP status. A non-2xx answer is
 * st and -1. */
int nd_write(struct nd_ctx *ctx, const char *method, const char *path, const char *content_type,
             const json_t *body, json_t **out, int *code, struct nd_status *st);

/* Prints what a write did: with -o (name, json, yaml, jsonpath ...) the object as asked,
 * else `kind.group/name operation` (with " (server dry run)" or " (dry run)" appended
 * when dry). Returns 0 or -1 with st. */
int nd_print_result(const struct nd_print_opts *popts, bool has_output, const json_t *obj,
                    const char *operation, enum nd_dry_run dry, struct nd_status *st);

/* For a server dry run of a kind that uses compute: the server's estimate, as
 * `  estimate: rate $2.49/h, expected $4.98, first hold $2.49, starts in ~2m`. */
void nd_print_estimate(const json_t *obj);

#endif
