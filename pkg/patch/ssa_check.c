/* ssa_check.c: checks of what clients send about ownership: field manager names,
 * metadata.managedFields, reset requests; the manager of a write without fieldManager. */
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "patch/ssa_int.h"
#include "util/buf.h"
#include "util/quote.h"
#include "util/time.h"
#include "util/validate.h"
#include "util/xmalloc.h"

#define MANAGER_MAX     128 /* apimachinery's FieldManagerMaxLength */
#define SUBRESOURCE_MAX 256 /* apimachinery's MaxSubresourceNameLength */

/* Appends one cause to an Invalid status (starting one when st holds something else) and
 * rebuilds the message the way util/validate.c does, so both can add to one status. */
static int add_cause(struct nd_status *st, const char *reason, const char *field, const char *msg)
{
    if (!nd_status_is(st, ND_REASON_INVALID) || nd_status_cause_count(st) == 0)
        nd_status_set(st, "Invalid", NULL, "%s", "");
    nd_status_add_cause(st, reason, field, "%s", msg);
    json_t *causes = json_object_get(nd_status_details(st), "causes");
    size_t n = json_array_size(causes), i;
    json_t *c;
    struct nd_buf b = ND_BUF_INIT;
    if (n > 1)
        nd_buf_addch(&b, '[');
    json_array_foreach(causes, i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        nd_buf_addf(&b, "%s%s%s%s", i ? ", " : "", f ? f : "", f ? ": " : "",
                    json_string_value(json_object_get(c, "message")));
    }
    if (n > 1)
        nd_buf_addch(&b, ']');
    free(st->message);
    st->message = nd_buf_detach(&b);
    return -1;
}

static int too_long(struct nd_status *st, const char *field, size_t max)
{
    char *msg = nd_xasprintf("Too long: may not be more than %zu bytes", max);
    add_cause(st, "FieldValueTooLong", field, msg);
    free(msg);
    return -1;
}

int nd_ssa_invalid_json(struct nd_status *st, const char *field, const json_t *v,
                        const char *detail)
{
    if (json_is_string(v))
        return nd_validate_invalid(st, field, json_string_value(v), detail);
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_addf(&b, "Invalid value: %.256s%s: %s", text ? text : "null",
                text && strlen(text) > 256 ? "..." : "", detail);
    add_cause(st, "FieldValueInvalid", field, b.data);
    nd_buf_release(&b);
    free(text);
    return -1;
}

static bool printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

static int check_manager(const char *manager, const char *field, bool required,
                         struct nd_status *st)
{
    if (!manager || !*manager)
        return required ? nd_validate_required(st, field, "is required for apply patch") : 0;
    int rc = 0;
    if (strlen(manager) > MANAGER_MAX)
        rc = too_long(st, field, MANAGER_MAX);
    if (!printable(manager))
        rc = nd_validate_invalid(st, field, manager, "invalid characters");
    return rc;
}

int nd_ssa_validate_manager(const char *manager, const char *field, struct nd_status *st)
{
    return check_manager(manager, field, true, st);
}

char *nd_ssa_manager_name(const char *field_manager, const char *user_agent)
{
    if (field_manager && *field_manager)
        return nd_xstrdup(field_manager);
    struct nd_buf b = ND_BUF_INIT;
    const unsigned char *p = (const unsigned char *)(user_agent ? user_agent : "");
    while (*p && *p != '/') {
        /* One UTF-8 sequence at a time, so a cut never splits one. */
        size_t n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc0 ? 2 : 0;
        size_t have = strnlen((const char *)p, n ? n : 1);
        if (n == 0 || have < n) { /* a stray byte: not a character */
            p++;
            continue;
        }
        if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
            p++;
            continue;
        }
        if (b.len + n > MANAGER_MAX)
            break;
        nd_buf_add(&b, p, n);
        p += n;
    }
    return nd_buf_detach(&b);
}

bool nd_ssa_reset_requested(const json_t *obj)
{
    const json_t *mf = nd_obj_get(obj, "metadata.managedFields");
    if (!json_is_array(mf) || json_array_size(mf) > 1)
        return false;
    if (json_array_size(mf) == 0)
        return true;
    const json_t *e = json_array_get(mf, 0);
    if (!json_is_object(e))
        return false;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)e, key, v)
    {
        if (!json_is_null(v) && !(json_is_string(v) && !*json_string_value(v)))
            return false;
    }
    return true;
}

/* The string member name of o; NULL when absent or null; a non-string is reported. */
static const char *str_member(const json_t *o, const char *name, const char *base,
                              struct nd_status *st, bool *bad)
{
    const json_t *v = json_object_get(o, name);
    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v))
        return json_string_value(v);
    char *field = nd_xasprintf("%s.%s", base, name);
    nd_ssa_invalid_json(st, field, v, "must be a string");
    free(field);
    *bad = true;
    return NULL;
}

/* Checks entry i; its identity (for duplicates) goes to ids. */
static void check_entry(const json_t *o, size_t i, json_t *ids, struct nd_status *st, bool *bad)
{
    char *base = nd_xasprintf("metadata.managedFields[%zu]", i), *field = NULL;
    if (!json_is_object(o)) {
        nd_ssa_invalid_json(st, base, o, "must be an object");
        *bad = true;
        goto out;
    }
    const char *manager = str_member(o, "manager", base, st, bad);
    const char *op = str_member(o, "operation", base, st, bad);
    const char *api_version = str_member(o, "apiVersion", base, st, bad);
    const char *time = str_member(o, "time", base, st, bad);
    const char *type = str_member(o, "fieldsType", base, st, bad);
    const char *sub = str_member(o, "subresource", base, st, bad);

#define FIELD(name) (free(field), field = nd_xasprintf("%s." name, base))
    if (check_manager(manager, FIELD("manager"), false, st) < 0)
        *bad = true;
    const json_t *opv = json_object_get(o, "operation");
    bool op_ok = op && (strcmp(op, "Apply") == 0 || strcmp(op, "Update") == 0);
    if (!op_ok && (!opv || json_is_string(opv) || json_is_null(opv))) {
        /* (an operation that is not a string was reported above) */
        nd_validate_invalid(st, FIELD("operation"), op ? op : "", "must be `Apply` or `Update`");
        *bad = true;
    }
    int64_t t;
    struct nd_status why = ND_STATUS_INIT;
    if (time && nd_time_parse(time, &t, &why) < 0) {
        nd_validate_invalid(st, FIELD("time"), time,
                            "must be an RFC 3339 time, e.g. \"2026-11-29T16:59:19Z\"");
        *bad = true;
    }
    nd_status_release(&why);
    if (type && *type && strcmp(type, "FieldsV1") != 0) {
        nd_validate_invalid(st, FIELD("fieldsType"), type, "must be `FieldsV1`");
        *bad = true;
    }
    if (sub && strlen(sub) > SUBRESOURCE_MAX) {
        too_long(st, FIELD("subresource"), SUBRESOURCE_MAX);
        *bad = true;
    }
    struct nd_fieldset *set =
        nd_fieldset_from_json(json_object_get(o, "fieldsV1"), FIELD("fieldsV1"), st);
    if (!set)
        *bad = true;
    nd_fieldset_free(set);
#undef FIELD

    if (op_ok) {
        bool update = strcmp(op, "Update") == 0;
        char *id = nd_xasprintf("%s\n%s\n%s\n%s", manager ? manager : "", op,
                                update && api_version ? api_version : "", sub ? sub : "");
        size_t j;
        json_t *seen;
        json_array_foreach(ids, j, seen)
        {
            if (strcmp(json_string_value(seen), id) == 0) {
                nd_validate_invalid(st, base, manager ? manager : "",
                                    update ? "another entry has the same manager, operation, "
                                             "apiVersion and subresource"
                                           : "another entry has the same manager, operation "
                                             "and subresource");
                *bad = true;
                break;
            }
        }
        json_array_append_new(ids, json_string(id));
        free(id);
    }
out:
    free(field);
    free(base);
}

int nd_ssa_validate_managed_fields(const json_t *mf, struct nd_status *st)
{
    if (!mf || json_is_null(mf))
        return 0;
    if (!json_is_array(mf))
        return nd_ssa_invalid_json(st, "metadata.managedFields", mf, "must be a list");
    json_t *holder = json_pack("{s:{s:O}}", "metadata", "managedFields", mf);
    bool reset = nd_ssa_reset_requested(holder);
    json_decref(holder);
    if (reset)
        return 0;
    bool bad = false;
    json_t *ids = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(mf, i, o) check_entry(o, i, ids, st, &bad);
    json_decref(ids);
    return bad ? -1 : 0;
}
