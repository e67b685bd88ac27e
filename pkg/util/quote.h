/* quote.h: user input quoted for error messages, the way Go's %q shows it.
 *
 * Messages of nodus echo a user's bad value the way Kubernetes does (`Invalid value:
 * "Foo"`), so the quoting follows Go's strconv.Quote for ASCII: `"` and `\` are
 * escaped, \a \b \f \n \r \t \v get their short escapes, other control bytes and DEL
 * become \xNN, C1 controls (U+0080..U+009F) \u00NN. Other valid UTF-8 sequences are
 * kept as they are; a byte that is not part of a valid sequence becomes \xNN. So the
 * result is always valid UTF-8, one line, and free of terminal controls.
 *
 * A value can be huge (a 1 MiB name): at most `max` bytes of it are shown (0: no
 * limit), never splitting a UTF-8 sequence, and a cut value is followed by `...`
 * after the closing quote: `"aaaa"...`.
 */
#ifndef ND_QUOTE_H
#define ND_QUOTE_H

#include <stddef.h>

#include "util/buf.h"

/* Length of the valid UTF-8 sequence at p (n bytes available, n >= 1), or 0 when the
 * bytes there are not one: a lone continuation byte, an overlong form, a surrogate, a
 * value above U+10FFFF or a sequence cut short (Go's utf8.DecodeRune). */
size_t nd_utf8_seq_len(const unsigned char *p, size_t n);

/* Bytes of a value shown by the modules of pkg/util in their messages. */
#define ND_QUOTE_MAX 256

/* Appends s quoted (NULL shows as ""). Returns the result of the appends (-1 when a
 * capped buffer overflowed). */
int nd_quote(struct nd_buf *b, const char *s, size_t max);
/* The same for n bytes of s, which may contain NUL bytes (shown as \x00). */
int nd_quote_n(struct nd_buf *b, const char *s, size_t n, size_t max);

/* Appends s single-quoted for a POSIX shell, bash and zsh ('it'\''s'); _n: n bytes of s. */
void nd_quote_shell(struct nd_buf *b, const char *s);
void nd_quote_shell_n(struct nd_buf *b, const char *s, size_t n);
/* Appends s as one word for a POSIX shell, for the commands that fixes print: as it is
 * when it holds only letters, digits and -_./:=@%+, else as nd_quote_shell quotes it. */
int nd_shell_word(struct nd_buf *b, const char *s);

#endif
