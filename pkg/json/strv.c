/* strv.c: JSON arrays of strings as NULL-terminated vectors (argv, envp). */
#include "json/json.h"

#include <stdlib.h>

#include "util/xmalloc.h"

char **nd_json_strv(const json_t *arr)
{
    size_t n = json_array_size(arr);
    char **v = nd_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        v[i] = nd_xstrdup(s ? s : "");
    }
    return v;
}

void nd_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}
