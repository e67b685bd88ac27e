/* dl.c: see dl.h. */
#include "util/dl.h"

#include <dlfcn.h>
#include <string.h>

const char *nd_dl_bind(void *h, const struct nd_dl_sym *syms, size_t n, void *table)
{
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            dlclose(h);
            return syms[i].name;
        }
        /* POSIX guarantees a function pointer survives the trip through void * */
        memcpy((char *)table + syms[i].off, &f, sizeof f);
    }
    return NULL;
}
