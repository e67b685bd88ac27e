/* header.h: reading HTTP header values (RFC 9110), shared by the client and the emulator. */
#ifndef ND_HEADER_H
#define ND_HEADER_H

#include <stdbool.h>

/* True when the comma-separated list (a Connection, Upgrade, Transfer-Encoding or
 * Sec-WebSocket-Protocol value; NULL counts as empty) holds tok as one of its elements,
 * compared without regard to case and to the blanks around it. */
bool nd_http_has_token(const char *list, const char *tok);

#endif
