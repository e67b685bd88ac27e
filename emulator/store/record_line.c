/* A journal record's line (store.h): {"rev","time","type","plural","object"}, the object
 * as its compact JSON. journal_scan.c reads what this writes without a parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "util/xmalloc.h"

char *em_store_record_line_bytes(int64_t rev, int64_t time_ms, const char *type,
                                 const char *plural, const char *json, size_t *len)
{
    /* the head by printf, the object copied (not through printf's %s twice: 5% of a
     * running Job's minute) */
    char head[256];
    int h = snprintf(head, sizeof head,
                     "{\"rev\":%lld,\"time\":%lld,\"type\":\"%s\",\"plural\":\"%s\",\"object\":",
                     (long long)rev, (long long)time_ms, type, plural);
    if (h < 0 || (size_t)h >= sizeof head) {
        char *line = nd_xasprintf("{\"rev\":%lld,\"time\":%lld,\"type\":\"%s\",\"plural\":"
                                  "\"%s\",\"object\":%s}", /* (a plural of 200 bytes) */
                                  (long long)rev, (long long)time_ms, type, plural, json);
        *len = strlen(line);
        return line;
    }
    size_t n = strlen(json);
    char *line = nd_xmalloc((size_t)h + n + 2);
    memcpy(line, head, (size_t)h);
    memcpy(line + h, json, n);
    line[h + n] = '}';
    line[h + n + 1] = '\0';
    *len = (size_t)h + n + 1;
    return line;
}

char *em_store_record_line(int64_t rev, int64_t time_ms, const char *type, const char *plural,
                           const json_t *obj, size_t *len)
{
    char *body = json_dumps(obj, JSON_COMPACT);
    char *line = em_store_record_line_bytes(rev, time_ms, type, plural, body, len);
    free(body);
    return line;
}
