/* nodus version: the client's version and, when reachable, the server's. */
#include <string.h>

#include <stdlib.h>

#include "cli.h"
#include "client/client.h"
#include "commands.h"

struct version_opts {
    bool client;
    const char *output;
};

#define TO(f) ND_TO(struct version_opts, f)
const struct nd_flag cmd_version_flags[] = {
    {"client", 0, ND_BOOL, NULL, "show only the client version", NULL, TO(client)},
    {"output", 'o', ND_STRING, "FORMAT", "json or yaml", "=json yaml", TO(output)},
    ND_FLAGS_END(struct version_opts),
};

int cmd_version(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct version_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *fmt = opt.output;
    if (fmt && strcmp(fmt, "json") != 0 && strcmp(fmt, "yaml") != 0) {
        rc = nd_cli_usage(ctx, "--output must be 'yaml' or 'json'");
        goto out;
    }
    json_t *server = NULL;
    if (!opt.client) {
        struct nd_client *c = nd_ctx_client(ctx, &st);
        if (!c || nd_client_json(c, "GET", "/version", NULL, &server, &st) < 0) {
            rc = -1; /* printed after the client version, as kubectl */
        }
    }
    if (fmt) {
        json_t *doc = json_pack("{s{ssss}}", "clientVersion", "gitVersion", "v" ND_VERSION,
                                "platform", "linux/amd64");
        if (server)
            json_object_set(doc, "serverVersion", server);
        char *s = json_dumps(doc, JSON_INDENT(2));
        printf("%s\n", s);
        free(s);
        json_decref(doc);
    } else {
        printf("Client Version: v%s\n", ND_VERSION);
        if (server)
            printf("Server Version: %s\n",
                   json_string_value(json_object_get(server, "gitVersion")));
    }
    json_decref(server);
    if (rc < 0)
        rc = nd_cli_error(ctx, &st);
out:
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
