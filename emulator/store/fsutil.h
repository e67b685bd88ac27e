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

/* Where a broken file of the state directory goes aside, never to be overwritten (a
 * start keeps there what it writes over or cuts off: crash_repair.h, events_file.h):
 * for path = DIR/objects/<project>/<plural>/<file>,
 * DIR/broken/<project>/<plural>/<file>.<UTC time: YYYYMMDDTHHMMSSZ>, with ".N" after it
 * when that is taken (for any other path, <path>.broken.<time>). em_move_aside renames
 * path there; em_write_aside writes data (a part cut off path) to a new file there. The
 * new path (NEW), or NULL with errno set (nothing moved, nothing written). Not flushed. */
char *em_move_aside(const char *path);
char *em_write_aside(const char *path, const char *data, size_t len);

/* Flushes the filesystem that holds the directory dir (syncfs(2)): every file written,
 * renamed or removed there so far is on the disk. 0 or -1 with errno set. */
int em_syncfs_dir(const char *dir);

#endif
