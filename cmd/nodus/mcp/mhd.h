/* mhd.h: libmicrohttpd for nodus mcp --listen, loaded with dlopen() when the HTTP
 * transport starts (as pkg/client/curl.c loads libcurl). libmicrohttpd brings GnuTLS and
 * its dependencies (a dozen libraries): linked, every nodus command paid for loading and
 * initialising them at start, several milliseconds of a `nodus get`. Include this instead
 * of <microhttpd.h>: it gives the header's types and constants, and turns each MHD_*
 * function the transport calls into the pointer mcp_mhd_load looked up. */
#ifndef ND_MCP_MHD_H
#define ND_MCP_MHD_H

#include <microhttpd.h>

#include "util/status.h"

struct mcp_mhd_api {
    void *lib; /* NULL until loaded */
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind,
                                           const char *);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *,
                                                        enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*create_response_from_callback)(uint64_t, size_t,
                                                          MHD_ContentReaderCallback, void *,
                                                          MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int,
                                      struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
    enum MHD_Result (*set_connection_option)(struct MHD_Connection *,
                                             enum MHD_CONNECTION_OPTION, ...);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *,
                                                           enum MHD_ConnectionInfoType, ...);
    enum MHD_Result (*run)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType,
                                                   ...);
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    void (*resume_connection)(struct MHD_Connection *);
    void (*suspend_connection)(struct MHD_Connection *);
    enum MHD_Result (*get_timeout)(struct MHD_Daemon *, MHD_UNSIGNED_LONG_LONG *);
};
extern struct mcp_mhd_api mcp_mhd;

/* Loads libmicrohttpd (once): 0, or -1 with st (Unreachable, how to install it). */
int mcp_mhd_load(struct nd_status *st);

#define MHD_lookup_connection_value mcp_mhd.lookup_connection_value
#define MHD_create_response_from_buffer mcp_mhd.create_response_from_buffer
#define MHD_create_response_from_callback mcp_mhd.create_response_from_callback
#define MHD_add_response_header mcp_mhd.add_response_header
#define MHD_queue_response mcp_mhd.queue_response
#define MHD_destroy_response mcp_mhd.destroy_response
#define MHD_set_connection_option mcp_mhd.set_connection_option
#define MHD_get_connection_info mcp_mhd.get_connection_info
#define MHD_run mcp_mhd.run
#define MHD_get_daemon_info mcp_mhd.get_daemon_info
#define MHD_start_daemon mcp_mhd.start_daemon
#define MHD_stop_daemon mcp_mhd.stop_daemon
#define MHD_resume_connection mcp_mhd.resume_connection
#define MHD_suspend_connection mcp_mhd.suspend_connection
#define MHD_get_timeout mcp_mhd.get_timeout

#endif
