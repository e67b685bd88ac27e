/* emulator_ctx.c: which emulator a context reaches (see emulator_ctx.h). */
#include "emulator_ctx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/quote.h"
#include "util/xmalloc.h"

void nd_emu_release(struct nd_emu *e)
{
    free(e->dir);
    free(e->url);
    e->dir = e->url = NULL;
}

long nd_emu_read_number(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long n = -1;
    if (fscanf(f, "%ld", &n) != 1)
        n = -1;
    fclose(f);
    return n;
}

bool nd_emu_running(struct nd_emu *e)
{
    char *pidf = nd_xasprintf("%s/emulator.pid", e->dir);
    char *portf = nd_xasprintf("%s/emulator.port", e->dir);
    long pid = nd_emu_read_number(pidf), port = nd_emu_read_number(portf);
    free(pidf);
    free(portf);
    if (pid <= 0 || port <= 0 || port > 65535 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
        return false;
    e->pid = (pid_t)pid;
    free(e->url);
    e->url = nd_xasprintf("http://127.0.0.1:%ld", port);
    return true;
}

static bool dir_running(const char *dir)
{
    struct nd_emu e = {.dir = nd_xstrdup(dir)};
    bool up = nd_emu_running(&e);
    nd_emu_release(&e);
    return up;
}

char *nd_emu_absolute(const char *dir)
{
    if (dir[0] == '/')
        return nd_xstrdup(dir);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return nd_xstrdup(dir);
    if (!strcmp(dir, "."))
        return nd_xstrdup(cwd);
    return nd_xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "",
                        dir[0] == '.' && dir[1] == '/' ? dir + 2 : dir);
}

bool nd_emu_same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !strcmp(a, b);
}

static char *default_dir(void)
{
    const char *home = getenv("HOME");
    return nd_xasprintf("%s/.nodus/emulator", home && *home ? home : ".");
}

char *nd_emu_env_dir(void)
{
    const char *s = getenv("NODUS_EMULATOR_STATE");
    char *d = s && *s ? nd_xstrdup(s) : default_dir();
    char *abs = nd_emu_absolute(d);
    free(d);
    return abs;
}

/* Characters a shell takes as they are. */
static bool shell_plain(const char *s)
{
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@=%", *s))
            return false;
    return true;
}

char *nd_emu_start_command(const struct nd_config *cfg, const char *dir)
{
    /* plain when start picks dir without a flag and would still pick it in another
     * context: dir is $NODUS_EMULATOR_STATE's, or the default one that the current
     * context records (or no directory at all) */
    char *plain = nd_emu_env_dir();
    const char *env = getenv("NODUS_EMULATOR_STATE");
    const char *rec = cfg ? nd_config_context_emulator(cfg, nd_config_current_context(cfg)) : NULL;
    bool same =
        nd_emu_same_dir(plain, dir) && (env && *env ? true : !rec || nd_emu_same_dir(rec, dir));
    free(plain);
    if (same)
        return nd_xstrdup("nodus emulator start");
    if (shell_plain(dir))
        return nd_xasprintf("nodus emulator start --state %s", dir);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "nodus emulator start --state ");
    nd_quote_shell(&b, dir);
    return nd_buf_detach(&b);
}

/* "emulator" for the default directory, else "emulator-" and the directory's name with
 * what is not a letter, digit, '.', '_' or '-' as '-'. NEW. */
static char *base_name(const char *dir)
{
    char *def = default_dir();
    bool is_default = nd_emu_same_dir(def, dir);
    free(def);
    if (is_default)
        return nd_xstrdup("emulator");
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "emulator-");
    for (size_t i = start; i < n; i++)
        nd_buf_addch(&b, strchr("._-", dir[i]) || (dir[i] >= '0' && dir[i] <= '9') ||
                                 (dir[i] >= 'a' && dir[i] <= 'z') ||
                                 (dir[i] >= 'A' && dir[i] <= 'Z')
                             ? dir[i]
                             : '-');
    if (start == n || !strcmp(b.data, "emulator-.") || !strcmp(b.data, "emulator-.."))
        nd_buf_truncate(&b, strlen("emulator-")), nd_buf_adds(&b, "root");
    return nd_buf_detach(&b);
}

/* Something listens on the loopback port of an http:// server URL. */
static bool loopback_listening(const char *server)
{
    int port = 0;
    char host[16] = "";
    if (sscanf(server, "http://%15[^:/]:%d", host, &port) != 2 || port <= 0 || port > 65535 ||
        (strcmp(host, "127.0.0.1") && strcmp(host, "localhost")))
        return false;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool up = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return up;
}

/* The cluster cannot be pointed at the emulator of dir: it reaches a running emulator
 * of another directory, or it is not one nodus wrote (no record, and a server that is
 * not a stopped loopback emulator). */
static bool cluster_taken(const struct nd_config *cfg, const char *cluster, const char *dir)
{
    const json_t *body = cluster ? nd_config_get(cfg, "clusters", cluster) : NULL;
    if (!body)
        return false;
    const char *rec = nd_config_cluster_emulator(cfg, cluster);
    if (rec)
        return !nd_emu_same_dir(rec, dir) && dir_running(rec);
    const char *server = json_string_value(json_object_get(body, "server"));
    if (!server || !*server)
        return false;
    if (strncmp(server, "http://127.0.0.1:", 17) && strncmp(server, "http://localhost:", 17))
        return true;
    return loopback_listening(server);
}

static bool name_free(const struct nd_config *cfg, const char *name, const char *dir)
{
    const json_t *c = nd_config_get(cfg, "contexts", name);
    const char *cl = c ? json_string_value(json_object_get(c, "cluster")) : NULL;
    return !cluster_taken(cfg, cl, dir) && !cluster_taken(cfg, name, dir);
}

static bool records(const struct nd_config *cfg, const char *context, const char *dir)
{
    const char *rec = nd_config_context_emulator(cfg, context);
    return rec && nd_emu_same_dir(rec, dir);
}

char *nd_emu_context_for(const struct nd_config *cfg, const char *dir, struct nd_status *st)
{
    const char *cur = nd_config_current_context(cfg);
    if (cur && records(cfg, cur, dir))
        return nd_xstrdup(cur);
    char *base = base_name(dir);
    if (records(cfg, base, dir))
        return base;
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(cfg->doc, "contexts"), i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && records(cfg, n, dir)) {
            free(base);
            return nd_xstrdup(n);
        }
    }
    for (int k = 1; k < 100; k++) {
        char *name = k == 1 ? nd_xstrdup(base) : nd_xasprintf("%s-%d", base, k);
        if (name_free(cfg, name, dir)) {
            free(base);
            return name;
        }
        free(name);
    }
    char *fix = nd_xasprintf("free one: nodus config delete-context %s", base);
    nd_status_set(st, "Usage", fix,
                  "no context name is free for this emulator: %s to %s-99 all reach other "
                  "servers",
                  base, base);
    free(fix);
    free(base);
    return NULL;
}

const char *nd_emu_live_context(const struct nd_config *cfg, const char *except, const char **dir)
{
    const char *cur = nd_config_current_context(cfg);
    const char *rec = cur ? nd_config_context_emulator(cfg, cur) : NULL;
    if (rec && (!except || strcmp(cur, except)) && dir_running(rec)) {
        *dir = rec;
        return cur;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(cfg->doc, "contexts"), i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        rec = n ? nd_config_context_emulator(cfg, n) : NULL;
        if (rec && (!except || strcmp(n, except)) && dir_running(rec)) {
            *dir = rec;
            return n;
        }
    }
    return NULL;
}

bool nd_emu_refused_fix(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b)
{
    const struct nd_target *t = ctx ? ctx->target : NULL;
    const char *env = getenv("NODUS_SERVER");
    if (!t || !t->context || !ctx->config || (ctx->server && *ctx->server) || (env && *env) ||
        !nd_status_is(st, ND_REASON_UNREACHABLE) || !st->message ||
        !strstr(st->message, " was refused"))
        return false;
    const char *dir = nd_config_context_emulator(ctx->config, t->context);
    const char *other_dir = NULL;
    const char *other = nd_emu_live_context(ctx->config, t->context, &other_dir);
    if (!dir) {
        /* a context of another server: its fix, unless an emulator runs under another
         * context (then "nodus emulator start" would not be the way to one) */
        if (!other)
            return false;
        nd_buf_addf(b,
                    "fix: Check the server address (the cluster in nodus config view); the "
                    "context \"%s\" reaches a running emulator (state %s): nodus config "
                    "use-context %s\n",
                    other, other_dir, other);
        return true;
    }
    if (dir_running(dir))
        return false;
    char *start = nd_emu_start_command(ctx->config, dir);
    nd_buf_addf(b, "fix: the emulator of the context \"%s\" is not running (state %s)", t->context,
                dir);
    if (other)
        nd_buf_addf(b,
                    "; the context \"%s\" reaches a running emulator (state %s): nodus "
                    "config use-context %s; to start this one again: %s",
                    other, other_dir, other, start);
    else
        nd_buf_addf(b, "; start it again: %s", start);
    free(start);
    nd_buf_adds(b, "\n");
    return true;
}
