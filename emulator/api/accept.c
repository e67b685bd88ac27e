/* The Accept header; see accept.h. */
#include "accept.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SERVED                                                                                     \
    "application/json, application/json;as=Table;v=v1;g=meta.k8s.io, "                             \
    "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, "                               \
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"

/* Copies s[0..n) trimmed into out (cut to its size), printable ASCII only ('?' for the
 * rest): what a message may echo. */
static void copy_trimmed(char *out, size_t size, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = s[i] > ' ' && s[i] < 0x7f ? s[i] : '?';
    out[n] = '\0';
}

/* 0 for `*` `/` `*`, 1 for `type/` `*`, 2 for a full type. */
static int specificity(const char *type)
{
    if (strcmp(type, "*/*") == 0)
        return 0;
    const char *slash = strchr(type, '/');
    return slash && strcmp(slash, "/*") == 0 ? 1 : 2;
}

/* One parameter (s[0..n), "name=value") into c. */
static void param(struct em_accept_clause *c, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return;
    char name[8];
    copy_trimmed(name, sizeof name, s, (size_t)(eq - s));
    const char *v = eq + 1;
    size_t vn = n - (size_t)(v - s);
    if (strcmp(name, "q") == 0) {
        char num[16];
        copy_trimmed(num, sizeof num, v, vn);
        c->q = strtod(num, NULL);
    } else if (strcmp(name, "as") == 0) {
        copy_trimmed(c->as, sizeof c->as, v, vn);
    } else if (strcmp(name, "g") == 0) {
        copy_trimmed(c->g, sizeof c->g, v, vn);
    } else if (strcmp(name, "v") == 0) {
        copy_trimmed(c->v, sizeof c->v, v, vn);
    }
}

size_t em_accept_clauses(const char *accept, struct em_accept_clause *out, size_t max)
{
    size_t n = 0;
    for (const char *p = accept; p && *p && n < max;) {
        size_t len = strcspn(p, ",");
        size_t tlen = strcspn(p, ";,");
        struct em_accept_clause c = {.q = 1};
        copy_trimmed(c.type, sizeof c.type, p, tlen);
        for (const char *s = p + tlen; s < p + len;) {
            s++; /* the ';' */
            size_t plen = strcspn(s, ";,");
            param(&c, s, plen);
            s += plen;
        }
        if (*c.type) {
            /* after every clause it does not beat: a stable sort */
            size_t at = n;
            int spec = specificity(c.type);
            while (at > 0 && (out[at - 1].q < c.q ||
                              (out[at - 1].q == c.q && specificity(out[at - 1].type) < spec))) {
                out[at] = out[at - 1];
                at--;
            }
            out[at] = c;
            n++;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return n;
}

static bool is_json(const char *type)
{
    return strcasecmp(type, "application/json") == 0 ||
           strcasecmp(type, "application/x-ndjson") == 0 || strcmp(type, "*/*") == 0 ||
           strcasecmp(type, "application/*") == 0;
}

/* The conversion as= names, or -1 for one this server does not make. */
static int conversion(const char *as)
{
    if (strcmp(as, "Table") == 0)
        return EM_REPR_TABLE;
    if (strcmp(as, "PartialObjectMetadata") == 0)
        return EM_REPR_META;
    if (strcmp(as, "PartialObjectMetadataList") == 0)
        return EM_REPR_META_LIST;
    return -1;
}

static int not_acceptable(const struct em_accept_clause *c, struct nd_status *st)
{
    nd_status_set(st, "NotAcceptable", "ask for application/json",
                  "only the following media types are accepted: " SERVED);
    if (!c)
        return -1;
    if (!is_json(c->type))
        nd_status_set_fix(st, "ask for application/json: this server answers in JSON, not %s",
                          c->type);
    else if (conversion(c->as) < 0)
        nd_status_set_fix(st,
                          "as=%s is not an answer this server makes: ask for as=Table, "
                          "as=PartialObjectMetadata (one object) or as=PartialObjectMetadataList "
                          "(a list) with g=meta.k8s.io;v=v1, or for plain application/json",
                          c->as);
    else
        nd_status_set_fix(st,
                          "as=%s is served with g=meta.k8s.io and v=v1 or v=v1beta1 (this "
                          "Accept has g=%s;v=%s)",
                          c->as, c->g, c->v);
    return -1;
}

int em_accept_choose(const char *accept, struct em_accept *out, struct nd_status *st)
{
    *out = (struct em_accept){.repr = EM_REPR_OBJECT, .version = "v1"};
    if (!accept || !*accept)
        return 0;
    struct em_accept_clause cl[16];
    size_t n = em_accept_clauses(accept, cl, sizeof cl / sizeof cl[0]);
    const struct em_accept_clause *refused = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct em_accept_clause *c = &cl[i];
        if (c->q <= 0)
            continue;
        int conv = *c->as ? conversion(c->as) : EM_REPR_OBJECT;
        bool gv = strcmp(c->g, "meta.k8s.io") == 0 &&
                  (strcmp(c->v, "v1") == 0 || strcmp(c->v, "v1beta1") == 0);
        if (!is_json(c->type) || conv < 0 || (*c->as && !gv)) {
            if (!refused)
                refused = c;
            continue;
        }
        out->repr = (enum em_repr)conv;
        out->version = strcmp(c->v, "v1beta1") == 0 ? "v1beta1" : "v1";
        return 0;
    }
    return not_acceptable(refused, st);
}

int em_accept_fits(const struct em_accept *acc, bool list, const char *what, struct nd_status *st)
{
    if (acc->repr == EM_REPR_META && list) {
        nd_status_set(st, "NotAcceptable", NULL,
                      "you requested PartialObjectMetadata, but the requested object is a list "
                      "(%s)",
                      what);
        nd_status_set_fix(st,
                          "ask for application/json;as=PartialObjectMetadataList;g=meta.k8s.io;"
                          "v=%s for a list (PartialObjectMetadata is one object)",
                          acc->version);
        return -1;
    }
    if (acc->repr == EM_REPR_META_LIST && !list) {
        nd_status_set(st, "NotAcceptable", NULL,
                      "you requested PartialObjectMetadataList, but the requested object is not "
                      "a list (%s)",
                      what);
        nd_status_set_fix(st,
                          "ask for application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=%s "
                          "for one object or a watch's events (PartialObjectMetadataList is a "
                          "list)",
                          acc->version);
        return -1;
    }
    return 0;
}
