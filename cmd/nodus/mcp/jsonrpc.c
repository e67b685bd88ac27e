/* jsonrpc.c: reading MCP messages: lines with a bound, the JSON-RPC 2.0 envelope. */
#include <stdio.h>
#include <string.h>

#include "mcp.h"

void mcp_reader_init(struct mcp_reader *r)
{
    nd_buf_init(&r->line, 0);
    r->skipping = false;
}

void mcp_reader_release(struct mcp_reader *r)
{
    nd_buf_release(&r->line);
}

/* One complete line (its newline excluded): CR stripped, blank lines ignored. */
static int emit(struct mcp_reader *r, int (*fn)(void *, const char *, size_t), void *cls)
{
    size_t n = r->line.len;
    if (n && r->line.data[n - 1] == '\r')
        n--;
    int rc = 0;
    size_t i = 0;
    while (i < n && (r->line.data[i] == ' ' || r->line.data[i] == '\t'))
        i++;
    if (i < n)
        rc = fn(cls, r->line.data, n);
    nd_buf_reset(&r->line);
    return rc;
}

int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t len,
                    int (*fn)(void *cls, const char *line, size_t len), void *cls)
{
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        if (r->skipping) {
            /* the rest of a line already answered as too long */
        } else if (r->line.len + take > MCP_MAX_MESSAGE) {
            nd_buf_reset(&r->line);
            r->skipping = true;
            if (fn(cls, NULL, 0) < 0)
                return -1;
        } else {
            nd_buf_add(&r->line, data, take);
        }
        if (!nl)
            break;
        data += take + 1;
        len -= take + 1;
        if (r->skipping)
            r->skipping = false;
        else if (emit(r, fn, cls) < 0)
            return -1;
    }
    return 0;
}

static int fail(struct mcp_message *m, int code, const char *why)
{
    m->error = code;
    snprintf(m->why, sizeof m->why, "%s", why);
    return -1;
}

/* An id is a string or an integer (JSON-RPC also allows null; MCP does not). */
static bool id_valid(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

int mcp_message_parse(const char *line, size_t len, struct mcp_message *m)
{
    memset(m, 0, sizeof *m);
    json_error_t jerr;
    /* any JSON value: a string or a number is valid JSON but not a message (-32600) */
    json_t *v = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!v) {
        snprintf(m->why, sizeof m->why, "parse error: %.160s (at character %d)", jerr.text,
                 jerr.position);
        m->error = MCP_PARSE_ERROR;
        return -1;
    }
    m->msg = v;
    if (json_is_array(v))
        return fail(m, MCP_INVALID_REQUEST,
                    "batches are not supported: send one JSON-RPC message a line");
    if (!json_is_object(v))
        return fail(m, MCP_INVALID_REQUEST, "a message is a JSON object");
    json_t *id = json_object_get(v, "id");
    if (id && id_valid(id))
        m->id = id;
    const char *ver = json_string_value(json_object_get(v, "jsonrpc"));
    if (!ver || strcmp(ver, "2.0") != 0)
        return fail(m, MCP_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
    if (id && !id_valid(id))
        return fail(m, MCP_INVALID_REQUEST, "\"id\" must be a string or an integer");
    json_t *method = json_object_get(v, "method");
    if (!method) {
        if (!id || (!json_object_get(v, "result") && !json_object_get(v, "error")))
            return fail(m, MCP_INVALID_REQUEST,
                        "a message has a \"method\" (a request or notification) or an "
                        "\"id\" with \"result\" or \"error\" (a response)");
        return 0; /* a response to one of ours */
    }
    if (!json_is_string(method) || !*json_string_value(method))
        return fail(m, MCP_INVALID_REQUEST, "\"method\" must be a non-empty string");
    m->method = json_string_value(method);
    json_t *params = json_object_get(v, "params");
    /* m->method is kept with this error: a notification's is not answered */
    if (params && !json_is_object(params))
        return fail(m, MCP_INVALID_PARAMS, "\"params\" must be an object");
    m->params = params;
    return 0;
}

void mcp_message_release(struct mcp_message *m)
{
    json_decref(m->msg);
    memset(m, 0, sizeof *m);
}

json_t *mcp_response(const json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result",
                     result ? result : json_object());
}

json_t *mcp_error(const json_t *id, int code, const char *message)
{
    return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                     "error", "code", code, "message", message);
}

json_t *mcp_notification(const char *method, json_t *params)
{
    json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    if (params)
        json_object_set_new(n, "params", params);
    return n;
}
