/* tar_internal.h: what the in-memory reader (tar.c), the push reader (tar_push.c) and
 * the extractor (tar_fs.c) share. Not part of libnodus's API. */
#ifndef ND_TAR_INTERNAL_H
#define ND_TAR_INTERNAL_H

#include "tar/tar.h"

/* What extended headers ('x' pax, 'L' and 'K' GNU long names) said about the next
 * member. */
struct nd_tar_pending {
    char *path, *linkpath;
    bool has_size;
    uint64_t size;
};

void nd_tar_pending_release(struct nd_tar_pending *p);
/* BadRequest: "the tar archive is malformed at byte OFF: WHAT"; returns -1. */
int nd_tar_bad(struct nd_status *st, uint64_t off, const char *what);
bool nd_tar_zero_block(const char *h);
/* Parses the header block h (not a zero block) found at byte off. *dsize: the bytes of
 * content that follow it (before padding); *flag: its type byte. Returns 1 for a member
 * (e filled, p's records used up), 0 for an extended header whose content
 * nd_tar_apply_meta takes, -1 with st. */
int nd_tar_parse_header(const char *h, uint64_t off, struct nd_tar_pending *p,
                        struct nd_tar_entry *e, uint64_t *dsize, char *flag,
                        struct nd_status *st);
int nd_tar_apply_meta(char flag, const char *data, size_t n, struct nd_tar_pending *p,
                      uint64_t off, struct nd_status *st);

#endif
