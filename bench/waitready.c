/* Start-to-ready of make bench: polls a server every half millisecond until PATH answers
 * 200 and prints the time since SINCE (the shell's $EPOCHREALTIME just before it started
 * the server), so the figure includes exec, loading the state and binding the port.
 *
 *   waitready --since EPOCH (--port-file FILE | --port P) [--path /readyz] [--timeout S]
 *
 * Prints ready_ms= and port=; exits 1 on the timeout. */
#include "httpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double realnow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *port_file = NULL, *path = "/readyz";
    double since = 0, timeout = 120;
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--since"))
            since = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--port-file"))
            port_file = argv[i + 1];
        else if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--path"))
            path = argv[i + 1];
        else if (!strcmp(argv[i], "--timeout"))
            timeout = atof(argv[i + 1]);
    }
    if (since <= 0 || (!port_file && !port)) {
        fprintf(stderr, "usage: waitready --since EPOCH (--port-file FILE | --port P) "
                        "[--path /readyz] [--timeout S]\n");
        return 2;
    }
    struct timespec half = {0, 500000};
    struct hc_conn c = {.fd = -1};
    while (realnow() - since < timeout) {
        if (!port) {
            FILE *f = fopen(port_file, "r");
            if (f) {
                if (fscanf(f, "%d", &port) != 1)
                    port = 0;
                fclose(f);
            }
        }
        if (port && (c.fd >= 0 || hc_connect(&c, port) == 0)) {
            struct hc_resp r;
            if (hc_request(&c, "GET", path, NULL, 0, &r) == 0 && r.status == 200) {
                printf("ready_ms=%.1f port=%d\n", (realnow() - since) * 1000.0, port);
                hc_close(&c);
                free(c.buf);
                return 0;
            }
        }
        nanosleep(&half, NULL);
    }
    hc_close(&c);
    free(c.buf);
    fprintf(stderr, "waitready: %s not ready after %.0f s\n", port_file ? port_file : "server",
            timeout);
    return 1;
}
