/* The answer a handler fills (struct em_resp, http.h): status, headers, body, type.
 * http.c sends it. */
#include "http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/xmalloc.h"

void em_resp_init(struct em_resp *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->code = 200;
    nd_buf_init(&resp->body, 0);
    resp->headers = json_object();
}

void em_resp_release(struct em_resp *resp)
{
    nd_buf_release(&resp->body);
    free(resp->content_type);
    json_decref(resp->headers);
    if (resp->stream) {
        if (resp->stream->free)
            resp->stream->free(resp->stream->cls);
        free(resp->stream);
    }
    if (resp->upgrade_free && resp->upgrade_cls)
        resp->upgrade_free(resp->upgrade_cls);
    memset(resp, 0, sizeof *resp);
}

void em_resp_set_header(struct em_resp *resp, const char *name, const char *value)
{
    json_object_set_new(resp->headers, name, json_string(value));
}

void em_resp_add_header(struct em_resp *resp, const char *name, const char *value)
{
    json_t *old = json_object_get(resp->headers, name);
    if (!old) {
        em_resp_set_header(resp, name, value);
        return;
    }
    if (json_is_string(old)) {
        json_t *arr = json_array();
        json_array_append(arr, old);
        json_object_set_new(resp->headers, name, arr);
        old = arr;
    }
    json_array_append_new(old, json_string(value));
}

void em_resp_set_type(struct em_resp *resp, const char *content_type)
{
    free(resp->content_type);
    resp->content_type = nd_xstrdup(content_type);
}

void em_resp_json(struct em_resp *resp, int code, const json_t *v)
{
    resp->code = code;
    nd_buf_reset(&resp->body);
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s) {
        nd_buf_adds(&resp->body, s);
        free(s);
    }
    nd_buf_addch(&resp->body, '\n');
    em_resp_set_type(resp, "application/json");
}

void em_resp_text(struct em_resp *resp, int code, const char *content_type, const char *text)
{
    resp->code = code;
    nd_buf_reset(&resp->body);
    nd_buf_adds(&resp->body, text);
    em_resp_set_type(resp, content_type);
}

struct em_stream *em_resp_stream(struct em_resp *resp, const char *content_type,
                                 ssize_t (*read)(void *cls, char *buf, size_t max),
                                 void (*free_fn)(void *cls), void *cls)
{
    struct em_stream *s = nd_xcalloc(1, sizeof *s);
    s->read = read;
    s->free = free_fn;
    s->cls = cls;
    s->fd = -1;
    resp->stream = s;
    resp->code = 200;
    em_resp_set_type(resp, content_type);
    return s;
}

bool em_stream_gone(const struct em_stream *s)
{
    if (s && __atomic_load_n(&s->gone, __ATOMIC_RELAXED))
        return true;
    int fd = s ? s->fd : -1;
    if (fd < 0)
        return false;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}
