/* What a caller may do, one request or every rule of a project; see authz_rules.h. */
#include "authz_rules.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "auth_review.h"
#include "util/xmalloc.h"

static const char *const known_verbs[] = {"get",    "list",   "watch",  "create",
                                          "update", "patch",  "delete", "deletecollection",
                                          NULL};

static bool in(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

/* The verbs of list, joined by ", ", appended to b. */
static void add_verbs(struct nd_buf *b, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        nd_buf_addf(b, "%s%s", i ? ", " : "", list[i]);
}

/* Why verb is not served on k's sub (nd_kind_sub_verbs), in reason. */
static void not_served(const struct nd_kind *k, const char *sub, const char *verb,
                       struct nd_buf *reason)
{
    char res[ND_KIND_NAME_MAX];
    nd_kind_resource_name(k, res, sizeof res);
    if (k->read_only && !*sub) {
        nd_buf_addf(reason, "%s are published by Nodus and cannot be changed (", res);
        add_verbs(reason, nd_kind_sub_verbs(k, sub));
        nd_buf_adds(reason, " only)");
        return;
    }
    if (*sub)
        nd_buf_addf(reason, "the %s subresource of %s is served with ", sub, res);
    else
        nd_buf_addf(reason, "%s are served with ", res);
    add_verbs(reason, nd_kind_sub_verbs(k, sub));
    nd_buf_addf(reason, " only, not %s", verb);
}

bool em_authz_may(const struct em_server *srv, const struct em_identity *who,
                  const struct em_ask *q, struct nd_buf *reason)
{
    const char *verb = q->verb, *group = q->group, *sub = q->sub, *ns = q->ns, *name = q->name;
    if (!in(known_verbs, verb)) {
        nd_buf_addf(reason, "the verb \"%s\" is not one this server knows (get, list, watch, "
                            "create, update, patch, delete, deletecollection)", verb);
        return false;
    }
    const struct nd_kind *k = nd_kind_by_plural(group, q->resource);
    if (!k) {
        nd_buf_addf(reason, "the server has no resource \"%s\"%s%s", q->resource,
                    *group ? " in the group " : "", group);
        return false;
    }
    if (*sub && !nd_kind_has_subresource(k, sub)) {
        nd_buf_addf(reason, "%s have no subresource \"%s\"", k->plural, sub);
        return false;
    }
    if (!nd_kind_serves(k, sub, verb)) {
        not_served(k, sub, verb, reason);
        return false;
    }
    /* the route em_route_make makes of the request these attributes describe */
    struct em_route rt = {.target = EM_TO_API, .verb = verb, .kind = k,
                          .is_write = em_route_method_writes(em_route_verb_method(verb))};
    bool namespaces = !k->namespaced && nd_kind_is(k, ND_KIND_PROJECT) && !*group;
    if (k->namespaced && *ns)
        rt.project = ns;
    else if (namespaces && *name)
        rt.project = name;
    bool listing = !strcmp(verb, "list") || !strcmp(verb, "watch");
    rt.unnamed = namespaces && !strcmp(verb, "create") && !*name;
    rt.sub = *sub ? sub : NULL;
    /* the path of the request described, for the words of the answer */
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, k->namespaced ? ns : NULL, *name ? name : NULL, *sub ? sub : NULL, &path);
    struct nd_status st = ND_STATUS_INIT;
    bool allowed = em_authz_decide(srv, who, &rt, path.data, &st) == 0;
    nd_buf_release(&path);
    if (!allowed) {
        nd_buf_adds(reason, st.message ? st.message : "forbidden");
    } else if (who->projects && !rt.project && (k->namespaced || namespaces)) {
        /* every project (--all-namespaces), for a token of some projects only */
        if (listing) {
            nd_buf_adds(reason, "answered with the objects of the token's projects only");
        } else {
            allowed = false;
            nd_buf_addf(reason, "%s may %s %s only in its own projects", who->name, verb,
                        k->plural);
        }
    }
    nd_status_release(&st);
    return allowed;
}

bool em_authz_may_path(const struct em_server *srv, const struct em_identity *who,
                       const char *path, const char *verb, struct nd_buf *reason)
{
    const struct em_nonresource *row = em_route_nonresource(path);
    /* a path no row names is answered 404, to any valid token */
    struct em_route rt = {.target = row ? row->target : EM_TO_OTHER};
    struct nd_status st = ND_STATUS_INIT;
    bool allowed = em_authz_decide(srv, who, &rt, path, &st) == 0;
    if (!allowed)
        nd_buf_adds(reason, st.message ? st.message : "forbidden");
    nd_status_release(&st);
    if (allowed && row && row->verbs && *verb && !in(row->verbs, verb)) {
        nd_buf_addf(reason, "%s is served with ", path);
        add_verbs(reason, row->verbs);
        nd_buf_addf(reason, " only, not %s", verb);
        allowed = false;
    }
    return allowed;
}

/* ---- the rules of a project ---- */

/* The rules being made: rules with the same verbs (and names) share one. */
struct rules {
    json_t *resource, *nonresource;
    struct nd_buf left_out; /* what no rule can say (evaluationError) */
};

static json_t *strings(const char *const *list, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        if (list[i])
            json_array_append_new(a, json_string(list[i]));
    return a;
}

/* Adds resource (in group, for names: NULL for any) to the rule of exactly these verbs,
 * group and names, or a new one. */
static void add_rule(struct rules *r, const char *group, const char *resource, json_t *verbs,
                     json_t *names)
{
    size_t i;
    json_t *rule;
    json_array_foreach(r->resource, i, rule) {
        if (json_equal(json_object_get(rule, "verbs"), verbs) &&
            !strcmp(json_string_value(json_array_get(json_object_get(rule, "apiGroups"), 0)),
                    group) &&
            ((!names && !json_object_get(rule, "resourceNames")) ||
             (names && json_equal(json_object_get(rule, "resourceNames"), names)))) {
            json_array_append_new(json_object_get(rule, "resources"), json_string(resource));
            json_decref(verbs);
            json_decref(names);
            return;
        }
    }
    rule = json_pack("{sos[s]s[s]}", "verbs", verbs, "apiGroups", group, "resources", resource);
    if (names)
        json_object_set_new(rule, "resourceNames", names);
    json_array_append_new(r->resource, rule);
}

/* The names a decision on an object of a cluster-scoped kind (a project) may turn on:
 * nodus (read-only to all), the token's projects, and the project asked about. */
static json_t *names_that_matter(const struct em_identity *who, const char *ns)
{
    json_t *names = json_pack("[s]", "nodus");
    size_t i;
    json_t *v;
    json_array_foreach(who->projects, i, v) {
        if (json_string_value(v))
            nd_json_array_add_unique(names, v);
    }
    json_t *nsv = json_string(ns);
    nd_json_array_add_unique(names, nsv);
    json_decref(nsv);
    return names;
}

/* The rules of one kind and subresource (sub "": the objects) in project ns. */
static void kind_rules(const struct em_server *srv, const struct em_identity *who,
                       const struct nd_kind *k, const char *sub, const char *ns,
                       struct rules *r)
{
    const char *const *served = nd_kind_sub_verbs(k, sub);
    char *resource = *sub ? nd_xasprintf("%s/%s", k->plural, sub) : nd_xstrdup(k->plural);
    struct nd_buf why = ND_BUF_INIT;
    struct em_ask q = {.group = k->group, .resource = k->plural, .sub = sub, .name = ""};
    json_t *any = json_array();
    if (k->namespaced) {
        /* in ns, whatever the name */
        q.ns = ns;
        for (size_t i = 0; served[i]; i++) {
            q.verb = served[i];
            if (em_authz_may(srv, who, &q, &why))
                json_array_append_new(any, json_string(served[i]));
            nd_buf_reset(&why);
        }
        if (json_array_size(any))
            add_rule(r, k->group, resource, json_incref(any), NULL);
        json_decref(any);
        free(resource);
        nd_buf_release(&why);
        return;
    }
    /* a project: a verb is granted for any name when it is allowed unnamed and for every
     * name the decision turns on; else for the names it is allowed for */
    q.ns = "";
    json_t *names = names_that_matter(who, ns);
    json_t *named[sizeof known_verbs / sizeof known_verbs[0]] = {0};
    const char *missing[sizeof known_verbs / sizeof known_verbs[0]] = {0};
    size_t n_missing = 0;
    for (size_t i = 0; served[i]; i++) {
        q.verb = served[i];
        q.name = "";
        bool unnamed = em_authz_may(srv, who, &q, &why);
        nd_buf_reset(&why);
        bool collection = !strcmp(served[i], "list") || !strcmp(served[i], "watch") ||
                          !strcmp(served[i], "deletecollection");
        json_t *ok = json_array();
        size_t j;
        json_t *name;
        json_array_foreach(names, j, name) {
            q.name = json_string_value(name);
            if (!collection && em_authz_may(srv, who, &q, &why))
                json_array_append(ok, name);
            nd_buf_reset(&why);
        }
        if (unnamed && (collection || json_array_size(ok) == json_array_size(names))) {
            json_array_append_new(any, json_string(served[i]));
            json_decref(ok);
            continue;
        }
        if (unnamed && n_missing < sizeof missing / sizeof missing[0])
            missing[n_missing++] = served[i]; /* allowed for names no rule can list */
        named[i] = ok;
    }
    if (json_array_size(any))
        add_rule(r, k->group, resource, json_incref(any), NULL);
    /* verbs allowed for the same names share a rule */
    for (size_t i = 0; served[i]; i++) {
        if (!named[i] || !json_array_size(named[i]))
            continue;
        json_t *verbs = json_pack("[s]", served[i]);
        for (size_t j = i + 1; served[j]; j++)
            if (named[j] && json_equal(named[j], named[i])) {
                json_array_append_new(verbs, json_string(served[j]));
                json_decref(named[j]);
                named[j] = NULL;
            }
        add_rule(r, k->group, resource, verbs, json_incref(named[i]));
    }
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        json_decref(named[i]);
    if (n_missing) {
        nd_buf_adds(&r->left_out, r->left_out.len ? ", and " : "");
        for (size_t i = 0; i < n_missing; i++)
            nd_buf_addf(&r->left_out, "%s%s", i ? i + 1 < n_missing ? ", " : " and " : "",
                        missing[i]);
        nd_buf_addf(&r->left_out, " %s", resource);
    }
    json_decref(names);
    json_decref(any);
    free(resource);
    nd_buf_release(&why);
}

/* The reviews: any valid token creates them (em_authz_decide of EM_TO_REVIEW). */
static void review_rules(const struct em_server *srv, const struct em_identity *who,
                         struct rules *r)
{
    struct em_route rt = {.target = EM_TO_REVIEW};
    struct nd_status st = ND_STATUS_INIT;
    bool allowed = em_authz_decide(srv, who, &rt, "", &st) == 0;
    nd_status_release(&st);
    for (const struct em_review *rv = em_reviews; allowed && rv->group; rv++)
        if (rv->listed)
            add_rule(r, rv->group, rv->plural, json_pack("[s]", "create"), NULL);
}

/* Each row of em_nonresources who may use, rows of the same verbs in one rule. */
static void nonresource_rules(const struct em_server *srv, const struct em_identity *who,
                              struct rules *r)
{
    struct nd_buf why = ND_BUF_INIT;
    for (const struct em_nonresource *row = em_nonresources; row->path; row++) {
        size_t n = 0;
        while (row->verbs && row->verbs[n])
            n++;
        if (!n || !em_authz_may_path(srv, who, row->path, "", &why)) {
            nd_buf_reset(&why);
            continue;
        }
        json_t *verbs = strings(row->verbs, n);
        size_t i;
        json_t *rule, *mine = NULL;
        json_array_foreach(r->nonresource, i, rule) {
            if (json_equal(json_object_get(rule, "verbs"), verbs))
                mine = rule;
        }
        if (mine) {
            json_array_append_new(json_object_get(mine, "nonResourceURLs"),
                                  json_string(row->path));
            json_decref(verbs);
        } else {
            json_array_append_new(r->nonresource, json_pack("{sos[s]}", "verbs", verbs,
                                                            "nonResourceURLs", row->path));
        }
    }
    nd_buf_release(&why);
}

json_t *em_authz_rules(const struct em_server *srv, const struct em_identity *who,
                       const char *ns)
{
    struct rules r = {json_array(), json_array(), ND_BUF_INIT};
    review_rules(srv, who, &r);
    for (size_t i = 0; i < nd_kind_served_count(); i++) { /* views too: events.k8s.io */
        const struct nd_kind *k = nd_kind_served(i);
        kind_rules(srv, who, k, "", ns, &r);
        for (const char *const *s = k->subresources; s && *s; s++)
            kind_rules(srv, who, k, *s, ns, &r);
    }
    nonresource_rules(srv, who, &r);
    json_t *status = json_pack("{sososb}", "resourceRules", r.resource, "nonResourceRules",
                               r.nonresource, "incomplete", r.left_out.len > 0);
    if (r.left_out.len) {
        char *why = nd_xasprintf("%s may also %s of projects other than those named here (but "
                                 "not of nodus, which is read-only): a rule cannot name every "
                                 "project but one",
                                 who->name, r.left_out.data);
        json_object_set_new(status, "evaluationError", json_string(why));
        free(why);
    }
    nd_buf_release(&r.left_out);
    return status;
}
