/* exec_session.h: one exec session (exec.h describes the protocol): what the request
 * asked for, and the thread that runs it after the upgrade. Shared by exec.c (which
 * checks the request and keeps the registry) and exec_session.c (which runs it). */
#ifndef EM_EXEC_SESSION_H
#define EM_EXEC_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "server.h"
#include "view.h"

struct em_exec_session {
    struct em_server *srv;
    const struct nd_kind *kind;     /* the object exec'd into: its kind, */
    char *ns, *name, *uid;          /* where it is and which one */
    struct em_view view;            /* what the command sees: its tree, its Volumes */
    char **argv, **envp;            /* NULL-terminated, owned */
    bool want_in, want_out, want_err, tty;
    bool v5;    /* v5.channel.k8s.io (else v4) */
    int tcp_fd; /* the client's TCP socket (em_req_socket), -1 */
};

/* Runs the session on the upgraded socket (owned until it returns; `extra` holds bytes
 * the client sent after its request), then unregisters and frees s. Takes the server
 * lock only to look at the object and to unregister. */
void em_exec_session_run(struct em_exec_session *s, int fd, const char *extra, size_t extra_len);
void em_exec_session_free(struct em_exec_session *s);

/* exec.c, lock held: the registry behind em_sandbox_sessions; closing one restarts a
 * Sandbox's idle clock. */
void em_exec_session_open(struct em_exec_session *s);
void em_exec_session_closed(struct em_exec_session *s);
/* Whether the object (that uid) is still there and Running, not being deleted. */
bool em_exec_target_running(struct em_server *srv, const struct nd_kind *k, const char *ns,
                            const char *name, const char *uid);

#endif
