/* Following a WebSocket client's frame headers (ws_framing.h). */
#include "ws_framing.h"

bool em_ws_framing_unparsable(struct em_ws_framing *f, const unsigned char *p, size_t n)
{
    while (n) {
        if (f->state == 3) {
            uint64_t k = f->skip < n ? f->skip : n;
            p += k;
            n -= (size_t)k;
            f->skip -= k;
            if (!f->skip)
                f->state = 0;
            continue;
        }
        unsigned char b = *p++;
        n--;
        if (f->state == 0) {
            f->b0 = b;
            f->state = 1;
            continue;
        }
        if (f->state == 1) {
            unsigned len7 = b & 0x7fu;
            if ((f->b0 & 0x08) && (len7 > 125 || !(f->b0 & 0x80)))
                return true; /* a control frame: at most 125 bytes, never fragmented */
            if ((f->b0 & 0x0fu) == 0x8 && len7 == 1)
                return true; /* a close frame's body is empty or a 2-byte code first */
            f->masked = (b & 0x80) != 0;
            f->need = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
            f->got = 0;
            f->len = f->need ? 0 : len7;
            f->state = 2;
        } else {
            f->len = f->len << 8 | b;
            f->got++;
        }
        if (f->got == f->need) {
            if ((f->need == 2 && f->len < 126) ||
                (f->need == 8 && (f->len < 65536 || (f->len >> 63))))
                return true; /* the length not in its shortest form */
            f->skip = f->len + (f->masked ? 4 : 0);
            f->state = f->skip ? 3 : 0;
        }
    }
    return false;
}
