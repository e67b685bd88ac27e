/* embed.h: files compiled into the binary by scripts/embed.sh. */
#ifndef ND_EMBED_H
#define ND_EMBED_H

#include <stddef.h>

struct nd_embed {
    const char *name; /* base name of the source file; NULL ends a table */
    const char *data; /* the bytes, NUL-terminated */
    size_t len;
};

#endif
