/* The Job runtime: the bookkeeping of runs for the simulated log, and --runtime local's
 * processes; see runtime.h.
 *
 * Each local process has one thread that forks it, reads its output (stdout and stderr
 * share one pipe, so their order is kept), writes whole lines to its log file with the
 * emulated time, reaps it and reports its exit code. The fork happens on that thread,
 * which lives as long as the process, so the child can ask to be killed when it goes
 * (PR_SET_PDEATHSIG) and no process outlives a crashed emulator. The thread takes the
 * server lock for the clock and for each write to the log file, so a reader never sees
 * a run's file mixed with an older run's output.
 */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "loglines.h"
#include "objects.h"
#include "view.h"
#include "json/json.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define LINE_MAX_BYTES (16 * 1024) /* longer output lines are split, as the kubelet does */
#define GRACE_MS 2000
#define SHUTDOWN_GRACE_MS 500

struct proc {
    struct proc *next;
    struct em_server *srv;
    char *ns, *name, *uid;
    int64_t run;        /* the run's start (emulated ms) */
    char *exe;          /* the resolved executable */
    char **argv, **envp;
    char *cwd;
    char *log_path;
    char *start_error;  /* why it cannot start, or NULL */
    char *exec_error;   /* what the child prints if execve fails */
    char *why;          /* why it is being stopped */
    int grace_ms;
    int exit_code;
    bool done;          /* reaped and its output written */
    bool stop;
    bool superseded;    /* a newer run of the Job started: its output is dropped */
    int64_t written;
    bool truncated;
    int64_t last_ns;
    int log_fd;
    struct nd_buf partial;
};

struct em_runtime {
    struct proc *procs;
    int live; /* threads running */
};

bool em_runtime_local(const struct em_server *srv)
{
    return srv->opt.runtime && strcmp(srv->opt.runtime, "local") == 0;
}

char *em_runtime_log_path(const struct em_server *srv, const struct nd_kind *k, const char *ns,
                          const char *name)
{
    char *rel = nd_xasprintf("logs/%s/%s/%s.log", ns, k->plural, name);
    char *path = em_store_path(&srv->store, rel);
    free(rel);
    return path;
}

static void proc_free(struct proc *p)
{
    free(p->ns);
    free(p->name);
    free(p->uid);
    free(p->exe);
    nd_strv_free(p->argv);
    nd_strv_free(p->envp);
    free(p->cwd);
    free(p->log_path);
    free(p->start_error);
    free(p->exec_error);
    free(p->why);
    nd_buf_release(&p->partial);
    free(p);
}

static void unlink_proc(struct em_runtime *rt, struct proc *p)
{
    for (struct proc **pp = &rt->procs; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

static const char *uid_of(const json_t *obj)
{
    const char *u = json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    return u ? u : "";
}

/* ---- writing the log (lock held) ---- */

static int64_t real_sub_ms_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_nsec % 1000000;
}

static void append_line(struct proc *p, struct nd_buf *out, const char *text, size_t len)
{
    int64_t ns = em_clock_now_ms(&p->srv->clock) * 1000000 + real_sub_ms_ns();
    if (ns <= p->last_ns)
        ns = p->last_ns + 1;
    p->last_ns = ns;
    em_log_format_time(ns, out);
    nd_buf_addch(out, ' ');
    nd_buf_add(out, text, len);
    nd_buf_addch(out, '\n');
}

/* Writes whole lines (text without newlines, n_lines of them in lines[]) to the log. */
static void write_lines(struct proc *p, const char *const *lines, const size_t *lens, size_t n)
{
    struct em_server *srv = p->srv;
    pthread_mutex_lock(&srv->lock);
    if (p->superseded || p->log_fd < 0) {
        pthread_mutex_unlock(&srv->lock);
        return;
    }
    struct nd_buf out = ND_BUF_INIT;
    for (size_t i = 0; i < n && !p->truncated; i++) {
        size_t before = out.len;
        append_line(p, &out, lines[i], lens[i]);
        /* room is kept for the line that says so */
        if (p->written + (int64_t)out.len > (int64_t)EM_RUNTIME_LOG_MAX - 128) {
            nd_buf_truncate(&out, before);
            static const char msg[] = "[nodus] the log reached its limit of 8 MiB: "
                                      "further output is dropped";
            append_line(p, &out, msg, sizeof msg - 1);
            p->truncated = true;
        }
    }
    size_t off = 0;
    while (off < out.len) {
        ssize_t w = write(p->log_fd, out.data + off, out.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    p->written += (int64_t)off;
    nd_buf_release(&out);
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
}

static void write_text(struct proc *p, const char *text)
{
    size_t len = strlen(text);
    write_lines(p, &text, &len, 1);
}

/* Output as it arrives: whole lines go out, the rest waits (flush: all of it). */
static void feed(struct proc *p, const char *data, size_t n, bool flush)
{
    if (p->truncated)
        return; /* drained and dropped */
    nd_buf_add(&p->partial, data, n);
    const char *lines[64];
    size_t lens[64], count = 0, start = 0;
    const char *buf = p->partial.data;
    for (size_t i = 0; i < p->partial.len; i++) {
        bool nl = buf[i] == '\n';
        if (!nl && i - start + 1 < LINE_MAX_BYTES)
            continue;
        size_t len = i - start + (nl ? 0 : 1);
        lines[count] = buf + start;
        lens[count++] = len;
        start = i + 1;
        if (count == 64) {
            write_lines(p, lines, lens, count);
            count = 0;
        }
    }
    if (flush && start < p->partial.len) {
        lines[count] = buf + start;
        lens[count++] = p->partial.len - start;
        start = p->partial.len;
    }
    if (count)
        write_lines(p, lines, lens, count);
    size_t left = p->partial.len - start;
    memmove(p->partial.data, p->partial.data + start, left);
    nd_buf_truncate(&p->partial, left);
}

/* ---- the process ---- */

/* The highest open descriptor, so the child closes every one it inherited. */
static int highest_fd(void)
{
    int max = 2;
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        long m = sysconf(_SC_OPEN_MAX);
        return m > 0 && m < 65536 ? (int)m : 65536;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (fd > max)
            max = fd;
    }
    closedir(d);
    return max + 256; /* room for descriptors other threads open meanwhile */
}

/* After fork, in the child: only async-signal-safe calls. */
static void child(struct proc *p, int out_fd, int null_fd, int maxfd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    for (int fd = 3; fd <= maxfd; fd++)
        close(fd);
    if (chdir(p->cwd) < 0) {
        static const char msg[] = "[nodus] cannot enter the working directory\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(126);
    }
    execve(p->exe, p->argv, p->envp);
    int err = errno;
    ssize_t w = write(2, p->exec_error, strlen(p->exec_error));
    (void)w;
    _exit(err == ENOENT ? 127 : 126);
}

static int exit_code_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* Reads what the pipe holds (waiting up to wait_ms for something); true at its end. */
static bool drain(struct proc *p, int fd, int wait_ms)
{
    char buf[65536];
    struct pollfd pf = {fd, POLLIN, 0};
    if (wait_ms > 0)
        poll(&pf, 1, wait_ms);
    for (int i = 0; i < 64; i++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            feed(p, buf, (size_t)n, false);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0;
    }
    return false;
}

/* Runs the process to its end; its exit code. */
static int supervise(struct proc *p)
{
    struct em_server *srv = p->srv;
    int pfd[2];
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || pipe(pfd) < 0) {
        if (null_fd >= 0)
            close(null_fd);
        write_text(p, "[nodus] cannot start the command: out of file descriptors");
        return 126;
    }
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
    int maxfd = highest_fd();
    pid_t pid = fork();
    if (pid == 0)
        child(p, pfd[1], null_fd, maxfd);
    close(pfd[1]);
    close(null_fd);
    if (pid < 0) {
        close(pfd[0]);
        write_text(p, "[nodus] cannot start the command: fork failed");
        return 126;
    }
    setpgid(pid, pid); /* also here: a stop may come before the child ran */
    fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);

    bool eof = false, term_sent = false, kill_sent = false;
    int status = 0;
    int64_t term_at = 0;
    for (;;) {
        if (!eof)
            eof = drain(p, pfd[0], 50);
        if (waitpid(pid, &status, WNOHANG) == pid) {
            /* the command ended: the rest of its output, and what it left running goes */
            if (!eof)
                eof = drain(p, pfd[0], 0);
            kill(-pid, SIGKILL);
            if (!eof)
                drain(p, pfd[0], 0);
            break;
        }
        if (eof) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
        }
        pthread_mutex_lock(&srv->lock);
        bool stop = p->stop;
        int grace = p->grace_ms;
        char *why = stop && !term_sent && p->why ? nd_xstrdup(p->why) : NULL;
        pthread_mutex_unlock(&srv->lock);
        if (stop && !term_sent) {
            feed(p, "", 0, true);
            char *line = nd_xasprintf("[nodus] stopping the command (SIGTERM): %s",
                                      why ? why : "stopped");
            write_text(p, line);
            free(line);
            kill(-pid, SIGTERM);
            term_sent = true;
            term_at = nd_time_mono_ms();
        } else if (term_sent && !kill_sent && nd_time_mono_ms() - term_at >= grace) {
            kill(-pid, SIGKILL);
            kill_sent = true;
        }
        free(why);
    }
    close(pfd[0]);
    feed(p, "", 0, true);
    return exit_code_of(status);
}

static void *proc_main(void *arg)
{
    struct proc *p = arg;
    struct em_server *srv = p->srv;
    pthread_mutex_lock(&srv->lock);
    bool stop = p->stop;
    p->log_fd = open(p->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    pthread_mutex_unlock(&srv->lock);
    int code;
    if (p->start_error) {
        write_text(p, p->start_error);
        code = 127;
    } else if (stop) {
        code = 143;
    } else {
        code = supervise(p);
    }
    pthread_mutex_lock(&srv->lock);
    if (p->log_fd >= 0)
        close(p->log_fd);
    p->log_fd = -1;
    p->exit_code = code;
    p->done = true;
    srv->runtime->live--;
    if (p->stop || p->superseded) {
        unlink_proc(srv->runtime, p); /* nobody waits for it */
        proc_free(p);
    } else {
        json_t *obj = em_store_get(&srv->store, nd_kind_by_plural(NULL, "jobs"), p->ns, p->name);
        if (obj && !strcmp(uid_of(obj), p->uid))
            em_sim_touch(srv, nd_kind_by_plural(NULL, "jobs"), obj);
    }
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

/* ---- preparing a run (lock held) ---- */

/* The value of NODUS_RUN in a run's environment: how its processes are found again
 * after an emulator that was killed (kill -9) left them behind. NEW. */
static char *run_marker(const char *uid, int64_t run)
{
    return nd_xasprintf("%s.%lld", uid, (long long)run);
}

/* Kills what is left of a run whose emulator died: every process whose environment
 * holds NODUS_RUN=<marker> (Linux /proc; processes of other users cannot be read). */
static void kill_leftovers(const char *marker)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    char *want = nd_xasprintf("NODUS_RUN=%s", marker);
    size_t want_len = strlen(want) + 1; /* with its NUL: the whole entry */
    struct dirent *e;
    struct nd_buf env = ND_BUF_INIT;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1 || pid == (long)getpid())
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/environ", pid);
        nd_buf_reset(&env);
        if (nd_buf_read_file(&env, path) < 0)
            continue;
        for (size_t at = 0; at < env.len; at += strlen(env.data + at) + 1) {
            if (env.len - at >= want_len && !memcmp(env.data + at, want, want_len)) {
                kill((pid_t)pid, SIGKILL);
                break;
            }
        }
    }
    nd_buf_release(&env);
    free(want);
    closedir(d);
}

static void prepare(struct proc *p, struct em_server *srv, const json_t *obj)
{
    const json_t *spec = json_object_get(obj, "spec");
    struct em_view view;
    struct nd_status st = ND_STATUS_INIT;
    json_t *env = NULL, *argv = NULL;
    char *wd = NULL, *inside = NULL;
    if (em_view_open(srv, nd_kind_by_plural(NULL, "jobs"), obj, &view, &st) < 0) {
        p->start_error = nd_xasprintf("[nodus] cannot start: %s%s%s", st.message,
                                      st.fix ? "; fix: " : "", st.fix ? st.fix : "");
        p->cwd = nd_xstrdup(".");
        goto out;
    }
    wd = em_view_clean_path(json_string_value(json_object_get(spec, "workingDir")));
    if (!wd) {
        p->start_error = nd_xasprintf("[nodus] cannot start: spec.workingDir %s leaves the "
                                      "Job's file tree",
                                      json_string_value(json_object_get(spec, "workingDir")));
        p->cwd = nd_xstrdup(view.root);
        goto out;
    }
    p->cwd = nd_xasprintf("%s%s", view.root, wd); /* on the host: where the child starts */
    em_mkdir_p(p->cwd);
    inside = nd_xstrdup(*wd ? wd : "/"); /* where the command sees itself, isolated */

    /* the environment: a few of ours, then spec.env (later names win) */
    const char *host_path = getenv("PATH");
    env = json_object();
    json_object_set_new(env, "PATH", json_string(host_path && *host_path
                                                     ? host_path
                                                     : "/usr/local/bin:/usr/bin:/bin"));
    json_object_set_new(env, "HOME", json_string(view.isolated ? "/" : view.root));
    json_object_set_new(env, "HOSTNAME", json_string(p->name));
    json_object_set_new(env, "NODUS_PROJECT", json_string(p->ns));
    json_object_set_new(env, "NODUS_JOB", json_string(p->name));
    char *marker = run_marker(p->uid, p->run);
    json_object_set_new(env, "NODUS_RUN", json_string(marker));
    free(marker);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(spec, "env"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *value = json_string_value(json_object_get(e, "value"));
        if (name && *name && !strchr(name, '='))
            json_object_set_new(env, name, json_string(value ? value : ""));
    }
    p->envp = nd_xcalloc(json_object_size(env) + 1, sizeof *p->envp);
    const char *k;
    json_t *v;
    size_t n = 0;
    json_object_foreach(env, k, v) p->envp[n++] = nd_xasprintf("%s=%s", k, json_string_value(v));

    argv = json_array();
    json_array_extend(argv, json_object_get(spec, "command"));
    json_array_extend(argv, json_object_get(spec, "args"));
    char **args = nd_json_strv(argv);
    char *prog = NULL;
    if (!args[0]) {
        p->start_error = nd_xstrdup("[nodus] cannot start: spec.command is empty, and the "
                                    "local runtime cannot run an image's default command");
    } else if (!(prog = em_view_find_program(&view, args[0],
                                             json_string_value(json_object_get(env, "PATH")),
                                             view.isolated ? inside : p->cwd))) {
        p->start_error = nd_xasprintf("[nodus] cannot start: %s: command not found", args[0]);
    } else {
        p->argv = em_view_command(&view, prog, args, inside, &p->exe);
        p->exec_error = nd_xasprintf("[nodus] cannot run %s\n", prog);
    }
    free(prog);
    nd_strv_free(args);
out:
    json_decref(argv);
    json_decref(env);
    free(wd);
    free(inside);
    em_view_release(&view);
    nd_status_release(&st);
}

static struct em_runtime *runtime_of(struct em_server *srv)
{
    if (!srv->runtime)
        srv->runtime = nd_xcalloc(1, sizeof *srv->runtime);
    return srv->runtime;
}

static void spawn(struct em_ctl *c)
{
    struct em_server *srv = c->srv;
    struct em_runtime *rt = runtime_of(srv);
    struct proc *p = nd_xcalloc(1, sizeof *p);
    p->srv = srv;
    p->ns = nd_xstrdup(em_obj_ns(c->obj));
    p->name = nd_xstrdup(em_obj_name(c->obj));
    p->uid = nd_xstrdup(uid_of(c->obj));
    p->run = c->now;
    p->grace_ms = GRACE_MS;
    p->log_fd = -1;
    p->last_ns = 0;
    nd_buf_init(&p->partial, 0);
    /* an older run of this Job (or of an older Job of that name) writes no more */
    for (struct proc *q = rt->procs; q; q = q->next) {
        if (!strcmp(q->ns, p->ns) && !strcmp(q->name, p->name) && !q->superseded) {
            q->superseded = true;
            q->stop = true;
        }
    }
    p->log_path = em_runtime_log_path(srv, nd_kind_by_plural(NULL, "jobs"), p->ns, p->name);
    char *dir = nd_xstrdup(p->log_path);
    *strrchr(dir, '/') = '\0';
    em_mkdir_p(dir);
    free(dir);
    int fd = open(p->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    prepare(p, srv, c->obj);
    p->next = rt->procs;
    rt->procs = p;
    rt->live++;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, proc_main, p) != 0) {
        rt->live--;
        p->done = true;
        p->exit_code = 126;
    }
    pthread_attr_destroy(&attr);
}

static struct proc *find(struct em_server *srv, const char *uid, int64_t run)
{
    for (struct proc *p = srv->runtime ? srv->runtime->procs : NULL; p; p = p->next)
        if (!p->superseded && p->run == run && !strcmp(p->uid, uid))
            return p;
    return NULL;
}

void em_runtime_run_start(struct em_ctl *c)
{
    if (em_runtime_local(c->srv) && c->srv->stopping)
        return; /* the next start of the emulator runs it */
    int64_t old = em_ctl_sim_get(c, "runStart", -1);
    if (old >= 0 && em_ctl_sim_get(c, "local", 0) == 1 && em_runtime_local(c->srv) &&
        !find(c->srv, uid_of(c->obj), old)) {
        char *marker = run_marker(uid_of(c->obj), old);
        kill_leftovers(marker);
        free(marker);
    }
    em_ctl_sim_set(c, "runStart", c->now);
    em_ctl_sim_set(c, "runFrom", em_ctl_sim_get(c, "runMs", 0));
    em_ctl_sim_del(c, "runEnd");
    if (!em_runtime_local(c->srv)) {
        em_ctl_sim_del(c, "local");
        return;
    }
    em_ctl_sim_set(c, "local", 1);
    spawn(c);
}

void em_runtime_run_stop(struct em_ctl *c, const char *why)
{
    int64_t run = em_ctl_sim_get(c, "runStart", -1);
    if (run >= 0 && em_ctl_sim_get(c, "runEnd", -1) < 0)
        em_ctl_sim_set(c, "runEnd", c->now);
    struct proc *p = run >= 0 ? find(c->srv, uid_of(c->obj), run) : NULL;
    if (!p)
        return;
    if (p->done) {
        unlink_proc(c->srv->runtime, p); /* it ended by itself, unseen */
        proc_free(p);
        return;
    }
    if (!p->stop) {
        p->stop = true;
        free(p->why);
        p->why = nd_xstrdup(why);
    }
}

int em_runtime_run_poll(struct em_ctl *c, int *exit_code)
{
    int64_t run = em_ctl_sim_get(c, "runStart", -1);
    struct proc *p = run >= 0 ? find(c->srv, uid_of(c->obj), run) : NULL;
    if (!p)
        return -1;
    if (!p->done)
        return 0;
    *exit_code = p->exit_code;
    unlink_proc(c->srv->runtime, p);
    proc_free(p);
    return 1;
}

bool em_runtime_busy(struct em_server *srv, const char *ns, const char *name)
{
    for (struct proc *p = srv->runtime ? srv->runtime->procs : NULL; p; p = p->next)
        if (!p->done && !p->superseded && !strcmp(p->ns, ns) && !strcmp(p->name, name))
            return true;
    return false;
}

void em_runtime_shutdown(struct em_server *srv)
{
    pthread_mutex_lock(&srv->lock);
    struct em_runtime *rt = srv->runtime;
    if (!rt) {
        pthread_mutex_unlock(&srv->lock);
        return;
    }
    for (struct proc *p = rt->procs; p; p = p->next) {
        if (!p->done && !p->stop) {
            p->stop = true;
            free(p->why);
            p->why = nd_xstrdup("the emulator is shutting down");
        }
        p->grace_ms = SHUTDOWN_GRACE_MS;
    }
    int64_t give_up = nd_time_mono_ms() + 10000;
    while (rt->live > 0 && nd_time_mono_ms() < give_up) {
        struct timespec ts;
        nd_time_deadline(&ts, 100);
        pthread_cond_timedwait(&srv->changed, &srv->lock, &ts);
    }
    if (rt->live == 0) {
        while (rt->procs) {
            struct proc *p = rt->procs;
            rt->procs = p->next;
            proc_free(p);
        }
        free(rt);
        srv->runtime = NULL;
    }
    pthread_mutex_unlock(&srv->lock);
}
