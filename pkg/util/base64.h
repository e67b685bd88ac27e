/* base64.h: RFC 4648 base64, standard and URL-safe alphabets. */
#ifndef ND_BASE64_H
#define ND_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Appends the encoding of n bytes; url selects the URL-safe alphabet without padding. */
int nd_base64_encode(const void *p, size_t n, bool url, struct nd_buf *out);
/* Appends the decoded bytes of s (either alphabet, padding optional, whitespace skipped).
 * -1 on a character outside the alphabet or a truncated final group. */
int nd_base64_decode(const char *s, size_t n, struct nd_buf *out);

#endif
