/* format.c: -o parsing and the printers that are not tables (json, yaml, name, jsonpath,
 * custom-columns), as kubectl's printers write them. */
#include "print/print.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "jsonpath/jsonpath.h"
#include "util/quote.h"
#include "util/term.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

/* What nodus supports, in kubectl's (sorted) order for the error message. */
#define ALLOWED_FORMATS                                                                            \
    "custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml"

void nd_print_opts_init(struct nd_print_opts *o)
{
    memset(o, 0, sizeof *o);
    o->output = ND_OUTPUT_TABLE;
}

static void release_format(struct nd_print_opts *o)
{
    free(o->file);
    free(o->template_text);
    nd_jsonpath_free(o->jsonpath);
    nd_custom_columns_free(o->columns);
    o->file = NULL;
    o->template_text = NULL;
    o->jsonpath = NULL;
    o->columns = NULL;
    o->output = ND_OUTPUT_TABLE;
}

void nd_print_opts_release(struct nd_print_opts *o)
{
    release_format(o);
}

bool nd_print_is_table(const struct nd_print_opts *opts)
{
    return opts->output == ND_OUTPUT_TABLE || opts->output == ND_OUTPUT_WIDE;
}

/* If o is `name` or `name=...`, returns what follows the '=' ("" for none), else NULL. */
static const char *format_value(const char *o, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(o, name, n) != 0)
        return NULL;
    if (o[n] == '\0')
        return "";
    if (o[n] == '=')
        return o + n + 1;
    return NULL;
}

static int set_jsonpath(struct nd_print_opts *opts, const char *tmpl, struct nd_status *st)
{
    struct nd_status pst = ND_STATUS_INIT;
    struct nd_jsonpath *jp = nd_jsonpath_parse(tmpl, &pst);
    if (!jp) {
        nd_status_set(st, "Usage", NULL, "error parsing jsonpath %s, %s", tmpl, pst.message);
        nd_status_release(&pst);
        return -1;
    }
    nd_status_release(&pst);
    opts->jsonpath = jp;
    opts->template_text = nd_xstrdup(tmpl);
    return 0;
}

int nd_print_parse_output(const char *o, struct nd_print_opts *opts, struct nd_status *st)
{
    const char *v;
    release_format(opts);
    if (!o || !*o)
        return 0;
    if (strcasecmp(o, "json") == 0) {
        opts->output = ND_OUTPUT_JSON;
    } else if (strcasecmp(o, "yaml") == 0) {
        opts->output = ND_OUTPUT_YAML;
    } else if (strcasecmp(o, "name") == 0) {
        opts->output = ND_OUTPUT_NAME;
    } else if (strcmp(o, "wide") == 0) {
        opts->output = ND_OUTPUT_WIDE;
    } else if ((v = format_value(o, "jsonpath")) || (v = format_value(o, "jsonpath-file"))) {
        if (!*v)
            return nd_status_set(st, "Usage", NULL,
                                 "template format specified but no template given");
        opts->output = ND_OUTPUT_JSONPATH;
        if (strncmp(o, "jsonpath-file", 13) == 0)
            opts->file = nd_xstrdup(v);
        else if (set_jsonpath(opts, v, st) < 0)
            goto fail;
    } else if ((v = format_value(o, "custom-columns")) ||
               (v = format_value(o, "custom-columns-file"))) {
        if (!*v)
            return nd_status_set(st, "Usage", NULL,
                                 "custom-columns format specified but no custom columns given");
        opts->output = ND_OUTPUT_CUSTOM_COLUMNS;
        if (strncmp(o, "custom-columns-file", 19) == 0)
            opts->file = nd_xstrdup(v);
        else if (!(opts->columns = nd_custom_columns_parse(v, st)))
            goto fail;
    } else {
        struct nd_buf q = ND_BUF_INIT;
        nd_quote(&q, o, ND_QUOTE_MAX);
        nd_status_set(st, "Usage", NULL,
                      "unable to match a printer suitable for the output format %s, allowed "
                      "formats are: " ALLOWED_FORMATS,
                      q.data);
        nd_buf_release(&q);
        return -1;
    }
    return 0;
fail:
    release_format(opts);
    return -1;
}

int nd_print_opts_load_file(struct nd_print_opts *opts, const char *text, size_t len,
                            struct nd_status *st)
{
    if (opts->output == ND_OUTPUT_JSONPATH && !opts->jsonpath) {
        char *tmpl = nd_xstrndup(text, len);
        int rc = set_jsonpath(opts, tmpl, st);
        free(tmpl);
        return rc;
    }
    if (opts->output == ND_OUTPUT_CUSTOM_COLUMNS && !opts->columns) {
        opts->columns = nd_custom_columns_parse_file(text, len, st);
        return opts->columns ? 0 : -1;
    }
    return nd_status_set(st, "Usage", NULL, "the output format reads no file");
}

int nd_print_opts_read_file(struct nd_print_opts *opts, struct nd_status *st)
{
    if (!opts->file)
        return 0;
    struct nd_buf b = ND_BUF_INIT;
    if (nd_buf_read_file(&b, opts->file) < 0) {
        int err = errno;
        nd_buf_release(&b);
        return nd_status_set(st, "Usage", NULL, "error reading %s %s, open %s: %s",
                             opts->output == ND_OUTPUT_JSONPATH ? "--template" : "template",
                             opts->file, opts->file, strerror(err));
    }
    int rc = nd_print_opts_load_file(opts, b.data, b.len, st);
    nd_buf_release(&b);
    return rc;
}

json_t *nd_print_list_new(const json_t *objects)
{
    json_t *items = json_array();
    size_t i;
    json_t *v;
    json_array_foreach((json_t *)objects, i, v) json_array_append(items, v);
    return json_pack("{s:s, s:o, s:s, s:{s:s}}", "apiVersion", "v1", "items", items, "kind", "List",
                     "metadata", "resourceVersion", "");
}

static bool is_list(const json_t *obj)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    size_t n = kind ? strlen(kind) : 0;
    return n >= 4 && strcmp(kind + n - 4, "List") == 0 &&
           json_is_array(json_object_get(obj, "items"));
}

int nd_print_name(const json_t *obj, const char *operation, struct nd_buf *out,
                  struct nd_status *st)
{
    if (is_list(obj)) {
        size_t start = out->len, i;
        json_t *item;
        json_array_foreach(json_object_get(obj, "items"), i, item)
        {
            if (nd_print_name(item, operation, out, st) < 0) {
                nd_buf_truncate(out, start);
                return -1;
            }
        }
        return 0;
    }
    const char *api = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    if (!name || !*name)
        name = "<unknown>";
    if ((!api || !*api) && (!kind || !*kind))
        return nd_status_set(st, "BadRequest", NULL, "missing apiVersion or kind");
    if (!kind || !*kind)
        return nd_status_set(st, "BadRequest", NULL, "missing kind for resource with name %s",
                             name);
    /* a server's strings, escaped for the terminal (no valid name has a control) */
    const char *slash = api ? strchr(api, '/') : NULL;
    struct nd_buf k = ND_BUF_INIT;
    for (const char *s = kind; *s; s++)
        nd_buf_addch(&k, (char)tolower((unsigned char)*s));
    nd_term_escape(out, k.data, k.len, 0);
    nd_buf_release(&k);
    if (slash && slash > api) {
        nd_buf_addch(out, '.');
        nd_term_escape(out, api, (size_t)(slash - api), 0);
    }
    nd_buf_addch(out, '/');
    nd_term_escape(out, name, strlen(name), 0);
    if (operation && *operation)
        nd_buf_addf(out, " %s", operation);
    nd_buf_addch(out, '\n');
    return 0;
}

static int print_custom(const json_t *objects, const struct nd_print_opts *opts, struct nd_buf *out,
                        struct nd_status *st)
{
    struct nd_table t;
    nd_table_init(&t);
    nd_custom_columns_table(opts->columns, opts->no_headers, &t);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < json_array_size(objects); i++)
        rc = nd_custom_columns_add_row(opts->columns, json_array_get(objects, i), &t, st);
    if (rc == 0 && nd_table_render(&t, out) < 0)
        rc = nd_status_set(st, "InternalError", NULL, "output too large");
    nd_table_release(&t);
    return rc;
}

static int print_jsonpath(const json_t *v, const struct nd_print_opts *opts, struct nd_buf *out,
                          struct nd_status *st)
{
    struct nd_status est = ND_STATUS_INIT;
    if (nd_jsonpath_execute(opts->jsonpath, v, true, out, &est) == 0)
        return 0;
    struct nd_buf q = ND_BUF_INIT;
    nd_quote(&q, opts->template_text, 0);
    nd_status_set(st, "BadRequest", NULL,
                  "error executing jsonpath %s: Error executing template: %s", q.data, est.message);
    nd_buf_release(&q);
    nd_status_release(&est);
    return -1;
}

int nd_print_objects(const json_t *objects, bool single, const struct nd_print_opts *opts,
                     struct nd_buf *out, struct nd_status *st)
{
    if (!json_is_array(objects))
        return nd_status_set(st, "BadRequest", NULL, "nothing to print: not a list of objects");
    if (opts->output == ND_OUTPUT_NAME) {
        size_t start = out->len, i;
        json_t *obj;
        json_array_foreach((json_t *)objects, i, obj)
        {
            if (nd_print_name(obj, NULL, out, st) < 0) {
                nd_buf_truncate(out, start);
                return -1;
            }
        }
        return 0;
    }
    if (opts->output == ND_OUTPUT_CUSTOM_COLUMNS && opts->columns)
        return print_custom(objects, opts, out, st);
    if (opts->output == ND_OUTPUT_CUSTOM_COLUMNS)
        return nd_status_set(st, "Usage", NULL, "the custom-columns template was not loaded");
    if (opts->output == ND_OUTPUT_JSONPATH && !opts->jsonpath)
        return nd_status_set(st, "Usage", NULL, "the jsonpath template was not loaded");
    if (opts->output != ND_OUTPUT_JSON && opts->output != ND_OUTPUT_YAML &&
        opts->output != ND_OUTPUT_JSONPATH)
        return nd_status_set(st, "Usage", NULL, "this output format prints tables");

    json_t *v = single && json_array_size(objects) == 1 ? json_incref(json_array_get(objects, 0))
                                                        : nd_print_list_new(objects);
    size_t start = out->len;
    int rc = 0;
    if (opts->output == ND_OUTPUT_JSON) {
        if (nd_json_dump(v, out, ND_JSON_PRETTY | ND_JSON_SORT_KEYS | ND_JSON_ESCAPE_HTML) < 0 ||
            nd_buf_addch(out, '\n') < 0)
            rc = nd_status_set(st, "InternalError", NULL,
                               "cannot print the object as JSON (a number that is not finite, "
                               "or output too large)");
    } else if (opts->output == ND_OUTPUT_YAML) {
        rc = nd_yaml_dump_flags(v, out, ND_YAML_SORT_KEYS, st);
    } else {
        rc = print_jsonpath(v, opts, out, st);
    }
    if (rc < 0)
        nd_buf_truncate(out, start);
    json_decref(v);
    return rc;
}
