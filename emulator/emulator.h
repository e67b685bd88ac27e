/* emulator.h: the top of the emulator (main.c, options.c, server.c): the command line
 * and one server's life. It wires the layers together; no layer includes it. */
#ifndef EM_EMULATOR_H
#define EM_EMULATOR_H

#include "server.h"

/* Parses argv into opt; prints usage/version and returns 1 when the program should exit
 * 0, -1 (after a message on stderr) for a usage error, 0 to run. */
int em_options_parse(struct em_options *opt, int argc, char **argv);
void em_options_release(struct em_options *opt);
/* Runs until SIGTERM/SIGINT; returns the exit status. */
int em_server_run(struct em_server *srv);

#endif
