/* nodus auth: who the server takes you for, and what you may do, as kubectl auth.
 *
 *   auth whoami [-o json|yaml|jsonpath=...]   POST a SelfSubjectReview
 *   auth can-i VERB KIND[/NAME] [NAME] [--subresource S] [-q]
 *                                             POST a SelfSubjectAccessReview
 *
 * The server answers both from the token sent (the emulator from its --token-file; an
 * emulator without one answers emulator-user, every scope, every project). can-i prints
 * yes or no (no - why, when the server says why) and exits 0 for yes, 1 for no, as
 * kubectl does; -q prints nothing. The answer is the server's own decision: the one it
 * makes for the request itself.
 */
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "commands.h"
#include "resolve.h"
#include "util/term.h"
#include "util/xmalloc.h"
#include "write.h"

struct auth_opts {
    const char *output;
    const char *subresource;
    bool quiet;
    bool quiet_given;
};

#define TO(f) ND_TO(struct auth_opts, f)
const struct nd_flag cmd_auth_flags[] = {
    {"output", 'o', ND_STRING, "FORMAT", "whoami: json, yaml, or jsonpath=TEMPLATE", "=json yaml",
     TO(output)},
    {"subresource", 0, ND_STRING, "NAME",
     "can-i: a subresource (log, exec, files, invoke, "
     "status)",
     "=log exec files invoke status", TO(subresource)},
    {"quiet", 'q', ND_BOOL, NULL, "can-i: print nothing, answer by the exit code only", NULL,
     TO(quiet), TO(quiet_given)},
    ND_FLAGS_END(struct auth_opts),
};

#define AUTHN_PATH "/apis/authentication.k8s.io/v1/selfsubjectreviews"
#define AUTHZ_PATH "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"

/* A server without the review answers 404: say so, not `not found`. */
static int review_error(struct nd_ctx *ctx, const char *what, struct nd_status *st)
{
    if (st->code == 404) {
        struct nd_status nf = ND_STATUS_INIT;
        nd_status_set(&nf, "NotFound", NULL,
                      "the server does not serve %s (it is not a nodus emulator or Kubernetes "
                      "1.28 or later)", what);
        int rc = nd_cli_error(ctx, &nf);
        nd_status_release(&nf);
        return rc;
    }
    return nd_cli_error(ctx, st);
}

/* kubectl's whoami table: ATTRIBUTE VALUE, columns three spaces apart. */
static void whoami_table(const json_t *ui, struct nd_buf *out)
{
    json_t *rows = json_array();
    const char *user = json_string_value(json_object_get(ui, "username"));
    const char *uid = json_string_value(json_object_get(ui, "uid"));
    if (user && *user)
        json_array_append_new(rows, json_pack("[ss]", "Username", user));
    if (uid && *uid)
        json_array_append_new(rows, json_pack("[ss]", "UID", uid));
    /* lists print as Go's %v: [a b c] */
    const char *keys[64];
    size_t nkeys = 0;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(ui, "extra"), key, v) {
        if (nkeys < 64)
            keys[nkeys++] = key;
    }
    for (size_t i = 0; i < nkeys; i++) /* sorted: a stable order */
        for (size_t j = i + 1; j < nkeys; j++)
            if (strcmp(keys[j], keys[i]) < 0) {
                const char *t = keys[i];
                keys[i] = keys[j];
                keys[j] = t;
            }
    for (size_t i = 0; i <= nkeys; i++) {
        const json_t *list = i == 0 ? json_object_get(ui, "groups")
                                    : json_object_get(json_object_get(ui, "extra"), keys[i - 1]);
        if (!json_array_size(list))
            continue;
        struct nd_buf val = ND_BUF_INIT;
        nd_buf_addch(&val, '[');
        size_t k;
        json_t *s;
        json_array_foreach(list, k, s) {
            nd_buf_addf(&val, "%s%s", k ? " " : "", json_string_value(s) ? json_string_value(s)
                                                                          : "");
        }
        nd_buf_addch(&val, ']');
        char *label = i == 0 ? nd_xstrdup("Groups") : nd_xasprintf("Extra: %s", keys[i - 1]);
        json_array_append_new(rows, json_pack("[ss]", label, val.data));
        free(label);
        nd_buf_release(&val);
    }
    size_t width = strlen("ATTRIBUTE");
    size_t i;
    json_array_foreach(rows, i, v) {
        size_t n = strlen(json_string_value(json_array_get(v, 0)));
        if (n > width)
            width = n;
    }
    nd_buf_addf(out, "%-*s   VALUE\n", (int)width, "ATTRIBUTE");
    json_array_foreach(rows, i, v) {
        nd_buf_addf(out, "%-*s   %s\n", (int)width, json_string_value(json_array_get(v, 0)),
                    json_string_value(json_array_get(v, 1)));
    }
    json_decref(rows);
}

static int whoami(struct nd_ctx *ctx, const struct nd_opts *o, const struct auth_opts *opt)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    json_t *answer = NULL;
    struct nd_buf out = ND_BUF_INIT;
    int rc = 0;
    if (o->npos > 1) {
        rc = nd_cli_usage(ctx, "whoami takes no arguments");
        goto out;
    }
    if (opt->subresource || opt->quiet_given) {
        rc = nd_cli_usage(ctx, "--subresource and --quiet are flags of auth can-i");
        goto out;
    }
    const char *fmt = opt->output;
    if (fmt && *fmt && nd_write_output_parse(fmt, &popts, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    struct nd_client *c = nd_ctx_client(ctx, &st);
    json_t *body = json_pack("{ssss}", "apiVersion", "authentication.k8s.io/v1", "kind",
                             "SelfSubjectReview");
    int sent = c ? nd_client_json(c, "POST", AUTHN_PATH, body, &answer, &st) : -1;
    json_decref(body);
    if (sent < 0) {
        rc = review_error(ctx, "SelfSubjectReview (authentication.k8s.io/v1)", &st);
        goto out;
    }
    if (fmt && *fmt) {
        json_t *one = json_pack("[O]", answer);
        int printed = nd_print_objects(one, true, &popts, &out, &st);
        json_decref(one);
        if (printed < 0) {
            rc = nd_cli_error(ctx, &st);
            goto out;
        }
    } else {
        whoami_table(json_object_get(json_object_get(answer, "status"), "userInfo"), &out);
    }
    nd_out(&out);
out:
    nd_buf_release(&out);
    json_decref(answer);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    return rc;
}

static int can_i(struct nd_ctx *ctx, const struct nd_opts *o, const struct auth_opts *opt)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *answer = NULL, *body = NULL;
    int rc = 0;
    if (opt->output) {
        rc = nd_cli_usage(ctx, "-o is a flag of auth whoami");
        goto out;
    }
    if (o->npos < 3 || o->npos > 4) {
        rc = nd_cli_usage(ctx, "name a verb and a kind: nodus auth can-i VERB KIND[/NAME] "
                               "(e.g. nodus auth can-i create jobs)");
        goto out;
    }
    const char *verb = o->pos[1];
    char *kind_arg = nd_xstrdup(o->pos[2]);
    char *slash = strchr(kind_arg, '/');
    const char *name = o->npos == 4 ? o->pos[3] : NULL;
    if (slash) {
        *slash = '\0';
        if (name || !slash[1]) {
            free(kind_arg);
            rc = nd_cli_usage(ctx, "name the object once: KIND/NAME or KIND NAME");
            goto out;
        }
        name = o->pos[2] + (slash + 1 - kind_arg);
    }
    const struct nd_kind *k = nd_resolve_kind(kind_arg, &st);
    free(kind_arg);
    if (!k) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *sub = opt->subresource;
    if (sub && !nd_kind_has_subresource(k, sub)) {
        rc = nd_cli_usage(ctx, "%s have no subresource %s", k->plural, sub);
        goto out;
    }
    json_t *ra = json_pack("{ssssssss}", "verb", verb, "group", k->group, "version", k->version,
                           "resource", k->plural);
    if (k->namespaced && !ctx->all_projects)
        json_object_set_new(ra, "namespace", json_string(nd_ctx_project(ctx)));
    if (name)
        json_object_set_new(ra, "name", json_string(name));
    if (sub)
        json_object_set_new(ra, "subresource", json_string(sub));
    body = json_pack("{sssss{so}}", "apiVersion", "authorization.k8s.io/v1", "kind",
                     "SelfSubjectAccessReview", "spec", "resourceAttributes", ra);
    struct nd_client *c = nd_ctx_client(ctx, &st);
    if (!c || nd_client_json(c, "POST", AUTHZ_PATH, body, &answer, &st) < 0) {
        rc = review_error(ctx, "SelfSubjectAccessReview (authorization.k8s.io/v1)", &st);
        goto out;
    }
    const json_t *status = json_object_get(answer, "status");
    bool allowed = json_is_true(json_object_get(status, "allowed"));
    const char *why = json_string_value(json_object_get(status, "reason"));
    if (!opt->quiet) {
        if (allowed)
            printf("yes\n");
        else if (why && *why) {
            char *safe = nd_term_safe(why, 0); /* the server's text */
            printf("no - %s\n", safe);
            free(safe);
        }
        else
            printf("no\n");
    }
    rc = allowed ? 0 : 1;
out:
    json_decref(body);
    json_decref(answer);
    nd_status_release(&st);
    return rc;
}

int cmd_auth(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct auth_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    int rc;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
    } else if (o.npos == 0) {
        rc = nd_cli_usage(ctx, "name a subcommand: nodus auth whoami, or nodus auth can-i VERB "
                               "KIND");
    } else if (strcmp(o.pos[0], "whoami") == 0) {
        rc = whoami(ctx, &o, &opt);
    } else if (strcmp(o.pos[0], "can-i") == 0) {
        rc = can_i(ctx, &o, &opt);
    } else {
        rc = nd_cli_usage(ctx, "unknown subcommand \"%s\" of nodus auth (whoami, can-i)",
                          o.pos[0]);
    }
    nd_opts_release(&o);
    nd_status_release(&st);
    return rc;
}
