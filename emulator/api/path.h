/* path.h: parsing API paths.
 *
 *   /api/v1[/namespaces/{ns}]/{plural}[/{name}[/{sub}]]
 *   /apis/{group}/{version}[/namespaces/{ns}]/{plural}[/{name}[/{sub}]]
 *
 * and the deprecated watch paths kube-apiserver still serves (watch set, no sub):
 *
 *   /api/v1/watch[/namespaces/{ns}]/{plural}[/{name}]
 *   /apis/{group}/{version}/watch[/namespaces/{ns}]/{plural}[/{name}]
 *
 * `/api/v1/namespaces/{name}` is the Namespace object itself (cluster-scoped), not a
 * namespace prefix: em_path_parse resolves that ambiguity as kube-apiserver does.
 */
#ifndef EM_PATH_H
#define EM_PATH_H

#include <stdbool.h>

struct em_path {
    char *group;   /* "" for the core group */
    char *version;
    char *ns;      /* NULL: not namespaced in the path (all projects, or cluster-scoped) */
    char *plural;  /* NULL for /apis/{group}/{version} itself */
    char *name;
    char *sub;     /* subresource */
    bool watch;    /* a deprecated .../watch/... path: a watch of the list, or of the one
                    * object name names (metadata.name=name) */
    int depth;     /* number of segments after the version */
};

/* 0 and fills p when path is an API path (under /api/v1 or /apis/G/V); -1 otherwise.
 * Segments are not validated here (names are checked as DNS labels by the handler). */
int em_path_parse(const char *path, struct em_path *p);
void em_path_release(struct em_path *p);

#endif
