/* Shared plumbing of the verbs that change objects; see write.h. */
#include "write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/registry.h"
#include "client/client.h"
#include "resolve.h"
#include "json/json.h"
#include "util/id.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

int nd_dry_run_parse(const char *v, enum nd_dry_run *out, struct nd_status *st)
{
    *out = ND_DRY_NONE;
    if (!v || !strcmp(v, "none") || !strcmp(v, "false"))
        return 0;
    if (!strcmp(v, "client") || !strcmp(v, "true")) {
        *out = ND_DRY_CLIENT;
        return 0;
    }
    if (!strcmp(v, "server")) {
        *out = ND_DRY_SERVER;
        return 0;
    }
    return nd_status_set(st, "Usage", NULL,
                         "Invalid dry-run value (%s). Must be \"none\", \"server\", or \"client\".",
                         v);
}

int nd_call_get(struct nd_ctx *ctx, const char *path, json_t **out, struct nd_status *st)
{
    return nd_call(ctx, &(struct nd_call_req){.method = "GET", .path = path, .out = out}, st);
}

int nd_call(struct nd_ctx *ctx, const struct nd_call_req *r, struct nd_status *st)
{
    const char *method = r->method;
    json_t **out = r->out;
    int *code = r->code;
    char **etag = r->etag;
    if (etag)
        *etag = NULL;
    struct nd_client *c = nd_ctx_client(ctx, st);
    if (out)
        *out = NULL;
    if (!c)
        return -1;
    char *text = r->body ? json_dumps(r->body, JSON_COMPACT) : NULL;
    char *key = strcmp(method, "POST") == 0 ? nd_idempotency_key_new() : NULL;
    struct nd_request req = {
        .method = method,
        .path = r->path,
        .content_type = r->content_type ? r->content_type : "application/json",
        .body = text,
        .body_len = text ? strlen(text) : 0,
        .idempotency_key = key,
        .headers = r->headers,
    };
    struct nd_response resp;
    nd_response_init(&resp);
    int rc = -1;
    if (nd_client_do(c, &req, &resp, st) < 0)
        goto out;
    nd_cli_warnings(resp.headers);
    if (code)
        *code = resp.code;
    if (resp.code < 200 || resp.code > 299) {
        nd_status_parse(st, resp.body.data, resp.body.len, resp.code);
        if (!st->request_id && nd_response_header(&resp, "x-request-id"))
            st->request_id = nd_xstrdup(nd_response_header(&resp, "x-request-id"));
        goto out;
    }
    if (etag && nd_response_header(&resp, "etag"))
        *etag = nd_xstrdup(nd_response_header(&resp, "etag"));
    if (out && resp.body.len) {
        *out = nd_json_load(resp.body.data, resp.body.len, "answer", st);
        if (!*out)
            goto out;
    }
    rc = 0;
out:
    nd_response_release(&resp);
    free(key);
    free(text);
    return rc;
}

void nd_write_error_source(struct nd_status *st, const char *verb, const char *source)
{
    enum nd_reason r = nd_status_reason(st);
    if (r == ND_REASON_NONE || r == ND_REASON_USAGE || r == ND_REASON_UNREACHABLE ||
        r == ND_REASON_TIMEOUT)
        return;
    nd_status_prefix(st, "error when %s \"%s\"", verb, source);
}

int nd_write_output_parse(const char *output, struct nd_print_opts *popts, struct nd_status *st)
{
    if (!output || !*output)
        return 0;
    if (nd_print_parse_output(output, popts, st) < 0)
        return -1;
    if (popts->output == ND_OUTPUT_TABLE || popts->output == ND_OUTPUT_WIDE ||
        popts->output == ND_OUTPUT_CUSTOM_COLUMNS)
        return nd_status_set(st, "Usage", NULL,
                             "unable to match a printer suitable for the output format \"%s\", "
                             "allowed formats are: json,jsonpath,jsonpath-file,name,yaml",
                             output);
    return nd_print_opts_read_file(popts, st); /* -o jsonpath-file: --template's message */
}

int nd_print_result(const struct nd_print_opts *popts, bool has_output, const json_t *obj,
                    const char *operation, enum nd_dry_run dry, size_t nth, struct nd_status *st)
{
    struct nd_buf out = ND_BUF_INIT;
    int rc;
    if (has_output && popts->output != ND_OUTPUT_NAME) {
        json_t *copy = json_deep_copy(obj);
        json_object_del(json_object_get(copy, "metadata"), "managedFields");
        json_t *one = json_pack("[o]", copy);
        if (nth > 0 && popts->output == ND_OUTPUT_YAML)
            nd_buf_adds(&out, "---\n");
        rc = nd_print_objects(one, true, popts, &out, st);
        json_decref(one);
    } else {
        char op[96];
        snprintf(op, sizeof op, "%s%s", has_output ? "" : operation,
                 has_output ? "" : dry == ND_DRY_SERVER ? " (server dry run)"
                                   : dry == ND_DRY_CLIENT ? " (dry run)"
                                                          : "");
        rc = nd_print_name(obj, has_output ? NULL : op, &out, st);
    }
    if (rc == 0)
        nd_out(&out);
    nd_buf_release(&out);
    return rc;
}

void nd_print_estimate(const json_t *obj)
{
    struct nd_buf line = ND_BUF_INIT;
    nd_estimate_line(obj, &line);
    if (line.len)
        printf("  estimate: %s\n", line.data);
    nd_buf_release(&line);
}

void nd_estimate_line(const json_t *obj, struct nd_buf *out)
{
    const json_t *e = json_object_get(json_object_get(obj, "status"), "estimate");
    if (!json_is_object(e))
        return;
    struct nd_buf line = ND_BUF_INIT;
    const char *fields[][2] = {{"rateUSDPerHour", "rate "},
                               {"expectedCostUSD", "expected "},
                               {"firstHoldUSD", "first hold "}};
    for (size_t i = 0; i < 3; i++) {
        const char *v = json_string_value(json_object_get(e, fields[i][0]));
        int64_t micros;
        struct nd_status st = ND_STATUS_INIT;
        int bad = !v || nd_money_parse(v, &micros, &st) < 0;
        nd_status_release(&st);
        if (bad)
            continue;
        nd_buf_addf(&line, "%s%s", line.len ? ", " : "", fields[i][1]);
        nd_money_human(micros, &line);
        if (i == 0)
            nd_buf_adds(&line, "/h");
    }
    const char *start = json_string_value(json_object_get(e, "startTime"));
    int64_t t;
    struct nd_status tst = ND_STATUS_INIT;
    const char *created = json_string_value(
        json_object_get(json_object_get(obj, "metadata"), "creationTimestamp"));
    int64_t now;
    if (!created || nd_time_parse(created, &now, &tst) < 0)
        now = nd_time_now();
    nd_status_release(&tst);
    if (start && nd_time_parse(start, &t, &tst) == 0) {
        int64_t secs = t - now;
        nd_buf_addf(&line, "%sstarts in ~", line.len ? ", " : "");
        nd_human_age(secs > 0 ? secs : 0, &line);
    }
    nd_status_release(&tst);
    nd_buf_add(out, line.data, line.len);
    nd_buf_release(&line);
}

char *nd_tmpdir_template(const char *prefix)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return nd_xasprintf("%.*s/%s-XXXXXX", (int)n, dir, prefix);
}

int nd_patch_each(struct nd_ctx *ctx, const struct nd_res_list *res, const json_t *patch,
                  enum nd_dry_run dry, const char *done)
{
    int worst = 0;
    struct nd_status st = ND_STATUS_INIT;
    for (size_t i = 0; i < res->n; i++) {
        const struct nd_kind *k = res->v[i].k;
        for (size_t j = 0; j < json_array_size(res->v[i].names); j++) {
            const char *name = json_string_value(json_array_get(res->v[i].names, j));
            struct nd_buf p = ND_BUF_INIT;
            nd_kind_path(k, nd_ctx_project(ctx), name, NULL, &p);
            nd_buf_addf(&p, "?fieldManager=nodus-%s%s", ctx->cmd->name,
                        dry == ND_DRY_SERVER ? "&dryRun=All" : "");
            json_t *obj = NULL;
            if (nd_call(ctx,
                         &(struct nd_call_req){.method = "PATCH",
                                                .path = p.data,
                                                .content_type = "application/merge-patch+json",
                                                .body = patch,
                                                .out = &obj},
                         &st) < 0 ||
                nd_print_result(&(struct nd_print_opts){0}, false, obj, done, dry, 0, &st) < 0) {
                int c = nd_cli_error(ctx, &st);
                if (!worst)
                    worst = c;
            }
            nd_status_release(&st);
            fflush(stdout);
            json_decref(obj);
            nd_buf_release(&p);
        }
    }
    return worst;
}
