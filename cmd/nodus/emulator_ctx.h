/* emulator_ctx.h: which emulator a context reaches (nodus emulator, and the fixes of
 * errors against a context whose emulator is stopped).
 *
 * `nodus emulator start` runs nodus-emulator on a state directory DIR and finds it
 * again through DIR/emulator.pid and DIR/emulator.port. It records DIR with the cluster
 * of the context it writes (nd_config_cluster_emulator), so the other subcommands, in
 * any shell, act on the emulator the current context (or --context) points at. The
 * context of the default directory (~/.nodus/emulator) is "emulator"; that of another
 * directory is "emulator-" and the directory's name ("emulator-nodus-workflow"), with
 * -2, -3 ... added when that name reaches another emulator that runs: start never
 * points a context that reaches a running emulator at another one.
 */
#ifndef ND_EMULATOR_CTX_H
#define ND_EMULATOR_CTX_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "config/config.h"

struct nd_emu {
    char *dir; /* the state directory, absolute */
    char *url; /* http://127.0.0.1:PORT, once found running */
    pid_t pid; /* once found running */
};

void nd_emu_release(struct nd_emu *e);
/* Fills e->pid and e->url when an emulator started by `nodus emulator start` runs on
 * e->dir. */
bool nd_emu_running(struct nd_emu *e);

/* The number a file (DIR/emulator.pid, DIR/emulator.port) starts with, or -1. */
long nd_emu_read_number(const char *path);

/* NEW absolute form of dir (against the working directory). */
char *nd_emu_absolute(const char *dir);
/* The same directory (the same file, when both exist). */
bool nd_emu_same_dir(const char *a, const char *b);
/* $NODUS_EMULATOR_STATE, else the default ~/.nodus/emulator. NEW, absolute. */
char *nd_emu_env_dir(void);
/* The command that starts the emulator of dir in this shell: `nodus emulator start`,
 * with --state DIR unless dir is $NODUS_EMULATOR_STATE's, or the default directory
 * when the current context records no other (what start picks without a flag: see
 * nodus emulator's find_emulator). NEW. */
char *nd_emu_start_command(const struct nd_config *cfg, const char *dir);

/* The name of the context start writes for dir: the context that records dir already
 * (the current one first), else "emulator" (the default directory) or "emulator-NAME"
 * (another directory), with -2, -3 ... when that name reaches an emulator that runs on
 * another directory, or is a context nodus did not write. NEW; NULL when no name is
 * free (st says so). */
char *nd_emu_context_for(const struct nd_config *cfg, const char *dir, struct nd_status *st);
/* The first context (the current one first, then in file order) other than `except`
 * that records an emulator which runs, with its directory in *dir (BORROWED). BORROWED
 * name, or NULL. */
const char *nd_emu_live_context(const struct nd_config *cfg, const char *except, const char **dir);

/* For an error of a connection refused by the server of the context (not one named by
 * --server or NODUS_SERVER): when the context records an emulator that is not running,
 * the fix line saying so, with the context whose emulator runs, if one does, and how to
 * start this one again; when it records none but another context reaches a running
 * emulator, a fix naming that context. Into b; false when neither holds. */
bool nd_emu_refused_fix(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b);

#endif
