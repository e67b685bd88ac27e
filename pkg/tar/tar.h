/* tar.h: a small tar reader and writer, and the path checks that keep an archive inside
 * the directory it is read into (Sandbox and Volume files, `nodus cp`).
 *
 * Archives are POSIX ustar; a name or link target too long for the ustar fields, or a
 * size past 8 GiB, gets a pax extended header ('x') before its entry, as GNU tar and
 * Go's archive/tar write them. The reader also takes GNU long names ('L', 'K'),
 * base-256 numbers and old v7 headers, and ignores pax global headers.
 *
 * Two kinds of functions: the format (this file's first half: headers, a reader over an
 * archive in memory, a push reader over one that arrives in pieces, name cleaning) and the file system (tar_fs.c, tar_walk.c):
 * extracting an archive under a directory without ever writing outside it, and writing
 * a tree as an archive without following a symbolic link out of it. Every failure is a
 * struct nd_status: BadRequest for an archive or a member that is refused (the message
 * names the member), NotFound for a missing path, InternalError for an I/O error.
 */
#ifndef ND_TAR_H
#define ND_TAR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/buf.h"
#include "util/status.h"

#define ND_TAR_BLOCK 512

enum nd_tar_type {
    ND_TAR_FILE,
    ND_TAR_DIR,
    ND_TAR_SYMLINK,
    ND_TAR_HARDLINK,
    ND_TAR_OTHER, /* devices, fifos, sparse files ...: never extracted */
};

/* One member of an archive. */
struct nd_tar_entry {
    char *name; /* as stored (a pax or GNU long name wins); owned */
    char *link; /* target of a link, owned; NULL for other types */
    enum nd_tar_type type;
    char typeflag;    /* the header's byte ('0', '5', '2', ...) */
    unsigned mode;    /* permission bits, 07777 at most */
    int64_t mtime;    /* seconds since the epoch */
    uint64_t size;    /* bytes of content (files only) */
    const char *data; /* the content, inside the archive (borrowed) */
};

void nd_tar_entry_release(struct nd_tar_entry *e);

/* Reads members from an archive held in memory (borrowed; it must outlive the reader
 * and the entries). */
struct nd_tar_reader {
    const char *data;
    size_t len, pos;
};

void nd_tar_reader_init(struct nd_tar_reader *r, const char *data, size_t len);
/* 1 with e filled (release it), 0 at the end of the archive (two zero blocks, or the end
 * of the data on a block boundary), -1 with st (BadRequest: a bad checksum, a number
 * that is not octal, a truncated member; the message gives the byte offset). */
int nd_tar_next(struct nd_tar_reader *r, struct nd_tar_entry *e, struct nd_status *st);

/* Appends the header of one member (after a pax header when a field does not fit).
 * A directory's name gets a trailing '/'. link: the target of a symlink or hard link. */
void nd_tar_header(struct nd_buf *out, const char *name, enum nd_tar_type type, unsigned mode,
                   uint64_t size, int64_t mtime, const char *link);
/* Bytes of zero padding after `size` bytes of content. */
size_t nd_tar_padding(uint64_t size);
/* Appends the end of the archive (two zero blocks). */
void nd_tar_end(struct nd_buf *out);

/* What a file system takes (Linux' NAME_MAX and PATH_MAX less its NUL): a longer name
 * or path is the client's error (BadRequest), never an I/O error. */
#define ND_TAR_NAME_MAX 255
#define ND_TAR_PATH_MAX 4095

/* 0 when every '/'-separated component of path is at most ND_TAR_NAME_MAX bytes and the
 * whole at most ND_TAR_PATH_MAX; else -1 with st (BadRequest), e.g.
 *   "aaa...": a name of 300 bytes, more than the limit of 255 (NAME_MAX)
 *   "a/b/...": a path of 5000 bytes, more than the limit of 4095 (PATH_MAX)
 * (the path cut after 64 bytes, with "..."). */
int nd_tar_check_path(const char *path, struct nd_status *st);

/* Cleans a member's name into a relative path: a leading '/' or "./" is dropped, and so
 * are "." components, repeated and trailing slashes; "" names the top itself ("/", ".").
 * A ".." component is refused, and so is a result nd_tar_check_path refuses: -1 with st
 * (BadRequest naming the member). */
int nd_tar_clean_path(const char *name, struct nd_buf *out, struct nd_status *st);

/* ---- the file system (tar_fs.c) ---- */

/* Opens the directory `rel` (a clean relative path, "" for dirfd itself) under dirfd,
 * component by component, never following a symbolic link; with create, missing
 * directories are made (mode 0755). Returns a new descriptor, or -1 with st: NotFound
 * for a missing component, BadRequest for one that is a file or a symbolic link. */
int nd_tar_open_dir(int dirfd, const char *rel, bool create, struct nd_status *st);

/* lstat of `rel` under dirfd, with the same walk (no symbolic link followed on the way;
 * the last component itself may be one). -1 with st as above. */
int nd_tar_lstat(int dirfd, const char *rel, struct stat *out, struct nd_status *st);

struct nd_tar_extract_opts {
    /* When set, every member must be `top_from` or under it, and that first component is
     * written as `top_to` instead: `nodus cp sandbox/dev:/a/b ./c` writes b's members as
     * c. Symbolic links must then stay inside that top member. */
    const char *top_from;
    const char *top_to;
    /* Path of the directory extracted into, relative to the tree whose bounds links
     * must keep ("" or NULL: that directory is the bound). */
    const char *base;
    /* Each member's path under the tree (base/path) and a link's target must pass
     * nd_tar_check_path. */
    uint64_t max_bytes; /* content of all members together; 0: no limit */
    size_t max_entries; /* 0: no limit */
    /* NULL: a symbolic link that would point outside is refused (the whole archive).
     * Else such links are skipped and described here (strings). BORROWED array. */
    json_t *skipped;
};

/* Extracts an archive under dirfd (nd_tar_extractor over the whole of data; the stage is
 * made inside dirfd). *count (may be NULL) is the number of members written. */
int nd_tar_extract(const char *data, size_t len, int dirfd, const struct nd_tar_extract_opts *o,
                   size_t *count, struct nd_status *st);

/* Extracting an archive as it arrives (an upload, a download), never holding it.
 *
 * Each member is checked when its header arrives (names, types, link targets, limits,
 * and that the destination lets it be put there: no link or file where a directory must
 * be, no directory where a file goes) and written into a private stage directory,
 * ".nodus-partial-XXXXXXXX", made under stagefd (-1: under dirfd; it must be on
 * dirfd's file system). Only when the archive has ended whole (finish) are the members
 * moved into place under dirfd, in archive order: files and links by rename() (an
 * existing file is replaced, an existing symbolic link is replaced, never written
 * through), directories made; then directories' modes and times are set. A refused
 * member, a write error, an archive cut short or a free before finish remove the stage:
 * the destination is left as it was. Hard links, devices and fifos are refused. */
struct nd_tar_extractor;
/* NEW, or NULL with st (the stage could not be made). dirfd and stagefd are dup()ed,
 * o's strings copied (o->skipped stays the caller's, and must outlive the extractor). */
struct nd_tar_extractor *nd_tar_extractor_new(int dirfd, int stagefd,
                                              const struct nd_tar_extract_opts *o,
                                              struct nd_status *st);
/* The next bytes of the archive. -1 with st on the first refusal (later calls fail). */
int nd_tar_extractor_write(struct nd_tar_extractor *x, const char *data, size_t len,
                           struct nd_status *st);
/* Whether the archive's end (a zero block) has arrived. */
bool nd_tar_extractor_ended(const struct nd_tar_extractor *x);
/* The archive is over: -1 with st if it was cut short; else its members are moved into
 * place. *count (may be NULL): the members written. Call once. */
int nd_tar_extractor_finish(struct nd_tar_extractor *x, size_t *count, struct nd_status *st);
void nd_tar_extractor_free(struct nd_tar_extractor *x);

/* ---- reading an archive as it arrives (tar_push.c) ---- */

/* The same format rules as nd_tar_next; a member's header comes to member (e->data is
 * NULL, e is the callee's to read, not to keep), its content to data in pieces, then
 * end. A non-zero return from a callback stops the archive (-1 with its st). */
struct nd_tar_push_ops {
    int (*member)(void *cls, const struct nd_tar_entry *e, struct nd_status *st);
    int (*data)(void *cls, const char *p, size_t n, struct nd_status *st);
    int (*end)(void *cls, struct nd_status *st);
};
struct nd_tar_push;
struct nd_tar_push *nd_tar_push_new(const struct nd_tar_push_ops *ops, void *cls);
/* -1 with st for a malformed archive or a callback's refusal; later calls fail too. */
int nd_tar_push_write(struct nd_tar_push *r, const char *p, size_t n, struct nd_status *st);
/* 0 when what arrived is a whole archive (a zero block, or the end on a block
 * boundary), else -1 with st (BadRequest: a truncated header or member). */
int nd_tar_push_finish(struct nd_tar_push *r, struct nd_status *st);
bool nd_tar_push_ended(const struct nd_tar_push *r);
size_t nd_tar_push_members(const struct nd_tar_push *r);
void nd_tar_push_free(struct nd_tar_push *r);

/* ---- writing a tree (tar_walk.c) ---- */

struct nd_tar_writer;

/* An archive of the file, directory or symbolic link `rel` (a clean relative path; ""
 * for dirfd itself) under dirfd. Its members are named `name`, `name/...` (a directory
 * walked in name order). Symbolic links are stored as links, never followed; sockets,
 * devices and fifos are left out. NULL with st (NotFound, BadRequest) when rel cannot be
 * reached. dirfd is borrowed: it must stay open until the writer is freed. */
struct nd_tar_writer *nd_tar_writer_new(int dirfd, const char *rel, const char *name,
                                        struct nd_status *st);
/* Fills buf with the next bytes of the archive: their count, 0 once the archive has
 * ended, -1 with st (InternalError) on a read error. A file that shrank while read is
 * padded with zeros, one that grew is cut at its first size. */
ssize_t nd_tar_writer_read(struct nd_tar_writer *w, char *buf, size_t max, struct nd_status *st);
/* The length of the whole archive the writer would produce now, and its members
 * (a walk that reads no file): for a progress bar and an X-Content-Length hint. Call it
 * on a fresh writer, which it uses up. -1 with st as for read. */
int nd_tar_writer_measure(struct nd_tar_writer *w, uint64_t *bytes, size_t *members,
                          struct nd_status *st);
/* Members written so far. */
size_t nd_tar_writer_count(const struct nd_tar_writer *w);
void nd_tar_writer_free(struct nd_tar_writer *w);

#endif
