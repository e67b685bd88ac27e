/* tar.c: the tar format: headers, pax records, the reader, member names. See tar.h. */
#include "tar/tar.h"
#include "tar/tar_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* ustar header fields: offset and size */
#define F_NAME    0, 100
#define F_MODE    100, 8
#define F_UID     108, 8
#define F_GID     116, 8
#define F_SIZE    124, 12
#define F_MTIME   136, 12
#define F_CHKSUM  148, 8
#define F_TYPE    156
#define F_LINK    157, 100
#define F_MAGIC   257, 6
#define F_VERSION 263, 2
#define F_PREFIX  345, 155

#define OCTAL_SIZE_MAX 077777777777ULL /* 11 octal digits */

void nd_tar_entry_release(struct nd_tar_entry *e)
{
    free(e->name);
    free(e->link);
    memset(e, 0, sizeof *e);
}

size_t nd_tar_padding(uint64_t size)
{
    return (size_t)((ND_TAR_BLOCK - size % ND_TAR_BLOCK) % ND_TAR_BLOCK);
}

void nd_tar_end(struct nd_buf *out)
{
    static const char zero[2 * ND_TAR_BLOCK];
    nd_buf_add(out, zero, sizeof zero);
}

/* ---- writing ---- */

static void put_octal(char *h, size_t off, size_t n, uint64_t v)
{
    /* n - 1 digits, zero-filled, then NUL */
    for (size_t i = n - 1; i-- > 0;) {
        h[off + i] = (char)('0' + (v & 7));
        v >>= 3;
    }
    h[off + n - 1] = '\0';
}

static void put_str(char *h, size_t off, size_t n, const char *s, size_t len)
{
    memcpy(h + off, s, len < n ? len : n);
}

/* One pax record "LEN key=value\n", where LEN counts the whole record. */
static void pax_record(struct nd_buf *b, const char *key, const char *value)
{
    size_t body = strlen(key) + strlen(value) + 3; /* ' ', '=', '\n' */
    size_t digits = 1, len;
    for (;;) {
        len = body + digits;
        size_t d = 1;
        for (size_t t = len; t >= 10; t /= 10)
            d++;
        if (d == digits)
            break;
        digits = d;
    }
    nd_buf_addf(b, "%zu %s=%s\n", len, key, value);
}

/* The fields of one ustar header block. */
struct raw {
    const char *name; /* name_len bytes of it */
    size_t name_len;
    const char *prefix; /* prefix_len bytes (0: none) */
    size_t prefix_len;
    char typeflag;
    unsigned mode;
    uint64_t size;
    int64_t mtime;
    const char *link; /* NULL: none */
};

static void raw_header(struct nd_buf *out, const struct raw *r)
{
    char h[ND_TAR_BLOCK];
    memset(h, 0, sizeof h);
    put_str(h, F_NAME, r->name, r->name_len);
    put_octal(h, F_MODE, r->mode & 07777);
    put_octal(h, F_UID, 0);
    put_octal(h, F_GID, 0);
    put_octal(h, F_SIZE, r->size <= OCTAL_SIZE_MAX ? r->size : 0);
    int64_t t = r->mtime;
    put_octal(h, F_MTIME, t < 0 ? 0 : (uint64_t)t > OCTAL_SIZE_MAX ? 0 : (uint64_t)t);
    h[F_TYPE] = r->typeflag;
    if (r->link)
        put_str(h, F_LINK, r->link, strlen(r->link));
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    if (r->prefix_len)
        put_str(h, F_PREFIX, r->prefix, r->prefix_len);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += (unsigned char)h[i];
    /* six octal digits, NUL, space */
    put_octal(h, 148, 7, sum);
    h[155] = ' ';
    nd_buf_add(out, h, sizeof h);
}

/* Splits a long name at a '/' into ustar's prefix (155) and name (100); -1 if no split. */
static int split_name(const char *name, size_t len, size_t *cut)
{
    if (len <= 100)
        return (*cut = 0), 0;
    for (size_t i = len - 1; i > 0; i--) {
        if (name[i] != '/')
            continue;
        if (i > 155)
            continue;
        if (len - i - 1 > 100 || len - i - 1 == 0)
            return -1; /* later slashes only leave a longer tail */
        *cut = i;
        return 0;
    }
    return -1;
}

void nd_tar_header(struct nd_buf *out, const char *name, enum nd_tar_type type, unsigned mode,
                   uint64_t size, int64_t mtime, const char *link)
{
    struct nd_buf full = ND_BUF_INIT;
    nd_buf_adds(&full, name);
    if (type == ND_TAR_DIR && (full.len == 0 || full.data[full.len - 1] != '/'))
        nd_buf_addch(&full, '/');
    char flag = type == ND_TAR_DIR        ? '5'
                : type == ND_TAR_SYMLINK  ? '2'
                : type == ND_TAR_HARDLINK ? '1'
                                          : '0';
    if (type != ND_TAR_FILE)
        size = 0;
    size_t cut = 0;
    bool long_name = split_name(full.data, full.len, &cut) < 0;
    bool long_link = link && strlen(link) > 100;
    bool big = size > OCTAL_SIZE_MAX;
    if (long_name || long_link || big) {
        struct nd_buf pax = ND_BUF_INIT;
        if (long_name)
            pax_record(&pax, "path", full.data);
        if (long_link)
            pax_record(&pax, "linkpath", link);
        if (big) {
            char num[32];
            snprintf(num, sizeof num, "%llu", (unsigned long long)size);
            pax_record(&pax, "size", num);
        }
        /* the pax header's own name: informative only */
        const char *base = strrchr(full.data, '/');
        base = base && base[1] ? base + 1 : full.data;
        char pname[101];
        snprintf(pname, sizeof pname, "PaxHeaders/%.80s", base);
        raw_header(out, &(struct raw){.name = pname,
                                      .name_len = strlen(pname),
                                      .typeflag = 'x',
                                      .mode = 0644,
                                      .size = pax.len,
                                      .mtime = mtime});
        nd_buf_add(out, pax.data, pax.len);
        static const char zero[ND_TAR_BLOCK];
        nd_buf_add(out, zero, nd_tar_padding(pax.len));
        nd_buf_release(&pax);
    }
    char shortlink[101];
    if (long_link) {
        memcpy(shortlink, link, 100);
        shortlink[100] = '\0';
        link = shortlink;
    }
    struct raw r = {.name = full.data,
                    .name_len = full.len,
                    .typeflag = flag,
                    .mode = mode,
                    .size = size,
                    .mtime = mtime,
                    .link = link};
    if (long_name) {
        r.name_len = full.len > 100 ? 100 : full.len;
    } else if (cut) {
        r.name = full.data + cut + 1;
        r.name_len = full.len - cut - 1;
        r.prefix = full.data;
        r.prefix_len = cut;
    }
    raw_header(out, &r);
    nd_buf_release(&full);
}

/* ---- reading ---- */

/* A numeric field: octal (spaces and NULs around it), or GNU base-256 (high bit set). */
static int get_number(const char *h, size_t off, size_t n, uint64_t *out)
{
    const unsigned char *p = (const unsigned char *)h + off;
    uint64_t v = 0;
    if (p[0] & 0x80) {
        if (p[0] != 0x80)
            return -1; /* negative, or too large for us */
        for (size_t i = 1; i < n; i++) {
            if (v >> 56)
                return -1;
            v = (v << 8) | p[i];
        }
        *out = v;
        return 0;
    }
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\0'))
        i++;
    if (i == n)
        return (*out = 0), 0;
    bool any = false;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(p[i] - '0');
        any = true;
    }
    for (; i < n; i++)
        if (p[i] != ' ' && p[i] != '\0')
            return -1;
    if (!any)
        return -1;
    *out = v;
    return 0;
}

static bool zero_block(const char *h)
{
    for (size_t i = 0; i < ND_TAR_BLOCK; i++)
        if (h[i])
            return false;
    return true;
}

static bool checksum_ok(const char *h)
{
    uint64_t want;
    if (get_number(h, F_CHKSUM, &want) < 0)
        return false;
    unsigned long u = 0;
    long s = 0;
    for (size_t i = 0; i < ND_TAR_BLOCK; i++) {
        unsigned char c = (i >= 148 && i < 156) ? ' ' : (unsigned char)h[i];
        u += c;
        s += (signed char)((i >= 148 && i < 156) ? ' ' : h[i]);
    }
    /* old tars summed signed chars */
    return want == u || (long long)want == (long long)s;
}

static char *field_str(const char *h, size_t off, size_t n)
{
    size_t len = strnlen(h + off, n);
    return nd_xstrndup(h + off, len);
}

void nd_tar_pending_release(struct nd_tar_pending *p)
{
    free(p->path);
    free(p->linkpath);
    memset(p, 0, sizeof *p);
}

int nd_tar_bad(struct nd_status *st, uint64_t off, const char *what)
{
    return nd_status_set(st, "BadRequest", "send a tar archive (ustar or pax), e.g. made by tar -c",
                         "the tar archive is malformed at byte %llu: %s", (unsigned long long)off,
                         what);
}

/* pax records of an 'x' header: path, linkpath, size; the rest is ignored. */
static int parse_pax(const char *d, size_t n, struct nd_tar_pending *p, uint64_t off,
                     struct nd_status *st)
{
    size_t i = 0;
    while (i < n) {
        if (d[i] == '\0')
            break; /* padding some writers leave */
        size_t len = 0, j = i;
        while (j < n && d[j] >= '0' && d[j] <= '9' && len < n)
            len = len * 10 + (size_t)(d[j++] - '0');
        if (j == i || j >= n || d[j] != ' ' || len <= j - i || len > n - i ||
            d[i + len - 1] != '\n')
            return nd_tar_bad(st, off, "a bad pax record");
        const char *kv = d + j + 1, *end = d + i + len - 1;
        const char *eq = memchr(kv, '=', (size_t)(end - kv));
        if (!eq)
            return nd_tar_bad(st, off, "a pax record without '='");
        size_t klen = (size_t)(eq - kv), vlen = (size_t)(end - eq - 1);
        bool name = (klen == 4 && memcmp(kv, "path", 4) == 0) ||
                    (klen == 8 && memcmp(kv, "linkpath", 8) == 0);
        /* a C string would end at the NUL: "ok\0/../x" must not become "ok" */
        if (name && memchr(eq + 1, '\0', vlen))
            return nd_tar_bad(st, off, "a pax path or linkpath holds a NUL byte");
        char *val = nd_xstrndup(eq + 1, vlen);
        if (klen == 4 && memcmp(kv, "path", 4) == 0) {
            free(p->path);
            p->path = val;
        } else if (klen == 8 && memcmp(kv, "linkpath", 8) == 0) {
            free(p->linkpath);
            p->linkpath = val;
        } else if (klen == 4 && memcmp(kv, "size", 4) == 0) {
            char *e2;
            unsigned long long v = strtoull(val, &e2, 10);
            bool ok = *val && !*e2;
            free(val);
            if (!ok)
                return nd_tar_bad(st, off, "a bad pax size");
            p->has_size = true;
            p->size = v;
        } else {
            free(val);
        }
        i += len;
    }
    return 0;
}

int nd_tar_apply_meta(char flag, const char *data, size_t n, struct nd_tar_pending *p,
                      uint64_t off, struct nd_status *st)
{
    if (flag == 'x')
        return parse_pax(data, n, p, off, st);
    if (flag == 'L' || flag == 'K') {
        char *s = nd_xstrndup(data, strnlen(data, n));
        char **dst = flag == 'L' ? &p->path : &p->linkpath;
        free(*dst);
        *dst = s;
    }
    return 0; /* 'g': ignored */
}

int nd_tar_parse_header(const char *h, uint64_t off, struct nd_tar_pending *p,
                        struct nd_tar_entry *e, uint64_t *dsize, char *flag_out,
                        struct nd_status *st)
{
    memset(e, 0, sizeof *e);
    if (!checksum_ok(h))
        return nd_tar_bad(st, off, "a header checksum does not match");
    uint64_t size, mode, mtime;
    if (get_number(h, F_SIZE, &size) < 0 || get_number(h, F_MODE, &mode) < 0 ||
        get_number(h, F_MTIME, &mtime) < 0)
        return nd_tar_bad(st, off, "a header number is not octal");
    char flag = h[F_TYPE];
    *flag_out = flag;
    if (p->has_size && flag != 'x' && flag != 'g')
        size = p->size;
    /* directories, links and devices have no content whatever the size says */
    bool has_data = flag == '0' || flag == '\0' || flag == '7' || flag == 'x' || flag == 'g' ||
                    flag == 'L' || flag == 'K' || (flag >= 'A' && flag <= 'Z');
    *dsize = has_data ? size : 0;
    if (flag == 'x' || flag == 'g' || flag == 'L' || flag == 'K')
        return 0;
    bool ustar = memcmp(h + 257, "ustar", 6) == 0; /* POSIX, not GNU's "ustar  " */
    if (p->path) {
        e->name = p->path;
        p->path = NULL;
    } else {
        char *name = field_str(h, F_NAME);
        char *prefix = ustar ? field_str(h, F_PREFIX) : nd_xstrdup("");
        e->name = *prefix ? nd_xasprintf("%s/%s", prefix, name) : nd_xstrdup(name);
        free(name);
        free(prefix);
    }
    e->typeflag = flag;
    switch (flag) {
    case '0':
    case '\0':
    case '7':
        e->type = ND_TAR_FILE;
        break;
    case '5':
        e->type = ND_TAR_DIR;
        break;
    case '2':
        e->type = ND_TAR_SYMLINK;
        break;
    case '1':
        e->type = ND_TAR_HARDLINK;
        break;
    default:
        e->type = ND_TAR_OTHER;
        break;
    }
    /* v7 archives mark directories by a trailing slash only */
    size_t nl = strlen(e->name);
    if (e->type == ND_TAR_FILE && nl && e->name[nl - 1] == '/')
        e->type = ND_TAR_DIR;
    if (e->type == ND_TAR_SYMLINK || e->type == ND_TAR_HARDLINK) {
        if (p->linkpath) {
            e->link = p->linkpath;
            p->linkpath = NULL;
        } else {
            e->link = field_str(h, F_LINK);
        }
    }
    e->mode = (unsigned)(mode & 07777);
    e->mtime = (int64_t)(mtime > INT64_MAX ? 0 : mtime);
    e->size = e->type == ND_TAR_FILE ? *dsize : 0;
    /* what follows is the next header: pending records were this member's */
    nd_tar_pending_release(p);
    return 1;
}

bool nd_tar_zero_block(const char *h)
{
    return zero_block(h);
}

void nd_tar_reader_init(struct nd_tar_reader *r, const char *data, size_t len)
{
    r->data = data;
    r->len = len;
    r->pos = 0;
}

int nd_tar_next(struct nd_tar_reader *r, struct nd_tar_entry *e, struct nd_status *st)
{
    memset(e, 0, sizeof *e);
    struct nd_tar_pending p = {0};
    int rc = -1;
    for (;;) {
        size_t off = r->pos;
        if (r->len - off == 0) {
            rc = p.path || p.linkpath || p.has_size
                     ? nd_tar_bad(st, off, "an extended header without its member")
                     : 0;
            goto out;
        }
        if (r->len - off < ND_TAR_BLOCK) {
            rc = nd_tar_bad(st, off, "a truncated header");
            goto out;
        }
        const char *h = r->data + off;
        if (zero_block(h)) {
            r->pos = r->len; /* the end: whatever follows is padding */
            rc = 0;
            goto out;
        }
        uint64_t dsize;
        char flag;
        int got = nd_tar_parse_header(h, off, &p, e, &dsize, &flag, st);
        if (got < 0)
            goto out;
        uint64_t room = r->len - off - ND_TAR_BLOCK;
        if (dsize > room || nd_tar_padding(dsize) > room - dsize) {
            nd_tar_entry_release(e);
            rc = nd_tar_bad(st, off, "a member is longer than the archive");
            goto out;
        }
        const char *data = h + ND_TAR_BLOCK;
        r->pos = off + ND_TAR_BLOCK + (size_t)dsize + nd_tar_padding(dsize);
        if (got == 0) {
            if (nd_tar_apply_meta(flag, data, (size_t)dsize, &p, off, st) < 0)
                goto out;
            continue;
        }
        e->data = data;
        rc = 1;
        goto out;
    }
out:
    nd_tar_pending_release(&p);
    if (rc < 0)
        nd_tar_entry_release(e);
    return rc;
}

/* The first bytes of s (at most 64, never splitting a UTF-8 sequence) and "..." when
 * that is not all of it. */
static void add_cut(struct nd_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n <= 64) {
        nd_buf_adds(b, s);
        return;
    }
    n = 64;
    while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    nd_buf_add(b, s, n);
    nd_buf_adds(b, "...");
}

int nd_tar_check_path(const char *path, struct nd_status *st)
{
    size_t len = strlen(path), longest = 0;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n > longest)
            longest = n;
        p += n;
        if (*p)
            p++;
    }
    if (longest <= ND_TAR_NAME_MAX && len <= ND_TAR_PATH_MAX)
        return 0;
    struct nd_buf b = ND_BUF_INIT;
    add_cut(&b, path);
    if (longest > ND_TAR_NAME_MAX)
        nd_status_set(st, "BadRequest", "use names of at most 255 bytes",
                      "\"%s\": a name of %zu bytes, more than the limit of %d (NAME_MAX)", b.data,
                      longest, ND_TAR_NAME_MAX);
    else
        nd_status_set(st, "BadRequest", "use paths of at most 4095 bytes",
                      "\"%s\": a path of %zu bytes, more than the limit of %d (PATH_MAX)", b.data,
                      len, ND_TAR_PATH_MAX);
    nd_buf_release(&b);
    return -1;
}

int nd_tar_clean_path(const char *name, struct nd_buf *out, struct nd_status *st)
{
    nd_buf_reset(out);
    const char *p = name;
    while (*p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return nd_status_set(st, "BadRequest", "name members inside the destination",
                                 "refused: \"%s\" has a \"..\" component (it would reach outside "
                                 "the destination)",
                                 name);
        if (out->len)
            nd_buf_addch(out, '/');
        nd_buf_add(out, p, n);
        p += n;
    }
    if (out->len && nd_tar_check_path(out->data, st) < 0) {
        nd_status_prefix(st, "refused");
        return -1;
    }
    return 0;
}
