/* fsutil.h: small file-system helpers for the state directory. */
#ifndef EM_FSUTIL_H
#define EM_FSUTIL_H

#include "util/buf.h"

/* Removes path and, for a directory, everything under it (symbolic links are removed,
 * never followed). 0 also when path does not exist. */
int em_rm_rf(const char *path);
/* mkdir -p. */
int em_mkdir_p(const char *path);
/* Appends what fd holds up to its end; -1 (errno set) on a read error. The fd stays open. */
int em_read_fd(int fd, struct nd_buf *out);
/* Reads a whole file into out (appending). -1 with errno on failure. */
int em_read_file(const char *path, struct nd_buf *out);

/* Copies the tree at from to to: directories, regular files (with their modes) and
 * symbolic links (as links, never followed). 0 also when from does not exist. */
int em_copy_tree(const char *from, const char *to);

#endif
