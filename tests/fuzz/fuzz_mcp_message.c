/* fuzz_mcp_message: nodus mcp's message reader (cmd/nodus/mcp/jsonrpc.c): the input's
 * bytes are fed to mcp_reader_feed in pieces (the first byte picks their size), each line
 * is parsed by mcp_message_parse and dispatched to a session (session.c) whose send
 * function checks that every answer is one JSON-RPC 2.0 object that dumps as one line.
 * Only the methods that answer in place are dispatched: a tools/call would fork its
 * call, so its arguments go to the checks tools/call makes (mcp_tool_check_args,
 * mcp_args_refused) instead, and a resources/ method's uri to mcp_uri_parse.
 * Invariants: a line never exceeds MCP_MAX_MESSAGE; a parse either fails with a code and
 * no method or gives a message; every request (an id and a method) is answered once. */
#include <stdio.h>

#include "fuzz.h"
#include "mcp.h"

static int answers;

static void check_send(struct mcp_session *s, json_t *msg)
{
    (void)s;
    char *text = json_dumps(msg, JSON_COMPACT);
    FZ_ASSERT(text != NULL);
    FZ_ASSERT(strchr(text, '\n') == NULL);
    json_error_t err;
    json_t *back = json_loads(text, 0, &err);
    FZ_ASSERT(json_is_object(back));
    FZ_ASSERT(!strcmp(json_string_value(json_object_get(back, "jsonrpc")), "2.0"));
    FZ_ASSERT(json_object_get(back, "result") || json_object_get(back, "error") ||
              json_object_get(back, "method"));
    if (!json_object_get(back, "method"))
        answers++;
    json_decref(back);
    free(text);
    json_decref(msg);
}

/* Methods whose handler answers in place (no fork, no network): the protocol's own, and
 * any outside the families whose handlers may start a child (an unknown one: -32601). */
static bool in_place(const char *method)
{
    static const char *const ok[] = {"initialize", "ping", "logging/setLevel", "tools/list",
                                     "notifications/initialized", "notifications/cancelled",
                                     NULL};
    static const char *const forking[] = {"tools/", "resources/", "prompts/", "completion/",
                                          NULL};
    for (int i = 0; ok[i]; i++)
        if (!strcmp(ok[i], method))
            return true;
    for (int i = 0; forking[i]; i++)
        if (!strncmp(forking[i], method, strlen(forking[i])))
            return false;
    return true;
}

static int on_line(void *cls, const char *line, size_t len)
{
    struct mcp_session *s = cls;
    if (!line) { /* a line over the bound: answered -32600 with id null */
        int before = answers;
        mcp_session_line(s, NULL, 0);
        FZ_ASSERT(answers == before + 1);
        return 0;
    }
    FZ_ASSERT(len <= MCP_MAX_MESSAGE);
    struct mcp_message m;
    int rc = mcp_message_parse(line, len, &m);
    FZ_ASSERT(rc == 0 ? m.error == 0 && m.msg : m.error != 0);
    if (rc == 0 && m.method && !strcmp(m.method, "tools/call")) {
        const char *name = json_string_value(json_object_get(m.params, "name"));
        const struct mcp_tool *t = name ? mcp_tool_find(name) : NULL;
        json_t *args = json_object_get(m.params, "arguments");
        char buf[512];
        if (t && json_is_object(args) && !mcp_tool_check_args(t, args, buf, sizeof buf))
            mcp_args_refused(args, buf, sizeof buf);
    } else if (rc == 0 && m.method && !strncmp(m.method, "resources/", 10) &&
               json_is_string(json_object_get(m.params, "uri"))) {
        /* a resource's URI: parsed (and checked) as resources/read parses it */
        static const struct mcp_config none = {.max_cost_micros = -1};
        struct mcp_uri u;
        struct nd_status st = ND_STATUS_INIT;
        int code = mcp_uri_parse(&none, json_string_value(json_object_get(m.params, "uri")),
                                 &u, &st);
        FZ_ASSERT(code == 0 ? u.k != NULL && strcmp(u.name, "..") && !strchr(u.name, '/')
                            : nd_status_failed(&st));
        nd_status_release(&st);
    } else if (rc != 0 || !m.method || in_place(m.method)) {
        int before = answers;
        mcp_session_message(s, &m);
        bool request = m.id && m.method;
        if (rc == 0 && request)
            FZ_ASSERT(answers == before + 1);
    }
    mcp_message_release(&m);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static struct mcp_config cfg = {.max_cost_micros = -1};
    struct mcp_server srv;
    mcp_server_init(&srv, NULL, &cfg);
    struct mcp_session s;
    mcp_session_init(&s, &srv, check_send, NULL);
    struct mcp_reader r;
    mcp_reader_init(&r);
    size_t piece = size ? (size_t)data[0] * 37 + 1 : 1;
    for (size_t off = 0; off < size; off += piece) {
        size_t n = size - off < piece ? size - off : piece;
        mcp_reader_feed(&r, (const char *)data + off, n, on_line, &s);
    }
    mcp_reader_release(&r);
    mcp_session_release(&s);
    mcp_server_release(&srv);
    return 0;
}
