/* Prompts: a yes/no question on the terminal. readline is loaded with dlopen only when
 * a question is asked, so the commands that never ask do not pay for loading it. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "write.h"

typedef char *(*readline_fn)(const char *prompt);

static char *ask(const char *prompt)
{
    void *h = dlopen("libreadline.so.8", RTLD_NOW | RTLD_LOCAL);
    readline_fn rl = h ? (readline_fn)(uintptr_t)dlsym(h, "readline") : NULL;
    FILE **rl_out = h ? (FILE **)dlsym(h, "rl_outstream") : NULL;
    if (rl && rl_out) {
        *rl_out = stderr; /* a question is not output: stdout stays the command's */
        return rl(prompt); /* the library stays loaded: the process ends soon */
    }
    fputs(prompt, stderr);
    fflush(stderr);
    char line[256];
    if (!fgets(line, sizeof line, stdin))
        return NULL;
    line[strcspn(line, "\n")] = 0;
    return strdup(line);
}

int nd_prompt_yes(const char *question, const char *flag, bool *yes, struct nd_status *st)
{
    *yes = false;
    if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
        return nd_status_set(st, "Usage", NULL,
                             "cannot ask \"%s\" without a terminal: pass %s to answer yes",
                             question, flag);
    char *prompt = NULL;
    size_t n = strlen(question) + 16;
    prompt = malloc(n);
    if (!prompt)
        return nd_status_set(st, "InternalError", NULL, "out of memory");
    snprintf(prompt, n, "%s [y/N] ", question);
    char *answer = ask(prompt);
    free(prompt);
    *yes = answer && (!strcasecmp(answer, "y") || !strcasecmp(answer, "yes"));
    free(answer);
    return 0;
}
