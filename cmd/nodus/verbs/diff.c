/* nodus diff -f: what apply would change, as a unified diff (exit 0 no differences,
 * 1 differences, 2 or more an error, as kubectl). The server computes the result with a
 * dry-run server-side apply; `diff -u -N` (or $NODUS_EXTERNAL_DIFF, $KUBECTL_EXTERNAL_DIFF)
 * compares a directory of live objects with one of merged objects. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "manifest.h"
#include "write.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

struct diff_opts {
    struct nd_strings filename;
    bool recursive;
    const char *field_manager;
};

#define TO(f) ND_TO(struct diff_opts, f)
const struct nd_flag cmd_diff_flags[] = {
    {"filename", 'f', ND_STRINGS, "FILE", "manifest file, directory, or - for standard input",
     "files", TO(filename)},
    {"recursive", 'R', ND_BOOL, NULL, "read directories given with -f recursively", NULL,
     TO(recursive)},
    {"field-manager", 0, ND_STRING, "NAME", "the manager apply would use (default nodus)", NULL,
     TO(field_manager)},
    ND_FLAGS_END(struct diff_opts),
};

static int write_yaml(const char *dir, const char *file, const json_t *obj)
{
    if (!obj)
        return 0; /* absent: diff -N shows it as new or gone */
    json_t *copy = json_deep_copy(obj);
    json_object_del(json_object_get(copy, "metadata"), "managedFields");
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_yaml_dump_flags(copy, &b, ND_YAML_SORT_KEYS, &st);
    json_decref(copy);
    nd_status_release(&st);
    if (rc == 0) {
        char *path = nd_xasprintf("%s/%s", dir, file);
        FILE *f = fopen(path, "w");
        rc = f && fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        free(path);
    }
    nd_buf_release(&b);
    return rc;
}

static void rm_dir(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* Runs the diff program on the two directories; its exit status. */
static int run_diff(const char *live, const char *merged)
{
    const char *ext = getenv("NODUS_EXTERNAL_DIFF");
    if (!ext || !*ext)
        ext = getenv("KUBECTL_EXTERNAL_DIFF");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        if (ext && *ext) {
            execl("/bin/sh", "sh", "-c", "exec $0 \"$1\" \"$2\"", ext, live, merged, (char *)NULL);
        } else {
            execlp("diff", "diff", "-u", "-N", live, merged, (char *)NULL);
        }
        fprintf(stderr, "error: cannot run diff: %s\n", strerror(errno));
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return 2;
    return WEXITSTATUS(status);
}

int cmd_diff(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct diff_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_manifests ms = {0};
    int rc = 0;
    char *live = nd_tmpdir_template("LIVE");
    char *merged = nd_tmpdir_template("MERGED");
    bool dirs = false;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_manifests_read(&opt.filename, opt.recursive, &ms, &st) < 0) {
        nd_cli_error(ctx, &st);
        rc = 2;
        goto out;
    }
    if (!mkdtemp(live)) {
        fprintf(stderr, "error: cannot make a temporary directory: %s\n", strerror(errno));
        rc = 2;
        goto out;
    }
    if (!mkdtemp(merged)) {
        fprintf(stderr, "error: cannot make a temporary directory: %s\n", strerror(errno));
        rm_dir(live);
        rc = 2;
        goto out;
    }
    dirs = true;
    const char *mgr = opt.field_manager ? opt.field_manager : "nodus";
    for (size_t i = 0; i < ms.n; i++) {
        const struct nd_manifest *m = &ms.v[i];
        const char *ns, *name = NULL;
        if (nd_manifest_project(m, nd_ctx_project(ctx), ctx->project_flag != NULL, &ns,
                                  &st) < 0 ||
            !(name = nd_manifest_name(m, "diffing", &st))) {
            nd_cli_error(ctx, &st);
            rc = 2;
            goto out;
        }
        struct nd_buf path = ND_BUF_INIT;
        nd_kind_path(m->kind, ns, name, NULL, &path);
        json_t *cur = NULL, *next = NULL;
        int code = 0;
        struct nd_status gst = ND_STATUS_INIT;
        if (nd_call(ctx,
                     &(struct nd_call_req){
                         .method = "GET", .path = path.data, .out = &cur, .code = &code},
                     &gst) < 0 &&
            code != 404) {
            nd_cli_error(ctx, &gst);
            rc = 2;
        }
        nd_status_release(&gst);
        json_t *body = json_deep_copy(m->obj);
        if (*ns)
            json_object_set_new(json_object_get(body, "metadata"), "namespace", json_string(ns));
        nd_buf_adds(&path, "?dryRun=All&force=true&fieldManager=");
        nd_buf_add_urlencoded(&path, mgr);
        if (rc == 0 &&
            nd_call(ctx,
                     &(struct nd_call_req){.method = "PATCH",
                                            .path = path.data,
                                            .content_type = "application/apply-patch+yaml",
                                            .body = body,
                                            .out = &next},
                     &st) < 0) {
            nd_cli_error(ctx, &st);
            rc = 2;
        }
        char *file = nd_xasprintf("%s%s%s.%s.%s.%s", m->kind->group, *m->kind->group ? "." : "",
                                  m->kind->version, m->kind->kind, *ns ? ns : "", name);
        if (rc == 0 && (write_yaml(live, file, cur) < 0 || write_yaml(merged, file, next) < 0)) {
            fprintf(stderr, "error: cannot write %s\n", file);
            rc = 2;
        }
        free(file);
        json_decref(body);
        json_decref(cur);
        json_decref(next);
        nd_buf_release(&path);
        nd_status_release(&st);
        if (rc)
            goto out;
    }
    rc = run_diff(live, merged);
    if (rc > 1)
        rc = rc == 127 ? 2 : rc;
out:
    if (dirs) {
        rm_dir(live);
        rm_dir(merged);
    }
    free(live);
    free(merged);
    nd_manifests_release(&ms);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
