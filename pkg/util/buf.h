/* buf.h: nd_buf, a growable string builder (after git's strbuf).
 *
 * `data` is never NULL and always NUL-terminated: an empty buffer points at a shared
 * empty string until the first append. A buffer may be capped (max > 0): an append
 * that would pass the cap appends nothing, sets `overflow` and returns -1, so a caller
 * building something from user input never grows without bound.
 */
#ifndef ND_BUF_H
#define ND_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct nd_buf {
    char *data;
    size_t len;
    size_t cap; /* 0 while data points at the shared empty string */
    size_t max; /* 0: no cap */
    bool overflow;
};

#define ND_BUF_INIT {nd_buf_empty, 0, 0, 0, false}
extern char nd_buf_empty[];

void nd_buf_init(struct nd_buf *b, size_t max);
void nd_buf_release(struct nd_buf *b);
/* Empties the buffer, keeping its memory and cap. */
void nd_buf_reset(struct nd_buf *b);
/* Makes room for n more bytes; -1 (and overflow) if that would pass the cap. */
int nd_buf_grow(struct nd_buf *b, size_t n);
int nd_buf_add(struct nd_buf *b, const void *p, size_t n);
int nd_buf_adds(struct nd_buf *b, const char *s);
int nd_buf_addch(struct nd_buf *b, char c);
int nd_buf_addf(struct nd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nd_buf_vaddf(struct nd_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Appends s with every byte outside [A-Za-z0-9-._~] percent-encoded (URL parts). */
int nd_buf_add_urlencoded(struct nd_buf *b, const char *s);
/* Shortens the buffer to len bytes (no-op if already shorter). */
void nd_buf_truncate(struct nd_buf *b, size_t len);
/* Returns the string (new, caller frees) and leaves the buffer empty. */
char *nd_buf_detach(struct nd_buf *b);

/* Hands out what b holds past *taken: copies up to max bytes of it to out and advances
 * *taken; once all is handed out, empties b and sets *taken to 0 (a stream's pending
 * bytes). The bytes copied: 0 when nothing is left. */
size_t nd_buf_take(struct nd_buf *b, size_t *taken, void *out, size_t max);

/* Appends all that fd holds up to its end (retrying on EINTR); the fd stays open.
 * 0, or -1 with errno set: a read error, or EFBIG (and overflow) when the content would
 * pass the buffer's cap, keeping the chunks read before it. */
int nd_buf_read_fd(struct nd_buf *b, int fd);
/* The same for the file at path (opened read-only, closed again): -1 with errno set when
 * it cannot be opened or read (ENOENT when it does not exist). */
int nd_buf_read_file(struct nd_buf *b, const char *path);

#endif
