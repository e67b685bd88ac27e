/* Decoding a protobuf v1 Namespace; see protobuf.h. */
#include "protobuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct pb {
    const unsigned char *p, *end;
    bool bad;
};

static uint64_t varint(struct pb *b)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (b->p >= b->end) {
            b->bad = true;
            return 0;
        }
        unsigned char c = *b->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    b->bad = true;
    return 0;
}

/* The next field: its number, wire type and, for length-delimited ones, the bytes. */
static bool next(struct pb *b, unsigned *field, unsigned *wire, struct pb *sub)
{
    if (b->p >= b->end || b->bad)
        return false;
    uint64_t key = varint(b);
    *field = (unsigned)(key >> 3);
    *wire = (unsigned)(key & 7);
    switch (*wire) {
    case 0: varint(b); break;
    case 1: b->p += 8; break;
    case 5: b->p += 4; break;
    case 2: {
        uint64_t n = varint(b);
        if (b->bad || n > (uint64_t)(b->end - b->p)) {
            b->bad = true;
            return false;
        }
        sub->p = b->p;
        sub->end = b->p + n;
        sub->bad = false;
        b->p += n;
        break;
    }
    default: b->bad = true; return false;
    }
    if (b->p > b->end) {
        b->bad = true;
        return false;
    }
    return !b->bad;
}

/* A string field; one holding a NUL (which names, keys and paths would cut short) sets
 * *nul, and the whole body is refused. */
static json_t *str(const struct pb *s, bool *nul)
{
    size_t n = (size_t)(s->end - s->p);
    if (memchr(s->p, '\0', n)) {
        *nul = true;
        return NULL;
    }
    return json_stringn((const char *)s->p, n);
}

/* A map<string,string> entry: key = 1, value = 2. */
static void map_entry(struct pb *e, json_t *map, bool *nul)
{
    unsigned f, w;
    struct pb s;
    json_t *k = NULL, *v = NULL;
    while (next(e, &f, &w, &s)) {
        if (w != 2)
            continue;
        if (f == 1) {
            json_decref(k);
            k = str(&s, nul);
        } else if (f == 2) {
            json_decref(v);
            v = str(&s, nul);
        }
    }
    if (k && json_string_value(k))
        json_object_set_new(map, json_string_value(k), v ? v : json_string(""));
    else
        json_decref(v);
    json_decref(k);
}

static json_t *object_meta(struct pb *m, bool *nul)
{
    json_t *meta = json_object();
    unsigned f, w;
    struct pb s;
    while (next(m, &f, &w, &s)) {
        if (w != 2)
            continue;
        json_t *v;
        switch (f) {
        case 1: json_object_set_new(meta, "name", str(&s, nul)); break;
        case 2: json_object_set_new(meta, "generateName", str(&s, nul)); break;
        case 11:
        case 12: {
            const char *key = f == 11 ? "labels" : "annotations";
            v = json_object_get(meta, key);
            if (!v) {
                v = json_object();
                json_object_set_new(meta, key, v);
            }
            map_entry(&s, v, nul);
            break;
        }
        case 14:
            v = json_object_get(meta, "finalizers");
            if (!v) {
                v = json_array();
                json_object_set_new(meta, "finalizers", v);
            }
            json_array_append_new(v, str(&s, nul));
            break;
        default: break;
        }
    }
    return meta;
}

/* The k8s envelope (runtime.Unknown): the kind of its TypeMeta, and the raw object. */
static int envelope(const unsigned char *data, size_t len, char kind[32], struct pb *raw,
                    struct nd_status *st)
{
    if (len < 4 || memcmp(data, "k8s\0", 4) != 0) {
        nd_status_set(st, "BadRequest", NULL, "a protobuf body must start with the k8s envelope");
        return -1;
    }
    struct pb env = {data + 4, data + len, false}, s;
    unsigned f, w;
    kind[0] = '\0';
    memset(raw, 0, sizeof *raw);
    while (next(&env, &f, &w, &s)) {
        if (f == 1 && w == 2) { /* TypeMeta: apiVersion = 1, kind = 2 */
            struct pb t;
            unsigned tf, tw;
            while (next(&s, &tf, &tw, &t))
                if (tf == 2 && tw == 2 && (size_t)(t.end - t.p) < 32) {
                    memcpy(kind, t.p, (size_t)(t.end - t.p));
                    kind[t.end - t.p] = '\0';
                }
        } else if (f == 2 && w == 2) {
            *raw = s;
        }
    }
    return env.bad ? -1 : 0;
}

json_t *em_protobuf_namespace(const unsigned char *data, size_t len, struct nd_status *st)
{
    struct pb raw, s;
    unsigned f, w;
    char kind[32];
    int env = envelope(data, len, kind, &raw, st);
    if (env < 0 && st->reason)
        return NULL;
    if (env < 0 || !raw.p || strcmp(kind, "Namespace") != 0) {
        nd_status_set(st, "UnsupportedMediaType", "send the object as JSON",
                      "only a v1 Namespace is read as protobuf; send other objects as JSON");
        return NULL;
    }
    json_t *obj = json_pack("{ssss}", "apiVersion", "v1", "kind", "Namespace");
    bool nul = false;
    while (next(&raw, &f, &w, &s)) {
        if (f == 1 && w == 2) {
            json_object_set_new(obj, "metadata", object_meta(&s, &nul));
        } else if (f == 2 && w == 2) {
            json_t *fins = json_array();
            struct pb t;
            unsigned tf, tw;
            while (next(&s, &tf, &tw, &t))
                if (tf == 1 && tw == 2)
                    json_array_append_new(fins, str(&t, &nul));
            if (json_array_size(fins))
                json_object_set_new(obj, "spec", json_pack("{so}", "finalizers", fins));
            else
                json_decref(fins);
        }
    }
    if (raw.bad) {
        json_decref(obj);
        nd_status_set(st, "BadRequest", NULL, "the protobuf Namespace does not decode");
        return NULL;
    }
    if (nul) {
        json_decref(obj);
        nd_status_set(st, "BadRequest", "send names, labels and annotations without NUL",
                      "a string of the protobuf Namespace holds a NUL character");
        return NULL;
    }
    return obj;
}

/* Fields 1.. of a message of strings, named in order (NULL: skipped). NEW object. */
static json_t *strings(struct pb *m, const char *const *names, size_t n, bool *nul)
{
    json_t *o = json_object();
    unsigned f, w;
    struct pb s;
    while (next(m, &f, &w, &s))
        if (w == 2 && f >= 1 && f <= n && names[f - 1])
            json_object_set_new(o, names[f - 1], str(&s, nul));
    return o;
}

json_t *em_protobuf_review(const unsigned char *data, size_t len, struct nd_status *st)
{
    static const char *const resource[] = {"namespace", "verb",        "group", "version",
                                           "resource",  "subresource", "name"};
    static const char *const nonresource[] = {"path", "verb"};
    struct pb raw, s;
    unsigned f, w;
    char kind[32];
    int env = envelope(data, len, kind, &raw, st);
    if (env < 0 && st->reason)
        return NULL;
    static const char *const rules_spec[] = {"namespace"};
    bool access = strcmp(kind, "SelfSubjectAccessReview") == 0;
    bool rules = strcmp(kind, "SelfSubjectRulesReview") == 0;
    if (env < 0 || !raw.p || (!access && !rules && strcmp(kind, "SelfSubjectReview") != 0)) {
        nd_status_set(st, "BadRequest", NULL,
                      "the protobuf body is not a SelfSubjectReview, SelfSubjectAccessReview "
                      "or SelfSubjectRulesReview");
        return NULL;
    }
    json_t *obj = json_pack("{sssss{}}", "kind", kind, "apiVersion",
                            access || rules ? "authorization.k8s.io/v1"
                                            : "authentication.k8s.io/v1",
                            "spec");
    bool nul = false;
    while ((access || rules) && next(&raw, &f, &w, &s)) {
        if (f != 2 || w != 2)
            continue; /* metadata 1, spec 2, status 3 */
        if (rules) { /* SelfSubjectRulesReviewSpec: namespace 1 */
            json_object_set_new(obj, "spec", strings(&s, rules_spec, 1, &nul));
            continue;
        }
        struct pb a;
        unsigned af, aw;
        while (next(&s, &af, &aw, &a)) {
            if (aw == 2 && af == 1)
                json_object_set_new(json_object_get(obj, "spec"), "resourceAttributes",
                                    strings(&a, resource, 7, &nul));
            else if (aw == 2 && af == 2)
                json_object_set_new(json_object_get(obj, "spec"), "nonResourceAttributes",
                                    strings(&a, nonresource, 2, &nul));
        }
    }
    if (raw.bad || nul) {
        json_decref(obj);
        nd_status_set(st, "BadRequest", NULL, "the protobuf %s does not decode", kind);
        return NULL;
    }
    return obj;
}
