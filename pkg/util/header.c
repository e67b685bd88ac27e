#include "util/header.h"

#include <string.h>
#include <strings.h>

bool nd_http_has_token(const char *list, const char *tok)
{
    size_t tl = strlen(tok);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m && (p[m - 1] == ' ' || p[m - 1] == '\t'))
            m--;
        if (m == tl && strncasecmp(p, tok, tl) == 0)
            return true;
        p += n;
    }
    return false;
}
