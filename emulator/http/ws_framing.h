/* ws_framing.h: follows the frame headers a WebSocket client sends, ahead of wslay.
 *
 * wslay answers a frame it cannot even parse (a control frame over 125 bytes or in
 * fragments, a length not in its shortest form, a close frame of one byte) with a close
 * frame without a code; RFC 6455 wants 1002. exec_session.c hands every byte it reads
 * to em_ws_framing_unparsable() first, so that close can be queued before wslay sees it.
 */
#ifndef EM_WS_FRAMING_H
#define EM_WS_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zero-initialised to start; state -1 is the caller's "given up" mark. */
struct em_ws_framing {
    int state; /* 0, 1: the two first bytes; 2: the extended length; 3: the rest */
    unsigned char b0;
    int need, got;
    uint64_t len, skip;
    bool masked;
};

/* Follows the client's frames over p[0..n), continuing where the last call stopped (the
 * bytes may come in any pieces): true when a frame header cannot be parsed. */
bool em_ws_framing_unparsable(struct em_ws_framing *f, const unsigned char *p, size_t n);

#endif
