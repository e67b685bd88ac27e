/* send: the hostile corpus's driver. Reads one case file (tests/hostile/cases/GROUP/NAME.http),
 * expands its placeholders, writes the raw bytes to the emulator over TCP, reads the answer
 * and prints what the runner compares:
 *
 *   status <code>        ("none": the server closed without an answer; "timeout": it
 *                        said nothing for the timeout)
 *   reason <reason>      the Status body's "reason" ("-" when the body has none)
 *   message <message>    the Status body's "message", as it is in the JSON ("-": none)
 *   body-bytes <n>       the body's length as received
 *   ws-close <code>      after a 101 (when the case sends frames): the server's close code,
 *                        "none" when the connection ended without a close frame
 *
 * Usage: send [-D NAME=VALUE]... [-B BASEDIR] [-t SECONDS] HOST PORT FILE
 *
 * A case file: leading lines starting with '#' are directives (the runner's, and
 * "# frames-after-101" here: the part after the head is sent only once the 101 came).
 * Then the request head, one line per header line (written with CRLF), a blank line,
 * and the body (its last newline dropped). Placeholders, expanded in head and body:
 *   {{NAME}}              a value given with -D NAME=VALUE
 *   {{LEN}}               (head only) the expanded body's length
 *   {{REPEAT 'text' N}}   text N times (text may not hold a quote)
 *   {{HEX 81 05 ...}}     bytes given in hex
 *   {{BINFILE path}}      the bytes of a file, relative to BASEDIR
 * Every socket operation times out after -t SECONDS (default 10); a timeout ends the exchange.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int timeout_ms = 10000;
#define MAX_DEFS   32

struct buf {
    char *data;
    size_t len, cap;
};

static const char *def_name[MAX_DEFS], *def_value[MAX_DEFS];
static int ndefs;
static const char *basedir = ".";

/* memmem, which POSIX does not have */
static char *find(const void *hay, size_t n, const void *needle, size_t m)
{
    const char *h = hay;
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(h + i, needle, m) == 0)
            return (char *)(h + i);
    return NULL;
}

static void die(const char *msg)
{
    fprintf(stderr, "send: %s\n", msg);
    exit(2);
}

static void add(struct buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = realloc(b->data, cap);
        if (!b->data)
            die("out of memory");
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void adds(struct buf *b, const char *s)
{
    add(b, s, strlen(s));
}

static int read_file(const char *path, struct buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        add(out, chunk, n);
    fclose(f);
    add(out, "", 0);
    return 0;
}

/* Expands the placeholders of src[0..n) into out; {{LEN}} becomes len_value when given. */
static void expand(const char *src, size_t n, struct buf *out, const char *len_value)
{
    size_t i = 0;
    while (i < n) {
        const char *open = i + 1 < n ? find(src + i, n - i, "{{", 2) : NULL;
        if (!open) {
            add(out, src + i, n - i);
            return;
        }
        add(out, src + i, (size_t)(open - (src + i)));
        const char *start = open + 2;
        const char *close = find(start, n - (size_t)(start - src), "}}", 2);
        if (!close)
            die("a placeholder without its closing }}");
        size_t plen = (size_t)(close - start);
        char *ph = strndup(start, plen);
        if (!ph)
            die("out of memory");
        if (strcmp(ph, "LEN") == 0 && len_value) {
            adds(out, len_value);
        } else if (strncmp(ph, "REPEAT '", 8) == 0) {
            char *q = strchr(ph + 8, '\'');
            if (!q)
                die("{{REPEAT 'text' N}} wants the text quoted");
            long count = strtol(q + 1, NULL, 10);
            size_t tl = (size_t)(q - (ph + 8));
            for (long k = 0; k < count; k++)
                add(out, ph + 8, tl);
        } else if (strncmp(ph, "HEX ", 4) == 0) {
            char *p = ph + 4, *end;
            for (;;) {
                long v = strtol(p, &end, 16);
                if (end == p)
                    break;
                unsigned char c = (unsigned char)v;
                add(out, &c, 1);
                p = end;
            }
        } else if (strncmp(ph, "BINFILE ", 8) == 0) {
            struct buf path = {0};
            adds(&path, basedir);
            adds(&path, "/");
            adds(&path, ph + 8);
            if (read_file(path.data, out) < 0) {
                fprintf(stderr, "send: cannot read %s\n", path.data);
                exit(2);
            }
            free(path.data);
        } else {
            int k;
            for (k = 0; k < ndefs; k++)
                if (strcmp(def_name[k], ph) == 0)
                    break;
            if (k == ndefs) {
                fprintf(stderr, "send: unknown placeholder {{%s}}\n", ph);
                exit(2);
            }
            adds(out, def_value[k]);
        }
        free(ph);
        i = (size_t)(close + 2 - src);
    }
}

static int wait_fd(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    int rc;
    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    return rc > 0 ? 0 : -1;
}

/* Writes everything it can; a server that closes early is not an error here (its answer
 * may still be waiting to be read). */
static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        if (wait_fd(fd, POLLOUT) < 0)
            return;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Reads more bytes into b; 0 at end of stream, -1 on an error, -2 on a timeout. */
static int recv_more(int fd, struct buf *b)
{
    if (wait_fd(fd, POLLIN) < 0)
        return -2;
    char chunk[65536];
    ssize_t r;
    do
        r = recv(fd, chunk, sizeof chunk, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    add(b, chunk, (size_t)r);
    return r > 0 ? 1 : 0;
}

static const char *header_value(const char *head, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
        const char *line = p + 2;
        if (strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            line += nl + 1;
            while (*line == ' ' || *line == '\t')
                line++;
            return line;
        }
    }
    return NULL;
}

/* The server's frames after a 101: returns the close code, 0 for a close frame without
 * one, -1 when the connection ended (or went quiet) without a close frame. */
static int read_close(int fd, struct buf *in, size_t pos)
{
    for (;;) {
        while (in->len - pos >= 2) {
            const unsigned char *f = (const unsigned char *)in->data + pos;
            int op = f[0] & 0x0f;
            uint64_t plen = f[1] & 0x7f;
            size_t off = 2;
            if (plen == 126) {
                if (in->len - pos < 4)
                    break;
                plen = ((uint64_t)f[2] << 8) | f[3];
                off = 4;
            } else if (plen == 127) {
                if (in->len - pos < 10)
                    break;
                plen = 0;
                for (int k = 0; k < 8; k++)
                    plen = (plen << 8) | f[2 + k];
                off = 10;
            }
            if (f[1] & 0x80)
                off += 4;
            if (in->len - pos < off + plen)
                break;
            if (op == 8)
                return plen >= 2 ? (f[off] << 8) | f[off + 1] : 0;
            pos += off + (size_t)plen;
        }
        if (recv_more(fd, in) <= 0)
            return -1;
    }
}

/* The body after the head, per Content-Length, chunked, or until the server closes. */
static void read_body(int fd, struct buf *in, size_t start, int head_only, struct buf *body)
{
    const char *head = in->data;
    const char *cl = header_value(head, "content-length");
    const char *te = header_value(head, "transfer-encoding");
    if (head_only)
        return;
    if (cl) {
        size_t want = strtoull(cl, NULL, 10);
        while (in->len - start < want)
            if (recv_more(fd, in) <= 0)
                break;
        size_t have = in->len - start;
        add(body, in->data + start, have < want ? have : want);
        return;
    }
    if (te && strncasecmp(te, "chunked", 7) == 0) {
        size_t pos = start;
        for (;;) {
            char *eol;
            while (!(eol = find(in->data + pos, in->len - pos, "\r\n", 2)))
                if (recv_more(fd, in) <= 0)
                    return;
            size_t n = strtoull(in->data + pos, NULL, 16);
            size_t data = (size_t)(eol + 2 - in->data);
            if (n == 0)
                return;
            while (in->len < data + n + 2)
                if (recv_more(fd, in) <= 0)
                    return;
            add(body, in->data + data, n);
            pos = data + n + 2;
        }
    }
    while (recv_more(fd, in) > 0)
        ;
    add(body, in->data + start, in->len - start);
}

/* Prints "NAME VALUE" for the body's first "NAME":"VALUE" (the emulator's compact JSON),
 * "NAME -" when there is none. */
static void print_field(const struct buf *body, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *r = body->data ? strstr(body->data, key) : NULL;
    if (r) {
        r += strlen(key);
        while (*r == ' ')
            r++;
        if (*r == '"') {
            const char *e = r + 1;
            while (*e && *e != '"')
                e += e[0] == '\\' && e[1] ? 2 : 1;
            printf("%s %.*s\n", name, (int)(e - r - 1), r + 1);
            return;
        }
    }
    printf("%s -\n", name);
}

int main(int argc, char **argv)
{
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-D") == 0 && i + 1 < argc) {
            char *eq = strchr(argv[++i], '=');
            if (!eq || ndefs == MAX_DEFS)
                die("-D wants NAME=VALUE");
            *eq = '\0';
            def_name[ndefs] = argv[i];
            def_value[ndefs++] = eq + 1;
        } else if (strcmp(argv[i], "-B") == 0 && i + 1 < argc) {
            basedir = argv[++i];
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            timeout_ms = atoi(argv[++i]) * 1000;
            if (timeout_ms <= 0)
                die("-t wants a number of seconds");
        } else {
            break;
        }
    }
    if (argc - i != 3)
        die("usage: send [-D NAME=VALUE]... [-B BASEDIR] [-t SECONDS] HOST PORT FILE");
    const char *host = argv[i], *port = argv[i + 1], *file = argv[i + 2];

    struct buf src = {0};
    if (read_file(file, &src) < 0) {
        fprintf(stderr, "send: cannot read %s\n", file);
        return 2;
    }
    /* directives */
    size_t pos = 0;
    int frames_after_101 = 0;
    while (pos < src.len && src.data[pos] == '#') {
        char *eol = memchr(src.data + pos, '\n', src.len - pos);
        size_t end = eol ? (size_t)(eol - src.data) : src.len;
        if (find(src.data + pos, end - pos, "frames-after-101", 16))
            frames_after_101 = 1;
        pos = eol ? end + 1 : src.len;
    }
    const char *text = src.data + pos;
    size_t tlen = src.len - pos;
    const char *sep = find(text, tlen, "\n\n", 2);
    size_t head_len = sep ? (size_t)(sep - text) + 1 : tlen;
    const char *body_src = sep ? sep + 2 : text + tlen;
    size_t body_src_len = (size_t)(text + tlen - body_src);
    if (body_src_len && body_src[body_src_len - 1] == '\n')
        body_src_len--;

    struct buf body = {0}, head_x = {0}, head = {0};
    expand(body_src, body_src_len, &body, NULL);
    char lenbuf[32];
    snprintf(lenbuf, sizeof lenbuf, "%zu", body.len);
    expand(text, head_len, &head_x, lenbuf);
    for (size_t k = 0; k < head_x.len; k++) {
        if (head_x.data[k] == '\n')
            add(&head, "\r\n", 2);
        else
            add(&head, head_x.data + k, 1);
    }
    add(&head, "\r\n", 2);
    int head_only = strncmp(head.data, "HEAD ", 5) == 0;

    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        die("HOST wants an IPv4 address");
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        die("socket failed");
    struct timeval tv = {timeout_ms / 1000, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        die("cannot connect");

    send_all(fd, head.data, head.len);
    if (!frames_after_101)
        send_all(fd, body.data, body.len);

    struct buf in = {0}, rbody = {0};
    char *end;
    add(&in, "", 0);
    int rc = 1;
    while (!(end = find(in.data, in.len, "\r\n\r\n", 4)))
        if ((rc = recv_more(fd, &in)) <= 0)
            break;
    int code = 0;
    if (!end || sscanf(in.data, "HTTP/1.%*d %d", &code) != 1) {
        /* none: the server closed without an answer; timeout: it said nothing in time */
        printf("status %s\nreason -\nbody-bytes 0\n", rc == -2 ? "timeout" : "none");
        goto out;
    }
    size_t start = (size_t)(end + 4 - in.data);
    *end = '\0'; /* header lookups stop at the head */
    printf("status %d\n", code);
    if (code == 101) {
        printf("reason -\nbody-bytes 0\n");
        if (frames_after_101) {
            send_all(fd, body.data, body.len);
            int cc = read_close(fd, &in, start);
            if (cc < 0)
                printf("ws-close none\n");
            else
                printf("ws-close %d\n", cc);
        }
        goto out;
    }
    read_body(fd, &in, start, head_only, &rbody);
    add(&rbody, "", 0);
    print_field(&rbody, "reason");
    print_field(&rbody, "message");
    printf("body-bytes %zu\n", rbody.len);
out:
    close(fd);
    free(in.data);
    free(rbody.data);
    free(body.data);
    free(head_x.data);
    free(head.data);
    free(src.data);
    return 0;
}
