/* curl.c: https:// through libcurl, loaded with dlopen() on the first https request.
 *
 * <curl/curl.h> gives only types and constants; every function is looked up with
 * dlsym(), so neither libnodus nor bin/nodus links against libcurl and a CLI that
 * talks plain http:// (the emulator) never pays for loading it and its dependencies.
 * One easy handle per client keeps the connection alive between requests.
 */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/dl.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define CONNECT_MAX_MS 30000L
#define CURL_HEAD_MAX  ((size_t)300 * 1024) /* libcurl's MAX_HTTP_RESP_HEADER_SIZE */

static struct curl_api {
    void *lib; /* NULL until loaded */
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLcode (*easy_send)(CURL *, const void *, size_t, size_t *);
    CURLcode (*easy_recv)(CURL *, void *, size_t, size_t *);
} api;

static const char *soname = "libcurl.so.4";

void nd_curl_set_library(const char *name)
{
    soname = name;
}

struct nd_curl {
    CURL *h;
    char err[CURL_ERROR_SIZE];
    /* the exchange in progress */
    struct nd_exchange *x;
    bool head_done;
    size_t head_bytes;   /* header bytes of the answer so far (1xx answers included) */
    bool head_too_large; /* they passed x->max_head: the transfer was aborted */
};

void nd_curl_free(struct nd_curl *k)
{
    if (!k)
        return;
    if (k->h)
        api.easy_cleanup(k->h);
    free(k);
}

static const char *INSTALL_FIX =
    "Install libcurl (Debian and Ubuntu: apt-get install libcurl4), or use an http:// server.";

static int load(struct nd_status *st)
{
    if (api.lib)
        return 0;
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return nd_status_set(st, "Unreachable", INSTALL_FIX,
                             "https:// needs libcurl, which could not be loaded: %s", dlerror());
    static const struct nd_dl_sym syms[] = {
#define SYM(field, name) {name, offsetof(struct curl_api, field)}
        SYM(global_init, "curl_global_init"),   SYM(easy_init, "curl_easy_init"),
        SYM(easy_setopt, "curl_easy_setopt"),   SYM(easy_perform, "curl_easy_perform"),
        SYM(easy_getinfo, "curl_easy_getinfo"), SYM(easy_cleanup, "curl_easy_cleanup"),
        SYM(easy_reset, "curl_easy_reset"),     SYM(easy_strerror, "curl_easy_strerror"),
        SYM(slist_append, "curl_slist_append"), SYM(slist_free_all, "curl_slist_free_all"),
        SYM(easy_send, "curl_easy_send"),       SYM(easy_recv, "curl_easy_recv"),
#undef SYM
    };
    const char *missing = nd_dl_bind(h, syms, sizeof syms / sizeof syms[0], &api);
    if (missing)
        return nd_status_set(st, "Unreachable", INSTALL_FIX,
                             "https:// needs libcurl, which could not be loaded: %s has no %s",
                             soname, missing);
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        dlclose(h);
        return nd_status_set(st, "Unreachable", INSTALL_FIX,
                             "https:// needs libcurl, which could not be loaded: "
                             "curl_global_init failed");
    }
    api.lib = h; /* kept for the life of the process */
    return 0;
}

/* HTTP/2 status lines carry no reason phrase; the log shows the usual one. */
static const char *phrase_for(int code)
{
    /* clang-format off */
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "";
    }
    /* clang-format on */
}

static int head_done(struct nd_curl *k)
{
    k->head_done = true;
    struct nd_exchange *x = k->x;
    x->head_done = true;
    x->head_wall_ms = nd_time_now_ms();
    if (x->on_head && x->on_head(x)) {
        x->stopped = true;
        return 1;
    }
    return 0;
}

static size_t on_header(char *d, size_t size, size_t nitems, void *ud)
{
    struct nd_curl *k = ud;
    struct nd_exchange *x = k->x;
    size_t n = size * nitems, len = n;
    x->got_answer = true;
    k->head_bytes += n;
    if (k->head_bytes > x->max_head) {
        k->head_too_large = true;
        return 0; /* abort the transfer */
    }
    while (len && (d[len - 1] == '\n' || d[len - 1] == '\r'))
        len--;
    if (len >= 5 && memcmp(d, "HTTP/", 5) == 0) {
        /* "HTTP/1.1 200 OK", "HTTP/2 200": a new answer (a 1xx came first, maybe) */
        const char *sp = memchr(d, ' ', len);
        int code = 0;
        size_t i = sp ? (size_t)(sp - d) + 1 : len;
        size_t digits = 0;
        for (; i < len && d[i] >= '0' && d[i] <= '9' && digits < 3; i++, digits++)
            code = code * 10 + (d[i] - '0');
        x->resp->code = digits == 3 ? code : 0;
        json_decref(x->resp->headers);
        x->resp->headers = NULL;
        nd_buf_reset(&x->phrase);
        if (i < len && d[i] == ' ')
            nd_buf_add(&x->phrase, d + i + 1, len - i - 1);
        if (!x->phrase.len)
            nd_buf_adds(&x->phrase, phrase_for(x->resp->code));
        return n;
    }
    if (len == 0) {
        if (x->resp->code >= 200 && !k->head_done && head_done(k))
            return 0; /* the sink stopped: abort the transfer */
        return n;
    }
    const char *colon = memchr(d, ':', len);
    if (colon)
        nd_response_add_header(x->resp, d, (size_t)(colon - d), colon + 1,
                               len - (size_t)(colon + 1 - d));
    return n;
}

static size_t on_write(char *d, size_t size, size_t nmemb, void *ud)
{
    struct nd_curl *k = ud;
    struct nd_exchange *x = k->x;
    size_t n = size * nmemb;
    if (!k->head_done && head_done(k))
        return 0;
    if (n && x->on_data(x, d, n)) {
        x->stopped = true;
        return 0;
    }
    return n;
}

/* A streamed body (nd_request.body_read); libcurl sends it chunked. */
static size_t on_read(char *buf, size_t size, size_t nitems, void *ud)
{
    struct nd_curl *k = ud;
    struct nd_exchange *x = k->x;
    x->body_started = true;
    ssize_t n = x->body_read(x->body_cls, buf, size * nitems, &x->body_st);
    if (n < 0) {
        x->body_failed = true;
        return CURL_READFUNC_ABORT;
    }
    return (size_t)n;
}

static int blob(CURL *h, CURLoption opt, const char *pem, const char *what, struct nd_status *st)
{
    struct curl_blob b = {(void *)pem, strlen(pem), CURL_BLOB_COPY};
    CURLcode r = api.easy_setopt(h, opt, &b);
    if (r != CURLE_OK)
        return nd_status_set(
            st, "Unreachable", "Give the file instead of the data in the kubeconfig.",
            "this libcurl cannot take %s from memory: %s", what, api.easy_strerror(r));
    return 0;
}

static int set_options(struct nd_client *c, struct nd_curl *k, struct nd_exchange *x,
                       struct curl_slist *hdrs, struct nd_status *st)
{
    CURL *h = k->h;
    api.easy_setopt(h, CURLOPT_URL, x->url);
    api.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    /* a proxy's CONNECT answer is not the server's */
    api.easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    api.easy_setopt(h, CURLOPT_ERRORBUFFER, k->err);
    api.easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    api.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    api.easy_setopt(h, CURLOPT_HEADERDATA, k);
    api.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    api.easy_setopt(h, CURLOPT_WRITEDATA, k);
    if (strcmp(x->method, "GET") == 0) {
        api.easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(x->method, "HEAD") == 0) {
        api.easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (x->body_read) {
        api.easy_setopt(h, CURLOPT_UPLOAD, 1L);
        api.easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        api.easy_setopt(h, CURLOPT_READDATA, k);
        api.easy_setopt(h, CURLOPT_CUSTOMREQUEST, x->method);
    } else {
        if (x->body) {
            api.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
            api.easy_setopt(h, CURLOPT_POSTFIELDS, x->body);
        }
        api.easy_setopt(h, CURLOPT_CUSTOMREQUEST, x->method);
    }

    long connect_ms = CONNECT_MAX_MS;
    if (x->deadline) {
        int64_t left = x->deadline - nd_client_now_ms();
        if (left <= 0)
            return nd_client_fail_timeout(c, st);
        api.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)left);
        if (left < connect_ms)
            connect_ms = (long)left;
    }
    api.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    if (x->idle_ms) {
        /* libcurl counts whole seconds of a transfer slower than 1 byte a second */
        api.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        api.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)((x->idle_ms + 999) / 1000));
    }

    if (c->insecure) {
        api.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        api.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (c->ca_file)
        api.easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->ca_data && blob(h, CURLOPT_CAINFO_BLOB, c->ca_data, "certificate-authority-data", st))
        return -1;
    if (c->cert_file || c->cert_data)
        api.easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    if (c->cert_file)
        api.easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
    if (c->cert_data &&
        blob(h, CURLOPT_SSLCERT_BLOB, c->cert_data, "client-certificate-data", st) < 0)
        return -1;
    if (c->key_file || c->key_data)
        api.easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    if (c->key_file)
        api.easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
    if (c->key_data && blob(h, CURLOPT_SSLKEY_BLOB, c->key_data, "client-key-data", st) < 0)
        return -1;
    return 0;
}

static bool tls_error(CURLcode r)
{
    /* clang-format off */
    switch (r) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT: return true;
    default: return false;
    }
    /* clang-format on */
}

static int fail(struct nd_client *c, struct nd_curl *k, struct nd_exchange *x, CURLcode r,
                struct nd_status *st)
{
    const char *why = k->err[0] ? k->err : api.easy_strerror(r);
    char buf[CURL_ERROR_SIZE + 64];
    if (r == CURLE_COULDNT_RESOLVE_HOST)
        return nd_client_fail_dns(c, "no such host", st);
    if (r == CURLE_COULDNT_CONNECT) {
        long os = 0;
        api.easy_getinfo(k->h, CURLINFO_OS_ERRNO, &os);
        if (os == ECONNREFUSED)
            return nd_client_fail_refused(c, x, st);
        if (os) {
            snprintf(buf, sizeof buf, "connect: %s", strerror((int)os));
            if (buf[9] >= 'A' && buf[9] <= 'Z')
                buf[9] = (char)(buf[9] - 'A' + 'a');
            why = buf;
        }
        return nd_client_fail_connect(c, why, st);
    }
    if (r == CURLE_OPERATION_TIMEDOUT) {
        if (x->deadline && nd_client_now_ms() >= x->deadline - 5)
            return nd_client_fail_timeout(c, st);
        return nd_client_fail_connect(c, "i/o timeout", st);
    }
    if (tls_error(r))
        return nd_client_fail_tls(c, why, st);
    if (r == CURLE_SEND_ERROR || r == CURLE_RECV_ERROR || r == CURLE_GOT_NOTHING ||
        r == CURLE_PARTIAL_FILE)
        return nd_client_fail_closed(c, x, why, st);
    if (r == CURLE_WEIRD_SERVER_REPLY || r == CURLE_HTTP2 || r == CURLE_HTTP2_STREAM ||
        r == CURLE_BAD_CONTENT_ENCODING)
        return nd_client_fail_malformed(st, "%s", why);
    return nd_client_fail_connect(c, why, st);
}

int nd_curl_exchange(struct nd_client *c, struct nd_exchange *x, struct nd_status *st)
{
    if (load(st) < 0)
        return -1;
    if (!c->curl)
        c->curl = nd_xcalloc(1, sizeof *c->curl);
    struct nd_curl *k = c->curl;
    if (!k->h) {
        k->h = api.easy_init();
        if (!k->h)
            return nd_status_set(st, "Unreachable", INSTALL_FIX, "curl_easy_init failed");
    } else {
        api.easy_reset(k->h); /* options only: the connection stays */
    }
    k->x = x;
    k->head_done = false;
    k->head_bytes = 0;
    k->head_too_large = false;
    k->err[0] = '\0';
    int64_t start = nd_client_now_ms();

    /* our header lines; "Expect:" stops curl's 100-continue dance on larger bodies */
    struct curl_slist *hdrs = NULL;
    int rc = -1;
    for (const char *p = x->headers; *p;) {
        const char *eol = strstr(p, "\r\n");
        char *line = nd_xstrndup(p, (size_t)(eol - p));
        struct curl_slist *n = api.slist_append(hdrs, line);
        free(line);
        if (!n)
            goto out;
        hdrs = n;
        p = eol + 2;
    }
    /* a streamed body waits for 100 Continue: a refusal comes before any of it */
    struct curl_slist *n = api.slist_append(hdrs, x->body_read ? "Expect: 100-continue" : "Expect:");
    if (!n)
        goto out;
    hdrs = n;
    if (set_options(c, k, x, hdrs, st) < 0)
        goto out;

    CURLcode r = api.easy_perform(k->h);
    if (r == CURLE_OK || (r == CURLE_WRITE_ERROR && x->stopped)) {
        if (x->resp->code < 100) {
            nd_client_fail_malformed(st, "no status line");
            goto out;
        }
        if (!k->head_done && !x->stopped)
            head_done(k);
        rc = 0;
    } else if (k->head_too_large) {
        nd_client_fail_too_large("the header block", x->max_head, st);
    } else if (!strncmp(k->err, "Too large response headers", 26)) {
        /* libcurl's own limit (300 KiB since 7.84) came first: the same error */
        nd_client_fail_too_large("the header block",
                                 CURL_HEAD_MAX < x->max_head ? CURL_HEAD_MAX : x->max_head, st);
    } else if (r == CURLE_OPERATION_TIMEDOUT && x->idle_ms &&
               (!x->deadline || nd_client_now_ms() < x->deadline - 5) &&
               nd_client_now_ms() - start >= x->idle_ms) {
        nd_client_fail_idle(x, st);
    } else {
        fail(c, k, x, r, st);
    }
out:
    if (rc < 0 && !nd_status_failed(st))
        nd_status_set(st, "Unreachable", NULL, "libcurl ran out of memory");
    /* the handle must not keep pointers into this exchange */
    api.easy_setopt(k->h, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
    api.slist_free_all(hdrs);
    k->x = NULL;
    return rc;
}

/* ---- raw connections for ws.c ---- */

int nd_curl_raw_open(struct nd_client *c, const char *url, int64_t deadline, void **handle,
                     int *fd, struct nd_status *st)
{
    *handle = NULL;
    *fd = -1;
    if (load(st) < 0)
        return -1;
    struct nd_curl *k = nd_xcalloc(1, sizeof *k);
    k->h = api.easy_init();
    if (!k->h) {
        free(k);
        return nd_status_set(st, "Unreachable", INSTALL_FIX, "curl_easy_init failed");
    }
    struct nd_response resp;
    nd_response_init(&resp);
    struct nd_exchange x = {0};
    x.method = "GET";
    x.url = url;
    x.headers = "";
    x.deadline = deadline;
    x.max_head = c->max_head; /* CONNECT_ONLY reads no answer; set for form's sake */
    x.resp = &resp;
    k->x = &x;
    int rc = -1;
    if (set_options(c, k, &x, NULL, st) < 0)
        goto out;
    api.easy_setopt(k->h, CURLOPT_CONNECT_ONLY, 1L);
    /* the upgrade is HTTP/1.1: ALPN must not settle on h2 */
    api.easy_setopt(k->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    api.easy_setopt(k->h, CURLOPT_TIMEOUT_MS, 0L); /* the session itself has no deadline */
    CURLcode r = api.easy_perform(k->h);
    if (r != CURLE_OK) {
        fail(c, k, &x, r, st);
        goto out;
    }
    curl_socket_t sock = CURL_SOCKET_BAD;
    if (api.easy_getinfo(k->h, CURLINFO_ACTIVESOCKET, &sock) != CURLE_OK ||
        sock == CURL_SOCKET_BAD) {
        nd_status_set(st, "Unreachable", INSTALL_FIX, "libcurl gave no socket for %s", url);
        goto out;
    }
    *fd = (int)sock;
    rc = 0;
out:
    k->x = NULL;
    nd_response_release(&resp);
    if (rc < 0)
        nd_curl_free(k);
    else
        *handle = k;
    return rc;
}

ssize_t nd_curl_raw_send(void *handle, const void *p, size_t n)
{
    struct nd_curl *k = handle;
    size_t sent = 0;
    CURLcode r = api.easy_send(k->h, p, n, &sent);
    if (r == CURLE_AGAIN) {
        errno = EAGAIN;
        return -1;
    }
    if (r != CURLE_OK) {
        errno = EPIPE;
        return -1;
    }
    return (ssize_t)sent;
}

ssize_t nd_curl_raw_recv(void *handle, void *p, size_t n)
{
    struct nd_curl *k = handle;
    size_t got = 0;
    CURLcode r = api.easy_recv(k->h, p, n, &got);
    if (r == CURLE_AGAIN) {
        errno = EAGAIN;
        return -1;
    }
    if (r != CURLE_OK) {
        errno = ECONNRESET;
        return -1;
    }
    return (ssize_t)got;
}

void nd_curl_raw_close(void *handle)
{
    nd_curl_free(handle);
}
