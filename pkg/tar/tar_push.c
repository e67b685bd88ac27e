/* tar_push.c: reading an archive as it arrives, piece by piece (an upload, a download):
 * the same format rules as nd_tar_next, without ever holding more than one header block
 * and one extended header. See tar.h. */
#include <stdlib.h>
#include <string.h>

#include "tar/tar.h"
#include "tar/tar_internal.h"
#include "util/xmalloc.h"

#define META_MAX (1u << 20) /* a pax header or a GNU long name */

enum state { HEADER, META, DATA, PAD, END, FAILED };

struct nd_tar_push {
    const struct nd_tar_push_ops *ops;
    void *cls;
    enum state state;
    char block[ND_TAR_BLOCK];
    size_t have;      /* bytes of block filled */
    uint64_t off;     /* bytes of the archive taken so far */
    uint64_t hdr_off; /* where the current header began */
    uint64_t left;    /* content bytes still to come */
    size_t pad;       /* padding bytes still to come */
    char flag;        /* the current header's type */
    struct nd_buf meta;
    struct nd_tar_pending p;
    size_t members;
};

struct nd_tar_push *nd_tar_push_new(const struct nd_tar_push_ops *ops, void *cls)
{
    struct nd_tar_push *r = nd_xcalloc(1, sizeof *r);
    r->ops = ops;
    r->cls = cls;
    nd_buf_init(&r->meta, META_MAX + 1);
    return r;
}

void nd_tar_push_free(struct nd_tar_push *r)
{
    if (!r)
        return;
    nd_buf_release(&r->meta);
    nd_tar_pending_release(&r->p);
    free(r);
}

bool nd_tar_push_ended(const struct nd_tar_push *r)
{
    return r->state == END;
}

size_t nd_tar_push_members(const struct nd_tar_push *r)
{
    return r->members;
}

static int fail(struct nd_tar_push *r)
{
    r->state = FAILED;
    return -1;
}

/* A member's content is over (or it had none): its padding, then the next header. */
static int content_done(struct nd_tar_push *r, struct nd_status *st)
{
    if (r->flag != 'x' && r->flag != 'g' && r->flag != 'L' && r->flag != 'K') {
        if (r->ops->end && r->ops->end(r->cls, st) < 0)
            return fail(r);
    } else if (nd_tar_apply_meta(r->flag, r->meta.data, r->meta.len, &r->p, r->hdr_off, st) < 0) {
        return fail(r);
    }
    r->state = r->pad ? PAD : HEADER;
    return 0;
}

static int header(struct nd_tar_push *r, struct nd_status *st)
{
    r->have = 0;
    r->hdr_off = r->off - ND_TAR_BLOCK;
    if (nd_tar_zero_block(r->block)) {
        r->state = END; /* whatever follows is padding */
        return 0;
    }
    struct nd_tar_entry e;
    uint64_t dsize;
    int got = nd_tar_parse_header(r->block, r->hdr_off, &r->p, &e, &dsize, &r->flag, st);
    if (got < 0)
        return fail(r);
    r->left = dsize;
    r->pad = nd_tar_padding(dsize);
    if (got == 0) {
        if (dsize > META_MAX) {
            nd_tar_bad(st, r->hdr_off, "an extended header longer than 1 MiB");
            return fail(r);
        }
        nd_buf_reset(&r->meta);
        r->state = META;
    } else {
        r->members++;
        int rc = r->ops->member ? r->ops->member(r->cls, &e, st) : 0;
        nd_tar_entry_release(&e);
        if (rc < 0)
            return fail(r);
        r->state = DATA;
    }
    return r->left ? 0 : content_done(r, st);
}

int nd_tar_push_write(struct nd_tar_push *r, const char *p, size_t n, struct nd_status *st)
{
    if (r->state == FAILED)
        return nd_status_set(st, "BadRequest", NULL, "the archive was already refused");
    while (n) {
        size_t k;
        switch (r->state) {
        case END:
            r->off += n; /* padding after the end */
            return 0;
        case HEADER:
            k = ND_TAR_BLOCK - r->have < n ? ND_TAR_BLOCK - r->have : n;
            memcpy(r->block + r->have, p, k);
            r->have += k;
            r->off += k;
            p += k;
            n -= k;
            if (r->have == ND_TAR_BLOCK && header(r, st) < 0)
                return -1;
            break;
        case META:
        case DATA:
            k = r->left < n ? (size_t)r->left : n;
            if (r->state == META)
                nd_buf_add(&r->meta, p, k);
            else if (r->ops->data && r->ops->data(r->cls, p, k, st) < 0)
                return fail(r);
            r->left -= k;
            r->off += k;
            p += k;
            n -= k;
            if (!r->left && content_done(r, st) < 0)
                return -1;
            break;
        case PAD:
            k = r->pad < n ? r->pad : n;
            r->pad -= k;
            r->off += k;
            p += k;
            n -= k;
            if (!r->pad)
                r->state = HEADER;
            break;
        case FAILED:
            return -1;
        }
    }
    return 0;
}

int nd_tar_push_finish(struct nd_tar_push *r, struct nd_status *st)
{
    switch (r->state) {
    case END:
        return 0;
    case HEADER:
        if (r->have)
            return nd_tar_bad(st, r->off - r->have, "a truncated header");
        if (r->p.path || r->p.linkpath || r->p.has_size)
            return nd_tar_bad(st, r->off, "an extended header without its member");
        return 0; /* the end of the data on a block boundary */
    case FAILED:
        return nd_status_set(st, "BadRequest", NULL, "the archive was refused");
    default:
        return nd_tar_bad(st, r->hdr_off, "a member is longer than the archive");
    }
}
