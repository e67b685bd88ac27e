/* fsutil.h: small file-system helpers for the state directory. */
#ifndef EM_FSUTIL_H
#define EM_FSUTIL_H

#include "util/buf.h"

/* Removes path and, for a directory, everything under it (symbolic links are removed,
 * never followed). 0 also when path does not exist. */
int em_rm_rf(const char *path);
/* mkdir -p. */
int em_mkdir_p(const char *path);
/* Copies the tree at from to to: directories, regular files (with their modes) and
 * symbolic links (as links, never followed). 0 also when from does not exist. */
int em_copy_tree(const char *from, const char *to);

#endif
