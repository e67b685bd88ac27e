/* nodus describe: a readable summary of objects: who and what they are, their state,
 * phase and cost, spec and status, conditions, owner and owned objects, recent Events. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "print/print.h"
#include "resolve.h"
#include "util/money.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/term.h"
#include "util/xmalloc.h"
#include "write.h"

struct describe_opts {
    const char *selector;
    bool show_events;
    bool show_events_given;
};

#define TO(f) ND_TO(struct describe_opts, f)
const struct nd_flag cmd_describe_flags[] = {
    {"selector", 'l', ND_STRING, "SELECTOR", "describe the objects matching a selector", NULL,
     TO(selector)},
    {"show-events", 0, ND_BOOL, NULL, "show recent Events (default true)", NULL, TO(show_events),
     TO(show_events_given)},
    ND_FLAGS_END(struct describe_opts),
};

/* How long ago ts was, on the server's clock (now: nd_ctx_now), as kubectl's ages. */
static void age(const char *ts, int64_t now, struct nd_buf *out)
{
    int64_t t;
    struct nd_status st = ND_STATUS_INIT;
    if (ts && nd_time_parse(ts, &t, &st) == 0)
        nd_human_age(now - t, out);
    else
        nd_buf_adds(out, "<unknown>");
    nd_status_release(&st);
}

/* A describe table (Conditions, Events): each column but the last as wide as its
 * minimum or its widest cell, whichever is more, plus a space, so a long reason or age
 * never shifts the columns after it. rows: arrays of ncols strings. */
static void grid(const char *const *heads, const int *min, size_t ncols, const json_t *rows,
                 struct nd_buf *out)
{
    size_t width[8] = {0};
    for (size_t c = 0; c + 1 < ncols; c++) {
        width[c] = (size_t)min[c];
        size_t i;
        json_t *r;
        json_array_foreach(rows, i, r) {
            size_t w = nd_print_width(json_string_value(json_array_get(r, c)));
            if (w > width[c])
                width[c] = w;
        }
    }
    for (int line = -2; line < (int)json_array_size(rows); line++) {
        const json_t *r = line >= 0 ? json_array_get(rows, (size_t)line) : NULL;
        nd_buf_adds(out, " ");
        for (size_t c = 0; c < ncols; c++) {
            const char *cell = line == -2 ? heads[c] : json_string_value(json_array_get(r, c));
            struct nd_buf dash = ND_BUF_INIT;
            if (line == -1) {
                for (const char *h = heads[c]; *h; h++)
                    nd_buf_addch(&dash, '-');
                cell = dash.data;
            }
            nd_buf_addf(out, " %s", cell ? cell : "");
            if (c + 1 < ncols) {
                size_t w = nd_print_width(cell ? cell : "");
                nd_buf_addf(out, "%*s", (int)(width[c] - w), "");
            }
            nd_buf_release(&dash);
        }
        nd_buf_addch(out, '\n');
    }
}

/* "maxCostUSD" -> "Max Cost USD", as kubectl's generic describer titles fields. */
static void title(const char *key, struct nd_buf *out)
{
    for (size_t i = 0; key[i]; i++) {
        char c = key[i];
        if (i == 0) {
            nd_buf_addch(out, (char)toupper((unsigned char)c));
            continue;
        }
        bool up = isupper((unsigned char)c);
        bool prev_up = isupper((unsigned char)key[i - 1]);
        bool next_low = key[i + 1] && islower((unsigned char)key[i + 1]);
        if (up && (!prev_up || next_low))
            nd_buf_addch(out, ' ');
        nd_buf_addch(out, c);
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* A field's value as a person reads it: an integer time in milliseconds since the epoch
 * (a key ending in Time, At or Timestamp) as RFC 3339, an integer duration in
 * milliseconds (a key ending in Ms) as "1h30m", a byte count past a kibibyte (a key
 * ending in Bytes) with its binary units. Returns false for any other value. */
static bool readable(const char *key, const json_t *v, struct nd_buf *out)
{
    if (!key || !json_is_integer(v))
        return false;
    json_int_t n = json_integer_value(v);
    if ((ends_with(key, "Time") || ends_with(key, "At") || ends_with(key, "Timestamp")) &&
        n >= 100000000000LL)
        return nd_time_format((int64_t)(n / 1000), out) == 0;
    if (ends_with(key, "Ms") && n >= 0)
        return nd_duration_format((int64_t)n, out) == 0;
    if ((ends_with(key, "Bytes") || !strcmp(key, "bytes")) && n >= 1024) {
        nd_buf_addf(out, "%lld (", (long long)n);
        nd_quantity_format_bytes((int64_t)n, out);
        nd_buf_addch(out, ')');
        return true;
    }
    return false;
}

static void scalar(const json_t *v, struct nd_buf *out)
{
    if (json_is_string(v))
        nd_buf_adds(out, json_string_value(v));
    else if (json_is_integer(v))
        nd_buf_addf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        nd_buf_addf(out, "%g", json_real_value(v));
    else if (json_is_true(v))
        nd_buf_adds(out, "true");
    else if (json_is_false(v))
        nd_buf_adds(out, "false");
    else
        nd_buf_adds(out, "<none>");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *str(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "<none>";
}

/* A cell of a describe table: the string, or nothing. */
static const char *text(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

static bool is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

/* A map as aligned "Key:  value" lines, nested maps and lists indented below. */
static void tree(const json_t *v, int indent, struct nd_buf *out)
{
    size_t width = 0;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val) {
        struct nd_buf t = ND_BUF_INIT;
        title(key, &t);
        if (t.len + 1 > width)
            width = t.len + 1;
        nd_buf_release(&t);
    }
    json_object_foreach((json_t *)v, key, val) {
        struct nd_buf t = ND_BUF_INIT;
        title(key, &t);
        nd_buf_addch(&t, ':');
        if (is_scalar(val)) {
            nd_buf_addf(out, "%*s%-*s  ", indent, "", (int)width, t.data);
            if (!readable(key, val, out))
                scalar(val, out);
            nd_buf_addch(out, '\n');
        } else if (json_is_array(val) && json_array_size(val) == 0) {
            nd_buf_addf(out, "%*s%-*s  <none>\n", indent, "", (int)width, t.data);
        } else if (json_is_array(val)) {
            nd_buf_addf(out, "%*s%s\n", indent, "", t.data);
            size_t i;
            json_t *item;
            json_array_foreach(val, i, item) {
                if (is_scalar(item)) {
                    nd_buf_addf(out, "%*s", indent + 2, "");
                    scalar(item, out);
                    nd_buf_addch(out, '\n');
                } else if (json_is_object(item)) {
                    tree(item, indent + 2, out);
                }
            }
        } else if (json_object_size(val) == 0) {
            nd_buf_addf(out, "%*s%-*s  <none>\n", indent, "", (int)width, t.data);
        } else {
            nd_buf_addf(out, "%*s%s\n", indent, "", t.data);
            tree(val, indent + 2, out);
        }
        nd_buf_release(&t);
    }
}

/* Labels and annotations, one `key=value` per line sorted by key (as kubectl). */
static void map_line(const char *label, const json_t *m, struct nd_buf *out)
{
    size_t n = json_object_size(m);
    if (!n) {
        nd_buf_addf(out, "%s\t<none>\n", label);
        return;
    }
    const char **keys = nd_xmalloc(n * sizeof *keys);
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)m, k, v) keys[i++] = k;
    qsort(keys, n, sizeof *keys, cmp_str);
    for (i = 0; i < n; i++) {
        v = json_object_get(m, keys[i]);
        nd_buf_addf(out, "%s\t%s=%s\n", i == 0 ? label : "", keys[i],
                    json_is_string(v) ? json_string_value(v) : "");
    }
    free(keys);
}

/* Aligns a block of `label\tvalue` lines as kubectl's tabwriter (padding 2): every value
 * starts two columns after the widest label. Lines without a tab are copied. */
static void align(const struct nd_buf *block, struct nd_buf *out)
{
    size_t width = 0;
    const char *p = block->data;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *tab = memchr(p, '\t', n);
        if (tab && (size_t)(tab - p) > width)
            width = (size_t)(tab - p);
        p += n + (p[n] == '\n');
    }
    p = block->data;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *tab = memchr(p, '\t', n);
        if (tab) {
            size_t lw = (size_t)(tab - p);
            nd_buf_add(out, p, lw);
            nd_buf_addf(out, "%*s", (int)(width - lw + 2), "");
            nd_buf_add(out, tab + 1, n - lw - 1);
        } else {
            nd_buf_add(out, p, n);
        }
        nd_buf_addch(out, '\n');
        p += n + (p[n] == '\n');
    }
}

static void money_line(const char *label, const json_t *obj, const char *path_a,
                       const char *path_b, struct nd_buf *out)
{
    const json_t *status = json_object_get(obj, "status");
    const json_t *spec = json_object_get(obj, "spec");
    const char *a = json_string_value(json_object_get(status, path_a));
    const char *b = path_b ? json_string_value(json_object_get(spec, path_b)) : NULL;
    if (!a && !b)
        return;
    int64_t m;
    struct nd_status st = ND_STATUS_INIT;
    nd_buf_addf(out, "%s\t", label);
    if (a && nd_money_parse(a, &m, &st) == 0)
        nd_money_human(m, out);
    else
        nd_buf_adds(out, "$0.00");
    if (b && nd_money_parse(b, &m, &st) == 0) {
        nd_buf_adds(out, " of ");
        nd_money_human(m, out);
        nd_buf_adds(out, " max");
    }
    nd_buf_addch(out, '\n');
    nd_status_release(&st);
}

static void conditions(const json_t *obj, int64_t now, struct nd_buf *out)
{
    const json_t *conds = json_object_get(json_object_get(obj, "status"), "conditions");
    if (!json_array_size(conds))
        return;
    json_t *rows = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c) {
        struct nd_buf a = ND_BUF_INIT;
        age(json_string_value(json_object_get(c, "lastTransitionTime")), now, &a);
        json_array_append_new(rows, json_pack("[sssss]", text(json_object_get(c, "type")),
                                              text(json_object_get(c, "status")),
                                              text(json_object_get(c, "reason")), a.data,
                                              text(json_object_get(c, "message"))));
        nd_buf_release(&a);
    }
    static const char *const heads[] = {"Type", "Status", "Reason", "Age", "Message"};
    static const int min[] = {19, 7, 19, 6};
    nd_buf_adds(out, "Conditions:\n");
    grid(heads, min, 5, rows, out);
    json_decref(rows);
}

static void owned(struct nd_ctx *ctx, const json_t *obj, struct nd_buf *out)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (!uid || !ns)
        return;
    bool header = false;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        if (!nd_kind_is(k, ND_KIND_OWNED))
            continue;
        char kn[ND_KIND_NAME_MAX];
        nd_kind_display_name(k, kn, sizeof kn);
        struct nd_buf p = ND_BUF_INIT;
        nd_kind_path(k, ns, NULL, NULL, &p);
        json_t *answer = NULL;
        struct nd_status st = ND_STATUS_INIT;
        nd_call_get(ctx, p.data, &answer, &st);
        nd_status_release(&st);
        nd_buf_release(&p);
        json_t *list = answer ? nd_term_safe_json(answer, 0) : NULL;
        json_decref(answer);
        size_t j;
        json_t *item;
        json_array_foreach(json_object_get(list, "items"), j, item) {
            size_t r;
            json_t *ref;
            json_array_foreach(json_object_get(json_object_get(item, "metadata"),
                                               "ownerReferences"),
                               r, ref) {
                const char *ru = json_string_value(json_object_get(ref, "uid"));
                if (!ru || strcmp(ru, uid))
                    continue;
                const char *phase = json_string_value(
                    json_object_get(json_object_get(item, "status"), "phase"));
                if (!header)
                    nd_buf_adds(out, "Owns:\n");
                header = true;
                nd_buf_addf(
                    out, "  %s/%s (%s)\n", kn,
                    json_string_value(json_object_get(json_object_get(item, "metadata"), "name")),
                    phase ? phase : "-");
            }
        }
        json_decref(list);
    }
}

static void events(struct nd_ctx *ctx, const struct nd_kind *k, const json_t *obj,
                   struct nd_buf *out)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!ns || !name) {
        nd_buf_adds(out, "Events:        <none>\n");
        return;
    }
    struct nd_buf p = ND_BUF_INIT;
    nd_buf_adds(&p, "/api/v1/namespaces/");
    nd_buf_add_urlencoded(&p, ns);
    nd_buf_adds(&p, "/events?fieldSelector=");
    struct nd_buf sel = ND_BUF_INIT;
    nd_buf_addf(&sel, "involvedObject.name=%s,involvedObject.kind=%s", name, k->kind);
    nd_buf_add_urlencoded(&p, sel.data);
    nd_buf_release(&sel);
    json_t *answer = NULL;
    struct nd_status st = ND_STATUS_INIT;
    nd_call_get(ctx, p.data, &answer, &st);
    nd_status_release(&st);
    nd_buf_release(&p);
    /* one line per event: line breaks escaped too */
    json_t *list = answer ? nd_term_safe_json(answer, 0) : NULL;
    json_decref(answer);
    json_t *items = json_object_get(list, "items");
    if (!json_array_size(items)) {
        nd_buf_adds(out, "Events:        <none>\n");
        json_decref(list);
        return;
    }
    json_t *rows = json_array();
    int64_t now = nd_ctx_now(ctx);
    size_t n = json_array_size(items), from = n > 20 ? n - 20 : 0;
    for (size_t i = from; i < n; i++) {
        json_t *e = json_array_get(items, i);
        struct nd_buf a = ND_BUF_INIT;
        age(json_string_value(json_object_get(e, "lastTimestamp")), now, &a);
        json_array_append_new(
            rows, json_pack("[sssss]", text(json_object_get(e, "type")),
                            text(json_object_get(e, "reason")), a.data,
                            text(json_object_get(json_object_get(e, "source"), "component")),
                            text(json_object_get(e, "message"))));
        nd_buf_release(&a);
    }
    static const char *const heads[] = {"Type", "Reason", "Age", "From", "Message"};
    static const int min[] = {8, 15, 6, 7};
    nd_buf_adds(out, "Events:\n");
    grid(heads, min, 5, rows, out);
    json_decref(rows);
    json_decref(list);
}

/* What describe prints of a server's answer: its strings made safe for a terminal
 * (util/term.h); line breaks kept in messages and the spec and status trees, none in
 * metadata (a name or label with a line break would forge a line of the summary). NEW. */
static json_t *safe_answer(const json_t *v)
{
    json_t *safe = nd_term_safe_json(v, ND_TERM_KEEP_NL | ND_TERM_KEEP_TAB);
    const json_t *meta = json_object_get(v, "metadata");
    if (json_is_object(safe) && meta)
        json_object_set_new(safe, "metadata", nd_term_safe_json(meta, 0));
    return safe;
}

static void describe_one(struct nd_ctx *ctx, const struct nd_kind *k, const json_t *server_obj,
                         bool show_events, struct nd_buf *out)
{
    json_t *obj = safe_answer(server_obj);
    const json_t *meta = json_object_get(obj, "metadata");
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *status = json_object_get(obj, "status");
    /* the summary block: "Label:<tab>value" lines, aligned at the end */
    struct nd_buf h = ND_BUF_INIT;
    nd_buf_addf(&h, "Name:\t%s\n", str(json_object_get(meta, "name")));
    if (k->namespaced)
        nd_buf_addf(&h, "Project:\t%s\n", str(json_object_get(meta, "namespace")));
    nd_buf_addf(&h, "Kind:\t%s (%s)\n", k->kind, k->api_version);
    map_line("Labels:", json_object_get(meta, "labels"), &h);
    json_t *ann = json_deep_copy(json_object_get(meta, "annotations"));
    json_object_del(ann, "kubectl.kubernetes.io/last-applied-configuration");
    map_line("Annotations:", ann, &h);
    json_decref(ann);
    const char *created = json_string_value(json_object_get(meta, "creationTimestamp"));
    struct nd_buf a = ND_BUF_INIT;
    age(created, nd_ctx_now(ctx), &a);
    nd_buf_addf(&h, "Created:\t%s (%s ago)\n", created ? created : "<unknown>", a.data);
    nd_buf_release(&a);
    nd_buf_addf(&h, "UID:\t%s\n", str(json_object_get(meta, "uid")));
    const char *del = json_string_value(json_object_get(meta, "deletionTimestamp"));
    if (del)
        nd_buf_addf(&h, "Deleting since:\t%s\n", del);
    json_t *fins = json_object_get(meta, "finalizers");
    if (json_array_size(fins)) {
        nd_buf_adds(&h, "Finalizers:\t");
        size_t i;
        json_t *f;
        json_array_foreach(fins, i, f) nd_buf_addf(&h, "%s%s", i ? ", " : "", str(f));
        nd_buf_addch(&h, '\n');
    }
    /* as kubectl: the owner that controls the object (ownerReferences[].controller) */
    size_t i;
    json_t *ref;
    json_array_foreach(json_object_get(meta, "ownerReferences"), i, ref) {
        if (!json_is_true(json_object_get(ref, "controller")))
            continue;
        nd_buf_addf(&h, "Controlled By:\t%s/%s\n", str(json_object_get(ref, "kind")),
                    str(json_object_get(ref, "name")));
        break;
    }
    if (json_string_value(json_object_get(spec, "state")))
        nd_buf_addf(&h, "State:\t%s\n", json_string_value(json_object_get(spec, "state")));
    if (json_string_value(json_object_get(status, "phase")))
        nd_buf_addf(&h, "Phase:\t%s\n", json_string_value(json_object_get(status, "phase")));
    money_line("Cost:", obj, "costUSD", "maxCostUSD", &h);
    align(&h, out);
    nd_buf_release(&h);
    if (json_object_size(spec)) {
        nd_buf_adds(out, "Spec:\n");
        tree(spec, 2, out);
    }
    if (json_object_size(status)) {
        json_t *rest = json_deep_copy(status);
        json_object_del(rest, "conditions");
        json_object_del(rest, "simulation"); /* the emulator's bookkeeping */
        if (json_object_size(rest)) {
            nd_buf_adds(out, "Status:\n");
            tree(rest, 2, out);
        }
        json_decref(rest);
    }
    conditions(obj, nd_ctx_now(ctx), out);
    owned(ctx, obj, out);
    if (show_events)
        events(ctx, k, obj, out);
    json_decref(obj);
}

int cmd_describe(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct describe_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_res_list res = {0};
    int worst = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos == 0) {
        worst = nd_cli_usage(ctx, "You must specify the type of resource to describe. Use "
                                  "\"nodus api-resources\" for a complete list of supported "
                                  "resources.");
        goto out;
    }
    if (nd_resolve_args(o.npos, o.pos, &res, &st) < 0) {
        worst = nd_cli_error(ctx, &st);
        goto out;
    }
    bool show_events = !opt.show_events_given || opt.show_events;
    size_t shown = 0;
    for (size_t i = 0; i < res.n; i++) {
        const struct nd_kind *k = res.v[i].k;
        const char *ns = k->namespaced ? (ctx->all_projects ? NULL : nd_ctx_project(ctx)) : NULL;
        json_t *objs = json_array();
        if (res.by_name) {
            for (size_t j = 0; j < json_array_size(res.v[i].names); j++) {
                struct nd_buf p = ND_BUF_INIT;
                nd_kind_path(k, k->namespaced ? nd_ctx_project(ctx) : NULL,
                             json_string_value(json_array_get(res.v[i].names, j)), NULL, &p);
                json_t *obj = NULL;
                if (nd_call_get(ctx, p.data, &obj, &st) < 0) {
                    int c = nd_cli_error(ctx, &st);
                    if (!worst)
                        worst = c;
                    nd_status_release(&st);
                } else {
                    json_array_append_new(objs, obj);
                }
                nd_buf_release(&p);
            }
        } else {
            struct nd_buf p = ND_BUF_INIT;
            nd_kind_path(k, ns, NULL, NULL, &p);
            if (opt.selector) {
                nd_buf_adds(&p, "?labelSelector=");
                nd_buf_add_urlencoded(&p, opt.selector);
            }
            json_t *list = NULL;
            if (nd_call_get(ctx, p.data, &list, &st) < 0) {
                worst = nd_cli_error(ctx, &st);
                nd_status_release(&st);
            } else {
                json_array_extend(objs, json_object_get(list, "items"));
            }
            json_decref(list);
            nd_buf_release(&p);
        }
        size_t j;
        json_t *obj;
        json_array_foreach(objs, j, obj) {
            struct nd_buf out = ND_BUF_INIT;
            if (shown++)
                nd_buf_addch(&out, '\n');
            describe_one(ctx, k, obj, show_events, &out);
            nd_out(&out);
            fflush(stdout);
            nd_buf_release(&out);
        }
        json_decref(objs);
    }
    if (!shown && !worst && !res.by_name)
        fprintf(stderr, "No resources found in %s namespace.\n", nd_ctx_project(ctx));
out:
    nd_res_list_release(&res);
    nd_status_release(&st);
    nd_opts_release(&o);
    return worst;
}
