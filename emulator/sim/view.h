/* view.h: what a command run in an object (exec, a --runtime local Job) sees of the
 * files: the object's own tree at /, each Volume it mounts at its mountPath, the host's
 * system directories read-only, and nothing else of the host.
 *
 * An object's tree is DIR/files/<project>/<plural>/<name>/ (the tree `nodus cp` reads
 * and writes). With --exec-isolation bwrap (the default) a command runs under
 * bubblewrap in mount, PID, IPC and UTS namespaces of its own:
 *
 *   /                  the object's tree, read-write (so /work is `nodus cp dev:/work`)
 *   /usr /etc /opt     the host's, read-only, and so are /bin /sbin /lib* (bound from
 *                      where they point when the host's are symbolic links)
 *   /proc /dev /tmp    a fresh proc of its PID namespace, a minimal /dev, an empty tmpfs
 *   MOUNTPATH          each Volume of spec.volumes: that Volume's tree (read-only when
 *                      readOnly), the same tree `nodus cp volume/NAME:` reads
 *
 * The mount points bubblewrap makes (usr, etc, proc, tmp, a Volume's mountPath, ...) stay
 * in the tree as empty directories.
 * With --exec-isolation none a command runs as before: a host process whose working
 * directory is the tree, seeing the whole host. When bubblewrap is missing or cannot make
 * namespaces here, exec and local Jobs are refused with a Status that says so.
 */
#ifndef EM_VIEW_H
#define EM_VIEW_H

#include <jansson.h>
#include <stdbool.h>

#include "server.h"
#include "util/status.h"

/* The tree of obj (a stored object of kind k), made when missing: NEW path, or NULL with
 * st (InternalError). Beside it, <name>.uid records which object made it, so a new
 * object that reuses a name starts with an empty tree. Lock held. */
char *em_files_tree(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                    struct nd_status *st);

/* p made canonical ("/a/b": no ".", no empty parts): NEW ("" for none or "/"), or NULL
 * when a ".." part would leave the tree. Used for mountPaths and spec.workingDir. */
char *em_view_clean_path(const char *p);

struct em_view {
    bool isolated;  /* under bubblewrap; else a host process in the tree */
    char *root;     /* the object's tree on the host, absolute */
    char *hostname; /* the object's name */
    json_t *mounts; /* [{"host": tree, "path": mountPath, "readOnly": bool}] */
};

/* Builds obj's view (lock held): its tree and its Volumes' trees. -1 with st when a
 * Volume it mounts does not exist or has a bad mountPath, or (isolated) when bubblewrap
 * cannot run here. Release with em_view_release, also after a failure. */
int em_view_open(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                 struct em_view *v, struct nd_status *st);
void em_view_release(struct em_view *v);

/* The executable for cmd as the command will see it: cmd itself when it holds a '/'
 * (relative to cwd), else the first match on path (relative entries from cwd). cwd is
 * the working directory the command sees ("/..." isolated, a host path otherwise). NEW
 * path to execute, or NULL when there is none. */
char *em_view_find_program(const struct em_view *v, const char *cmd, const char *path,
                           const char *cwd);

/* What to execve to run argv (prog: its executable, em_view_find_program's) in working
 * directory cwd (as the command sees it): the bubblewrap line, which finds argv[0] on the
 * command's PATH inside (isolated), or argv itself. NEW vector (nd_strv_free), and *exe,
 * NEW, the file to execute. */
char **em_view_command(const struct em_view *v, const char *prog, char *const *argv,
                       const char *cwd, char **exe);

#endif
