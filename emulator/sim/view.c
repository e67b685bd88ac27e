/* What a command run in an object sees of the files: its tree, its Volumes, and the
 * bubblewrap line that shows it them; see view.h. */
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "objects.h"
#include "json/json.h"
#include "util/buf.h"
#include "util/xmalloc.h"

char *em_files_tree(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                    struct nd_status *st)
{
    const char *plural = k->plural; /* the tree's directory */
    const json_t *meta = json_object_get(obj, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    char *rel = nd_xasprintf("files/%s/%s/%s", em_obj_ns(obj), plural, em_obj_name(obj));
    char *dir = em_store_path(&srv->store, rel);
    char *marker = nd_xasprintf("%s.uid", dir);
    struct nd_buf old = ND_BUF_INIT;
    bool known = nd_buf_read_file(&old, marker) == 0;
    if (known && uid && strcmp(old.data, uid) != 0)
        em_rm_rf(dir); /* an earlier object of the same name left it */
    if (em_mkdir_p(dir) < 0) {
        nd_status_set(st, "InternalError", NULL, "cannot create the file tree %s: %s", rel,
                      strerror(errno));
        free(dir);
        dir = NULL;
    } else if (uid && (!known || strcmp(old.data, uid) != 0)) {
        FILE *f = fopen(marker, "w");
        if (f) {
            fputs(uid, f);
            fclose(f);
        }
    }
    nd_buf_release(&old);
    free(marker);
    free(rel);
    return dir;
}

/* ---- bubblewrap: where it is, and whether it can make namespaces here ---- */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static char *bwrap_path;  /* NULL: not on PATH */
static char *probe_error; /* why it cannot run here, NULL when it can */

/* The namespaces every command gets (and the probe checks). */
static void add_namespaces(json_t *a)
{
    static const char *const flags[] = {"--die-with-parent", "--unshare-pid", "--unshare-ipc",
                                        "--unshare-uts", "--unshare-cgroup-try"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        json_array_append_new(a, json_string(flags[i]));
    if (geteuid() == 0) { /* root keeps no capability inside */
        json_array_append_new(a, json_string("--cap-drop"));
        json_array_append_new(a, json_string("ALL"));
    }
}

static char *find_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = nd_xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL, *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *full = nd_xasprintf("%s/%s", d, name);
        if (*d == '/' && access(full, X_OK) == 0)
            found = full;
        else
            free(full);
    }
    free(copy);
    return found;
}

static void probe(void)
{
    bwrap_path = find_on_path("bwrap");
    if (!bwrap_path) {
        probe_error = nd_xstrdup("bubblewrap (bwrap) is not installed on the emulator's PATH");
        return;
    }
    json_t *a = json_array();
    json_array_append_new(a, json_string(bwrap_path));
    add_namespaces(a);
    const char *rest[] = {"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        json_array_append_new(a, json_string(rest[i]));
    char **argv = nd_json_strv(a);
    json_decref(a);
    int pfd[2] = {-1, -1};
    int status = -1;
    struct nd_buf err = ND_BUF_INIT;
    pid_t pid = -1;
    if (pipe(pfd) == 0 && (pid = fork()) == 0) {
        int null_fd = open("/dev/null", O_RDWR);
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(pfd[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pfd[1] >= 0)
        close(pfd[1]);
    if (pid > 0) {
        char buf[512];
        ssize_t n;
        while ((n = read(pfd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
            if (n > 0 && err.len < 4096)
                nd_buf_add(&err, buf, (size_t)n);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const char *msg = err.len ? err.data : "";
        size_t len = strcspn(msg, "\n");
        probe_error = nd_xasprintf("bubblewrap (%s) cannot create namespaces here%s%.*s",
                                   bwrap_path, len ? ": " : "", (int)len, msg);
    }
    nd_buf_release(&err);
    nd_strv_free(argv);
}

/* ---- the view ---- */

/* path made absolute (bubblewrap binds from its own working directory): NEW. */
static char *absolute(const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return nd_xstrdup(path);
    return nd_xasprintf("%s/%s", cwd, path);
}

char *em_view_clean_path(const char *p)
{
    struct nd_buf b = ND_BUF_INIT;
    char *copy = nd_xstrdup(p ? p : "");
    char *save = NULL;
    bool bad = false;
    for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (!strcmp(part, "."))
            continue;
        if (!strcmp(part, "..")) {
            bad = true;
            break;
        }
        nd_buf_addch(&b, '/');
        nd_buf_adds(&b, part);
    }
    free(copy);
    if (bad) {
        nd_buf_release(&b);
        return NULL;
    }
    return nd_buf_detach(&b);
}

/* A mountPath made canonical: NEW, or NULL when it has a ".." component or is the top. */
static char *canonical_mount(const char *p)
{
    char *c = em_view_clean_path(p);
    if (c && !*c) {
        free(c);
        return NULL;
    }
    return c;
}

static int add_volumes(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                       struct em_view *v, struct nd_status *st)
{
    const char *ns = em_obj_ns(obj), *name = em_obj_name(obj);
    const char *kind = k->singular;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(json_object_get(obj, "spec"), "volumes"), i, m) {
        const char *vol = json_string_value(json_object_get(m, "name"));
        const char *at = json_string_value(json_object_get(m, "mountPath"));
        char *path = at && *at == '/' ? canonical_mount(at) : NULL;
        if (!vol || !path) {
            free(path);
            return nd_status_set(st, "BadRequest",
                                 "give spec.volumes[] an absolute mountPath below / without "
                                 "\"..\", such as /data",
                                 "%s \"%s\" cannot run commands: spec.volumes[%zu].mountPath "
                                 "\"%s\" is not a directory below /",
                                 kind, name, i, at ? at : "");
        }
        json_t *volume = em_store_get(&srv->store, nd_kind_by_plural(NULL, "volumes"), ns, vol);
        if (!volume) {
            free(path);
            nd_status_set(st, "BadRequest", NULL,
                          "%s \"%s\" mounts the Volume \"%s\" at %s, and project \"%s\" has no "
                          "Volume \"%s\"",
                          kind, name, vol, at, ns, vol);
            nd_status_set_fix(st,
                              "create the Volume \"%s\" in project \"%s\" (kind: Volume, "
                              "metadata.name: %s), or remove it from the %s's spec.volumes",
                              vol, ns, vol, kind);
            return -1;
        }
        char *tree = em_files_tree(srv, nd_kind_by_plural(NULL, "volumes"), volume, st);
        if (!tree) {
            free(path);
            return -1;
        }
        char *abs = absolute(tree);
        free(tree);
        json_t *e = json_object();
        json_object_set_new(e, "host", json_string(abs));
        json_object_set_new(e, "path", json_string(path));
        json_object_set_new(e, "readOnly",
                            json_boolean(json_is_true(json_object_get(m, "readOnly"))));
        json_array_append_new(v->mounts, e);
        free(abs);
        free(path);
    }
    return 0;
}

int em_view_open(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                 struct em_view *v, struct nd_status *st)
{
    memset(v, 0, sizeof *v);
    v->isolated = !srv->opt.exec_isolation || strcmp(srv->opt.exec_isolation, "none") != 0;
    v->hostname = nd_xstrdup(em_obj_name(obj));
    v->mounts = json_array();
    if (v->isolated) {
        pthread_once(&probe_once, probe);
        if (probe_error)
            return nd_status_set(st, "ServiceUnavailable",
                                 "install bubblewrap where the emulator runs (apt-get install "
                                 "bubblewrap) and allow it user namespaces, or restart the "
                                 "emulator with --exec-isolation=none to run commands on the "
                                 "host unisolated",
                                 "cannot run commands in \"%s\" isolated: %s", v->hostname,
                                 probe_error);
    }
    char *tree = em_files_tree(srv, k, obj, st);
    if (!tree)
        return -1;
    v->root = absolute(tree);
    free(tree);
    return v->isolated ? add_volumes(srv, k, obj, v, st) : 0;
}

void em_view_release(struct em_view *v)
{
    free(v->root);
    free(v->hostname);
    json_decref(v->mounts);
    memset(v, 0, sizeof *v);
}

/* The host's directories a command sees read-only at the same path. */
static const char *const system_dirs[] = {"usr",   "etc", "opt",    "bin",
                                          "sbin",  "lib", "lib32", "lib64", "libx32"};

/* Where an absolute path the command sees is on the host. NEW, or NULL (/proc, /tmp). */
static char *host_path(const struct em_view *v, const char *p)
{
    const char *best = NULL, *host = NULL;
    size_t best_len = 0, i;
    json_t *m;
    json_array_foreach(v->mounts, i, m) {
        const char *at = json_string_value(json_object_get(m, "path"));
        size_t n = strlen(at);
        if (n > best_len && !strncmp(p, at, n) && (p[n] == '/' || !p[n])) {
            best = at;
            best_len = n;
            host = json_string_value(json_object_get(m, "host"));
        }
    }
    if (best)
        return nd_xasprintf("%s%s", host, p + best_len);
    size_t first = strcspn(p + 1, "/");
    for (size_t d = 0; d < sizeof system_dirs / sizeof system_dirs[0]; d++)
        if (strlen(system_dirs[d]) == first && !strncmp(p + 1, system_dirs[d], first))
            return nd_xstrdup(p);
    if ((first == 3 && (!strncmp(p + 1, "tmp", 3) || !strncmp(p + 1, "dev", 3))) ||
        (first == 4 && !strncmp(p + 1, "proc", 4)))
        return NULL;
    return nd_xasprintf("%s%s", v->root, p);
}

/* Whether the command would find an executable at cand (as it sees it). */
static bool executable(const struct em_view *v, const char *cand, bool need_x)
{
    char *h = v->isolated ? host_path(v, cand) : nd_xstrdup(cand);
    struct stat sb;
    bool ok = h && stat(h, &sb) == 0 && (!need_x || (S_ISREG(sb.st_mode) && !access(h, X_OK)));
    free(h);
    return ok;
}

static char *joined(const char *dir, size_t n, const char *cmd)
{
    return nd_xasprintf("%.*s%s%s", (int)n, dir, n && dir[n - 1] == '/' ? "" : "/", cmd);
}

char *em_view_find_program(const struct em_view *v, const char *cmd, const char *path,
                           const char *cwd)
{
    if (strchr(cmd, '/')) {
        char *full = cmd[0] == '/' ? nd_xstrdup(cmd) : joined(cwd, strlen(cwd), cmd);
        if (executable(v, full, false))
            return full;
        free(full);
        return NULL;
    }
    for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";;) {
        size_t n = strcspn(p, ":");
        char *dir = n && p[0] == '/' ? nd_xstrndup(p, n) : joined(cwd, strlen(cwd), "");
        if (n && p[0] != '/') {
            char *rel = joined(dir, strlen(dir), "");
            free(dir);
            dir = nd_xasprintf("%s%.*s", rel, (int)n, p);
            free(rel);
        }
        char *cand = joined(dir, strlen(dir), cmd);
        free(dir);
        if (executable(v, cand, true))
            return cand;
        free(cand);
        if (!p[n])
            return NULL;
        p += n + 1;
    }
}

static void add(json_t *a, const char *s)
{
    json_array_append_new(a, json_string(s));
}

/* Each system directory the host has, read-only (one that is a symbolic link, such as
 * /bin -> usr/bin, is bound from where it points: bubblewrap's --symlink fails on the
 * link it left in the tree the time before). */
static void add_system_dirs(json_t *a)
{
    for (size_t d = 0; d < sizeof system_dirs / sizeof system_dirs[0]; d++) {
        char *p = nd_xasprintf("/%s", system_dirs[d]);
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            add(a, "--ro-bind");
            add(a, p);
            add(a, p);
        }
        free(p);
    }
}

char **em_view_command(const struct em_view *v, const char *prog, char *const *argv,
                       const char *cwd, char **exe)
{
    *exe = nd_xstrdup(v->isolated ? bwrap_path : prog);
    json_t *a = json_array();
    if (v->isolated) {
        add(a, bwrap_path);
        add_namespaces(a);
        add(a, "--hostname");
        add(a, v->hostname);
        add(a, "--bind");
        add(a, v->root);
        add(a, "/");
        add_system_dirs(a);
        add(a, "--proc");
        add(a, "/proc");
        add(a, "--dev");
        add(a, "/dev");
        add(a, "--tmpfs");
        add(a, "/tmp");
        size_t i;
        json_t *m;
        json_array_foreach(v->mounts, i, m) {
            add(a, json_is_true(json_object_get(m, "readOnly")) ? "--ro-bind" : "--bind");
            add(a, json_string_value(json_object_get(m, "host")));
            add(a, json_string_value(json_object_get(m, "path")));
        }
        add(a, "--chdir");
        add(a, cwd);
        add(a, "--");
    }
    for (size_t i = 0; argv[i]; i++)
        add(a, argv[i]);
    char **out = nd_json_strv(a);
    json_decref(a);
    return out;
}
