/* The floor server of make bench: libmicrohttpd in the emulator's mode (thread per
 * connection, internal polling thread, poll, ITC, the same limits and backlog), answering
 * every request with one fixed ~600-byte JSON body and the headers the emulator adds
 * (a request with ?limit=500 gets a list of 500 copies of it, the floor of a list page).
 * Whatever the emulator serves costs at least this; its figures are reported as a ratio.
 *
 *   ceiling --port-file FILE     listens on 127.0.0.1 on a free port, writes it to FILE,
 *                                serves until SIGTERM/SIGINT */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char body[] =
    "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"bench-000001\","
    "\"namespace\":\"bench\",\"uid\":\"6f1c2a8e-5b7d-4c1e-9a3f-0d2b4e6f8a10\","
    "\"resourceVersion\":\"123456\",\"generation\":1,"
    "\"creationTimestamp\":\"2026-12-01T20:00:00Z\",\"labels\":{\"team\":\"bench\"}},"
    "\"spec\":{\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"command\":[\"python\",\"train.py\"],"
    "\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":1},\"cpu\":\"8\",\"memory\":\"64Gi\"},"
    "\"maxCostUSD\":\"10.00\",\"restartPolicy\":\"Never\",\"backoffLimit\":0},"
    "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"Scheduled\","
    "\"status\":\"False\",\"reason\":\"Waiting\",\"message\":\"waiting for capacity\","
    "\"lastTransitionTime\":\"2026-12-01T20:00:00Z\"}],\"costUSD\":\"0.00\","
    "\"startTime\":null}}\n";

static struct MHD_Response *resp, *list_resp;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **req_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload;
    if (*req_cls == NULL) { /* headers seen: wait for the body, as the emulator does */
        *req_cls = c;
        return MHD_YES;
    }
    if (*upload_size) { /* discard the body */
        *upload_size = 0;
        return MHD_YES;
    }
    const char *limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    return MHD_queue_response(c, MHD_HTTP_OK, limit && !strcmp(limit, "500") ? list_resp : resp);
}

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    const char *port_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port-file") == 0 && i + 1 < argc)
            port_file = argv[++i];
        else {
            fprintf(stderr, "usage: ceiling --port-file FILE\n");
            return 2;
        }
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    resp = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "X-Request-Id", "0123456789abcdef0123456789abcdef");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
    static const char head[] = "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"JobList\","
                               "\"metadata\":{\"resourceVersion\":\"123456\"},\"items\":[";
    size_t item = sizeof body - 2; /* without the newline */
    size_t list_len = sizeof head - 1 + 500 * (item + 1) + 2;
    char *list = malloc(list_len + 1), *w = list;
    memcpy(w, head, sizeof head - 1);
    w += sizeof head - 1;
    for (int i = 0; i < 500; i++) {
        memcpy(w, body, item);
        w += item;
        *w++ = i < 499 ? ',' : ']';
    }
    *w++ = '}';
    *w++ = '\n';
    list_resp = MHD_create_response_from_buffer((size_t)(w - list), list, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(list_resp, "Content-Type", "application/json");
    MHD_add_response_header(list_resp, "X-Request-Id", "0123456789abcdef0123456789abcdef");
    MHD_add_response_header(list_resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(list_resp, "Cache-Control", "no-cache, private");
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_ALLOW_UPGRADE | MHD_USE_ITC |
                     (MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES ? MHD_USE_POLL : 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &sa,
        /* the emulator's pool (EM_HTTP_MEMORY_LIMIT, emulator/http/http.c): libmicrohttpd
         * clears it between requests, so it must match for the floor to be fair */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(160u * 1024u), MHD_OPTION_CONNECTION_LIMIT,
        4096u, MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
        MHD_OPTION_END);
    if (!d) {
        perror("ceiling: MHD_start_daemon");
        return 1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = di ? di->port : 0;
    if (port_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, port_file) != 0) {
            perror("ceiling: port file");
            return 1;
        }
    } else {
        printf("%u\n", port);
        fflush(stdout);
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    while (!stop)
        pause();
    MHD_stop_daemon(d);
    MHD_destroy_response(resp);
    MHD_destroy_response(list_resp);
    return 0;
}
