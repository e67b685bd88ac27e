/* columns.c: printer-column cells, rendered as a person reads them ($12.40, 5m, 1xH100). */
#include "kinds/registry.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/money.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* Every value the path selects, appended to out (an array). The paths of the table are
 * simple: `.a.b`, with `[*]` or `[N]` after a name. */
static void select_values(const json_t *v, const char *path, json_t *out)
{
    while (v && *path) {
        if (*path == '.') {
            path++;
            size_t n = strcspn(path, ".[");
            if (n == 0)
                break;
            char *key = nd_xstrndup(path, n);
            v = json_object_get(v, key);
            free(key);
            path += n;
        } else if (*path == '[') {
            const char *end = strchr(path, ']');
            if (!end)
                return;
            if (path[1] == '*') {
                size_t i;
                json_t *e;
                json_array_foreach(v, i, e) select_values(e, end + 1, out);
                return;
            }
            v = json_array_get(v, (size_t)strtoul(path + 1, NULL, 10));
            path = end + 1;
        } else {
            return;
        }
    }
    if (v && !json_is_null(v))
        json_array_append(out, (json_t *)v);
}

/* The single value at path, BORROWED (first of several). */
static const json_t *value_at(const json_t *obj, const char *path)
{
    json_t *all = json_array();
    select_values(obj, path, all);
    const json_t *v = json_array_get(all, 0);
    json_decref(all); /* v stays alive: obj holds it */
    return v;
}

static void add_scalar(struct nd_buf *out, const json_t *v)
{
    if (json_is_string(v)) {
        nd_buf_adds(out, json_string_value(v));
    } else if (json_is_integer(v)) {
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_real(v)) {
        nd_buf_addf(out, "%g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        nd_buf_adds(out, json_is_true(v) ? "true" : "false");
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        nd_buf_adds(out, s ? s : "");
        free(s);
    }
}

static void render_raw(const struct nd_column *c, const json_t *obj, struct nd_buf *out)
{
    json_t *all = json_array();
    select_values(obj, c->jsonpath, all);
    if (json_array_size(all) == 0)
        nd_buf_adds(out, "<none>");
    size_t i;
    json_t *v;
    json_array_foreach(all, i, v)
    {
        if (i)
            nd_buf_addch(out, ',');
        add_scalar(out, v);
    }
    json_decref(all);
}

/* The time an AGE cell counts from (v an RFC 3339 string), or ND_COLUMN_NO_TIME. */
static int64_t age_from(const json_t *v)
{
    struct nd_status st = ND_STATUS_INIT;
    int64_t t;
    if (!json_is_string(v) || nd_time_parse(json_string_value(v), &t, &st) < 0)
        t = ND_COLUMN_NO_TIME;
    nd_status_release(&st);
    return t;
}

void nd_column_render_age(int64_t from, int64_t now_unix, struct nd_buf *out)
{
    if (from == ND_COLUMN_NO_TIME)
        nd_buf_adds(out, "<unknown>");
    else
        nd_human_age(now_unix - from, out);
}

bool nd_column_age_from(const struct nd_column *c, const json_t *obj, int64_t *from)
{
    if (c->render != ND_RENDER_AGE)
        return false;
    *from = age_from(value_at(obj, c->jsonpath));
    return true;
}

static void render_money(const json_t *v, const char *suffix, struct nd_buf *out)
{
    struct nd_status st = ND_STATUS_INIT;
    int64_t micros;
    if (!v) {
        nd_buf_adds(out, "-");
    } else if (json_is_string(v) && nd_money_parse(json_string_value(v), &micros, &st) == 0) {
        nd_money_human(micros, out);
        nd_buf_adds(out, suffix);
    } else {
        add_scalar(out, v); /* not money: show what is there */
    }
    nd_status_release(&st);
}

static json_int_t int_of(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? json_integer_value(v) : 0;
}

static void render_gpu(const json_t *v, struct nd_buf *out)
{
    const char *model = json_string_value(json_object_get(v, "model"));
    json_int_t count = int_of(v, "count");
    if (model && count > 0)
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT "x%s", count, model);
    else
        nd_buf_adds(out, "-");
}

static void render_gpu_map(const json_t *v, struct nd_buf *out)
{
    size_t before = out->len;
    const char *model;
    json_t *n;
    json_object_foreach((json_t *)v, model, n)
    {
        if (!json_is_integer(n) || json_integer_value(n) <= 0)
            continue;
        if (out->len > before)
            nd_buf_addch(out, ',');
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT "x%s", json_integer_value(n), model);
    }
    if (out->len == before)
        nd_buf_adds(out, "-");
}

static void render_free_total(const json_t *v, struct nd_buf *out)
{
    json_int_t free_n = 0, total = 0;
    const char *model;
    json_t *counts;
    json_object_foreach((json_t *)v, model, counts)
    {
        free_n += int_of(counts, "free");
        total += int_of(counts, "total");
    }
    nd_buf_addf(out, "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, free_n, total);
}

static void render_bytes(const json_t *v, struct nd_buf *out)
{
    if (json_is_integer(v))
        nd_quantity_format_bytes(json_integer_value(v), out);
    else if (v)
        add_scalar(out, v);
    else
        nd_buf_adds(out, "-");
}

static void render_steps(const json_t *obj, const json_t *status_steps, struct nd_buf *out)
{
    size_t done = 0, i;
    json_t *s;
    json_array_foreach(status_steps, i, s)
    {
        const char *phase = json_string_value(json_object_get(s, "phase"));
        if (nd_phase_parse(phase) == ND_PHASE_SUCCEEDED)
            done++;
    }
    size_t total = json_array_size(value_at(obj, ".spec.steps"));
    if (total == 0)
        total = json_array_size(status_steps);
    nd_buf_addf(out, "%zu/%zu", done, total);
}

static void render_ref(const json_t *v, struct nd_buf *out)
{
    const char *kind = json_string_value(json_object_get(v, "kind"));
    const char *name = json_string_value(json_object_get(v, "name"));
    if (!kind || !name) {
        nd_buf_adds(out, "<none>");
        return;
    }
    for (const char *p = kind; *p; p++)
        nd_buf_addch(out, (char)tolower((unsigned char)*p));
    nd_buf_addf(out, "/%s", name);
}

int nd_column_render(const struct nd_column *c, const json_t *obj, int64_t now_unix,
                     struct nd_buf *out)
{
    const json_t *v = c->render == ND_RENDER_RAW || c->render == ND_RENDER_LIST
                          ? NULL
                          : value_at(obj, c->jsonpath);
    switch (c->render) {
    case ND_RENDER_RAW:
    case ND_RENDER_LIST:
        render_raw(c, obj, out);
        break;
    case ND_RENDER_AGE:
        nd_column_render_age(age_from(v), now_unix, out);
        break;
    case ND_RENDER_MONEY:
        render_money(v, "", out);
        break;
    case ND_RENDER_RATE:
        render_money(v, "/h", out);
        break;
    case ND_RENDER_GPU:
        render_gpu(v, out);
        break;
    case ND_RENDER_GPU_MAP:
        render_gpu_map(v, out);
        break;
    case ND_RENDER_GPUS_FREE_TOTAL:
        render_free_total(v, out);
        break;
    case ND_RENDER_PERCENT:
        if (json_is_number(v))
            nd_buf_addf(out, "%.0f%%", json_number_value(v));
        else
            nd_buf_adds(out, "-");
        break;
    case ND_RENDER_BYTES:
        render_bytes(v, out);
        break;
    case ND_RENDER_COUNT:
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT, json_is_integer(v) ? json_integer_value(v) : 0);
        break;
    case ND_RENDER_READY:
        nd_buf_addf(out, "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
                    int_of(v, "readyReplicas"), int_of(v, "replicas"));
        break;
    case ND_RENDER_STEPS:
        render_steps(obj, v, out);
        break;
    case ND_RENDER_OBJECT_REF:
        render_ref(v, out);
        break;
    }
    return out->overflow ? -1 : 0;
}

json_t *nd_column_definition(const struct nd_column *c)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", c->name, "type", c->type, "format",
                     c->format, "description", c->description, "priority", c->priority);
}
