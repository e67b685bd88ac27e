/* exec_session.c: running one exec session: the local process (pipes, or a
 * pseudo-terminal), Kubernetes' channel protocol over wslay, and the end of it all.
 *
 * One thread per session, one poll() loop over the socket, the process's output and
 * its input. Output is read only while less than 1 MiB waits to go to the client, and
 * the socket is read only while less than 1 MiB of stdin waits for the process, so a
 * slow side slows the other instead of filling memory. The loop never blocks; it wakes
 * at least every 50 ms to reap the process and every 250 ms to check that the object
 * is still Running and the server not stopping.
 *
 * A client that closes first, breaks the protocol (answered with a close frame: 1002 for
 * a malformed frame, 1009 for a message over MSG_MAX), fails a read or a write, or
 * answers none of our pings for a keep-alive interval ends the session: the process
 * group gets SIGHUP, SIGTERM and SIGCONT, SIGKILL after KILL_GRACE_MS, and the session
 * is over (a Sandbox's idle clock starts again).
 */
#include "exec_session.h"
#include "ws_framing.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "client/ws.h"
#include "json/json.h"
#include "util/buf.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define CH_STDIN  0
#define CH_STDOUT 1
#define CH_STDERR 2
#define CH_STATUS 3
#define CH_RESIZE 4
#define CH_CLOSE  255

#define BACKLOG_MAX    (1u << 20) /* bytes waiting either way before a side is throttled */
#define GRACE_MS       1000       /* after the process exits, how long its output may stay open */
#define CLOSE_WAIT_MS  1000       /* after our close frame, how long to wait for the client's */
#define RESIZE_WAIT_MS 300        /* a terminal waits this long for its first size */
#define KILL_GRACE_MS  2000       /* SIGTERM to SIGKILL, when the client left first */
#define MSG_MAX        (1u << 20) /* the largest message a client may send */

struct run {
    struct em_exec_session *s;
    char *exe, **cmd; /* what the child executes (spawn's, freed once forked) */
    int sock;
    const char *extra;
    size_t extra_len, extra_pos;
    wslay_event_context_ptr ws;
    bool gone; /* the client's socket failed or ended */
    pid_t pid; /* 0: not started */
    bool exited;
    int wstatus;
    int64_t exited_at;
    int out_fd[2]; /* stdout (or the terminal), stderr; -1 when closed */
    int in_fd;     /* stdin pipe or the terminal; -1 */
    int pty;       /* the terminal's master, -1 */
    struct nd_buf in_pending;
    bool in_close; /* the client closed stdin: close it once in_pending is written */
    bool resized;
    struct winsize size;
    bool ended; /* status and close frame queued */
    int64_t ended_at;
    struct em_ws_framing framing;
    int64_t broken_at; /* when the client was first seen closing, leaving or failing */
    int64_t term_at;   /* SIGTERM sent to the group (the client left first) */
    bool killed;       /* SIGKILL sent */
    int64_t keepalive; /* ms between pings, 0: none */
    int64_t heard_at;  /* the last bytes from the client */
    int64_t ping_at;   /* the last ping queued, 0: none unanswered */
    int64_t next_ping;
};

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- the WebSocket ---- */

/* Bytes from the client, about to go to wslay. */
static ssize_t heard(struct run *r, wslay_event_context_ptr ctx, const uint8_t *buf, size_t n)
{
    r->heard_at = nd_time_mono_ms();
    if (r->framing.state >= 0 && em_ws_framing_unparsable(&r->framing, buf, n)) {
        r->framing.state = -1;
        wslay_event_queue_close(ctx, WSLAY_CODE_PROTOCOL_ERROR, NULL, 0);
    }
    return (ssize_t)n;
}

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *user)
{
    (void)flags;
    struct run *r = user;
    if (r->extra_pos < r->extra_len) {
        size_t n = r->extra_len - r->extra_pos;
        if (n > len)
            n = len;
        memcpy(buf, r->extra + r->extra_pos, n);
        r->extra_pos += n;
        return heard(r, ctx, buf, n);
    }
    for (;;) {
        ssize_t n = recv(r->sock, buf, len, 0);
        if (n > 0)
            return heard(r, ctx, buf, (size_t)n);
        if (n < 0 && errno == EINTR)
            continue;
        if (nd_ws_io_failed(ctx, n))
            r->gone = true;
        return -1;
    }
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    struct run *r = user;
    for (;;) {
#ifdef MSG_MORE
        ssize_t n =
            send(r->sock, data, len, MSG_NOSIGNAL | ((flags & WSLAY_MSG_MORE) ? MSG_MORE : 0));
#else
        (void)flags;
        ssize_t n = send(r->sock, data, len, MSG_NOSIGNAL);
#endif
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (nd_ws_io_failed(ctx, n))
            r->gone = true;
        return -1;
    }
}

static void send_msg(struct run *r, unsigned char ch, const void *data, size_t n)
{
    if (r->gone)
        return;
    unsigned char *m = nd_xmalloc(n + 1);
    m[0] = ch;
    if (n)
        memcpy(m + 1, data, n);
    struct wslay_event_msg msg = {WSLAY_BINARY_FRAME, m, n + 1};
    wslay_event_queue_msg(r->ws, &msg); /* copies; fails only once closing */
    free(m);
}

static void apply_size(struct run *r)
{
    if (r->pty >= 0 && r->resized)
        ioctl(r->pty, TIOCSWINSZ, &r->size);
}

static void on_resize(struct run *r, const unsigned char *p, size_t n)
{
    json_error_t e;
    json_t *j = json_loadb((const char *)p, n, 0, &e);
    json_int_t w = json_integer_value(json_object_get(j, "Width"));
    json_int_t h = json_integer_value(json_object_get(j, "Height"));
    json_decref(j);
    if (w <= 0 || h <= 0 || w > 65535 || h > 65535)
        return;
    r->size.ws_col = (unsigned short)w;
    r->size.ws_row = (unsigned short)h;
    r->resized = true;
    apply_size(r);
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *user)
{
    (void)ctx;
    struct run *r = user;
    if (arg->opcode != WSLAY_BINARY_FRAME || arg->msg_length == 0)
        return;
    unsigned char ch = arg->msg[0];
    const unsigned char *p = arg->msg + 1;
    size_t n = arg->msg_length - 1;
    if (ch == CH_STDIN && r->s->want_in && !r->in_close && (r->in_fd >= 0 || !r->pid))
        nd_buf_add(&r->in_pending, p, n);
    else if (ch == CH_RESIZE)
        on_resize(r, p, n);
    else if (ch == CH_CLOSE && r->s->v5 && n >= 1 && p[0] == CH_STDIN)
        r->in_close = true;
}

/* ---- the process ---- */

/* The executable for argv[0], as the command sees it (em_view_find_program). NEW, or
 * NULL. */
static char *find_program(const struct em_exec_session *s)
{
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (char **e = s->envp; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0)
            path = *e + 5;
    return em_view_find_program(&s->view, s->argv[0], path, s->view.isolated ? "/" : s->view.root);
}

static void child_write(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* In the child (async-signal-safe calls only): a clean signal state, a session of its
 * own with the terminal as controlling terminal, the descriptors, the directory. */
static void child(struct run *r, int fd0, int fd1, int fd2, int slave, int maxfd,
                  const char *notfound)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    static const int sigs[] = {SIGPIPE, SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGCHLD,
                               SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2};
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &dfl, NULL);
    setsid();
    if (slave >= 0) {
        ioctl(slave, TIOCSCTTY, 0);
        fd0 = fd1 = fd2 = slave;
    }
    if (dup2(fd0, 0) < 0 || dup2(fd1, 1) < 0 || dup2(fd2, 2) < 0)
        _exit(126);
    for (int fd = 3; fd < maxfd; fd++)
        close(fd);
    if (chdir(r->s->view.root) < 0) {
        child_write("exec: cannot enter the working directory\n");
        _exit(126);
    }
    if (!r->exe) {
        child_write(notfound);
        _exit(127);
    }
    execve(r->exe, r->cmd, r->s->envp);
    int err = errno;
    child_write("exec: \"");
    child_write(r->s->argv[0]);
    child_write(err == ENOENT    ? "\": no such file or directory\n"
                : err == EACCES  ? "\": permission denied\n"
                : err == ENOEXEC ? "\": exec format error\n"
                                 : "\": cannot execute\n");
    _exit(err == ENOENT ? 127 : 126);
}

static int spawn(struct run *r, struct nd_buf *why)
{
    struct em_exec_session *s = r->s;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    int master = -1, slave = -1, devnull = -1, rc = -1;
    char *prog = find_program(s);
    r->exe = NULL;
    r->cmd = prog ? em_view_command(&s->view, prog, s->argv, "/", &r->exe) : NULL;
    char *notfound = nd_xasprintf("exec: \"%s\": executable file not found in $PATH\n", s->argv[0]);
    struct rlimit rl;
    int maxfd =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536
            ? (int)rl.rlim_cur
            : 65536;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0)
        goto fail;
    if (s->tty) {
        struct winsize ws = r->resized ? r->size : (struct winsize){24, 80, 0, 0};
        if (openpty(&master, &slave, NULL, NULL, &ws) < 0)
            goto fail;
    } else if ((s->want_in && pipe(in) < 0) || (s->want_out && pipe(out) < 0) ||
               (s->want_err && pipe(err) < 0)) {
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0)
        goto fail;
    if (pid == 0)
        child(r, in[0] >= 0 ? in[0] : devnull, out[1] >= 0 ? out[1] : devnull,
              err[1] >= 0 ? err[1] : devnull, slave, maxfd, notfound);
    r->pid = pid;
    if (s->tty) {
        r->pty = master;
        set_nonblock(master);
        r->in_fd = s->want_in ? master : -1;
        r->out_fd[0] = master;
        master = -1;
    } else {
        r->in_fd = in[1];
        r->out_fd[0] = out[0];
        r->out_fd[1] = err[0];
        in[1] = out[0] = err[0] = -1;
        for (int i = 0; i < 2; i++)
            if (r->out_fd[i] >= 0)
                set_nonblock(r->out_fd[i]);
        if (r->in_fd >= 0)
            set_nonblock(r->in_fd);
    }
    rc = 0;
    goto out;
fail:
    nd_buf_addf(why, "cannot start the command: %s", strerror(errno));
out:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&err[0]);
    close_fd(&err[1]);
    close_fd(&slave);
    close_fd(&master);
    close_fd(&devnull);
    free(prog);
    free(r->exe);
    nd_strv_free(r->cmd);
    r->exe = NULL;
    r->cmd = NULL;
    free(notfound);
    return rc;
}

static void kill_all(struct run *r)
{
    if (r->pid > 0)
        kill(-r->pid, SIGKILL); /* the whole group: what the command started goes too */
}

/* The client left first: the group is asked to end (SIGHUP as a terminal's hang-up
 * would, SIGTERM, SIGCONT for a stopped one), then killed after a grace. */
static void stop_process(struct run *r, int64_t now)
{
    if (r->pid <= 0 || r->killed)
        return;
    if (!r->term_at) {
        /* a child that has not yet called setsid() has no group of its own: asked now,
         * nothing would hear it until the SIGKILL, so ask again at the next turn */
        if (kill(-r->pid, SIGHUP) < 0 && errno == ESRCH && !r->exited)
            return;
        r->term_at = now;
        kill(-r->pid, SIGTERM);
        kill(-r->pid, SIGCONT);
    } else if (now - r->term_at >= KILL_GRACE_MS) {
        kill_all(r);
        r->killed = true;
    }
}

/* Whether nothing of the process is left to wait for: not started, or its leader
 * reaped and the rest of its group gone or killed. */
static bool process_over(struct run *r)
{
    if (r->pid <= 0)
        return true;
    if (!r->exited)
        return false;
    return r->killed || r->ended || (kill(-r->pid, 0) < 0 && errno == ESRCH);
}

static void reap(struct run *r)
{
    if (r->pid <= 0 || r->exited)
        return;
    if (waitpid(r->pid, &r->wstatus, WNOHANG) == r->pid) {
        r->exited = true;
        r->exited_at = nd_time_mono_ms();
    }
}

static void close_stdin(struct run *r)
{
    if (r->in_fd < 0)
        return;
    if (r->pty >= 0) {
        /* a terminal has no end of input, only its EOF character */
        struct termios t;
        char eof = tcgetattr(r->pty, &t) == 0 && t.c_cc[VEOF] ? (char)t.c_cc[VEOF] : 4;
        if (write(r->pty, &eof, 1) < 0) {
            /* the terminal is gone: nothing to tell */
        }
        r->in_fd = -1;
        return;
    }
    close_fd(&r->in_fd);
}

/* ---- the end ---- */

static void send_status(struct run *r, const char *failure)
{
    json_t *st = json_pack("{s{}}", "metadata");
    if (failure) {
        json_object_set_new(st, "status", json_string("Failure"));
        json_object_set_new(st, "message", json_string(failure));
        json_object_set_new(st, "reason", json_string("InternalError"));
        json_object_set_new(st, "code", json_integer(500));
    } else {
        int code = WIFEXITED(r->wstatus)     ? WEXITSTATUS(r->wstatus)
                   : WIFSIGNALED(r->wstatus) ? 128 + WTERMSIG(r->wstatus)
                                             : 1;
        json_object_set_new(st, "status", json_string(code ? "Failure" : "Success"));
        if (code) {
            struct nd_buf m = ND_BUF_INIT;
            nd_buf_adds(&m, "command terminated with non-zero exit code: error executing "
                            "command [");
            for (char **a = r->s->argv; *a; a++)
                nd_buf_addf(&m, "%s%s", a == r->s->argv ? "" : " ", *a);
            nd_buf_addf(&m, "], exit code %d", code);
            json_object_set_new(st, "message", json_string(m.data));
            json_object_set_new(st, "reason", json_string("NonZeroExitCode"));
            json_object_set_new(st, "details",
                                json_pack("{s[{ss so}]}", "causes", "reason", "ExitCode", "message",
                                          json_sprintf("%d", code)));
            nd_buf_release(&m);
        }
    }
    char *text = json_dumps(st, JSON_COMPACT);
    send_msg(r, CH_STATUS, text, strlen(text));
    free(text);
    json_decref(st);
    /* the close frame follows once this is sent (loop): wslay sends control frames first */
    r->ended = true;
    r->ended_at = nd_time_mono_ms();
}

/* ---- the loop ---- */

static void read_output(struct run *r, int i)
{
    char buf[32768];
    ssize_t n = read(r->out_fd[i], buf, sizeof buf);
    if (n > 0) {
        bool wanted = i == 0 ? r->s->want_out || r->s->tty : r->s->want_err;
        if (wanted)
            send_msg(r, i == 0 ? CH_STDOUT : CH_STDERR, buf, (size_t)n);
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    /* the end (EOF, or EIO once the terminal's last user is gone) */
    if (r->out_fd[i] == r->pty) {
        r->pty = -1;
        r->in_fd = -1;
    }
    close_fd(&r->out_fd[i]);
}

static void write_input(struct run *r)
{
    ssize_t n = write(r->in_fd, r->in_pending.data, r->in_pending.len);
    if (n > 0) {
        memmove(r->in_pending.data, r->in_pending.data + n, r->in_pending.len - (size_t)n);
        nd_buf_truncate(&r->in_pending, r->in_pending.len - (size_t)n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        /* the process closed its input: what the client sends is dropped */
        nd_buf_reset(&r->in_pending);
        if (r->pty < 0)
            close_fd(&r->in_fd);
        else
            r->in_fd = -1;
    }
}

/* Reads the client until its first window size came, or a while passed. */
static void wait_for_size(struct run *r)
{
    int64_t until = nd_time_mono_ms() + RESIZE_WAIT_MS;
    while (!r->resized && !r->gone && wslay_event_want_read(r->ws)) {
        int64_t left = until - nd_time_mono_ms();
        if (left <= 0)
            break;
        struct pollfd pf = {r->sock, POLLIN, 0};
        if (poll(&pf, 1, (int)left) <= 0 && r->extra_pos == r->extra_len)
            continue;
        if (wslay_event_recv(r->ws) != 0 && wslay_event_get_read_enabled(r->ws))
            r->gone = true;
    }
}

/* Over TLS the session's socket is MHD's socket pair, which never tells that the client
 * went away; the TCP socket behind it does (peeked at only: MHD reads it). */
static bool peer_closed(const struct run *r)
{
    int fd = r->s->tcp_fd;
    if (fd < 0 || fd == r->sock || r->extra_pos < r->extra_len)
        return false;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
        return false;
    /* what the client sent before it left is read first */
    return recv(r->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

static bool still_wanted(struct run *r)
{
    struct em_server *srv = r->s->srv;
    pthread_mutex_lock(&srv->lock);
    bool ok =
        !srv->stopping && em_exec_target_running(srv, r->s->kind, r->s->ns, r->s->name, r->s->uid);
    pthread_mutex_unlock(&srv->lock);
    return ok;
}

/* Pings the client every keep-alive interval; true when the last ping, queued a whole
 * interval ago, brought nothing back: the client has vanished (no FIN, no RST), or it
 * reads nothing, so the ping never reached it. While the socket is not read here
 * (stdin waits for the process) nothing is judged. */
static bool unanswered(struct run *r, int64_t now, bool reading)
{
    if (!r->keepalive)
        return false;
    if (!reading) {
        r->ping_at = 0;
        return false;
    }
    if (now < r->next_ping)
        return false;
    if (r->ping_at && r->heard_at < r->ping_at)
        return true;
    struct wslay_event_msg ping = {WSLAY_PING, NULL, 0};
    if (wslay_event_queue_msg(r->ws, &ping) == 0)
        r->ping_at = now;
    r->next_ping = now + r->keepalive;
    return false;
}

/* The session moves on: a process that exited, its output drained (or past the grace),
 * sends its status; once the status is out, the close frame is queued; a client that
 * left stops the process. */
static void advance(struct run *r, int64_t now, bool broken)
{
    bool outputs = r->out_fd[0] >= 0 || r->out_fd[1] >= 0;
    if (!r->ended && !broken && r->pid && r->exited &&
        (!outputs || now - r->exited_at > GRACE_MS)) {
        close_fd(&r->out_fd[0]);
        close_fd(&r->out_fd[1]);
        r->pty = r->in_fd = -1;
        send_status(r, NULL);
    }
    if (r->ended && !wslay_event_get_close_sent(r->ws) &&
        wslay_event_get_queued_msg_count(r->ws) == 0 && !wslay_event_want_write(r->ws)) {
        wslay_event_queue_close(r->ws, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
        r->ended_at = now;
    }
    if (broken && !r->ended)
        stop_process(r, now); /* the client left before the end */
}

/* Whether the session is over: what is queued (a close frame) went out, or a while
 * passed, and the process is done with. */
static bool over(struct run *r, int64_t now, bool broken)
{
    bool flushed = r->gone || !wslay_event_want_write(r->ws) ||
                   (broken && now - r->broken_at > CLOSE_WAIT_MS);
    return flushed &&
           (broken ? r->ended || process_over(r) : r->ended && now - r->ended_at > CLOSE_WAIT_MS);
}

/* What one round waits for, and where each is in pf (-1: not waited for). */
struct waits {
    struct pollfd pf[4];
    int n, isock, iout[2], iin;
};

/* The socket (to read, when reading; to write what wslay has), the outputs while the
 * backlog to the client has room, the input while bytes wait for it. */
static void waits_make(struct run *r, bool reading, struct waits *w)
{
    *w = (struct waits){.isock = -1, .iout = {-1, -1}, .iin = -1};
    short sev = 0;
    if (reading)
        sev |= POLLIN;
    if (!r->gone && wslay_event_want_write(r->ws))
        sev |= POLLOUT;
    if (sev) {
        w->isock = w->n;
        w->pf[w->n++] = (struct pollfd){r->sock, sev, 0};
    }
    bool room = wslay_event_get_queued_msg_length(r->ws) < BACKLOG_MAX;
    for (int i = 0; i < 2; i++)
        if (r->out_fd[i] >= 0 && room) {
            w->iout[i] = w->n;
            w->pf[w->n++] = (struct pollfd){r->out_fd[i], POLLIN, 0};
        }
    if (r->in_fd >= 0 && r->in_pending.len) {
        w->iin = w->n;
        w->pf[w->n++] = (struct pollfd){r->in_fd, POLLOUT, 0};
    }
}

/* Serves what poll found ready: frames from the client (and the bytes that came with the
 * request), the outputs, the input, frames to the client. */
static void serve_ready(struct run *r, const struct waits *w, bool reading)
{
    const struct pollfd *pf = w->pf;
    if (reading && ((w->isock >= 0 && (pf[w->isock].revents & (POLLIN | POLLHUP | POLLERR))) ||
                    r->extra_pos < r->extra_len)) {
        /* a failure that leaves reading on is not the protocol's (wslay closes
         * then): take the client as gone */
        if (wslay_event_recv(r->ws) != 0 && wslay_event_get_read_enabled(r->ws))
            r->gone = true;
    }
    for (int i = 0; i < 2; i++)
        if (w->iout[i] >= 0 && pf[w->iout[i]].revents && r->out_fd[i] >= 0)
            read_output(r, i);
    if (w->iin >= 0 && pf[w->iin].revents && r->in_fd >= 0)
        write_input(r);
    if (!r->gone && wslay_event_want_write(r->ws) && wslay_event_send(r->ws) != 0)
        r->gone = true;
}

/* Every 250 ms (*next_check): a peer that closed its end is gone; a session no longer
 * wanted is ended. */
static void check_now_and_then(struct run *r, int64_t *next_check)
{
    if (nd_time_mono_ms() < *next_check)
        return;
    *next_check = nd_time_mono_ms() + 250;
    if (!r->gone && peer_closed(r))
        r->gone = true;
    if (!r->ended && !still_wanted(r))
        kill_all(r);
}

static void loop(struct run *r)
{
    int64_t next_check = nd_time_mono_ms() + 250;
    r->heard_at = nd_time_mono_ms();
    r->next_ping = r->heard_at + r->keepalive;
    for (;;) {
        reap(r);
        if (r->in_close && !r->in_pending.len)
            close_stdin(r);
        int64_t now = nd_time_mono_ms();
        /* the client closed, left, broke the protocol or stopped answering */
        bool broken = r->gone || !wslay_event_get_read_enabled(r->ws);
        if (broken && !r->broken_at)
            r->broken_at = now;
        advance(r, now, broken);
        if (over(r, now, broken))
            break;
        bool reading = !r->gone && wslay_event_want_read(r->ws) && r->in_pending.len < BACKLOG_MAX;
        if (!broken && !r->ended && unanswered(r, now, reading)) {
            r->gone = true; /* no pong, no byte: the client is no longer there */
            continue;
        }
        struct waits w;
        waits_make(r, reading, &w);
        /* bytes that came with the request are there already */
        int timeout = r->extra_pos < r->extra_len && reading ? 0 : 50;
        if (poll(w.pf, (nfds_t)w.n, timeout) < 0 && errno != EINTR)
            break;
        serve_ready(r, &w, reading);
        check_now_and_then(r, &next_check);
    }
}

void em_exec_session_run(struct em_exec_session *s, int fd, const char *extra, size_t extra_len)
{
    struct run r = {.s = s, .sock = fd, .extra = extra, .extra_len = extra_len};
    r.out_fd[0] = r.out_fd[1] = r.in_fd = r.pty = -1;
    nd_buf_init(&r.in_pending, 0);
    set_nonblock(fd);
    r.keepalive = (int64_t)s->srv->opt.exec_keepalive_s * 1000;
    struct wslay_event_callbacks cb = {on_recv, on_send, NULL, NULL, NULL, NULL, on_msg};
    if (wslay_event_context_server_init(&r.ws, &cb, &r) == 0) {
        wslay_event_config_set_max_recv_msg_length(r.ws, MSG_MAX);
        if (s->tty)
            wait_for_size(&r);
        struct nd_buf why = ND_BUF_INIT;
        /* a client gone or closing while a terminal waited for its size: nothing runs */
        if (!r.gone && wslay_event_get_read_enabled(r.ws) && spawn(&r, &why) < 0)
            send_status(&r, why.data);
        nd_buf_release(&why);
        loop(&r);
        wslay_event_context_free(r.ws);
    }
    kill_all(&r);
    if (r.pid > 0 && !r.exited)
        waitpid(r.pid, &r.wstatus, 0);
    close_fd(&r.out_fd[0]);
    close_fd(&r.out_fd[1]);
    if (r.pty < 0 && r.in_fd >= 0)
        close(r.in_fd);
    nd_buf_release(&r.in_pending);
    pthread_mutex_lock(&s->srv->lock);
    em_exec_session_closed(s);
    pthread_mutex_unlock(&s->srv->lock);
    em_exec_session_free(s);
}

void em_exec_session_free(struct em_exec_session *s)
{
    if (!s)
        return;
    free(s->ns);
    free(s->name);
    free(s->uid);
    em_view_release(&s->view);
    nd_strv_free(s->argv);
    nd_strv_free(s->envp);
    free(s);
}
