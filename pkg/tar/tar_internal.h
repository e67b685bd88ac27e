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

/* The file system helpers of tar_fs.c, shared with tar_extract.c. */
int nd_tar_io_error(struct nd_status *st, const char *what, const char *path, int err);
/* Opens the first ncomp components of rel under dirfd (all when ncomp < 0), never
 * following a link; with create, missing ones are made. A new descriptor, or -1 with st. */
int nd_tar_walk(int dirfd, const char *rel, int ncomp, bool create, struct nd_status *st);
int nd_tar_count_components(const char *rel);
const char *nd_tar_last_component(const char *rel);
void nd_tar_set_times(int fd, const char *name, int64_t mtime, int flags);
/* Removes what stands at name unless it is a directory (a BadRequest then). */
int nd_tar_clear_slot(int parent, const char *name, const char *path, struct nd_status *st);
/* mkdirat 0700, or an existing directory; a file or link of that name is a BadRequest. */
int nd_tar_make_dir(int parent, const char *name, const char *path, struct nd_status *st);
/* Removes the tree dirfd/name without following a link, one descriptor at a time. */
void nd_tar_remove_tree(int dirfd, const char *name);

#endif
