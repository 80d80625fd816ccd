/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

size_t xpu_utf8_char_len(const char *str) {
        const unsigned char *s = (const unsigned char *)str;
        size_t n;
        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4;
        else
                return 0; /* a continuation byte, an overlong 2-byte lead (C0, C1), or above F4 */
        for (size_t i = 1; i < n; i++)
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        /* Overlong 3- and 4-byte forms, UTF-16 surrogates (U+D800..U+DFFF), above U+10FFFF. */
        if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
            (s[0] == 0xf4 && s[1] >= 0x90))
                return 0;
        return n;
}

/* Is the well-formed sequence of N bytes at S a control character (C0, DEL, C1: U+0080..U+009F,
 * which are C2 80..C2 9F), or a format character that changes how a line reads (Unicode
 * general category Cf and the separators Zl/Zp): U+061C, U+200B..U+200F (zero width, LRM,
 * RLM), U+2028..U+202E (line and paragraph separators, bidirectional embeddings and overrides),
 * U+2060..U+2064, U+2066..U+2069 (bidirectional isolates), U+FEFF (zero width no-break space)?
 * A log viewer may break a line at U+2028, and U+202E shows what follows backwards. */
static bool utf8_is_control(const unsigned char *s, size_t n) {
        if (n == 1)
                return s[0] < 0x20 || s[0] == 0x7f;
        if (n == 2)
                return (s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xd8 && s[1] == 0x9c);
        if (n == 3 && s[0] == 0xe2 && s[1] == 0x80)
                return (s[2] >= 0x8b && s[2] <= 0x8f) || (s[2] >= 0xa8 && s[2] <= 0xae);
        if (n == 3 && s[0] == 0xe2 && s[1] == 0x81)
                return (s[2] >= 0xa0 && s[2] <= 0xa4) || (s[2] >= 0xa6 && s[2] <= 0xa9);
        return n == 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf;
}

bool xpu_str_is_text(const char *s) {
        if (!s || !*s)
                return false;
        for (size_t n; *s; s += n)
                if (!(n = xpu_utf8_printable_len(s)))
                        return false;
        return true;
}

size_t xpu_utf8_sanitize(char *dst, size_t size, const char *src, bool *cut) {
        static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
        size_t w = 0, replaced = 0;
        bool was_cut = false;
        if (size == 0)
                return 0;
        for (const char *p = src ? src : ""; *p;) {
                size_t n = xpu_utf8_char_len(p);
                const char *from = p;
                size_t len = n;
                bool bad = n == 0 || utf8_is_control((const unsigned char *)p, n);
                if (bad) {
                        /* A control character counts once, an ill-formed byte on its own. */
                        from = replacement;
                        len = sizeof replacement - 1;
                        n = n ? n : 1;
                }
                if (w + len > size - 1) {
                        was_cut = true;
                        break;
                }
                memcpy(dst + w, from, len);
                w += len;
                p += n;
                replaced += bad;
        }
        dst[w] = '\0';
        if (cut)
                *cut = was_cut;
        return replaced;
}

size_t xpu_utf8_printable_len(const char *s) {
        size_t n = *s ? xpu_utf8_char_len(s) : 0;
        return n && !utf8_is_control((const unsigned char *)s, n) ? n : 0;
}

char *xpu_escape_text(const char *in, char *out, size_t size) {
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;
        if (size == 0)
                return out;
        for (const char *p = in; *p;) {
                size_t n = xpu_utf8_printable_len(p);
                if (*p == '\\') { /* doubled, so that "\\x0a" in a value never reads as an escape */
                        if (o + 2 >= size)
                                break;
                        out[o++] = '\\';
                        out[o++] = '\\';
                        p++;
                } else if (n == 0) {
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
