/* --help texts, generated from the command and flag tables. */
#include <string.h>

#include "cli.h"

static void flag_line(FILE *out, const struct nd_flag *f)
{
    char left[64];
    if (f->shorthand)
        snprintf(left, sizeof left, "-%c, --%s%s%s", f->shorthand, f->name, f->arg ? " " : "",
                 f->arg ? f->arg : "");
    else
        snprintf(left, sizeof left, "    --%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");
    fprintf(out, "  %-34s %s\n", left, f->help);
}

void nd_help_command(FILE *out, const struct nd_command *cmd)
{
    fprintf(out, "%s\n\nUsage:\n  nodus %s\n", cmd->summary, cmd->usage);
    if (cmd->help)
        fprintf(out, "\n%s\n", cmd->help);
    if (cmd->flags && cmd->flags->name) {
        fprintf(out, "\nFlags:\n");
        for (const struct nd_flag *f = cmd->flags; f->name; f++)
            flag_line(out, f);
    }
    fprintf(out, "\nGlobal flags:\n");
    for (const struct nd_flag *f = nd_global_flags; f->name; f++)
        flag_line(out, f);
}

static const char *const groups[] = {"Basic commands", "Deploy and change",
                                     "Nodus commands", "Inspect the API", "Settings", NULL};

void nd_help_main(FILE *out)
{
    fprintf(out, "nodus: the command-line client of the Nodus GPU cloud (kubectl-compatible).\n\n"
                 "Usage:\n  nodus <command> [arguments] [flags]\n");
    for (int g = 0; groups[g]; g++) {
        fprintf(out, "\n%s:\n", groups[g]);
        for (size_t i = 0; i < nd_command_count; i++) {
            const struct nd_command *c = &nd_commands[i];
            if (c->group && strcmp(c->group, groups[g]) == 0)
                fprintf(out, "  %-16s %s\n", c->name, c->summary);
        }
    }
    fprintf(out, "\nAny other command runs nodus-<command> from PATH, if there is one.\n"
                 "Run 'nodus <command> --help' for a command's flags.\n");
}
