/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"

#include <string.h>

size_t xpu_utf8_printable_len(const char *str) {
        const unsigned char *s = (const unsigned char *)str;
        unsigned char c = s[0];
        if (c >= 0x20 && c < 0x7f)
                return 1;
        /* The second byte's range for each lead byte (RFC 3629 section 4), then 0x80-0xbf. */
        size_t n;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
                n = 2;
        else if (c >= 0xe0 && c <= 0xef)
                n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4)
                n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        else
                return 0; /* C0 control, DEL, continuation byte, 0xc0/0xc1, 0xf5-0xff */
        if (s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < n; i++)
                if (s[i] < 0x80 || s[i] > 0xbf)
                        return 0;
        if (c == 0xc2 && s[1] <= 0x9f)
                return 0; /* U+0080-U+009F: C1 controls, which terminals act on */
        return n;
}

char *xpu_escape_text(const char *in, char *out, size_t size) {
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;
        if (size == 0)
                return out;
        for (const char *p = in; *p;) {
                size_t n = xpu_utf8_printable_len(p);
                if (n == 0) {
                        if (o + 4 >= size)
                                break;
                        unsigned char b = (unsigned char)*p++;
                        out[o++] = '\\';
                        out[o++] = 'x';
                        out[o++] = hex[b >> 4];
                        out[o++] = hex[b & 0xf];
                } else {
                        if (o + n >= size)
                                break;
                        memcpy(out + o, p, n);
                        o += n;
                        p += n;
                }
        }
        out[o] = '\0';
        return out;
}
