/* cli.h: what every verb of the nodus CLI shares.
 *
 * A verb is one file with one entry point, cmd_<verb>(argc, argv, ctx), and one row in
 * the command table of main.c. The row's flag table drives parsing (nd_cli_parse),
 * --help, shell completion and the check of the man page's synopsis. Verbs print; pkg/
 * never does. A verb returns its exit code (cli.md "Errors and exit codes").
 */
#ifndef ND_CLI_H
#define ND_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/buf.h"
#include "util/status.h"

/* A flag's type, and the type of the field its value lands in:
 *   ND_BOOL      bool                  true when given alone, or --flag=true|false
 *   ND_STRING    const char *          borrowed from argv; NULL when not given
 *   ND_INT       long long
 *   ND_DURATION  int64_t               milliseconds ("30s", "2m" or a number of seconds)
 *   ND_BYTES     int64_t               a byte quantity ("512Mi") of at least 1Mi
 *   ND_STRINGS   struct nd_strings     repeatable and comma-separated, in order
 * A field keeps the value the verb put there before parsing (its default) unless the
 * flag is given. */
enum nd_flag_type { ND_BOOL = 1, ND_STRING, ND_INT, ND_DURATION, ND_BYTES, ND_STRINGS };

/* The values of an ND_STRINGS flag (owned by the parse: nd_opts_release frees them). */
struct nd_strings {
    size_t n;
    char **v; /* NULL-terminated; NULL when the flag was not given (given empty: n 0) */
};

/* The kind of C field a flag is bound to (ND_FIELD_OF), checked against its type by
 * nd_flags_check. */
enum nd_field { ND_FIELD_NONE, ND_FIELD_BOOL, ND_FIELD_STR, ND_FIELD_LL, ND_FIELD_I64,
                ND_FIELD_STRS };
#define ND_FIELD_OF(x)                                                                         \
    _Generic((x), bool: ND_FIELD_BOOL, const char *: ND_FIELD_STR, long long: ND_FIELD_LL,     \
             int64_t: ND_FIELD_I64, struct nd_strings: ND_FIELD_STRS)

/* Where a value lands: a field of the verb's options struct (of the context, for the
 * global flags). */
struct nd_bind {
    size_t at;          /* offsetof */
    enum nd_field kind; /* ND_FIELD_NONE: not bound */
};
/* The binding of field f of struct S: ND_TO(struct get_opts, output). A field of a type
 * no flag has does not compile. */
#define ND_TO(S, f) {offsetof(S, f), ND_FIELD_OF(((S *)0)->f)}
/* The end of a table of flags bound to fields of S: records sizeof(S), so that the
 * parse and nd_flags_check can tell a table from another struct's. */
#define ND_FLAGS_END(S) {NULL, 0, 0, NULL, NULL, NULL, {sizeof(S), ND_FIELD_NONE}, {0, 0}}

struct nd_flag {
    const char *name;      /* long name, e.g. "output"; NULL ends a table (ND_FLAGS_END) */
    char shorthand;        /* 'o', or 0 */
    enum nd_flag_type type;
    const char *arg;       /* placeholder in help, e.g. "FORMAT" */
    const char *help;      /* one line */
    const char *complete;  /* completion of its value: "kinds", "names", "files", "dirs",
                              "projects", "contexts", or "=a b c" (fixed words); NULL none */
    struct nd_bind to;     /* the field of its value (ND_TO); at the end: the struct's size */
    struct nd_bind given;  /* a bool set when the flag is given (ND_TO), where the verb
                              tells "not given" from a given default; or none */
};

struct nd_ctx;

struct nd_command {
    const char *name;
    int (*run)(int argc, char **argv, struct nd_ctx *ctx);
    const struct nd_flag *flags; /* the verb's own flags (globals are added) */
    const char *group;           /* section of `nodus --help` */
    const char *summary;         /* one line */
    const char *usage;           /* "get [KIND[,KIND...]] [NAME...]" */
    const char *args;            /* completion of positional arguments, as for flags */
    const char *help;            /* longer text and examples, or NULL */
};

/* The parsed command line of one verb: its positional arguments. The values of its
 * flags are in the verb's own options struct. */
struct nd_opts {
    int npos;
    char **pos; /* positional arguments (borrowed from argv) */
    int ndash;
    char **dash;                  /* arguments after "--" (borrowed) */
    const struct nd_flag **given; /* the rows of the verb's flags given, in the order first
                                     given (NULL-terminated) */
    /* what nd_opts_release frees: the lists of the options struct */
    const struct nd_flag *table;
    void *flags;
};

struct nd_config;
struct nd_client;

struct nd_ctx {
    const struct nd_command *cmd; /* the verb running */
    const char *prog;             /* "nodus" */
    /* global flags */
    const char *kubeconfig, *context, *server, *token, *project_flag, *ca_file;
    bool insecure;
    bool all_projects;
    int64_t request_timeout_ms;
    int64_t max_response_bytes; /* --max-response-bytes; 0: the client's default */
    int64_t read_idle_ms;       /* --read-idle-timeout; 0: the client's default, -1: none */
    bool read_idle_given;
    long long verbosity;
    bool no_color;
    bool help;
    const char *user_agent; /* the requests' User-Agent; NULL: nodus/VERSION */
    /* resolved lazily (ctx.c) */
    struct nd_config *config;
    void *target; /* struct nd_target */
    struct nd_client *client;
    int color; /* -1 not decided yet */
    /* called with every error nd_cli_error and nd_cli_usage print (nodus mcp runs verbs
     * in-process and answers their errors as Statuses); NULL: none */
    void (*on_error)(void *cls, const struct nd_status *st);
    void *on_error_cls;
};

/* How the verb's arguments complete: its args hint, except that cp's files may also be
 * objects' files ("copy": local files, KIND/ and NAME: of the kinds with files). */
const char *nd_completion_args(const struct nd_command *cmd);

extern const struct nd_command nd_commands[];
extern const size_t nd_command_count;
extern const struct nd_flag nd_global_flags[];
const struct nd_command *nd_command_find(const char *name);

/* Parses argv (argv[0] is the verb) with the verb's flags and the global flags, which
 * may appear anywhere (as kubectl). The verb's flags land in the fields of flags (its
 * options struct, of flags_size bytes, which its table is bound to: ND_FLAGS_END), the
 * global flags in ctx. -1 with st (Usage). */
int nd_cli_parse(struct nd_ctx *ctx, int argc, char **argv, struct nd_opts *o, void *flags,
                 size_t flags_size, struct nd_status *st);
void nd_opts_release(struct nd_opts *o);
/* Whether table t is bound to a struct of size bytes: each row's field (and given
 * field) inside it, of the type of the row's flag, no two rows on one field. NULL, or
 * the first row that is not, with what is wrong in why. */
const struct nd_flag *nd_flags_check(const struct nd_flag *t, size_t size, const char **why);
/* The size of the struct table t is bound to (its ND_FLAGS_END); 0 for NULL. */
size_t nd_flags_size(const struct nd_flag *t);

/* Help. */
void nd_help_command(FILE *out, const struct nd_command *cmd);
void nd_help_main(FILE *out);

/* Errors: prints st as kubectl does (`Error from server (Reason): message`, or
 * `error: message` for client-side errors) with the fix, docs and requestId lines, on
 * stderr; returns the exit code for st. */
int nd_cli_error(struct nd_ctx *ctx, const struct nd_status *st);
/* What nd_cli_error prints up to the requestId, into b: the headline, then the fix (the
 * NODUS_SERVER hint for a refused connection it chose) and docs lines; _tail only the
 * fix and docs lines. */
/* A copy of st (release it) whose strings cannot drive a terminal, as every error
 * printed must be (a server wrote most of them): controls escaped (util/term.h), line
 * breaks kept in the message, the fix and details' strings. */
void nd_cli_safe_status(const struct nd_status *st, struct nd_status *out);
void nd_cli_render(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b);
void nd_cli_render_tail(struct nd_ctx *ctx, const struct nd_status *st, struct nd_buf *b);
/* `error: <message>` for a usage error (exit code 2), with a hint to --help. */
int nd_cli_usage(struct nd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* kubectl's usage error for positional arguments a verb takes none of:
 * `unexpected arguments: [a b]`. */
int nd_cli_unexpected_args(struct nd_ctx *ctx, int npos, char *const *pos);
/* Prints Warning headers of a response as kubectl: `Warning: <text>`. */
void nd_cli_warnings(const json_t *headers);

/* The connection to the server, built on first use from flags, environment and the
 * configuration. NULL with st on a configuration error. */
struct nd_client *nd_ctx_client(struct nd_ctx *ctx, struct nd_status *st);
/* The server's clock now, in seconds since the epoch: what every age a verb prints is
 * measured against (nd_client_server_now_ms of the context's connection; the local
 * clock before the first answer). */
int64_t nd_ctx_now(struct nd_ctx *ctx);
/* The project commands act in: -n, else the context's, else "default". BORROWED. */
const char *nd_ctx_project(struct nd_ctx *ctx);
/* Loaded configuration (loaded on first use). NULL with st on a broken file. */
struct nd_config *nd_ctx_config(struct nd_ctx *ctx, struct nd_status *st);
/* True when stdout is a terminal and colour is not turned off (--no-color, NO_COLOR). */
bool nd_ctx_color(struct nd_ctx *ctx);
void nd_ctx_release(struct nd_ctx *ctx);

/* Writes b to stdout (all of it). */
void nd_out(const struct nd_buf *b);

#endif
