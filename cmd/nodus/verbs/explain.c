/* nodus explain: the fields of a kind, from the server's OpenAPI v3 document, printed as
 * kubectl 1.33's plaintext template prints them (byte for byte: the template's
 * traversal, its type names, its enums, go-wordwrap's line breaking and sprig-style
 * indentation are reproduced here). Without a server, or from a server that serves no
 * OpenAPI, the kind registry's own schemas are explained (the same document the
 * emulator serves, built by pkg/kinds/openapi.h).
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/openapi.h"
#include "kinds/registry.h"
#include "commands.h"
#include "config/config.h"
#include "discovery.h"
#include "json/json.h"
#include "util/log.h"
#include "util/suggest.h"
#include "util/xmalloc.h"

struct explain_opts {
    bool recursive;
    const char *api_version;
    const char *output;
};

#define TO(f) ND_TO(struct explain_opts, f)
const struct nd_flag cmd_explain_flags[] = {
    {"recursive", 0, ND_BOOL, NULL, "print the fields of fields too, without descriptions", NULL,
     TO(recursive)},
    {"api-version", 0, ND_STRING, "GROUP/VERSION", "explain the kind in this API version",
     "=nodus.dev/v1 v1", TO(api_version)},
    {"output", 0, ND_STRING, "FORMAT", "plaintext (the only format)", "=plaintext", TO(output)},
    ND_FLAGS_END(struct explain_opts),
};

/* What one run renders. */
struct ex {
    const json_t *doc;
    bool recursive;
    bool failed; /* a schema kubectl's template cannot render (an empty field schema) */
    const char *resource; /* the kind's plural, for a fix */
};

/* ---- Go template semantics ---- */

/* The truth of a value in a Go template: false for nil, false, 0, "" and empty maps
 * and lists. */
static bool truthy(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return json_object_size(v) > 0;
    case JSON_ARRAY:
        return json_array_size(v) > 0;
    case JSON_STRING:
        return json_string_length(v) > 0;
    case JSON_INTEGER:
        return json_integer_value(v) != 0;
    case JSON_REAL:
        return json_real_value(v) != 0;
    case JSON_TRUE:
        return true;
    default:
        return false;
    }
}

/* additionalProperties as a schema: a non-empty map, not a boolean. BORROWED or NULL. */
static const json_t *addl(const json_t *schema)
{
    const json_t *a = json_object_get(schema, "additionalProperties");
    return json_is_object(a) && truthy(a) ? a : NULL;
}

/* Appends v as Go's fmt prints it with %v (strings raw, numbers as float64). */
static void add_value(struct nd_buf *out, const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_STRING:
        nd_buf_add(out, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        nd_json_add_real_g(out, (double)json_integer_value(v));
        break;
    case JSON_REAL:
        nd_json_add_real_g(out, json_real_value(v));
        break;
    case JSON_TRUE:
        nd_buf_adds(out, "true");
        break;
    case JSON_FALSE:
        nd_buf_adds(out, "false");
        break;
    case JSON_NULL:
        nd_buf_adds(out, "<nil>");
        break;
    default:
        nd_json_dump(v, out, ND_JSON_COMPACT);
        break;
    }
}

/* kubectl's resolveRef: a "#/a/b" reference followed through the document's maps.
 * BORROWED, or NULL when ref is not a local reference or names nothing. */
static const json_t *resolve_ref(const json_t *doc, const char *ref)
{
    if (!ref || ref[0] != '#')
        return NULL;
    const json_t *cur = doc;
    const char *p = ref + 1;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n) {
            char *key = nd_xstrndup(p, n);
            cur = json_object_get(cur, key);
            free(key);
            if (!json_is_object(cur))
                return NULL;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    return cur;
}

static const char *ref_of(const json_t *schema)
{
    const char *r = json_string_value(json_object_get(schema, "$ref"));
    return r ? r : "";
}

/* `or (resolveRef $ref $.Document) $.schema`: an empty map counts as nothing. */
static const json_t *resolved(const struct ex *e, const json_t *schema)
{
    const json_t *r = resolve_ref(e->doc, ref_of(schema));
    return truthy(r) ? r : schema;
}

/* A copy of history (may be NULL) with ref added: the template's `set`, which copies. */
static json_t *with_ref(const json_t *history, const char *ref)
{
    json_t *h = history ? json_copy((json_t *)history) : json_object();
    json_object_set_new(h, ref, json_integer(1));
    return h;
}

/* ---- text: go-wordwrap's WrapString (v1.0.1) and sprig's indent ---- */

/* The length in bytes of the UTF-8 character at s (1 for a byte that starts none). */
static size_t char_len(const char *s)
{
    unsigned char c = (unsigned char)*s;
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

/* Go's unicode.IsSpace, except U+00A0 (go-wordwrap keeps it inside words). */
static bool is_space(const char *s, size_t n)
{
    if (n == 1)
        return strchr(" \t\n\v\f\r", *s) && *s;
    unsigned cp = 0;
    if (n == 2)
        cp = ((unsigned)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    else if (n == 3)
        cp = ((unsigned)(s[0] & 0x0F) << 12) | ((unsigned)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    return cp == 0x85 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* The end of a line of wrap: the pending white space and word; trailing white space
 * (no word after it) only when it fits. */
static void end_line(struct nd_buf *out, const struct nd_buf *word, const struct nd_buf *space,
                     bool space_fits)
{
    if (word->len || space_fits)
        nd_buf_add(out, space->data, space->len);
    nd_buf_add(out, word->data, word->len);
}

/* Breaks s into lines of at most lim characters at white space (words longer than lim
 * stay whole), keeping the line breaks it has. */
static void wrap(const char *s, size_t lim, struct nd_buf *out)
{
    struct nd_buf word = ND_BUF_INIT, space = ND_BUF_INIT;
    size_t current = 0, wlen = 0, slen = 0;
    while (*s) {
        size_t n = char_len(s);
        if (*s == '\n') {
            end_line(out, &word, &space, current + slen <= lim);
            nd_buf_reset(&space);
            nd_buf_reset(&word);
            slen = wlen = 0;
            nd_buf_addch(out, '\n');
            current = 0;
        } else if (is_space(s, n)) {
            if (!space.len || word.len) {
                current += slen + wlen;
                nd_buf_add(out, space.data, space.len);
                nd_buf_add(out, word.data, word.len);
                nd_buf_reset(&space);
                nd_buf_reset(&word);
                slen = wlen = 0;
            }
            nd_buf_add(&space, s, n);
            slen++;
        } else {
            nd_buf_add(&word, s, n);
            wlen++;
            if (current + slen + wlen > lim && wlen < lim) {
                nd_buf_addch(out, '\n');
                current = 0;
                nd_buf_reset(&space);
                slen = 0;
            }
        }
        s += n;
    }
    end_line(out, &word, &space, current + slen <= lim);
    nd_buf_release(&word);
    nd_buf_release(&space);
}

/* sprig's indent: n spaces before s and after each of its newlines. */
static void indent(const char *s, size_t n, struct nd_buf *out)
{
    nd_buf_addf(out, "%*s", (int)n, "");
    for (; *s; s++) {
        nd_buf_addch(out, *s);
        if (*s == '\n')
            nd_buf_addf(out, "%*s", (int)n, "");
    }
}

static void wrap_indent(const char *s, size_t lim, size_t n, struct nd_buf *out)
{
    struct nd_buf w = ND_BUF_INIT;
    wrap(s, lim, &w);
    indent(w.data, n, out);
    nd_buf_release(&w);
}

/* ---- the template's pieces ---- */

/* "typeGuess": string, integer, Object, []Object, map[string]string, ObjectMeta ... */
static void type_guess(struct ex *e, const json_t *schema, struct nd_buf *out)
{
    if (!truthy(schema)) {
        e->failed = true;
        nd_buf_adds(out, "Object");
        return;
    }
    const json_t *items = json_object_get(schema, "items");
    const json_t *all_of = json_object_get(schema, "allOf");
    const json_t *type = json_object_get(schema, "type");
    if (truthy(items)) {
        nd_buf_adds(out, "[]");
        type_guess(e, items, out);
    } else if (addl(schema)) {
        nd_buf_adds(out, "map[string]");
        type_guess(e, addl(schema), out);
    } else if (truthy(all_of) && !truthy(json_object_get(schema, "properties")) &&
               json_array_size(all_of) == 1) {
        type_guess(e, json_array_get(all_of, 0), out);
    } else if (truthy(json_object_get(schema, "$ref"))) {
        const char *ref = ref_of(schema);
        const json_t *target = resolve_ref(e->doc, ref);
        const json_t *ttype = json_object_get(target, "type");
        if (!truthy(target) || !truthy(ttype) ||
            (json_is_string(ttype) && !strcmp(json_string_value(ttype), "object"))) {
            const char *name = strrchr(ref, '/');
            name = name ? name + 1 : ref;
            const char *last = strrchr(name, '.');
            last = last ? last + 1 : name;
            nd_buf_adds(out, *last ? last : "Object");
        } else {
            add_value(out, ttype);
        }
    } else if (json_is_string(type) && !strcmp(json_string_value(type), "object")) {
        nd_buf_adds(out, "Object");
    } else if (truthy(type)) {
        add_value(out, type);
    } else {
        nd_buf_adds(out, "Object");
    }
}

/* "extractEnum": `ENUM:` and one value a line (long), or `enum: a, b, c, d, ....`
 * after the type (short, at most limit values). */
static void extract_enum(const json_t *schema, bool long_view, int limit, size_t ind,
                         struct nd_buf *out)
{
    const json_t *values = json_object_get(schema, "enum");
    if (!truthy(schema) || !truthy(values) || !json_is_array(values))
        return;
    if (!long_view)
        nd_buf_addf(out, "\n%*senum: ", (int)ind, "");
    else
        nd_buf_adds(out, "ENUM:");
    size_t i;
    const json_t *v;
    json_array_foreach(values, i, v)
    {
        if (limit > -1 && i >= (size_t)limit) {
            nd_buf_adds(out, ", ....");
            break;
        }
        if (i > 0 && !long_view)
            nd_buf_adds(out, ", ");
        else if (long_view)
            nd_buf_adds(out, "\n    ");
        if (json_is_string(v) && !json_string_length(v))
            nd_buf_adds(out, "\"\"");
        else
            add_value(out, v);
    }
}

/* "description": the schema's description and those of its allOf, items and
 * additionalProperties, each followed by a newline. */
static void description(const struct ex *e, const json_t *schema, struct nd_buf *out)
{
    const json_t *s = resolved(e, schema);
    if (!truthy(s))
        return;
    const json_t *d = json_object_get(s, "description");
    if (truthy(d)) {
        add_value(out, d);
        nd_buf_addch(out, '\n');
    }
    size_t i;
    const json_t *a;
    json_array_foreach(json_object_get(s, "allOf"), i, a)
    {
        description(e, a, out);
    }
    if (truthy(json_object_get(s, "items")))
        description(e, json_object_get(s, "items"), out);
    if (addl(s))
        description(e, addl(s), out);
}

static bool required(const json_t *schema, const char *name)
{
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(schema, "required"), i, r)
    {
        if (json_is_string(r) && !strcmp(json_string_value(r), name))
            return true;
    }
    return false;
}

/* "fieldDetail": one field of schema: `name\t<type> -required-`, its enum, and unless
 * short its description (and external docs) and a blank line. */
static void field_detail(struct ex *e, const json_t *schema, const char *name, bool short_view,
                         int level, struct nd_buf *out)
{
    size_t ind = (size_t)level * 2;
    const json_t *fs = json_object_get(json_object_get(schema, "properties"), name);
    nd_buf_addf(out, "%*s%s\t<", (int)ind, "", name);
    type_guess(e, fs, out);
    nd_buf_addch(out, '>');
    if (required(schema, name))
        nd_buf_adds(out, " -required-");
    extract_enum(fs, false, 4, ind, out);
    nd_buf_addch(out, '\n');
    if (short_view)
        return;
    const json_t *d = json_object_get(fs, "description");
    struct nd_buf t = ND_BUF_INIT;
    if (truthy(d))
        add_value(&t, d);
    else
        nd_buf_adds(&t, "<no description>");
    wrap_indent(t.data, 78 - ind, ind + 2, out);
    nd_buf_addch(out, '\n');
    nd_buf_release(&t);
    nd_buf_addch(out, '\n');
}

/* "fieldList": the fields of schema in name order (a Go template ranges over a map's
 * sorted keys), with their fields under them when recursive; references seen on the
 * way down (history) are not followed again. */
static void field_list(struct ex *e, const json_t *schema, int level, const json_t *history,
                       struct nd_buf *out)
{
    const char *ref = ref_of(schema);
    if (*ref && truthy(json_object_get(history, ref)))
        return;
    json_t *next = with_ref(history, ref);
    const json_t *r = resolved(e, schema);
    const json_t *props = json_object_get(r, "properties");
    size_t k;
    const char **keys = nd_json_sorted_keys(props, &k);
    for (size_t i = 0; i < k; i++) {
        field_detail(e, r, keys[i], e->recursive, level, out);
        if (e->recursive)
            field_list(e, json_object_get(props, keys[i]), level + 1, next, out);
    }
    free(keys);
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(r, "allOf"), i, v)
    {
        field_list(e, v, level, next, out);
    }
    if (truthy(json_object_get(r, "items")))
        field_list(e, json_object_get(r, "items"), level, next, out);
    if (addl(r))
        field_list(e, addl(r), level, next, out);
    json_decref(next);
}

/* "output": follows path (n names) down from schema, then prints the FIELD line of the
 * last name, the description and the field list. Prints nothing when a name is not
 * there. */
static void output(struct ex *e, const json_t *schema, const json_t *history, char **path, size_t n,
                   struct nd_buf *out)
{
    const char *ref = ref_of(schema);
    json_t *next = with_ref(history, ref);
    const json_t *r = resolved(e, schema);
    const json_t *props = json_object_get(r, "properties");
    const json_t *sub = n ? json_object_get(props, path[0]) : NULL;
    if (n == 0) {
        nd_buf_adds(out, "DESCRIPTION:\n");
        struct nd_buf d = ND_BUF_INIT;
        description(e, r, &d);
        if (!d.len)
            nd_buf_adds(&d, "<empty>");
        wrap_indent(d.data, 76, 4, out);
        nd_buf_addch(out, '\n');
        nd_buf_release(&d);
        struct nd_buf f = ND_BUF_INIT;
        field_list(e, r, 1, NULL, &f);
        if (f.len) {
            nd_buf_adds(out, "FIELDS:\n");
            nd_buf_add(out, f.data, f.len);
        }
        nd_buf_release(&f);
    } else if (*ref && truthy(json_object_get(history, ref))) {
        /* a cycle: nothing */
    } else if (truthy(props) && truthy(sub)) {
        if (n == 1) {
            nd_buf_addf(out, "FIELD: %s <", path[0]);
            type_guess(e, sub, out);
            nd_buf_adds(out, ">\n");
            extract_enum(sub, true, -1, 0, out);
            nd_buf_adds(out, "\n\n");
        }
        json_t *fresh = json_object();
        output(e, sub, fresh, path + 1, n - 1, out);
        json_decref(fresh);
    } else if (truthy(json_object_get(r, "items"))) {
        output(e, json_object_get(r, "items"), next, path, n, out);
    } else if (addl(r)) {
        output(e, addl(r), next, path, n, out);
    } else {
        size_t i;
        const json_t *a;
        json_array_foreach(json_object_get(r, "allOf"), i, a)
        {
            struct nd_buf t = ND_BUF_INIT;
            output(e, a, next, path, n, &t);
            bool done = t.len > 0;
            nd_buf_add(out, t.data, t.len);
            nd_buf_release(&t);
            if (done)
                break;
        }
    }
    json_decref(next);
}

/* ---- the whole explanation ---- */

/* Go's %v of the GVK map: map[group:nodus.dev kind:Job version:v1] (keys sorted). */
static void add_map(struct nd_buf *out, const json_t *m)
{
    size_t k;
    const char **keys = nd_json_sorted_keys(m, &k);
    nd_buf_adds(out, "map[");
    for (size_t i = 0; i < k; i++) {
        nd_buf_addf(out, "%s%s:", i ? " " : "", keys[i]);
        add_value(out, json_object_get(m, keys[i]));
    }
    nd_buf_addch(out, ']');
    free(keys);
}

static bool contains(const json_t *list, const json_t *value)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
    {
        if (json_equal((json_t *)v, (json_t *)value))
            return true;
    }
    return false;
}

/* A field that is not there: `field "resourcez" does not exist`, with the fields it may
 * have meant as the fix (did you mean resources?) when there are any. path is followed
 * (through items, maps and allOf, as output does) to the name it has no field for. */
static int no_field(const struct ex *e, const json_t *schema, char **path, size_t n,
                    struct nd_status *st)
{
    const json_t *r = resolved(e, schema), *next;
    size_t at = 0;
    for (int hops = 0; at < n && hops < 64; hops++, r = resolved(e, next)) { /* refs cycle */
        if (truthy(next = json_object_get(json_object_get(r, "properties"), path[at])))
            at++;
        else if (!truthy(next = json_object_get(r, "items")) && !(next = addl(r)) &&
                 !(next = json_array_get(json_object_get(r, "allOf"), 0)))
            break;
    }
    at = at < n ? at : n - 1;
    nd_status_set(st, "Usage", NULL, "field \"%s\" does not exist", path[n - 1]);
    struct nd_suggest sg;
    nd_suggest_init_strict(&sg, path[at]);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(r, "properties"), key, v) nd_suggest_add(&sg, key, NULL);
    struct nd_buf b = ND_BUF_INIT, where = ND_BUF_INIT;
    for (size_t i = 0; i < at; i++)
        nd_buf_addf(&where, ".%s", path[i]);
    if (nd_suggest_join(&sg, "", "", &b)) /* else kubectl's line alone */
        nd_status_set_fix(st, "did you mean %s? list the fields: nodus explain %s%s", b.data,
                          e->resource, where.data);
    nd_buf_release(&b);
    nd_buf_release(&where);
    nd_suggest_release(&sg);
    return -1;
}

/* The explanation of g's path in doc, as kubectl's plaintext template renders it.
 * -1 with st (Usage) as kubectl fails: GVR not in the document, GVK without a schema,
 * a field that is not there (named as kubectl names it: the last of the path). */
static int render(const json_t *doc, const struct nd_resource_ref *g, bool recursive,
                  struct nd_buf *out, struct nd_status *st)
{
    char **path = g->fields;
    size_t n = g->nfields;
    struct ex e = {.doc = doc, .recursive = recursive, .resource = g->resource};
    const json_t *paths = json_object_get(doc, "paths");
    char *prefix = *g->group ? nd_xasprintf("/apis/%s", g->group) : nd_xstrdup("/api");
    char *search[4] = {
        nd_xasprintf("%s/%s/%s", prefix, g->version, g->resource),
        nd_xasprintf("%s/%s/%s/{name}", prefix, g->version, g->resource),
        nd_xasprintf("%s/%s/namespaces/{namespace}/%s", prefix, g->version, g->resource),
        nd_xasprintf("%s/%s/namespaces/{namespace}/%s/{name}", prefix, g->version, g->resource),
    };
    static const char *const methods[] = {"get", "post", "put", "patch", "delete"};
    const json_t *gvk = NULL;
    /* As the template: every operation found assigns the variable, so the last one
     * found decides (they agree in any sane document). */
    for (size_t i = 0; i < 4; i++) {
        const json_t *item = json_object_get(paths, search[i]);
        if (!truthy(item))
            continue;
        for (size_t m = 0; m < 5; m++) {
            const json_t *op = json_object_get(item, methods[m]);
            if (!truthy(op))
                continue;
            gvk = json_object_get(op, "x-kubernetes-group-version-kind");
            if (truthy(gvk))
                break;
        }
    }
    for (size_t i = 0; i < 4; i++)
        free(search[i]);
    free(prefix);
    if (!truthy(gvk))
        return nd_status_set(st, "Usage", "list the kinds: nodus api-resources",
                             "GVR (%s/%s, Resource=%s) not found in OpenAPI schema", g->group,
                             g->version, g->resource);
    struct nd_buf body = ND_BUF_INIT;
    const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    size_t k;
    const char **names = nd_json_sorted_keys(schemas, &k);
    bool found = false;
    const json_t *top = NULL;
    for (size_t i = 0; i < k && !found; i++) {
        const json_t *s = json_object_get(schemas, names[i]);
        if (!contains(json_object_get(s, "x-kubernetes-group-version-kind"), gvk))
            continue;
        found = true;
        top = s;
        output(&e, s, NULL, path, n, &body);
    }
    free(names);
    int rc = -1;
    if (!found) {
        struct nd_buf m = ND_BUF_INIT;
        add_map(&m, gvk);
        nd_status_set(st, "Usage", NULL, "GVK %s not found in OpenAPI schema", m.data);
        nd_buf_release(&m);
    } else if (!body.len) {
        no_field(&e, top, path, n, st);
    } else if (e.failed) {
        nd_status_set(st, "Usage", NULL, "expected schema argument to subtemplate 'typeguess'");
    } else {
        const json_t *group = json_object_get(gvk, "group");
        if (truthy(group)) {
            nd_buf_adds(out, "GROUP:      ");
            add_value(out, group);
            nd_buf_addch(out, '\n');
        }
        nd_buf_adds(out, "KIND:       ");
        add_value(out, json_object_get(gvk, "kind"));
        nd_buf_adds(out, "\nVERSION:    ");
        add_value(out, json_object_get(gvk, "version"));
        nd_buf_adds(out, "\n\n");
        nd_buf_add(out, body.data, body.len);
        nd_buf_addch(out, '\n');
        rc = 0;
    }
    nd_buf_release(&body);
    return rc;
}

/* ---- the document ---- */

/* Go's schema.ParseGroupVersion: "v1" is the core group, "g/v" a group, more slashes an
 * error. */
static int parse_group_version(const char *s, struct nd_resource_ref *g, struct nd_status *st)
{
    const char *slash = strchr(s, '/');
    if (!*s || !strcmp(s, "/")) {
        free(g->group);
        free(g->version);
        g->group = nd_xstrdup("");
        g->version = nd_xstrdup("");
        return 0;
    }
    if (slash && strchr(slash + 1, '/'))
        return nd_status_set(st, "Usage", NULL, "unexpected GroupVersion string: %s", s);
    free(g->group);
    free(g->version);
    g->group = slash ? nd_xstrndup(s, (size_t)(slash - s)) : nd_xstrdup("");
    g->version = nd_xstrdup(slash ? slash + 1 : s);
    return 0;
}

static bool unreachable(const struct nd_status *st)
{
    return nd_status_is(st, ND_REASON_UNREACHABLE) || nd_status_is(st, ND_REASON_TIMEOUT);
}

static int no_document(const struct nd_resource_ref *g, struct nd_status *st)
{
    return nd_status_set(st, "Usage", "list the API versions: nodus api-versions",
                         "couldn't find resource for \"%s/%s, Resource=%s\"", g->group, g->version,
                         g->resource);
}

/* The built-in document of g's group version. NEW, or NULL with st. */
static json_t *builtin_document(const struct nd_resource_ref *g, struct nd_status *st)
{
    json_t *doc = NULL;
    if (!strcmp(g->group, "nodus.dev") && !strcmp(g->version, "v1"))
        doc = nd_openapi_v3_group();
    else if (!*g->group && !strcmp(g->version, "v1"))
        doc = nd_openapi_v3_core();
    else
        no_document(g, st);
    if (!doc && !nd_status_failed(st))
        nd_status_set(st, "InternalError", NULL, "the built-in schemas are broken");
    return doc;
}

/* The OpenAPI v3 document of g's group version from the server (through the discovery
 * cache), or the built-in one when the server cannot be reached or serves no OpenAPI
 * v3 (*offline is then set). NEW, or NULL with st. */
static json_t *document(struct nd_ctx *ctx, const struct nd_resource_ref *g, bool *offline,
                        struct nd_status *st)
{
    json_t *root = NULL, *doc = NULL;
    struct nd_status dst = ND_STATUS_INIT;
    if (*offline)
        return builtin_document(g, st);
    if (nd_discovery_get_flags(ctx, "/openapi/v3", ND_DISCOVERY_NO_RETRY, &root, &dst) < 0) {
        if (!unreachable(&dst) && dst.code != 404) {
            nd_status_move(st, &dst);
            return NULL;
        }
        nd_log(2, "no OpenAPI v3 from the server (%s): explaining the built-in schemas",
               dst.message);
        nd_status_release(&dst);
        *offline = true;
        return builtin_document(g, st);
    }
    char *key = *g->group ? nd_xasprintf("apis/%s/%s", g->group, g->version)
                          : nd_xasprintf("api/%s", g->version);
    const json_t *entry = json_object_get(json_object_get(root, "paths"), key);
    const char *url = json_string_value(json_object_get(entry, "serverRelativeURL"));
    if (!entry)
        no_document(g, st);
    else if (!url || url[0] != '/')
        nd_status_set(st, "InternalError", NULL,
                      "malformed answer from the server to GET /openapi/v3: paths[\"%s\"] has "
                      "no serverRelativeURL",
                      key);
    else if (nd_discovery_get(ctx, url, &doc, st) < 0)
        doc = NULL;
    free(key);
    json_decref(root);
    return doc;
}

int cmd_explain(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct explain_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT, dst = ND_STATUS_INIT;
    struct nd_buf out = ND_BUF_INIT;
    struct nd_resource_ref g = {0};
    json_t *resources = NULL, *doc = NULL;
    bool offline = false;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos == 0) {
        rc = nd_cli_usage(ctx, "You must specify the type of resource to explain. Use \"nodus "
                               "api-resources\" for a complete list of supported resources.");
        goto out;
    }
    if (o.npos > 1) {
        rc = nd_cli_usage(ctx, "We accept only this format: explain RESOURCE");
        goto out;
    }
    const char *fmt = opt.output;
    if (fmt && strcmp(fmt, "plaintext") != 0) {
        rc = nd_cli_usage(ctx, "unsupported output format: %s (only plaintext)", fmt);
        goto out;
    }
    /* A broken configuration is an error; no server at all is not: the built-in
     * schemas answer (nothing names a server: no flag, no NODUS_SERVER, no context). */
    struct nd_config *cfg = nd_ctx_config(ctx, &st);
    if (!cfg) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *env = getenv("NODUS_SERVER");
    if (!(ctx->server && *ctx->server) && !(env && *env) && !(ctx->context && *ctx->context) &&
        !nd_config_current_context(cfg)) {
        nd_log(2, "no server configured: explaining the built-in schemas");
        offline = true;
    } else if (!nd_ctx_client(ctx, &st)) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    } else if (!(resources = nd_discovery_resources(ctx, ND_DISCOVERY_NO_RETRY, &dst))) {
        if (!unreachable(&dst)) {
            rc = nd_cli_error(ctx, &dst);
            goto out;
        }
        nd_log(2, "the server cannot be reached (%s): explaining the built-in schemas",
               dst.message);
        offline = true;
    }
    if (offline)
        resources = nd_discovery_builtin_resources();
    const char *api_version = opt.api_version;
    bool plain = api_version && *api_version;
    if (nd_discovery_resolve(resources, o.pos[0], plain, &g, &st) < 0 ||
        (plain && parse_group_version(api_version, &g, &st) < 0) ||
        !(doc = document(ctx, &g, &offline, &st)) ||
        render(doc, &g, opt.recursive, &out, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    nd_out(&out);
out:
    nd_resource_ref_release(&g);
    json_decref(doc);
    json_decref(resources);
    nd_buf_release(&out);
    nd_status_release(&dst);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
