#include "path.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

#define MAX_SEGS 10

static int split(const char *path, char **segs)
{
    int n = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == MAX_SEGS)
            return -1;
        segs[n++] = nd_xstrndup(p, len);
        p += len;
    }
    return n;
}

void em_path_release(struct em_path *p)
{
    free(p->group);
    free(p->version);
    free(p->ns);
    free(p->plural);
    free(p->name);
    free(p->sub);
    memset(p, 0, sizeof *p);
}

int em_path_parse(const char *path, struct em_path *p)
{
    memset(p, 0, sizeof *p);
    char *segs[MAX_SEGS] = {0};
    int n = split(path, segs);
    int rc = -1, i = 0;
    if (n < 0)
        goto out;
    if (n >= 2 && strcmp(segs[0], "api") == 0) {
        p->group = nd_xstrdup("");
        p->version = nd_xstrdup(segs[1]);
        i = 2;
    } else if (n >= 3 && strcmp(segs[0], "apis") == 0) {
        p->group = nd_xstrdup(segs[1]);
        p->version = nd_xstrdup(segs[2]);
        i = 3;
    } else {
        goto out;
    }
    int rest = n - i;
    p->depth = rest;
    char **r = segs + i;
    if (rest >= 2 && strcmp(r[0], "watch") == 0) {
        /* /watch/{plural}... : the object paths after it, watched (no subresource) */
        p->watch = true;
        r++;
        rest--;
    }
    if (rest >= 3 && strcmp(r[0], "namespaces") == 0) {
        /* /namespaces/{ns}/{plural}... ; but /namespaces/{name}/{sub} of the core group
         * names the Namespace's own subresources (status, finalize). */
        bool ns_sub = *p->group == '\0' && rest == 3 &&
                      (strcmp(r[2], "status") == 0 || strcmp(r[2], "finalize") == 0);
        if (!ns_sub) {
            p->ns = nd_xstrdup(r[1]);
            r += 2;
            rest -= 2;
        }
    }
    if (rest > 4)
        goto out;
    if (rest >= 1)
        p->plural = nd_xstrdup(r[0]);
    if (rest >= 2)
        p->name = nd_xstrdup(r[1]);
    if (rest >= 3 && p->watch)
        goto out; /* a subresource is not watched */
    if (rest >= 3)
        p->sub = nd_xstrdup(r[2]);
    if (rest >= 4) {
        /* only files/... style deeper paths are not served */
        goto out;
    }
    rc = 0;
out:
    for (int k = 0; k < MAX_SEGS; k++)
        free(segs[k]);
    if (rc < 0)
        em_path_release(p);
    return rc;
}
