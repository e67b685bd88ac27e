/* ws_accept.c: SHA-1 and the WebSocket handshake's accept key.
 *
 * Neither binary links a library with SHA-1: libcurl is loaded only for https:// (and
 * exports no hash), libmicrohttpd and wslay export none, and linking libcrypto or nettle
 * into both binaries for one 60-byte hash per session would cost the CLI's start-up
 * time. SHA-1 here serves only RFC 6455's handshake check, never security.
 */
#include "client/ws.h"

#include <string.h>

#include "util/base64.h"
#include "util/buf.h"

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999u;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1u;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdcu;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6u;
        }
        uint32_t tmp = rol(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void nd_sha1(const void *data, size_t n, unsigned char out[20])
{
    uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    const unsigned char *p = data;
    size_t left = n;
    for (; left >= 64; left -= 64, p += 64)
        block(h, p);
    /* the tail, 0x80, zeros, and the length in bits (big-endian) */
    unsigned char last[128];
    memset(last, 0, sizeof last);
    memcpy(last, p, left);
    last[left] = 0x80;
    size_t total = left + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++)
        last[total - 1 - i] = (unsigned char)(bits >> (8 * i));
    block(h, last);
    if (total == 128)
        block(h, last + 64);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}

void nd_ws_accept(const char *key, char out[29])
{
    struct nd_buf in = ND_BUF_INIT, enc = ND_BUF_INIT;
    nd_buf_adds(&in, key);
    nd_buf_adds(&in, ND_WS_GUID);
    unsigned char sum[20];
    nd_sha1(in.data, in.len, sum);
    nd_base64_encode(sum, sizeof sum, false, &enc);
    snprintf(out, 29, "%s", enc.data);
    nd_buf_release(&in);
    nd_buf_release(&enc);
}
