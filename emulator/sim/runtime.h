/* runtime.h: how a Job's command runs: simulated (--runtime simulate, the default), or
 * for real as a local process (--runtime local).
 *
 * The Job controller tells this module when a run starts and ends. Each run is recorded
 * in status.simulation (emulated ms): runStart (when it entered Running), runFrom (the
 * time it had run before, kept across a suspend), runEnd (when it stopped), so the
 * simulated log (logsim.c) can be told from the status alone.
 *
 * Under --runtime local, a run is spec.command + spec.args executed with fork/exec (no
 * shell unless the command is one), in the Job's file tree DIR/files/<project>/jobs/
 * <name>/ (created; spec.workingDir is taken inside it), with an environment of PATH,
 * HOME (the tree), HOSTNAME, NODUS_PROJECT, NODUS_JOB and spec.env. stdin is
 * /dev/null; stdout and stderr go, line by line with the emulated time, to
 * DIR/logs/<project>/jobs/<name>.log (emptied when a run starts; at most 8 MiB, then
 * output is dropped). Its exit code decides the phase; a process killed by signal N
 * exits 128+N. A stop (suspend, cancel, a limit, delete) sends SIGTERM to the process
 * group, then SIGKILL 2 s later; emulator shutdown kills every process group. One
 * thread per process reads its output and reaps it.
 *
 * All functions but em_runtime_shutdown are called with the server lock held.
 */
#ifndef EM_RUNTIME_H
#define EM_RUNTIME_H

#include <stdbool.h>

#include "controllers/common.h"
#include "server.h"

#define EM_RUNTIME_LOG_MAX (8u * 1024u * 1024u)

/* True under --runtime local. */
bool em_runtime_local(const struct em_server *srv);

/* The Job entered Running at c->now: records the run and, under --runtime local,
 * starts its command (status.simulation.local is then 1). */
void em_runtime_run_start(struct em_ctl *c);
/* The Job's run ended at c->now, or is being stopped (why: "the Job was suspended"...):
 * records runEnd once; a local process still running is stopped, its log saying why. */
void em_runtime_run_stop(struct em_ctl *c, const char *why);
/* Under --runtime local, for a Running Job: 1 when its run's process has exited
 * (*exit_code set; the process is forgotten), 0 while it runs, -1 when it has none
 * (the emulator restarted while it ran). */
int em_runtime_run_poll(struct em_ctl *c, int *exit_code);

/* True while a process of the Job ns/name runs or its output is still being written. */
bool em_runtime_busy(struct em_server *srv, const char *ns, const char *name);

/* DIR/logs/<ns>/<plural of k>/<name>.log. NEW string. */
char *em_runtime_log_path(const struct em_server *srv, const struct nd_kind *k, const char *ns,
                          const char *name);

/* Kills every process (SIGTERM, SIGKILL after 0.5 s) and waits for their threads.
 * Called without the lock, after the simulation stopped. */
void em_runtime_shutdown(struct em_server *srv);

#endif
