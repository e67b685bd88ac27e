/* Objects from -f arguments; see manifest.h. */
#include "manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json/json.h"
#include "util/xmalloc.h"

static void add(struct nd_manifests *m, json_t *obj, const char *source, const struct nd_kind *k,
                json_t *where)
{
    m->v = nd_xrealloc(m->v, (m->n + 1) * sizeof *m->v);
    m->v[m->n].obj = json_incref(obj);
    m->v[m->n].source = nd_xstrdup(source);
    m->v[m->n].kind = k;
    m->v[m->n].where = json_incref(where);
    m->n++;
}

int nd_manifests_parse(const char *data, size_t len, const char *source,
                       struct nd_manifests *out, struct nd_status *st)
{
    json_t *where = NULL;
    json_t *objs = nd_manifest_load_all_where(data, len, source, &where, st);
    if (!objs) {
        free(st->reason);
        st->reason = nd_xstrdup("Usage");
        return -1;
    }
    if (!strcmp(source, "-"))
        source = "STDIN";
    int rc = 0;
    size_t i;
    json_t *obj;
    json_array_foreach(objs, i, obj) {
        const char *av = json_string_value(json_object_get(obj, "apiVersion"));
        const char *kind = json_string_value(json_object_get(obj, "kind"));
        const char *name =
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
        if (!av || !kind) {
            rc = nd_status_set(st, "Usage", "every object needs apiVersion and kind",
                               "error validating \"%s\": error validating data: %s not set",
                               source, !av ? "apiVersion" : "kind");
            break;
        }
        const struct nd_kind *k = nd_kind_by_api_version(av, kind);
        if (!k) {
            rc = nd_status_set(st, "Usage", "list the kinds: nodus api-resources",
                               "resource mapping not found for name: \"%s\" namespace: \"\" from "
                               "\"%s\": no matches for kind \"%s\" in version \"%s\"",
                               name ? name : "", source, kind, av);
            break;
        }
        add(out, obj, source, k, json_array_get(where, i));
    }
    json_decref(objs);
    json_decref(where);
    return rc;
}

static int read_one(const char *path, struct nd_manifests *out, struct nd_status *st)
{
    struct nd_buf data;
    nd_buf_init(&data, 64u * 1024 * 1024);
    bool in = strcmp(path, "-") == 0;
    int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nd_status_set(st, "Usage", NULL, "the path \"%s\" does not exist", path);
    int rc = nd_buf_read_fd(&data, fd);
    if (!in)
        close(fd);
    if (rc < 0) {
        nd_buf_release(&data);
        return nd_status_set(st, "Usage", NULL, "cannot read %s", in ? "STDIN" : path);
    }
    rc = nd_manifests_parse(data.data, data.len, path, out, st);
    nd_buf_release(&data);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool manifest_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    return dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml") || !strcmp(dot, ".json"));
}

static int read_dir(const char *dir, bool recursive, struct nd_manifests *out,
                    struct nd_status *st)
{
    DIR *d = opendir(dir);
    if (!d)
        return nd_status_set(st, "Usage", NULL, "cannot read directory %s: %s", dir,
                             strerror(errno));
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        names = nd_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = nd_xasprintf("%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct stat sb;
        if (stat(names[i], &sb) < 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            if (recursive)
                rc = read_dir(names[i], recursive, out, st);
        } else if (manifest_name(names[i])) {
            rc = read_one(names[i], out, st);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int nd_manifests_read(const struct nd_strings *files, bool recursive, struct nd_manifests *out,
                      struct nd_status *st)
{
    memset(out, 0, sizeof *out);
    if (files->n == 0)
        return nd_status_set(st, "Usage", "for example: -f job.yaml",
                             "must specify -f with a file, a directory or - (standard input)");
    for (size_t i = 0; i < files->n; i++) {
        const char *path = files->v[i];
        struct stat sb;
        int rc;
        if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
            rc = read_dir(path, recursive, out, st);
        else
            rc = read_one(path, out, st);
        if (rc < 0)
            return -1;
    }
    if (out->n == 0)
        return nd_status_set(st, "Usage", NULL, "no objects passed to the command");
    return 0;
}

void nd_manifests_release(struct nd_manifests *m)
{
    for (size_t i = 0; i < m->n; i++) {
        json_decref(m->v[i].obj);
        json_decref(m->v[i].where);
        free(m->v[i].source);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

int nd_manifest_project(const struct nd_manifest *m, const char *cmd_ns, bool ns_flag_given,
                          const char **out, struct nd_status *st)
{
    if (!m->kind->namespaced) {
        *out = "";
        return 0;
    }
    const char *ns =
        json_string_value(json_object_get(json_object_get(m->obj, "metadata"), "namespace"));
    if (ns && *ns && ns_flag_given && strcmp(ns, cmd_ns) != 0)
        return nd_status_set(st, "Usage", NULL,
                             "the namespace from the provided object \"%s\" does not match the "
                             "namespace \"%s\". You must pass '--namespace=%s' to perform this "
                             "operation.",
                             ns, cmd_ns, ns);
    *out = ns && *ns ? ns : cmd_ns;
    return 0;
}

const char *nd_manifest_name(const struct nd_manifest *m, const char *verb, struct nd_status *st)
{
    const char *name =
        json_string_value(json_object_get(json_object_get(m->obj, "metadata"), "name"));
    if (name && *name)
        return name;
    nd_status_set(st, "Usage", "set metadata.name in the manifest",
                  "error when %s \"%s\": resource name may not be empty", verb, m->source);
    return NULL;
}

char *nd_manifest_line(const struct nd_manifest *m, const char *path)
{
    return nd_xasprintf("%s:%zu", m->source, nd_manifest_field_line(m->where, path));
}
