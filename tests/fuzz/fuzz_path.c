/* fuzz_path: the emulator's API path parser (emulator/api/path.c em_path_parse).
 * Input: a path (NUL ends it, as in a C string). When it parses, the parts must be
 * non-empty segments of the path without '/', and the depth consistent with them; a
 * .../watch/... path has a plural and no subresource. */
#include <stdio.h>

#include "fuzz.h"
#include "path.h"

static void segment(const char *s, const char *path)
{
    if (!s)
        return;
    FZ_ASSERT(*s && !strchr(s, '/'));
    FZ_ASSERT(strstr(path, s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    char *path = fz_str(data, size);
    struct em_path p;
    if (em_path_parse(path, &p) == 0) {
        FZ_ASSERT(p.group && p.version);
        FZ_ASSERT(!p.name || p.plural);
        FZ_ASSERT(!p.sub || p.name);
        FZ_ASSERT(p.depth >= 0 && p.depth <= 6);
        /* a deprecated watch path names a collection or an object, never a subresource */
        FZ_ASSERT(!p.watch || (p.plural && !p.sub && strstr(path, "watch")));
        if (*p.group)
            segment(p.group, path);
        segment(p.version, path);
        segment(p.ns, path);
        segment(p.plural, path);
        segment(p.name, path);
        segment(p.sub, path);
    }
    em_path_release(&p);
    free(path);
    return 0;
}
