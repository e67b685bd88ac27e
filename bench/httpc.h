/* A minimal HTTP/1.1 client for the bench tools: one keep-alive connection to
 * 127.0.0.1:PORT, a request out, a whole response (Content-Length or chunked) in. */
#ifndef BENCH_HTTPC_H
#define BENCH_HTTPC_H

#include <stddef.h>

struct hc_conn {
    int fd;
    int port;
    char *buf; /* bytes read past the last response */
    size_t len, cap;
};

struct hc_resp {
    int status;
    int close; /* the server said Connection: close */
    char *body; /* points into a buffer owned by the connection, valid until the next call */
    size_t body_len;
};

int hc_connect(struct hc_conn *c, int port); /* 0 or -1 */
void hc_close(struct hc_conn *c);
/* Sends one request (body may be NULL) and reads its response; -1 on an I/O error or a
 * malformed response (the connection is then closed). */
int hc_request(struct hc_conn *c, const char *method, const char *path, const char *body,
               size_t body_len, struct hc_resp *out);
/* Sends a request without waiting for the answer. */
int hc_send(struct hc_conn *c, const char *method, const char *path, const char *body,
            size_t body_len);
double hc_now(void); /* seconds, monotonic */
void hc_sleep_ms(int ms);
/* The first NEEDLE in HAY[0..N), or NULL. */
char *hc_find(const char *hay, size_t n, const char *needle);
/* The whole file, NUL-terminated (malloc'd; its length in *len when len is not NULL),
 * or NULL with errno set when it cannot be read. */
char *hc_slurp(const char *file, size_t *len);

#endif
