/* tool_apply.c: apply, with review before you pay.
 *
 * Every document of the manifest is first sent as a server dry run (what `nodus apply`
 * sends, with dryRun=All). A document whose dry run answers status.estimate costs money
 * (the server decides, not a list of kinds here; an estimate of $0.00 costs nothing). Without the etag argument, such a
 * manifest is answered with its review (rate, expected cost, first hold, start time and
 * the ETag of each such document) and nothing at all is written. With etag, each such
 * document is applied with its ETag as If-Match, so the server launches exactly what was
 * reviewed: a changed spec or price book answers PreconditionFailed, carrying the fresh
 * estimate and etag. A manifest that costs nothing applies at once. --max-cost refuses
 * any document whose expected cost is above it, before anything real is sent.
 *
 * etag is a string when one document costs money, else an object mapping "Kind/name"
 * (the review's objects[].kind and name) to that document's ETag: the review's
 * structuredContent.etag is exactly the value to send back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "mcp.h"
#include "util/money.h"
#include "util/xmalloc.h"
#include "write.h"

/* The most objects one call applies (a dry run and a write each). */
#define APPLY_MAX_OBJECTS 100

static json_t *apply_input(void)
{
    json_t *s = mcp_schema_object();
    mcp_schema_prop(s, "manifest", "string",
                    "The objects to apply: YAML (several documents separated by ---) or JSON, "
                    "as `nodus apply -f` reads a file",
                    true);
    mcp_schema_project(s, false);
    json_object_set_new(
        json_object_get(s, "properties"), "etag",
        json_pack("{s:[s, s], s:s}", "type", "string", "object", "description",
                  "Launch what was reviewed: the etag a first call without it answered "
                  "(structuredContent.etag). A string when one document costs money; an "
                  "object {\"Kind/name\": etag} when several do. Without it, work that costs "
                  "money is only reviewed and nothing is written."));
    return s;
}

static json_t *apply_output(void)
{
    json_t *obj = json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s, s:s},"
        " s:{s:s, s:s}}, s:[s, s]}",
        "type", "object", "properties", "kind", "type", "string", "name", "type", "string",
        "project", "type", "string", "estimate", "type", "object", "description",
        "status.estimate of the dry run: rateUSDPerHour, expectedCostUSD, firstHoldUSD, "
        "startTime (absent: launching it costs nothing)",
        "etag", "type", "string", "description", "the ETag the review answered",
        "operation", "type", "string", "description", "what the apply did: created, "
        "serverside-applied (absent in a review)",
        "phase", "type", "string", "description", "status.phase after the apply",
        "required", "kind", "name");
    json_t *props = json_pack(
        "{s:{s:s, s:s}, s:{s:s, s:o}, s:{s:[s, s], s:s}}", "reviewOnly", "type", "boolean",
        "description", "true: nothing was written; call apply again with etag to launch",
        "objects", "type", "array", "items", obj, "etag", "type", "string", "object",
        "description", "the value to send back as the etag argument (review only)");
    static const char *const req[] = {"reviewOnly", "objects", NULL};
    return mcp_schema_output(props, req);
}

/* One document, its project and the answer of its dry run. */
struct doc {
    const struct nd_manifest *m;
    const char *ns;
    const char *name;
    char label[320];        /* "Job/train" */
    json_t *preview;        /* the dry run's answer */
    char *etag;             /* its ETag */
    const json_t *estimate; /* borrowed from preview; NULL: launching it costs nothing */
    const char *if_match;   /* the etag argument's for it */
};

struct apply {
    struct mcp_call *c;
    struct nd_manifests ms;
    struct doc *docs;
    size_t n, priced;
};

static const char *expected_cost(const struct doc *d)
{
    return json_string_value(json_object_get(d->estimate, "expectedCostUSD"));
}

/* The project of each document, its name and --projects; nothing sent yet. */
static int place(struct apply *a)
{
    struct mcp_call *c = a->c;
    const char *cmd_ns = nd_ctx_project(c->ctx);
    bool given = mcp_arg_str(c, "project", NULL) != NULL;
    for (size_t i = 0; i < a->n; i++) {
        struct doc *d = &a->docs[i];
        d->m = &a->ms.v[i];
        if (nd_manifest_project(d->m, cmd_ns, given, &d->ns, &c->st) < 0) {
            nd_status_set(&c->st, "BadRequest",
                          "leave out the project argument, or make it the document's "
                          "metadata.namespace",
                          "document %zu names project \"%s\" in metadata.namespace but the "
                          "call's project is \"%s\"",
                          i + 1, json_string_value(json_object_get(
                                     json_object_get(d->m->obj, "metadata"), "namespace")),
                          cmd_ns);
            return -1;
        }
        if (!(d->name = nd_manifest_name(d->m, "applying", &c->st))) {
            nd_status_set(&c->st, "BadRequest", "set metadata.name in each document",
                          "document %zu (a %s) has no metadata.name", i + 1, d->m->kind->kind);
            return -1;
        }
        snprintf(d->label, sizeof d->label, "%s/%s", d->m->kind->kind, d->name);
        if (*d->ns && !mcp_project_allowed(c->cfg, d->ns))
            return nd_status_set(&c->st, "Forbidden",
                                 "apply to a project this server was started with (--projects)",
                                 "%s: project \"%s\" is not one this server serves", d->label,
                                 d->ns);
    }
    return 0;
}

/* Whether an estimate says launching costs money: a rate, an expected cost or a hold
 * above zero (a CPU-only Sandbox on a free Pool answers an estimate of $0.00). */
static bool costs_money(const json_t *e)
{
    static const char *const fields[] = {"rateUSDPerHour", "expectedCostUSD", "firstHoldUSD"};
    for (size_t i = 0; json_is_object(e) && i < sizeof fields / sizeof *fields; i++)
        if (nd_money_or(json_string_value(json_object_get(e, fields[i])), 0) > 0)
            return true;
    return false;
}

/* The dry run of every document: what each would cost, and its ETag. */
static int review(struct apply *a)
{
    for (size_t i = 0; i < a->n; i++) {
        struct doc *d = &a->docs[i];
        if (nd_apply_server_side(a->c->ctx, d->m, d->ns,
                                 &(struct nd_apply_call){.dry = true, .out = &d->preview,
                                                         .etag = &d->etag},
                                 &a->c->st) < 0) {
            nd_status_prefix(&a->c->st, "%s (dry run)", d->label);
            return -1;
        }
        const json_t *e = json_object_get(json_object_get(d->preview, "status"), "estimate");
        if (costs_money(e) && d->etag) {
            d->estimate = e;
            a->priced++;
        }
    }
    return 0;
}

/* --max-cost: refused before anything real is sent. */
static int over_max_cost(struct apply *a)
{
    const struct mcp_config *cfg = a->c->cfg;
    if (cfg->max_cost_micros < 0)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct doc *d = &a->docs[i];
        int64_t expected = d->estimate ? nd_money_or(expected_cost(d), -1) : -1;
        if (expected <= cfg->max_cost_micros)
            continue;
        struct nd_buf line = ND_BUF_INIT;
        nd_estimate_line(d->preview, &line);
        nd_status_set(&a->c->st, "Forbidden",
                      "make it cost less (fewer or smaller GPUs, a shorter maxDuration, a lower "
                      "maxCostUSD), or ask whoever runs this MCP server to raise --max-cost",
                      "%s: expected cost $%s is above this server's --max-cost $%s (%s); "
                      "nothing was launched",
                      d->label, expected_cost(d), cfg->max_cost, line.data);
        nd_status_add_cause(&a->c->st, "MaxCost", d->label, "expected $%s > --max-cost $%s",
                            expected_cost(d), cfg->max_cost);
        json_object_set(nd_status_details(&a->c->st), "estimate", (json_t *)d->estimate);
        nd_buf_release(&line);
        return -1;
    }
    return 0;
}

/* The etag argument's value for this manifest's priced documents, from their ETags
 * (the fresh ones of the dry runs). NEW. */
static json_t *etag_value(const struct apply *a)
{
    json_t *map = json_object();
    json_t *one = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->docs[i].estimate) {
            json_object_set_new(map, a->docs[i].label, json_string(a->docs[i].etag));
            one = json_object_get(map, a->docs[i].label);
        }
    if (a->priced == 1) {
        json_incref(one);
        json_decref(map);
        return one;
    }
    return map;
}

static json_t *doc_entry(const struct doc *d)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "kind", d->m->kind->kind, "name", d->name,
                          "project", d->ns);
    if (d->estimate) {
        json_object_set(o, "estimate", (json_t *)d->estimate);
        json_object_set_new(o, "etag", json_string(d->etag));
    }
    return o;
}

/* The answer without etag: the review, nothing written. */
static void answer_review(struct apply *a)
{
    struct mcp_call *c = a->c;
    json_t *objs = json_array();
    nd_buf_adds(&c->text, "Review before you pay: nothing was applied.\n");
    for (size_t i = 0; i < a->n; i++) {
        const struct doc *d = &a->docs[i];
        nd_buf_addf(&c->text, "%s%s%s%s: ", d->label, *d->ns ? " (project " : "", d->ns,
                    *d->ns ? ")" : "");
        if (d->estimate) {
            nd_estimate_line(d->preview, &c->text);
            nd_buf_addf(&c->text, "\n  etag %s\n", d->etag);
        } else {
            nd_buf_adds(&c->text, "costs nothing to launch\n");
        }
        json_array_append_new(objs, doc_entry(d));
    }
    json_t *etag = etag_value(a);
    char *shown = json_dumps(etag, JSON_COMPACT | JSON_ENCODE_ANY);
    nd_buf_addf(&c->text,
                "To launch exactly this, call apply again with the same manifest and etag: %s\n",
                shown);
    free(shown);
    c->structured = json_pack("{s:b, s:o, s:o}", "reviewOnly", 1, "objects", objs, "etag", etag);
}

/* Each priced document's If-Match from the etag argument. */
static int match_etags(struct apply *a)
{
    const json_t *arg = json_object_get(a->c->args, "etag");
    for (size_t i = 0; i < a->n; i++) {
        struct doc *d = &a->docs[i];
        if (!d->estimate)
            continue;
        if (json_is_string(arg) && a->priced == 1) {
            d->if_match = json_string_value(arg);
            continue;
        }
        d->if_match = json_string_value(json_object_get(arg, d->label));
        if (d->if_match)
            continue;
        if (json_is_string(arg))
            nd_status_set(&a->c->st, "BadRequest",
                          "send back the review's structuredContent.etag: an object "
                          "{\"Kind/name\": etag} naming each",
                          "%zu documents cost money: etag must name each (%s has none)",
                          a->priced, d->label);
        else
            nd_status_set(&a->c->st, "BadRequest",
                          "review first (call apply without etag), then send back its "
                          "structuredContent.etag",
                          "etag names no ETag for %s, which costs money", d->label);
        return -1;
    }
    return 0;
}

/* A PreconditionFailed: the server's Status, with the fresh review of the dry run. */
static void fresh_review(struct apply *a, const struct doc *d)
{
    struct nd_status *st = &a->c->st;
    struct nd_buf line = ND_BUF_INIT;
    nd_estimate_line(d->preview, &line);
    json_t *etag = etag_value(a);
    char *shown = json_dumps(etag, JSON_COMPACT | JSON_ENCODE_ANY);
    char *msg = st->message;
    st->message = NULL;
    nd_status_set(st, "PreconditionFailed", NULL,
                  "%s: %s; nothing of it was applied. The fresh review: %s, etag %s", d->label,
                  msg ? msg : "the reviewed ETag no longer matches", line.data, d->etag);
    free(msg);
    nd_status_set_fix(st,
                      "review the fresh estimate; to launch at it, call apply again with the "
                      "same manifest and etag %s",
                      shown);
    nd_status_set_target(st, d->name, d->m->kind->group, d->m->kind->plural);
    json_object_set(nd_status_details(st), "estimate", (json_t *)d->estimate);
    json_object_set_new(nd_status_details(st), "etag", etag);
    nd_buf_release(&line);
    free(shown);
}

/* The real applies, in order; the priced ones with If-Match. */
static int launch(struct apply *a)
{
    struct mcp_call *c = a->c;
    json_t *objs = json_array();
    for (size_t i = 0; i < a->n; i++) {
        const struct doc *d = &a->docs[i];
        json_t *out = NULL;
        const char *op = "serverside-applied";
        if (nd_apply_server_side(c->ctx, d->m, d->ns,
                                 &(struct nd_apply_call){.if_match = d->if_match, .out = &out,
                                                         .op = &op},
                                 &c->st) < 0) {
            if (nd_status_is(&c->st, ND_REASON_PRECONDITION_FAILED) && d->estimate)
                fresh_review(a, d);
            else
                nd_status_prefix(&c->st, "%s", d->label);
            if (i)
                nd_status_add_cause(&c->st, "AppliedBefore", NULL,
                                    "the %zu document(s) before %s were applied", i, d->label);
            json_decref(objs);
            return -1;
        }
        json_t *e = doc_entry(d);
        json_object_del(e, "etag");
        json_object_set_new(e, "operation", json_string(op));
        const char *phase =
            json_string_value(json_object_get(json_object_get(out, "status"), "phase"));
        if (phase)
            json_object_set_new(e, "phase", json_string(phase));
        char kn[ND_KIND_NAME_MAX];
        nd_buf_addf(&c->text, "%s/%s %s", nd_kind_display_name(d->m->kind, kn, sizeof kn),
                    d->name, op);
        if (d->estimate) {
            nd_buf_adds(&c->text, " at the reviewed estimate: ");
            nd_estimate_line(d->preview, &c->text);
        }
        nd_buf_addch(&c->text, '\n');
        json_array_append_new(objs, e);
        json_decref(out);
    }
    if (json_object_get(c->args, "etag") && !a->priced)
        nd_buf_adds(&c->text, "(etag was not needed: nothing here costs money to launch)\n");
    c->structured = json_pack("{s:b, s:o}", "reviewOnly", 0, "objects", objs);
    return 0;
}

static void run_apply(struct mcp_call *c)
{
    struct apply a = {.c = c};
    const char *text = mcp_arg_str(c, "manifest", "");
    if (nd_manifests_parse(text, strlen(text), "manifest", &a.ms, &c->st) < 0 || !a.ms.n) {
        if (!nd_status_failed(&c->st))
            nd_status_set(&c->st, "BadRequest", NULL, "the manifest holds no object");
        free(c->st.reason);
        c->st.reason = nd_xstrdup("BadRequest");
        c->st.code = 400;
        if (!c->st.fix)
            nd_status_set_fix(&c->st, "send YAML or JSON objects with apiVersion, kind and "
                                      "metadata.name; the explain tool shows a kind's fields");
        goto out;
    }
    if (a.ms.n > APPLY_MAX_OBJECTS) { /* each is a dry run, then a write: bound the work */
        nd_status_set(&c->st, "BadRequest", "split the manifest: apply at most 100 objects a call",
                      "the manifest holds %zu objects; one call applies at most %d",
                      (size_t)a.ms.n, APPLY_MAX_OBJECTS);
        goto out;
    }
    a.n = a.ms.n;
    a.docs = nd_xcalloc(a.n, sizeof *a.docs);
    if (place(&a) < 0 || review(&a) < 0 || over_max_cost(&a) < 0)
        goto out;
    if (a.priced && !json_object_get(c->args, "etag"))
        answer_review(&a);
    else if (match_etags(&a) == 0)
        launch(&a);
out:
    for (size_t i = 0; i < a.n; i++) {
        json_decref(a.docs[i].preview);
        free(a.docs[i].etag);
    }
    free(a.docs);
    nd_manifests_release(&a.ms);
}

const struct mcp_tool mcp_tool_apply = {
    "apply",
    "Apply a manifest (review before you pay)",
    "Server-side apply of a manifest's objects, like `nodus apply -f`. Work that costs money "
    "(the server's dry run answers an estimate) is reviewed first: without etag the answer "
    "is the estimate (rate, expected cost, first hold, start time) and an etag, and nothing "
    "is written; call apply again with the same manifest and that etag to launch exactly "
    "what was reviewed (a changed spec or price book answers PreconditionFailed with the "
    "fresh estimate and etag). Objects that cost nothing are applied at once.",
    MCP_T_PROJECT | MCP_T_IDEMPOTENT,
    apply_input,
    apply_output,
    run_apply,
};
