/* fuzz_router: the emulator's whole request handling (em_router_handle: authorization,
 * control endpoints, discovery, docs, every API handler and subresource) over a state
 * directory made once per process, under --runtime simulate (nothing is ever spawned:
 * exec answers are upgrades that are never run).
 *
 * Input, as text (one request):
 *   METHOD SP TARGET LF            TARGET is a path with an optional ?query; both are
 *   Name: value LF ...             percent-decoded as libmicrohttpd does
 *   LF
 *   body...
 * Query arguments and headers go into the request through emulator/http/http.c's own
 * em_http_query_add and em_http_header_add, as libmicrohttpd's values do.
 * A token file is loaded: "Authorization: Bearer admin|reader|team" picks an
 * identity, and a request without that header is sent as admin. After each request: the status code is a valid one, a JSON answer parses,
 * and nothing appeared beside the state directory (DIR holds only state/ and out/, out/
 * stays empty). Every FZ_RESET requests the state is reset (POST /emulator/v1/reset).
 * Fault injections with a delay are not sent (a delay would only make the fuzzer slow),
 * and injected faults are dropped every FZ_FAULTS requests: one that answers every
 * path with 503 for a long count would otherwise hide every handler from the fuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "admin.h"
#include "json/json.h"
#include "pricebook.h"
#include "router.h"
#include "server.h"
#include "sim.h"

#define FZ_RESET  2000
#define FZ_FAULTS 64

static struct em_server srv;
static char top[64], state[96], out_dir[96], tokens[96];
static unsigned long served;

static void setup(void)
{
    if (top[0])
        return;
    fz_init();
    fz_sandbox(top, "router", out_dir);
    snprintf(state, sizeof state, "%s/state", top);
    snprintf(tokens, sizeof tokens, "%s/out.tokens", top);
    /* the token file sits beside out/ only while the server starts */
    FILE *f = fopen(tokens, "w");
    FZ_ASSERT(f);
    fputs("{\"admin\":{\"identity\":\"admin\",\"projects\":[\"*\"]},"
          "\"reader\":{\"identity\":\"reader\",\"projects\":[\"*\"],\"scopes\":[\"read\"]},"
          "\"team\":{\"identity\":\"team\",\"projects\":[\"team\"],\"scopes\":[\"read\",\"write\"]}}",
          f);
    fclose(f);

    memset(&srv, 0, sizeof srv);
    srv.opt.state_dir = state;
    srv.opt.listen_addr = "127.0.0.1";
    srv.opt.runtime = "simulate";
    srv.opt.speed = 1;
    srv.opt.fsync_mode = EM_FSYNC_NEVER;
    srv.opt.quiet = true;
    srv.opt.token_file = tokens;
    pthread_mutex_init(&srv.lock, NULL);
    pthread_cond_init(&srv.changed, NULL);
    struct nd_buf err = ND_BUF_INIT, report = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    FZ_ASSERT(em_store_open(&srv.store, state, EM_FSYNC_NEVER, true, &report, &err) == 0);
    srv.seed_wanted = true;
    em_clock_init(&srv.clock, 1, 0);
    FZ_ASSERT(em_history_open(&srv.history, &srv.store, srv.store.revision,
                              em_clock_now_ms(&srv.clock), &err) == 0);
    FZ_ASSERT(em_pricebook_load(&srv, &st) == 0);
    FZ_ASSERT(em_router_init(&srv, &err) == 0);
    snprintf(srv.base_url, sizeof srv.base_url, "http://127.0.0.1:1");
    FZ_ASSERT(em_router_seed(&srv, &err) == 0);
    pthread_mutex_lock(&srv.lock);
    em_sim_init(&srv);
    srv.ready = true;
    pthread_mutex_unlock(&srv.lock);
    unlink(tokens);
    nd_buf_release(&err);
    nd_buf_release(&report);
}

static int hex(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Percent-decodes s[0, n) into a new string; stops at a decoded NUL (a C string ends
 * there in libmicrohttpd too). */
static char *unescape(const char *s, size_t n)
{
    char *out = nd_xmalloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hex((unsigned char)s[i + 1]) >= 0 &&
            hex((unsigned char)s[i + 2]) >= 0) {
            out[o++] = (char)(hex((unsigned char)s[i + 1]) * 16 + hex((unsigned char)s[i + 2]));
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

static void add_query(json_t *query, const char *q, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && q[e] != '&')
            e++;
        size_t eq = i;
        while (eq < e && q[eq] != '=')
            eq++;
        if (e > i) {
            char *k = unescape(q + i, eq - i);
            char *v = eq < e ? unescape(q + eq + 1, e - eq - 1) : nd_xstrdup("");
            em_http_query_add(query, k, v);
            free(k);
            free(v);
        }
        i = e + 1;
    }
}

static void add_header(json_t *headers, const char *line, size_t n)
{
    size_t colon = 0;
    while (colon < n && line[colon] != ':')
        colon++;
    if (colon == 0 || colon == n)
        return;
    char *name = nd_xstrndup(line, colon);
    size_t v = colon + 1;
    while (v < n && (line[v] == ' ' || line[v] == '\t'))
        v++;
    char *value = nd_xstrndup(line + v, n - v);
    em_http_header_add(headers, name, value);
    free(name);
    free(value);
}

static void check_outside(void)
{
    fz_assert_only(top, "state", out_dir, "fuzz_router");
}

static void serve(struct em_req *req)
{
    struct em_resp resp;
    em_resp_init(&resp);
    em_router_handle(&srv, req, &resp);
    FZ_ASSERT(resp.code >= 100 && resp.code <= 599);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "%s %s -> %d %.160s\n", req->method, req->path, resp.code,
                resp.body.len ? resp.body.data : "");
    if (!resp.stream && !resp.upgrade && resp.body.len &&
        (!resp.content_type || strcmp(resp.content_type, "application/json") == 0)) {
        json_t *v = json_loadb(resp.body.data, resp.body.len, 0, NULL);
        if (!v)
            fprintf(stderr, "fuzz_router: %d answer is not JSON: %.200s\n", resp.code,
                    resp.body.data);
        FZ_ASSERT(v);
        if (resp.code >= 400)
            FZ_ASSERT(json_is_string(json_object_get(v, "reason")));
        json_decref(v);
    }
    em_resp_release(&resp);
}

static void reset(void)
{
    struct em_req req = {.method = "POST", .path = "/emulator/v1/reset", .remote = "127.0.0.1"};
    req.query = json_object();
    req.headers = json_pack("{ssss}", "authorization", "Bearer admin", "content-type",
                            "application/json"); /* the control endpoints want JSON */
    nd_buf_init(&req.body, 0);
    snprintf(req.request_id, sizeof req.request_id, "req_fuzz_reset");
    serve(&req);
    nd_buf_release(&req.body);
    json_decref(req.query);
    json_decref(req.headers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    const char *s = (const char *)data;
    const char *nl = memchr(s, '\n', size);
    size_t first = nl ? (size_t)(nl - s) : size;
    const char *sp = memchr(s, ' ', first);
    if (!sp || sp == s)
        return 0;
    char *method = nd_xstrndup(s, (size_t)(sp - s));
    const char *target = sp + 1;
    size_t tlen = first - (size_t)(target - s);
    const char *q = memchr(target, '?', tlen);
    size_t plen = q ? (size_t)(q - target) : tlen;

    struct em_req req;
    memset(&req, 0, sizeof req);
    req.method = method;
    char *path = unescape(target, plen);
    req.path = path;
    req.query = json_object();
    if (q)
        add_query(req.query, q + 1, tlen - plen - 1);
    req.headers = json_object();
    nd_buf_init(&req.body, EM_MAX_BODY);
    size_t pos = nl ? first + 1 : size;
    while (pos < size) {
        const char *e = memchr(s + pos, '\n', size - pos);
        size_t n = e ? (size_t)(e - (s + pos)) : size - pos;
        if (n == 0) {
            pos++;
            break;
        }
        add_header(req.headers, s + pos, n);
        pos += n + 1;
    }
    if (pos < size)
        nd_buf_add(&req.body, s + pos, size - pos);
    if (!json_object_get(req.headers, "authorization"))
        json_object_set_new(req.headers, "authorization", json_string("Bearer admin"));
    snprintf(req.request_id, sizeof req.request_id, "req_fuzz");
    req.remote = "127.0.0.1";

    bool skip = strncmp(path, "/emulator/", 10) == 0 && strstr(path, "fault") &&
                fz_find(data, size, "elay");
    if (!skip)
        serve(&req);
    check_outside();
    if (++served % FZ_RESET == 0)
        reset();
    if (served % FZ_FAULTS == 0) {
        pthread_mutex_lock(&srv.lock);
        em_faults_release(&srv);
        pthread_mutex_unlock(&srv.lock);
    }

    nd_buf_release(&req.body);
    json_decref(req.query);
    json_decref(req.headers);
    free(path);
    free(method);
    return 0;
}
