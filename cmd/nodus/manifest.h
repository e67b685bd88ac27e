/* manifest.h: reading the objects of -f arguments (files, directories, -R, "-"). */
#ifndef ND_MANIFEST_H
#define ND_MANIFEST_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/registry.h"
#include "cli.h"
#include "util/status.h"

struct nd_manifest {
    json_t *obj;                /* owned */
    char *source;               /* file name (or "STDIN") */
    const struct nd_kind *kind;
    json_t *where;              /* owned: {line, fields} for nd_manifest_line */
};

struct nd_manifests {
    struct nd_manifest *v;
    size_t n;
};

/* Reads every -f argument in order: a file (YAML, several documents, or JSON; a List is
 * expanded), "-" for standard input, a directory (its *.yaml, *.yml and *.json files in
 * name order; subdirectories too with recursive). Each object needs apiVersion and kind
 * of a known kind. -1 with st (Usage) naming the file and the problem. */
int nd_manifests_read(const struct nd_strings *files, bool recursive, struct nd_manifests *out,
                      struct nd_status *st);
void nd_manifests_release(struct nd_manifests *m);
/* The objects of one text (what one file holds) named source in messages ("-" is
 * STDIN), appended to out. -1 with st (Usage; a malformed text names its line). */
int nd_manifests_parse(const char *data, size_t len, const char *source,
                       struct nd_manifests *out, struct nd_status *st);

/* The project an object goes to: its metadata.namespace, else the command's project.
 * -1 with st (Usage) when -n was given and the object names another project, as
 * kubectl refuses. Cluster-scoped kinds: "". BORROWED. */
int nd_manifest_project(const struct nd_manifest *m, const char *cmd_ns, bool ns_flag_given,
                          const char **out, struct nd_status *st);

/* The object's metadata.name (BORROWED), or NULL with st (Usage: `error when <verb>
 * "<file>": resource name may not be empty`, as kubectl) for the verbs that act on an
 * existing object (all but create, where generateName may stand in). verb: "applying"... */
const char *nd_manifest_name(const struct nd_manifest *m, const char *verb, struct nd_status *st);

/* "<source>:<line>" of the field at path (the API's form, "spec.resources.gpu") in the
 * manifest's file: where the deepest part of it is written, else where the object
 * starts. NEW string. */
char *nd_manifest_line(const struct nd_manifest *m, const char *path);

#endif
