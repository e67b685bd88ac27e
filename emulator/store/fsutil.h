/* fsutil.h: small file-system helpers for the state directory. */
#ifndef EM_FSUTIL_H
#define EM_FSUTIL_H

#include <stddef.h>

#include "util/buf.h"

/* Removes path and, for a directory, everything under it (symbolic links are removed,
 * never followed). 0 also when path does not exist. */
int em_rm_rf(const char *path);
/* mkdir -p. */
int em_mkdir_p(const char *path);
/* Copies the tree at from to to: directories, regular files (with their modes) and
 * symbolic links (as links, never followed). 0 also when from does not exist. */
int em_copy_tree(const char *from, const char *to);

/* open(path, flags, 0644), making path's directory first when it is missing. */
int em_open_making_dir(const char *path, int flags);

/* Appends data (whole lines) to path, creating it and its directory; when the file does
 * not end with a newline (edited by hand), one goes first. A failed write is cut back off.
 * 0 or -1 with errno set. Not flushed. */
int em_append_line(const char *path, const char *data, size_t len);

/* Flushes the filesystem that holds the directory dir (syncfs(2)): every file written,
 * renamed or removed there so far is on the disk. 0 or -1 with errno set. */
int em_syncfs_dir(const char *dir);

#endif
