/* store_tmpdir.h: the store tests' scratch directory (include after cmocka.h). */
#ifndef ND_TEST_STORE_TMPDIR_H
#define ND_TEST_STORE_TMPDIR_H

#include <stdlib.h>

#include "util/xmalloc.h"

/* A NEW empty directory under $TMPDIR (or /tmp) named nd-TAG-<random>. */
static inline char *store_tmpdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char *t = nd_xasprintf("%s/nd-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    assert_non_null(mkdtemp(t));
    return t;
}

#endif
