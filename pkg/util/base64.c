#include "util/base64.h"

static const char std_alpha[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alpha[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int nd_base64_encode(const void *p, size_t n, bool url, struct nd_buf *out)
{
    const unsigned char *b = p;
    const char *alpha = url ? url_alpha : std_alpha;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)b[i + 1] << 8;
        if (i + 2 < n)
            v |= b[i + 2];
        char q[4] = {alpha[(v >> 18) & 63], alpha[(v >> 12) & 63], alpha[(v >> 6) & 63],
                     alpha[v & 63]};
        size_t keep = i + 2 < n ? 4 : i + 1 < n ? 3 : 2;
        if (nd_buf_add(out, q, keep) < 0)
            return -1;
        if (!url && keep < 4 && nd_buf_add(out, "==", 4 - keep) < 0)
            return -1;
    }
    return 0;
}

static int value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

int nd_base64_decode(const char *s, size_t n, struct nd_buf *out)
{
    unsigned acc = 0;
    int bits = 0;
    size_t used = 0;
    bool pad = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad = true;
            continue;
        }
        int v = value(c);
        if (v < 0 || pad)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        used++;
        if (bits >= 8) {
            bits -= 8;
            if (nd_buf_addch(out, (char)((acc >> bits) & 0xff)) < 0)
                return -1;
        }
    }
    /* a final group of one character carries no whole byte */
    if (used % 4 == 1)
        return -1;
    return 0;
}
