/* xmalloc.h: allocation that never returns NULL.
 *
 * Out of memory is not an error a caller can handle meaningfully; these report it on
 * stderr and exit(70) (EX_SOFTWARE). nd_xmalloc_install() hands the same allocator to
 * jansson so every json_t comes from here too.
 */
#ifndef ND_XMALLOC_H
#define ND_XMALLOC_H

#include <stddef.h>

void *nd_xmalloc(size_t n);
void *nd_xcalloc(size_t nmemb, size_t size);
void *nd_xrealloc(void *p, size_t n);
char *nd_xstrdup(const char *s);
char *nd_xstrndup(const char *s, size_t n);
/* Formats into a new string (free()). */
char *nd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Installs nd_xmalloc/free as jansson's allocator. Call once, before any json_t exists. */
void nd_xmalloc_install(void);

#endif
