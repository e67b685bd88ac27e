/* commands.h: the entry point and flag table of every verb (one file each, in verbs/,
 * named for the verb). */
#ifndef ND_COMMANDS_H
#define ND_COMMANDS_H

#include "cli.h"

#define ND_VERB(v)                                                                                 \
    int cmd_##v(int argc, char **argv, struct nd_ctx *ctx);                                        \
    extern const struct nd_flag cmd_##v##_flags[]

ND_VERB(annotate);
ND_VERB(api_resources);
ND_VERB(api_versions);
ND_VERB(apply);
ND_VERB(auth);
ND_VERB(complete); /* __complete (hidden), in verbs/__complete.c */
ND_VERB(completion);
ND_VERB(config);
ND_VERB(cp);
ND_VERB(create);
ND_VERB(crds);
ND_VERB(delete);
ND_VERB(describe);
ND_VERB(diff);
ND_VERB(edit);
ND_VERB(exec);
ND_VERB(explain);
ND_VERB(get);
ND_VERB(invoke);
ND_VERB(label);
ND_VERB(logs);
ND_VERB(mcp);
ND_VERB(patch);
ND_VERB(replace);
ND_VERB(run);
ND_VERB(version);
ND_VERB(wait);

/* Verbs that share one flag table: suspend, resume, cancel, stop, start (state_verbs.h:
 * nd_state_flags) and approve, reject (decision.h: nd_decide_flags). */
int cmd_suspend(int argc, char **argv, struct nd_ctx *ctx);
int cmd_request(int argc, char **argv, struct nd_ctx *ctx);
int cmd_emulator(int argc, char **argv, struct nd_ctx *ctx);
int cmd_shell(int argc, char **argv, struct nd_ctx *ctx);
int cmd_top(int argc, char **argv, struct nd_ctx *ctx);
int cmd_approve(int argc, char **argv, struct nd_ctx *ctx);
int cmd_reject(int argc, char **argv, struct nd_ctx *ctx);
int cmd_resume(int argc, char **argv, struct nd_ctx *ctx);
int cmd_cancel(int argc, char **argv, struct nd_ctx *ctx);
int cmd_stop(int argc, char **argv, struct nd_ctx *ctx);
int cmd_start(int argc, char **argv, struct nd_ctx *ctx);
extern const struct nd_flag cmd_request_flags[];
extern const struct nd_flag cmd_emulator_flags[];
extern const struct nd_flag cmd_shell_flags[];
extern const struct nd_flag cmd_top_flags[];

#endif
