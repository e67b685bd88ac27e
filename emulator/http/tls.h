/* tls.h: --tls-cert and --tls-key: the PEM files, read once at start.
 *
 * What can be checked without a TLS library is checked here, each with its own message:
 * the files readable, small (1 MiB at most), a certificate block in one, an unencrypted
 * private key block in the other. A key file that group or others may read gets a
 * warning on stderr. Whether the two parse and match is GnuTLS's verdict, reported by
 * em_http_start. The emulator never asks clients for certificates: tokens are the
 * authentication.
 */
#ifndef EM_TLS_H
#define EM_TLS_H

#include "http.h"
#include "util/buf.h"

/* Fills tls with the files' contents (owned; em_tls_release frees them). -1 and a
 * message in err (no "nodus-emulator: " prefix) when a file is unreadable or not PEM. */
int em_tls_load(struct em_http_tls *tls, const char *cert_file, const char *key_file,
                struct nd_buf *err);
void em_tls_release(struct em_http_tls *tls);

#endif
