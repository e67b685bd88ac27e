/* The subresource table; see subresource.h. Each row's handler lives in its own file. */
#include "subresource.h"

#include <string.h>

#include "logs.h"
#include "exec.h"
#include "files.h"

static const struct {
    const char *name;
    em_subresource_fn fn;
} table[] = {
    {"invoke", em_function_invoke},
    {"log", em_logs_serve},
    {"exec", em_exec_handle},
    {"files", em_files_handle},
    {NULL, NULL},
};

int em_subresource_dispatch(struct em_api *a, const char *verb)
{
    const char *sub = a->path.sub;
    if (nd_kind_has_subresource(a->kind, sub)) {
        for (int i = 0; table[i].name; i++)
            if (!strcmp(table[i].name, sub))
                return table[i].fn(a, verb);
    }
    return nd_status_set(&a->st, "NotFound", NULL,
                         "the server could not find the requested resource");
}
