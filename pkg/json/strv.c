/* strv.c: JSON arrays of strings as NULL-terminated vectors (argv, envp), and an
 * object's keys in order. */
#include "json/json.h"

#include <stdlib.h>
#include <string.h>

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

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **nd_json_sorted_keys(const json_t *obj, size_t *n)
{
    size_t k = 0, size = json_is_object(obj) ? json_object_size(obj) : 0;
    const char **keys = nd_xcalloc(size + 1, sizeof *keys);
    const char *key;
    const json_t *v;
    if (size)
        json_object_foreach((json_t *)obj, key, v) keys[k++] = key;
    qsort(keys, k, sizeof *keys, cmp_str);
    *n = k;
    return keys;
}
