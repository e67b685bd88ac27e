/* nodus wait: until objects meet a condition, a JSONPath value, are created or are
 * deleted. Exit 0 when met, 6 on --timeout, 1 when an object ended without meeting it:
 * a run-to-completion object Failed or Cancelled (it never changes again), or Succeeded
 * when the wait is for a condition (its conditions are final: an ended Job has
 * Complete=True, and Ready=False for good). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "jsonpath/jsonpath.h"
#include "resolve.h"
#include "watchobj.h"
#include "write.h"
#include "util/term.h"
#include "util/xmalloc.h"

struct wait_opts {
    const char *condition;
    int64_t timeout;
    const char *selector;
    bool all;
};

#define TO(f) ND_TO(struct wait_opts, f)
const struct nd_flag cmd_wait_flags[] = {
    {"for", 0, ND_STRING, "CONDITION",
     "condition=NAME[=VALUE], jsonpath={.path}=VALUE, create or delete", NULL, TO(condition)},
    {"timeout", 0, ND_DURATION, "DURATION", "give up after this long (default 30s; 0: check once)",
     NULL, TO(timeout)},
    {"selector", 'l', ND_STRING, "SELECTOR", "wait for the objects matching a selector", NULL,
     TO(selector)},
    {"all", 0, ND_BOOL, NULL, "wait for every object of the kind", NULL, TO(all)},
    ND_FLAGS_END(struct wait_opts),
};

enum wait_for { FOR_CONDITION, FOR_JSONPATH, FOR_DELETE, FOR_CREATE };

struct waiter {
    enum wait_for what;
    char *cond;      /* condition type */
    char *value;     /* wanted value (condition status, or the JSONPath's value) */
    struct nd_jsonpath *jp;
    const struct nd_kind *k;
    char *failed;    /* the end phase the object reached without meeting it */
    char *why;       /* then the condition as it ended: "Ready is False (Succeeded: ...)" */
    char *uid;
    const char *name; /* the object waited for (BORROWED) */
};

static int parse_for(const char *s, struct waiter *w, struct nd_status *st)
{
    if (!s)
        return nd_status_set(st, "Usage", "for example: --for=condition=Ready",
                             "--for must be set");
    if (!strcmp(s, "delete")) {
        w->what = FOR_DELETE;
        return 0;
    }
    if (!strcmp(s, "create")) {
        w->what = FOR_CREATE;
        return 0;
    }
    if (!strncasecmp(s, "condition=", 10)) {
        w->what = FOR_CONDITION;
        const char *c = s + 10;
        const char *eq = strchr(c, '=');
        w->cond = eq ? nd_xstrndup(c, (size_t)(eq - c)) : nd_xstrdup(c);
        w->value = nd_xstrdup(eq ? eq + 1 : "True");
        if (!*w->cond)
            return nd_status_set(st, "Usage", NULL, "--for=condition=NAME needs a condition name");
        return 0;
    }
    if (!strncasecmp(s, "jsonpath=", 9)) {
        w->what = FOR_JSONPATH;
        const char *expr = s + 9;
        /* {...}=VALUE: the value follows the expression's closing brace */
        const char *end = NULL;
        if (*expr == '{')
            end = strchr(expr, '}');
        const char *eq = end ? strchr(end, '=') : strrchr(expr, '=');
        char *path = eq ? nd_xstrndup(expr, (size_t)(eq - expr)) : nd_xstrdup(expr);
        w->value = eq ? nd_xstrdup(eq + 1) : NULL;
        char *relaxed = nd_jsonpath_relaxed(path);
        free(path);
        if (!relaxed)
            return nd_status_set(st, "Usage", NULL, "--for=jsonpath: %s", ND_JSONPATH_RELAXED_ERROR);
        w->jp = nd_jsonpath_parse(relaxed, st);
        free(relaxed);
        if (!w->jp) {
            free(st->reason);
            st->reason = nd_xstrdup("Usage");
            return -1;
        }
        return 0;
    }
    return nd_status_set(st, "Usage", NULL,
                         "unrecognized condition: \"%s\" (want condition=NAME, jsonpath=..., "
                         "create or delete)",
                         s);
}

/* The condition waited for in obj's status.conditions, or NULL. BORROWED. */
static const json_t *find_condition(const struct waiter *w, const json_t *obj)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "conditions"), i, c) {
        const char *type = json_string_value(json_object_get(c, "type"));
        if (type && !strcasecmp(type, w->cond))
            return c;
    }
    return NULL;
}

static bool condition_met(const struct waiter *w, const json_t *obj)
{
    const char *status = json_string_value(json_object_get(find_condition(w, obj), "status"));
    return status && !strcasecmp(status, w->value);
}

/* What the condition waited for was when the object ended: "Ready is False (Succeeded:
 * the command exited 0)", "it has no condition Complete". NEW. */
static char *condition_end(const struct waiter *w, const json_t *obj)
{
    const json_t *c = find_condition(w, obj);
    if (!c)
        return nd_xasprintf("it has no condition %s", w->cond);
    const char *type = json_string_value(json_object_get(c, "type"));
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *reason = json_string_value(json_object_get(c, "reason"));
    const char *msg = json_string_value(json_object_get(c, "message"));
    return nd_xasprintf("%s is %s%s%s%s%s%s", type, status ? status : "unset",
                        reason || msg ? " (" : "", reason ? reason : "",
                        reason && msg && *msg ? ": " : "", msg ? msg : "", reason || msg ? ")" : "");
}

static bool jsonpath_met(const struct waiter *w, const json_t *obj)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *res = nd_jsonpath_eval(w->jp, obj, true, &st);
    nd_status_release(&st);
    json_t *vals = json_array_get(res, 0);
    bool met = false;
    if (json_array_size(vals) > 0) {
        if (!w->value) {
            met = true;
        } else {
            struct nd_buf b = ND_BUF_INIT;
            nd_jsonpath_format_value(json_array_get(vals, 0), &b);
            met = strcmp(b.data, w->value) == 0;
            nd_buf_release(&b);
        }
    }
    json_decref(res);
    return met;
}

static int check(void *cls, const char *type, const json_t *obj, struct nd_status *st)
{
    struct waiter *w = cls;
    bool deleted = !obj || (type && !strcmp(type, "DELETED"));
    if (w->what == FOR_DELETE) {
        if (deleted)
            return 1;
        const char *uid = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
        if (!w->uid && uid)
            w->uid = nd_xstrdup(uid);
        return w->uid && uid && strcmp(uid, w->uid) ? 1 : 0;
    }
    if (w->what == FOR_CREATE)
        return deleted ? 0 : 1;
    if (!obj && !type) {
        /* absent at the start: as kubectl, nothing to wait for */
        char rn[ND_KIND_NAME_MAX];
        return nd_status_set(st, "NotFound", NULL, "%s \"%s\" not found",
                             nd_kind_resource_name(w->k, rn, sizeof rn), w->name);
    }
    if (deleted)
        return 0;
    bool met = w->what == FOR_CONDITION ? condition_met(w, obj) : jsonpath_met(w, obj);
    if (met)
        return 1;
    /* a run-to-completion object that has ended will never meet it: Failed or Cancelled
     * ones never change; a Succeeded one's conditions are final (its status may still
     * change: the final charge posts after the end, so a JSONPath wait goes on) */
    const char *phase = json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
    if (phase && nd_phase_terminal(w->k->family, phase) &&
        (nd_phase_parse(phase) != ND_PHASE_SUCCEEDED || w->what == FOR_CONDITION)) {
        free(w->failed);
        w->failed = nd_xstrdup(phase);
        free(w->why);
        w->why = w->what == FOR_CONDITION ? condition_end(w, obj) : NULL;
        return 1;
    }
    return 0;
}

/* The object ended without meeting the condition: what it ended as, the condition as
 * it ended, and what to do instead. name and phase are made safe already. */
static void ended(struct nd_ctx *ctx, const struct waiter *w, const char *kind, const char *name,
                  const char *phase)
{
    char *why = nd_term_safe(w->why, 0);
    fflush(stdout);
    fprintf(stderr, "error: %s/%s ended %s without meeting the condition%s%s\n", kind, name, phase,
            why ? ": " : "", why ? why : "");
    const char *ns = w->k->namespaced ? nd_ctx_project(ctx) : NULL;
    if (nd_phase_parse(phase) == ND_PHASE_SUCCEEDED && !strcasecmp(w->cond, "Complete"))
        /* a server that sets no Complete condition (an older emulator) */
        fprintf(stderr, "fix: its server sets no Complete condition; wait for the phase: "
                        "nodus wait %s/%s%s%s --for=jsonpath='{.status.phase}'=Succeeded\n",
                w->k->singular, name, ns ? " -n " : "", ns ? ns : "");
    else if (nd_phase_parse(phase) == ND_PHASE_SUCCEEDED)
        fprintf(stderr, "fix: an ended %s's conditions do not change; to wait for its end: "
                        "nodus wait %s/%s%s%s --for=condition=Complete\n",
                w->k->kind, w->k->singular, name, ns ? " -n " : "", ns ? ns : "");
    else
        fprintf(stderr, "fix: it will not run again; see why it ended: nodus describe %s/%s%s%s\n",
                w->k->singular, name, ns ? " -n " : "", ns ? ns : "");
    free(why);
}

/* Appends [i, name] to targets for every object of res->v[i]'s kind (in ns) matching
 * selector (NULL: all); 0, or the exit code of the list's error (printed). */
static int add_listed(struct nd_ctx *ctx, const struct nd_res_list *res, size_t i, const char *ns,
                      const char *selector, json_t *targets)
{
    const struct nd_kind *k = res->v[i].k;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_buf p = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? ns : NULL, NULL, NULL, &p);
    if (selector) {
        nd_buf_adds(&p, "?labelSelector=");
        nd_buf_add_urlencoded(&p, selector);
    }
    json_t *list = NULL;
    int rc = 0;
    if (nd_call_get(ctx, p.data, &list, &st) < 0)
        rc = nd_cli_error(ctx, &st);
    size_t j;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), j, item) json_array_append_new(
        targets,
        json_pack("[iO]", (int)i, json_object_get(json_object_get(item, "metadata"), "name")));
    json_decref(list);
    nd_buf_release(&p);
    nd_status_release(&st);
    return rc;
}

/* Waits for one object (w set up by parse_for) and says how it went; 0 or the exit
 * code. for_flag: --for's value, for the messages. */
static int wait_one(struct nd_ctx *ctx, struct waiter *w, const char *ns, int64_t deadline,
                    const char *for_flag)
{
    const struct nd_kind *k = w->k;
    struct nd_status st = ND_STATUS_INIT;
    free(w->uid);
    w->uid = NULL;
    free(w->failed);
    w->failed = NULL;
    free(w->why);
    w->why = NULL;
    char what[200], rn[ND_KIND_NAME_MAX];
    snprintf(what, sizeof what, "the condition on %s/%s", nd_kind_resource_name(k, rn, sizeof rn),
             w->name);
    char note[200];
    snprintf(note, sizeof note, "--for=%s", for_flag);
    int rc = nd_watch_object(
        ctx, k, k->namespaced ? ns : NULL, w->name,
        &(struct nd_watch_opts){
            .fn = check, .cls = w, .deadline_ms = deadline, .what = what, .note = note},
        &st);
    char res_name[ND_KIND_NAME_MAX];
    nd_kind_display_name(k, res_name, sizeof res_name);
    /* a name a server's list may have given, a phase a server wrote */
    char *sname = nd_term_safe(w->name, 0), *sfailed = nd_term_safe(w->failed, 0);
    int code = 0;
    if (rc > 0 && w->failed) {
        ended(ctx, w, res_name, sname, sfailed);
        code = 1;
    } else if (rc > 0) {
        printf("%s/%s condition met\n", res_name, sname);
        fflush(stdout);
    } else {
        code = nd_cli_error(ctx, &st);
    }
    free(sname);
    free(sfailed);
    nd_status_release(&st);
    return code;
}

int cmd_wait(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct wait_opts opt = {.timeout = 30000};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    struct waiter w = {0};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        parse_for(opt.condition, &w, &st) < 0 ||
        nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    int64_t timeout = opt.timeout;
    int64_t deadline = nd_now_ms() + (timeout > 0 ? timeout : 1);
    const char *ns = nd_ctx_project(ctx);
    const char *selector = opt.selector;
    if (!res.by_name && res.n && !opt.all && !selector) {
        worst = nd_cli_usage(ctx, "resource name may not be empty (name objects, or use -l "
                                  "or --all)");
        goto out;
    }
    json_t *targets = json_array(); /* [kind index, name] */
    for (size_t i = 0; i < res.n; i++) {
        int c = 0;
        if (!res.by_name)
            c = add_listed(ctx, &res, i, ns, selector, targets);
        for (size_t j = 0; res.by_name && j < json_array_size(res.v[i].names); j++)
            json_array_append_new(targets,
                                  json_pack("[iO]", (int)i, json_array_get(res.v[i].names, j)));
        if (c)
            worst = c;
    }
    if (!json_array_size(targets) && !worst) {
        fprintf(stderr, "error: no matching resources found\n");
        worst = 1;
    }
    size_t i;
    json_t *t;
    json_array_foreach(targets, i, t) {
        w.k = res.v[json_integer_value(json_array_get(t, 0))].k;
        w.name = json_string_value(json_array_get(t, 1));
        int c = wait_one(ctx, &w, ns, deadline, opt.condition);
        if (!worst)
            worst = c;
    }
    json_decref(targets);
out:
    free(w.cond);
    free(w.value);
    free(w.failed);
    free(w.why);
    free(w.uid);
    nd_jsonpath_free(w.jp);
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
