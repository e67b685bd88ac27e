/* The invoke subresource of a Function: POST .../functions/NAME/invoke, the request
 * body in, the Function's answer out.
 *
 * Only a Running Function answers (BadRequest otherwise, as Kubernetes answers a
 * subresource of a Pod that is not running). Under --runtime simulate the answer is
 * deterministic: {"function":NAME,"project":NS,"bytes":N,"sha256":HEX} about the body
 * received. Under --runtime local spec.command runs as a local process seeing the
 * Function's file tree (files/<project>/functions/<name>/) at / and its Volumes, under
 * bubblewrap as exec does (sim/view.h), with the body on its standard input and spec.env
 * added to the environment; its standard output is the answer. A
 * command that exits non-zero (or runs past EM_INVOKE_TIMEOUT_MS of real time) answers
 * an InternalError Status carrying the end of its standard error. Every invocation is
 * recorded on the Function (status.simulation) for scaling (controllers/function.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "controllers/controllers.h"
#include "kinds/object.h"
#include "kinds/phase.h"
#include "fsutil.h"
#include "objects.h"
#include "subresource.h"
#include "util/sha256.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "view.h"

#define EM_INVOKE_TIMEOUT_MS (60 * 1000)
#define STDERR_TAIL 2048

extern char **environ;

/* ---- --runtime local ---- */

struct run {
    char **argv;   /* owned, NULL-terminated: the bubblewrap line when isolated */
    char *exe;     /* owned: the file to execute (bwrap, or the program) */
    char **envp;   /* owned, NULL-terminated */
    char *dir;     /* owned: the Function's tree on the host, where the child starts */
    int exit_code; /* -1 when it did not exit normally */
    bool timed_out;
    struct nd_buf out, err;
};

static char **strv_new(size_t n)
{
    return nd_xcalloc(n + 1, sizeof(char *));
}

/* The emulator's environment with HOME (the Function's / when isolated), spec.env and
 * NODUS_FUNCTION/NODUS_PROJECT set. */
static char **make_env(const json_t *fn, const char *home)
{
    const json_t *env = json_object_get(json_object_get(fn, "spec"), "env");
    json_t *vars = json_object(); /* name -> value, in order */
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char *name = nd_xstrndup(*e, (size_t)(eq - *e));
        json_object_set_new(vars, name, json_string(eq + 1));
        free(name);
    }
    json_object_set_new(vars, "HOME", json_string(home));
    json_object_set_new(vars, "NODUS_FUNCTION", json_string(em_obj_name(fn)));
    json_object_set_new(vars, "NODUS_PROJECT", json_string(em_obj_ns(fn)));
    size_t i;
    json_t *v;
    json_array_foreach(env, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *value = json_string_value(json_object_get(v, "value"));
        if (name)
            json_object_set_new(vars, name, json_string(value ? value : ""));
    }
    char **out = strv_new(json_object_size(vars));
    const char *key;
    size_t n = 0;
    json_object_foreach(vars, key, v) out[n++] = nd_xasprintf("%s=%s", key, json_string_value(v));
    json_decref(vars);
    return out;
}

/* Three pipes: the child's standard input, output and error. 0, or -1 with errno (and
 * none left open). */
static int open_pipes(int p[3][2])
{
    for (int i = 0; i < 3; i++) {
        if (pipe(p[i]) == 0)
            continue;
        int e = errno;
        while (i-- > 0) {
            close(p[i][0]);
            close(p[i][1]);
        }
        errno = e;
        return -1;
    }
    return 0;
}

/* In the child: the pipes as its standard streams, no other descriptor below max_fd
 * open, r->argv run in r->dir. Never returns. */
static void exec_child(const struct run *r, int p[3][2], long max_fd)
{
    dup2(p[0][0], 0);
    dup2(p[1][1], 1);
    dup2(p[2][1], 2);
    for (long fd = 3; fd < max_fd; fd++)
        close((int)fd);
    if (chdir(r->dir) < 0)
        _exit(126);
    signal(SIGPIPE, SIG_DFL);
    execve(r->exe, r->argv, r->envp);
    _exit(127);
}

/* The child's streams as the parent pumps them: output and error read into r->out and
 * r->err (up to EM_MAX_BODY each), the input written from in; -1 once closed. */
struct pump {
    int fds[3]; /* output, error, input */
    const char *in;
    size_t in_len, sent;
};

/* One stream is ready: i 2 writes more of the input, 0 and 1 read. */
static void pump_one(struct run *r, struct pump *pm, int i)
{
    if (i == 2) {
        ssize_t w = write(pm->fds[2], pm->in + pm->sent, pm->in_len - pm->sent);
        if (w > 0)
            pm->sent += (size_t)w;
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || pm->sent == pm->in_len) {
            close(pm->fds[2]);
            pm->fds[2] = -1;
        }
        return;
    }
    char buf[8192];
    ssize_t got = read(pm->fds[i], buf, sizeof buf);
    if (got > 0) {
        struct nd_buf *b = i == 0 ? &r->out : &r->err;
        if (b->len + (size_t)got <= EM_MAX_BODY)
            nd_buf_add(b, buf, (size_t)got);
    } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(pm->fds[i]);
        pm->fds[i] = -1;
    }
}

/* Pumps the streams until the child closes its output and error, or until the deadline
 * (then the child is killed and r->timed_out set). */
static void pump(struct run *r, struct pump *pm, pid_t pid)
{
    int64_t deadline = nd_time_mono_ms() + EM_INVOKE_TIMEOUT_MS;
    while (pm->fds[0] >= 0 || pm->fds[1] >= 0) {
        struct pollfd p[3];
        nfds_t n = 0;
        int which[3];
        for (int i = 0; i < 3; i++) {
            if (pm->fds[i] < 0)
                continue;
            p[n].fd = pm->fds[i];
            p[n].events = i == 2 ? POLLOUT : POLLIN;
            p[n].revents = 0;
            which[n++] = i;
        }
        int64_t left = deadline - nd_time_mono_ms();
        if (left <= 0) {
            r->timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(p, n, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
            break;
        for (nfds_t j = 0; j < n; j++)
            if (p[j].revents)
                pump_one(r, pm, which[j]);
    }
    for (int i = 0; i < 3; i++)
        if (pm->fds[i] >= 0)
            close(pm->fds[i]);
}

/* Runs r->argv with in on its standard input; fills exit_code, out and err. -1 with
 * errno when it could not be started. Called without the server lock. */
static int run_local(struct run *r, const char *in, size_t in_len)
{
    int p[3][2];
    if (open_pipes(p) < 0)
        return -1;
    long max_fd = sysconf(_SC_OPEN_MAX); /* asked before the fork */
    if (max_fd < 0 || max_fd > 4096)
        max_fd = 4096;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        for (int i = 0; i < 3; i++) {
            close(p[i][0]);
            close(p[i][1]);
        }
        errno = e;
        return -1;
    }
    if (pid == 0)
        exec_child(r, p, max_fd);
    close(p[0][0]);
    close(p[1][1]);
    close(p[2][1]);
    fcntl(p[0][1], F_SETFL, fcntl(p[0][1], F_GETFL) | O_NONBLOCK);
    struct pump pm = {{p[1][0], p[2][0], in_len ? p[0][1] : -1}, in, in_len, 0};
    if (!in_len)
        close(p[0][1]);
    pump(r, &pm, pid);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
        ;
    r->exit_code = WIFEXITED(wst) ? WEXITSTATUS(wst) : -1;
    return 0;
}

/* Refuses the invocation, with the fix that holds for the Function's state: started by
 * spec.state Running already (Pending, Starting), a start is a no-op: wait for it. */
static int not_runnable(struct em_api *a, const json_t *fn, const char *why)
{
    const char *name = em_obj_name(fn);
    const char *state = nd_obj_get_string(fn, "spec.state");
    const char *phase = nd_obj_get_string(fn, "status.phase");
    nd_status_set(&a->st, "BadRequest", NULL,
                  "functions.nodus.dev \"%s\" cannot be invoked: %s", name, why);
    nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
    if (nd_obj_get(fn, "metadata.deletionTimestamp"))
        nd_status_set_fix(&a->st,
                          "it is going away; create it anew to invoke it again, once it is "
                          "gone: nodus wait function/%s -n %s --for=delete",
                          name, a->ns);
    else if (state && !strcmp(state, "Stopped"))
        nd_status_set_fix(&a->st,
                          "start it and wait until it is ready: nodus start function/%s -n %s "
                          "&& nodus wait function/%s -n %s --for=condition=Ready",
                          name, a->ns, name, a->ns);
    else if (nd_phase_parse(phase) == ND_PHASE_STOPPED)
        nd_status_set_fix(&a->st, "it stopped by itself (reason %s); see why: nodus describe "
                                  "function/%s -n %s",
                          nd_obj_get_string(fn, "status.reason") ? nd_obj_get_string(fn, "status.reason")
                                                                 : "unknown",
                          name, a->ns);
    else
        nd_status_set_fix(&a->st,
                          "it is starting (spec.state is Running already); wait until it is "
                          "ready: nodus wait function/%s -n %s --for=condition=Ready",
                          name, a->ns);
    return -1;
}

/* Records the invocation on the stored Function (it may have gone meanwhile). */
static void record(struct em_api *a, const char *name)
{
    json_t *fn = em_store_get(&a->srv->store, nd_kind_by_plural(NULL, "functions"), a->ns, name);
    if (!fn)
        return;
    json_t *copy = json_deep_copy(fn);
    em_function_record_invocation(copy, em_clock_now_ms(&a->srv->clock));
    struct nd_status st = ND_STATUS_INIT;
    em_obj_update(a->srv, a->kind, fn, copy, &st);
    nd_status_release(&st);
    json_decref(copy);
}

static int invoke_local(struct em_api *a, const json_t *fn)
{
    const char *name = em_obj_name(fn);
    const json_t *cmd = json_object_get(json_object_get(fn, "spec"), "command");
    if (!json_array_size(cmd)) {
        nd_status_set(&a->st, "BadRequest", "set spec.command (it runs with the body on stdin)",
                      "functions.nodus.dev \"%s\" has no spec.command to run", name);
        return -1;
    }
    struct run r = {.exit_code = -1, .out = ND_BUF_INIT, .err = ND_BUF_INIT};
    char *name_copy = nd_xstrdup(name);
    int rc = -1;
    /* what the command sees: the Function's tree at /, its Volumes, under bubblewrap
     * (sim/view.h), as exec and a local Job do */
    struct em_view view;
    if (em_view_open(a->srv, nd_kind_by_plural(NULL, "functions"), fn, &view, &a->st) < 0)
        goto out;
    char **args = nd_json_strv(cmd);
    const char *host_path = getenv("PATH");
    char *prog = em_view_find_program(&view, args[0],
                                      host_path && *host_path ? host_path
                                                              : "/usr/local/bin:/usr/bin:/bin",
                                      view.isolated ? "/" : view.root);
    if (!prog) {
        nd_status_set(&a->st, "InternalError", "check spec.command",
                      "cannot run the command of function %s: %s: command not found", name,
                      args[0]);
        nd_strv_free(args);
        goto out;
    }
    r.argv = em_view_command(&view, prog, args, "/", &r.exe);
    free(prog);
    nd_strv_free(args);
    r.envp = make_env(fn, view.isolated ? "/" : view.root);
    r.dir = nd_xstrdup(view.root);
    /* the process runs without the lock: the emulator keeps serving meanwhile */
    pthread_mutex_unlock(&a->srv->lock);
    int started = run_local(&r, a->req->body.data, a->req->body.len);
    int err = errno;
    pthread_mutex_lock(&a->srv->lock);
    record(a, name_copy);
    if (started < 0) {
        nd_status_set(&a->st, "InternalError", "check spec.command",
                      "cannot run the command of function %s: %s", name_copy, strerror(err));
        goto out;
    }
    if (r.timed_out || r.exit_code != 0) {
        while (r.err.len && (r.err.data[r.err.len - 1] == '\n' || r.err.data[r.err.len - 1] == ' '))
            r.err.data[--r.err.len] = '\0';
        const char *tail = r.err.data;
        if (r.err.len > STDERR_TAIL)
            tail += r.err.len - STDERR_TAIL;
        struct nd_buf why = ND_BUF_INIT;
        if (r.timed_out)
            nd_buf_addf(&why, "did not answer within %ds", EM_INVOKE_TIMEOUT_MS / 1000);
        else if (r.exit_code == 127)
            nd_buf_addf(&why, "command not found: %s",
                        json_string_value(json_array_get(cmd, 0)));
        else if (r.exit_code < 0)
            nd_buf_adds(&why, "was killed by a signal");
        else
            nd_buf_addf(&why, "exited with code %d", r.exit_code);
        nd_status_set(&a->st, "InternalError",
                      "run its command locally with the same input to see why",
                      "function %s %s%s%s", name_copy, why.data, *tail ? ": " : "", tail);
        nd_status_set_target(&a->st, name_copy, a->kind->group, a->kind->plural);
        nd_buf_release(&why);
        goto out;
    }
    a->resp->code = 200;
    em_resp_set_type(a->resp, "application/octet-stream");
    nd_buf_reset(&a->resp->body);
    nd_buf_add(&a->resp->body, r.out.data, r.out.len);
    rc = 0;
out:
    em_view_release(&view);
    free(name_copy);
    free(r.exe);
    nd_strv_free(r.argv);
    nd_strv_free(r.envp);
    free(r.dir);
    nd_buf_release(&r.out);
    nd_buf_release(&r.err);
    return rc;
}

int em_function_invoke(struct em_api *a, const char *verb)
{
    (void)verb; /* create: the router serves only nd_kind_sub_verbs (route.c) */
    json_t *fn = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!fn)
        return em_api_not_found(a, a->path.name);
    const char *phase = json_string_value(json_object_get(json_object_get(fn, "status"), "phase"));
    if (json_object_get(json_object_get(fn, "metadata"), "deletionTimestamp"))
        return not_runnable(a, fn, "it is being deleted");
    if (nd_phase_parse(phase) != ND_PHASE_RUNNING) {
        char why[64];
        snprintf(why, sizeof why, "it is not Running (phase %s)", phase ? phase : "unknown");
        return not_runnable(a, fn, why);
    }
    if (a->srv->opt.runtime && !strcmp(a->srv->opt.runtime, "local"))
        return invoke_local(a, fn);
    char hex[65];
    nd_sha256_hex(a->req->body.data, a->req->body.len, hex);
    json_t *answer = json_pack("{ss ss sI ss}", "function", em_obj_name(fn), "project", a->ns,
                               "bytes", (json_int_t)a->req->body.len, "sha256", hex);
    em_resp_json(a->resp, 200, answer);
    json_decref(answer);
    record(a, a->path.name);
    return 0;
}
