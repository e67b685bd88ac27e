/* shell: an interactive prompt. Each line is a nodus command line without the leading
 * `nodus` (words split and quoted as a POSIX shell does, with wordexp and no command
 * substitution), run as its own nodus process so a command behaves exactly as it does
 * from a terminal. Tab completes verbs, kinds, names and flags through the same
 * `nodus __complete` the completion scripts use (names from the live server). History
 * is kept in ~/.nodus/history. Built-ins: `use project NAME` (later commands run in that
 * project unless they say otherwise), `help`, `exit` (or Ctrl-D).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "commands.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define HISTORY_LINES 1000

const struct nd_flag cmd_shell_flags[] = {
    {NULL},
};

static char self[PATH_MAX];
static char *project; /* `use project X` */
static char **matches_list;
static size_t matches_n;

static void self_path(void)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        snprintf(self, sizeof self, "nodus");
    else
        self[n] = 0;
}

/* Runs nodus with argv (argv[0] ignored); returns its exit status. With out, its
 * standard output is captured there (standard error goes to /dev/null). */
static int run(char **argv, struct nd_buf *out)
{
    int fds[2] = {-1, -1};
    if (out && pipe(fds) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        if (out) {
            dup2(fds[1], 1);
            close(fds[0]);
            close(fds[1]);
            FILE *null = freopen("/dev/null", "w", stderr);
            (void)null;
        }
        argv[0] = self;
        execv(self, argv);
        fprintf(stderr, "nodus shell: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    if (out) {
        close(fds[1]);
        if (pid > 0)
            nd_buf_read_fd(out, fds[0]);
        close(fds[0]);
    }
    if (pid < 0)
        return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Does the command line name a project itself? */
static bool has_project(char **w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(w[i], "--"))
            return false;
        if (!strcmp(w[i], "-n") || !strcmp(w[i], "--namespace") || !strcmp(w[i], "-A") ||
            !strcmp(w[i], "--all-namespaces") || !strncmp(w[i], "--namespace=", 12) ||
            !strncmp(w[i], "-n=", 3))
            return true;
    }
    return false;
}

/* argv for running words: nodus, the words, and -n PROJECT when `use project` set one
 * and the line names none (inserted before any "--"). NEW array of borrowed strings. */
static char **command_argv(char **w, size_t n)
{
    char **argv = nd_xcalloc(n + 4, sizeof *argv);
    size_t k = 0, i = 0;
    argv[k++] = self;
    bool add = project && !has_project(w, n);
    for (; i < n && strcmp(w[i], "--") != 0; i++)
        argv[k++] = w[i];
    if (add) {
        argv[k++] = "-n";
        argv[k++] = project;
    }
    for (; i < n; i++)
        argv[k++] = w[i];
    return argv;
}

/* ---- completion ---- */

static char *next_match(const char *text, int state)
{
    (void)text;
    static size_t i;
    if (!state)
        i = 0;
    return i < matches_n ? strdup(matches_list[i++]) : NULL;
}

static void clear_matches(void)
{
    for (size_t i = 0; i < matches_n; i++)
        free(matches_list[i]);
    free(matches_list);
    matches_list = NULL;
    matches_n = 0;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1; /* never file names */
    clear_matches();
    char *before = nd_xstrndup(rl_line_buffer, (size_t)start);
    wordexp_t we;
    if (wordexp(before, &we, WRDE_NOCMD) != 0) {
        free(before);
        return NULL;
    }
    free(before);
    char **argv = nd_xcalloc(we.we_wordc + 8, sizeof *argv);
    size_t k = 0;
    argv[k++] = self;
    argv[k++] = "__complete";
    argv[k++] = "--";
    for (size_t i = 0; i < we.we_wordc; i++)
        argv[k++] = we.we_wordv[i];
    if (project && !has_project(we.we_wordv, we.we_wordc) && we.we_wordc > 0) {
        argv[k++] = "-n";
        argv[k++] = project;
    }
    argv[k++] = (char *)text;
    struct nd_buf out = ND_BUF_INIT;
    run(argv, &out);
    free(argv);
    wordfree(&we);
    char *save = NULL;
    for (char *line = strtok_r(out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        matches_list = nd_xrealloc(matches_list, (matches_n + 1) * sizeof *matches_list);
        matches_list[matches_n++] = nd_xstrdup(line);
    }
    nd_buf_release(&out);
    if (!matches_n)
        return NULL;
    return rl_completion_matches(text, next_match);
}

/* ---- the loop ---- */

static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    char *dir = nd_xasprintf("%s/.nodus", home);
    mkdir(dir, 0700);
    free(dir);
    return nd_xasprintf("%s/.nodus/history", home);
}

static void help(void)
{
    printf("Type a nodus command without `nodus`: get jobs, describe job/train-a, logs -f job/x\n"
           "  use project NAME   run the commands that follow in project NAME\n"
           "  help               this text (help VERB: the verb's help)\n"
           "  exit, Ctrl-D       leave\n"
           "Tab completes verbs, kinds, names and flags; history is kept in ~/.nodus/history.\n");
}

/* One line; returns false to leave. */
static bool line_run(const char *line, int *last)
{
    wordexp_t we;
    int e = wordexp(line, &we, WRDE_NOCMD);
    if (e != 0) {
        fprintf(stderr, "error: %s\n",
                e == WRDE_CMDSUB ? "command substitution is not allowed here"
                : e == WRDE_BADCHAR ? "unquoted special character (one of | & ; < > ( ) { })"
                : e == WRDE_SYNTAX ? "unbalanced quotes"
                                   : "cannot read the line");
        *last = 2;
        return true;
    }
    char **w = we.we_wordv;
    size_t n = we.we_wordc;
    bool go_on = true;
    if (n == 0) {
        /* nothing */
    } else if (!strcmp(w[0], "exit") || !strcmp(w[0], "quit")) {
        go_on = false;
    } else if (!strcmp(w[0], "help") && n == 1) {
        help();
        *last = 0;
    } else if (!strcmp(w[0], "use")) {
        if (n == 3 && (!strcmp(w[1], "project") || !strcmp(w[1], "namespace"))) {
            free(project);
            project = nd_xstrdup(w[2]);
            printf("commands now run in project %s\n", project);
            *last = 0;
        } else {
            fprintf(stderr, "error: use project NAME\n");
            *last = 2;
        }
    } else if (!strcmp(w[0], "shell")) {
        fprintf(stderr, "error: already in the nodus shell\n");
        *last = 2;
    } else {
        char **argv = command_argv(w, n);
        *last = run(argv, NULL);
        free(argv);
    }
    wordfree(&we);
    return go_on;
}

int cmd_shell(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_cli_parse(ctx, argc, argv, &o, NULL, 0, &st) < 0) {
        int rc = nd_cli_error(ctx, &st);
        nd_status_release(&st);
        return rc;
    }
    if (o.npos) {
        nd_opts_release(&o);
        return nd_cli_usage(ctx, "nodus shell takes no arguments");
    }
    if (ctx->project_flag)
        project = nd_xstrdup(ctx->project_flag);
    nd_opts_release(&o);
    self_path();
    rl_readline_name = "nodus";
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = " \t\n\"'";
    char *hist = history_path();
    using_history();
    if (hist)
        read_history(hist);
    bool tty = isatty(STDIN_FILENO);
    if (tty)
        printf("nodus shell: type help for help, exit or Ctrl-D to leave\n");
    signal(SIGINT, SIG_IGN); /* Ctrl-C ends the running command, not the shell */
    int last = 0;
    for (;;) {
        char prompt[160];
        snprintf(prompt, sizeof prompt, "nodus%s%s> ", project ? " " : "", project ? project : "");
        char *line = NULL;
        if (tty) {
            line = readline(prompt);
        } else { /* a script on standard input: plain lines, no echo */
            size_t cap = 0;
            if (getline(&line, &cap, stdin) < 0) {
                free(line);
                line = NULL;
            } else {
                line[strcspn(line, "\n")] = 0;
            }
        }
        if (!line)
            break;
        if (*line && tty) {
            add_history(line);
            if (hist && append_history(1, hist) != 0)
                write_history(hist);
        }
        bool go_on = line_run(line, &last);
        free(line);
        fflush(stdout);
        if (!go_on)
            break;
    }
    if (tty)
        printf("\n");
    if (hist)
        history_truncate_file(hist, HISTORY_LINES);
    free(hist);
    clear_matches();
    free(project);
    project = NULL;
    signal(SIGINT, SIG_DFL);
    return last;
}
