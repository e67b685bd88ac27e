/* Query parameters every API request is checked for before a handler runs, and the
 * resourceVersion parameter of get, list and watch. */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "query.h"
#include "util/xmalloc.h"

struct query_check {
    struct nd_status *st;
    int rc;
};

/* One argument as the client sent it (MHD gives its decoded length, so a "%00" inside is
 * seen, which the NUL-terminated copy in req->query cannot show). */
static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    struct query_check *c = cls;
    const char *name = key ? key : "";
    json_t *text = NULL;
    if (key_size > EM_MAX_QUERY_NAME) {
        c->rc = nd_status_set(c->st, "BadRequest", "remove the parameter",
                              "a query parameter name is %zu bytes, more than the limit of %d",
                              key_size, EM_MAX_QUERY_NAME);
    } else if (memchr(name, '\0', key_size)) {
        c->rc = nd_status_set(c->st, "BadRequest", "remove the parameter",
                              "a query parameter name holds a NUL character (%%00)");
    } else if (!value) {
        return MHD_YES;
    } else if (value_size > EM_MAX_QUERY_VALUE) {
        c->rc = nd_status_set(c->st, "BadRequest", "send a shorter value",
                              "query parameter %s: the value is %zu bytes, more than the limit "
                              "of %d",
                              name, value_size, EM_MAX_QUERY_VALUE);
    } else if (memchr(value, '\0', value_size)) {
        c->rc = nd_status_set(c->st, "BadRequest", "remove the %00 from the value",
                              "query parameter %s: the value holds a NUL character (%%00)", name);
    } else if (!(text = json_stringn(value, value_size))) {
        c->rc = nd_status_set(c->st, "BadRequest", "send the value as UTF-8, percent-encoded",
                              "query parameter %s: the value is not valid UTF-8", name);
    }
    json_decref(text);
    return c->rc < 0 ? MHD_NO : MHD_YES;
}

int em_api_check_query(struct em_api *a)
{
    struct query_check c = {&a->st, 0};
    if (a->req->conn)
        MHD_get_connection_values_n(a->req->conn, MHD_GET_ARGUMENT_KIND, check_arg, &c);
    return c.rc;
}

int em_api_query_rv(struct em_api *a, int64_t *rv)
{
    const char *s = em_req_query(a->req, "resourceVersion");
    *rv = -1;
    if (!s || !*s)
        return 0;
    /* Go's strconv.ParseUint(s, 10, 64), as kube-apiserver parses it, and its words */
    const char *why = NULL;
    uint64_t v = 0;
    for (const char *c = s; *c && !why; c++) {
        if (*c < '0' || *c > '9')
            why = "invalid syntax";
        else if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
            why = "value out of range";
        else
            v = v * 10 + (uint64_t)(*c - '0');
    }
    if (!why && v > INT64_MAX)
        why = "value out of range"; /* revisions of this server are int64 */
    if (why)
        return nd_status_set(&a->st, "BadRequest",
                             "use the resourceVersion of an object or a list, or leave it out",
                             "resourceVersion: Invalid value: \"%s\": strconv.ParseUint: parsing "
                             "\"%s\": %s",
                             s, s, why);
    *rv = (int64_t)v;
    return 0;
}

int em_parse_bool(const char *v, bool *out)
{
    return em_query_parse_bool(v, out);
}

int em_api_query_bool(struct em_api *a, const char *name, bool *out)
{
    const char *v = em_req_query(a->req, name);
    if (em_query_parse_bool(v, out) == 0)
        return 0;
    return nd_status_set(&a->st, "BadRequest", "use true or false",
                         "invalid value for query parameter %s: \"%s\" (want true or false)", name,
                         v);
}

int em_api_query_int(struct em_api *a, const char *name, int64_t *out, bool *given)
{
    const char *v = em_req_query(a->req, name);
    const char *why;
    int64_t n;
    *given = v && *v;
    if (!*given)
        return 0;
    if (em_query_parse_int64(v, &n, &why) == 0)
        return (*out = n), 0;
    return nd_status_set(&a->st, "BadRequest", NULL,
                         "invalid value for query parameter %s: \"%s\" (want a whole number: "
                         "strconv.ParseInt: %s)",
                         name, v, why);
}

void em_api_pretty(struct em_api *a)
{
    /* pretty=true: the JSON answer indented by two spaces, as kube-apiserver's
     * json.MarshalIndent; streams (watch, logs) and other types stay as they are */
    bool pretty;
    const char *ct = a->resp->content_type;
    if (em_query_parse_bool(em_req_query(a->req, "pretty"), &pretty) < 0 || !pretty ||
        a->resp->stream || !a->resp->body.len || (ct && strcmp(ct, "application/json") != 0))
        return;
    json_t *v = json_loadb(a->resp->body.data, a->resp->body.len, JSON_DECODE_ANY, NULL);
    char *text = v ? json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY) : NULL;
    if (text) {
        nd_buf_reset(&a->resp->body);
        nd_buf_adds(&a->resp->body, text);
        nd_buf_addch(&a->resp->body, '\n');
    }
    free(text);
    json_decref(v);
}
