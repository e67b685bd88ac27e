/* A revision's compact JSON from the previous revision's bytes; see splice.h. */
#include "splice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* How deep the splice looks for shared members: obj's (0) and its members' (1), so a
 * Job's metadata and status are spliced member by member; deeper, a changed value is
 * dumped whole. */
#define SPLICE_DEPTH 2
/* The most members of an object the splice reads from the previous bytes. */
#define SPLICE_MEMBERS 64

/* The end of the string that starts at p (at its opening quote), past its closing one;
 * NULL when the text ends first. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* The end of the compact JSON value that starts at p; NULL when it is not one whole. */
static const char *skip_value(const char *p, const char *end)
{
    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string(p, end);
    if (*p != '{' && *p != '[') { /* a number, true, false, null */
        while (p < end && *p != ',' && *p != '}' && *p != ']')
            p++;
        return p;
    }
    int depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            p = skip_string(p, end);
            if (!p)
                return NULL;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return p + 1;
        p++;
    }
    return NULL;
}

int em_json_members(const char *p, const char *end, struct em_json_member *m, int max)
{
    if (p >= end || *p != '{' || end[-1] != '}')
        return -1;
    p++;
    if (p < end && *p == '}')
        return p + 1 == end ? 0 : -1;
    int n = 0;
    while (p < end) {
        if (n == max || *p != '"')
            return -1;
        const char *k = p + 1;
        const char *ke = skip_string(p, end);
        if (!ke || memchr(k, '\\', (size_t)(ke - 1 - k)) || ke >= end || *ke != ':')
            return -1;
        const char *v = ke + 1;
        const char *ve = skip_value(v, end);
        if (!ve || ve >= end)
            return -1;
        m[n++] = (struct em_json_member){k, v, (size_t)(ke - 1 - k), (size_t)(ve - v)};
        if (*ve == '}')
            return ve + 1 == end ? n : -1;
        if (*ve != ',')
            return -1;
        p = ve + 1;
    }
    return -1;
}

static const struct em_json_member *find(const struct em_json_member *m, int n,
                                         const char *key, size_t klen)
{
    for (int i = 0; i < n; i++) {
        if (m[i].klen == klen && memcmp(m[i].key, key, klen) == 0)
            return &m[i];
    }
    return NULL;
}

/* A key jansson writes as it is: printable ASCII, nothing its compact dump escapes (a
 * key of other bytes, rare, has the object dumped whole). */
static bool plain_key(const char *key, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return false;
    }
    return true;
}

static int add_dump(const char *buffer, size_t size, void *data)
{
    return nd_buf_add(data, buffer, size) < 0 ? -1 : 0;
}

/* Whether obj shares a member with prev (or, above the depth, a member's member). */
static bool shares(const json_t *obj, const json_t *prev, int depth)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        const json_t *pv = json_object_get(prev, key);
        if (pv == v)
            return true;
        if (depth + 1 < SPLICE_DEPTH && json_is_object(v) && json_is_object(pv) &&
            shares(v, pv, depth + 1))
            return true;
    }
    return false;
}

/* Appends obj's compact dump to out, prev's text [p, end) giving the members obj shares
 * with prev (an object too). False when it could not. */
static bool splice_object(struct nd_buf *out, const json_t *obj, const json_t *prev,
                          const char *p, const char *end, int depth)
{
    struct em_json_member m[SPLICE_MEMBERS];
    int n = em_json_members(p, end, m, SPLICE_MEMBERS);
    if (n < 0 || (size_t)n != json_object_size(prev))
        return false;
    nd_buf_addch(out, '{');
    bool first = true;
    void *it;
    for (it = json_object_iter((json_t *)obj); it; it = json_object_iter_next((json_t *)obj, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        const json_t *v = json_object_iter_value(it);
        if (!plain_key(key, klen))
            return false;
        if (!first)
            nd_buf_addch(out, ',');
        first = false;
        nd_buf_addch(out, '"');
        nd_buf_add(out, key, klen);
        nd_buf_add(out, "\":", 2);
        const json_t *pv = json_object_getn(prev, key, klen);
        const struct em_json_member *pm = pv ? find(m, n, key, klen) : NULL;
        if (pv && !pm)
            return false; /* the text is not prev's */
        if (pv == v) {
            nd_buf_add(out, pm->val, pm->vlen);
        } else if (pv && depth + 1 < SPLICE_DEPTH && json_is_object(v) && json_is_object(pv)) {
            if (!splice_object(out, v, pv, pm->val, pm->val + pm->vlen, depth + 1))
                return false;
        } else if (json_dump_callback(v, add_dump, out, JSON_COMPACT | JSON_ENCODE_ANY) < 0) {
            return false;
        }
    }
    nd_buf_addch(out, '}');
    return !out->overflow;
}

struct em_bytes *em_dump_splice(const json_t *obj, const json_t *prev,
                                const struct em_bytes *prev_json)
{
    if (!json_is_object(obj) || !json_is_object(prev) || !prev_json || !shares(obj, prev, 0))
        return NULL;
    /* made in a buffer kept from one write to the next: a large allocation a write has
     * malloc consolidate the heap's small free chunks first (4% of a running Job's minute)
     * (the store's writes are made under the server's lock) */
    static struct nd_buf out = ND_BUF_INIT;
    if (out.cap > (64u << 10)) /* not kept at every object's size: a big one's goes */
        nd_buf_release(&out);
    nd_buf_reset(&out);
    nd_buf_grow(&out, prev_json->len + 256);
    if (!splice_object(&out, obj, prev, prev_json->data, prev_json->data + prev_json->len, 0))
        return NULL;
    return em_bytes_new(out.data, out.len);
}

static uint64_t spliced; /* under the server's lock, as the store */

uint64_t em_dump_spliced(void)
{
    return spliced;
}

/* NODUS_EMULATOR_TEST_FULL_DUMP: 1; NODUS_EMULATOR_TEST_CHECK_DUMP: 2; else 0. */
static int test_mode(void)
{
    static int mode = -1;
    if (mode < 0) {
        const char *full = getenv("NODUS_EMULATOR_TEST_FULL_DUMP");
        const char *check = getenv("NODUS_EMULATOR_TEST_CHECK_DUMP");
        mode = full && *full && strcmp(full, "0") != 0     ? 1
               : check && *check && strcmp(check, "0") != 0 ? 2
                                                            : 0;
    }
    return mode;
}

struct em_bytes *em_dump_next(const json_t *obj, const json_t *prev,
                              const struct em_bytes *prev_json)
{
    int mode = test_mode();
    struct em_bytes *b = mode == 1 ? NULL : em_dump_splice(obj, prev, prev_json);
    if (b && mode == 2) {
        char *full = json_dumps(obj, JSON_COMPACT);
        if (!full || strlen(full) != b->len || memcmp(full, b->data, b->len) != 0) {
            fprintf(stderr, "nodus-emulator: the spliced dump differs from jansson's:\n%s\n%s\n",
                    b->data, full ? full : "(none)");
            abort();
        }
        free(full);
    }
    if (b) {
        spliced++;
        return b;
    }
    char *s = json_dumps(obj, JSON_COMPACT);
    return s ? em_bytes_take(s) : NULL;
}
