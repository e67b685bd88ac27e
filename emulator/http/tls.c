/* Loading --tls-cert and --tls-key (tls.h). */
#include "tls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"

#define PEM_MAX (1u << 20)

/* Reads FILE whole into a NUL-terminated string (new), or fills err. */
static char *read_pem(const char *flag, const char *file, struct stat *st, struct nd_buf *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        nd_buf_addf(err, "%s: cannot read %s: %s", flag, file, strerror(errno));
        return NULL;
    }
    struct nd_buf b;
    nd_buf_init(&b, PEM_MAX);
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        nd_buf_addf(err, "%s: %s is not a regular file", flag, file);
        goto fail;
    }
    if (st->st_size > (off_t)PEM_MAX) {
        nd_buf_addf(err, "%s: %s is larger than 1 MiB: not a PEM file", flag, file);
        goto fail;
    }
    if (nd_buf_read_fd(&b, fd) < 0) {
        if (errno == EFBIG)
            nd_buf_addf(err, "%s: %s is larger than 1 MiB: not a PEM file", flag, file);
        else
            nd_buf_addf(err, "%s: cannot read %s: %s", flag, file, strerror(errno));
        goto fail;
    }
    close(fd);
    if (!b.len || memchr(b.data, '\0', b.len)) {
        nd_buf_addf(err, "%s: %s is %s, not PEM text", flag, file, b.len ? "binary" : "empty");
        nd_buf_release(&b);
        return NULL;
    }
    return nd_buf_detach(&b);
fail:
    close(fd);
    nd_buf_release(&b);
    return NULL;
}

int em_tls_load(struct em_http_tls *tls, const char *cert_file, const char *key_file,
                struct nd_buf *err)
{
    memset(tls, 0, sizeof *tls);
    struct stat st;
    char *cert = read_pem("--tls-cert", cert_file, &st, err);
    if (!cert)
        return -1;
    if (!strstr(cert, "-----BEGIN CERTIFICATE-----")) {
        nd_buf_addf(err,
                    "--tls-cert: %s holds no PEM certificate (a -----BEGIN CERTIFICATE----- "
                    "block)",
                    cert_file);
        free(cert);
        return -1;
    }
    char *key = read_pem("--tls-key", key_file, &st, err);
    if (!key) {
        free(cert);
        return -1;
    }
    const char *why = NULL;
    if (strstr(key, "ENCRYPTED"))
        why = "is encrypted (a passphrase is not supported); write it out unencrypted: "
              "openssl pkey -in KEY -out KEY.plain";
    else if (!strstr(key, "-----BEGIN") || !strstr(key, "PRIVATE KEY-----"))
        why = "holds no PEM private key (a -----BEGIN PRIVATE KEY----- block)";
    if (why) {
        nd_buf_addf(err, "--tls-key: %s %s", key_file, why);
        free(cert);
        free(key);
        return -1;
    }
    if (st.st_mode & 077)
        fprintf(stderr,
                "nodus-emulator: warning: --tls-key %s can be read by %s (mode %04o); "
                "make it private: chmod 600 %s\n",
                key_file, st.st_mode & 007 ? "everyone" : "its group",
                (unsigned)(st.st_mode & 07777), key_file);
    tls->cert_pem = cert;
    tls->key_pem = key;
    return 0;
}

void em_tls_release(struct em_http_tls *tls)
{
    free(tls->cert_pem);
    free(tls->key_pem);
    tls->cert_pem = tls->key_pem = NULL;
}
