/* A request's headers and query as the handlers read them (http.h): JSON built from what
 * libmicrohttpd parsed, every value kept whatever its bytes. */
#include "http.h"

#include <stdlib.h>

#include "util/xmalloc.h"

/* A header value as a JSON string. One that is not UTF-8 keeps its ASCII and gets '?' for
 * every other byte: dropping it would hide an Origin or a Host from the front door. */
static json_t *header_string(const char *value)
{
    json_t *s = json_string(value);
    if (s)
        return s;
    char *copy = nd_xstrdup(value);
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    s = json_string(copy);
    free(copy);
    return s ? s : json_string("?");
}

void em_http_header_add(json_t *headers, const char *key, const char *value)
{
    char *lkey = nd_xstrdup(key);
    for (char *p = lkey; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    const char *old = json_string_value(json_object_get(headers, lkey));
    if (old) {
        char *joined = nd_xasprintf("%s, %s", old, value ? value : "");
        json_object_set_new(headers, lkey, header_string(joined));
        free(joined);
    } else {
        json_object_set_new(headers, lkey, header_string(value ? value : ""));
    }
    free(lkey);
}

void em_http_query_add(json_t *query, const char *key, const char *value)
{
    json_t *vals = json_object_get(query, key);
    /* A name that is not UTF-8 cannot be a key (jansson refuses it and frees vals), and
     * no handler knows one: leave the argument out. */
    if (!vals && json_object_set_new(query, key, vals = json_array()) < 0)
        return;
    /* A value that is not UTF-8 cannot be held by jansson; keep it empty, handlers
     * validate every value they use. */
    json_t *s = json_string(value ? value : "");
    json_array_append_new(vals, s ? s : json_string(""));
}

const char *em_req_query(const struct em_req *req, const char *name)
{
    json_t *vals = json_object_get(req->query, name);
    size_t n = json_array_size(vals);
    return n ? json_string_value(json_array_get(vals, n - 1)) : NULL;
}

const char *em_req_header(const struct em_req *req, const char *lname)
{
    return json_string_value(json_object_get(req->headers, lname));
}
