/* registry.c: lookups over the kind table, and the phases of each family. */
#include "kinds/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool in_list(const char *const *list, const char *s, bool fold)
{
    if (!list || !s)
        return false;
    for (; *list; list++)
        if (fold ? strcasecmp(*list, s) == 0 : strcmp(*list, s) == 0)
            return true;
    return false;
}

/* Case-insensitive: are the n bytes at s exactly the string t? */
static bool eqn(const char *s, size_t n, const char *t)
{
    return strlen(t) == n && strncasecmp(s, t, n) == 0;
}

/* Do the n bytes at name (without any group suffix) name kind k? */
static bool names_kind(const struct nd_kind *k, const char *name, size_t n)
{
    if (eqn(name, n, k->plural) || eqn(name, n, k->singular) || eqn(name, n, k->kind))
        return true;
    for (const char *const *s = k->short_names; s && *s; s++)
        if (eqn(name, n, *s))
            return true;
    return (k->alias_plural && eqn(name, n, k->alias_plural)) ||
           (k->alias_singular && eqn(name, n, k->alias_singular));
}

const struct nd_kind *nd_kind_lookup(const char *name)
{
    if (!name || !*name)
        return NULL;
    size_t n = nd_kind_count();
    for (size_t i = 0; i < n; i++)
        if (names_kind(&nd_kinds[i], name, strlen(name)))
            return &nd_kinds[i];
    /* <name>.<group> or <name>.<version>.<group> */
    const char *dot = strchr(name, '.');
    if (!dot || dot == name)
        return NULL;
    size_t len = (size_t)(dot - name);
    const char *rest = dot + 1;
    /* qualified names find the views too (events.events.k8s.io) */
    for (size_t i = 0; i < nd_kind_served_count(); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (!*k->group || !names_kind(k, name, len))
            continue;
        if (strcasecmp(rest, k->group) == 0)
            return k;
        size_t vl = strlen(k->version);
        if (strncasecmp(rest, k->version, vl) == 0 && rest[vl] == '.' &&
            strcasecmp(rest + vl + 1, k->group) == 0)
            return k;
    }
    return NULL;
}

const struct nd_kind *nd_kind_by_kind(const char *group, const char *kind)
{
    if (!kind)
        return NULL;
    for (size_t i = 0; i < (group ? nd_kind_served_count() : nd_kind_count()); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (strcmp(k->kind, kind) == 0 && (!group || strcmp(group, k->group) == 0))
            return k;
    }
    return NULL;
}

const struct nd_kind *nd_kind_by_plural(const char *group, const char *plural)
{
    if (!plural)
        return NULL;
    for (size_t i = 0; i < (group ? nd_kind_served_count() : nd_kind_count()); i++) {
        const struct nd_kind *k = nd_kind_served(i);
        if (strcmp(k->plural, plural) == 0 && (!group || strcmp(group, k->group) == 0))
            return k;
    }
    return NULL;
}

const struct nd_kind *nd_kind_by_api_version(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (strcmp(k->kind, kind) == 0 && strcmp(k->api_version, api_version) == 0)
            return k;
    }
    return NULL;
}

bool nd_kind_is(const struct nd_kind *k, unsigned flags)
{
    return k && (k->flags & flags) == flags;
}

bool nd_kind_costs(const struct nd_kind *k)
{
    return k && (k->flags & (ND_KIND_BILLED | ND_KIND_COMPUTE)) != 0;
}

bool nd_kind_named(const struct nd_kind *k, const char *name)
{
    if (!k || !name)
        return false;
    if (!strcmp(name, k->plural) || !strcmp(name, k->singular) ||
        in_list(k->short_names, name, false))
        return true;
    return (k->alias_plural && !strcmp(name, k->alias_plural)) ||
           (k->alias_singular && !strcmp(name, k->alias_singular));
}

static const char *qualified(const char *name, const char *group, char *buf, size_t cap)
{
    if (cap)
        snprintf(buf, cap, "%s%s%s", name, *group ? "." : "", group);
    return buf;
}

const char *nd_kind_display_name(const struct nd_kind *k, char *buf, size_t cap)
{
    return qualified(k->singular, k->group, buf, cap);
}

const char *nd_kind_resource_name(const struct nd_kind *k, char *buf, size_t cap)
{
    return qualified(k->plural, k->group, buf, cap);
}

bool nd_kind_in_category(const struct nd_kind *k, const char *category)
{
    return in_list(k->categories, category, false);
}

bool nd_kind_has_subresource(const struct nd_kind *k, const char *subresource)
{
    return in_list(k->subresources, subresource, false);
}

bool nd_kind_takes_request(const struct nd_kind *k, const char *action)
{
    return in_list(k->requests, action, false);
}

bool nd_kind_field_selectable(const struct nd_kind *k, const char *field)
{
    size_t n = strlen(field);
    for (const char *const *f = k->field_selectors; f && *f; f++)
        if (strncmp(*f, field, n) == 0 && ((*f)[n] == '\0' || (*f)[n] == '='))
            return true;
    return false;
}

static const char *const verbs_all[] = {
    "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch", NULL,
};
static const char *const verbs_read[] = {"get", "list", "watch", NULL};

const char *const *nd_kind_verbs(const struct nd_kind *k)
{
    return k->read_only ? verbs_read : verbs_all;
}

/* What each subresource is served with (by its handler: status in api_write.c and
 * api_read.c, the others through subresource.c), in discovery's order. */
static const struct {
    const char *sub;
    const char *const verbs[4];
} sub_verbs[] = {
    {"status", {"get", "patch", "update", NULL}},
    {"log", {"get", NULL}},                       /* GET */
    {"exec", {"create", "get", NULL}},            /* POST, or GET with a WebSocket upgrade */
    {"files", {"create", "get", "update", NULL}}, /* GET reads, POST and PUT write */
    {"invoke", {"create", NULL}},                 /* POST */
};
static const char *const verbs_none[] = {NULL};
static const char *const verbs_get[] = {"get", NULL};

const char *const *nd_kind_sub_verbs(const struct nd_kind *k, const char *sub)
{
    if (!sub || !*sub)
        return nd_kind_verbs(k);
    if (!nd_kind_has_subresource(k, sub))
        return verbs_none;
    if (k->read_only)
        return verbs_get;
    for (size_t i = 0; i < sizeof sub_verbs / sizeof sub_verbs[0]; i++)
        if (strcmp(sub_verbs[i].sub, sub) == 0)
            return sub_verbs[i].verbs;
    return verbs_none;
}

bool nd_kind_serves(const struct nd_kind *k, const char *sub, const char *verb)
{
    return in_list(nd_kind_sub_verbs(k, sub), verb, false);
}

const char *nd_kind_state_default(const struct nd_kind *k)
{
    return k->state_values ? k->state_values[0] : NULL;
}

bool nd_kind_state_valid(const struct nd_kind *k, const char *value)
{
    return in_list(k->state_values, value, false);
}

const struct nd_mutable *nd_kind_mutable(const struct nd_kind *k, const char *path)
{
    if (!path)
        return NULL;
    for (const struct nd_mutable *m = k->mutable_fields; m && m->path; m++) {
        size_t n = strlen(m->path);
        if (strncmp(path, m->path, n) == 0 && (path[n] == '\0' || path[n] == '.' || path[n] == '['))
            return m;
    }
    return NULL;
}

size_t nd_kind_column_count(const struct nd_kind *k, bool wide)
{
    size_t n = 0;
    for (const struct nd_column *c = k->columns; c->name; c++)
        if (wide || c->priority == 0)
            n++;
    return n;
}

/* Lifecycle order, the deleting phase last. */
static const char *const run_phases[] = {
    "Queued", "Provisioning", "Running", "Succeeded", "Failed", "Cancelled", "Cancelling", NULL,
};
static const char *const long_phases[] = {
    "Pending", "Starting", "Running", "Stopped", "Terminating", NULL,
};
static const char *const no_phases[] = {NULL};

const char *const *nd_phases(enum nd_family f)
{
    switch (f) {
    case ND_FAMILY_RUN:
        return run_phases;
    case ND_FAMILY_LONG:
        return long_phases;
    default:
        return no_phases;
    }
}

const char *nd_phase_initial(enum nd_family f)
{
    return nd_phases(f)[0];
}

const char *nd_phase_deleting(enum nd_family f)
{
    switch (f) {
    case ND_FAMILY_RUN:
        return "Cancelling";
    case ND_FAMILY_LONG:
        return "Terminating";
    default:
        return NULL;
    }
}

bool nd_phase_valid(enum nd_family f, const char *phase)
{
    return in_list(nd_phases(f), phase, false);
}

bool nd_phase_terminal(enum nd_family f, const char *phase)
{
    if (f != ND_FAMILY_RUN || !phase)
        return false;
    return nd_phase_ended(nd_phase_parse(phase));
}

int nd_kind_path(const struct nd_kind *k, const char *ns, const char *name, const char *sub,
                 struct nd_buf *out)
{
    int rc = *k->group ? nd_buf_addf(out, "/apis/%s/%s", k->group, k->version)
                       : nd_buf_addf(out, "/api/%s", k->version);
    if (k->namespaced && ns && *ns) {
        rc |= nd_buf_adds(out, "/namespaces/");
        rc |= nd_buf_add_urlencoded(out, ns);
    }
    rc |= nd_buf_addch(out, '/');
    rc |= nd_buf_adds(out, k->plural);
    if (name) {
        rc |= nd_buf_addch(out, '/');
        rc |= nd_buf_add_urlencoded(out, name);
        if (sub) {
            rc |= nd_buf_addch(out, '/');
            rc |= nd_buf_adds(out, sub);
        }
    }
    return rc ? -1 : 0;
}
