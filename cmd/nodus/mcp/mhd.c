/* libmicrohttpd looked up at run time; see mhd.h. */
#include "mhd.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "util/dl.h"

struct mcp_mhd_api mcp_mhd;

static const char *INSTALL_FIX =
    "Install libmicrohttpd (Debian and Ubuntu: apt-get install libmicrohttpd12), or serve "
    "MCP over stdio (leave --listen out).";

int mcp_mhd_load(struct nd_status *st)
{
    if (mcp_mhd.lib)
        return 0;
    void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return nd_status_set(st, "Unreachable", INSTALL_FIX,
                             "nodus mcp --listen needs libmicrohttpd, which could not be loaded: %s",
                             dlerror());
    static const struct nd_dl_sym syms[] = {
#define SYM(field) {"MHD_" #field, offsetof(struct mcp_mhd_api, field)}
        SYM(lookup_connection_value), SYM(create_response_from_buffer),
        SYM(create_response_from_callback), SYM(add_response_header), SYM(queue_response),
        SYM(destroy_response), SYM(set_connection_option), SYM(get_connection_info), SYM(run),
        SYM(get_daemon_info), SYM(start_daemon), SYM(stop_daemon), SYM(resume_connection),
        SYM(suspend_connection), SYM(get_timeout),
#undef SYM
    };
    const char *missing = nd_dl_bind(h, syms, sizeof syms / sizeof syms[0], &mcp_mhd);
    if (missing)
        return nd_status_set(st, "Unreachable", INSTALL_FIX,
                             "nodus mcp --listen needs libmicrohttpd: its library has no %s",
                             missing);
    mcp_mhd.lib = h; /* kept for the life of the process */
    return 0;
}
