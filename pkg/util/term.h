/* term.h: strings from a server made safe for a terminal (issue 19, item 7).
 *
 * A server (or anyone who can write an object's name, label, message or an error) must
 * not drive the terminal of whoever reads `nodus get` or `nodus describe`: an ESC
 * starts a CSI or OSC sequence (clear the screen, set the title, recolour text), a C1
 * control (U+0080..U+009F, e.g. U+009B, CSI in one character) does the same on
 * terminals that honour C1, and BEL, BS, CR or DEL hide or rewrite what is printed.
 * Every string from a server passes through nd_term_escape before a table, describe,
 * an error or a watch line prints it; -o json and -o yaml encode such characters
 * themselves, and jsonpath and log text stay as the server sent them (data, not
 * layout: see docs/security.md).
 *
 * What is escaped, visibly and so a person can tell it from the text around it:
 *   ESC            ^[      (kubectl's form)
 *   CR             \r      (kubectl's form)
 *   other C0, DEL  \xNN    (\x07, \x08, \x7f; LF and TAB only without the KEEP flags)
 *   C1 U+0080..9F  \u0080 .. \u009f
 *   a byte that is not UTF-8   \xNN (a lone 0x9b is CSI on an 8-bit terminal)
 * Everything else, UTF-8 text included, is copied as it is.
 */
#ifndef ND_TERM_H
#define ND_TERM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define ND_TERM_KEEP_NL  1u /* keep '\n' (describe's multi-line values) */
#define ND_TERM_KEEP_TAB 2u /* keep '\t' (table cells, as kubectl) */

/* Appends s[0, n) to out with the controls above escaped. */
void nd_term_escape(struct nd_buf *out, const char *s, size_t n, unsigned flags);
/* True when nd_term_escape would copy s[0, n) unchanged. */
bool nd_term_is_safe(const char *s, size_t n, unsigned flags);
/* s escaped, NEW (s may be NULL: NULL). */
char *nd_term_safe(const char *s, unsigned flags);
/* A deep copy of v whose every string, keys included, is escaped (keys without the
 * KEEP flags: a key is one line). NEW. */
json_t *nd_term_safe_json(const json_t *v, unsigned flags);

#endif
