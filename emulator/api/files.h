/* files.h: the file trees of Sandboxes, Volumes (and Running Jobs, for exec), and the
 * `files` subresource that reads and writes them as tar streams.
 *
 * An object's tree is DIR/files/<project>/<plural>/<name>/. Beside it,
 * <name>.uid records which object made it, so a new object that reuses a name starts
 * with an empty tree instead of its predecessor's files.
 *
 *   GET  .../{name}/files?path=/p            the file or directory /p as a tar stream
 *                                            (members named after /p's last component;
 *                                            "." for the top); path defaults to /
 *   GET  .../{name}/files?path=/p&stat=true  what /p is: {"path","type","mode","size",
 *                                            "modified"} (type Directory, File,
 *                                            SymbolicLink or Other)
 *   PUT  .../{name}/files?path=/d            (or POST) a tar body (application/x-tar)
 *                                            extracted under /d, made when missing
 *
 * Nothing outside the tree is ever read or written: paths and member names with a ".."
 * component are refused (BadRequest naming them), absolute member names are taken
 * relative to /d, symbolic links are never followed on the way (one in the tree ends a
 * path with BadRequest), an archive's links must point inside the tree, and hard links,
XX
 */
#ifndef EM_FILES_H
#define EM_FILES_H

#include <jansson.h>

#include "api.h"
#include "server.h"
#include "view.h" /* em_files_tree */

/* The subresource handler (subresource.c's table). */
int em_files_handle(struct em_api *a, const char *verb);

#endif
