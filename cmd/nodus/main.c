/* nodus: the command table and dispatch. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "decision.h"
#include "state_verbs.h"
#include "util/log.h"
#include "util/suggest.h"
#include "util/xmalloc.h"

/* Sorted by name; `nodus --help` groups them. */
const struct nd_command nd_commands[] = {
    {"__complete", cmd_complete, cmd_complete_flags, NULL,
     "Print the completions of a command line (for the completion scripts)",
     "__complete [--] WORD... CURRENT", NULL, NULL},
    {"annotate", cmd_annotate, cmd_annotate_flags, "Deploy and change",
     "Set or remove annotations of objects",
     "annotate KIND NAME KEY=VALUE... KEY-... [--overwrite]", "kinds names", NULL},
    {"api-resources", cmd_api_resources, cmd_api_resources_flags, "Inspect the API",
     "Print the kinds the server serves",
     "api-resources [-o wide|name] [--namespaced=true|false] [--api-group=GROUP] "
     "[--verbs=V,...] [--categories=C,...] [--sort-by=name|kind]",
     NULL, "  nodus api-resources\n  nodus api-resources -o wide --api-group=nodus.dev"},
    {"api-versions", cmd_api_versions, cmd_api_versions_flags, "Inspect the API",
     "Print the API versions the server serves, as group/version", "api-versions", NULL, NULL},
    {"apply", cmd_apply, cmd_apply_flags, "Deploy and change",
     "Make objects look like their manifests (server-side apply)",
     "apply -f FILE|DIR|- [-R] [--server-side=false] [--force-conflicts] [--prune -l SEL]", NULL,
     "  nodus apply -f examples/\n  nodus apply -f job.yaml --dry-run=server"},
    {"approve", cmd_approve, nd_decide_flags, "Nodus commands",
     "Approve PoolActions that wait for a decision (spec.decision: Approved)",
     "approve [poolaction/]NAME...", "names",
     "  nodus get poolactions\n  nodus approve burst-train-a"},
    {"auth", cmd_auth, cmd_auth_flags, "Settings",
     "Who the server takes you for (whoami), and whether you may do something (can-i)",
     "auth whoami [-o json|yaml] | auth can-i VERB KIND[/NAME] [--subresource S] [-q]",
     "=whoami can-i",
     "can-i prints yes or no (no - why) and exits 0 for yes, 1 for no, as kubectl.\n\n"
     "Examples:\n  nodus auth whoami\n  nodus auth can-i create jobs\n"
     "  nodus auth can-i delete job/train-a -n team\n  nodus auth can-i list jobs -A\n"
     "  nodus auth can-i get jobs --subresource log"},
    {"cancel", cmd_cancel, nd_state_flags, "Nodus commands",
     "Cancel Jobs and Pipelines (spec.state: Cancelled)", "cancel KIND/NAME...", "kinds names",
     NULL},
    {"completion", cmd_completion, cmd_completion_flags, "Settings",
     "Print a shell completion script (bash, zsh or fish)", "completion bash|zsh|fish",
     "=bash zsh fish",
     "  source <(nodus completion bash)\n  nodus completion zsh > \"${fpath[1]}/_nodus\"\n"
     "  nodus completion fish > ~/.config/fish/completions/nodus.fish"},
    {"config", cmd_config, cmd_config_flags, "Settings",
     "Show or change the configuration file (kubeconfig format)",
     "config SUBCOMMAND [NAME] [flags]",
     "=view get-contexts current-context use-context set-context set-cluster set-credentials "
     "delete-context",
     "Subcommands (as kubectl config):\n"
     "  view [--raw] [--minify] [-o yaml|json|jsonpath=T]   the file, secrets hidden unless --raw\n"
     "  get-contexts [NAME...] [-o name] [--no-headers]     the contexts, * on the current one\n"
     "  current-context                                     the current context's name\n"
     "  use-context NAME                                    make NAME the current context\n"
     "  set-context NAME|--current [--cluster C] [--user U] [--namespace N]\n"
     "  set-cluster NAME [--server URL] [--certificate-authority FILE] "
     "[--insecure-skip-tls-verify]\n"
     "  set-credentials NAME [--token T] [--token-file FILE] [--client-certificate FILE]\n"
     "                  [--client-key FILE]\n"
     "  delete-context NAME\n\n"
     "Examples:\n"
     "  nodus config set-cluster local --server http://127.0.0.1:8443\n"
     "  nodus config set-credentials me --token-file ~/.nodus/token\n"
     "  nodus config set-context local --cluster local --user me --namespace default\n"
     "  nodus config use-context local\n  nodus config view --minify"},
    {"cp", cmd_cp, cmd_cp_flags, "Nodus commands",
     "Copy files and directories to and from Sandboxes and Volumes",
     "cp SRC DEST (one of them [KIND/]NAME:PATH)", "files",
     "  nodus cp ./data sandbox/dev:/work\n  nodus cp dev:/work/out ./out\n"
     "  nodus cp volume/datasets:/train ./train"},
    {"create", cmd_create, cmd_create_flags, "Deploy and change", "Create objects from manifests",
     "create -f FILE|DIR|- [-R]\n  nodus create namespace|project NAME", "=namespace project",
     "  nodus create -f job.yaml\n  nodus create project research"},
    {"crds", cmd_crds, cmd_crds_flags, "Inspect the API",
     "Print CustomResourceDefinitions of the nodus.dev kinds, to install them on a cluster",
     "crds [-o yaml|json] [--kind KIND]...", NULL,
     "Built from the kind registry of this nodus; no server is asked. See docs/kubernetes.md.\n\n"
     "Examples:\n  nodus crds | kubectl apply -f -\n  nodus crds --kind Job -o json\n"
     "  nodus crds --kind jobs,sandboxes > crds.yaml"},
    {"delete", cmd_delete, cmd_delete_flags, "Basic commands",
     "Delete objects by name, manifest, selector or --all",
     "delete KIND NAME... | KIND/NAME... | -f FILE | KIND -l SEL | KIND --all [flags]",
     "kinds names",
     "  nodus delete job train-a\n  nodus delete -f job.yaml\n"
     "  nodus delete pipeline nightly --cascade=orphan"},
    {"describe", cmd_describe, cmd_describe_flags, "Basic commands",
     "Show a readable summary of objects, with their Events",
     "describe KIND [NAME...] | KIND/NAME... [-l SELECTOR]", "kinds names", NULL},
    {"diff", cmd_diff, cmd_diff_flags, "Deploy and change",
     "Show what apply would change (exit 0 none, 1 some, 2 an error)", "diff -f FILE|DIR|- [-R]",
     NULL, NULL},
    {"edit", cmd_edit, cmd_edit_flags, "Deploy and change",
     "Edit objects as YAML in $NODUS_EDITOR, $KUBE_EDITOR or $EDITOR", "edit KIND NAME | KIND/NAME",
     "kinds names", NULL},
    {"emulator", cmd_emulator, cmd_emulator_flags, "Settings",
     "Run and drive a local nodus-emulator (start, stop, status, reset, logs, env, clock)",
     "emulator start [--state DIR] [flags] [-- EMULATOR-FLAG...] | "
     "stop|status|reset|logs|env|clock [advance DURATION|speed X] [--context NAME | --state DIR]",
     "=start stop status reset logs env clock",
     "  nodus emulator start\n  nodus emulator clock advance 1h\n"
     "  eval \"$(nodus emulator env)\"\n  nodus emulator stop\n"
     "  nodus emulator start --state /tmp/lab -- --no-simulation --fsync never\n"
     "  nodus emulator clock advance 1h --context emulator-lab\n\n"
     "start writes a context for the emulator and makes it current: \"emulator\" for the\n"
     "default state directory (~/.nodus/emulator), \"emulator-NAME\" for another one named\n"
     "NAME. The other subcommands act on the emulator of the current context (or\n"
     "--context NAME), from any shell; --state DIR names a state directory instead.\n"
     "start without --state runs the emulator of --context NAME, else of\n"
     "$NODUS_EMULATOR_STATE, else of the current context, else ~/.nodus/emulator.\n"
     "Flags after -- go to nodus-emulator as they are (nodus-emulator --help lists them),\n"
     "except those start sets itself: --state, --listen, --port-file, --tls-cert, --tls-key."},
    {"exec", cmd_exec, cmd_exec_flags, "Nodus commands",
     "Run a command in a Running Sandbox (or Job)",
     "exec [-i] [-t] SANDBOX|KIND/NAME -- COMMAND [ARGS...]", "kinds names",
     "  nodus exec dev -- ls -la\n  nodus exec -it sandbox/dev -- bash\n"
     "  echo hello | nodus exec -i dev -- cat"},
    {"explain", cmd_explain, cmd_explain_flags, "Inspect the API",
     "Describe the fields of a kind, from the server's OpenAPI schema",
     "explain KIND[.FIELD...] [--recursive] [--api-version GROUP/VERSION]", "kinds",
     "  nodus explain jobs\n  nodus explain jobs.spec.resources\n"
     "  nodus explain pools.spec --recursive"},
    {"get", cmd_get, cmd_get_flags, "Basic commands", "Display one or many objects",
     "get KIND[,KIND...] [NAME...] | KIND/NAME... [flags]", "kinds names",
     "  nodus get jobs\n  nodus get jobs -o wide -l app=trainer\n  nodus get job/train-a -o yaml\n"
     "  nodus get all -A\n  nodus get jobs -w"},
    {"invoke", cmd_invoke, cmd_invoke_flags, "Nodus commands",
     "Call a Function with a request body and print its answer",
     "invoke function/NAME [-d DATA|@FILE|@-] [-f FILE|-] [--content-type TYPE]", "kinds names",
     "  nodus invoke function/embed -d '{\"text\": \"hello\"}'\n"
     "  nodus invoke function/embed -d @request.json\n"
     "  echo hello | nodus invoke fn/embed -f -"},
    {"label", cmd_label, cmd_label_flags, "Deploy and change", "Set or remove labels of objects",
     "label KIND NAME KEY=VALUE... KEY-... [--overwrite]", "kinds names",
     "  nodus label job train-a team=vision\n  nodus label job train-a team-"},
    {"logs", cmd_logs, cmd_logs_flags, "Nodus commands",
     "Print the log of a Job, Sandbox, Function or PoolAction",
     "logs KIND/NAME | NAME [-f] [--tail=N] [--since=DURATION|--since-time=TIME] [--timestamps] "
     "[--limit-bytes=N]",
     "kinds names",
     "  nodus logs train-a\n  nodus logs -f job/train-a\n  nodus logs sandbox/dev --tail=20 "
     "--timestamps\n  nodus logs job/train-a --since=10m"},
    {"mcp", cmd_mcp, cmd_mcp_flags, "Nodus commands",
     "Serve the API as tools for coding agents (Model Context Protocol, on stdio or HTTP)",
     "mcp [--read-only] [--disable-destructive] [--allow-exec] [--projects P,...] "
     "[--max-cost USD] [--audit-file FILE] [--listen HOST:PORT [--listen-token TOKEN]]",
     NULL,
     "Register it with an MCP host as a stdio server whose command is `nodus mcp` (see\n"
     "docs/mcp.md). It uses the current context, or --context, -n, NODUS_SERVER and\n"
     "NODUS_TOKEN, as every verb does. With --listen it serves Streamable HTTP at\n"
     "http://HOST:PORT/mcp instead; off loopback it needs a token (NODUS_MCP_TOKEN).\n\n"
     "Examples:\n  nodus mcp\n  nodus mcp --read-only --projects team-a\n"
     "  nodus mcp --max-cost 50 --audit-file ~/.nodus/mcp-audit.log\n"
     "  nodus mcp --listen 127.0.0.1:8808"},
    {"patch", cmd_patch, cmd_patch_flags, "Deploy and change",
     "Change an object with a merge patch or a JSON patch",
     "patch KIND NAME -p PATCH [--type merge|json|strategic]", "kinds names",
     "  nodus patch job train-a -p '{\"spec\":{\"state\":\"Suspended\"}}'"},
    {"reject", cmd_reject, nd_decide_flags, "Nodus commands",
     "Reject PoolActions that wait for a decision (spec.decision: Rejected)",
     "reject [poolaction/]NAME...", "names", NULL},
    {"replace", cmd_replace, cmd_replace_flags, "Deploy and change",
     "Replace objects with their manifests", "replace -f FILE|DIR|- [-R]", NULL, NULL},
    {"request", cmd_request, cmd_request_flags, "Nodus commands",
     "Ask for a one-off action: set nodus.dev/ACTION-requested-at to now",
     "request ACTION KIND/NAME...", NULL,
     "  nodus request restart sandbox/dev\n  nodus request restart function/embed"},
    {"resume", cmd_resume, nd_state_flags, "Nodus commands",
     "Resume suspended Jobs and Pipelines (spec.state: Running)", "resume KIND/NAME...",
     "kinds names", NULL},
    {"run", cmd_run, cmd_run_flags, "Basic commands",
     "Run a command in a new Job: show its estimate, stream its log, exit with its exit code",
     "run NAME --image IMAGE [--gpu MODEL[:COUNT]] [--max-cost USD] [--env K=V]... "
     "[--volume VOL:/PATH]... [-l K=V]... [--dry-run=server|client] [--detach] [-- COMMAND...]",
     NULL,
     "Attached, stdout is the Job's log; the rest goes to stderr. Exit status: the Job's exit\n"
     "code; 125 when it ended without one (cancelled, deleted, maxCostUSD, maxDuration);\n"
     "130 after Ctrl-C, which detaches and leaves the Job running; before the Job runs,\n"
     "nodus's own codes (2 a bad flag, 4 it exists, 5 forbidden, 7 unreachable, 8 a budget).\n\n"
     "Examples:\n"
     "  nodus run hello --image nodus/python:3.12 -- python -c 'print(1)'\n"
     "  nodus run train --image nodus/pytorch:2.8-cuda12.8 --gpu H100:2 --max-cost 40 \\\n"
     "      --env WANDB_MODE=offline --volume datasets:/data:ro -- python train.py\n"
     "  nodus run train --image nodus/pytorch:2.8-cuda12.8 --gpu H100 --dry-run=server\n"
     "  nodus run train --image nodus/pytorch:2.8-cuda12.8 --gpu H100 --detach -- python t.py"},
    {"shell", cmd_shell, cmd_shell_flags, "Settings",
     "An interactive prompt: nodus commands with history, Tab completion and `use project`",
     "shell", NULL, "  nodus shell\n  nodus -n team shell"},
    {"start", cmd_start, nd_state_flags, "Nodus commands",
     "Start stopped Sandboxes, Functions and Budgets (spec.state: Running)", "start KIND/NAME...",
     "kinds names", NULL},
    {"stop", cmd_stop, nd_state_flags, "Nodus commands",
     "Stop Sandboxes, Functions and Budgets (spec.state: Stopped)", "stop KIND/NAME...",
     "kinds names", NULL},
    {"suspend", cmd_suspend, nd_state_flags, "Nodus commands",
     "Suspend Jobs and Pipelines (spec.state: Suspended)", "suspend KIND/NAME...", "kinds names",
     NULL},
    {"top", cmd_top, cmd_top_flags, "Nodus commands",
     "Utilization and cost at a glance: top pools, top jobs", "top pools|jobs [--no-headers]",
     "=pools jobs", "  nodus top pools\n  nodus top jobs -A"},
    {"version", cmd_version, cmd_version_flags, "Inspect the API",
     "Print the client and server versions", "version [--client] [-o json|yaml]", NULL, NULL},
    {"wait", cmd_wait, cmd_wait_flags, "Deploy and change",
     "Wait until objects meet a condition, a value, are created or deleted",
     "wait KIND/NAME... --for=condition=NAME|jsonpath={.path}=VALUE|create|delete "
     "[--timeout=30s]",
     "kinds names",
     "  nodus wait job/train-a --for=jsonpath='{.status.phase}'=Succeeded --timeout=1h\n"
     "  nodus wait sandbox/dev --for=condition=Ready\n  nodus wait job/old --for=delete"},

};
const size_t nd_command_count = sizeof nd_commands / sizeof nd_commands[0];

const struct nd_command *nd_command_find(const char *name)
{
    for (size_t i = 0; i < nd_command_count; i++)
        if (strcmp(nd_commands[i].name, name) == 0)
            return &nd_commands[i];
    return NULL;
}

/* Unknown verbs run nodus-<verb> from PATH (as git and kubectl plugins). */
static int run_plugin(char **argv)
{
    char *prog = nd_xasprintf("nodus-%s", argv[1]);
    execvp(prog, argv + 1);
    int err = errno;
    free(prog);
    if (err == ENOENT) {
        /* as cobra: the verbs within two edits of it, or that it begins */
        struct nd_suggest sg;
        nd_suggest_init(&sg, argv[1]);
        for (size_t i = 0; i < nd_command_count; i++)
            if (nd_commands[i].name[0] != '_')
                nd_suggest_add(&sg, nd_commands[i].name, NULL);
        nd_suggest_add(&sg, "help", NULL);
        fprintf(stderr, "error: unknown command \"%s\" for \"nodus\"\n", argv[1]);
        if (nd_suggest_count(&sg)) {
            fputs("\nDid you mean this?\n", stderr);
            for (size_t i = 0; i < nd_suggest_count(&sg); i++)
                fprintf(stderr, "\t%s\n", nd_suggest_at(&sg, i));
            fputs("\n", stderr);
        }
        fputs("Run 'nodus --help' for usage.\n", stderr);
        nd_suggest_release(&sg);
        return 2;
    }
    fprintf(stderr, "error: cannot run nodus-%s: %s\n", argv[1], strerror(err));
    return 1;
}

/* A write error on stdout (a full disk, a closed pipe) is an error, as in git. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno != EPIPE)
            fprintf(stderr, "error: cannot write the output: %s\n", strerror(errno));
        return rc ? rc : 1;
    }
    if (fclose(stdout) != 0 && errno != EBADF) {
        fprintf(stderr, "error: cannot write the output: %s\n", strerror(errno));
        return rc ? rc : 1;
    }
    return rc;
}

/* Global flags may come before the verb (`nodus -n team get jobs`, as kubectl): moves the
 * verb to argv[1], keeping every other argument in order after it. */
static void verb_first(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "-") != 0 &&
           strcmp(argv[i], "--") != 0 && strcmp(argv[i], "--help") != 0 &&
           strcmp(argv[i], "-h") != 0 && strcmp(argv[i], "--version") != 0) {
        const char *a = argv[i];
        const struct nd_flag *f = NULL;
        if (a[1] == '-') {
            size_t n = strcspn(a + 2, "=");
            for (const struct nd_flag *g = nd_global_flags; g->name && !f; g++)
                if (strlen(g->name) == n && strncmp(g->name, a + 2, n) == 0)
                    f = g;
            if (!f)
                return; /* not a global flag: let the usual error name it */
            i += f->type != ND_BOOL && !strchr(a, '=') ? 2 : 1;
        } else {
            for (const struct nd_flag *g = nd_global_flags; g->name && !f; g++)
                if (g->shorthand == a[1])
                    f = g;
            if (!f)
                return;
            i += f->type != ND_BOOL && a[2] == '\0' ? 2 : 1;
        }
    }
    if (i <= 1 || i >= argc)
        return;
    char *verb = argv[i];
    memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof *argv);
    argv[1] = verb;
}

int main(int argc, char **argv)
{
    setlocale(LC_CTYPE, "");
    nd_xmalloc_install();
    verb_first(argc, argv);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc >= 3 && strcmp(argv[1], "help") == 0 && nd_command_find(argv[2])) {
            nd_help_command(stdout, nd_command_find(argv[2]));
            return finish_stdout(0);
        }
        nd_help_main(argc < 2 ? stderr : stdout);
        return finish_stdout(argc < 2 ? 2 : 0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("nodus %s\n", ND_VERSION);
        return finish_stdout(0);
    }
    const struct nd_command *cmd = nd_command_find(argv[1]);
    if (!cmd)
        return run_plugin(argv);
    struct nd_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.cmd = cmd;
    ctx.prog = "nodus";
    ctx.color = -1;
    /* --help and -v are honoured before the verb parses the rest */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            nd_help_command(stdout, cmd);
            return finish_stdout(0);
        }
        if (strncmp(argv[i], "--v=", 4) == 0 || strncmp(argv[i], "-v=", 3) == 0)
            ctx.verbosity = atoi(strchr(argv[i], '=') + 1);
        else if ((strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--v") == 0) && i + 1 < argc)
            ctx.verbosity = atoi(argv[i + 1]);
    }
    if (nd_log_init((int)ctx.verbosity) < 0)
        fprintf(stderr,
                "warning: not tracing to NODUS_TRACE: %s (a symbolic link, a hard link or "
                "another user's file is never used; name a new file in a directory of yours)\n",
                strerror(errno));
    int rc = cmd->run(argc - 1, argv + 1, &ctx);
    nd_ctx_release(&ctx);
    nd_log_close();
    return finish_stdout(rc);
}
