/* pretty.h: an object file's text from the object's compact JSON, without a tree.
 *
 * A write serialises its object once (compact, for the journal, the store and the
 * answers); the file's indented text is that text re-spaced: the same bytes as jansson's
 * json_dumps(obj, JSON_INDENT(2)) of the same object, and a newline. */
#ifndef EM_PRETTY_H
#define EM_PRETTY_H

#include <stddef.h>

/* The indented text of the compact JSON json (len bytes, as json_dumps(JSON_COMPACT)
 * writes it), ending in a newline: NEW, its length in *out_len. */
char *em_pretty_from_compact(const char *json, size_t len, size_t *out_len);

#endif
